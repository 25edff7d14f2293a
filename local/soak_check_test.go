package main

import (
	"strings"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
)

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
			// Under store faults a cancel of this id whose store call
			// failed sends an error with the id before the answer it did
			// not cancel; nothing of the answer itself precedes sources.
			if sources != nil || i != 0 && !(r.faults && i == errs) {
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
