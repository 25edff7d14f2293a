package lambda_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

func TestDetectAction(t *testing.T) {
	long := "Create ticket " + strings.Repeat("x", 300)
	for _, c := range []struct {
		text, action string
		payload      map[string]string
	}{
		{"Can you call me at +46 70 123 45 67?", lambda.ActionScheduleCallback, map[string]string{"phone": "+46 70 123 45 67"}},
		{"CALL ME please", lambda.ActionScheduleCallback, map[string]string{}},
		{"please call back", lambda.ActionScheduleCallback, map[string]string{}},
		{"Call person in charge", lambda.ActionScheduleCallback, map[string]string{}},
		{"Ring mig på 070-123 45 67", lambda.ActionScheduleCallback, map[string]string{"phone": "070-123 45 67"}},
		{"kan ni ring upp?", lambda.ActionScheduleCallback, map[string]string{}},
		{"Send SMS to +46 70 123 45 67", lambda.ActionSendSMS, map[string]string{"phone": "+46 70 123 45 67"}},
		{"text me the price", lambda.ActionSendSMS, map[string]string{}},
		{"Skicka SMS till 070-123 45 67", lambda.ActionSendSMS, map[string]string{"phone": "070-123 45 67"}},
		{"kan du sms:a mig?", lambda.ActionSendSMS, map[string]string{}},
		{"Please open ticket: invoice wrong", lambda.ActionCreateTicket, map[string]string{"subject": "Please open ticket: invoice wrong"}},
		{"create ticket", lambda.ActionCreateTicket, map[string]string{"subject": "create ticket"}},
		{"Skapa ärende om fakturan", lambda.ActionCreateTicket, map[string]string{"subject": "Skapa ärende om fakturan"}},
		{"Öppna ärende", lambda.ActionCreateTicket, map[string]string{"subject": "Öppna ärende"}},
		{"öppna ticket nu", lambda.ActionCreateTicket, map[string]string{"subject": "öppna ticket nu"}},
		{long, lambda.ActionCreateTicket, map[string]string{"subject": long[:200]}},
		{"text me, then create ticket", lambda.ActionSendSMS, map[string]string{}}, // earliest wins
		{"How much does Premium cost?", "", nil},
		{"recall me later", "", nil},    // not a whole word
		{"call meeting notes", "", nil}, // not a whole word
		{"the sms:api docs", "", nil},
	} {
		action, payload := lambda.DetectAction(c.text)
		if action != c.action || len(payload) != len(c.payload) {
			t.Errorf("DetectAction(%q) = %q %v, want %q %v", c.text, action, payload, c.action, c.payload)
			continue
		}
		for k, v := range c.payload {
			if payload[k] != v {
				t.Errorf("DetectAction(%q) payload %v, want %v", c.text, payload, c.payload)
			}
		}
	}
}

// suggest sends a message that asks for an action and returns the
// suggestion id.
func suggest(t *testing.T, hs *harness, conn, id, text string) string {
	t.Helper()
	hs.send(conn, msg(id, text))
	s := last(hs.frames(conn), lambda.TypeActionSuggestion)
	if s.SuggestionID == "" || s.ID != id {
		t.Fatalf("no suggestion for %s: %s", id, hs.summary(conn))
	}
	if len(s.SuggestionID) != 32 || strings.Trim(s.SuggestionID, "0123456789abcdef") != "" {
		t.Fatalf("suggestion id %q is not 128 bits of hex", s.SuggestionID)
	}
	return s.SuggestionID
}

func result(t *testing.T, hs *harness, conn string) lambda.ActionResult {
	t.Helper()
	f := last(hs.frames(conn), lambda.TypeActionExecuted)
	return f.Result
}

func TestActionFlow(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	sid := suggest(t, hs, "c1", "m1", "Please call me at +46 70 123 45 67")
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:no_sources action_suggestion:m1:schedule_callback"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if p := last(hs.frames("c1"), lambda.TypeActionSuggestion).Payload; p["phone"] != "+46 70 123 45 67" {
		t.Fatalf("payload %v", p)
	}

	hs.clock.Advance(29 * time.Second)
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Success: true, Message: "Callback scheduled to +46 70 123 45 67"}) {
		t.Fatalf("confirm: %+v", r)
	}
	f := last(hs.frames("c1"), lambda.TypeActionExecuted)
	if f.SuggestionID != sid {
		t.Fatalf("action_executed for %q", f.SuggestionID)
	}

	hs.clock.Advance(30 * time.Second) // 30 s after execution: still a repeat
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Success: true, Ignored: true, Message: "Already executed"}) {
		t.Fatalf("repeat: %+v", r)
	}

	hs.clock.Advance(time.Second) // more than 30 s after execution
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Message: "Suggestion expired"}) {
		t.Fatalf("late repeat: %+v", r)
	}
}

func TestActionExpired(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	sid := suggest(t, hs, "c1", "m1", "skicka sms till 070-123 45 67")
	hs.clock.Advance(30*time.Second + time.Millisecond)
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Message: "Suggestion expired"}) {
		t.Fatalf("expired: %+v", r)
	}
}

func TestActionUnknownAndForeign(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.connect("c2")
	sid := suggest(t, hs, "c1", "m1", "create ticket: the invoice is wrong")
	hs.send("c2", confirm(sid))
	if r := result(t, hs, "c2"); r != (lambda.ActionResult{Message: "Unknown suggestion"}) {
		t.Fatalf("foreign: %+v", r)
	}
	hs.send("c1", confirm("00112233445566778899aabbccddeeff"))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Message: "Unknown suggestion"}) {
		t.Fatalf("unknown: %+v", r)
	}
	hs.send("c1", confirm(sid)) // the owner still can
	if r := result(t, hs, "c1"); !r.Success || !strings.HasPrefix(r.Message, "Ticket created: GW-") {
		t.Fatalf("owner: %+v", r)
	}
}

func TestSuggestionAfterBlockedAnswer(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", "$say Premium costs 499 kr. Text me"))
	if got, want := withoutStream(hs.frames("c1")), "sources:m1 stream_end:m1:blocked response:m1:blocked action_suggestion:m1:send_sms"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

func TestNoSuggestionAfterCancel(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "Premium price? call me")
	hs.send("c1", cancel("m1"))
	g.release()
	<-done
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

func TestCancelWithdrawsSuggestions(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	g.release()
	sid := suggest(t, hs, "c1", "m1", "call me about Premium")
	g2 := newGateModel("Premium", " costs", " 399", " kr.")
	hs2 := gateHarness(t, g2, func(cfg *lambda.Config) { cfg.Store = hs.store; cfg.Sender = hs.sender })
	done := streaming(t, hs2, g2, "c1", "m2", "Premium?")
	hs2.send("c1", cancel(""))
	<-done
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Message: "Suggestion cancelled"}) {
		t.Fatalf("after cancel: %+v", r)
	}

	// a cancel without id and nothing active still withdraws, silently
	sid = suggest(t, hs, "c1", "m3", "call me about Premium")
	n := len(hs.frames("c1"))
	hs.send("c1", cancel(""))
	if len(hs.frames("c1")) != n {
		t.Fatalf("cancel with nothing active sent %s", hs.summary("c1"))
	}
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r.Message != "Suggestion cancelled" {
		t.Fatalf("after idle cancel: %+v", r)
	}

	// a cancel naming another id does nothing
	sid = suggest(t, hs, "c1", "m4", "call me about Premium")
	hs.send("c1", cancel("m4"))
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); !r.Success {
		t.Fatalf("cancel of a finished id withdrew: %+v", r)
	}
}

func TestRacingConfirms(t *testing.T) {
	x := &countingExecutor{}
	execs := map[string]lambda.Executor{lambda.ActionSendSMS: x}
	a := newHarness(t, func(cfg *lambda.Config) { cfg.Executors = execs })
	b := newHarness(t, func(cfg *lambda.Config) {
		cfg.Executors = execs
		cfg.Store = a.store
		cfg.Sender = a.sender
		cfg.Clock = a.clock
	})
	a.connect("c1")
	sid := suggest(t, a, "c1", "m1", "text me")
	a.sender.Reset("c1")
	var wg sync.WaitGroup
	for i := range 16 {
		hs := a
		if i%2 == 1 {
			hs = b // another instance
		}
		wg.Add(1)
		go func() { defer wg.Done(); hs.send("c1", confirm(sid)) }()
	}
	wg.Wait()
	if x.count() != 1 {
		t.Fatalf("executed %d times", x.count())
	}
	executed, ignored := 0, 0
	for _, f := range a.frames("c1") {
		switch {
		case f.Result.Success && !f.Result.Ignored && f.Result.Message == "done send_sms":
			executed++
		case f.Result == (lambda.ActionResult{Success: true, Ignored: true, Message: "Already executed"}):
			ignored++
		default:
			t.Fatalf("unexpected frame %+v", f)
		}
	}
	if executed != 1 || ignored != 15 {
		t.Fatalf("executed %d, ignored %d", executed, ignored)
	}
}

func TestExecutingActionSurvivesCancelAndDisconnect(t *testing.T) {
	x := &countingExecutor{gate: make(chan struct{}), begun: make(chan struct{})}
	hs := newHarness(t, func(cfg *lambda.Config) {
		cfg.Executors = map[string]lambda.Executor{lambda.ActionScheduleCallback: x}
	})
	hs.connect("c1")
	sid := suggest(t, hs, "c1", "m1", "call me")
	done := hs.sendAsync("c1", confirm(sid))
	<-x.begun
	hs.send("c1", cancel(""))
	x.gate <- struct{}{}
	<-done
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Success: true, Message: "done schedule_callback"}) {
		t.Fatalf("result: %+v", r)
	}

	sid = suggest(t, hs, "c1", "m2", "call me")
	done = hs.sendAsync("c1", confirm(sid))
	<-x.begun
	n := len(hs.frames("c1"))
	hs.disconnect("c1")
	x.gate <- struct{}{}
	<-done
	if x.count() != 2 || len(hs.frames("c1")) != n {
		t.Fatalf("executions %d; frames after disconnect: %s", x.count(), hs.summary("c1"))
	}
}

func TestConfirmStoreFailure(t *testing.T) {
	fs := &faultyStore{Store: lambda.NewMemStore()}
	x := &countingExecutor{}
	hs := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = fs
		cfg.Executors = map[string]lambda.Executor{lambda.ActionScheduleCallback: x}
	})
	hs.connect("c1")
	sid := suggest(t, hs, "c1", "m1", "call me")
	fs.setFail("ClaimSuggestion", true)
	hs.send("c1", confirm(sid))
	if r := result(t, hs, "c1"); r != (lambda.ActionResult{Message: lambda.MsgNotConfirmed}) || x.count() != 0 {
		t.Fatalf("result %+v, executions %d", r, x.count())
	}
	fs.setFail("ClaimSuggestion", false)
	hs.send("c1", confirm(sid)) // trying again works
	if r := result(t, hs, "c1"); !r.Success || x.count() != 1 {
		t.Fatalf("retry: %+v, executions %d", r, x.count())
	}
}

func TestSuggestionStoreFailure(t *testing.T) {
	fs := &faultyStore{Store: lambda.NewMemStore()}
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.Store = fs })
	hs.connect("c1")
	fs.setFail("PutSuggestion", true)
	hs.send("c1", msg("m1", "call me"))
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:no_sources error:m1:internal"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if e := last(hs.frames("c1"), lambda.TypeError); e.Message != "Internal error." {
		t.Fatalf("error frame %+v", e)
	}
}

func TestDefaultExecutors(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	for _, c := range []struct{ text, want string }{
		{"send sms to +46 70 123 45 67", "SMS sent to +46 70 123 45 67"},
		{"text me", "SMS sent to the phone number on your account"},
		{"call me", "Callback scheduled to the phone number on your account"},
		{"ring mig på 070-123 45 67", "Callback scheduled to 070-123 45 67"},
	} {
		sid := suggest(t, hs, "c1", "m", c.text)
		hs.send("c1", confirm(sid))
		if r := result(t, hs, "c1"); r != (lambda.ActionResult{Success: true, Message: c.want}) {
			t.Errorf("%q: %+v", c.text, r)
		}
	}
}
