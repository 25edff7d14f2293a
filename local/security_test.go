package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
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
	ts.s.mu.Lock()
	n := len(ts.s.perIP)
	ts.s.mu.Unlock()
	if n > 1 {
		t.Fatalf("per-address counts of %d addresses kept", n)
	}
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
