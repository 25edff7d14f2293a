package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/groundwire/groundwire/web/webtest"
)

// What the page does around the language it sends, a new message the
// server refuses, and a cancel's suggestions (found by a tester who tried
// the page as a user).

// TestBrowserDetectsLanguage: until the reader uses the EN/SV switch (or
// ?lang=), the page sends no lang, so Swedish typed on an English page is
// answered in Swedish; once they use it, their choice is sent and answers
// come in it.
func TestBrowserDetectsLanguage(t *testing.T) {
	p := openPage(t)
	p.run(chromedp.Navigate(p.ts.url("/")))
	webtest.WaitForWithin(t, p.tab, `document.body.dataset.guard === "ready" && document.querySelector("#conn-state").dataset.state === "open"`, browserPageOpenedIn)
	if l := p.str(`document.documentElement.lang`); l != "en" {
		t.Fatalf("page language %q, want en (the browser's)", l)
	}
	p.ask("Hur många månar har Jupiter?")
	if b := p.body(); b != "Jag hittar inget stöd i kunskapsbasen." {
		t.Errorf("Swedish on the English page: %q, want the Swedish no-references sentence", b)
	}
	p.ask("Vad kostar premium?")
	if files, _ := p.citations(); !slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, "kb/sv/") }) {
		t.Errorf("Swedish on the English page: citations %q, want the Swedish files", files)
	}
	// The reader chooses English: it is sent, and answers come in English.
	p.run(chromedp.Click(chromedp.CSS(`#lang button[data-lang="en"]`)))
	p.ask("Hur många månar har Jupiter?")
	if b := p.body(); b != "I couldn't find any references to this in the knowledge base." {
		t.Errorf("English chosen: %q, want the English no-references sentence", b)
	}
}

// TestBrowserRefusedMessageKeepsAnswer: a new message the server refuses
// (rate_limited) does not cancel the one streaming: the page shows that
// one's answer when it comes, and the refusal on the new one.
func TestBrowserRefusedMessageKeepsAnswer(t *testing.T) {
	p := openPage(t, func(c *config) {
		c.NoRateLimit, c.Rate, c.Burst = false, 0.01, 1 // the second message within 100 s is refused
		c.TokenDelay = delayRange{150 * time.Millisecond, 200 * time.Millisecond}
	})
	p.type_("What does Premium cost?")
	p.waitFor(lastBot + `.querySelector(".body").textContent.length > 0`)
	p.type_("What does Basic cost?")
	p.waitFor(`[...document.querySelectorAll(".msg.bot .status")].map(s => s.dataset.status).join(" ") === "verified error"`)
	first := p.str(`document.querySelector(".msg.bot .body").textContent`)
	if !strings.Contains(first, "399") {
		t.Errorf("the first answer %q, want its price", first)
	}
	if c := p.str(`[...document.querySelectorAll(".msg.bot")].pop().querySelector(".extras .error")?.dataset.code ?? ""`); c != "rate_limited" {
		t.Errorf("the refused message shows %q, want rate_limited", c)
	}
}

// TestBrowserCancelWithdrawsSuggestions: a card not confirmed yet is
// withdrawn when an answer the reader cancelled ends (the server withdrew
// it with the cancel): no Confirm the server would refuse.
func TestBrowserCancelWithdrawsSuggestions(t *testing.T) {
	p := openPage(t, func(c *config) { c.TokenDelay = delayRange{150 * time.Millisecond, 200 * time.Millisecond} })
	p.ask("Please call me back on +46 70 123 45 67")
	p.waitFor(`document.querySelector(".suggestion") !== null`)
	p.type_("What does Premium cost?")
	p.waitFor(lastBot + `.querySelector(".body").textContent.length > 0`)
	p.run(chromedp.Click(chromedp.CSS("#cancel")))
	p.waitFor(lastBot + `.querySelector(".status").dataset.status === "cancelled"`)
	p.waitFor(`document.querySelector(".suggestion").dataset.withdrawn === "true"`)
	if !webtest.Eval[bool](t, p.tab, `document.querySelector(".suggestion [data-testid=confirm]").disabled`) {
		t.Error("Confirm is still enabled on a withdrawn card")
	}
	if w := p.str(`document.querySelector(".suggestion .withdrawn").textContent`); !strings.Contains(w, "cancelled answer") {
		t.Errorf("note %q", w)
	}
}

// TestBrowserTitlesFollowLanguage: a number's title (what grounds it) is
// relabelled when the reader switches the language, as the rest of the
// page is.
func TestBrowserTitlesFollowLanguage(t *testing.T) {
	p := openPage(t)
	p.ask("What does Premium cost?")
	title := func() string {
		return p.str(`[...` + lastBot + `.querySelectorAll(".num")].find(n => n.textContent.startsWith("399"))?.title ?? ""`)
	}
	if got := title(); !strings.HasPrefix(got, "Grounded in kb/en/") {
		t.Fatalf("title %q", got)
	}
	p.run(chromedp.Click(chromedp.CSS(`#lang button[data-lang="sv"]`)))
	p.waitFor(`document.documentElement.lang === "sv"`)
	if got := title(); !strings.HasPrefix(got, "Stöds av kb/en/") {
		t.Errorf("after switching to Swedish: title %q", got)
	}
}
