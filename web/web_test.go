package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

var quiet = slog.New(slog.DiscardHandler)

// fakeGuard is a compressible stand-in for guardrail.wasm.
var fakeGuard = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("groundwire "), 2000)...)

func fakeHandler() http.Handler {
	return Handler(Options{WASM: fakeGuard, WASMExec: []byte("globalThis.Go = class {};")})
}

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checkSecurityHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	if got, want := resp.Header.Get("Content-Security-Policy"), CSP("example.com", nil); got != want {
		t.Errorf("Content-Security-Policy = %q, want %q", got, want)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
	if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("Referrer-Policy = %q", got)
	}
}

func TestIndex(t *testing.T) {
	h := fakeHandler()
	for _, p := range []string{"/", "/index.html"} {
		resp := get(t, h, "GET", p, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", p, resp.StatusCode)
		}
		checkSecurityHeaders(t, resp)
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		b := string(body(t, resp))
		for _, want := range []string{`<script type="module" src="app.js"></script>`, `id="input"`, `id="send"`, `id="cancel"`, `id="conn-state"`, `aria-live`} {
			if !strings.Contains(b, want) {
				t.Errorf("GET %s: body lacks %s", p, want)
			}
		}
	}
}

func TestStaticAssets(t *testing.T) {
	h := fakeHandler()
	for _, p := range []string{"/app.js", "/groundwire.js", "/i18n.js", "/style.css"} {
		resp := get(t, h, "GET", p, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", p, resp.StatusCode)
		}
		checkSecurityHeaders(t, resp)
		want := "text/javascript; charset=utf-8"
		if strings.HasSuffix(p, ".css") {
			want = "text/css; charset=utf-8"
		}
		if ct := resp.Header.Get("Content-Type"); ct != want {
			t.Errorf("GET %s: Content-Type %q, want %q", p, ct, want)
		}
		if resp.Header.Get("ETag") == "" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET %s: ETag %q Cache-Control %q", p, resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"))
		}
	}
}

func TestWASM(t *testing.T) {
	h := fakeHandler()

	plain := get(t, h, "GET", "/guardrail.wasm", nil)
	if plain.StatusCode != 200 {
		t.Fatalf("status %d", plain.StatusCode)
	}
	checkSecurityHeaders(t, plain)
	if ct := plain.Header.Get("Content-Type"); ct != "application/wasm" {
		t.Errorf("Content-Type %q", ct)
	}
	if ce := plain.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("Content-Encoding %q without Accept-Encoding", ce)
	}
	if b := body(t, plain); !bytes.Equal(b, fakeGuard) {
		t.Errorf("plain body differs (%d bytes)", len(b))
	}
	if v := plain.Header.Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("Vary %q", v)
	}

	gz := get(t, h, "GET", "/guardrail.wasm", map[string]string{"Accept-Encoding": "br;q=0.5, gzip"})
	if ce := gz.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q with gzip preferred", ce)
	}
	zb := body(t, gz)
	if len(zb) >= len(fakeGuard) {
		t.Errorf("gzip body %d bytes, raw %d", len(zb), len(fakeGuard))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zb))
	if err != nil {
		t.Fatal(err)
	}
	if unz, _ := io.ReadAll(zr); !bytes.Equal(unz, fakeGuard) {
		t.Error("gunzipped body differs")
	}
	etag := gz.Header.Get("ETag")
	if etag == "" || etag == plain.Header.Get("ETag") {
		t.Errorf("ETags plain %q gzip %q: want distinct, non-empty", plain.Header.Get("ETag"), etag)
	}

	br := get(t, h, "GET", "/guardrail.wasm", map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"})
	if ce := br.Header.Get("Content-Encoding"); ce != "br" {
		t.Fatalf("Content-Encoding %q with br accepted as much as gzip", ce)
	}
	bb := body(t, br)
	if len(bb) >= len(zb) {
		t.Errorf("brotli body %d bytes, gzip %d", len(bb), len(zb))
	}
	if unb, err := io.ReadAll(brotli.NewReader(bytes.NewReader(bb))); err != nil || !bytes.Equal(unb, fakeGuard) {
		t.Errorf("unbrotlied body differs (%v)", err)
	}
	if bt := br.Header.Get("ETag"); bt == "" || bt == etag || bt == plain.Header.Get("ETag") {
		t.Errorf("ETag of brotli %q: want distinct from %q and %q", bt, etag, plain.Header.Get("ETag"))
	}

	for _, tag := range []string{etag, plain.Header.Get("ETag"), "W/" + etag, `"nope", ` + etag} {
		nm := get(t, h, "GET", "/guardrail.wasm", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": tag})
		if nm.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %s: status %d, want 304", tag, nm.StatusCode)
		}
		if b := body(t, nm); len(b) != 0 {
			t.Errorf("304 with a body of %d bytes", len(b))
		}
	}
	if r := get(t, h, "GET", "/guardrail.wasm", map[string]string{"If-None-Match": `"other"`}); r.StatusCode != 200 {
		t.Errorf("stale If-None-Match: status %d", r.StatusCode)
	}

	head := get(t, h, "HEAD", "/guardrail.wasm", nil)
	if head.StatusCode != 200 || head.Header.Get("Content-Length") == "" || len(body(t, head)) != 0 {
		t.Errorf("HEAD: status %d, Content-Length %q", head.StatusCode, head.Header.Get("Content-Length"))
	}

	exec := get(t, h, "GET", "/wasm_exec.js", nil)
	if exec.StatusCode != 200 || exec.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("wasm_exec.js: %d %q", exec.StatusCode, exec.Header.Get("Content-Type"))
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	h := fakeHandler()
	for _, p := range []string{"/nope", "/ws", "/static/app.js", "/app.js/", "/../web.go", "/web.go"} {
		resp := get(t, h, "GET", p, nil)
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
		checkSecurityHeaders(t, resp)
	}
	resp := get(t, h, "POST", "/", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestGuardUnavailable(t *testing.T) {
	for name, opts := range map[string]Options{
		"disabled": {DisableWASM: true},
		"half":     {WASM: fakeGuard},
		"no module root": {
			ModuleRoot: t.TempDir(), // no go.mod: the build fails
		},
	} {
		t.Run(name, func(t *testing.T) {
			opts.Logger = quiet
			h := Handler(opts)
			if r := get(t, h, "GET", "/", nil); r.StatusCode != 200 {
				t.Errorf("index: %d", r.StatusCode)
			}
			for _, p := range []string{"/guardrail.wasm", "/wasm_exec.js"} {
				r := get(t, h, "GET", p, nil)
				b := string(body(t, r))
				if r.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(b, "WASM guard unavailable: ") {
					t.Errorf("%s: %d %q", p, r.StatusCode, b)
				}
				checkSecurityHeaders(t, r)
				t.Logf("%s: %s", p, strings.TrimSpace(b))
			}
		})
	}
}

func TestGuardStillBuilding(t *testing.T) {
	s := &site{assets: map[string]*asset{}, guard: &guardState{done: make(chan struct{})}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/guardrail.wasm", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503 while building", rec.Code)
	}
}

func TestNegotiate(t *testing.T) {
	for _, c := range []struct {
		header string
		br, gz bool // what the asset has
		want   string
	}{
		{"", true, true, ""},
		{"gzip", true, true, "gzip"},
		{"GZIP", true, true, "gzip"},
		{"br", true, true, "br"},
		{"br, gzip", true, true, "br"},
		{"gzip, deflate, br, zstd", true, true, "br"},
		{"br;q=0.5, gzip", true, true, "gzip"},
		{"br, gzip;q=0.9", true, true, "br"},
		{"br", false, true, ""}, // brotli not ready or not smaller
		{"br, gzip", false, true, "gzip"},
		{"br, gzip", true, false, "br"},
		{"gzip", false, false, ""},
		{"gzip;q=0", true, true, ""},
		{"gzip; q=0.0", true, true, ""},
		{"gzip;q=0.5", true, true, "gzip"},
		{"deflate", true, true, ""},
		{"*", true, true, "br"},
		{"*", false, true, "gzip"},
		{"*;q=0", true, true, ""},
		{"gzip;q=0, *", true, true, "br"},
		{"br;q=0, *", true, true, "gzip"},
		{"identity, x-gzip", true, true, "gzip"},
		{"br;q=2, gzip", true, true, "br"}, // out-of-range q is ignored
	} {
		if got := negotiate(c.header, c.br, c.gz); got != c.want {
			t.Errorf("negotiate(%q, br=%v, gzip=%v) = %q, want %q", c.header, c.br, c.gz, got, c.want)
		}
	}
}

// TestEncodedOnce: a large body is compressed with brotli, served as
// brotli at once, and the same bytes served by another handler are not
// compressed again.
func TestEncodedOnce(t *testing.T) {
	defer func(dir string) { encodedCacheDir = dir }(encodedCacheDir)
	encodedCacheDir = t.TempDir()
	big := make([]byte, bigAsset+1)
	for i := range big {
		big[i] = "groundwire guards numbers "[i*7%26] ^ byte(i>>12)
	}
	a := newAsset(big, "application/wasm")
	resp := get(t, http.HandlerFunc(a.serve), "GET", "/", map[string]string{"Accept-Encoding": "br, gzip"})
	if ce := resp.Header.Get("Content-Encoding"); ce != "br" {
		t.Fatalf("Content-Encoding %q, want br", ce)
	}
	if unb, err := io.ReadAll(brotli.NewReader(resp.Body)); err != nil || !bytes.Equal(unb, big) {
		t.Errorf("unbrotlied body differs (%v)", err)
	}
	// gzip is deflate.Gzip's, smaller than compress/gzip's best.
	resp = get(t, http.HandlerFunc(a.serve), "GET", "/", map[string]string{"Accept-Encoding": "gzip"})
	zb := body(t, resp)
	if un, err := gunzip(zb); resp.Header.Get("Content-Encoding") != "gzip" || err != nil || !bytes.Equal(un, big) {
		t.Errorf("gzip: Content-Encoding %q, body does not decode to the asset (%v)", resp.Header.Get("Content-Encoding"), err)
	}
	if std := gzipBytes(big); len(zb) >= len(std) {
		t.Errorf("served gzip %d bytes, compress/gzip %d: not the stronger encoder's", len(zb), len(std))
	}
	if again := newAsset(bytes.Clone(big), "application/wasm"); again.enc != a.enc {
		t.Error("the same content was encoded twice")
	}
}

// TestCachedEncoding: a big asset's brotli and gzip encodings are kept on
// disk and read back by the next run; a kept file that does not decode to
// the content (damaged, or another content's) is not served but made again.
func TestCachedEncoding(t *testing.T) {
	body := bytes.Repeat([]byte("groundwire guards numbers; "), 400)
	sum := sha256.Sum256(body)
	for _, c := range []struct {
		coding
		other func([]byte) []byte // another valid encoding
	}{
		{brotliCoding, func(b []byte) []byte { return brotliBytes(b, 5) }},
		{gzipCoding, gzipBytes},
	} {
		dir := t.TempDir()
		enc := cachedEncoding(sum, body, dir, c.coding)
		name := filepath.Join(dir, hex.EncodeToString(sum[:])+c.ext)
		kept, err := os.ReadFile(name)
		if err != nil || !bytes.Equal(kept, enc) {
			t.Fatalf("%s: kept %d bytes (%v), made %d", c.ext, len(kept), err, len(enc))
		}
		if un, err := c.decode(enc); err != nil || !bytes.Equal(un, body) {
			t.Fatalf("%s: the encoding does not decode to the body (%v)", c.ext, err)
		}
		// The next run reads it: another encoding only the file has shows it was read.
		marked := c.other(body)
		if bytes.Equal(marked, enc) {
			t.Fatalf("%s: the marker is the encoding itself", c.ext)
		}
		if err := os.WriteFile(name, marked, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := cachedEncoding(sum, body, dir, c.coding); !bytes.Equal(got, marked) {
			t.Errorf("%s: a kept encoding of the content was not read back", c.ext)
		}
		// A damaged file, or another content's, is made again, and replaced.
		for _, bad := range [][]byte{[]byte("not encoded"), c.other(body[1:]), append(bytes.Clone(marked), 0)} {
			if err := os.WriteFile(name, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cachedEncoding(sum, body, dir, c.coding); !bytes.Equal(got, enc) {
				t.Errorf("%s: a damaged kept file was served", c.ext)
			}
			if kept, _ := os.ReadFile(name); !bytes.Equal(kept, enc) {
				t.Errorf("%s: a damaged kept file was not replaced", c.ext)
			}
		}
		// No directory: made all the same.
		if got := cachedEncoding(sum, body, "", c.coding); !bytes.Equal(got, enc) {
			t.Errorf("%s: without a cache directory the encoding differs", c.ext)
		}
	}
}

// TestCachePruned: files of other contents unused for a week are removed
// when an encoding is made; those of the content, and recent ones, stay.
func TestCachePruned(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("pruned? "), 1000)
	sum := sha256.Sum256(body)
	hexSum := hex.EncodeToString(sum[:])
	old := time.Now().Add(-8 * 24 * time.Hour)
	files := map[string]bool{ // name: kept
		strings.Repeat("ab", 32) + ".br": false, // another content, old
		strings.Repeat("cd", 32) + ".br": true,  // another content, recent
		hexSum + ".br":                   true,  // this content's other encoding, old
	}
	for name, kept := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if !kept || strings.HasPrefix(name, hexSum) {
			os.Chtimes(p, old, old)
		}
	}
	cachedEncoding(sum, body, dir, gzipCoding)
	for name, kept := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}

// TestNoHTMLInjection enforces the page's rule that text is never parsed as
// HTML, and that the HTML has no inline code the CSP would refuse.
func TestNoHTMLInjection(t *testing.T) {
	bad := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\s*\(|new\s+Function\s*\(|createContextualFragment|DOMParser|srcdoc`)
	files, err := filepath.Glob("static/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no static files: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if bad.MatchString(line) {
				t.Errorf("%s:%d: %s", f, i+1, strings.TrimSpace(line))
			}
		}
		if strings.HasSuffix(f, ".html") {
			inline := regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]|\son[a-z]+\s*=|style\s*=|javascript:`)
			for i, line := range strings.Split(string(b), "\n") {
				if inline.MatchString(line) && !strings.Contains(line, `src="`) {
					t.Errorf("%s:%d: inline code or style: %s", f, i+1, strings.TrimSpace(line))
				}
			}
		}
	}
}

func TestModuleRoot(t *testing.T) {
	want, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ModuleRoot("")
	if err != nil || got != want {
		t.Errorf(`ModuleRoot("") = %q, %v; want %q`, got, err, want)
	}

	// Another module's go.mod is skipped; a groundwire go.mod is found.
	dir := t.TempDir()
	other := filepath.Join(dir, "gw", "other")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gw", "go.mod"), []byte("// comment\nmodule \"github.com/groundwire/groundwire\" // quoted\n\ngo 1.26\n"), 0o644)
	if got, err := ModuleRoot(filepath.Join(other, "sub")); err != nil || got != filepath.Join(dir, "gw") {
		t.Errorf("ModuleRoot(nested) = %q, %v; want %q", got, err, filepath.Join(dir, "gw"))
	}

	// Nothing above: the module this package was compiled from (known only
	// when the test binary was not built with -trimpath).
	if _, file, _, _ := runtime.Caller(0); !filepath.IsAbs(file) {
		t.Skip("built with -trimpath: no source location to fall back to")
	}
	if got, err := ModuleRoot(t.TempDir()); err != nil || got != want {
		t.Errorf("ModuleRoot(elsewhere) = %q, %v; want fallback %q", got, err, want)
	}
}

var (
	guardOnce          sync.Once
	guardWASM, guardJS []byte
	guardErr           error
)

// realGuard builds the real guardrail.wasm once per test binary.
func realGuard(t *testing.T) (wasm, execJS []byte) {
	t.Helper()
	guardOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultBuildTimeout)
		defer cancel()
		start := time.Now()
		guardWASM, guardJS, guardErr = buildGuard(ctx, "")
		t.Logf("built guardrail.wasm in %v", time.Since(start).Round(time.Millisecond))
	})
	if guardErr != nil {
		t.Fatal(guardErr)
	}
	return guardWASM, guardJS
}

// TestBuildWASMUnknownExperiment: a toolchain that refuses BuildEnv's
// GOEXPERIMENT (Go 1.27 is to remove nogreenteagc) still gets a guard,
// built without it, not a page whose guard never comes.
func TestBuildWASMUnknownExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the guard again (-short)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	saved := BuildEnv
	BuildEnv = []string{"GOEXPERIMENT=nosuchexperiment"}
	defer func() { BuildEnv = saved }()
	root, err := ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultBuildTimeout)
	defer cancel()
	start := time.Now()
	wasm, err := BuildWASM(ctx, root)
	t.Logf("built without the experiment in %v: %d bytes", time.Since(start).Round(time.Millisecond), len(wasm))
	if err != nil {
		t.Fatalf("BuildWASM with an unknown experiment: %v", err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Fatalf("not a wasm module: % x", wasm[:min(8, len(wasm))])
	}
}

// maxGuardBrotli and maxGuardGzip are the guard's download budget, as
// served (brotli to a browser that accepts it, which all do over HTTPS and
// Chromium does over plain HTTP to 127.0.0.1; gzip to one that does not):
// the page cannot pre-check anything before it has it (issue 24). A
// syscall/js program that registers one function is 543,837 bytes gzipped
// (by compress/gzip -9) with the same build (BuildEnv, BuildFlags). The gzip
// measured is the one served: deflate.Gzip's for the guard, some 6 %
// smaller than compress/gzip -9's (README, "Browser client and JS API").
const (
	maxGuardBrotli = 600_000
	maxGuardGzip   = 700_000
)

// TestGuardImports holds the WASM guard to the standard packages it
// imports (go list -deps under GOOS=js GOARCH=wasm): package strings alone
// brings io, errors and its reflection, with their initialisation (6 KB
// gzipped), strconv its errors, slices and maps package iter, fmt and
// encoding/json reflection. guardrail writes out what it needs of them
// (tables.go, textbuf_js.go; jsonw for JSON).
func TestGuardImports(t *testing.T) {
	root, err := ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "./wasm")
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"), BuildEnv...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./wasm: %v", err)
	}
	banned := map[string]bool{"strings": true, "strconv": true, "errors": true, "io": true, "slices": true,
		"maps": true, "iter": true, "fmt": true, "reflect": true, "encoding/json": true, "sort": true}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		if banned[p] {
			t.Errorf("the WASM guard imports package %s", p)
		}
	}
	if len(deps) < 5 || !slices.Contains(deps, "github.com/groundwire/groundwire/guardrail") {
		t.Errorf("go list -deps ./wasm does not list the guard's packages: %q", deps)
	}
}

func TestBuildWASM(t *testing.T) {
	wasm, execJS := realGuard(t)
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Fatalf("guardrail.wasm does not start with the wasm magic: % x", wasm[:min(8, len(wasm))])
	}
	if !bytes.Contains(execJS, []byte("globalThis.Go")) {
		t.Error("wasm_exec.js does not define globalThis.Go")
	}
	a := newAsset(wasm, "application/wasm")
	t.Logf("guardrail.wasm: %d bytes raw, %d bytes gzip, %d bytes brotli (%s %s)",
		len(a.body), len(a.enc.gz), len(a.enc.br), strings.Join(BuildEnv, " "), strings.Join(BuildFlags, " "))
	if un, err := gunzip(a.enc.gz); err != nil || !bytes.Equal(un, wasm) {
		t.Errorf("the guard's gzip encoding does not decode to it (%v)", err)
	}
	if len(a.enc.gz) == 0 || len(a.enc.gz) > maxGuardGzip {
		t.Errorf("guardrail.wasm is %d bytes gzipped, the budget is %d", len(a.enc.gz), maxGuardGzip)
	}
	if len(a.enc.br) > maxGuardBrotli {
		t.Errorf("guardrail.wasm is %d bytes with brotli, the budget is %d", len(a.enc.br), maxGuardBrotli)
	}
	if len(a.enc.br) == 0 || len(a.enc.br) >= len(a.enc.gz) {
		t.Errorf("brotli (%d bytes) is not smaller than gzip (%d bytes)", len(a.enc.br), len(a.enc.gz))
	}

	// The handler builds the same bytes in the background and serves them
	// once ready (the build cache makes the second build quick).
	h := Handler(Options{Logger: quiet})
	resp := get(t, h, "GET", "/guardrail.wasm", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /guardrail.wasm: %d %s", resp.StatusCode, body(t, resp))
	}
	if b := body(t, resp); !bytes.Equal(b, wasm) {
		t.Errorf("handler's build differs from BuildWASM's (%d vs %d bytes): builds are not reproducible", len(b), len(wasm))
	}
}

func TestCSPConnectSrc(t *testing.T) {
	for _, c := range []struct {
		host    string
		connect []string
		want    string
	}{
		{"localhost:8787", nil, "connect-src 'self' ws://localhost:8787 wss://localhost:8787;"},
		{"Chat.Example.com", []string{"https://app.example.com", "other.example.com", "*"},
			"connect-src 'self' ws://chat.example.com wss://chat.example.com ws://app.example.com wss://app.example.com ws://other.example.com wss://other.example.com;"},
		{"[::1]:8787", nil, "connect-src 'self' ws://[::1]:8787 wss://[::1]:8787;"},
		// A Host header that could end the source list is left out.
		{"evil.example;script-src *", nil, "connect-src 'self';"},
		{"a b", nil, "connect-src 'self';"},
		{"", nil, "connect-src 'self';"},
	} {
		got := CSP(c.host, c.connect)
		if !strings.Contains(got, c.want) {
			t.Errorf("CSP(%q, %q) = %q, want it to contain %q", c.host, c.connect, got, c.want)
		}
		if strings.Contains(got, " ws: ") || strings.Contains(got, " wss:;") || strings.Count(got, "connect-src") != 1 {
			t.Errorf("CSP(%q) = %q: any-host WebSocket sources or a second connect-src", c.host, got)
		}
	}
	// The handler sends the CSP for the request's host and its options.
	h := Handler(Options{DisableWASM: true, ConnectOrigins: []string{"app.example.com"}})
	resp := get(t, h, "GET", "/", nil)
	if got, want := resp.Header.Get("Content-Security-Policy"), CSP("example.com", []string{"app.example.com"}); got != want {
		t.Fatalf("CSP = %q, want %q", got, want)
	}
}
