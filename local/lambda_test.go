package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/apigw"
	"github.com/groundwire/groundwire/lambda/emulator"
)

// runtimeEndpoint stands in for the Lambda Runtime Interface Emulator
// running lambda/bootstrap: it decodes each invocation and runs the real
// handler, whose frames go back through the API Gateway Management API
// (the AWS SDK client) to the local server's /local/@connections.
type runtimeEndpoint struct {
	srv *httptest.Server
	mu  sync.Mutex
	h   *lambda.Handler
}

func newRuntimeEndpoint(t *testing.T) *runtimeEndpoint {
	t.Helper()
	rt := &runtimeEndpoint{}
	rt.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != emulator.InvokePath {
			http.NotFound(w, r)
			return
		}
		var ev events.APIGatewayWebsocketProxyRequest
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rt.mu.Lock()
		h := rt.h
		rt.mu.Unlock()
		resp, err := apigw.Wrap(h.Handle)(r.Context(), ev)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(rt.srv.Close)
	return rt
}

// start builds the function's handler (one Lambda instance) once the local server's address,
// its Management API endpoint, is known.
func (rt *runtimeEndpoint) start(t *testing.T, endpoint string, store lambda.Store) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	sender := apigw.New(aws.Config{
		Region: "eu-north-1",
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}, nil
		}),
	}, apigw.Options{Endpoint: endpoint})
	h, err := lambda.New(lambda.Config{
		Retriever: base,
		Model:     lambda.NewMock(lambda.MockDelay(2*time.Millisecond, 2*time.Millisecond)),
		Store:     store,
		Sender:    sender,
	})
	if err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	rt.h = h
	rt.mu.Unlock()
}

// -lambda: the local server forwards every event to the Lambda runtime
// endpoints and serves the Management API the function answers through,
// so the deployable shape runs unchanged on one machine (SPEC §9).
func TestForwardToLambda(t *testing.T) {
	rt1, rt2 := newRuntimeEndpoint(t), newRuntimeEndpoint(t)
	ts := startServer(t, func(c *config) {
		c.Lambda = []string{rt1.srv.URL + emulator.InvokePath, rt2.srv.URL + emulator.InvokePath}
	})
	table := lambda.NewMemStore() // the instances share only their state, as with DynamoDB
	for _, rt := range []*runtimeEndpoint{rt1, rt2} {
		rt.start(t, "http://"+ts.addr+"/"+stage, table)
	}

	c := ts.dial(t, "/ws", nil)
	defer c.close()
	c.message("m1", "What does Premium cost?")
	fs := c.answer("m1")
	resp := fs[len(fs)-1]
	if got := types(fs); !strings.HasPrefix(got, "sources stream") || resp.Status != "verified" || !strings.Contains(resp.Text, "399") {
		t.Fatalf("frames %s, response %+v", got, resp)
	}

	// A cancel overtakes a streaming answer: the two invocations overlap,
	// so they run on the two endpoints.
	c.message("m2", "$say "+strings.Repeat("Premium costs 399 kr. ", 150))
	c.send(map[string]string{"type": "cancel", "id": "m2"})
	fs = c.answer("m2")
	if last := fs[len(fs)-1]; last.Type != "stream_end" || last.Reason != "cancelled" {
		t.Fatalf("after cancel: %s", types(fs))
	}
	c.quiet(100 * time.Millisecond)
}

// The Management API answers loopback clients only, and only with -lambda.
func TestManagementAPIOnlyWithLambda(t *testing.T) {
	ts := startServer(t)
	resp, _ := ts.get("/local/@connections/abc")
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusGone {
		t.Fatalf("without -lambda /@connections answered %d", resp.StatusCode)
	}
	rt := newRuntimeEndpoint(t)
	ts = startServer(t, func(c *config) { c.Lambda = []string{rt.srv.URL + emulator.InvokePath} })
	if resp, _ := ts.get("/local/@connections/abc"); resp.StatusCode != http.StatusGone {
		t.Fatalf("an unknown connection: %d, want 410", resp.StatusCode)
	}
}

// With the function unreachable, a client's handshake gets a clear 502
// (not a cut connection or a panic) and the failure is logged.
func TestConnectWithFunctionDown(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL + emulator.InvokePath
	down.Close() // nothing listens there any more
	ts := startServer(t, func(c *config) { c.Lambda = []string{url} })
	for range 3 {
		c, resp, err := ts.tryDial("/ws", nil)
		if err == nil {
			c.Close()
			t.Fatal("the upgrade succeeded with the function down")
		}
		if resp == nil || resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("handshake: %v, response %+v; want 502", err, resp)
		}
	}
}
