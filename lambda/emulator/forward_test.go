package emulator_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/emulator"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// oneSnippet is a knowledge base of one snippet.
type oneSnippet struct{}

func (oneSnippet) Search(query string, k int) []lambda.Hit {
	return []lambda.Hit{{Snippet: &lambda.Snippet{File: "kb/pricing.md", Line: 3, Text: "Premium costs 399 kr per month."}, Score: 1}}
}

// runtime is a test Lambda runtime endpoint: it decodes the event, calls
// the real handler and encodes its response, as the Runtime Interface
// Emulator does with the bootstrap binary.
func runtime(t *testing.T, h *lambda.Handler, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != emulator.InvokePath {
			http.NotFound(w, r)
			return
		}
		if calls != nil {
			calls.Add(1)
		}
		var ev events.APIGatewayWebsocketProxyRequest
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			t.Errorf("decoding event: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		resp, err := h.Handle(r.Context(), ev)
		if err != nil {
			json.NewEncoder(w).Encode(map[string]string{"errorType": "error", "errorMessage": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newHandler(t *testing.T, store lambda.Store, sender lambda.Sender, model lambda.Model) *lambda.Handler {
	t.Helper()
	h, err := lambda.New(lambda.Config{Retriever: oneSnippet{}, Model: model, Store: store, Sender: sender, AuthToken: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func event(typ, conn, body string) events.APIGatewayWebsocketProxyRequest {
	return events.APIGatewayWebsocketProxyRequest{
		Body: body,
		RequestContext: events.APIGatewayWebsocketProxyRequestContext{
			EventType: typ, ConnectionID: conn, RouteKey: "$default", Stage: "local", DomainName: "localhost",
		},
	}
}

func TestForwardToHandler(t *testing.T) {
	sender := lambdatest.NewSender()
	h := newHandler(t, lambda.NewMemStore(), sender, lambda.NewMock(lambda.MockDelay(0, 0)))
	fw, err := emulator.NewForwarder([]string{runtime(t, h, nil).URL}, emulator.ForwarderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	connect := event(lambda.EventConnect, "c1", "")
	resp, err := fw.Handle(ctx, connect)
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("connect without token: %v %v", resp.StatusCode, err)
	}
	connect.QueryStringParameters = map[string]string{"token": "s3cret"}
	if resp, err := fw.Handle(ctx, connect); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("connect: %v %v", resp.StatusCode, err)
	}
	if resp, err := fw.Handle(ctx, event(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"How much is Premium?"}`)); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("message: %v %v", resp.StatusCode, err)
	}
	got := lambdatest.Summary(sender.Frames("c1"))
	if got != "sources:m1 stream:m1 stream_end:m1:done response:m1:verified" {
		t.Fatalf("frames %s", got)
	}
	if resp, err := fw.Handle(ctx, event(lambda.EventDisconnect, "c1", "")); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("disconnect: %v %v", resp.StatusCode, err)
	}
}

// TestForwardCancelWhileStreaming: the cancel is a second invocation that
// overlaps the streaming one; with one invocation per endpoint it goes to
// the other endpoint — another handler instance sharing only the store and
// the sender, as in Lambda.
func TestForwardCancelWhileStreaming(t *testing.T) {
	sender := lambdatest.NewSender()
	store := lambda.NewMemStore()
	model := lambda.NewMock(lambda.MockDelay(5*time.Millisecond, 5*time.Millisecond))
	var callsA, callsB atomic.Int32
	a := runtime(t, newHandler(t, store, sender, model), &callsA)
	b := runtime(t, newHandler(t, store, sender, model), &callsB)
	fw, err := emulator.NewForwarder([]string{a.URL, b.URL + "/"}, emulator.ForwarderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	connect := event(lambda.EventConnect, "c1", "")
	connect.QueryStringParameters = map[string]string{"token": "s3cret"}
	if _, err := fw.Handle(ctx, connect); err != nil {
		t.Fatal(err)
	}
	long := "$say Premium" + strings.Repeat(" word", 400)
	done := make(chan error, 1)
	go func() {
		_, err := fw.Handle(ctx, event(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"`+long+`"}`))
		done <- err
	}()
	if _, ok := sender.WaitFor("c1", 5*time.Second, func(fs []lambdatest.Frame) bool { return len(fs) >= 3 }); !ok {
		t.Fatalf("no stream: %s", lambdatest.Summary(sender.Frames("c1")))
	}
	if _, err := fw.Handle(ctx, event(lambda.EventMessage, "c1", `{"type":"cancel","id":"m1"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the streaming invocation did not end after the cancel")
	}
	if got := lambdatest.Summary(sender.Frames("c1")); got != "sources:m1 stream:m1 stream_end:m1:cancelled" {
		t.Fatalf("frames %s", got)
	}
	if callsA.Load() == 0 || callsB.Load() == 0 {
		t.Fatalf("invocations not spread: %d, %d", callsA.Load(), callsB.Load())
	}
}

// TestForwardWaitsForFreeEndpoint: with every endpoint busy an invocation
// waits (the Runtime Interface Emulator runs one at a time), and gives up
// with its context.
func TestForwardWaitsForFreeEndpoint(t *testing.T) {
	release := make(chan struct{})
	var inFlight, maxInFlight atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := maxInFlight.Load()
			if n <= m || maxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		w.Write([]byte(`{"statusCode":200}`))
	}))
	defer srv.Close()
	fw, err := emulator.NewForwarder([]string{srv.URL}, emulator.ForwarderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := fw.Handle(context.Background(), event(lambda.EventMessage, "c1", "{}"))
			errs <- err
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := fw.Handle(ctx, event(lambda.EventMessage, "c1", "{}")); err == nil {
		t.Fatal("an invocation ran while the endpoint was busy")
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if m := maxInFlight.Load(); m != 1 {
		t.Fatalf("%d invocations at once on one endpoint", m)
	}
}

func TestForwardFunctionError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"errorMessage":"boom","errorType":"Runtime.ExitError"}`))
	}))
	defer srv.Close()
	fw, err := emulator.NewForwarder([]string{srv.URL}, emulator.ForwarderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Handle(context.Background(), event(lambda.EventConnect, "c1", "")); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	if _, err := emulator.NewForwarder(nil, emulator.ForwarderOptions{}); err == nil {
		t.Fatal("no endpoints accepted")
	}
	if _, err := emulator.NewForwarder([]string{"localhost:9000"}, emulator.ForwarderOptions{}); err == nil {
		t.Fatal("endpoint without scheme accepted")
	}
}
