package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/apigw"
	"github.com/groundwire/groundwire/lambda/emulator"
)

// runtimeEndpoint stands in for the Lambda Runtime Interface Emulator
// running lambda/bootstrap: it decodes each invocation and runs the real
// handler, whose frames go back through the API Gateway Management API
// (the AWS SDK client) to the local server's /local/@connections.
//
// It can fail as a function does (failing: the runtime's error document),
// run past its timeout (hung), and die and come back on the same address
// (stop, restart).
type runtimeEndpoint struct {
	t       *testing.T
	srv     *httptest.Server
	url     string // the invoke URL
	calls   atomic.Int32
	failing atomic.Bool
	hung    chan struct{} // when set, invocations wait until it is closed, then time out
	// Invocations running, and the most at once: the emulator runs one at
	// a time.
	inFlight, maxInFlight atomic.Int32
	mu                    sync.Mutex
	h                     *lambda.Handler
}

func newRuntimeEndpoint(t *testing.T) *runtimeEndpoint {
	t.Helper()
	rt := &runtimeEndpoint{t: t}
	rt.listen("127.0.0.1:0")
	rt.url = rt.srv.URL + emulator.InvokePath
	t.Cleanup(rt.stop)
	return rt
}

func (rt *runtimeEndpoint) listen(addr string) {
	l, err := net.Listen("tcp", addr)
	require.NoError(rt.t, err)
	rt.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(rt.serve)}}
	rt.srv.Start()
}

// stop kills the endpoint: its port refuses connections.
func (rt *runtimeEndpoint) stop() {
	if rt.srv != nil {
		rt.srv.Close()
		rt.srv = nil
	}
}

// restart brings a stopped endpoint back on its address.
func (rt *runtimeEndpoint) restart() {
	rt.listen(strings.TrimPrefix(strings.TrimSuffix(rt.url, emulator.InvokePath), "http://"))
}

func (rt *runtimeEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != emulator.InvokePath {
		http.NotFound(w, r)
		return
	}
	var ev events.APIGatewayWebsocketProxyRequest
	if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if ev.RequestContext.ConnectionID != "" { // not a probe
		rt.calls.Add(1)
	}
	n := rt.inFlight.Add(1)
	defer rt.inFlight.Add(-1)
	for m := rt.maxInFlight.Load(); n > m && !rt.maxInFlight.CompareAndSwap(m, n); m = rt.maxInFlight.Load() {
	}
	rt.mu.Lock()
	hung := rt.hung
	rt.mu.Unlock()
	if hung != nil && ev.RequestContext.ConnectionID != "" {
		select {
		case <-hung: // the emulator ends the function at its timeout
			w.Write([]byte("Task timed out after 0.00 seconds"))
		case <-r.Context().Done(): // the forwarder closed
		}
		return
	}
	if rt.failing.Load() {
		w.Write([]byte(`{"errorMessage":"exit status 2","errorType":"Runtime.ExitError"}`))
		return
	}
	rt.mu.Lock()
	h := rt.h
	rt.mu.Unlock()
	if h == nil {
		http.Error(w, "the function is not started", http.StatusServiceUnavailable)
		return
	}
	// Like the emulator, the function runs on when the invoking client
	// goes away.
	resp, err := apigw.Wrap(h.Handle)(context.WithoutCancel(r.Context()), ev)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	json.NewEncoder(w).Encode(resp)
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
		c.Lambda = []string{rt1.url, rt2.url}
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
	ts = startServer(t, func(c *config) { c.Lambda = []string{rt.url} })
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

// healthz is what GET /healthz answers.
type healthz struct {
	Status  string           `json:"status"`
	Handler string           `json:"handler"`
	Lambda  []endpointHealth `json:"lambda"`
}

func (ts *testServer) health(t *testing.T) (int, healthz) {
	t.Helper()
	resp, body := ts.get("/healthz")
	var h healthz
	require.NoError(t, json.Unmarshal([]byte(body), &h), body)
	return resp.StatusCode, h
}

// metric returns the value of one series of /metrics ("" when missing).
func (ts *testServer) metric(series string) string {
	_, body := ts.get("/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

// A message whose invocation fails — the function fails, or its endpoint
// is down — gets an `error` frame `internal` with the message's id, and
// one log line; the connection stays usable, and /healthz and /metrics
// show the endpoint down.
func TestDefaultWithFunctionDown(t *testing.T) {
	rt := newRuntimeEndpoint(t)
	ts := startServer(t, func(c *config) { c.Lambda = []string{rt.url} })
	rt.start(t, "http://"+ts.addr+"/"+stage, lambda.NewMemStore())
	code, h := ts.health(t)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, healthz{Status: "ok", Handler: "lambda", Lambda: []endpointHealth{{URL: rt.url, State: "up", Since: h.Lambda[0].Since}}}, h)

	c := ts.dial(t, "/ws", nil)
	c.message("m1", "hi!! what does Premium cost per month, and can I pay yearly?")
	fs := c.answer("m1")
	require.Equal(t, "response", fs[len(fs)-1].Type, "frames %v", fs)

	failed := func(id string) {
		t.Helper()
		fs := c.answer(id)
		require.Len(t, fs, 1, "frames %v", fs)
		assert.Equal(t, frame{Type: "error", ID: id, Code: lambda.EInternal, Message: "Internal error."}, fs[0])
	}
	rt.failing.Store(true) // the function fails: the endpoint is fine
	c.message("m2", "Vad kostar Premium? och kan ni ringa mig imorgon")
	failed("m2")
	_, h = ts.health(t)
	assert.Equal(t, "ok", h.Status)

	rt.stop() // the emulator dies
	c.message("m3", "helo?? is anyone there, what does Basic cost")
	failed("m3")
	c.message("m4", "what is the weather in Gothenburg today") // no endpoint up: fails at once
	failed("m4")

	code, h = ts.health(t)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "unavailable", h.Status)
	require.Len(t, h.Lambda, 1)
	assert.Equal(t, "down", h.Lambda[0].State)
	assert.Contains(t, h.Lambda[0].Error, "connection refused")
	// A client that is not on this host sees each endpoint's state, not
	// its address or error.
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.RemoteAddr = "203.0.113.7:40000"
	rec := httptest.NewRecorder()
	ts.s.ServeHTTP(rec, req)
	var remote healthz
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &remote), rec.Body.String())
	assert.Equal(t, []endpointHealth{{State: "down", Since: h.Lambda[0].Since}}, remote.Lambda)
	assert.NotContains(t, rec.Body.String(), rt.url)

	assert.Equal(t, "0", ts.metric(`groundwire_lambda_endpoint_up{endpoint="`+rt.url+`"}`))
	assert.Equal(t, "3", ts.metric(`groundwire_errors_total{code="internal"}`))
	assert.Equal(t, "1", ts.metric(`groundwire_lambda_invocations_total{endpoint="`+rt.url+`",result="function_error"}`))
	assert.Equal(t, "1", ts.metric(`groundwire_lambda_invocations_total{endpoint="`+rt.url+`",result="endpoint_error"}`))
	assert.Equal(t, 3, strings.Count(ts.logs.String(), `"msg":"invocation failed"`), ts.logs.String())
}

// An invocation that outlasts the function timeout gets the error frame
// too; its endpoint is down until the function has answered and a probe
// passes, and then answers again.
func TestDefaultTimesOut(t *testing.T) {
	rt := newRuntimeEndpoint(t)
	ts := startServer(t, func(c *config) {
		c.Lambda = []string{rt.url}
		c.LambdaTimeout = time.Millisecond // the caller waits a second more
		c.LambdaProbe = 10 * time.Millisecond
	})
	rt.start(t, "http://"+ts.addr+"/"+stage, lambda.NewMemStore())
	c := ts.dial(t, "/ws", nil)

	hung := make(chan struct{})
	rt.mu.Lock()
	rt.hung = hung
	rt.mu.Unlock()
	c.message("m1", "hello, does the Basic plan include phone support? thx")
	fs := c.answer("m1")
	require.Len(t, fs, 1, "frames %v", fs)
	assert.Equal(t, frame{Type: "error", ID: "m1", Code: lambda.EInternal, Message: "Internal error."}, fs[0])
	code, h := ts.health(t)
	assert.Equal(t, http.StatusServiceUnavailable, code)
	require.Len(t, h.Lambda, 1)
	assert.Equal(t, "down", h.Lambda[0].State)
	assert.Contains(t, h.Lambda[0].Error, "no answer within the function timeout")
	assert.Equal(t, 1, h.Lambda[0].InFlight, "the endpoint was freed while the function runs")

	rt.mu.Lock()
	rt.hung = nil
	rt.mu.Unlock()
	close(hung) // the emulator reports the timeout at last
	waitFor(t, "the endpoint back", func() bool { _, h := ts.health(t); return h.Status == "ok" })
	c.message("m2", "ok and what does Premium cost?")
	fs = c.answer("m2")
	assert.Equal(t, "response", fs[len(fs)-1].Type, "frames %v", fs)
	assert.Equal(t, 1, strings.Count(ts.logs.String(), `"msg":"invocation failed"`))
}

// An endpoint that dies is noticed: traffic moves to the live one (a
// message that never reached the dead one is retried), /healthz and
// /metrics show it down; it is probed, and once back it gets traffic again.
func TestLambdaEndpointDiesAndReturns(t *testing.T) {
	rt1, rt2 := newRuntimeEndpoint(t), newRuntimeEndpoint(t)
	ts := startServer(t, func(c *config) {
		c.Lambda = []string{rt1.url, rt2.url}
		c.LambdaProbe = 10 * time.Millisecond
	})
	table := lambda.NewMemStore()
	for _, rt := range []*runtimeEndpoint{rt1, rt2} {
		rt.start(t, "http://"+ts.addr+"/"+stage, table)
	}
	c := ts.dial(t, "/ws", nil)
	ask := func(id string) {
		t.Helper()
		c.message(id, "What does Premium cost? answer quick pls, im on the bus")
		fs := c.answer(id)
		last := fs[len(fs)-1]
		require.Equal(t, "response", last.Type, "frames %v", fs)
		assert.Equal(t, lambda.StatusVerified, last.Status)
	}
	ask("m1")

	rt1.stop()
	for i := 2; i <= 5; i++ {
		ask(fmt.Sprintf("m%d", i))
	}
	code, h := ts.health(t)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "degraded", h.Status)
	require.Len(t, h.Lambda, 2)
	assert.Equal(t, "down", h.Lambda[0].State)
	assert.Contains(t, h.Lambda[0].Error, "connection refused")
	assert.Equal(t, "up", h.Lambda[1].State)
	assert.Equal(t, "0", ts.metric(`groundwire_lambda_endpoint_up{endpoint="`+rt1.url+`"}`))
	assert.Equal(t, "1", ts.metric(`groundwire_lambda_endpoint_up{endpoint="`+rt2.url+`"}`))
	assert.Equal(t, "1", ts.metric(`groundwire_lambda_retries_total`), "the message that met the dead endpoint")

	rt1.restart()
	waitFor(t, "the endpoint back", func() bool { _, h := ts.health(t); return h.Status == "ok" })
	assert.Equal(t, "1", ts.metric(`groundwire_lambda_endpoint_up{endpoint="`+rt1.url+`"}`))
	before := rt1.calls.Load()
	for i := 6; i <= 9; i++ {
		ask(fmt.Sprintf("m%d", i))
	}
	assert.Greater(t, rt1.calls.Load(), before, "no traffic reached the endpoint that came back")
}

// Clients that drop mid-answer give up their invocations, but the function
// runs on until its next post finds the connection gone: the endpoint
// stays busy until then, so no endpoint ever runs two invocations at once.
func TestLambdaClientsDropMidAnswer(t *testing.T) {
	rt1, rt2 := newRuntimeEndpoint(t), newRuntimeEndpoint(t)
	ts := startServer(t, func(c *config) { c.Lambda = []string{rt1.url, rt2.url} })
	table := lambda.NewMemStore()
	for _, rt := range []*runtimeEndpoint{rt1, rt2} {
		rt.start(t, "http://"+ts.addr+"/"+stage, table)
	}
	long := "$say " + strings.Repeat("Premium is the plan with priority support, and you can switch whenever you like. ", 40)
	for range 20 {
		c := ts.dial(t, "/ws", nil)
		c.message("m1", long)
		c.until(func(f frame) bool { return f.Type == "stream" })
		c.abort()
	}
	waitFor(t, "the connections to end", func() bool { return ts.store.len() == 0 })
	waitFor(t, "the invocations to end", func() bool { return rt1.inFlight.Load()+rt2.inFlight.Load() == 0 })
	assert.EqualValues(t, 1, rt1.maxInFlight.Load(), "invocations overlapped on an endpoint")
	assert.EqualValues(t, 1, rt2.maxInFlight.Load(), "invocations overlapped on an endpoint")
	code, h := ts.health(t)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", h.Status)
}
