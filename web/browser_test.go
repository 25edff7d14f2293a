package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/web/webtest"
)

// The browser tests drive the real page in headless Chromium against an
// httptest server with web.Handler and a fake WebSocket endpoint that
// replays scripted frames (local/browser_test.go drives it against the real
// server).
//
// The browser and the helpers are package webtest's (Chromium, skipping
// without it except under CI=true, screenshots in $GROUNDWIRE_TEST_OUT).

func TestMain(m *testing.M) {
	code := m.Run()
	webtest.Close()
	os.Exit(code)
}

// ---- the fake WebSocket server --------------------------------------------------

type frame = map[string]any

type fakeWS struct {
	delay time.Duration
	mu    sync.Mutex
	got   []frame  // frames from the page
	urls  []string // request URIs of the upgrades
	execd map[string]bool
	conns []*websocket.Conn
}

var (
	pricing = []frame{
		{"file": "kb/pricing.md", "line": 3, "snippet": "Premium costs 99 kr per month."},
		{"file": "kb/pricing.md", "line": 4, "snippet": "Basic costs 49 kr per month."},
	}
	premiumAnswer = "Premium costs 99 kr per month and Basic 49 kr."
	bidiSources   = []frame{
		{"file": "kb/\u202eprices.md", "line": 3, "snippet": "Premium costs 99 kr per month."},
		{"file": "kb/basic.md", "line": 4, "snippet": "Basic costs \u202e49 kr\u202c per month."},
	}
	bidiAnswer = "Premium costs \u202e99\u202c kr per month."
)

func (f *fakeWS) received() []frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]frame(nil), f.got...)
}

func (f *fakeWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{} // same-origin check of gorilla's default
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.urls = append(f.urls, r.URL.RequestURI())
	f.conns = append(f.conns, conn)
	f.mu.Unlock()
	defer conn.Close()

	var wmu sync.Mutex
	send := func(fr frame) {
		wmu.Lock()
		defer wmu.Unlock()
		conn.WriteJSON(fr)
	}
	var cancelActive context.CancelFunc = func() {}
	var activeDone chan struct{}
	for {
		var in frame
		if err := conn.ReadJSON(&in); err != nil {
			cancelActive()
			return
		}
		f.mu.Lock()
		f.got = append(f.got, in)
		f.mu.Unlock()
		switch in["type"] {
		case "message":
			cancelActive()
			if activeDone != nil {
				<-activeDone
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancelActive = cancel
			done := make(chan struct{})
			activeDone = done
			go func() {
				defer close(done)
				f.answer(ctx, send, in)
			}()
		case "cancel":
			cancelActive()
		case "confirm_action":
			sid, _ := in["suggestionId"].(string)
			f.mu.Lock()
			already := f.execd[sid]
			f.execd[sid] = true
			f.mu.Unlock()
			res := frame{"success": true, "ignored": false, "message": "Ticket created: Skapa ärende: min router är trasig"}
			if already {
				res = frame{"success": true, "ignored": true, "message": "Already executed"}
			}
			send(frame{"type": "action_executed", "suggestionId": sid, "result": res})
		}
	}
}

// answer plays the script chosen by the message text.
func (f *fakeWS) answer(ctx context.Context, send func(frame), in frame) {
	id, _ := in["id"].(string)
	text, _ := in["text"].(string)
	wait := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			send(frame{"type": "stream_end", "id": id, "reason": "cancelled"})
			return false
		case <-time.After(d):
			return true
		}
	}
	stream := func(deltas ...string) bool {
		for _, d := range deltas {
			if !wait(f.delay) {
				return false
			}
			send(frame{"type": "stream", "id": id, "delta": d})
		}
		return wait(f.delay)
	}
	switch {
	case strings.Contains(text, "$error"):
		send(frame{"type": "error", "id": id, "code": "too_large", "message": "message text is over 4000 characters <b>not bold</b>"})
	case strings.Contains(text, "$ghost"):
		// Frames about ids the page never sent: the lone stream_end of a
		// message superseded before it got anything, an error, a stray
		// answer. Then the real answer.
		send(frame{"type": "stream_end", "id": "ghost-1", "reason": "cancelled"})
		send(frame{"type": "error", "id": "ghost-2", "code": "internal", "message": "lost <i>ghost</i>"})
		send(frame{"type": "stream", "id": "ghost-3", "delta": "Premium costs 149 kr."})
		send(frame{"type": "response", "id": "ghost-3", "status": "verified", "text": "Premium costs 149 kr.", "citations": pricing, "numbers": []frame{}})
		send(frame{"type": "action_suggestion", "id": "ghost-3", "suggestionId": "s-ghost", "action": "create_ticket", "payload": frame{}})
		send(frame{"type": "action_executed", "suggestionId": "s-ghost", "result": frame{"success": true}})
		f.answer(ctx, send, frame{"id": id, "text": "What does Premium cost?"})
	case strings.Contains(text, "$drop"):
		f.mu.Lock()
		conns := f.conns
		f.mu.Unlock()
		conns[len(conns)-1].Close()
	case strings.Contains(text, "hallucinate"):
		// A misbehaving server (or one in after mode) streams an ungrounded
		// number; the page must never show it.
		send(frame{"type": "sources", "id": id, "citations": pricing})
		if !stream("Premium costs ", "1", "4", "9", " kr", " per month", " and Basic ", "4", "9 kr.") {
			return
		}
		send(frame{"type": "stream_end", "id": id, "reason": "blocked"})
		send(frame{"type": "response", "id": id, "status": "blocked", "text": "I cannot verify that.",
			"error": "Verification failed: Number mismatch", "citations": pricing,
			"numbers": []frame{{"text": "149", "canonical": "149", "kind": "integer", "grounded": false, "citation": -1}}})
	case strings.Contains(text, "$bidi"):
		// A hostile server (or knowledge base): bidi overrides in the
		// answer, which would show the 99 it verified as "99" in
		// another order, and in a file name and a snippet ("49 kr"
		// shown as "rk 94").
		send(frame{"type": "sources", "id": id, "citations": bidiSources})
		if !stream("Premium costs ", "\u202e9", "9\u202c kr", " per month.") {
			return
		}
		send(frame{"type": "stream_end", "id": id, "reason": "done"})
		send(frame{"type": "response", "id": id, "status": "verified", "text": bidiAnswer, "citations": bidiSources,
			"numbers": []frame{{"text": "99 kr", "canonical": "99", "kind": "integer", "grounded": true, "citation": 0}}})
	case strings.Contains(text, "$slow"):
		send(frame{"type": "sources", "id": id, "citations": pricing})
		for range 100 {
			if !stream("Premium ") {
				return
			}
		}
	case strings.Contains(strings.ToLower(text), "ärende"):
		send(frame{"type": "sources", "id": id, "citations": []frame{}})
		if !stream("Jag hittar inget stöd ", "i kunskapsbasen.") {
			return
		}
		send(frame{"type": "stream_end", "id": id, "reason": "done"})
		send(frame{"type": "response", "id": id, "status": "no_sources", "text": "Jag hittar inget stöd i kunskapsbasen.",
			"citations": []frame{}, "numbers": []frame{}})
		send(frame{"type": "action_suggestion", "id": id, "suggestionId": "s-" + id, "action": "create_ticket",
			"payload": frame{"subject": text}})
	default:
		send(frame{"type": "sources", "id": id, "citations": pricing})
		if !stream("Premium costs ", "9", "9 kr", " per month", " and Basic ", "4", "9 kr.") {
			return
		}
		send(frame{"type": "stream_end", "id": id, "reason": "done"})
		send(frame{"type": "response", "id": id, "status": "verified", "text": premiumAnswer, "citations": pricing,
			"numbers": []frame{
				{"text": "99", "canonical": "99", "kind": "integer", "grounded": true, "citation": 0},
				{"text": "49", "canonical": "49", "kind": "integer", "grounded": true, "citation": 1},
			}})
	}
}

func startSite(t *testing.T, opts Options) (*httptest.Server, *fakeWS) {
	t.Helper()
	ws := &fakeWS{delay: 60 * time.Millisecond, execd: map[string]bool{}}
	mux := http.NewServeMux()
	mux.Handle("/ws", ws)
	opts.Logger = quiet
	mux.Handle("/", Handler(opts))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, ws
}

// ---- page helpers -------------------------------------------------------------------

// recordBodies installs a MutationObserver that records the text of the
// latest answer's body after every DOM change, so that no intermediate state
// escapes.
const recordBodies = `(() => {
  window.__bodies = [];
  const snap = () => { const b = [...document.querySelectorAll(".msg.bot .body")].pop(); if (b) window.__bodies.push(b.textContent); };
  new MutationObserver(snap).observe(document.querySelector("#messages"), {subtree: true, childList: true, characterData: true});
  return true;
})()`

const lastStatus = `(() => { const s = [...document.querySelectorAll(".msg.bot .status")].pop(); return s ? s.dataset.status : ""; })()`

// sendAndWatch types text, sends it with Enter, and polls the last answer's
// body every few milliseconds until its status is final. It returns every
// body text it saw.
func sendAndWatch(t *testing.T, tab context.Context, text string) []string {
	t.Helper()
	webtest.Run(t, tab, chromedp.WaitVisible(chromedp.CSS("#send:not([disabled])")), chromedp.SendKeys(chromedp.CSS("#input"), text+kb.Enter))
	var seen []string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		snap := webtest.Eval[[]string](t, tab, `(() => { const m = [...document.querySelectorAll(".msg.bot")].pop(); return m ? [m.querySelector(".body").textContent, m.querySelector(".status").dataset.status] : ["", ""]; })()`)
		seen = append(seen, snap[0])
		if snap[1] != "" && snap[1] != "streaming" {
			return seen
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no final status for %q; bodies seen: %q; console: %q", text, seen, webtest.ConsoleErrors(tab))
	return nil
}

// ---- tests -------------------------------------------------------------------------

func TestBrowserGuardNeverShowsUngroundedNumber(t *testing.T) {
	tab := webtest.NewTab(t)
	wasm, execJS := realGuard(t)
	srv, ws := startSite(t, Options{WASM: wasm, WASMExec: execJS})

	webtest.Run(t, tab, chromedp.Navigate(srv.URL+"/?token=s3cret%20x&lang=en"))
	webtest.WaitFor(t, tab, `document.body.dataset.guard === "ready" && document.querySelector("#conn-state").dataset.state === "open"`)
	if webtest.Eval[bool](t, tab, `!document.querySelector("#guard-banner").hidden`) {
		t.Error("banner shown although the guard loaded")
	}
	webtest.Eval[bool](t, tab, recordBodies)

	// 1. The stream carries an ungrounded 149: it must never be on screen.
	polled := sendAndWatch(t, tab, "What does Premium cost? hallucinate")
	observed := webtest.Eval[[]string](t, tab, `window.__bodies`)
	for _, b := range append(polled, observed...) {
		if regexp.MustCompile(`\d`).MatchString(b) {
			t.Fatalf("an ungrounded number reached the screen: %q", b)
		}
	}
	t.Logf("blocked answer: %d polled and %d observed states, none with a digit", len(polled), len(observed))
	if !containsAny(observed, "[unverified number]") {
		t.Errorf("the marker was never shown while streaming; states %q", observed)
	}
	if s := webtest.Eval[string](t, tab, lastStatus); s != "blocked" {
		t.Errorf("status %q, want blocked", s)
	}
	line := webtest.Eval[string](t, tab, `[...document.querySelectorAll(".msg.bot .status .error-line")].pop().textContent`)
	if line != "Verification failed: Number mismatch" {
		t.Errorf("error line %q", line)
	}
	if n := webtest.Eval[int](t, tab, `[...document.querySelectorAll(".msg.bot")].pop().querySelectorAll(".citation").length`); n != 2 {
		t.Errorf("blocked answer shows %d citations, want 2", n)
	}
	webtest.Screenshot(t, tab, "blocked")

	// 2. A grounded answer: numbers marked with their citation.
	webtest.Eval[bool](t, tab, `(window.__bodies = [], true)`)
	sendAndWatch(t, tab, "What does Premium cost?")
	if s := webtest.Eval[string](t, tab, lastStatus); s != "verified" {
		t.Fatalf("status %q, want verified", s)
	}
	body := webtest.Eval[string](t, tab, `[...document.querySelectorAll(".msg.bot .body")].pop().textContent`)
	if body != premiumAnswer {
		t.Errorf("final body %q, want %q", body, premiumAnswer)
	}
	nums := webtest.Eval[[][]string](t, tab, `[...[...document.querySelectorAll(".msg.bot")].pop().querySelectorAll(".num")].map(n => [n.textContent, n.dataset.grounded, n.title])`)
	if len(nums) != 2 || nums[0][0] != "99 kr per month" || nums[0][1] != "true" || !strings.Contains(nums[0][2], "kb/pricing.md:3") ||
		nums[1][0] != "49 kr" || !strings.Contains(nums[1][2], "kb/pricing.md:4 — Basic costs 49 kr per month.") {
		t.Errorf("numbers %q", nums)
	}
	for _, b := range webtest.Eval[[]string](t, tab, `window.__bodies`) {
		if !strings.HasPrefix(premiumAnswer, b) && !strings.HasPrefix(b, "Premium costs 99") && b != "" {
			t.Errorf("intermediate body %q is not a prefix of the answer", b)
		}
	}

	// 3. A suggestion: confirm, confirm again, dismiss nothing.
	webtest.Run(t, tab, chromedp.Click(chromedp.CSS(`#examples .chip:nth-child(5)`)))
	webtest.WaitFor(t, tab, `document.querySelector(".suggestion button.confirm") !== null`)
	if s := webtest.Eval[string](t, tab, lastStatus); s != "no_sources" {
		t.Errorf("status %q, want no_sources", s)
	}
	webtest.Run(t, tab, chromedp.Click(chromedp.CSS(".suggestion button.confirm")))
	webtest.WaitFor(t, tab, `document.querySelectorAll(".action-result").length === 1 && !document.querySelector(".suggestion button.confirm").disabled`)
	webtest.Run(t, tab, chromedp.Click(chromedp.CSS(".suggestion button.confirm")))
	webtest.WaitFor(t, tab, `document.querySelectorAll(".action-result").length === 2`)
	results := webtest.Eval[[]string](t, tab, `[...document.querySelectorAll(".action-result")].map(r => r.textContent + "|" + r.dataset.ignored)`)
	if len(results) != 2 || !strings.HasPrefix(results[0], "Ticket created") || results[1] != "Already executed|true" {
		t.Errorf("action results %q", results)
	}
	webtest.Eval[bool](t, tab, `(document.querySelector("#examples").scrollLeft = 0, document.activeElement.blur(), true)`)
	webtest.Run(t, tab, chromedp.EmulateViewport(1000, 1280))
	webtest.Screenshot(t, tab, "verified")
	webtest.Run(t, tab, chromedp.EmulateViewport(1000, 800))

	// 4. Error frames are shown as text, never as HTML.
	sendAndWatch(t, tab, "$error")
	errText := webtest.Eval[string](t, tab, `[...document.querySelectorAll(".msg.bot .extras .error")].pop().textContent`)
	if errText != "too_large: message text is over 4000 characters <b>not bold</b>" {
		t.Errorf("error frame shown as %q", errText)
	}
	if webtest.Eval[int](t, tab, `document.querySelectorAll("#messages b").length`) != 0 {
		t.Error("server text was parsed as HTML")
	}

	// Frames about messages the page never sent change nothing on screen
	// but an error line.
	before := webtest.Eval[int](t, tab, `document.querySelectorAll(".msg.bot").length`)
	sendAndWatch(t, tab, "$ghost")
	if s := webtest.Eval[string](t, tab, lastStatus); s != "verified" {
		t.Errorf("after frames for unknown ids: status %q", s)
	}
	if n := webtest.Eval[int](t, tab, `document.querySelectorAll(".msg.bot").length`); n != before+1 {
		t.Errorf("%d answers, want %d", n, before+1)
	}
	if e := webtest.Eval[[]string](t, tab, `[...document.querySelectorAll("#errors li")].map(e => e.textContent)`); !slices.Contains(e, "internal: lost <i>ghost</i>") {
		t.Errorf("errors shown: %q", e)
	}
	if webtest.Eval[bool](t, tab, `document.body.textContent.includes("149") || document.querySelector("#messages i, #errors i") !== null`) {
		t.Error("a stray frame reached the screen")
	}

	// 5. Esc cancels a streaming answer.
	webtest.Run(t, tab, chromedp.SendKeys(chromedp.CSS("#input"), "$slow"+kb.Enter))
	webtest.WaitFor(t, tab, `!document.querySelector("#cancel").hidden`)
	webtest.Run(t, tab, chromedp.KeyEvent(kb.Escape))
	webtest.WaitFor(t, tab, `(`+lastStatus+`) === "cancelled" && document.querySelector("#cancel").hidden`)

	// 6. The connection drops and comes back by itself.
	webtest.Eval[bool](t, tab, `(window.__conn = [], new MutationObserver(() => window.__conn.push(document.querySelector("#conn-state").dataset.state)).observe(document.querySelector("#conn-state"), {attributes: true}), true)`)
	webtest.Run(t, tab, chromedp.SendKeys(chromedp.CSS("#input"), "$drop"+kb.Enter))
	webtest.WaitFor(t, tab, `window.__conn.includes("reconnecting") && document.querySelector("#conn-state").dataset.state === "open"`)

	// What the page sent.
	var langs, types []string
	for _, fr := range ws.received() {
		types = append(types, fmt.Sprint(fr["type"]))
		if fr["type"] == "message" {
			langs = append(langs, fmt.Sprint(fr["lang"]))
		}
	}
	wantTypes := "message message message confirm_action confirm_action message message message cancel message"
	if got := strings.Join(types, " "); got != wantTypes {
		t.Errorf("frames sent: %s\nwant:        %s", got, wantTypes)
	}
	if got := strings.Join(langs, " "); got != "en en sv en en en en" {
		t.Errorf("langs sent: %s", got)
	}
	ws.mu.Lock()
	urls := ws.urls
	ws.mu.Unlock()
	if len(urls) < 2 || urls[0] != "/ws?token=s3cret+x" {
		t.Errorf("WebSocket URLs %q, want /ws?token=s3cret+x and a reconnect", urls)
	}
	if errs := webtest.ConsoleErrors(tab); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

func TestBrowserFailsClosedWithoutGuard(t *testing.T) {
	tab := webtest.NewTab(t)
	srv, _ := startSite(t, Options{DisableWASM: true})

	webtest.Run(t, tab, chromedp.Navigate(srv.URL+"/?lang=sv"))
	webtest.WaitFor(t, tab, `document.body.dataset.guard === "unavailable" && document.querySelector("#conn-state").dataset.state === "open"`)
	banner := webtest.Eval[string](t, tab, `document.querySelector("#guard-banner").textContent`)
	if !strings.Contains(banner, "Servern verifierar fortfarande") || !strings.Contains(banner, "disabled") {
		t.Errorf("banner %q", banner)
	}
	if l := webtest.Eval[string](t, tab, `document.documentElement.lang + " " + document.querySelector("#send").textContent`); l != "sv Skicka" {
		t.Errorf("UI language: %q", l)
	}
	webtest.Eval[bool](t, tab, recordBodies)

	seen := sendAndWatch(t, tab, "Vad kostar premium?")
	for _, b := range append(seen, webtest.Eval[[]string](t, tab, `window.__bodies`)...) {
		if b != "" && b != premiumAnswer {
			t.Errorf("without the guard the page showed the unfinished stream: %q", b)
		}
	}
	if s := webtest.Eval[string](t, tab, lastStatus); s != "verified" {
		t.Errorf("status %q", s)
	}
	if n := webtest.Eval[int](t, tab, `document.querySelectorAll(".num[data-grounded=true]").length`); n != 2 {
		t.Errorf("%d grounded numbers marked, want 2", n)
	}

	// A blocked answer: its number is never shown, not even at the end.
	seen = sendAndWatch(t, tab, "hallucinate")
	for _, b := range seen {
		if strings.Contains(b, "149") {
			t.Fatalf("ungrounded number shown: %q", b)
		}
	}
	webtest.Screenshot(t, tab, "fail-closed")

	// Switch the UI language back.
	webtest.Run(t, tab, chromedp.Click(chromedp.CSS(`#lang button[data-lang="en"]`)))
	if l := webtest.Eval[string](t, tab, `document.documentElement.lang + " " + document.querySelector("#send").textContent + " " + document.querySelector(".msg.bot .status .label").textContent`); l != "en Send Verified" {
		t.Errorf("after switching: %q", l)
	}
	if errs := webtest.ConsoleErrors(tab, "503", "guardrail.wasm", "WASM guard unavailable"); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

func TestBrowserPhoneLayout(t *testing.T) {
	tab := webtest.NewTab(t)
	wasm, execJS := realGuard(t)
	srv, _ := startSite(t, Options{WASM: wasm, WASMExec: execJS})
	webtest.Run(t, tab,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)),
		chromedp.Navigate(srv.URL+"/"),
	)
	webtest.WaitFor(t, tab, `document.body.dataset.guard === "ready" && document.querySelector("#conn-state").dataset.state === "open"`)
	sendAndWatch(t, tab, "What does Premium cost?")
	if w := webtest.Eval[[]int](t, tab, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
		t.Errorf("page scrolls sideways on a phone: scrollWidth %d > innerWidth %d", w[0], w[1])
	}
	// Every control is reachable and labelled.
	unlabelled := webtest.Eval[[]string](t, tab, `[...document.querySelectorAll("button, textarea")].filter(e => !(e.textContent.trim() || e.getAttribute("aria-label") || document.querySelector("label[for='" + e.id + "']"))).map(e => e.outerHTML.slice(0, 80))`)
	if len(unlabelled) > 0 {
		t.Errorf("controls without a label: %q", unlabelled)
	}
	webtest.Screenshot(t, tab, "phone")
}

func containsAny(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestBrowserBidiControls: nothing on the page shows in another order than
// it was verified (issue 27). An answer with a bidi override is blocked by
// the page's guard, whatever the server said, and no control reaches the
// screen; file names and snippets show their controls as escapes, in
// isolation, and every character of the answer, the file names and the
// snippets is laid out left to right in the order it is stored.
func TestBrowserBidiControls(t *testing.T) {
	tab := webtest.NewTab(t)
	wasm, execJS := realGuard(t)
	srv, _ := startSite(t, Options{WASM: wasm, WASMExec: execJS})
	webtest.Run(t, tab, chromedp.Navigate(srv.URL+"/?lang=en"))
	webtest.WaitFor(t, tab, `document.body.dataset.guard === "ready" && document.querySelector("#conn-state").dataset.state === "open"`)
	webtest.Eval[bool](t, tab, recordBodies)

	polled := sendAndWatch(t, tab, "$bidi")
	controls := regexp.MustCompile(`\p{Cf}`)
	for _, b := range append(polled, webtest.Eval[[]string](t, tab, `window.__bodies`)...) {
		if controls.MatchString(b) {
			t.Fatalf("a format control reached the screen: %q", b)
		}
	}
	if s := webtest.Eval[string](t, tab, lastStatus); s != "blocked" {
		t.Errorf("status %q, want blocked (the page's guard, though the server said verified)", s)
	}
	const bot = `[...document.querySelectorAll(".msg.bot")].pop()`
	files := webtest.Eval[[]string](t, tab, `[...`+bot+`.querySelectorAll(".citation .file")].map(e => e.tagName + " " + e.dir + " " + e.textContent)`)
	snippets := webtest.Eval[[]string](t, tab, `[...`+bot+`.querySelectorAll(".citation .snippet")].map(e => e.tagName + " " + e.dir + " " + e.textContent)`)
	if want := []string{`BDI ltr kb/\u202Eprices.md:3`, `BDI ltr kb/basic.md:4`}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if want := []string{`BDI ltr Premium costs 99 kr per month.`, `BDI ltr Basic costs \u202E49 kr\u202C per month.`}; !slices.Equal(snippets, want) {
		t.Errorf("snippets %q, want %q", snippets, want)
	}
	for _, title := range webtest.Eval[[]string](t, tab, `[...`+bot+`.querySelectorAll(".body .num")].map(n => n.title)`) {
		if controls.MatchString(title) {
			t.Errorf("a control in a title: %q", title)
		}
	}
	if bad := webtest.Eval[[]string](t, tab, webtest.ShownOutOfOrder+`(".msg.bot .body, .citation .file, .citation .snippet")`); len(bad) > 0 {
		t.Errorf("shown out of order: %q", bad)
	}
	webtest.Screenshot(t, tab, "bidi")
}
