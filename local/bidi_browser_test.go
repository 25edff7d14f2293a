package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/groundwire/groundwire/web/webtest"
)

// TestBrowserBidiShownAsVerified (issue 27): against the real server, a
// model answer with a right-to-left override around a price and a
// knowledge-base file whose name holds one. The page shows the answer as
// verified, the same text the server verified and streamed, with no
// control in it, every character in stored order; the file name shows its
// control as a visible escape, and the snippet beside it in order.
func TestBrowserBidiShownAsVerified(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "\u202eprices.md"), []byte("# Prices\n\nPremium costs 199 kr per month.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, func(c *config) { c.KBDir = dir })
	p.record()
	p.run(chromedp.WaitVisible(chromedp.CSS("#send:not([disabled])")),
		chromedp.SetValue(chromedp.CSS("#input"), "$say Premium costs \u202e199\u202c kr per month."),
		chromedp.SendKeys(chromedp.CSS("#input"), kb.Enter))
	polled := p.watch("$say with a bidi override")

	const want = "Premium costs 199 kr per month."
	if s := p.status(); s != "verified" {
		t.Fatalf("status %q, want verified; body %q", s, p.body())
	}
	if b := p.body(); b != want {
		t.Errorf("body %q, want %q", b, want)
	}
	controls := regexp.MustCompile(`\p{Cf}`)
	for _, b := range append(polled, p.recorded()...) {
		if controls.MatchString(b) {
			t.Fatalf("a format control reached the screen: %q", b)
		}
	}
	fs := p.frames.of(t, p.id())
	if d := deltas(fs, p.id()); d != want {
		t.Errorf("streamed %q, want %q", d, want)
	}
	files, snippets := p.citations()
	wantFile := filepath.Base(dir) + `/\u202Eprices.md:3`
	if len(files) != 1 || files[0] != wantFile || len(snippets) != 1 || snippets[0] != "Premium costs 199 kr per month." {
		t.Errorf("citations %q %q, want %q and the snippet", files, snippets, wantFile)
	}
	if bad := p.strs(webtest.ShownOutOfOrder + `(".msg.bot .body, .citation .file, .citation .snippet")`); len(bad) > 0 {
		t.Errorf("shown out of order: %q", bad)
	}
	if title := p.str(lastBot + `.querySelector(".body .num").title`); controls.MatchString(title) || !strings.Contains(title, `\u202E`) {
		t.Errorf("title %q: want the file's control escaped", title)
	}
	p.screenshot("bidi")
}
