package dynamostore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/dynamostore"
)

// countingDB counts the DynamoDB requests the store makes, by operation.
type countingDB struct {
	dynamostore.API
	mu sync.Mutex
	n  map[string]int
}

func (c *countingDB) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[op]++
}

func (c *countingDB) reset() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = nil
	return n
}

func (c *countingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.count("GetItem")
	return c.API.GetItem(ctx, in, o...)
}

func (c *countingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.count("PutItem")
	return c.API.PutItem(ctx, in, o...)
}

func (c *countingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.count("UpdateItem")
	return c.API.UpdateItem(ctx, in, o...)
}

func (c *countingDB) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.count("DeleteItem")
	return c.API.DeleteItem(ctx, in, o...)
}

func (c *countingDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.count("Query")
	return c.API.Query(ctx, in, o...)
}

func total(n map[string]int) int {
	t := 0
	for _, v := range n {
		t += v
	}
	return t
}

// TestCostPerAnswer measures what typical answers cost in AWS: questions
// answered from the real knowledge base by the mock model at its default
// speed (20–80 ms a token, real time), PostToConnection calls counted at
// the Management API emulator and DynamoDB requests at the client of the
// store (against dynalite). It runs each question with a frame per token
// and the cancel flag read every 100 ms (the settings before coalescing),
// then with the bootstrap's defaults and with 250 ms coalescing, then with
// the defaults at a hosted model's pace (10–15 ms a token), and logs the
// figures. Coalescing
// never sends more frames, and reading the flag at most every 200 ms,
// before a frame, never more requests.
func TestCostPerAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("streams real answers at the mock's default speed")
	}
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	questions := []string{
		"How much does Premium cost?",
		"hi, what does premium cost per month and is basic cheaper?? thx",
		"Vad kostar Premium per månad?",
		"How much does Premium cost, and can I pay with Swish?", // two sentences
	}
	type cost struct{ posts, requests int }
	measure := func(name string, coalesce, check time.Duration, mock ...lambda.MockOption) []cost {
		table := newTable(t)
		g := newGateway(t)
		db := &countingDB{API: client(endpoint)}
		h := instance(t, g, endpoint, table, func(cfg *lambda.Config) {
			cfg.Retriever = base
			cfg.Model = lambda.NewMock(mock...)
			cfg.Store = dynamostore.New(db, table, dynamostore.Options{Timeout: time.Second})
			cfg.CoalesceInterval, cfg.CancelCheckInterval = coalesce, check
		})
		var out []cost
		for i, q := range questions {
			conn := fmt.Sprintf("c%d", i)
			connect(t, g, h, conn)
			db.reset()
			h.Handle(context.Background(), ev(lambda.EventMessage, conn, frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: q})))
			fs := g.frames(conn)
			checkFlows(t, fs, "sources:m1 stream:m1 stream_end:m1:done response:m1:verified")
			n := db.reset()
			out = append(out, cost{len(fs), total(n)})
			t.Logf("%-22s %-66q %2d PostToConnection, %2d DynamoDB requests %v", name, q, len(fs), total(n), n)
		}
		return out
	}
	before := measure("per token, 100ms check", 0, 100*time.Millisecond)
	after := measure("bootstrap defaults", 100*time.Millisecond, 200*time.Millisecond)
	measure("250ms coalescing", 250*time.Millisecond, 200*time.Millisecond)
	// A hosted model streams some 80–120 tokens a second: the same answers
	// at that pace (a mock token is a word, about 1.3 model tokens).
	measure("defaults, 10–15ms/token", 100*time.Millisecond, 200*time.Millisecond,
		lambda.MockDelay(10*time.Millisecond, 15*time.Millisecond))
	for i, q := range questions {
		if after[i].posts > before[i].posts || after[i].requests > before[i].requests {
			t.Errorf("%q costs more with the defaults: %+v, per token %+v", q, after[i], before[i])
		}
	}
}
