// Package web serves the browser client of groundwire: the chat page, its
// scripts and styles (embedded from static/), and the WASM number guard
// (guardrail.wasm, built from ./wasm, with the wasm_exec.js of the same Go
// toolchain).
//
// The local server mounts [Handler] for every path that is not the
// WebSocket endpoint:
//
//	mux.Handle("/ws", wsHandler)
//	mux.Handle("/", web.Handler(web.Options{Logger: logger}))
//
// # How the guard gets built
//
// A developer runs `go run ./local` with nothing else installed, so the guard
// is compiled when the server starts: [Handler] starts [BuildWASM] in the
// background (GOOS=js GOARCH=wasm go build with [BuildFlags] and
// [BuildEnv] ./wasm; a few seconds when the Go build cache is warm) and
// reads wasm_exec.js from `$(go env GOROOT)/lib/wasm/`, so the two always
// come from the same toolchain. The page is served at once; a request for
// /guardrail.wasm or /wasm_exec.js waits for the build (bounded by the
// request's context).
//
// The module to build is found by [ModuleRoot]: Options.ModuleRoot when set,
// else the nearest directory at or above the working directory whose go.mod
// declares module [ModulePath], else the module this package was compiled
// from (its source location, when the binary was not built with -trimpath
// and that directory still exists).
//
// When there is no module root, no `go` command, or the build fails, the
// guard is unavailable: /guardrail.wasm and /wasm_exec.js answer 503 with the
// reason, and the page shows a banner saying the in-browser check is off and
// the server-side guard still applies. The page then fails closed: it shows
// an answer only once the server's final `response` has arrived, never the
// unchecked stream. Setting Options.WASM and Options.WASMExec serves those
// bytes instead and builds nothing (a deployment that ships prebuilt files);
// Options.DisableWASM turns the guard off.
//
// # Caching and headers
//
// Every asset is served with a strong ETag (a hash of its content, one per
// encoding), Cache-Control: no-cache (stored by the browser, revalidated
// each time, so a rebuilt guard is picked up at once and an unchanged one
// costs a 304), and a brotli or gzip body as the client's Accept-Encoding
// prefers. Compression happens once per content in the process, when the
// asset is embedded or built: brotli at quality 11, gzip by compress/gzip
// at its best level, or for an asset over 256 KB (the guard) by the slower,
// smaller encoder of package web/internal/deflate; an asset's big encodings
// are made concurrently and kept on disk by content hash (see encode).
// Every response carries the
// Content-Security-Policy [CSP] (own scripts and WASM only, no inline code,
// WebSockets only to the serving host and Options.ConnectOrigins),
// X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer (the page
// URL may carry ?token=); see [SetSecurityHeaders].
package web

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ModulePath is the module whose ./wasm is built into guardrail.wasm.
const ModulePath = "github.com/groundwire/groundwire"

// DefaultBuildTimeout bounds the background build of the guard.
const DefaultBuildTimeout = 5 * time.Minute

//go:embed static
var staticFiles embed.FS

// Options configure [Handler]. The zero value builds the guard from the
// module found by [ModuleRoot] and logs to slog.Default().
type Options struct {
	// ModuleRoot is the directory of the groundwire module to build the
	// guard from. Empty: found by ModuleRoot("").
	ModuleRoot string
	// WASM and WASMExec, when both are set, are served as guardrail.wasm
	// and wasm_exec.js, and nothing is built. They must come from the same
	// Go toolchain.
	WASM, WASMExec []byte
	// DisableWASM serves the page without the in-browser guard (the page
	// shows the banner and fails closed).
	DisableWASM bool
	// BuildTimeout bounds the build; 0 means DefaultBuildTimeout.
	BuildTimeout time.Duration
	// Logger receives the build's outcome; nil means slog.Default().
	Logger *slog.Logger
	// ConnectOrigins are origins or hosts the page may open WebSockets to
	// besides the host that served it (see [CSP]).
	ConnectOrigins []string
}

// Handler returns the handler for the page, its assets and the guard. It
// starts building the guard in the background unless Options say otherwise
// (see the package documentation). Unknown paths get 404; methods other
// than GET and HEAD get 405.
func Handler(opts Options) http.Handler {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	s := &site{connect: opts.ConnectOrigins, assets: map[string]*asset{}, guard: &guardState{done: make(chan struct{})}}
	err := fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := staticFiles.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		s.assets["/"+name] = newAsset(body, contentType(name))
		return nil
	})
	if err != nil { // embedded files are known at compile time
		panic("web: reading embedded files: " + err.Error())
	}
	s.assets["/"] = s.assets["/index.html"]

	switch {
	case opts.DisableWASM:
		s.guard.finish(nil, nil, errors.New("the WASM guard is disabled on this server"))
	case opts.WASM != nil || opts.WASMExec != nil:
		if opts.WASM == nil || opts.WASMExec == nil {
			s.guard.finish(nil, nil, errors.New("the server was given only one of guardrail.wasm and wasm_exec.js"))
		} else {
			s.guard.finish(opts.WASM, opts.WASMExec, nil)
		}
	default:
		timeout := opts.BuildTimeout
		if timeout <= 0 {
			timeout = DefaultBuildTimeout
		}
		go s.guard.build(opts.ModuleRoot, timeout, logger)
	}
	return s
}

type site struct {
	connect []string // Options.ConnectOrigins
	assets  map[string]*asset
	guard   *guardState
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	SetSecurityHeaders(h, r, s.connect)

	var a *asset
	switch r.URL.Path {
	case "/guardrail.wasm", "/wasm_exec.js":
		if !s.guard.wait(r.Context()) {
			http.Error(w, "the WASM guard is still being built", http.StatusServiceUnavailable)
			return
		}
		if s.guard.err != nil {
			h.Set("Cache-Control", "no-store")
			http.Error(w, "WASM guard unavailable: "+s.guard.err.Error(), http.StatusServiceUnavailable)
			return
		}
		a = s.guard.wasm
		if r.URL.Path == "/wasm_exec.js" {
			a = s.guard.exec
		}
	default:
		a = s.assets[r.URL.Path]
	}
	if a == nil {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a.serve(w, r)
}

// guardState is the guard's build, done once.
type guardState struct {
	done       chan struct{}
	wasm, exec *asset
	err        error
}

func (g *guardState) finish(wasm, exec []byte, err error) {
	if err == nil {
		g.wasm = newAsset(wasm, "application/wasm")
		g.exec = newAsset(exec, contentType("wasm_exec.js"))
	}
	g.err = err
	close(g.done)
}

// wait reports whether the build is over before ctx is done.
func (g *guardState) wait(ctx context.Context) bool {
	select {
	case <-g.done:
		return true
	case <-ctx.Done():
		return false
	}
}

func (g *guardState) build(root string, timeout time.Duration, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	wasm, exec, err := buildGuard(ctx, root)
	if err != nil {
		logger.Warn("web: WASM guard unavailable; the page falls back to the server-side guard", "err", err)
		g.finish(nil, nil, err)
		return
	}
	g.finish(wasm, exec, nil)
	logger.Info("web: WASM guard built", "bytes", len(wasm), "gzip_bytes", len(g.wasm.enc.gz),
		"brotli_bytes", len(g.wasm.enc.br), "duration", time.Since(start).Round(time.Millisecond))
}

func buildGuard(ctx context.Context, root string) (wasm, exec []byte, err error) {
	if root == "" {
		if root, err = ModuleRoot(""); err != nil {
			return nil, nil, err
		}
	}
	if wasm, err = BuildWASM(ctx, root); err != nil {
		return nil, nil, err
	}
	if exec, err = WASMExec(ctx); err != nil {
		return nil, nil, err
	}
	return wasm, exec, nil
}

// BuildFlags are the `go build` flags of guardrail.wasm: no file system
// paths, no inlining (smaller code: the guard checks short texts, where the
// calls cost nothing that shows), no symbol table or DWARF.
var BuildFlags = []string{"-trimpath", "-gcflags=all=-l", "-ldflags=-s -w -buildid=", "-buildvcs=false"}

// BuildEnv is the environment of that build besides GOOS=js, GOARCH=wasm
// and CGO_ENABLED=0: the garbage collector Go had before Green Tea, 12 KB
// smaller gzipped (Green Tea's gains are on many cores; the guard runs on
// one thread). Go 1.26 keeps it behind this opt-out, which Go 1.27 is to
// remove: with a toolchain that does not know it ("unknown GOEXPERIMENT")
// BuildWASM builds without it, and the guard is over its gzip budget (see
// TestBuildWASM) until its code gives up those 12 KB.
var BuildEnv = []string{"GOEXPERIMENT=nogreenteagc"}

// BuildWASM compiles moduleRoot/wasm for GOOS=js GOARCH=wasm with
// [BuildFlags] and [BuildEnv] (without BuildEnv when the toolchain refuses
// its GOEXPERIMENT) and returns guardrail.wasm. It runs the `go`
// command found in PATH; with a warm build cache it takes a few seconds.
func BuildWASM(ctx context.Context, moduleRoot string) ([]byte, error) {
	wasm, err := buildWASM(ctx, moduleRoot, BuildEnv)
	if err != nil && len(BuildEnv) > 0 && strings.Contains(err.Error(), "GOEXPERIMENT") {
		// a toolchain without the experiment: the guard as it is
		wasm, err = buildWASM(ctx, moduleRoot, nil)
	}
	return wasm, err
}

func buildWASM(ctx context.Context, moduleRoot string, env []string) ([]byte, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("building the WASM guard: no go command in PATH: %w", err)
	}
	tmp, err := os.MkdirTemp("", "groundwire-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "guardrail.wasm")
	args := append(append([]string{"build"}, BuildFlags...), "-o", out, "./wasm")
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = moduleRoot
	cmd.Env = append(append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"), env...)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[:2000] + "…"
		}
		if msg != "" {
			return nil, fmt.Errorf("building the WASM guard in %s: %w: %s", moduleRoot, err, msg)
		}
		return nil, fmt.Errorf("building the WASM guard in %s: %w", moduleRoot, err)
	}
	return os.ReadFile(out)
}

// WASMExec returns the wasm_exec.js of the `go` command in PATH, from
// `$(go env GOROOT)/lib/wasm` (or misc/wasm before Go 1.24). It must be the
// toolchain that built guardrail.wasm: the two are a matched pair.
func WASMExec(ctx context.Context) ([]byte, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("finding wasm_exec.js: no go command in PATH: %w", err)
	}
	out, err := exec.CommandContext(ctx, gocmd, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("finding wasm_exec.js: go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	var firstErr error
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		b, err := os.ReadFile(filepath.Join(goroot, dir, "wasm_exec.js"))
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("finding wasm_exec.js in GOROOT %s: %w", goroot, firstErr)
}

// ModuleRoot returns the directory of the groundwire module: the nearest
// directory at or above start (the working directory when empty) whose
// go.mod declares [ModulePath]; failing that, the module this package was
// compiled from, when its sources are still on disk.
func ModuleRoot(start string) (string, error) {
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		start = wd
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if isModuleRoot(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// The source location is absolute unless built with -trimpath.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if root := filepath.Dir(filepath.Dir(file)); isModuleRoot(root) {
			return root, nil
		}
	}
	return "", fmt.Errorf("no go.mod of module %s at or above %s (run the server from the groundwire checkout)", ModulePath, start)
}

func isModuleRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			mod := strings.TrimSpace(rest)
			if i := strings.Index(mod, "//"); i >= 0 {
				mod = strings.TrimSpace(mod[:i])
			}
			if u, err := strconv.Unquote(mod); err == nil {
				mod = u
			}
			return mod == ModulePath
		}
	}
	return false
}

// etagMatch reports whether an If-None-Match list names one of the tags
// (weak comparison, as RFC 9110 asks for If-None-Match).
func etagMatch(list string, tags ...string) bool {
	for part := range strings.SplitSeq(list, ",") {
		t := strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if t == "*" {
			return true
		}
		for _, tag := range tags {
			if t == tag {
				return true
			}
		}
	}
	return false
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}
