package lambda

import (
	"strings"
	"time"
)

// coalescer decides when released answer text is sent, so that an answer
// costs a few `stream` frames (each a billed PostToConnection in AWS)
// instead of one per token. With a zero interval every piece goes out at
// once. Otherwise:
//
//   - text released when nothing was sent for at least the interval (the
//     answer's first text in particular) goes out at once: the time to the
//     first token is unchanged;
//   - later text waits in the buffer until the interval has passed since
//     the last send, so frames are at least an interval apart and no text
//     waits longer than the interval.
//
// It keeps no clock: callers pass the time (the handler's Clock).
type coalescer struct {
	every    time.Duration
	buf      strings.Builder
	lastSend time.Time // zero: nothing sent yet
}

// add buffers s, released at now, and reports whether the buffer must be
// sent now.
func (co *coalescer) add(now time.Time, s string) bool {
	co.buf.WriteString(s)
	return co.buf.Len() > 0 && !now.Before(co.due())
}

// pending reports whether text waits in the buffer.
func (co *coalescer) pending() bool { return co.buf.Len() > 0 }

// due is when the buffered text must go out: an interval after the last
// send (the zero time when nothing was sent, so at once).
func (co *coalescer) due() time.Time {
	if co.every <= 0 || co.lastSend.IsZero() {
		return time.Time{}
	}
	return co.lastSend.Add(co.every)
}

// overdue reports whether buffered text should have gone out before now
// (when the wake-up came late, or the clock does not wake anybody).
func (co *coalescer) overdue(now time.Time) bool {
	return co.pending() && !now.Before(co.due())
}

// take empties the buffer, sent at now, and returns its text.
func (co *coalescer) take(now time.Time) string {
	s := co.buf.String()
	co.buf.Reset()
	co.lastSend = now
	return s
}

// timerClock is a Clock that can wake a goroutine up: SystemClock. With a
// clock that cannot (a test's fake clock), buffered text goes out when the
// next token arrives after its due time, or at the end of the answer.
type timerClock interface {
	Timer(d time.Duration) *time.Timer
}

// Timer returns a timer that fires after d (the coalescer's wake-ups).
func (SystemClock) Timer(d time.Duration) *time.Timer { return time.NewTimer(d) }
