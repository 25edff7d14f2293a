package lambda

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

// sleepRecorder is a Clock whose Sleep returns at once and records the
// duration: the mock model's token delays.
type sleepRecorder struct{ delays []time.Duration }

func (c *sleepRecorder) Now() time.Time { return time.Time{} }
func (c *sleepRecorder) Sleep(ctx context.Context, d time.Duration) error {
	c.delays = append(c.delays, d)
	return nil
}

// released is a piece of answer text the guard released, and when.
type released struct {
	at time.Time
	s  string
}

// timeline is the released text of the mock model's answer to question,
// answered from the real knowledge base at the mock's default speed
// (20–80 ms a token), through the hold-mode guard as the handler runs it.
func timeline(t *testing.T, question string) []released {
	t.Helper()
	base, err := kb.Default()
	require.NoError(t, err)
	lang := DetectLang(question)
	hits, _ := search(base, question, DefaultTopK, lang)
	cites, srcs := citations(hits)
	require.NotEmpty(t, cites, "no snippets for %q", question)
	rec := &sleepRecorder{}
	toks, err := NewMock(MockClock(rec)).Stream(t.Context(), Prompt{Question: question, Lang: lang, Snippets: cites})
	require.NoError(t, err)
	defer toks.Close()
	guard := guardrail.Default.NewStreamGuard(srcs)
	at := time.Unix(0, 0)
	var out []released
	for {
		tok, err := toks.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		at = at.Add(rec.delays[len(rec.delays)-1])
		safe, ok := guard.Feed(tok)
		require.True(t, ok, "blocked")
		if safe != "" {
			out = append(out, released{at, safe})
		}
	}
	safe, v := guard.Close()
	require.True(t, v.Grounded)
	if safe != "" {
		out = append(out, released{at, safe})
	}
	return out
}

// frameSent is one stream frame: when it was sent and how long its
// oldest text waited.
type frameSent struct {
	at, waited time.Duration
	s          string
}

// coalesce runs the coalescer over a timeline as the handler's streaming
// loop does with a clock that wakes it up: buffered text goes out at its
// due time (the timer) or with the text that makes it due; the rest at the
// end of the answer.
func coalesce(every time.Duration, tl []released) []frameSent {
	co := coalescer{every: every}
	start := time.Unix(0, 0)
	var out []frameSent
	var oldest time.Time
	send := func(at time.Time) {
		out = append(out, frameSent{at: at.Sub(start), waited: at.Sub(oldest), s: co.take(at)})
	}
	for _, r := range tl {
		if co.overdue(r.at) {
			send(co.due()) // the timer fired before this text came
		}
		if !co.pending() {
			oldest = r.at
		}
		if co.add(r.at, r.s) {
			send(r.at)
		}
	}
	if co.pending() {
		send(tl[len(tl)-1].at) // finish: the end is taken, the rest goes out
	}
	return out
}

// TestCoalesceTypicalAnswers: on the released text of typical answers at
// the mock's default speed, coalescing sends the first text at once, no
// text waits longer than the interval, frames are at least the interval
// apart (but the last, which goes out with the answer's end), the frames concatenate to the text, and there are far fewer
// frames than tokens. The figures (PostToConnection calls per answer:
// sources, stream frames, stream_end, response) are logged.
func TestCoalesceTypicalAnswers(t *testing.T) {
	questions := []string{
		"How much does Premium cost?",
		"hi, what does premium cost per month and is basic cheaper?? thx",
		"Vad kostar Premium per månad?",
		"what are your support hours on saturday, and can i call you",
	}
	for _, q := range questions {
		tl := timeline(t, q)
		var text string
		for _, r := range tl {
			text += r.s
		}
		dur := tl[len(tl)-1].at.Sub(tl[0].at)
		perToken := coalesce(0, tl)
		require.Len(t, perToken, len(tl))
		for _, every := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond} {
			fs := coalesce(every, tl)
			var got string
			for i, f := range fs {
				got += f.s
				assert.LessOrEqual(t, f.waited, every, "%q: frame %d waited %v", q, i, f.waited)
				if i > 0 && i < len(fs)-1 { // the last goes out with the end
					assert.GreaterOrEqual(t, f.at-fs[i-1].at, every, "%q: frames %d and %d too close", q, i-1, i)
				}
			}
			assert.Equal(t, text, got, q)
			assert.Equal(t, tl[0].s, fs[0].s, "%q: the first text is not sent alone", q)
			assert.Equal(t, tl[0].at.Sub(time.Unix(0, 0)), fs[0].at, "%q: the first text is delayed", q)
			// frames at least `every` apart over the answer's duration
			assert.LessOrEqual(t, len(fs), 2+int(dur/every), q)
			t.Logf("%-66q %v streaming, every %v: %2d PostToConnection (per token: %d)", q, dur.Round(time.Millisecond), every, len(fs)+3, len(perToken)+3)
		}
		if q == questions[0] {
			assert.LessOrEqual(t, len(coalesce(250*time.Millisecond, tl))+3, 8, "the typical price answer")
		}
	}
}

func TestCoalescerFirstAndPause(t *testing.T) {
	t0 := time.Unix(0, 0)
	co := coalescer{every: 100 * time.Millisecond}
	assert.True(t, co.add(t0, "Premium"), "the first text waits")
	co.take(t0)
	assert.False(t, co.add(t0.Add(30*time.Millisecond), " costs"))
	assert.Equal(t, t0.Add(100*time.Millisecond), co.due())
	assert.False(t, co.overdue(t0.Add(99*time.Millisecond)))
	assert.True(t, co.overdue(t0.Add(100*time.Millisecond)))
	assert.Equal(t, " costs", co.take(co.due()))
	// after a pause longer than the interval, text goes out at once
	assert.True(t, co.add(t0.Add(500*time.Millisecond), " 399 kr."))
	// no interval: every piece at once
	co = coalescer{}
	assert.True(t, co.add(t0, "a"))
	co.take(t0)
	assert.True(t, co.add(t0, "b"))
}
