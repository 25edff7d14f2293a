package lambda

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/groundwire/groundwire/guardrail"
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
	mctx  context.Context // cancelled by stop: for the model
	id    string
	text  string
	lang  Lang
	cites []Citation
	srcs  []*guardrail.Source

	lastCheck time.Time
	streamed  strings.Builder // concatenated stream deltas
	produced  strings.Builder // everything the model said
}

// answer handles a `message` frame (SPEC §4): it becomes the connection's
// active answer (superseding one still streaming: stream_end cancelled for
// that one first), then retrieve → sources → stream through the guard →
// stream_end → response → optional action_suggestion. It returns when the
// answer has ended, been cancelled or superseded, or the connection is gone.
func (h *Handler) answer(ctx context.Context, c *conn, f ClientFrame) {
	c.mu.Lock()
	superseded, err := h.store.StartAnswer(ctx, c.id, f.ID, h.clock.Now())
	if err != nil {
		c.mu.Unlock()
		h.sendError(ctx, c, f.ID, err)
		return
	}
	if c.live != nil {
		c.live.stop() // only one live answer per connection
	}
	if superseded != "" {
		h.sendLocked(ctx, c, superseded, StreamEndFrame{Type: TypeStreamEnd, ID: superseded, Reason: ReasonCancelled})
	}
	mctx, halt := context.WithCancel(ctx)
	defer halt()
	live := &liveAnswer{msgID: f.ID, halt: halt}
	c.live = live
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.live == live {
			c.live = nil
		}
		c.mu.Unlock()
	}()

	r := &run{h: h, c: c, live: live, ctx: ctx, mctx: mctx, id: f.ID, text: f.Text}
	r.run(f)
}

func (r *run) run(f ClientFrame) {
	h := r.h
	query := retrievalQuery(r.text)
	r.lang, _ = parseLang(f.Lang)
	if r.lang == "" {
		r.lang = DetectLang(query)
	}
	r.cites, r.srcs = citations(search(h.retriever, query, h.cfg.TopK, r.lang))
	if !r.emit(SourcesFrame{Type: TypeSources, ID: r.id, Citations: r.cites}) {
		r.abandon()
		return
	}

	if len(r.cites) == 0 {
		sentence := r.lang.texts().NoSources
		if !r.delta(sentence) {
			r.abandon()
			return
		}
		r.finish(ReasonDone, StatusNoSources, guardrail.Verdict{Grounded: true})
		return
	}

	toks, err := h.model.Stream(r.mctx, Prompt{Question: r.text, Lang: r.lang, Snippets: r.cites})
	if err != nil {
		r.fail(err)
		return
	}
	defer toks.Close()

	var guard *guardrail.StreamGuard
	if h.cfg.Mode == ModeHold {
		guard = guardrail.NewStreamGuard(r.srcs)
	}
	for {
		tok, err := toks.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if r.mctx.Err() != nil {
				r.abandon() // stopped, or the invocation is over
			} else {
				r.fail(err)
			}
			return
		}
		// Check the cancel flag after the token arrived and right before
		// it is sent: a cancel that completed before this point (in any
		// process) is honoured, so the stream stops before the next token.
		if r.cancelled() {
			r.abandon()
			return
		}
		r.produced.WriteString(tok)
		if guard == nil {
			if !r.delta(tok) {
				r.abandon()
				return
			}
			continue
		}
		safe, ok := guard.Feed(tok)
		if safe != "" && !r.delta(safe) {
			r.abandon()
			return
		}
		if !ok {
			r.finish(ReasonBlocked, StatusBlocked, guardrail.Verify(r.produced.String(), r.srcs))
			return
		}
	}

	var v guardrail.Verdict
	if guard != nil {
		var safe string
		safe, v = guard.Close()
		if v.Grounded && safe != "" && !r.delta(safe) {
			r.abandon()
			return
		}
	} else {
		v = guardrail.Verify(r.produced.String(), r.srcs)
	}
	if !v.Grounded {
		r.finish(ReasonBlocked, StatusBlocked, v)
		return
	}
	r.finish(ReasonDone, StatusVerified, v)
}

// cancelled reports whether the answer must stop: stopped in this process,
// or (read from the store at most every CancelCheckInterval) cancelled,
// superseded or deleted anywhere. A store error stops the answer too
// (fail-closed) after telling the client.
func (r *run) cancelled() bool {
	if r.mctx.Err() != nil {
		return true
	}
	h := r.h
	if iv := h.cfg.CancelCheckInterval; iv > 0 {
		now := h.clock.Now()
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
func (r *run) emit(frame any) bool {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if r.live.stopped {
		return false
	}
	return r.h.sendLocked(r.ctx, r.c, r.id, frame) == nil
}

// delta sends released answer text.
func (r *run) delta(s string) bool {
	if !r.emit(StreamFrame{Type: TypeStream, ID: r.id, Delta: s}) {
		return false
	}
	r.streamed.WriteString(s)
	return true
}

// finish ends the answer if it is still the connection's active one (the
// store decides against concurrent cancels): stream_end, response, and the
// action suggestion the message calls for.
func (r *run) finish(reason, status string, v guardrail.Verdict) {
	h, c := r.h, r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.live.stopped {
		r.endQuietly()
		return
	}
	ended, err := h.store.EndAnswer(r.ctx, c.id, r.id)
	if err != nil {
		h.logError(r.ctx, "end answer: store", c.id, r.id, err)
		h.sendLocked(r.ctx, c, r.id, errorFrame(r.id, err))
		return
	}
	if !ended {
		return
	}
	resp := ResponseFrame{
		Type:      TypeResponse,
		ID:        r.id,
		Text:      r.streamed.String(),
		Citations: r.cites,
		Status:    status,
		Numbers:   numbers(v),
	}
	if status == StatusBlocked {
		t := r.lang.texts()
		resp.Text, resp.Error = t.Blocked, t.ErrorLine
	}
	if h.sendLocked(r.ctx, c, r.id, StreamEndFrame{Type: TypeStreamEnd, ID: r.id, Reason: reason}) != nil ||
		h.sendLocked(r.ctx, c, r.id, resp) != nil {
		return
	}
	h.suggestLocked(r.ctx, c, r.id, r.text)
}

// fail ends the answer on an internal error: logged, and the client gets an
// `error` frame (internal, with the message id) instead of stream_end and
// response, if the answer was still active.
func (r *run) fail(err error) {
	h, c := r.h, r.c
	h.logError(r.ctx, "answer", c.id, r.id, err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.live.stopped {
		r.endQuietly()
		return
	}
	r.live.stop()
	ended, serr := h.store.EndAnswer(context.WithoutCancel(r.ctx), c.id, r.id)
	if serr != nil {
		h.logError(r.ctx, "end answer: store", c.id, r.id, serr)
		ended = true
	}
	if ended {
		h.sendLocked(r.ctx, c, r.id, errorFrame(r.id, err))
	}
}

// abandon stops an answer that was cancelled, superseded or whose
// connection is gone: it sends nothing (whoever cancelled it sent its
// stream_end) and removes its answer record if that is still there.
func (r *run) abandon() {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.live.stop()
	r.endQuietly()
}

// endQuietly removes this answer's record (cancelled or not) without
// sending anything. c.mu must be held.
func (r *run) endQuietly() {
	if _, err := r.h.store.EndAnswer(context.WithoutCancel(r.ctx), r.c.id, r.id); err != nil {
		r.h.logError(r.ctx, "end answer: store", r.c.id, r.id, err)
	}
}

// numbers converts a verdict to the protocol's number verdicts (never nil).
// An ungrounded number is withheld: its text and canonical form are empty,
// so it never reaches the client, not even in a structured field.
func numbers(v guardrail.Verdict) []NumberVerdict {
	out := make([]NumberVerdict, 0, len(v.Numbers))
	for _, n := range v.Numbers {
		nv := NumberVerdict{Kind: string(n.Kind), Grounded: n.Grounded, Citation: n.Citation}
		if n.Grounded {
			nv.Text, nv.Canonical = n.Text, n.Canonical
		}
		out = append(out, nv)
	}
	return out
}

// retrievalQuery is what the knowledge base is searched with: the message,
// or for `$say ` the scripted text (SPEC §4.1), without the mock model's
// trigger word, which is an instruction to the model and would only make
// retrieval miss ("hallucinate: what does Premium cost?").
func retrievalQuery(text string) string {
	text = strings.TrimPrefix(text, sayPrefix)
	if i := strings.Index(strings.ToLower(text), HallucinateTrigger); i >= 0 {
		text = text[:i] + text[i+len(HallucinateTrigger):]
	}
	return strings.TrimLeft(strings.TrimSpace(text), ":,.-– ")
}
