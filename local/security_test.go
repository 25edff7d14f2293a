package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/lambda"
)

// Tests of the security review (README "Limits and guarantees"). The
// protocol-level ones (auth, origin, frame limits, rate limit, foreign
// suggestion ids) are in limits_test.go and flows_test.go.

// dialFrom connects to the server from the loopback address src
// (127.0.0.x: Linux routes all of 127/8 to lo).
func dialFrom(ts *testServer, src string) (*websocket.Conn, int, error) {
	d := websocket.Dialer{
		HandshakeTimeout: 5 * time.Second,
		NetDialContext: (&net.Dialer{
			LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)},
			Timeout:   5 * time.Second,
		}).DialContext,
	}
	c, resp, err := d.Dial("ws://"+ts.addr+"/ws", nil)
	status := 0
	if resp != nil {
		status = resp.StatusCode
		if resp.Body != nil {
			resp.Body.Close()
		}
	}
	return c, status, err
}

func TestMaxConnsPerIP(t *testing.T) {
	ts := startServer(t, func(c *config) { c.MaxConnsPerIP = 3 })
	var mine []*wsClient
	for i := range 3 {
		c, status, err := dialFrom(ts, "127.0.0.1")
		if err != nil {
			t.Fatalf("connection %d: %v (HTTP %d)", i, err, status)
		}
		mine = append(mine, newTestClient(t, c))
	}
	// The fourth from the same address is refused before the upgrade.
	if _, status, err := dialFrom(ts, "127.0.0.1"); err == nil || status != http.StatusTooManyRequests {
		t.Fatalf("fourth connection from one address: HTTP %d (%v), want 429", status, err)
	}
	// Another address is not affected (skipped where 127.0.0.2 is not
	// routed to the loopback interface, e.g. some BSDs).
	if c, status, err := dialFrom(ts, "127.0.0.2"); err == nil {
		newTestClient(t, c).close()
	} else if status != 0 {
		t.Fatalf("another address: HTTP %d, want 101", status)
	} else {
		t.Logf("127.0.0.2 not usable here: %v", err)
	}
	// A slot freed is a slot again.
	mine[0].close()
	waitFor(t, "the slot to be freed", func() bool {
		c, _, err := dialFrom(ts, "127.0.0.1")
		if err != nil {
			return false
		}
		newTestClient(t, c).close()
		return true
	})
	_, body := ts.get("/metrics")
	if !strings.Contains(body, `groundwire_connects_total{status="429"}`) {
		t.Fatalf("no 429 in the metrics:\n%s", body)
	}
	// The other address's count goes when the server has seen its client
	// close, which may come after ours is freed.
	waitFor(t, "the other address forgotten", func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.perIP) <= 1
	})
	for _, c := range mine {
		c.close()
	}
	waitFor(t, "every address forgotten", func() bool {
		ts.s.mu.Lock()
		defer ts.s.mu.Unlock()
		return len(ts.s.perIP) == 0
	})
}

func TestPprofOnlyWhenAskedAndOnlyToLoopback(t *testing.T) {
	ts := startServer(t)
	if resp, _ := ts.get("/debug/pprof/heap?debug=1"); resp.StatusCode == http.StatusOK {
		t.Fatal("profiles served without -pprof")
	}
	ts = startServer(t, func(c *config) { c.Pprof = true })
	resp, body := ts.get("/debug/pprof/heap?gc=1&debug=1")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "# HeapInuse = ") {
		t.Fatalf("heap profile: HTTP %d %.200q", resp.StatusCode, body)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/debug/pprof/heap", nil)
	req.RemoteAddr = "192.0.2.7:40000"
	ts.s.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("profile to a remote client: HTTP %d, want 403", rec.Code)
	}
}

// blockingRetriever holds every search until released, counting how many
// run at once.
type blockingRetriever struct {
	lambda.Retriever
	release chan struct{}
	mu      sync.Mutex
	now     int
	max     int
}

func (b *blockingRetriever) Search(q string, k int) []lambda.Hit {
	b.mu.Lock()
	b.now++
	b.max = max(b.max, b.now)
	b.mu.Unlock()
	<-b.release
	b.mu.Lock()
	b.now--
	b.mu.Unlock()
	return b.Retriever.Search(q, k)
}

func (b *blockingRetriever) running() (int, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.now, b.max
}

// A flood of frames from one connection never runs more than maxInFlight
// invocations at once: the reader stops reading (backpressure), nothing is
// refused, and every message is answered once the invocations can run.
func TestInvocationsPerConnectionBounded(t *testing.T) {
	br := &blockingRetriever{release: make(chan struct{})}
	ts := startServerDeps(t, func(d *deps) {
		br.Retriever = d.Retriever
		d.Retriever = br
	}, func(c *config) { c.NoRateLimit = true })
	c := ts.dial(t, "", nil)
	const n = 20
	for i := range n {
		c.message(fmt.Sprint("f", i), "What does Premium cost?")
	}
	waitFor(t, "the invocations to fill up", func() bool { now, _ := br.running(); return now == maxInFlight })
	time.Sleep(100 * time.Millisecond) // more would show up now
	if now, most := br.running(); now != maxInFlight || most != maxInFlight {
		t.Fatalf("%d invocations running (at most %d), want %d", now, most, maxInFlight)
	}
	close(br.release)
	// Each message supersedes the one before: all end, the last answered.
	ends := map[string]bool{}
	for len(ends) < n {
		f, ok := c.next(5 * time.Second)
		if !ok {
			t.Fatalf("%d of %d messages ended", len(ends), n)
		}
		if f.Type == "stream_end" || f.Type == "error" {
			if ends[f.ID] {
				t.Fatalf("%s ended twice", f.ID)
			}
			ends[f.ID] = true
		}
	}
	if _, most := br.running(); most > maxInFlight {
		t.Fatalf("%d invocations ran at once", most)
	}
}

// Neither the logs (at debug level) nor /metrics hold a token, a phone
// number, a message text or a client-chosen id, whatever clients send.
func TestLogsAndMetricsHoldNoSecrets(t *testing.T) {
	ts := startServer(t, func(c *config) { c.AuthToken = "s3cret-token" })
	c := ts.dial(t, "/ws?token=s3cret-token", nil)
	secrets := []string{"s3cret-token", "70 123 45 67", "701234567", "zebra", "0701234567"}
	c.message("id-0701234567", "zebra: please call me on +46 70 123 45 67 about Premium")
	c.answer("id-0701234567")
	c.next(5 * time.Second) // the suggestion
	c.send(`{"type":"message","id":"zebra-070 123 45 67","text":`)
	c.send(`{"type":"zebra s3cret-token"}`)
	c.send(`{"type":"confirm_action","suggestionId":"zebra-0701234567"}`)
	c.send(map[string]string{"type": "message", "id": "m2", "text": "zebra", "lang": "s3cret-token"})
	for range 4 {
		c.next(5 * time.Second)
	}
	if got := dialStatus(t, ts, "/ws?token=zebra-0701234567", nil); got != http.StatusUnauthorized {
		t.Fatalf("wrong token: HTTP %d", got)
	}
	_, metrics := ts.get("/metrics")
	c.close()
	waitFor(t, "the disconnect to be logged", func() bool { return strings.Contains(ts.logs.String(), `"msg":"disconnected"`) })
	logs := ts.logs.String()
	if !strings.Contains(logs, `"level":"DEBUG"`) {
		t.Fatal("no debug lines: the test does not check what it claims")
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the logs hold %q", s)
		}
		if strings.Contains(metrics, s) {
			t.Errorf("/metrics holds %q", s)
		}
	}
}

// panickingRetriever panics on a query holding "boom".
type panickingRetriever struct{ lambda.Retriever }

func (p panickingRetriever) Search(q string, k int) []lambda.Hit {
	if strings.Contains(q, "boom") {
		panic("boom in the retriever")
	}
	return p.Retriever.Search(q, k)
}

// A handler that panics fails that invocation only: the client gets an
// `internal` error frame for it and its connection is closed (1011: its
// state is not known), the log holds the panic and its stack, and the
// server goes on serving other connections and new ones.
func TestHandlerPanicFailsOneInvocation(t *testing.T) {
	ts := startServerDeps(t, func(d *deps) { d.Retriever = panickingRetriever{d.Retriever} })
	c := ts.dial(t, "", nil)
	bystander := ts.dial(t, "", nil)
	c.message("p1", "boom, what does Premium cost?")
	fs := c.answer("p1")
	last := fs[len(fs)-1]
	if last.Type != "error" || last.Code != "internal" || last.Message != "Internal error." {
		t.Fatalf("a panicking invocation answered %v, want error internal", fs)
	}
	if !strings.Contains(ts.logs.String(), "boom in the retriever") || !strings.Contains(ts.logs.String(), "goroutine") {
		t.Errorf("the log holds no panic and stack:\n%s", ts.logs.String())
	}
	if ce := c.closeErr(); ce == nil || ce.Code != websocket.CloseInternalServerErr {
		t.Fatalf("the panicking connection closed with %v, want 1011", ce)
	}
	bystander.message("p2", "What does Premium cost?")
	if fs := bystander.answer("p2"); fs[len(fs)-1].Type != "response" {
		t.Fatalf("another connection after the panic: %v", fs)
	}
	other := ts.dial(t, "", nil)
	other.message("p3", "What does Premium cost?")
	if fs := other.answer("p3"); fs[len(fs)-1].Type != "response" {
		t.Fatalf("another connection after the panic: %v", fs)
	}
}
