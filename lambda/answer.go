package lambda

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

// sayPrefix makes the mock model say exactly the rest of the message; the
// rest is also the retrieval query (SPEC §4.1, §8).
const sayPrefix = "$say "

// run is one answer being produced by this invocation.
type run struct {
	h     *Handler
	c     *conn
	live  *liveAnswer
	ctx   context.Context // the invocation's: for sends and the store
	mctx  context.Context // cancelled by stop, or at stopAt: for the model
	halt  context.CancelFunc
	co    coalescer // released text not sent yet
	id    string
	text  string
	lang  Lang
	cites []Citation
	srcs  []*guardrail.Source
	sents [][]Sentence // the cited snippets' sentences as kb analysed them, or nil

	lastCheck time.Time
	streamed  strings.Builder // concatenated stream deltas
	produced  strings.Builder // everything the model said, without a guard
}

// answer handles a `message` frame (SPEC §4): it becomes the connection's
// current answer, superseding the previous one, whose stream_end cancelled
// comes first; then retrieve → sources → stream through the guard →
// stream_end → response → optional action_suggestion. It returns when the
// answer has ended, been cancelled or superseded, or the connection is gone.
func (h *Handler) answer(ctx context.Context, c *conn, f ClientFrame) {
	stopAt := h.stopAt(ctx)
	mctx, halt := context.WithCancel(ctx)
	defer halt()
	if !stopAt.IsZero() {
		var stop context.CancelFunc
		mctx, stop = context.WithDeadlineCause(mctx, stopAt, errCutShort)
		defer stop()
	}
	live := &liveAnswer{msgID: f.ID, halt: halt}
	r := &run{h: h, c: c, live: live, ctx: ctx, mctx: mctx, halt: halt, id: f.ID, text: f.Text}
	r.co.every = h.cfg.CoalesceInterval

	prev, err := h.begin(ctx, c, f.ID, live, r)
	if errors.Is(err, ErrAnswerInUse) {
		// the client reused the id of a message still being answered:
		// that answer goes on, this message is refused
		err = Errorf(EBadRequest, "The id is in use by a message still being answered.")
	}
	if err != nil {
		h.sendError(ctx, c, f.ID, err)
		return
	}
	defer func() {
		c.mu.Lock()
		if c.live == live {
			c.live = nil
		}
		c.mu.Unlock()
	}()
	if prev != "" {
		// The previous answer is not live in this process: its end is
		// sent by its streamer on another instance (or by awaitEnd if
		// that one is gone), and nothing of this answer may precede it.
		h.awaitEnd(ctx, c, prev, stopAt)
		if !stopAt.IsZero() && !time.Now().Before(stopAt) {
			r.cutShort() // no time left to answer
			return
		}
		if !r.goLive() {
			return
		}
	}
	r.run(f)
}

// goLive makes the answer live in this process after it waited for the
// previous answer's end, unless it was cancelled or superseded meanwhile
// (then it ends it: stream_end cancelled, if it takes the end). It reports
// whether the answer goes on.
func (r *run) goLive() bool {
	h, c := r.h, r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	stop, err := h.store.AnswerCancelled(r.ctx, c.id, r.id)
	if err != nil {
		r.failLocked(err)
		return false
	}
	if stop {
		r.live.stop()
		h.endCancelledLocked(r.ctx, c, r.id)
		return false
	}
	r.lastCheck = h.clock.Now()
	if old := c.live; old != nil {
		c.live = nil
		h.stopLocked(r.ctx, c, old)
	}
	c.live = r.live
	return true
}

func (r *run) run(f ClientFrame) {
	h := r.h
	query := retrievalQuery(r.text)
	r.lang, _ = parseLang(f.Lang)
	if r.lang == "" {
		r.lang = DetectLang(query)
	}
	hits, conf := search(h.retriever, query, h.cfg.TopK, r.lang)
	r.cites, r.srcs = citations(hits)
	r.sents = sentences(hits)
	if len(r.cites) == 0 {
		conf = ""
	}
	if !r.emit(SourcesFrame{Type: TypeSources, ID: r.id, Citations: r.cites, Confidence: conf}) {
		r.abandon()
		return
	}

	if len(r.cites) == 0 {
		r.co.add(h.clock.Now(), r.lang.texts().NoSources)
		r.finish(ReasonDone, StatusNoSources, guardrail.Verdict{Grounded: true})
		return
	}

	// a short answer's room at once, rather than the builder growing
	// from 8 bytes by doubling (6 allocations)
	r.streamed.Grow(answerRoom)
	toks, err := h.model.Stream(r.mctx, Prompt{Question: r.text, Lang: r.lang, Snippets: r.cites, Confidence: conf, Sentences: r.sents})
	if err != nil {
		if r.mctx.Err() != nil {
			r.interrupted()
		} else {
			r.fail(err)
		}
		return
	}
	if conf == kb.ConfidenceLow {
		// the answer says first that the snippets may not match (SPEC §4)
		r.co.add(h.clock.Now(), r.lang.texts().MayHelp)
	}
	next, done := r.produce(toks)
	defer func() {
		// the producer stops at the next token once the model's context
		// is done; Close only after it returned (Tokens are read by one
		// goroutine)
		r.halt()
		<-done
		toks.Close()
	}()

	// Everything the model said, for the verdict: the guard keeps it
	// (Text); without a guard, produced does.
	var guard *guardrail.StreamGuard
	if h.cfg.Mode == ModeHold {
		guard = h.cfg.Policy.NewStreamGuard(r.srcs)
	} else {
		r.produced.Grow(answerRoom)
	}
	tc, _ := h.clock.(timerClock)
	iv := h.cfg.CancelCheckInterval
	active := false // a token came since the last read of the cancel flag
	for {
		// Wake up to send buffered text when it is due, and, while tokens
		// come, to read the cancel flag every check interval: a cancel on
		// another instance is seen within the interval, not only at the
		// next frame. A model that sends nothing costs no reads.
		var wake, check <-chan time.Time
		var t, ct *time.Timer
		if tc != nil && r.co.pending() {
			t = tc.Timer(r.co.due().Sub(h.clock.Now()))
			wake = t.C
		}
		if tc != nil && iv > 0 && active {
			ct = tc.Timer(r.lastCheck.Add(iv).Sub(h.clock.Now()))
			check = ct.C
		}
		var tok token
		woke, checking, stopped := false, false, false
		select {
		case <-wake:
			woke = true
		case <-check:
			checking = true
		case <-r.mctx.Done():
			stopped = true
		case tok = <-next:
		}
		if t != nil {
			t.Stop()
		}
		if ct != nil {
			ct.Stop()
		}
		if woke {
			if !r.flush(h.clock.Now()) {
				return
			}
			continue
		}
		if checking {
			if r.cancelled(h.clock.Now()) {
				r.endCancelled()
				return
			}
			active = false
			continue
		}
		if stopped {
			r.interrupted() // stopped, cut short, or the invocation is over
			return
		}
		if errors.Is(tok.err, io.EOF) {
			break
		}
		if tok.err != nil {
			if r.mctx.Err() != nil {
				r.interrupted()
			} else {
				r.fail(tok.err)
			}
			return
		}
		active = true
		now := tok.at
		// Text that should have gone out before this token (the wake-up
		// came late, or the clock wakes nobody) goes out first, as it
		// would have at its due time.
		if r.co.overdue(now) && !r.flush(r.co.due()) {
			return
		}
		// The format controls that change how text shows (a bidi
		// override shows "399" as "993") go before the guard sees the
		// text, so that what streams, what is verified and what shows
		// are the same. One split across two tokens is not removed: the
		// guard blocks it.
		tok.s = guardrail.Clean(tok.s)
		safe, ok := tok.s, true
		if guard != nil {
			safe, ok = guard.Feed(tok.s)
		} else {
			r.produced.WriteString(tok.s)
		}
		if !ok {
			r.co.add(now, safe)
			r.finish(ReasonBlocked, StatusBlocked, h.cfg.Policy.Verify(guard.Text(), r.srcs))
			return
		}
		if safe != "" && r.co.add(now, safe) && !r.flush(now) {
			return
		}
	}

	var v guardrail.Verdict
	if guard != nil {
		var safe string
		safe, v = guard.Close()
		if v.Grounded {
			r.co.add(h.clock.Now(), safe)
		}
	} else {
		v = h.cfg.Policy.Verify(r.produced.String(), r.srcs)
	}
	if !v.Grounded {
		r.finish(ReasonBlocked, StatusBlocked, v)
		return
	}
	r.finish(ReasonDone, StatusVerified, v)
}

// answerRoom is what the answer's text builders start with.
const answerRoom = 512

// token is what the model's stream gave: a token or an error (io.EOF at
// the end).
type token struct {
	s   string
	err error
	at  time.Time // when it came, by the handler's clock
}

// tokenAhead is how many tokens produce reads ahead of the streaming loop
// (each a 56-byte slot of the channel, allocated with it: 4 take most of
// the goroutine switches 16 did away with, in a quarter of the memory).
const tokenAhead = 4

// produce reads the model's tokens in a goroutine, so that the streaming
// loop can send buffered text while the model is slow. It reads up to
// tokenAhead tokens ahead of the loop, so that a fast model does not hand
// over every token with a goroutine switch; a stopped answer drops them.
// The goroutine ends after the first error (io.EOF included) or when the
// model's context is done; done is closed then.
func (r *run) produce(toks Tokens) (<-chan token, <-chan struct{}) {
	next, done := make(chan token, tokenAhead), make(chan struct{})
	go func() {
		defer close(done)
		for {
			s, err := toks.Next()
			select {
			case next <- token{s, err, r.h.clock.Now()}:
			case <-r.mctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return next, done
}

// flush sends the buffered released text, sent at now, after checking the
// cancel flag: nothing goes out once the store says the answer must stop.
// It reports whether the answer goes on.
func (r *run) flush(now time.Time) bool {
	if !r.co.pending() {
		return true
	}
	if r.cancelled(now) {
		r.endCancelled()
		return false
	}
	if !r.delta(r.co.take(now)) {
		r.abandon()
		return false
	}
	return true
}

// interrupted ends an answer whose model context is done: cut short at
// the invocation's deadline, or stopped in this process (whoever stopped
// it took care of its end), or the invocation is over.
func (r *run) interrupted() {
	if errors.Is(context.Cause(r.mctx), errCutShort) {
		r.cutShort()
		return
	}
	r.abandon()
}

// errCutShort is the cause of the model's context when the answer is ended
// before the invocation's deadline.
var errCutShort = errors.New("lambda: the invocation's deadline is near")

// cancelled reports whether the store says the answer must stop (read at
// most every CancelCheckInterval): cancelled, superseded or deleted
// anywhere. A store error stops the answer too (fail-closed) after telling
// the client. now is the time of the frame it gates, by the handler's clock.
func (r *run) cancelled(now time.Time) bool {
	h := r.h
	if iv := h.cfg.CancelCheckInterval; iv > 0 {
		if now.Sub(r.lastCheck) < iv {
			return false
		}
		r.lastCheck = now
	}
	stop, err := h.store.AnswerCancelled(r.ctx, r.c.id, r.id)
	if err != nil {
		r.fail(err)
		return true
	}
	return stop
}

// emit sends a frame of this answer unless it has been stopped; it reports
// whether the answer may go on.
func (r *run) emit(frame SourcesFrame) bool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.live.stopped {
		return false
	}
	return sendFrameLocked(r.h, r.ctx, r.c, r.id, frame) == nil
}

// delta sends released answer text.
func (r *run) delta(s string) bool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.live.stopped {
		return false
	}
	return r.deltaLocked(s)
}

// deltaLocked is delta with c.mu held, whether or not the answer is
// stopped (its end's taker sends the last text).
func (r *run) deltaLocked(s string) bool {
	if sendFrameLocked(r.h, r.ctx, r.c, r.id, StreamFrame{Type: TypeStream, ID: r.id, Delta: s}) != nil {
		return false
	}
	r.streamed.WriteString(s)
	return true
}

// finish ends the answer if it is still active (the store decides against
// concurrent cancels): stream_end, response, and the action suggestion the
// message calls for. If it was cancelled meanwhile, it sends stream_end
// cancelled instead (if it takes that end).
func (r *run) finish(reason, status string, v guardrail.Verdict) {
	h, c := r.h, r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.live.stopped {
		return // whoever stopped it took care of its end
	}
	ended, err := h.store.EndAnswer(r.ctx, c.id, r.id)
	if err != nil {
		r.failLocked(err)
		return
	}
	if !ended {
		r.live.stop()
		h.endCancelledLocked(r.ctx, c, r.id)
		return
	}
	defer r.release()
	// the end is taken: the text still buffered goes out without another
	// read of the cancel flag (a cancel now fails)
	if r.co.pending() && !r.deltaLocked(r.co.take(h.clock.Now())) {
		return
	}
	resp := ResponseFrame{
		Type:      TypeResponse,
		ID:        r.id,
		Text:      r.streamed.String(),
		Citations: r.cites,
		Status:    status,
		Numbers:   numbers(v, h.cfg.Policy),
	}
	if status == StatusBlocked {
		t := r.lang.texts()
		resp.Text, resp.Error = t.Blocked, t.ErrorLine
	}
	if sendFrameLocked(h, r.ctx, c, r.id, StreamEndFrame{Type: TypeStreamEnd, ID: r.id, Reason: reason}) != nil ||
		sendFrameLocked(h, r.ctx, c, r.id, resp) != nil {
		return
	}
	h.suggestLocked(r.ctx, c, r.id, r.text)
}

// cutShort ends the answer before the invocation's deadline, leaving time
// for its final writes: the released text still buffered, then stream_end
// cancelled (nothing follows it, as after a cancel), and the record is
// released, so that the client has its end and nobody waits for it. If it
// was cancelled meanwhile, it sends stream_end cancelled if it takes that
// end.
func (r *run) cutShort() {
	h, c := r.h, r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.live.stopped {
		return
	}
	r.live.stop()
	h.log.WarnContext(r.ctx, "answer cut short: the invocation's deadline is near", "conn", c.id, "msg", Mask(r.id))
	ctx := context.WithoutCancel(r.ctx)
	ended, err := h.store.EndAnswer(ctx, c.id, r.id)
	if err != nil {
		// fail closed: the client still gets its end
		h.logError(r.ctx, "end answer: store", c.id, r.id, err)
		ended = true
	}
	if !ended {
		h.endCancelledLocked(ctx, c, r.id)
		return
	}
	defer r.release()
	if r.co.pending() && !r.deltaLocked(r.co.take(h.clock.Now())) {
		return
	}
	h.sendLocked(ctx, c, r.id, StreamEndFrame{Type: TypeStreamEnd, ID: r.id, Reason: ReasonCancelled})
}

// fail ends the answer on an internal error: logged, and the client gets an
// `error` frame (internal, with the message id) instead of stream_end and
// response, if the answer was still active; if it was cancelled meanwhile,
// stream_end cancelled (if it takes that end).
func (r *run) fail(err error) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.failLocked(err)
}

// failLocked is fail with c.mu held.
func (r *run) failLocked(err error) {
	h, c := r.h, r.c
	h.logError(r.ctx, "answer", c.id, r.id, err)
	if r.live.stopped {
		return
	}
	r.live.stop()
	ended, serr := h.store.EndAnswer(context.WithoutCancel(r.ctx), c.id, r.id)
	if serr != nil {
		// fail closed: tell the client (the store may be down)
		h.logError(r.ctx, "end answer: store", c.id, r.id, serr)
		ended = true
	}
	if !ended {
		h.endCancelledLocked(r.ctx, c, r.id)
		return
	}
	h.sendLocked(r.ctx, c, r.id, errorFrame(r.id, err))
	r.release()
}

// endCancelled ends an answer that the store says is cancelled,
// superseded or gone: the streamer takes its end if nobody did (a cancel in
// this process did, or one on another instance that waited in vain), and
// sends stream_end cancelled. Nothing of the answer was sent after the
// check that saw it cancelled, so nothing follows that stream_end.
func (r *run) endCancelled() {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.live.stopped {
		return
	}
	r.live.stop()
	r.h.endCancelledLocked(r.ctx, r.c, r.id)
}

// abandon stops an answer that cannot go on: stopped in this process
// (whoever stopped it, a cancel or the connection going away, took care of
// its end), or a failed send, or the invocation is over. In the last two
// cases it takes the end if it can, sends nothing (it could not), and
// releases the answer's record, so that nobody waits for it.
func (r *run) abandon() {
	h, c := r.h, r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.live.stopped {
		return
	}
	r.live.stop()
	ctx := context.WithoutCancel(r.ctx)
	ended, err := h.store.EndAnswer(ctx, c.id, r.id)
	if err == nil && !ended {
		ended, err = h.store.TakeAnswerEnd(ctx, c.id, r.id)
	}
	if err != nil {
		h.logError(r.ctx, "end answer: store", c.id, r.id, err)
		return
	}
	if ended {
		r.release()
	}
}

// release releases the answer's record once its end is sent.
func (r *run) release() {
	if err := r.h.store.ReleaseAnswer(context.WithoutCancel(r.ctx), r.c.id, r.id); err != nil {
		r.h.logError(r.ctx, "release answer: store", r.c.id, r.id, err)
	}
}

// numbers converts a verdict to the protocol's number verdicts (never nil).
// A number that blocks is withheld: its text, canonical form and formula
// are empty and its citation -1, so it never reaches the client, not even
// in a structured field; its state tells why it blocks (ungrounded, or
// under the strict policy unverified or derived).
func numbers(v guardrail.Verdict, policy guardrail.Policy) []NumberVerdict {
	out := make([]NumberVerdict, 0, len(v.Numbers))
	for _, n := range v.Numbers {
		nv := NumberVerdict{Kind: n.Kind.String(), State: n.State.String(), Grounded: n.Grounded, Citation: -1}
		if !policy.Blocks(n.State) {
			nv.Citation = int(n.Citation)
			nv.Text, nv.Canonical = n.Text, n.Canonical
			if n.Derivation != nil {
				nv.Formula, nv.Operands = n.Formula, n.Operands
			}
		}
		out = append(out, nv)
	}
	return out
}

// begin records message id's answer started in the store and makes live
// the connection's live answer, stopping the one before it (superseded),
// under c.mu (released even if the store panics). It returns the id of an
// answer the store still held active, "" when none.
func (h *Handler) begin(ctx context.Context, c *conn, id string, live *liveAnswer, r *run) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	prev, err := h.store.StartAnswer(ctx, c.id, id, h.clock.Now())
	if err != nil {
		return "", err
	}
	if old := c.live; old != nil {
		// only one live answer per connection: the previous one,
		// superseded now (or cancelled before), ends here at once
		c.live = nil
		if h.stopLocked(ctx, c, old) && old.msgID == prev {
			prev = ""
		}
	}
	if prev == "" {
		c.live = live
		// the store has just recorded the answer active: as good as a
		// read of its cancel flag
		r.lastCheck = h.clock.Now()
	}
	return prev, nil
}

// retrievalQuery is what the knowledge base is searched with: the message,
// or for `$say ` the scripted text (SPEC §4.1), without the mock model's
// trigger word, which is an instruction to the model and would only make
// retrieval miss ("hallucinate: what does Premium cost?").
func retrievalQuery(text string) string {
	text = strings.TrimPrefix(text, sayPrefix)
	if i := indexFoldASCII(text, HallucinateTrigger); i >= 0 {
		text = text[:i] + text[i+len(HallucinateTrigger):]
	}
	return strings.TrimLeft(strings.TrimSpace(text), ":,.-– ")
}

// indexFoldASCII returns the byte index in s of the first instance of sub,
// which is lower-case ASCII, ignoring ASCII case, or -1. It reads s in place: an index
// found in strings.ToLower(s) is not one of s when lower-casing changes a
// letter's length before it ("Ⱥ" is 2 bytes, "ⱥ" 3), and slicing s there
// cuts a letter or runs past its end.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lowerASCII(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
