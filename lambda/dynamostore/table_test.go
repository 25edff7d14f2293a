package dynamostore_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/lambda/dynamostore"
)

// TestCreateTableIdempotent: creating the table a second time is fine and
// leaves it as it is (the store keeps working on what the first call made).
func TestCreateTableIdempotent(t *testing.T) {
	name := newTable(t) // the first creation
	db := client(endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, dynamostore.CreateTable(ctx, db, name), "a second creation")

	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	require.NoError(t, err)
	want := dynamostore.TableDefinition(name)
	assert.Equal(t, types.TableStatusActive, out.Table.TableStatus)
	assert.ElementsMatch(t, want.KeySchema, out.Table.KeySchema)
	assert.ElementsMatch(t, want.AttributeDefinitions, out.Table.AttributeDefinitions)

	// dynalite has no UpdateTimeToLive: the error says so instead of a bare
	// "unknown operation".
	err = dynamostore.EnableTTL(ctx, db, name)
	t.Logf("EnableTTL: %v", err)
	if !errors.Is(err, dynamostore.ErrTTLUnsupported) && err != nil {
		t.Fatalf("EnableTTL on %s: %v", endpoint, err)
	}
}

// ttlDynamo is a stand-in DynamoDB that knows only the two TTL operations
// and records the UpdateTimeToLive calls it gets.
type ttlDynamo struct {
	mu      sync.Mutex
	status  string // DescribeTimeToLive's answer
	attr    string
	updates []string // "table attr enabled"
}

func (d *ttlDynamo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in map[string]any
	json.Unmarshal(body, &in)
	d.mu.Lock()
	defer d.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	switch op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."); op {
	case "DescribeTimeToLive":
		desc := map[string]any{"TimeToLiveStatus": d.status}
		if d.attr != "" {
			desc["AttributeName"] = d.attr
		}
		json.NewEncoder(w).Encode(map[string]any{"TimeToLiveDescription": desc})
	case "UpdateTimeToLive":
		spec := in["TimeToLiveSpecification"].(map[string]any)
		d.updates = append(d.updates, in["TableName"].(string)+" "+spec["AttributeName"].(string)+" "+
			map[bool]string{true: "enabled", false: "disabled"}[spec["Enabled"] == true])
		d.status, d.attr = "ENABLING", spec["AttributeName"].(string)
		json.NewEncoder(w).Encode(map[string]any{"TimeToLiveSpecification": spec})
	default:
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"__type": "com.amazon.coral.service#UnknownOperationException"})
	}
}

// TestEnableTTL: TTL is enabled on `ttl` once; a table whose TTL is already
// on is left alone.
func TestEnableTTL(t *testing.T) {
	d := &ttlDynamo{status: "DISABLED"}
	srv := httptest.NewServer(d)
	defer srv.Close()
	db := client(srv.URL)
	ctx := context.Background()

	require.NoError(t, dynamostore.EnableTTL(ctx, db, "groundwire"))
	require.NoError(t, dynamostore.EnableTTL(ctx, db, "groundwire"))
	assert.Equal(t, []string{"groundwire ttl enabled"}, d.updates)
	assert.Equal(t, "ttl", dynamostore.TTLAttribute)

	d.status, d.attr = "ENABLED", "expires" // on, but on another attribute
	require.NoError(t, dynamostore.EnableTTL(ctx, db, "other"))
	assert.Equal(t, []string{"groundwire ttl enabled", "other ttl enabled"}, d.updates)
}

// TestEnableTTLUnsupported: a DynamoDB without the TTL API is named as such.
func TestEnableTTLUnsupported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"__type":"com.amazon.coral.service#UnknownOperationException"}`)
	}))
	defer srv.Close()
	err := dynamostore.EnableTTL(context.Background(), client(srv.URL), "groundwire")
	assert.ErrorIs(t, err, dynamostore.ErrTTLUnsupported)
}
