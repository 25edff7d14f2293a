package web

import (
	"net/http"
	"strings"
)

// CSP returns the Content-Security-Policy of every response served for
// host (the request's Host): the page may run only its own scripts and
// WebAssembly, use only its own styles, fetch only from its own origin, and
// open WebSockets only to the host that served it (ws:// and wss://, so the
// page works behind a TLS-terminating proxy) and to the hosts of connect
// (origins or bare hosts: the server's allowed origins). A host that is not
// a plain host[:port] (the Host header is the client's) is left out, and
// so is "*": the page then connects to 'self' only.
func CSP(host string, connect []string) string {
	var b strings.Builder
	b.WriteString("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'")
	seen := map[string]bool{}
	add := func(h string) {
		h = strings.ToLower(h)
		if !plainHost(h) || seen[h] {
			return
		}
		seen[h] = true
		b.WriteString(" ws://" + h + " wss://" + h)
	}
	add(host)
	for _, o := range connect {
		if i := strings.Index(o, "://"); i >= 0 {
			o = o[i+3:]
		}
		add(strings.TrimSuffix(o, "/"))
	}
	b.WriteString("; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
	return b.String()
}

// plainHost reports whether h is a host name, IPv4 or bracketed IPv6
// address with an optional port: nothing that could end a CSP source or
// directive.
func plainHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-', r == ':', r == '[', r == ']':
		default:
			return false
		}
	}
	return true
}

// SetSecurityHeaders sets the headers every response carries, whatever
// its route and status: the CSP for r's host and connect, nosniff, and
// Referrer-Policy: no-referrer (the page URL may carry ?token=).
func SetSecurityHeaders(h http.Header, r *http.Request, connect []string) {
	h.Set("Content-Security-Policy", CSP(r.Host, connect))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
