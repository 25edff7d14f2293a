package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/lambda"
)

func isGone(err error) bool { return errors.Is(err, lambda.ErrGone) }

func TestShutdownMidStream(t *testing.T) {
	// the answer is 5 tokens: 4 × 60 ms to shut down in after the first
	ts := startServer(t, func(c *config) { c.TokenDelay = delayRange{60 * time.Millisecond, 60 * time.Millisecond} })
	c := ts.dial(t, "", nil)
	idle := ts.dial(t, "", nil)
	c.message("s1", "What does Premium cost?")
	c.until(func(f frame) bool { return f.Type == "stream" })

	start := time.Now()
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	fs := c.until(func(f frame) bool { return f.Type == "stream_end" })
	if end := fs[len(fs)-1]; end.ID != "s1" || end.Reason != lambda.ReasonCancelled {
		t.Fatalf("got %v, want stream_end cancelled", end)
	}
	for _, cl := range []*wsClient{c, idle} {
		if ce := cl.closeErr(); ce.Code != websocket.CloseGoingAway {
			t.Fatalf("close %v, want 1001", ce)
		}
	}
	if ts.store.len() != 0 {
		t.Fatal("connections left in the store")
	}
	if _, _, err := ts.tryDial("", nil); err == nil {
		t.Fatal("connected after shutdown")
	}
}

// heldMessage holds the first message event back until a cancel event
// has been handled: the message of a frame read just before a shutdown
// began, whose answer starts after the shutdown's cancel.
type heldMessage struct {
	invoker
	held, cancelled    chan struct{}
	heldOnce, cancOnce sync.Once
}

func (g *heldMessage) Handle(ctx context.Context, ev events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	if strings.Contains(ev.Body, `"type":"message"`) {
		first := false
		g.heldOnce.Do(func() { first = true })
		if first {
			close(g.held)
			select {
			case <-g.cancelled:
			case <-ctx.Done():
			}
		}
	}
	resp, err := g.invoker.Handle(ctx, ev)
	if strings.Contains(ev.Body, `"type":"cancel"`) {
		g.cancOnce.Do(func() { close(g.cancelled) })
	}
	return resp, err
}

func TestShutdownCancelsAnAnswerBegunAfterItsCancel(t *testing.T) {
	g := &heldMessage{held: make(chan struct{}), cancelled: make(chan struct{})}
	ts := startServerDeps(t, func(d *deps) {
		d.WrapHandler = func(h invoker) invoker { g.invoker = h; return g }
	}, func(c *config) { c.TokenDelay = delayRange{20 * time.Millisecond, 20 * time.Millisecond} })
	c := ts.dial(t, "", nil)
	c.message("late", "What does Premium cost?")
	select {
	case <-g.held:
	case <-time.After(5 * time.Second):
		t.Fatal("the message was not dispatched")
	}
	if err := ts.stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	fs := c.until(func(f frame) bool { return f.Type == "stream_end" })
	if end := fs[len(fs)-1]; end.ID != "late" || end.Reason != lambda.ReasonCancelled {
		t.Fatalf("got %v, want stream_end cancelled", end)
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseGoingAway {
		t.Fatalf("close %v, want 1001", ce)
	}
}

func TestDisconnectMidStreamLeavesNothing(t *testing.T) {
	ts := startServer(t, slow)
	c := ts.dial(t, "", nil)
	c.message("d1", "Please call me on +46 70 123 45 67 about the Premium price")
	c.until(func(f frame) bool { return f.Type == "stream" })
	if ts.store.len() != 1 {
		t.Fatalf("store holds %d connections", ts.store.len())
	}
	c.abort()
	waitFor(t, "the connection to be forgotten", func() bool { return ts.store.len() == 0 && ts.s.reg.len() == 0 })

	// The server goes on serving others.
	o := ts.dial(t, "", nil)
	o.message("d2", "What does Premium cost?")
	checkFlow(t, o.answer("d2"), "d2", lambda.ReasonDone, lambda.StatusVerified)
}

func TestRoutes(t *testing.T) {
	ts := startServer(t)
	resp, body := ts.get("/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(body), "<html") {
		t.Fatalf("GET / = %d %.100q", resp.StatusCode, body)
	}
	resp, body = ts.get("/ws")
	if resp.StatusCode != http.StatusUpgradeRequired {
		t.Fatalf("GET /ws without upgrade = %d %q", resp.StatusCode, body)
	}
	resp, _ = ts.get("/no-such-page")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /no-such-page = %d", resp.StatusCode)
	}

	c := ts.dial(t, "", nil)
	var h struct {
		Status        string `json:"status"`
		Version       string `json:"version"`
		Uptime        string `json:"uptime"`
		Connections   int    `json:"connections"`
		KnowledgeBase string `json:"knowledgeBase"`
		Snippets      int    `json:"snippets"`
		Model         string `json:"model"`
	}
	// The server counts the connection once its goroutine runs, which on a
	// loaded machine can be after the client has its handshake.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, body = ts.get("/healthz")
		if err := json.Unmarshal([]byte(body), &h); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /healthz = %d %q (%v)", resp.StatusCode, body, err)
		}
		if h.Connections != 0 || time.Now().After(deadline) {
			break
		}
	}
	if h.Status != "ok" || h.Connections != 1 || h.Version == "" || h.Uptime == "" ||
		h.KnowledgeBase != "embedded" || h.Snippets == 0 || h.Model != "mock" {
		t.Fatalf("healthz %+v", h)
	}

	c.message("m1", "What does Premium cost?")
	c.answer("m1")
	c.message("m2", "hallucinate: what does Premium cost per month?")
	c.answer("m2")
	s := suggest(t, c, "m3")
	confirm(t, c, s.SuggestionID)
	confirm(t, c, s.SuggestionID)
	c.send(`{"type":"nope"}`)
	c.next(5 * time.Second)

	// The writer may hand the error frame to the client before the
	// counters after it are updated: wait for the last one.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, body = ts.get("/metrics")
		if strings.Contains(body, `groundwire_errors_total{code="unknown_type"} 1`) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range []string{
		`groundwire_connections 1`,
		`groundwire_connects_total{status="101"} 1`,
		`groundwire_messages_total{type="message"} 3`,
		`groundwire_messages_total{type="confirm_action"} 2`,
		`groundwire_messages_total{type="other"} 1`,
		`groundwire_answers_total{status="verified"} 2`,
		`groundwire_answers_total{status="blocked"} 1`,
		`groundwire_numbers_total{result="blocked"} `,
		`groundwire_actions_total{result="executed"} 1`,
		`groundwire_actions_total{result="ignored"} 1`,
		`groundwire_action_suggestions_total{action="schedule_callback"} 1`,
		`groundwire_errors_total{code="unknown_type"} 1`,
		`groundwire_time_to_first_token_seconds_count 3`,
		`groundwire_verify_latency_seconds_count 3`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if re := regexp.MustCompile(`groundwire_numbers_total\{result="grounded"\} (\d+)`); re.FindStringSubmatch(body) == nil ||
		re.FindStringSubmatch(body)[1] == "0" {
		t.Errorf("no grounded numbers counted")
	}
	if t.Failed() {
		t.Log(body)
	}
}

// TestRun starts the program as `go run ./local` does (flags, wiring,
// listening, the start line) and stops it as Ctrl-C does.
// running is the program started by run in process.
type running struct {
	ts     *testServer
	line   string // the start line
	cancel context.CancelFunc
	code   chan int
	stderr *syncBuffer
}

// startRun runs the program with args and env and waits for its start line.
func startRun(t *testing.T, args []string, env map[string]string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	r := &running{cancel: cancel, code: make(chan int, 1), stderr: &syncBuffer{}}
	go func() {
		r.code <- run(ctx, args, func(k string) string { return env[k] }, outW, r.stderr)
		outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no start line: %v; stderr: %s", err, r.stderr.String())
	}
	go io.Copy(io.Discard, outR)
	m := regexp.MustCompile(`^groundwire listening on http://(127\.0\.0\.1:\d+) `).FindStringSubmatch(line)
	if m == nil {
		cancel()
		t.Fatalf("start line %q", line)
	}
	r.line, r.ts = line, &testServer{t: t, addr: m[1]}
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop stops the program as Ctrl-C does and returns its exit code.
func (r *running) stop(t *testing.T) int {
	r.cancel()
	select {
	case code := <-r.code:
		r.code <- code
		return code
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return")
		return -1
	}
}

func TestRun(t *testing.T) {
	env := map[string]string{"GROUNDWIRE_TOKEN_DELAY": "0", "GROUNDWIRE_ADDR": "localhost:8787"}
	r := startRun(t, []string{"-addr", "127.0.0.1:0", "-no-wasm", "-log-format", "json"}, env)
	if !regexp.MustCompile(`^groundwire listening on http://127\.0\.0\.1:\d+ \(knowledge base: embedded, \d+ snippets; model: mock\)\n$`).MatchString(r.line) {
		t.Fatalf("start line %q", r.line)
	}
	ts := r.ts
	resp, body := ts.get("/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(strings.ToLower(body), "<html") {
		t.Fatalf("GET / = %d", resp.StatusCode)
	}
	if resp, body := ts.get("/healthz"); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("GET /healthz = %d %s", resp.StatusCode, body)
	}
	c := ts.dial(t, "", nil)
	c.message("r1", "What does Premium cost?")
	checkFlow(t, c.answer("r1"), "r1", lambda.ReasonDone, lambda.StatusVerified)

	if code := r.stop(t); code != 0 { // SIGINT
		t.Fatalf("exit code %d; stderr: %s", code, r.stderr.String())
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseGoingAway {
		t.Fatalf("close %v, want 1001", ce)
	}
	if !strings.Contains(r.stderr.String(), `"msg":"shutting down"`) {
		t.Fatalf("logs: %s", r.stderr.String())
	}
}

// TestKBDir answers from a directory given with -kb, and picks up an edit
// of it without a restart.
func TestKBDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.md")
	write := func(price string) {
		if err := os.WriteFile(file, []byte("# Prices\n\nThe Gold plan costs "+price+" kr per month.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("250")
	r := startRun(t, []string{"-addr", "127.0.0.1:0", "-no-wasm", "-kb", dir, "-kb-watch", "10ms", "-token-delay", "0"}, nil)
	if !strings.Contains(r.line, "(knowledge base: "+dir+", 1 snippets; model: mock)") {
		t.Fatalf("start line %q", r.line)
	}
	c := r.ts.dial(t, "", nil)
	ask := func(id string) frame {
		c.message(id, "What does the Gold plan cost per month?")
		return checkFlow(t, c.answer(id), id, lambda.ReasonDone, lambda.StatusVerified)
	}
	if resp := ask("k1"); !strings.Contains(resp.Text, "250") || resp.Citations[0].File != filepath.Base(dir)+"/prices.md" {
		t.Fatalf("answer %q from %+v", resp.Text, resp.Citations)
	}
	time.Sleep(20 * time.Millisecond) // a modification time the watcher can tell apart
	write("275")
	waitFor(t, "the reload", func() bool { return strings.Contains(r.stderr.String(), "knowledge base reloaded") })
	if resp := ask("k2"); !strings.Contains(resp.Text, "275") {
		t.Fatalf("after the edit: %q", resp.Text)
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"-mode", "sometimes"}, nil, 2, "want hold or after"},
		{[]string{"extra"}, nil, 2, `unexpected argument "extra"`},
		{nil, map[string]string{"GROUNDWIRE_TOKEN_DELAY": "soon"}, 2, "GROUNDWIRE_TOKEN_DELAY"},
		{[]string{"-model", "openai", "-no-wasm"}, nil, 1, "needs OPENAI_MODEL"},
		{[]string{"-kb", t.TempDir(), "-no-wasm"}, nil, 1, "knowledge base"},
		{[]string{"-addr", "256.0.0.1:1", "-no-wasm"}, nil, 1, "local:"},
	} {
		var out, errOut syncBuffer
		got := run(t.Context(), tc.args, func(k string) string { return tc.env[k] }, &out, &errOut)
		if got != tc.code || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, got, errOut.String(), tc.code, tc.want)
		}
	}
}
