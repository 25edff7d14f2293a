package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	dto "github.com/prometheus/client_model/go"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
)

// The soak and chaos tests: many clients at once against the real server
// (in process, over loopback), each doing a random but seeded mix of
// everything the protocol allows and a few things it does not, with
// invariants checked on every client's transcript and on the server after
// they leave. Bounded in time: a few seconds each by default,
// GROUNDWIRE_SOAK=5m for a long run, GROUNDWIRE_SOAK_CLIENTS=N for more
// clients, GROUNDWIRE_SOAK_SEED=N to replay a seed (it is logged).

// soakSettings reads the duration (scaled for the faults' subtests by
// share), client count and seed.
func soakSettings(t *testing.T, def time.Duration) (time.Duration, int, uint64) {
	t.Helper()
	d := def
	if testing.Short() {
		d = 2 * time.Second
	}
	if v := os.Getenv("GROUNDWIRE_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("GROUNDWIRE_SOAK: %v", err)
		}
	}
	n := 50
	if v := os.Getenv("GROUNDWIRE_SOAK_CLIENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("GROUNDWIRE_SOAK_CLIENTS: %q", v)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GROUNDWIRE_SOAK_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("GROUNDWIRE_SOAK_SEED: %v", err)
		}
	}
	t.Logf("soak: %v, %d clients, seed %d (replay: GROUNDWIRE_SOAK_SEED=%d)", d, n, seed, seed)
	return d, n, seed
}

// soakConfig: a short token delay so that cancels and supersedes land
// mid-stream, a short suggestion window so that some confirms are late, a
// rate limit loose enough that most messages pass.
func soakConfig(c *config) {
	c.TokenDelay = delayRange{time.Millisecond, 3 * time.Millisecond}
	c.SuggestWindow = 400 * time.Millisecond
	c.Rate = 20
	c.Burst = 10
	c.MaxConns = 10000
	c.ShutdownTimeout = 5 * time.Second
}

// execLog counts executions per suggestion id.
type execLog struct {
	mu    sync.Mutex
	bySID map[string]int
}

func (e *execLog) wrap(ex map[string]lambda.Executor) map[string]lambda.Executor {
	e.bySID = map[string]int{}
	out := map[string]lambda.Executor{}
	for name, x := range ex {
		out[name] = lambda.ExecutorFunc(func(ctx context.Context, a lambda.Action) (string, error) {
			e.mu.Lock()
			e.bySID[a.SuggestionID]++
			e.mu.Unlock()
			time.Sleep(time.Millisecond) // a window for racing confirms
			return x.Execute(ctx, a)
		})
	}
	return out
}

func (e *execLog) count(sid string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bySID[sid]
}

// faultStore fails a seeded fraction of the calls that carry an answer or a
// suggestion (not PutConnection/DeleteConnection: those decide whether a
// client is connected at all, and are tested on their own in lambda).
type faultStore struct {
	lambda.Store
	on    atomic.Bool
	p     float64
	mu    sync.Mutex
	rng   *rand.Rand
	fails atomic.Int64
}

var errInjected = errors.New("injected store failure")

func (s *faultStore) fail() bool {
	if !s.on.Load() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rng.Float64() < s.p {
		s.fails.Add(1)
		return true
	}
	return false
}

func (s *faultStore) StartAnswer(ctx context.Context, c, m string, now time.Time) (string, error) {
	if s.fail() {
		return "", errInjected
	}
	return s.Store.StartAnswer(ctx, c, m, now)
}

func (s *faultStore) CancelAnswer(ctx context.Context, c, m string) (string, error) {
	if s.fail() {
		return "", errInjected
	}
	return s.Store.CancelAnswer(ctx, c, m)
}

func (s *faultStore) AnswerCancelled(ctx context.Context, c, m string) (bool, error) {
	if s.fail() {
		return false, errInjected
	}
	return s.Store.AnswerCancelled(ctx, c, m)
}

func (s *faultStore) EndAnswer(ctx context.Context, c, m string) (bool, error) {
	if s.fail() {
		return false, errInjected
	}
	return s.Store.EndAnswer(ctx, c, m)
}

func (s *faultStore) PutSuggestion(ctx context.Context, sg lambda.Suggestion) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.PutSuggestion(ctx, sg)
}

func (s *faultStore) ClaimSuggestion(ctx context.Context, c, id string, now time.Time) (lambda.Suggestion, lambda.ClaimOutcome, error) {
	if s.fail() {
		return lambda.Suggestion{}, lambda.ClaimUnknown, errInjected
	}
	return s.Store.ClaimSuggestion(ctx, c, id, now)
}

func (s *faultStore) FinishSuggestion(ctx context.Context, c, id string, now time.Time) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.FinishSuggestion(ctx, c, id, now)
}

func (s *faultStore) WithdrawSuggestions(ctx context.Context, c string, now time.Time) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.WithdrawSuggestions(ctx, c, now)
}

// goneSender answers ErrGone, from the first frame about a message whose id
// ends in "-gone" on, for that connection: as API Gateway does for a
// connection that vanished between two PostToConnection calls.
type goneSender struct {
	lambda.Sender
	mu   sync.Mutex
	gone map[string]bool
}

var goneMark = []byte(`-gone"`)

func (g *goneSender) Send(ctx context.Context, connID string, data []byte) error {
	g.mu.Lock()
	if bytes.Contains(data, goneMark) {
		g.gone[connID] = true
	}
	gone := g.gone[connID]
	g.mu.Unlock()
	if gone {
		return fmt.Errorf("post to %s: %w", connID, lambda.ErrGone)
	}
	return g.Sender.Send(ctx, connID, data)
}

// soakRun is one soak: a server, its clients and what they saw.
type soakRun struct {
	t        *testing.T
	ts       *testServer
	exec     *execLog
	seed     uint64
	faults   bool // store failures or gone connections: errors may replace stream_end
	noAbort  bool // clients never drop their connection
	shutdown bool // the server is shut down under the clients

	mu       sync.Mutex
	sessions []*session
	owner    map[string]*session // suggestion id → the session it was offered to
	pool     []string            // every suggestion id offered, for foreign confirms
	problems []string
}

func (r *soakRun) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) < 50 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

func (r *soakRun) offered(sid string, s *session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner[sid] != nil {
		r.problems = append(r.problems, fmt.Sprintf("suggestion id %s offered twice", sid))
	}
	r.owner[sid] = s
	r.pool = append(r.pool, sid)
}

func (r *soakRun) foreign(rng *rand.Rand, s *session) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for range 5 {
		if len(r.pool) == 0 {
			break
		}
		sid := r.pool[rng.IntN(len(r.pool))]
		if r.owner[sid] != s {
			return sid
		}
	}
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return fmt.Sprintf("%x", b) // a guess
}

// session is one connection of a client, with its transcript.
type session struct {
	r    *soakRun
	name string
	ws   *websocket.Conn

	mu        sync.Mutex
	frames    []frame
	msgs      map[string]string // id → text of every message sent
	order     []string
	badIDs    map[string]bool // ids of malformed messages: errors expected
	mine      []string        // suggestion ids offered to this session
	confirms  map[string]int  // suggestion id → confirms sent
	results   int             // action_executed frames
	sentConfs int
	gone      bool // a "-gone" message was sent: the server may stop answering
	aborted   bool // dropped by the client without a close frame
	readErr   error
	done      chan struct{}
}

func (r *soakRun) dial(name string) (*session, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := d.Dial("ws://"+r.ts.addr+"/ws", nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	s := &session{r: r, name: name, ws: ws, msgs: map[string]string{}, badIDs: map[string]bool{},
		confirms: map[string]int{}, done: make(chan struct{})}
	r.mu.Lock()
	r.sessions = append(r.sessions, s)
	r.mu.Unlock()
	go s.read()
	return s, nil
}

func (s *session) read() {
	defer close(s.done)
	for {
		typ, data, err := s.ws.ReadMessage()
		if err != nil {
			s.mu.Lock()
			s.readErr = err
			s.mu.Unlock()
			return
		}
		if typ != websocket.TextMessage {
			s.r.problem("%s: a binary frame from the server", s.name)
			continue
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			s.r.problem("%s: bad frame %q", s.name, data)
			continue
		}
		s.mu.Lock()
		s.frames = append(s.frames, f)
		switch f.Type {
		case "action_suggestion":
			s.mine = append(s.mine, f.SuggestionID)
		case "action_executed":
			s.results++
		}
		s.mu.Unlock()
		if f.Type == "action_suggestion" {
			s.r.offered(f.SuggestionID, s)
		}
	}
}

func (s *session) write(typ int, data []byte) error {
	s.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return s.ws.WriteMessage(typ, data)
}

func (s *session) sendJSON(v map[string]string) error {
	b, _ := json.Marshal(v)
	return s.write(websocket.TextMessage, b)
}

var soakTexts = []string{
	"What does Premium cost?",
	"How much storage does Basic include?",
	"How do I reset my password?",
	"What is the refund policy?",
	"Vad kostar Premium per månad?",
	"Hur mycket lagring ingår i Basic?",
	"hallucinate: what does Premium cost per month?",
	"hallucinate: vad kostar Premium per månad?",
	"Please call me on +46 70 123 45 67",
	"Can you text me at 070-123 45 67 about Premium?",
	"Please create ticket: the sync fails on my laptop",
	"Skicka sms till 070 123 45 67 om priset",
	"Tell me about the weather on Mars",
	"$say Premium costs 399 kr a month and Basic costs 12345 kr.",
}

// message sends a message with a fresh id and returns it.
func (s *session) message(rng *rand.Rand, n *int, suffix string) (string, error) {
	*n++
	id := fmt.Sprintf("%s-m%d%s", s.name, *n, suffix)
	text := soakTexts[rng.IntN(len(soakTexts))]
	f := map[string]string{"type": "message", "id": id, "text": text}
	if rng.IntN(4) == 0 {
		f["lang"] = []string{"en", "sv"}[rng.IntN(2)]
	}
	s.mu.Lock()
	s.msgs[id] = text
	s.order = append(s.order, id)
	if suffix == "-gone" {
		s.gone = true
	}
	s.mu.Unlock()
	return id, s.sendJSON(f)
}

func (s *session) confirm(sid string) error {
	s.mu.Lock()
	s.confirms[sid]++
	s.sentConfs++
	s.mu.Unlock()
	return s.sendJSON(map[string]string{"type": "confirm_action", "suggestionId": sid})
}

// ended reports whether a message has had its last frame (stream_end
// cancelled, response and the suggestion it asks for, or an error).
func (s *session) ended(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return endedLocked(s.frames, id, s.msgs[id], s.r.faults)
}

func endedLocked(fs []frame, id, text string, faults bool) bool {
	// A suggestion the store could not record is not offered.
	wantSuggestion := false
	if a, _ := lambda.DetectAction(text); a != "" && !faults {
		wantSuggestion = true
	}
	resp := false
	for _, f := range fs {
		if f.ID != id {
			continue
		}
		switch {
		case f.Type == "error":
			return true
		case f.Type == "stream_end" && f.Reason == lambda.ReasonCancelled:
			return true
		case f.Type == "response":
			resp = true
			if !wantSuggestion {
				return true
			}
		case f.Type == "action_suggestion":
			return true
		}
	}
	_ = resp
	return false
}

// settled: every message ended, every malformed one refused and every
// confirm answered.
func (s *session) settled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.results < s.sentConfs {
		return false
	}
	refused := map[string]bool{}
	for _, f := range s.frames {
		if f.Type == "error" && s.badIDs[f.ID] {
			refused[f.ID] = true
		}
	}
	if len(refused) < len(s.badIDs) {
		return false
	}
	for _, id := range s.order {
		if !endedLocked(s.frames, id, s.msgs[id], s.r.faults) {
			return false
		}
	}
	return true
}

// client runs one simulated user until the deadline, reconnecting after it
// drops its connection.
func (r *soakRun) client(i int, deadline time.Time) {
	rng := rand.New(rand.NewPCG(r.seed, uint64(i)))
	var sess, n int
	newSession := func() *session {
		for {
			sess++
			s, err := r.dial(fmt.Sprintf("c%d.%d", i, sess))
			if err == nil {
				return s
			}
			if r.shutdown || time.Now().After(deadline) {
				return nil
			}
			r.problem("client %d: dial: %v", i, err)
			time.Sleep(50 * time.Millisecond)
		}
	}
	s := newSession()
	if s == nil {
		return
	}
	var active string
	for time.Now().Before(deadline) {
		var err error
		s.mu.Lock()
		gone := s.gone
		mine := append([]string(nil), s.mine...)
		s.mu.Unlock()
		switch op := rng.IntN(100); {
		case op < 30: // a message (superseding the active one, if any)
			suffix := ""
			if r.faults && !gone && rng.IntN(40) == 0 {
				suffix = "-gone"
			}
			active, err = s.message(rng, &n, suffix)
		case op < 38: // cancel the active message
			err = s.sendJSON(map[string]string{"type": "cancel", "id": active})
		case op < 41: // cancel whatever is active
			err = s.sendJSON(map[string]string{"type": "cancel"})
		case op < 43: // cancel an id that is not active
			err = s.sendJSON(map[string]string{"type": "cancel", "id": "not-active"})
		case op < 53 && len(mine) > 0: // confirm the latest suggestion
			err = s.confirm(mine[len(mine)-1])
		case op < 58 && len(mine) > 0: // double confirm, back to back (racing invocations)
			if err = s.confirm(mine[len(mine)-1]); err == nil {
				err = s.confirm(mine[len(mine)-1])
			}
		case op < 62 && len(mine) > 0: // an older one (maybe expired)
			err = s.confirm(mine[rng.IntN(len(mine))])
		case op < 66: // another connection's (or a guessed) id
			err = s.confirm(r.foreign(rng, s))
		case op < 70: // malformed
			switch rng.IntN(6) {
			case 0:
				err = s.write(websocket.TextMessage, []byte(`{"type":"message","id":`))
			case 1:
				err = s.write(websocket.TextMessage, []byte(`{"type":"nope","id":"x"}`))
			case 2:
				n++
				id := fmt.Sprintf("%s-bad%d", s.name, n)
				s.mu.Lock()
				s.badIDs[id] = true
				s.mu.Unlock()
				err = s.sendJSON(map[string]string{"type": "message", "id": id}) // no text
			case 3:
				err = s.write(websocket.BinaryMessage, []byte{0, 1, 2})
			case 4:
				err = s.write(websocket.TextMessage, []byte(`[1,2,3]`))
			case 5:
				err = s.sendJSON(map[string]string{"type": "confirm_action"}) // no id
			}
		case op < 72 && !r.noAbort: // drop the connection without a close frame
			s.mu.Lock()
			s.aborted = true
			s.mu.Unlock()
			s.ws.NetConn().Close()
			<-s.done
			if s = newSession(); s == nil {
				return
			}
			active = ""
		case op < 80 && active != "": // wait for the answer
			until := time.Now().Add(time.Second)
			for !s.ended(active) && time.Now().Before(until) {
				time.Sleep(5 * time.Millisecond)
			}
		}
		if err != nil {
			if !r.shutdown {
				r.problem("%s: write: %v", s.name, err)
			}
			return
		}
		time.Sleep(time.Duration(2+rng.IntN(40)) * time.Millisecond)
	}
	if r.shutdown {
		return // the server closes the connection
	}
	// Let everything in flight end, then leave properly.
	s.mu.Lock()
	gone := s.gone
	s.mu.Unlock()
	until := time.Now().Add(20 * time.Second)
	for !gone && !s.settled() && time.Now().Before(until) {
		time.Sleep(10 * time.Millisecond)
	}
	if !gone && !s.settled() {
		r.problem("%s: not settled after 20 s", s.name)
	}
	s.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		r.problem("%s: the server did not close after our close frame", s.name)
	}
	s.ws.Close()
	<-s.done
}

// check checks one session's transcript.
func (r *soakRun) check(s *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	byID := map[string][]frame{}
	for _, f := range s.frames {
		if f.ID != "" {
			byID[f.ID] = append(byID[f.ID], f)
		}
	}
	relaxed := s.aborted || s.gone || r.shutdown // the end of the transcript may be cut
	for id, fs := range byID {
		if _, ok := s.msgs[id]; ok {
			continue
		}
		for _, f := range fs {
			if f.Type != "error" {
				r.problem("%s: %v about an id never sent as a message", s.name, f)
			}
		}
	}
	for id := range s.badIDs {
		if fs := byID[id]; !s.aborted && !s.gone && !r.shutdown && (len(fs) != 1 || fs[0].Code != lambda.EBadRequest) {
			r.problem("%s: malformed message %s got %v, want one bad_request", s.name, id, fs)
		}
	}
	for _, id := range s.order {
		r.checkMessage(s, id, byID[id], relaxed)
	}

	// Confirms: at most one execution reported per suggestion; another
	// connection's id is unknown here.
	mine := map[string]bool{}
	for _, sid := range s.mine {
		mine[sid] = true
	}
	executed := map[string]int{}
	for _, f := range s.frames {
		if f.Type != "action_executed" {
			continue
		}
		if s.confirms[f.SuggestionID] == 0 {
			r.problem("%s: a result for %s, never confirmed here", s.name, f.SuggestionID)
		}
		if !mine[f.SuggestionID] {
			if f.Result != (lambda.ActionResult{Message: lambda.MsgUnknown}) &&
				!(r.faults && f.Result == lambda.ActionResult{Message: lambda.MsgNotConfirmed}) {
				r.problem("%s: another connection's suggestion %s: %+v, want unknown", s.name, f.SuggestionID, f.Result)
			}
			continue
		}
		if f.Result.Success && !f.Result.Ignored {
			executed[f.SuggestionID]++
		}
	}
	for sid, n := range executed {
		if n > 1 {
			r.problem("%s: suggestion %s reported executed %d times", s.name, sid, n)
		}
		if got := r.exec.count(sid); got != 1 {
			r.problem("%s: suggestion %s reported executed, executor ran %d times", s.name, sid, got)
		}
	}
	// Every execution was of a suggestion confirmed by its own connection,
	// and reported to it unless the client left before.
	for _, sid := range s.mine {
		got := r.exec.count(sid)
		if got > 1 {
			r.problem("%s: suggestion %s executed %d times", s.name, sid, got)
		}
		if got == 1 && s.confirms[sid] == 0 {
			r.problem("%s: suggestion %s executed without a confirm from its connection", s.name, sid)
		}
		if got == 1 && executed[sid] == 0 && !relaxed {
			r.problem("%s: suggestion %s executed but never reported executed (confirms: %d)", s.name, sid, s.confirms[sid])
		}
	}
}

func (r *soakRun) checkMessage(s *session, id string, fs []frame, relaxed bool) {
	var ends, errs, resps int
	var sources *frame
	var streamed strings.Builder
	endReason := ""
	for i, f := range fs {
		switch f.Type {
		case "sources":
			if sources != nil || i != 0 {
				r.problem("%s %s: sources not first or twice: %v", s.name, id, fs)
			}
			sources = &fs[i]
		case "stream":
			if sources == nil || ends > 0 {
				r.problem("%s %s: stream outside sources…stream_end: %v", s.name, id, fs)
			}
			streamed.WriteString(f.Delta)
		case "stream_end":
			ends++
			endReason = f.Reason
		case "response":
			resps++
			if ends == 0 || endReason == lambda.ReasonCancelled {
				r.problem("%s %s: response without stream_end, or after a cancelled one: %v", s.name, id, fs)
			}
			r.checkResponse(s, id, f, sources, streamed.String(), endReason)
		case "action_suggestion":
			if resps == 0 || endReason == lambda.ReasonCancelled {
				r.problem("%s %s: suggestion before the response or after a cancel: %v", s.name, id, fs)
			}
		case "error":
			errs++
		}
	}
	if ends > 1 {
		r.problem("%s %s: %d stream_end: %v", s.name, id, ends, fs)
	}
	if resps > 1 {
		r.problem("%s %s: %d responses", s.name, id, resps)
	}
	if sources != nil {
		snippets := citationTexts(sources.Citations)
		if v := guardrail.VerifyStrings(streamed.String(), snippets); !v.Grounded {
			n, _ := v.FirstUngrounded()
			r.problem("%s %s: ungrounded number %q streamed in %q (sources %q)", s.name, id, n.Text, streamed.String(), snippets)
		}
	}
	if !r.faults && errs > 0 && (ends > 0 || sources != nil) {
		r.problem("%s %s: an error and an answer: %v", s.name, id, fs)
	}
	if errs > 1 && !r.faults {
		r.problem("%s %s: %d errors", s.name, id, errs)
	}
	if relaxed {
		return
	}
	if ends == 0 && errs == 0 {
		r.problem("%s %s: no stream_end and no error: %v", s.name, id, fs)
	}
	if ends == 1 && endReason != lambda.ReasonCancelled && resps == 0 && errs == 0 {
		r.problem("%s %s: stream_end %s without a response: %v", s.name, id, endReason, fs)
	}
}

func citationTexts(cs []lambda.Citation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Snippet
	}
	return out
}

func (r *soakRun) checkResponse(s *session, id string, f frame, sources *frame, streamed, reason string) {
	if sources == nil {
		r.problem("%s %s: response without sources", s.name, id)
		return
	}
	if len(f.Citations) != len(sources.Citations) {
		r.problem("%s %s: response cites %d snippets, sources had %d", s.name, id, len(f.Citations), len(sources.Citations))
	}
	switch f.Status {
	case lambda.StatusVerified:
		if reason != lambda.ReasonDone || f.Text != streamed {
			r.problem("%s %s: verified response %q after %s, streamed %q", s.name, id, f.Text, reason, streamed)
		}
		if v := guardrail.VerifyStrings(f.Text, citationTexts(f.Citations)); !v.Grounded {
			r.problem("%s %s: verified response with an ungrounded number: %q", s.name, id, f.Text)
		}
	case lambda.StatusNoSources:
		if len(f.Citations) != 0 || len(guardrail.Extract(f.Text)) != 0 || f.Text != streamed {
			r.problem("%s %s: no_sources response %+v", s.name, id, f)
		}
	case lambda.StatusBlocked:
		if reason != lambda.ReasonBlocked || len(guardrail.Extract(f.Text)) != 0 || f.Error == "" {
			r.problem("%s %s: blocked response %q (error %q) after %s", s.name, id, f.Text, f.Error, reason)
		}
	default:
		r.problem("%s %s: response status %q", s.name, id, f.Status)
	}
}

// soak runs clients against ts for d and checks every transcript.
func (r *soakRun) soak(n int, d time.Duration, during func()) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { r.client(i, deadline) })
	}
	if during != nil {
		during()
	}
	wg.Wait()
	if r.shutdown {
		r.mu.Lock()
		ss := append([]*session(nil), r.sessions...)
		r.mu.Unlock()
		for _, s := range ss {
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				r.problem("%s: not closed by the shutdown", s.name)
				s.ws.Close()
				<-s.done
			}
		}
	}
	for _, s := range r.sessions {
		r.check(s)
	}
}

// report fails the test with the problems found.
func (r *soakRun) report() {
	r.t.Helper()
	var msgs, frames, execs int
	for _, s := range r.sessions {
		msgs += len(s.order)
		frames += len(s.frames)
	}
	r.exec.mu.Lock()
	for _, c := range r.exec.bySID {
		execs += c
	}
	r.exec.mu.Unlock()
	r.t.Logf("soak: %d connections, %d messages, %d frames received, %d actions executed, %d suggestion ids",
		len(r.sessions), msgs, frames, execs, len(r.pool))
	if len(r.problems) > 0 {
		r.t.Fatalf("seed %d: %d problems:\n%s", r.seed, len(r.problems), strings.Join(r.problems, "\n"))
	}
}

func newSoak(t *testing.T, seed uint64, wrap func(*testServer, *deps), opts ...func(*config)) *soakRun {
	r := &soakRun{t: t, seed: seed, exec: &execLog{}, owner: map[string]*session{}}
	r.ts = startServerWith(t, func(ts *testServer, d *deps) {
		d.Executors = r.exec.wrap(lambda.DefaultExecutors())
		if wrap != nil {
			wrap(ts, d)
		}
	}, append([]func(*config){soakConfig}, opts...)...)
	r.ts.get("/healthz") // the server's own goroutines are all up
	time.Sleep(50 * time.Millisecond)
	return r
}

// heapInuse is the heap in use after two collections.
func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// checkClean checks that nothing of the clients is left in the server.
func (r *soakRun) checkClean(baseG int, baseHeap uint64) {
	t := r.t
	t.Helper()
	// A connection leaves the registry and the store before its handler
	// goroutine returns and uncounts it: wait for all three.
	counted := func() (int, int) {
		r.ts.s.mu.Lock()
		defer r.ts.s.mu.Unlock()
		return r.ts.s.conns, len(r.ts.s.perIP)
	}
	waitFor(t, "every connection to leave the registry, the store and the server's counts", func() bool {
		conns, perIP := counted()
		return r.ts.s.reg.len() == 0 && r.ts.store.len() == 0 && conns == 0 && perIP == 0
	})
	deadline := time.Now().Add(10 * time.Second)
	g := runtime.NumGoroutine()
	for g > baseG && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	if g > baseG {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the clients left, %d before:\n%s", g, baseG, buf[:runtime.Stack(buf, true)])
	}
	// The logs (debug level, every frame) hold no message text and no
	// phone number, as written or as digits (701234567: nine digits, which
	// nanosecond timestamps and durations in the logs do not hold by chance
	// the way they may hold any seven); then they are dropped, not to count
	// as server memory.
	logs := r.ts.logs.String()
	for _, secret := range []string{"reset my password", "weather on Mars", "Vad kostar", "sync fails", "123 45 67", "701234567"} {
		if i := strings.Index(logs, secret); i >= 0 {
			start := strings.LastIndexByte(logs[:i], '\n') + 1
			end := i + strings.IndexByte(logs[i:]+"\n", '\n')
			t.Errorf("the logs hold %q: %s", secret, logs[start:end])
		}
	}
	t.Logf("logs: %d lines checked", strings.Count(logs, "\n"))
	r.ts.logs.mu.Lock()
	r.ts.logs.b = bytes.Buffer{}
	r.ts.logs.mu.Unlock()
	r.sessions, r.pool, r.owner = nil, nil, nil // let the transcripts go
	heap := heapInuse()
	t.Logf("heap in use: %.1f MB before, %.1f MB after; goroutines %d before, %d after",
		float64(baseHeap)/1e6, float64(heap)/1e6, baseG, g)
	if heap > baseHeap+16<<20 {
		if f, err := os.CreateTemp("", "soak-heap-*.pprof"); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
			t.Logf("heap profile: %s", f.Name())
		}
		t.Fatalf("heap in use grew from %d to %d bytes", baseHeap, heap)
	}
}

func TestSoak(t *testing.T) {
	d, n, seed := soakSettings(t, 10*time.Second)
	r := newSoak(t, seed, nil)
	baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
	r.soak(n, d, nil)
	r.report()
	r.checkClean(baseG, baseHeap)
}

func TestSoakFaults(t *testing.T) {
	d, n, seed := soakSettings(t, 4*time.Second)

	t.Run("store", func(t *testing.T) {
		var fs *faultStore
		r := newSoak(t, seed, func(ts *testServer, d *deps) {
			fs = &faultStore{Store: d.Store, p: 0.02, rng: rand.New(rand.NewPCG(seed, 99))}
			fs.on.Store(true)
			d.Store = fs
		})
		r.faults = true
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		r.soak(n, d, nil)
		fs.on.Store(false)
		t.Logf("%d store calls failed", fs.fails.Load())
		r.report()
		if fs.fails.Load() == 0 {
			t.Fatal("no store call failed")
		}
		// Connections stay usable: a message after the failures is
		// answered normally.
		r.problems = nil
		c := r.ts.dial(t, "", nil)
		c.message("after", "What does Premium cost?")
		checkFlow(t, c.answer("after"), "after", lambda.ReasonDone, lambda.StatusVerified)
		c.close()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("gone", func(t *testing.T) {
		var gs *goneSender
		r := newSoak(t, seed, func(ts *testServer, d *deps) {
			d.WrapSender = func(s lambda.Sender) lambda.Sender {
				gs = &goneSender{Sender: s, gone: map[string]bool{}}
				return gs
			}
		})
		r.faults = true
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		r.soak(n, d, nil)
		gs.mu.Lock()
		t.Logf("%d connections gone", len(gs.gone))
		gs.mu.Unlock()
		r.report()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("slow-reader", func(t *testing.T) {
		// The server drops a client that does not read when its oldest
		// unwritten frame has waited WriteWait (1008; shortened here from
		// 10 s), or when a write has been blocked that long.
		r := newSoak(t, seed, nil, func(c *config) { c.WriteWait = 2 * time.Second })
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		// One client asks for long answers and never reads them.
		dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetReadBuffer(4096)
			}
			return c, err
		}}
		slowWS, _, err := dialer.Dial("ws://"+r.ts.addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer slowWS.Close()
		shrinkServerSendBuffer(t, r.ts, slowWS)
		// It sends confirms of unknown suggestions (never rate limited,
		// each answered at once with about as many bytes: ids are at most
		// 128 bytes, so nothing amplifies) as fast as it can, and reads
		// nothing.
		stop := make(chan struct{})
		var closed atomic.Bool // the server closed the connection
		var wg sync.WaitGroup
		wg.Go(func() {
			junk := []byte(`{"type":"confirm_action","suggestionId":"` + strings.Repeat("x", lambda.MaxIDBytes) + `"}`)
			for i := 0; i < 10_000_000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				slowWS.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if err := slowWS.WriteMessage(websocket.TextMessage, junk); err != nil {
					t.Logf("slow client: %d frames written, then %v", i, err)
					var ne net.Error
					closed.Store(!errors.As(err, &ne) || !ne.Timeout())
					return
				}
			}
		})
		r.soak(n, d, func() {
			waitLong(t, "the client that does not read to be dropped", func() bool {
				return counterValue(r.ts.s.metrics.dropped) >= 1 || closed.Load()
			})
		})
		close(stop)
		wg.Wait()
		slowWS.Close()
		r.report()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("shutdown", func(t *testing.T) {
		r := newSoak(t, seed, nil, func(c *config) { c.TokenDelay = delayRange{2 * time.Millisecond, 4 * time.Millisecond} })
		r.shutdown, r.noAbort = true, true
		r.soak(n, d+time.Minute, func() {
			time.Sleep(min(d, 2*time.Second))
			if err := r.ts.stop(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
		for _, s := range r.sessions {
			r.checkShutdown(s)
		}
		r.report()
		if r.ts.store.len() != 0 {
			t.Fatalf("%d connections left in the store", r.ts.store.len())
		}
	})
}

// checkShutdown: the session was closed with 1001, and every stream that
// had started was ended (cancelled, or done with its response) first.
func (r *soakRun) checkShutdown(s *session) {
	var ce *websocket.CloseError
	if !errors.As(s.readErr, &ce) || ce.Code != websocket.CloseGoingAway {
		r.problem("%s: ended with %v, want close 1001", s.name, s.readErr)
	}
	started, ended := map[string]bool{}, map[string]bool{}
	for _, f := range s.frames {
		switch {
		case f.Type == "sources":
			started[f.ID] = true
		case f.Type == "stream_end" || f.Type == "error":
			ended[f.ID] = true
		}
	}
	for id := range started {
		if !ended[id] {
			r.problem("%s: the stream of %s was not ended before the close", s.name, id)
		}
	}
}

func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counterValue reads a Prometheus counter.
func counterValue(c interface{ Write(*dto.Metric) error }) float64 {
	var m dto.Metric
	if c.Write(&m) != nil || m.Counter == nil {
		return 0
	}
	return m.Counter.GetValue()
}
