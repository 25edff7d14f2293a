package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/web/webtest"
)

func TestMain(m *testing.M) {
	testscript.Main(leakCheck{m}, map[string]func(){
		"local": main,
	})
}

// leakCheck runs the tests, then checks that no goroutine outlived them:
// every connection, invocation, writer and timer of every server is gone.
type leakCheck struct{ m *testing.M }

func (l leakCheck) Run() int {
	code := l.m.Run()
	webtest.Close() // the browser of the browser tests, if one was started
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines leaked: %v\n", err)
			return 1
		}
	}
	return code
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent logging.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// trackingStore is the memory store, recording which connections it holds,
// so tests can see that a disconnect leaves nothing behind.
type trackingStore struct {
	*lambda.MemStore
	mu    sync.Mutex
	conns map[string]bool
}

func (s *trackingStore) PutConnection(ctx context.Context, c lambda.Connection) error {
	s.mu.Lock()
	s.conns[c.ID] = true
	s.mu.Unlock()
	return s.MemStore.PutConnection(ctx, c)
}

func (s *trackingStore) DeleteConnection(ctx context.Context, id string) error {
	s.mu.Lock()
	delete(s.conns, id)
	s.mu.Unlock()
	return s.MemStore.DeleteConnection(ctx, id)
}

func (s *trackingStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// countingExecutors wrap the default executors, counting executions.
type countingExecutors struct {
	n     atomic.Int64
	delay time.Duration
}

func (e *countingExecutors) executors() map[string]lambda.Executor {
	out := map[string]lambda.Executor{}
	for name, ex := range lambda.DefaultExecutors() {
		out[name] = lambda.ExecutorFunc(func(ctx context.Context, a lambda.Action) (string, error) {
			e.n.Add(1)
			if e.delay > 0 {
				time.Sleep(e.delay)
			}
			return ex.Execute(ctx, a)
		})
	}
	return out
}

// testServer is a server started in process on 127.0.0.1:0.
type testServer struct {
	t       *testing.T
	s       *Server
	addr    string // host:port
	store   *trackingStore
	exec    *countingExecutors
	logs    *syncBuffer
	cancel  context.CancelFunc
	done    chan error
	stopped bool
}

// startServer starts a server with the test defaults (no token delay, no
// WASM build, debug logs kept), changed by opts.
func startServer(t *testing.T, opts ...func(*config)) *testServer {
	t.Helper()
	return startServerWith(t, nil, opts...)
}

// startServerDeps is startServer with the wired dependencies changed by
// withDeps (when not nil) before the server is built.
func startServerDeps(t *testing.T, withDeps func(*deps), opts ...func(*config)) *testServer {
	t.Helper()
	return startServerWith(t, func(_ *testServer, d *deps) {
		if withDeps != nil {
			withDeps(d)
		}
	}, opts...)
}

// startServerWith is startServer with the dependencies changed by wrap
// (after the tracking store and counting executors are in place) before the
// server is built.
func startServerWith(t *testing.T, wrap func(*testServer, *deps), opts ...func(*config)) *testServer {
	t.Helper()
	cfg := defaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.TokenDelay = delayRange{}
	cfg.NoWASM = true
	cfg.ShutdownTimeout = 3 * time.Second
	for _, o := range opts {
		o(&cfg)
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, err := wire(cfg, log, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{t: t, logs: logs, exec: &countingExecutors{}, done: make(chan error, 1)}
	ts.store = &trackingStore{MemStore: d.Store.(*lambda.MemStore), conns: map[string]bool{}}
	d.Store = ts.store
	d.Executors = ts.exec.executors()
	if wrap != nil {
		wrap(ts, &d)
	}
	if ts.s, err = newServer(cfg, d); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	var ctx context.Context
	ctx, ts.cancel = context.WithCancel(context.Background())
	go func() { ts.done <- ts.s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		ts.stop()
		for _, secret := range []string{"s3cret-token", "70 123 45 67", "701234567"} {
			if strings.Contains(logs.String(), secret) {
				t.Errorf("the logs hold %q:\n%s", secret, logs.String())
			}
		}
	})
	return ts
}

// stop shuts the server down and waits for Serve to return.
func (ts *testServer) stop() error {
	if ts.stopped {
		return nil
	}
	ts.stopped = true
	ts.cancel()
	select {
	case err := <-ts.done:
		return err
	case <-time.After(10 * time.Second):
		ts.t.Fatal("the server did not stop")
		return nil
	}
}

func (ts *testServer) url(path string) string { return "http://" + ts.addr + path }

// get does one HTTP GET without keep-alive (no idle connection outlives it).
func (ts *testServer) get(path string) (*http.Response, string) {
	ts.t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := c.Get(ts.url(path))
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp, b.String()
}

// frame is any server frame.
type frame struct {
	Type         string                 `json:"type"`
	ID           string                 `json:"id"`
	Delta        string                 `json:"delta"`
	Reason       string                 `json:"reason"`
	Text         string                 `json:"text"`
	Status       string                 `json:"status"`
	Error        string                 `json:"error"`
	Citations    []lambda.Citation      `json:"citations"`
	Numbers      []lambda.NumberVerdict `json:"numbers"`
	SuggestionID string                 `json:"suggestionId"`
	Action       string                 `json:"action"`
	Payload      map[string]string      `json:"payload"`
	Result       lambda.ActionResult    `json:"result"`
	Code         string                 `json:"code"`
	Message      string                 `json:"message"`
}

func (f frame) String() string {
	switch f.Type {
	case "stream":
		return fmt.Sprintf("stream(%s %q)", f.ID, f.Delta)
	case "stream_end":
		return fmt.Sprintf("stream_end(%s %s)", f.ID, f.Reason)
	case "response":
		return fmt.Sprintf("response(%s %s %q)", f.ID, f.Status, f.Text)
	case "error":
		return fmt.Sprintf("error(%s %s %q)", f.ID, f.Code, f.Message)
	case "action_executed":
		return fmt.Sprintf("action_executed(%+v)", f.Result)
	}
	return fmt.Sprintf("%s(%s)", f.Type, f.ID)
}

// wsClient is a real WebSocket client of a test server.
type wsClient struct {
	t      *testing.T
	ws     *websocket.Conn
	frames chan frame
	done   chan struct{}
	err    error // why reading ended; set before done is closed
}

// dial connects to path ("/ws" when empty) and starts reading frames.
func (ts *testServer) dial(t *testing.T, path string, header http.Header) *wsClient {
	t.Helper()
	c, resp, err := ts.tryDial(path, header)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial %s: %v (HTTP %d)", path, err, status)
	}
	return newTestClient(t, c)
}

func (ts *testServer) tryDial(path string, header http.Header) (*websocket.Conn, *http.Response, error) {
	if path == "" {
		path = "/ws"
	}
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, WriteBufferSize: 40 * 1024}
	c, resp, err := d.Dial("ws://"+ts.addr+path, header)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	return c, resp, err
}

func newTestClient(t *testing.T, ws *websocket.Conn) *wsClient {
	c := &wsClient{t: t, ws: ws, frames: make(chan frame, 4096), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		defer close(c.frames)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				c.err = err
				return
			}
			var f frame
			if err := json.Unmarshal(data, &f); err != nil {
				c.err = fmt.Errorf("bad frame %q: %v", data, err)
				return
			}
			c.frames <- f
		}
	}()
	t.Cleanup(c.close)
	return c
}

// close closes the connection and waits for the reader.
func (c *wsClient) close() {
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	select {
	case <-c.done:
	case <-time.After(2 * time.Second):
	}
	c.ws.Close()
	<-c.done
}

// abort drops the connection without a close frame.
func (c *wsClient) abort() {
	c.ws.NetConn().Close()
	<-c.done
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	var data []byte
	switch v := v.(type) {
	case string:
		data = []byte(v)
	default:
		var err error
		if data, err = json.Marshal(v); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		c.t.Fatal(err)
	}
}

func (c *wsClient) message(id, text string) {
	c.t.Helper()
	c.send(map[string]string{"type": "message", "id": id, "text": text})
}

// next returns the next frame; ok is false when the connection ended or
// nothing came within timeout.
func (c *wsClient) next(timeout time.Duration) (frame, bool) {
	select {
	case f, ok := <-c.frames:
		return f, ok
	case <-time.After(timeout):
		return frame{}, false
	}
}

// until collects frames until one satisfies stop (included).
func (c *wsClient) until(stop func(frame) bool) []frame {
	c.t.Helper()
	var got []frame
	for {
		f, ok := c.next(5 * time.Second)
		if !ok {
			c.t.Fatalf("no more frames (err %v) after %v", c.err, got)
		}
		got = append(got, f)
		if stop(f) {
			return got
		}
	}
}

// answer collects the frames of message id up to its response (and its
// action suggestion when the message asks for one), or to its stream_end
// cancelled, or an error about it.
func (c *wsClient) answer(id string) []frame {
	c.t.Helper()
	return c.until(func(f frame) bool {
		return f.ID == id && (f.Type == "response" || f.Type == "error" ||
			f.Type == "stream_end" && f.Reason == lambda.ReasonCancelled)
	})
}

// quiet fails if a frame arrives within d.
func (c *wsClient) quiet(d time.Duration) {
	c.t.Helper()
	if f, ok := c.next(d); ok {
		c.t.Fatalf("unexpected frame %v", f)
	}
}

// closeErr waits for the connection to end and returns the close error.
func (c *wsClient) closeErr() *websocket.CloseError {
	c.t.Helper()
	for {
		select {
		case _, ok := <-c.frames:
			if ok {
				continue
			}
			var ce *websocket.CloseError
			if errors.As(c.err, &ce) {
				return ce
			}
			c.t.Fatalf("connection ended without a close frame: %v", c.err)
		case <-time.After(5 * time.Second):
			c.t.Fatal("the connection did not close")
		}
	}
}

func deltas(fs []frame, id string) string {
	var b strings.Builder
	for _, f := range fs {
		if f.Type == "stream" && f.ID == id {
			b.WriteString(f.Delta)
		}
	}
	return b.String()
}

func types(fs []frame) string {
	var out []string
	for _, f := range fs {
		if n := len(out); f.Type == "stream" && n > 0 && out[n-1] == "stream…" {
			continue
		}
		if f.Type == "stream" {
			out = append(out, "stream…")
			continue
		}
		out = append(out, f.Type)
	}
	return strings.Join(out, " ")
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
