package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/lambda"
)

func expectError(t *testing.T, c *wsClient, code, id string) {
	t.Helper()
	f, ok := c.next(5 * time.Second)
	if !ok || f.Type != "error" || f.Code != code || f.ID != id {
		t.Fatalf("want error %s (id %q), got %v", code, id, f)
	}
}

func TestBadInput(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	c.send(`{"type":"message","id":"b1","text":`)
	expectError(t, c, lambda.EBadRequest, "")
	c.send(`{"type":"message","id":"b2"}`)
	expectError(t, c, lambda.EBadRequest, "b2")
	c.send(`{"type":"subscribe","id":"b3"}`)
	expectError(t, c, lambda.EUnknownType, "b3")
	c.send(map[string]string{"type": "message", "id": "b4", "text": strings.Repeat("a ", 2001)})
	expectError(t, c, lambda.ETooLarge, "b4")
	if err := c.ws.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"cancel"}`)); err != nil {
		t.Fatal(err)
	}
	expectError(t, c, lambda.EBadRequest, "")
	// The connection is still fine.
	c.message("b5", "What does Premium cost?")
	checkFlow(t, c.answer("b5"), "b5", lambda.ReasonDone, lambda.StatusVerified)
}

func TestOversizedFrameCloses1009(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	c.send(`{"type":"message","id":"big","text":"` + strings.Repeat("x", 33*1024) + `"}`)
	if ce := c.closeErr(); ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("close %v, want 1009", ce)
	}
	waitFor(t, "the connection to be forgotten", func() bool { return ts.store.len() == 0 && ts.s.reg.len() == 0 })
}

// writeFragmented sends one text message as frames of at most frameSize
// bytes (the client's write buffer decides the frames).
func writeFragmented(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	w, err := ws.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// API Gateway limits frames (32 KB) and messages (128 KB) separately: a
// message in frames under 32 KB passes the frame limit, and is refused by
// the message limit only above 128 KB.
func TestFragmentedMessages(t *testing.T) {
	ts := startServer(t)
	d := websocket.Dialer{WriteBufferSize: 16 * 1024} // frames of about 16 KB
	ws, _, err := d.Dial("ws://"+ts.addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, ws)
	// 90 KB in 16 KB frames: delivered; the handler refuses the text.
	writeFragmented(t, ws, `{"type":"message","id":"f1","text":"`+strings.Repeat("y", 90*1024)+`"}`)
	expectError(t, c, lambda.ETooLarge, "f1")
	// 130 KB: over the message limit.
	writeFragmented(t, ws, `{"type":"message","id":"f2","text":"`+strings.Repeat("z", 130*1024)+`"}`)
	if ce := c.closeErr(); ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("close %v, want 1009", ce)
	}
}

func TestFloodIsRateLimited(t *testing.T) {
	ts := startServer(t, slow)
	c := ts.dial(t, "", nil)
	// Burst 10, 5 a second: 20 messages sent at once (dispatched in order,
	// orderGate apart) overdraw the bucket several times.
	for i := range 20 {
		c.message("f"+string(rune('a'+i)), "What does Premium cost?")
	}
	limited := 0
	deadline := time.After(5 * time.Second)
	for limited < 3 {
		select {
		case f, ok := <-c.frames:
			if !ok {
				t.Fatalf("connection ended: %v", c.err)
			}
			if f.Type == "error" && f.Code == lambda.ERateLimited {
				limited++
			}
		case <-deadline:
			t.Fatalf("%d rate_limited errors, want at least 3", limited)
		}
	}
	// cancel is never rate limited.
	c.send(`{"type":"cancel"}`)
	c.until(func(f frame) bool { return f.Type == "stream_end" && f.Reason == lambda.ReasonCancelled })
}

func TestNoRateLimit(t *testing.T) {
	ts := startServer(t, func(c *config) { c.NoRateLimit = true })
	c := ts.dial(t, "", nil)
	for i := range 15 {
		c.send(`{"type":"message","id":"q` + string(rune('a'+i)) + `","text":"What is the capital of France?"}`)
	}
	// In order: each no-references answer ends before the next begins.
	for i := range 15 {
		id := "q" + string(rune('a'+i))
		checkFlow(t, c.answer(id), id, lambda.ReasonDone, lambda.StatusNoSources)
	}
}

func dialStatus(t *testing.T, ts *testServer, path string, header http.Header) int {
	t.Helper()
	c, resp, err := ts.tryDial(path, header)
	if err == nil {
		newTestClient(t, c).close()
		return http.StatusSwitchingProtocols
	}
	if resp == nil {
		t.Fatalf("dial: %v", err)
	}
	return resp.StatusCode
}

func TestAuthToken(t *testing.T) {
	ts := startServer(t, func(c *config) { c.AuthToken = "s3cret-token" })
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/ws", http.StatusUnauthorized},
		{"/ws?token=wrong", http.StatusUnauthorized},
		{"/ws?token=s3cret-token", http.StatusSwitchingProtocols},
		{"/?token=s3cret-token", http.StatusSwitchingProtocols},
	} {
		if got := dialStatus(t, ts, tc.path, nil); got != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.path, got, tc.want)
		}
	}
	c := ts.dial(t, "/ws?token=s3cret-token", nil)
	c.message("t1", "What does Premium cost?")
	checkFlow(t, c.answer("t1"), "t1", lambda.ReasonDone, lambda.StatusVerified)
	// The page itself needs no token.
	if resp, _ := ts.get("/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %d", resp.StatusCode)
	}
}

// -auth-secret admits signed, expiring tokens; -new-token mints one.
func TestSignedAuthToken(t *testing.T) {
	const secret = "0123456789abcdef0123"
	var out, errOut syncBuffer
	if code := run(t.Context(), []string{"-auth-secret", secret, "-new-token", "1h"}, func(string) string { return "" }, &out, &errOut); code != 0 {
		t.Fatalf("-new-token: exit %d: %s", code, errOut.String())
	}
	minted := strings.TrimSpace(out.String())
	if err := lambda.VerifyToken([]byte(secret), minted, time.Now()); err != nil {
		t.Fatalf("minted token %q: %v", minted, err)
	}
	ts := startServer(t, func(c *config) { c.AuthSecret = secret })
	for _, tc := range []struct {
		token string
		want  int
	}{
		{minted, http.StatusSwitchingProtocols},
		{lambda.SignToken([]byte(secret), time.Now().Add(-time.Second)), http.StatusUnauthorized},
		{lambda.SignToken([]byte("another-secret-0123456"), time.Now().Add(time.Hour)), http.StatusUnauthorized},
		{"", http.StatusUnauthorized},
	} {
		if got := dialStatus(t, ts, "/ws?token="+url.QueryEscape(tc.token), nil); got != tc.want {
			t.Errorf("token %q: HTTP %d, want %d", tc.token, got, tc.want)
		}
	}
	if code := run(t.Context(), []string{"-new-token", "1h"}, func(string) string { return "" }, &out, &errOut); code != 2 {
		t.Fatalf("-new-token without -auth-secret: exit %d", code)
	}
}

func TestOrigin(t *testing.T) {
	ts := startServer(t, func(c *config) { c.Origins = []string{"app.example.com", "https://other.example.org"} })
	origin := func(o string) http.Header { return http.Header{"Origin": {o}} }
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"https://evil.example", http.StatusForbidden},
		{"http://" + ts.addr, http.StatusSwitchingProtocols},
		{"https://app.example.com", http.StatusSwitchingProtocols},
		{"http://app.example.com", http.StatusSwitchingProtocols},
		{"https://other.example.org", http.StatusSwitchingProtocols},
		{"http://other.example.org", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		if got := dialStatus(t, ts, "/ws", origin(tc.origin)); got != tc.want {
			t.Errorf("Origin %s: HTTP %d, want %d", tc.origin, got, tc.want)
		}
	}
	waitFor(t, "refused connections to leave nothing", func() bool { return ts.store.len() == 0 })
}

func TestMaxConns(t *testing.T) {
	ts := startServer(t, func(c *config) { c.MaxConns = 2 })
	a := ts.dial(t, "", nil)
	ts.dial(t, "", nil)
	if got := dialStatus(t, ts, "/ws", nil); got != http.StatusServiceUnavailable {
		t.Fatalf("third connection: HTTP %d, want 503", got)
	}
	a.close()
	// The connection leaves the registry before its handler returns and
	// frees its slot (release): wait for the count admit reads.
	waitFor(t, "a free slot", func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return ts.s.conns == 1
	})
	ts.dial(t, "", nil)
}

func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, func(c *config) { c.IdleTimeout = 150 * time.Millisecond })
	c := ts.dial(t, "", nil)
	c.message("i1", "What does Premium cost?") // activity resets the timer
	c.answer("i1")
	start := time.Now()
	ce := c.closeErr()
	if ce.Code != websocket.CloseGoingAway || ce.Text != reasonIdle {
		t.Fatalf("close %v, want 1001 %q", ce, reasonIdle)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("closed after %v of idleness", d)
	}
}

func TestMaxConnAge(t *testing.T) {
	ts := startServer(t, func(c *config) { c.MaxConnAge = 200 * time.Millisecond })
	c := ts.dial(t, "", nil)
	stop := time.After(time.Second)
	tick := time.NewTicker(20 * time.Millisecond) // busy: not idle
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			c.ws.WriteMessage(websocket.TextMessage, []byte(`{"type":"cancel"}`))
			continue
		case <-stop:
		}
		break
	}
	if ce := c.closeErr(); ce.Code != websocket.CloseGoingAway || ce.Text != reasonAge {
		t.Fatalf("close %v, want 1001 %q", ce, reasonAge)
	}
}
