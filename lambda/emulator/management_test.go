package emulator_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi"
	"github.com/aws/aws-sdk-go-v2/service/apigatewaymanagementapi/types"

	"github.com/groundwire/groundwire/lambda/emulator"
)

// sdkClient is the real AWS SDK client of the Management API, pointed at
// endpoint with dummy credentials (it signs its requests with SigV4).
func sdkClient(endpoint string) *apigatewaymanagementapi.Client {
	cfg := aws.Config{
		Region: "eu-north-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}, nil
		}),
		RetryMaxAttempts: 1,
	}
	return apigatewaymanagementapi.NewFromConfig(cfg, func(o *apigatewaymanagementapi.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	})
}

func TestManagementAPIWithSDK(t *testing.T) {
	rec := emulator.NewRecorder()
	at := time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)
	rec.Open("abc=", emulator.Info{ConnectedAt: at, LastActiveAt: at, SourceIP: "127.0.0.1", UserAgent: "test"})
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}).ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()

	for _, endpoint := range []string{srv.URL, srv.URL + "/prod"} {
		c := sdkClient(endpoint)
		if _, err := c.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{
			ConnectionId: aws.String("abc="), Data: []byte(`{"type":"stream","id":"m1","delta":"hi"}`),
		}); err != nil {
			t.Fatalf("%s: post: %v", endpoint, err)
		}
	}
	if sent := rec.Sent("abc="); len(sent) != 2 || string(sent[0]) != `{"type":"stream","id":"m1","delta":"hi"}` {
		t.Fatalf("sent %q", sent)
	}
	for _, a := range auth {
		if !emulator.WellFormedSigV4(a) {
			t.Fatalf("SDK's Authorization header not recognised: %q", a)
		}
	}

	c := sdkClient(srv.URL)
	info, err := c.GetConnection(ctx, &apigatewaymanagementapi.GetConnectionInput{ConnectionId: aws.String("abc=")})
	if err != nil {
		t.Fatal(err)
	}
	if !info.ConnectedAt.Equal(at) || info.LastActiveAt.Before(at) || aws.ToString(info.Identity.SourceIp) != "127.0.0.1" || aws.ToString(info.Identity.UserAgent) != "test" {
		t.Fatalf("info %+v %+v", info, info.Identity)
	}

	if _, err := c.DeleteConnection(ctx, &apigatewaymanagementapi.DeleteConnectionInput{ConnectionId: aws.String("abc=")}); err != nil {
		t.Fatal(err)
	}
	if !rec.Closed("abc=") {
		t.Fatal("not closed")
	}

	// closed and unknown connections: 410 GoneException, typed by the SDK
	for _, id := range []string{"abc=", "nope"} {
		var gone *types.GoneException
		_, err := c.PostToConnection(ctx, &apigatewaymanagementapi.PostToConnectionInput{ConnectionId: aws.String(id), Data: []byte("x")})
		if !errors.As(err, &gone) {
			t.Fatalf("post to %s: %v, want GoneException", id, err)
		}
		_, err = c.GetConnection(ctx, &apigatewaymanagementapi.GetConnectionInput{ConnectionId: aws.String(id)})
		if !errors.As(err, &gone) {
			t.Fatalf("get %s: %v, want GoneException", id, err)
		}
		_, err = c.DeleteConnection(ctx, &apigatewaymanagementapi.DeleteConnectionInput{ConnectionId: aws.String(id)})
		if !errors.As(err, &gone) {
			t.Fatalf("delete %s: %v, want GoneException", id, err)
		}
	}
}

func TestManagementAPIRaw(t *testing.T) {
	rec := emulator.NewRecorder()
	rec.Open("c1", emulator.Info{})
	strict := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}))
	defer strict.Close()
	lax := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{}))
	defer lax.Close()

	post := func(base, body string, hdr map[string]string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/@connections/c1", strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := post(strict.URL, "x", nil); r.StatusCode != http.StatusForbidden {
		t.Fatalf("unsigned on strict: %d", r.StatusCode)
	}
	if r := post(strict.URL, "x", map[string]string{"Authorization": "Bearer x"}); r.StatusCode != http.StatusForbidden {
		t.Fatalf("malformed on strict: %d", r.StatusCode)
	}
	if r := post(lax.URL, "x", map[string]string{"Authorization": "whatever"}); r.StatusCode != http.StatusOK {
		t.Fatalf("any Authorization on lax: %d", r.StatusCode)
	}
	if r := post(lax.URL, strings.Repeat("x", emulator.MaxPostBytes+1), nil); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("over 128 KB: %d", r.StatusCode)
	}
	if r := post(lax.URL, strings.Repeat("x", emulator.MaxPostBytes), nil); r.StatusCode != http.StatusOK {
		t.Fatalf("128 KB: %d", r.StatusCode)
	}
	resp, err := http.Get(lax.URL + "/nothing/here")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("other path: %d", resp.StatusCode)
	}
}
