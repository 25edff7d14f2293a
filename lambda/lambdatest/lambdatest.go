// Package lambdatest has test doubles for package lambda and its adapters:
// a recording Sender and a fake Clock.
package lambdatest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// Sender records every frame sent, per connection, in order. Connections
// marked gone make Send fail with an error wrapping lambda.ErrGone. It is
// safe for concurrent use.
type Sender struct {
	mu     sync.Mutex
	frames map[string][][]byte
	gone   map[string]bool
	notify chan struct{}
}

// NewSender returns an empty recording sender.
func NewSender() *Sender {
	return &Sender{frames: map[string][][]byte{}, gone: map[string]bool{}, notify: make(chan struct{}, 1)}
}

// Send implements lambda.Sender.
func (s *Sender) Send(ctx context.Context, connID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone[connID] {
		return fmt.Errorf("post to %s: %w", connID, lambda.ErrGone)
	}
	s.frames[connID] = append(s.frames[connID], append([]byte(nil), data...))
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return nil
}

// SetGone makes later sends to the connection fail with ErrGone.
func (s *Sender) SetGone(connID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gone[connID] = true
}

// Raw returns the frames sent to a connection so far.
func (s *Sender) Raw(connID string) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.frames[connID]...)
}

// Frames returns the frames sent to a connection so far, decoded.
func (s *Sender) Frames(connID string) []Frame {
	var out []Frame
	for _, b := range s.Raw(connID) {
		var f Frame
		if err := json.Unmarshal(b, &f); err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}

// Reset forgets the frames recorded for a connection.
func (s *Sender) Reset(connID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.frames, connID)
}

// WaitFor waits until cond holds for the connection's frames (checked after
// every send) or the timeout passes, and returns the frames.
func (s *Sender) WaitFor(connID string, timeout time.Duration, cond func([]Frame) bool) ([]Frame, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		fs := s.Frames(connID)
		if cond(fs) {
			return fs, true
		}
		select {
		case <-s.notify:
		case <-time.After(5 * time.Millisecond):
		case <-deadline.C:
			return s.Frames(connID), false
		}
	}
}

// Frame is any server frame, decoded (the union of their fields).
type Frame struct {
	Type         string                 `json:"type"`
	ID           string                 `json:"id"`
	Citations    []lambda.Citation      `json:"citations"`
	Delta        string                 `json:"delta"`
	Reason       string                 `json:"reason"`
	Text         string                 `json:"text"`
	Status       string                 `json:"status"`
	Numbers      []lambda.NumberVerdict `json:"numbers"`
	Error        string                 `json:"error"`
	SuggestionID string                 `json:"suggestionId"`
	Action       string                 `json:"action"`
	Payload      map[string]string      `json:"payload"`
	Result       lambda.ActionResult    `json:"result"`
	Code         string                 `json:"code"`
	Message      string                 `json:"message"`
}

// String is a short form for sequences in tests: "sources:m1",
// "stream:m1", "stream_end:m1:done", "response:m1:verified",
// "action_suggestion:m1:send_sms", "action_executed:<message>",
// "error:m1:bad_request".
func (f Frame) String() string {
	switch f.Type {
	case lambda.TypeStreamEnd:
		return f.Type + ":" + f.ID + ":" + f.Reason
	case lambda.TypeResponse:
		return f.Type + ":" + f.ID + ":" + f.Status
	case lambda.TypeActionSuggestion:
		return f.Type + ":" + f.ID + ":" + f.Action
	case lambda.TypeActionExecuted:
		return f.Type + ":" + f.Result.Message
	case lambda.TypeError:
		return f.Type + ":" + f.ID + ":" + f.Code
	}
	return f.Type + ":" + f.ID
}

// Summary is the short forms of frames, runs of stream frames of one
// message collapsed into one.
func Summary(fs []Frame) string {
	var out []string
	for i, f := range fs {
		if f.Type == lambda.TypeStream && i > 0 && fs[i-1].Type == lambda.TypeStream && fs[i-1].ID == f.ID {
			continue
		}
		out = append(out, f.String())
	}
	return strings.Join(out, " ")
}

// Deltas concatenates the stream deltas of a message.
func Deltas(fs []Frame, msgID string) string {
	var b strings.Builder
	for _, f := range fs {
		if f.Type == lambda.TypeStream && f.ID == msgID {
			b.WriteString(f.Delta)
		}
	}
	return b.String()
}

// Clock is a fake lambda.Clock. Now moves only by Advance and by Sleep:
// Sleep advances the clock by its duration and returns at once (so a mock
// model with token delays runs instantly). It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a fake clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now implements lambda.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep implements lambda.Clock without waiting.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.Advance(d)
	}
	return nil
}

var _ lambda.Clock = (*Clock)(nil)
var _ lambda.Sender = (*Sender)(nil)

// CheckFlows checks the order of the frames sent to one connection against
// SPEC §5 and §7, and returns the first violation. Every message's frames
// are sources, stream…, then its end: stream_end done or blocked followed
// by response and optionally action_suggestion, or stream_end cancelled, or
// an internal error; a message superseded before it started may get only
// its stream_end cancelled, one that failed to start only its error.
// Nothing of a message follows its end (in particular no stream frame after
// stream_end cancelled), a message gets one end, and a message's frames do
// not begin before the previous message's end (a superseded answer's
// stream_end cancelled comes first). action_executed frames and refusals
// (errors other than internal, or without an id) are ignored.
func CheckFlows(fs []Frame) error {
	type state int
	const (
		started  state = iota + 1 // sources sent, streaming
		ended                     // stream_end done/blocked sent: response due
		answered                  // response sent: an action_suggestion may follow
		closed                    // nothing more
	)
	at := map[string]state{}
	open := "" // the message whose frames came last
	for i, f := range fs {
		if f.Type == lambda.TypeActionExecuted || f.ID == "" || f.Type == lambda.TypeError && f.Code != lambda.EInternal {
			continue
		}
		bad := func(why string) error {
			return fmt.Errorf("frame %d %s: %s; frames: %s", i, f, why, Summary(fs))
		}
		st, seen := at[f.ID]
		if open != f.ID {
			switch at[open] {
			case started, ended:
				return bad("before the end of " + open)
			case answered:
				at[open] = closed
			}
			if seen {
				return bad("after the end of its message")
			}
		}
		if st == closed {
			return bad("after the end of its message")
		}
		switch f.Type {
		case lambda.TypeSources:
			if seen {
				return bad("sources twice")
			}
			st = started
		case lambda.TypeStream:
			if st != started {
				return bad("stream outside the stream")
			}
		case lambda.TypeStreamEnd:
			switch {
			case f.Reason == lambda.ReasonCancelled && (st == started || !seen):
				st = closed
			case f.Reason != lambda.ReasonCancelled && st == started:
				st = ended
			default:
				return bad("stream_end outside the stream")
			}
		case lambda.TypeResponse:
			if st != ended {
				return bad("response without stream_end")
			}
			st = answered
		case lambda.TypeActionSuggestion:
			if st != answered {
				return bad("action_suggestion without response")
			}
			st = closed
		case lambda.TypeError:
			if seen && st != started {
				return bad("error outside the stream")
			}
			st = closed
		default:
			return bad("unknown frame")
		}
		at[f.ID] = st
		open = f.ID
	}
	return nil
}
