// Package webtest is what the browser tests of web and local share: one
// headless Chromium per test binary (a fresh tab per test), and small helpers
// to drive the page, wait for it, read it and take screenshots. It is used
// only by tests.
//
// Chromium is /usr/bin/chromium (Debian: apt-get install -y chromium) or
// $GROUNDWIRE_CHROMIUM. Without it the tests that need it skip, except when
// CI=true: then they fail. Screenshots go to $GROUNDWIRE_TEST_OUT (default: a
// temporary directory of the test).
package webtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// NeedTool returns the path of the first of names found in PATH. Without any
// the test is skipped, except under CI=true, where it fails.
func NeedTool(t testing.TB, names ...string) string {
	t.Helper()
	return needTool(t, "", names...)
}

func needTool(t testing.TB, hint string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("%s not found in PATH%s", strings.Join(names, " / "), hint)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (required when CI=true)", msg)
	}
	t.Skipf("%s: skipping", msg)
	return ""
}

// Chromium returns the browser to run: $GROUNDWIRE_CHROMIUM, /usr/bin/chromium,
// or one found in PATH (see NeedTool).
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("GROUNDWIRE_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return needTool(t, " (apt-get install -y chromium, or set GROUNDWIRE_CHROMIUM)", "chromium", "chromium-browser", "google-chrome")
}

var (
	browserOnce  sync.Once
	browserCtx   context.Context
	browserClose = func() {}
	browserErr   error

	consoleMu  sync.Mutex
	consoleLog = map[context.Context][]string{}
)

// Close stops the shared browser, if one was started. Call it from TestMain
// after m.Run.
func Close() { browserClose() }

// NewTab returns a fresh tab of the shared headless browser, started on
// first use with a fresh profile; the tab is closed when the test ends.
// Errors and exceptions the page logs are kept for ConsoleErrors.
func NewTab(t testing.TB) context.Context {
	t.Helper()
	exe := Chromium(t)
	browserOnce.Do(func() {
		dir, err := os.MkdirTemp("", "groundwire-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(exe),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1000, 800),
		)
		ctx, cancelBrowser := chromedp.NewContext(allocCtx)
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void]("1")); err != nil {
			browserErr = fmt.Errorf("starting %s: %w", exe, err)
		}
		browserCtx = ctx
		browserClose = func() {
			cancelBrowser()
			cancelAlloc()
			os.RemoveAll(dir)
		}
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	tab, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(func() {
		cancel()
		consoleMu.Lock()
		delete(consoleLog, tab)
		consoleMu.Unlock()
	})
	console := chromedp.Console(tab)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleError {
				consoleMu.Lock()
				consoleLog[tab] = append(consoleLog[tab], m.String())
				consoleMu.Unlock()
			}
		}
	}()
	return tab
}

// ConsoleErrors returns the errors the page in tab logged that contain none
// of the allowed strings.
func ConsoleErrors(tab context.Context, allowed ...string) []string {
	consoleMu.Lock()
	defer consoleMu.Unlock()
	var out []string
next:
	for _, m := range consoleLog[tab] {
		for _, a := range allowed {
			if strings.Contains(m, a) {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// OutDir is where screenshots go: $GROUNDWIRE_TEST_OUT, else a temporary
// directory of the test.
func OutDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("GROUNDWIRE_TEST_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// Screenshot saves the visible page as OutDir/name.png and returns the PNG.
func Screenshot(t testing.TB, tab context.Context, name string) []byte {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return nil
	}
	p := filepath.Join(OutDir(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", p)
	return png
}

// Run runs steps in tab (at most 20 s), failing the test on an error.
func Run(t testing.TB, tab context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v\nconsole errors: %q", err, ConsoleErrors(tab))
	}
}

// Eval evaluates the JavaScript expression js in tab.
func Eval[T any](t testing.TB, tab context.Context, js string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// WaitFor polls the JavaScript expression js every 20 ms until it is true,
// failing the test after 15 s.
func WaitFor(t testing.TB, tab context.Context, js string) {
	t.Helper()
	WaitForWithin(t, tab, js, 15*time.Second)
}

// WaitForWithin is WaitFor with another time limit.
func WaitForWithin(t testing.TB, tab context.Context, js string, limit time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, limit)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v\nconsole errors: %q", js, err, ConsoleErrors(tab))
	}
}

// ShownOutOfOrder is a script that returns, of the elements matching its
// selector (call it with one), the text of each whose characters are not
// laid out left to right in the order they are stored (each element's text
// is one line): what a bidi override does.
const ShownOutOfOrder = `((sel) => {
  const bad = [];
  for (const e of document.querySelectorAll(sel)) {
    let last = -Infinity;
    const walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (let i = 0; i < n.length; i++) {
        const r = document.createRange();
        r.setStart(n, i); r.setEnd(n, i + 1);
        const b = r.getBoundingClientRect();
        if (b.width === 0) continue;
        if (b.left < last - 0.5) { bad.push(e.textContent); break; }
        last = b.left;
      }
    }
  }
  return bad;
})`
