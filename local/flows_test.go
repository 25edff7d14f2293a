package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
)

// Protocol flows of SPEC §4–7, end to end over a real WebSocket.

// checkFlow checks the order sources → stream… → stream_end → response of
// one message and returns its response.
func checkFlow(t *testing.T, fs []frame, id, wantReason, wantStatus string) frame {
	t.Helper()
	got := types(fs)
	want := "sources stream… stream_end response"
	if !strings.HasPrefix(got, "sources") || !strings.HasSuffix(got, "stream_end response") {
		t.Fatalf("flow = %q, want %q", got, want)
	}
	for _, f := range fs {
		if f.ID != id {
			t.Fatalf("frame %v is not about %s", f, id)
		}
	}
	end, resp := fs[len(fs)-2], fs[len(fs)-1]
	if end.Reason != wantReason || resp.Status != wantStatus {
		t.Fatalf("stream_end %s, response %s; want %s, %s (%v)", end.Reason, resp.Status, wantReason, wantStatus, resp)
	}
	if len(resp.Citations) != len(fs[0].Citations) {
		t.Fatalf("response cites %d snippets, sources sent %d", len(resp.Citations), len(fs[0].Citations))
	}
	for i := range resp.Citations {
		if resp.Citations[i] != fs[0].Citations[i] {
			t.Fatalf("citation %d = %+v, sources had %+v", i, resp.Citations[i], fs[0].Citations[i])
		}
	}
	if wantStatus != lambda.StatusBlocked && resp.Text != deltas(fs, id) {
		t.Fatalf("response text %q != streamed %q", resp.Text, deltas(fs, id))
	}
	return resp
}

// checkGrounded checks that the response grounds want with a citation that
// holds it.
func checkGrounded(t *testing.T, resp frame, want string) {
	t.Helper()
	found := false
	for _, n := range resp.Numbers {
		if !n.Grounded {
			t.Errorf("number %+v not grounded in a verified response", n)
			continue
		}
		if n.Citation < 0 || n.Citation >= len(resp.Citations) {
			t.Fatalf("number %+v cites nothing", n)
		}
		if n.Canonical == want {
			found = true
			if !strings.Contains(resp.Citations[n.Citation].Snippet, want) {
				t.Errorf("%s cites %+v, which does not hold it", want, resp.Citations[n.Citation])
			}
		}
	}
	if !found {
		t.Fatalf("no number %s in %+v", want, resp.Numbers)
	}
}

func TestPriceQuestion(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "/", nil) // the upgrade on / works like /ws
	c.message("m1", "What does Premium cost?")
	fs := c.answer("m1")
	resp := checkFlow(t, fs, "m1", lambda.ReasonDone, lambda.StatusVerified)
	if !strings.Contains(resp.Text, "399") {
		t.Fatalf("answer %q has no 399", resp.Text)
	}
	checkGrounded(t, resp, "399")
	if !strings.HasPrefix(resp.Citations[0].File, "kb/en/") || resp.Citations[0].Line < 1 {
		t.Fatalf("first citation %+v", resp.Citations[0])
	}
	c.quiet(100 * time.Millisecond) // no action suggestion
}

func TestSwedishQuestion(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	c.message("s1", "Vad kostar Premium per månad?")
	resp := checkFlow(t, c.answer("s1"), "s1", lambda.ReasonDone, lambda.StatusVerified)
	checkGrounded(t, resp, "399")
	if !strings.HasPrefix(resp.Citations[0].File, "kb/sv/") || !strings.Contains(resp.Text, "månad") {
		t.Fatalf("not answered in Swedish from kb/sv: %q %+v", resp.Text, resp.Citations[0])
	}
}

func TestNoReferences(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	for _, tc := range []struct{ lang, text, want string }{
		{"", "What is the capital of France?", "I couldn't find any references to this in the knowledge base."},
		{"sv", "Vem vann fotbolls-VM?", "Jag hittar inget stöd i kunskapsbasen."},
	} {
		c.send(map[string]string{"type": "message", "id": "n" + tc.lang, "text": tc.text, "lang": tc.lang})
		fs := c.answer("n" + tc.lang)
		resp := checkFlow(t, fs, "n"+tc.lang, lambda.ReasonDone, lambda.StatusNoSources)
		if len(fs[0].Citations) != 0 || resp.Text != tc.want {
			t.Fatalf("sources %+v, text %q; want none and %q", fs[0].Citations, resp.Text, tc.want)
		}
	}
}

// unverified reports whether streamed text holds a number that the
// citations do not ground.
func unverified(text string, cites []lambda.Citation) bool {
	var srcs []string
	for _, c := range cites {
		srcs = append(srcs, c.Snippet)
	}
	return !guardrail.VerifyStrings(text, srcs).Grounded
}

func TestHallucinationBlockedInHoldMode(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	c.message("h1", "hallucinate: what does Premium cost per month?")
	fs := c.answer("h1")
	resp := checkFlow(t, fs, "h1", lambda.ReasonBlocked, lambda.StatusBlocked)
	if resp.Text != "I cannot verify that." || resp.Error != "Verification failed: Number mismatch" {
		t.Fatalf("blocked response %q / %q", resp.Text, resp.Error)
	}
	if len(resp.Citations) == 0 {
		t.Fatal("a blocked answer still shows its citations")
	}
	if streamed := deltas(fs, "h1"); unverified(streamed, resp.Citations) {
		t.Fatalf("hold mode streamed an ungrounded number: %q", streamed)
	}
	blocked := false
	for _, n := range resp.Numbers {
		blocked = blocked || !n.Grounded && n.Citation == -1
	}
	if !blocked {
		t.Fatalf("no ungrounded number in %+v", resp.Numbers)
	}
}

func TestAfterMode(t *testing.T) {
	ts := startServer(t, func(c *config) { c.Mode = lambda.ModeAfter })
	c := ts.dial(t, "", nil)
	c.message("a1", "hallucinate: what does Premium cost per month?")
	fs := c.answer("a1")
	resp := checkFlow(t, fs, "a1", lambda.ReasonBlocked, lambda.StatusBlocked)
	if streamed := deltas(fs, "a1"); !unverified(streamed, resp.Citations) {
		t.Fatalf("after mode streams everything, the wrong number too: %q", streamed)
	}
	c.message("a2", "What does Premium cost?")
	checkGrounded(t, checkFlow(t, c.answer("a2"), "a2", lambda.ReasonDone, lambda.StatusVerified), "399")
}

// slow is a token delay long enough to act mid-stream: the mock's answer to
// "What does Premium cost?" is one cited sentence of 5 tokens, so the client
// has 4 × 40 ms after the first stream frame.
func slow(c *config) { c.TokenDelay = delayRange{40 * time.Millisecond, 40 * time.Millisecond} }

func TestCancelMidStream(t *testing.T) {
	ts := startServer(t, slow)
	c := ts.dial(t, "", nil)
	c.message("c1", "What does Premium cost?")
	c.until(func(f frame) bool { return f.Type == "stream" })
	c.send(`{"type":"cancel","id":"c1"}`)
	fs := c.until(func(f frame) bool { return f.Type == "stream_end" })
	if end := fs[len(fs)-1]; end.ID != "c1" || end.Reason != lambda.ReasonCancelled {
		t.Fatalf("got %v", end)
	}
	c.quiet(200 * time.Millisecond) // no response, no suggestion
	c.send(`{"type":"cancel"}`)     // nothing active: nothing sent
	c.quiet(50 * time.Millisecond)

	// Ready for the next message at once.
	c.message("c2", "What does Premium cost?")
	checkFlow(t, c.answer("c2"), "c2", lambda.ReasonDone, lambda.StatusVerified)
}

func TestNewMessageSupersedes(t *testing.T) {
	ts := startServer(t, slow)
	c := ts.dial(t, "", nil)
	c.message("old", "What does Premium cost?")
	c.until(func(f frame) bool { return f.Type == "stream" })
	c.message("new", "Vad kostar Premium per månad?")
	fs := c.until(func(f frame) bool { return f.ID == "new" && f.Type == "response" })
	var endOld, firstNew = -1, -1
	for i, f := range fs {
		if f.ID == "old" && (f.Type == "response" || f.Type == "stream_end" && f.Reason != lambda.ReasonCancelled) {
			t.Fatalf("superseded answer went on: %v", f)
		}
		if f.ID == "old" && f.Type == "stream_end" {
			endOld = i
		}
		if f.ID == "new" && firstNew < 0 {
			firstNew = i
		}
	}
	if endOld < 0 || endOld > firstNew {
		t.Fatalf("want stream_end cancelled for old before anything of new: %v", fs)
	}
	var newFrames []frame
	for _, f := range fs {
		if f.ID == "new" {
			newFrames = append(newFrames, f)
		}
	}
	checkFlow(t, newFrames, "new", lambda.ReasonDone, lambda.StatusVerified)
}

var suggestionID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// suggest asks for a callback and returns the suggestion.
func suggest(t *testing.T, c *wsClient, id string) frame {
	t.Helper()
	c.message(id, "Please call me on +46 70 123 45 67")
	checkFlow(t, c.answer(id), id, lambda.ReasonDone, lambda.StatusVerified)
	f, ok := c.next(5 * time.Second)
	if !ok || f.Type != "action_suggestion" || f.ID != id {
		t.Fatalf("want action_suggestion, got %v", f)
	}
	if f.Action != lambda.ActionScheduleCallback || f.Payload["phone"] != "+46 70 123 45 67" || !suggestionID.MatchString(f.SuggestionID) {
		t.Fatalf("suggestion %+v", f)
	}
	return f
}

func confirm(t *testing.T, c *wsClient, sid string) lambda.ActionResult {
	t.Helper()
	c.send(map[string]string{"type": "confirm_action", "suggestionId": sid})
	f, ok := c.next(5 * time.Second)
	if !ok || f.Type != "action_executed" || f.SuggestionID != sid {
		t.Fatalf("want action_executed, got %v", f)
	}
	return f.Result
}

func TestActionConfirm(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	s := suggest(t, c, "x1")
	r := confirm(t, c, s.SuggestionID)
	if !r.Success || r.Ignored || r.Message != "Callback scheduled to +46 70 123 45 67" {
		t.Fatalf("first confirm: %+v", r)
	}
	r = confirm(t, c, s.SuggestionID)
	if want := (lambda.ActionResult{Success: true, Ignored: true, Message: lambda.MsgAlreadyExecuted}); r != want {
		t.Fatalf("second confirm: %+v, want %+v", r, want)
	}
	if n := ts.exec.n.Load(); n != 1 {
		t.Fatalf("executed %d times", n)
	}
}

func TestRacingConfirms(t *testing.T) {
	ts := startServer(t)
	ts.exec.delay = 100 * time.Millisecond // both confirms arrive while the first executes
	c := ts.dial(t, "", nil)
	s := suggest(t, c, "r1")
	frame := `{"type":"confirm_action","suggestionId":"` + s.SuggestionID + `"}`
	c.send(frame)
	c.send(frame)
	var executed, ignored int
	for range 2 {
		f, ok := c.next(5 * time.Second)
		if !ok || f.Type != "action_executed" {
			t.Fatalf("got %v", f)
		}
		switch {
		case f.Result.Success && !f.Result.Ignored:
			executed++
		case f.Result.Success && f.Result.Ignored:
			ignored++
		}
	}
	if executed != 1 || ignored != 1 || ts.exec.n.Load() != 1 {
		t.Fatalf("executed %d, ignored %d, executor ran %d times", executed, ignored, ts.exec.n.Load())
	}
}

func TestConfirmFromAnotherConnection(t *testing.T) {
	ts := startServer(t)
	a := ts.dial(t, "", nil)
	b := ts.dial(t, "", nil)
	s := suggest(t, a, "o1")
	r := confirm(t, b, s.SuggestionID)
	if want := (lambda.ActionResult{Message: lambda.MsgUnknown}); r != want {
		t.Fatalf("confirm from another connection: %+v, want %+v", r, want)
	}
	if ts.exec.n.Load() != 0 {
		t.Fatal("executed from another connection")
	}
	if r := confirm(t, a, s.SuggestionID); !r.Success || r.Ignored {
		t.Fatalf("the owner's confirm: %+v", r)
	}
}

func TestSuggestionExpires(t *testing.T) {
	ts := startServer(t, func(c *config) { c.SuggestWindow = 100 * time.Millisecond })
	c := ts.dial(t, "", nil)
	s := suggest(t, c, "e1")
	time.Sleep(150 * time.Millisecond)
	if r := confirm(t, c, s.SuggestionID); r != (lambda.ActionResult{Message: lambda.MsgExpired}) {
		t.Fatalf("late confirm: %+v", r)
	}
	if ts.exec.n.Load() != 0 {
		t.Fatal("an expired suggestion executed")
	}
}

func TestCancelWithdrawsSuggestions(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "", nil)
	s := suggest(t, c, "w1")
	c.send(`{"type":"cancel"}`)
	if r := confirm(t, c, s.SuggestionID); r != (lambda.ActionResult{Message: lambda.MsgCancelled}) {
		t.Fatalf("confirm after cancel: %+v", r)
	}
}
