package emulator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	fw := newForwarder(t, []string{runtime(t, h, nil).URL}, emulator.ForwarderOptions{})
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
	fw := newForwarder(t, []string{a.URL, b.URL + "/"}, emulator.ForwarderOptions{})
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
	fw := newForwarder(t, []string{srv.URL}, emulator.ForwarderOptions{})
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

// A function that fails (an error document, or the emulator's plain-text
// timeout) fails the invocation; the endpoint stays up.
func TestForwardFunctionError(t *testing.T) {
	for answer, want := range map[string]string{
		`{"errorMessage":"boom","errorType":"Runtime.ExitError"}`: "boom",
		"Task timed out after 3.00 seconds":                       "Task timed out",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(answer))
		}))
		defer srv.Close()
		fw := newForwarder(t, []string{srv.URL}, emulator.ForwarderOptions{})
		_, err := fw.Handle(context.Background(), event(lambda.EventConnect, "c1", ""))
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
		st := fw.Status().Endpoints[0]
		assert.True(t, st.Up, "a function error is not the endpoint's")
		assert.Equal(t, uint64(1), st.Invocations[emulator.ResultFunctionError])
		assert.Zero(t, fw.Status().Retries)
	}
	if _, err := emulator.NewForwarder(nil, emulator.ForwarderOptions{}); err == nil {
		t.Fatal("no endpoints accepted")
	}
	if _, err := emulator.NewForwarder([]string{"localhost:9000"}, emulator.ForwarderOptions{}); err == nil {
		t.Fatal("endpoint without scheme accepted")
	}
}

// newForwarder returns a forwarder closed when the test ends.
func newForwarder(t *testing.T, urls []string, opts emulator.ForwarderOptions) *emulator.Forwarder {
	t.Helper()
	fw, err := emulator.NewForwarder(urls, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		fw.Close(ctx)
	})
	return fw
}

// gate is a runtime endpoint that holds every invocation until it is
// opened, and counts the invocations in flight as the emulator sees them:
// from the request's arrival to the function's answer, whether or not the
// caller still waits (the emulator runs the function on when its client
// goes away). Probes (events without a connection id) are answered at once.
type gate struct {
	srv      *httptest.Server
	release  chan struct{}
	once     sync.Once
	arrived  chan string // the connection id of each held invocation
	inFlight atomic.Int32
	max      atomic.Int32
	aborted  atomic.Int32 // invocations whose client went away before the answer
	probes   atomic.Int32
}

func newGate(t *testing.T) *gate {
	g := &gate{release: make(chan struct{}), arrived: make(chan string, 16)}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev events.APIGatewayWebsocketProxyRequest
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		n := g.inFlight.Add(1)
		defer g.inFlight.Add(-1)
		for m := g.max.Load(); n > m && !g.max.CompareAndSwap(m, n); m = g.max.Load() {
		}
		if ev.RequestContext.ConnectionID == "" {
			g.probes.Add(1)
			w.Write([]byte(`{"statusCode":400}`))
			return
		}
		g.arrived <- ev.RequestContext.ConnectionID
		select {
		case <-g.release:
		case <-r.Context().Done():
			g.aborted.Add(1)
			<-g.release
		}
		w.Write([]byte(`{"statusCode":200}`))
	}))
	t.Cleanup(g.srv.Close)
	t.Cleanup(g.open) // before the server's Close, which waits for the handlers
	return g
}

// open lets every held invocation, and every later one, answer.
func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// next returns the connection id of the next invocation to arrive.
func (g *gate) next(t *testing.T) string {
	t.Helper()
	select {
	case id := <-g.arrived:
		return id
	case <-time.After(5 * time.Second):
		t.Fatal("no invocation arrived")
		return ""
	}
}

// waitUntil polls cond for up to 5 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A client that drops mid-answer gives up its invocation (the local server
// cancels its context), but the emulator runs the function on: the
// endpoint stays busy until the function has answered, so the next event
// waits instead of overlapping it, and the invocation is never aborted.
func TestForwardKeepsEndpointBusyAfterCallerGivesUp(t *testing.T) {
	g := newGate(t)
	fw := newForwarder(t, []string{g.srv.URL}, emulator.ForwarderOptions{FunctionTimeout: 10 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := fw.Handle(ctx, event(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"hej, vad kostar premium?"}`))
		errc <- err
	}()
	require.Equal(t, "c1", g.next(t))
	cancel()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Handle kept its caller after the caller gave up")
	}
	assert.Equal(t, 1, fw.Status().Endpoints[0].InFlight, "the endpoint was freed while the function runs")

	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := fw.Handle(short, event(lambda.EventDisconnect, "c1", ""))
	cancelShort()
	assert.ErrorIs(t, err, context.DeadlineExceeded, "an event was sent to an endpoint still running one")

	g.open()
	resp, err := fw.Handle(context.Background(), event(lambda.EventDisconnect, "c1", ""))
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 1, g.max.Load(), "invocations overlapped on one endpoint")
	assert.Zero(t, g.aborted.Load(), "an invocation was aborted when its caller gave up")
}

// An endpoint that does not answer within the function timeout is marked
// down and gets nothing until its invocation has ended and a probe passes.
func TestForwardFunctionTimeout(t *testing.T) {
	g := newGate(t)
	fw := newForwarder(t, []string{g.srv.URL}, emulator.ForwarderOptions{FunctionTimeout: time.Millisecond, ProbeInterval: 5 * time.Millisecond})
	_, err := fw.Handle(context.Background(), event(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"hello"}`))
	require.ErrorContains(t, err, "no answer within the function timeout")
	st := fw.Status().Endpoints[0]
	assert.False(t, st.Up)
	assert.Equal(t, 1, st.InFlight)
	assert.Contains(t, st.Error, "function timeout")

	_, err = fw.Handle(context.Background(), event(lambda.EventConnect, "c2", ""))
	assert.ErrorIs(t, err, emulator.ErrUnavailable)

	g.open() // the function answers at last
	waitUntil(t, "the endpoint back", func() bool { return fw.Status().Endpoints[0].Up })
	assert.Positive(t, g.probes.Load())
	_, err = fw.Handle(context.Background(), event(lambda.EventConnect, "c2", ""))
	require.NoError(t, err)
	assert.EqualValues(t, 1, g.max.Load(), "invocations overlapped on one endpoint")
}

// restartable is a runtime endpoint that can go away and come back on the
// same address.
type restartable struct {
	t     *testing.T
	addr  string
	h     http.Handler
	srv   *httptest.Server
	calls atomic.Int32 // invocations with a connection id (not probes)
}

func newRestartable(t *testing.T) *restartable {
	r := &restartable{t: t, addr: "127.0.0.1:0"}
	r.h = answering(&r.calls)
	r.start()
	r.addr = r.srv.Listener.Addr().String()
	t.Cleanup(func() {
		if r.srv != nil {
			r.srv.Close()
		}
	})
	return r
}

func (r *restartable) url() string { return "http://" + r.addr }

func (r *restartable) start() {
	l, err := net.Listen("tcp", r.addr)
	require.NoError(r.t, err)
	r.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: r.h}}
	r.srv.Start()
}

func (r *restartable) stop() {
	r.srv.Close()
	r.srv = nil
}

// answering is a runtime endpoint that answers 200 at once, counting the
// invocations that are not probes.
func answering(calls *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev events.APIGatewayWebsocketProxyRequest
		json.NewDecoder(r.Body).Decode(&ev)
		if ev.RequestContext.ConnectionID != "" {
			calls.Add(1)
		}
		w.Write([]byte(`{"statusCode":200}`))
	})
}

// An endpoint that dies is noticed and skipped: a message that never
// reached it is retried on the live one. Probed, it returns to service.
func TestForwardEndpointDownAndBack(t *testing.T) {
	a := newRestartable(t)
	var callsB atomic.Int32
	b := httptest.NewServer(answering(&callsB))
	defer b.Close()
	fw := newForwarder(t, []string{a.url(), b.URL}, emulator.ForwarderOptions{ProbeInterval: 10 * time.Millisecond})

	a.stop()
	for i := range 4 {
		resp, err := fw.Handle(context.Background(), event(lambda.EventMessage, "c1", fmt.Sprintf(`{"type":"message","id":"m%d","text":"what does premium cost"}`, i)))
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	st := fw.Status()
	assert.False(t, st.Endpoints[0].Up)
	assert.Contains(t, st.Endpoints[0].Error, "connection refused")
	assert.Equal(t, uint64(1), st.Endpoints[0].Invocations[emulator.ResultEndpointError])
	assert.True(t, st.Endpoints[1].Up)
	assert.Equal(t, uint64(1), st.Retries, "the message that met the dead endpoint")
	assert.EqualValues(t, 4, callsB.Load())

	a.start()
	waitUntil(t, "the endpoint back", func() bool { return fw.Status().Endpoints[0].Up })
	for range 4 {
		_, err := fw.Handle(context.Background(), event(lambda.EventMessage, "c1", `{"type":"cancel"}`))
		require.NoError(t, err)
	}
	assert.Positive(t, a.calls.Load(), "no traffic reached the endpoint that came back")
	assert.Empty(t, fw.Status().Endpoints[0].Error)
}

// A message that reached an endpoint may have run (and confirmed an
// action): when the endpoint fails after that, it is not sent again. A
// CONNECT can run twice: it is retried on the other endpoint.
func TestForwardRetriesOnlyWhatCannotRunTwice(t *testing.T) {
	for name, broken := range map[string]http.HandlerFunc{
		"connection reset": func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			}
		},
		"502": func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			http.Error(w, `{"errorType":"Runtime.ExitError"}`, http.StatusBadGateway)
		},
	} {
		t.Run(name, func(t *testing.T) {
			a := httptest.NewServer(broken)
			defer a.Close()
			var callsB atomic.Int32
			b := httptest.NewServer(answering(&callsB))
			defer b.Close()

			fw := newForwarder(t, []string{a.URL, b.URL}, emulator.ForwarderOptions{})
			_, err := fw.Handle(context.Background(), event(lambda.EventMessage, "c1", `{"type":"confirm_action","suggestionId":"0123456789abcdef0123456789abcdef"}`))
			require.Error(t, err)
			assert.Zero(t, callsB.Load(), "a message that may have run was sent again")
			assert.False(t, fw.Status().Endpoints[0].Up)
			assert.Zero(t, fw.Status().Retries)

			fw = newForwarder(t, []string{a.URL, b.URL}, emulator.ForwarderOptions{})
			resp, err := fw.Handle(context.Background(), event(lambda.EventConnect, "c2", ""))
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.EqualValues(t, 1, callsB.Load())
			assert.Equal(t, uint64(1), fw.Status().Retries)
		})
	}
}
