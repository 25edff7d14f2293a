package lambda_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// Fuzz tests of the handler (README "Security review"): any client frame,
// and any sequence of events over a few connections, never panics and
// always answers within the protocol.

var serverTypes = map[string]bool{
	lambda.TypeSources: true, lambda.TypeStream: true, lambda.TypeStreamEnd: true, lambda.TypeResponse: true,
	lambda.TypeActionSuggestion: true, lambda.TypeActionExecuted: true, lambda.TypeError: true,
}

var errorCodes = map[string]bool{
	lambda.EBadRequest: true, lambda.EUnknownType: true, lambda.ETooLarge: true, lambda.ERateLimited: true, lambda.EInternal: true,
}

// checkFrames checks what any sequence of server frames to one connection
// must satisfy, and returns problems. complete: every message in ids must
// have ended (one stream_end, or an error about it).
func checkFrames(raw [][]byte, ids []string, complete bool) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	byID := map[string][]lambdatest.Frame{}
	for _, b := range raw {
		var f lambdatest.Frame
		if err := json.Unmarshal(b, &f); err != nil {
			bad("frame is not JSON: %q", b)
			continue
		}
		if !serverTypes[f.Type] {
			bad("unknown frame type %q", f.Type)
		}
		if f.Type == lambda.TypeError && !errorCodes[f.Code] {
			bad("unknown error code %q", f.Code)
		}
		if f.Type != lambda.TypeActionExecuted && f.Type != lambda.TypeError && f.ID == "" {
			bad("%s without an id", f.Type)
		}
		byID[f.ID] = append(byID[f.ID], f)
	}
	for id, fs := range byID {
		var ends, resps int
		var sources *lambdatest.Frame
		var streamed strings.Builder
		reason := ""
		for i, f := range fs {
			switch f.Type {
			case lambda.TypeSources:
				if sources != nil {
					bad("%s: two sources", id)
				}
				sources = &fs[i]
			case lambda.TypeStream:
				if sources == nil || ends > 0 {
					bad("%s: stream outside sources…stream_end", id)
				}
				streamed.WriteString(f.Delta)
			case lambda.TypeStreamEnd:
				ends++
				reason = f.Reason
			case lambda.TypeResponse:
				resps++
				if ends != 1 || reason == lambda.ReasonCancelled {
					bad("%s: response not right after one stream_end done/blocked: %s", id, lambdatest.Summary(fs))
				}
				if f.Status == lambda.StatusBlocked && len(guardrail.Extract(f.Text)) != 0 {
					bad("%s: the blocked response has numbers: %q", id, f.Text)
				}
			case lambda.TypeActionSuggestion:
				if resps != 1 {
					bad("%s: suggestion without a response", id)
				}
			}
		}
		if ends > 1 || resps > 1 {
			bad("%s: %d stream_end, %d responses: %s", id, ends, resps, lambdatest.Summary(fs))
		}
		if sources != nil {
			var snippets []string
			for _, c := range sources.Citations {
				snippets = append(snippets, c.Snippet)
			}
			if v := guardrail.VerifyStrings(streamed.String(), snippets); !v.Grounded {
				bad("%s: ungrounded number streamed: %q", id, streamed.String())
			}
		}
	}
	if complete {
		for _, id := range ids {
			ended := false
			for _, f := range byID[id] {
				if f.Type == lambda.TypeStreamEnd || f.Type == lambda.TypeError {
					ended = true
				}
			}
			if !ended {
				bad("%s: neither stream_end nor error: %s", id, lambdatest.Summary(byID[id]))
			}
		}
	}
	return problems
}

func FuzzHandleMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","id":"m1","text":"What does Premium cost?"}`,
		`{"type":"message","id":"m1","text":"hallucinate: vad kostar Premium?","lang":"sv"}`,
		`{"type":"message","id":"m1","text":"$say Premium costs 12345 kr"}`,
		`{"type":"message","id":"m1","text":"Please call me on +46 70 123 45 67"}`,
		`{"type":"message","id":"m1","text":"x","lang":"de"}`,
		`{"type":"message","id":"","text":"x"}`,
		`{"type":"message","id":"m1"}`,
		`{"type":"cancel"}`,
		`{"type":"cancel","id":"m1"}`,
		`{"type":"confirm_action","suggestionId":"00000000000000000000000000000000"}`,
		`{"type":"confirm_action"}`,
		`{"type":"nope"}`,
		`{"type":1}`,
		`{"type":"message","id":{"a":1},"text":"x"}`,
		`{"type":"message","id":"m1","ID":"m2","text":"x"}`,
		`{"type":"message","id":"m1","id":"m2","text":"What does Premium cost?"}`,
		`{"type":"confirm_action","suggestionid":"00000000000000000000000000000000"}`,
		`{"type":"message","id":"` + strings.Repeat("i", 129) + `","text":"x"}`,
		`[]`, `null`, `{`, ``, "\xff\xfe", `{"type":"message","id":"m1","text":"` + strings.Repeat("9", 5000) + `"}`,
	} {
		f.Add(s, false)
	}
	f.Add("eyJ0eXBlIjoibWVzc2FnZSJ9", true)
	f.Fuzz(func(t *testing.T, body string, b64 bool) {
		hs := newHarness(t)
		hs.connect("c1")
		req := event(lambda.EventMessage, "c1")
		req.Body, req.IsBase64Encoded = body, b64
		resp, err := hs.h.Handle(context.Background(), req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("Handle: %d %v", resp.StatusCode, err)
		}
		raw := hs.sender.Raw("c1")
		var ids []string
		cf, err := lambda.DecodeClientFrame([]byte(body))
		decoded := !b64 && err == nil
		valid := b64 || utf8.ValidString(body)
		if decoded && cf.Type == lambda.TypeMessage && cf.ID != "" && len(cf.ID) <= lambda.MaxIDBytes &&
			(valid || !strings.ContainsRune(cf.ID, utf8.RuneError)) { // an id that was not valid UTF-8 is not echoed
			ids = append(ids, cf.ID)
		}
		if p := checkFrames(raw, ids, true); len(p) > 0 {
			t.Fatalf("body %q:\n%s\nframes: %s", body, strings.Join(p, "\n"), lambdatest.Summary(hs.frames("c1")))
		}
		if !decoded && !b64 || !valid {
			// Not JSON of a frame, or not valid UTF-8: exactly one bad_request.
			fs := hs.frames("c1")
			if len(fs) != 1 || fs[0].Type != lambda.TypeError || fs[0].Code != lambda.EBadRequest {
				t.Fatalf("body %q: %s, want one bad_request", body, lambdatest.Summary(fs))
			}
		}
		hs.disconnect("c1")
	})
}

// seqStore is the memory store, tracking connections.
type seqStore struct {
	*lambda.MemStore
	mu    sync.Mutex
	conns map[string]bool
}

func (s *seqStore) PutConnection(ctx context.Context, c lambda.Connection) error {
	s.mu.Lock()
	s.conns[c.ID] = true
	s.mu.Unlock()
	return s.MemStore.PutConnection(ctx, c)
}

func (s *seqStore) DeleteConnection(ctx context.Context, id string) error {
	s.mu.Lock()
	delete(s.conns, id)
	s.mu.Unlock()
	return s.MemStore.DeleteConnection(ctx, id)
}

// sidExec counts executions per suggestion id and records the connection.
type sidExec struct {
	mu   sync.Mutex
	n    map[string]int
	conn map[string]string
}

func (x *sidExec) Execute(ctx context.Context, a lambda.Action) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.n[a.SuggestionID]++
	x.conn[a.SuggestionID] = a.ConnectionID
	return "done", nil
}

var seqTexts = []string{
	"What does Premium cost?",
	"Vad kostar Premium per månad?",
	"hallucinate: what does Premium cost?",
	"Please call me on +46 70 123 45 67",
	"send sms to 070-123 45 67 about the Basic plan",
	"create ticket: Premium price",
	"$say Premium: 399 kr, Basic: 99 kr.",
	"$say Premium costs 400 kr.",
	"Tell me about the weather on Mars",
}

// FuzzHandlerSequence turns bytes into events over three connections
// (connect, message, cancel, confirm — own, foreign, repeated — disconnect,
// time passing), some invocations concurrent, and checks the protocol's
// invariants: no panic, at most one stream_end per message and exactly one
// (or an error) for every message of a connection still open, nothing
// after a cancelled stream_end, no number streamed ungrounded, no
// suggestion executed twice or from another connection, and nothing left
// in the store after every connection is gone.
func FuzzHandlerSequence(f *testing.F) {
	f.Add([]byte{0, 1, 3, 1, 0, 4, 0})
	f.Add([]byte{0, 8, 16, 1, 3, 9, 3, 4, 0, 4, 0, 12, 1, 6, 200, 4, 0})
	f.Add([]byte{0, 1, 0, 2, 0, 1, 1, 2, 0, 5, 0, 0, 4, 0, 7, 0})
	f.Add([]byte{0, 8, 1, 3, 7, 0, 9, 3, 7, 0, 12, 1, 12, 2, 4, 0, 13, 0})
	f.Fuzz(runSeq)
}

// runSeq runs one event sequence (see FuzzHandlerSequence).
func runSeq(t *testing.T, data []byte) {
	if len(data) > 80 { // 40 events
		data = data[:80]
	}
	exec := &sidExec{n: map[string]int{}, conn: map[string]string{}}
	store := &seqStore{MemStore: lambda.NewMemStore(), conns: map[string]bool{}}
	hs := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = store
		cfg.Executors = map[string]lambda.Executor{
			lambda.ActionScheduleCallback: exec, lambda.ActionSendSMS: exec, lambda.ActionCreateTicket: exec,
		}
	})
	type connState struct {
		id        string
		open      bool
		closedYet bool // disconnected at some point: its transcript may be cut
		msgs      []string
	}
	var conns [3]*connState
	var all []*connState
	gen := 0
	var pending []<-chan struct{}
	waitAll := func() {
		for _, p := range pending {
			<-p
		}
		pending = nil
	}
	suggestionsOf := func(conn string) []string {
		var out []string
		for _, f := range hs.frames(conn) {
			if f.Type == lambda.TypeActionSuggestion {
				out = append(out, f.SuggestionID)
			}
		}
		return out
	}
	n := 0
	for i := 0; i+1 < len(data); i += 2 {
		op, arg := data[i], data[i+1]
		k := int(op>>3) % 3
		c := conns[k]
		async := op&0x80 != 0
		switch op % 8 {
		case 0: // connect
			if c != nil && c.open {
				continue
			}
			gen++
			c = &connState{id: fmt.Sprintf("c%d.%d", k, gen), open: true}
			conns[k] = c
			all = append(all, c)
			hs.connect(c.id)
		case 1: // message
			if c == nil || !c.open {
				continue
			}
			n++
			id := fmt.Sprintf("m%d", n)
			c.msgs = append(c.msgs, id)
			frame := msg(id, seqTexts[int(arg)%len(seqTexts)])
			if async {
				pending = append(pending, hs.sendAsync(c.id, frame))
			} else {
				hs.send(c.id, frame)
			}
		case 2, 3: // cancel the last message, or whatever is active
			if c == nil || !c.open {
				continue
			}
			id := ""
			if op%8 == 2 && len(c.msgs) > 0 {
				id = c.msgs[len(c.msgs)-1]
			}
			pending = append(pending, hs.sendAsync(c.id, cancel(id)))
		case 4: // confirm a suggestion: own (by arg) or another connection's
			if c == nil || !c.open {
				continue
			}
			from := c
			if arg&1 == 1 {
				from = conns[(k+1+int(arg>>1)%2)%3]
			}
			if from == nil {
				continue
			}
			sids := suggestionsOf(from.id)
			if len(sids) == 0 {
				continue
			}
			frame := confirm(sids[int(arg>>2)%len(sids)])
			pending = append(pending, hs.sendAsync(c.id, frame))
			if arg&2 == 2 { // twice, racing
				pending = append(pending, hs.sendAsync(c.id, frame))
			}
		case 5: // disconnect
			if c == nil || !c.open {
				continue
			}
			c.open, c.closedYet = false, true
			hs.disconnect(c.id)
		case 6: // time passes
			hs.clock.Advance(time.Duration(arg) * 300 * time.Millisecond)
		case 7: // let every invocation in flight finish
			waitAll()
		}
	}
	waitAll()

	for _, c := range all {
		if p := checkFrames(hs.sender.Raw(c.id), c.msgs, !c.closedYet); len(p) > 0 {
			t.Fatalf("%s (ops %v):\n%s\nframes: %s", c.id, data, strings.Join(p, "\n"), hs.summary(c.id))
		}
		// Every execution is of a suggestion offered to this
		// connection, and at most once.
		for _, sid := range suggestionsOf(c.id) {
			exec.mu.Lock()
			cnt, owner := exec.n[sid], exec.conn[sid]
			exec.mu.Unlock()
			if cnt > 1 || cnt == 1 && owner != c.id {
				t.Fatalf("suggestion %s of %s executed %d times (by %s)", sid, c.id, cnt, owner)
			}
		}
		for _, f := range hs.frames(c.id) {
			if f.Type == lambda.TypeActionExecuted && f.Result.Success && !f.Result.Ignored {
				mine := false
				for _, sid := range suggestionsOf(c.id) {
					mine = mine || sid == f.SuggestionID
				}
				if !mine {
					t.Fatalf("%s executed another connection's suggestion %s", c.id, f.SuggestionID)
				}
			}
		}
	}
	exec.mu.Lock()
	for sid, cnt := range exec.n {
		if cnt != 1 {
			t.Fatalf("suggestion %s executed %d times", sid, cnt)
		}
	}
	exec.mu.Unlock()
	for _, c := range all {
		if c.open {
			hs.disconnect(c.id)
		}
	}
	store.mu.Lock()
	left := len(store.conns)
	store.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d connections left in the store", left)
	}
}
