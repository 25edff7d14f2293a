package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/web"
)

// checkHeaders checks the security headers the README promises on every
// response: the CSP for the request's host (WebSockets to that host and
// the allowed origins only), nosniff, no-referrer.
func checkHeaders(t *testing.T, what string, h http.Header, host string, connect []string) {
	t.Helper()
	if got, want := h.Get("Content-Security-Policy"), web.CSP(host, connect); got != want {
		t.Errorf("%s: Content-Security-Policy = %q, want %q", what, got, want)
	}
	if got := h.Get("Content-Security-Policy"); strings.Contains(got, " ws: ") || strings.Contains(got, " wss:;") {
		t.Errorf("%s: the CSP lets the page open WebSockets to any host: %q", what, got)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options = %q", what, got)
	}
	if got := h.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("%s: Referrer-Policy = %q", what, got)
	}
}

// TestSecurityHeadersOnEveryRoute walks every route of the server, with
// the statuses it answers (200, 304-less GETs, 401, 403, 404, 405, 426),
// over the network and, for remote clients, through ServeHTTP.
func TestSecurityHeadersOnEveryRoute(t *testing.T) {
	rt := newRuntimeEndpoint(t)
	origins := []string{"app.example.com"}
	connect := allowedOrigins(origins)
	for _, withLambda := range []bool{false, true} {
		ts := startServer(t, func(c *config) {
			c.Pprof = true
			c.Origins = origins
			c.AuthToken = "s3cret-token"
			if withLambda {
				c.Lambda = []string{rt.url}
			}
		})
		routes := []struct {
			method, path string
			header       map[string]string
			status       int
		}{
			{"GET", "/", nil, 200},
			{"GET", "/app.js", nil, 200},
			{"HEAD", "/style.css", nil, 200},
			{"GET", "/guardrail.wasm", nil, 503}, // no WASM in tests
			{"GET", "/nope", nil, 404},
			{"POST", "/", nil, 405},
			{"GET", "/ws", nil, 426},
			{"GET", "/healthz", nil, 200},
			{"GET", "/metrics", nil, 200},
			{"HEAD", "/healthz", nil, 200},
			{"POST", "/healthz", nil, 405},
			{"DELETE", "/metrics", nil, 405},
			{"GET", "/debug/pprof/", nil, 200},
			{"GET", "/debug/pprof/heap?debug=1", nil, 200},
			{"GET", "/ws", upgrade("http://evil.example"), 403},
			{"GET", "/ws", upgrade(""), 401}, // no token
			{"GET", "/?token=wrong", upgrade(""), 401},
		}
		if withLambda {
			routes = append(routes, struct {
				method, path string
				header       map[string]string
				status       int
			}{"GET", "/local/@connections/abc", nil, 410})
		}
		for _, r := range routes {
			req, _ := http.NewRequest(r.method, ts.url(r.path), nil)
			for k, v := range r.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			what := r.method + " " + r.path
			if r.header != nil && withLambda {
				// The $connect goes to the runtime endpoint, which in
				// this test answers no invocation: 502, also with the
				// headers.
				r.status = http.StatusBadGateway
			}
			if resp.StatusCode != r.status {
				t.Errorf("%s (lambda %v): HTTP %d, want %d", what, withLambda, resp.StatusCode, r.status)
			}
			if allow := resp.Header.Get("Allow"); resp.StatusCode == http.StatusMethodNotAllowed && allow != "GET, HEAD" {
				t.Errorf("%s: 405 with Allow %q, want \"GET, HEAD\"", what, allow)
			}
			checkHeaders(t, what, resp.Header, ts.addr, connect)
		}
		// Remote clients: the loopback-only routes refuse them (403),
		// with the headers.
		for _, path := range []string{"/debug/pprof/", "/healthz", "/local/@connections/abc"} {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("GET", path, nil)
			req.RemoteAddr = "192.0.2.7:40000"
			ts.s.ServeHTTP(rec, req)
			checkHeaders(t, "remote GET "+path, rec.Header(), "example.com", connect)
		}
	}
}

// upgrade is the headers of a WebSocket handshake from origin.
func upgrade(origin string) map[string]string {
	h := map[string]string{
		"Connection":            "Upgrade",
		"Upgrade":               "websocket",
		"Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key":     "dGhlIHNhbXBsZSBub25jZQ==",
	}
	if origin != "" {
		h["Origin"] = origin
	}
	return h
}

// TestHealthzHidesKBPath: /healthz names the -kb directory to loopback
// clients only; others see that a custom knowledge base is loaded.
func TestHealthzHidesKBPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "en"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "en", "a.md"), []byte("# Plans\n\nPremium costs 99 kr a month.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *config) { c.KBDir = dir })
	kbOf := func(body string) string {
		var h struct {
			KB string `json:"knowledgeBase"`
		}
		if err := json.Unmarshal([]byte(body), &h); err != nil {
			t.Fatalf("healthz: %v: %s", err, body)
		}
		return h.KB
	}
	if _, body := ts.get("/healthz"); kbOf(body) != dir {
		t.Fatalf("loopback client sees knowledgeBase %q, want %q", kbOf(body), dir)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.RemoteAddr = "192.0.2.7:40000"
	ts.s.ServeHTTP(rec, req)
	if got := kbOf(rec.Body.String()); got != "custom" || strings.Contains(rec.Body.String(), dir) {
		t.Fatalf("remote client sees knowledgeBase %q in %s", got, rec.Body.String())
	}
	// The embedded base is named to everyone.
	ts = startServer(t)
	rec = httptest.NewRecorder()
	ts.s.ServeHTTP(rec, req)
	if got := kbOf(rec.Body.String()); got != "embedded" {
		t.Fatalf("remote client sees knowledgeBase %q, want embedded", got)
	}
}
