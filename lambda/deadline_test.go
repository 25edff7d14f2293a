package lambda_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// within delivers a client frame in an invocation whose context ends after
// d, as the Lambda runtime sets it from the function's timeout, and returns
// a channel that receives the context's error at the moment the invocation
// returned (nil: it returned before its deadline).
func (hs *harness) within(d time.Duration, conn string, frame any) <-chan error {
	b, err := json.Marshal(frame)
	require.NoError(hs.t, err)
	req := event(lambda.EventMessage, conn)
	req.Body = string(b)
	out := make(chan error, 1)
	hs.wg.Add(1)
	go func() {
		defer hs.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		hs.h.Handle(ctx, req)
		out <- ctx.Err()
	}()
	return out
}

// realTime makes the harness run on the system clock with a mock model
// that takes d per token.
func realTime(d time.Duration) func(*lambda.Config) {
	return func(cfg *lambda.Config) {
		cfg.Clock = lambda.SystemClock{}
		cfg.Model = lambda.NewMock(lambda.MockDelay(d, d), lambda.MockClock(lambda.SystemClock{}))
		cfg.Limits.NoRateLimit = true
	}
}

// TestDeadlineEndsAnswer: an answer that would outlast its invocation (a
// 1.5 s Lambda timeout, a model that needs 4 s) ends before the deadline
// with stream_end cancelled, after the text released so far; its record
// is released, so a follow-up message in its own short invocation is
// answered in full at once.
func TestDeadlineEndsAnswer(t *testing.T) {
	long := "$say Premium costs 399 kr/month," + strings.Repeat(" and then some more words", 80)
	for _, tc := range []struct {
		name string
		opts func(*lambda.Config)
	}{
		{"hold", func(cfg *lambda.Config) {}},
		{"after", func(cfg *lambda.Config) { cfg.Mode = lambda.ModeAfter }},
		{"hold-coalesced", func(cfg *lambda.Config) { cfg.CoalesceInterval = 100 * time.Millisecond }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warnings logCounter
			hs := newHarness(t, realTime(10*time.Millisecond), tc.opts, logTo(&warnings))
			hs.connect("c1")
			require.NoError(t, <-hs.within(1500*time.Millisecond, "c1", msg("m1", long)), "the invocation ran into its deadline")
			checkFlows(t, hs, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled")
			streamed := deltas(hs.frames("c1"), "m1")
			assert.True(t, strings.HasPrefix(long[len("$say "):], streamed), "streamed %q", streamed)
			assert.Less(t, len(streamed), len(long)-len("$say "), "the whole answer was streamed")
			checkReleased(t, hs.store, "c1", "m1")
			assert.Equal(t, int32(1), warnings.n.Load(), "one warning: the answer cut short")

			require.NoError(t, <-hs.within(1500*time.Millisecond, "c1", msg("m2", "Hej! Vad kostar Premium i månaden?")))
			checkFlows(t, hs, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified")
			checkReleased(t, hs.store, "c1", "m2")
		})
	}
}

// TestDeadlineEveryMessageEnds: messages arriving while a long answer
// streams, each in its own 2 s invocation on one of two instances: every
// message gets its end before its invocation's deadline, in the SPEC's
// order, and nothing is left in the store.
func TestDeadlineEveryMessageEnds(t *testing.T) {
	opts := []func(*lambda.Config){realTime(10 * time.Millisecond), func(cfg *lambda.Config) {
		cfg.CancelCheckInterval = 50 * time.Millisecond
		cfg.CoalesceInterval = 100 * time.Millisecond
	}}
	a := newHarness(t, opts...)
	b := instanceOf(t, a, opts...)
	a.connect("c1")
	long := "$say Premium" + strings.Repeat(" word", 400)
	first := a.within(2*time.Second, "c1", msg("m1", long))
	a.wait("c1", "m1 streaming", has("stream:m1"))
	second := b.within(2*time.Second, "c1", msg("m2", long)) // supersedes m1 across instances
	require.NoError(t, <-first)
	require.NoError(t, <-second)
	checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:cancelled")
	require.NoError(t, <-a.within(2*time.Second, "c1", msg("m3", "and basic??")))
	checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:cancelled sources:m3 stream:m3 stream_end:m3:done response:m3:verified")
	checkReleased(t, a.store, "c1", "m1", "m2", "m3")
}

// TestDeadlineNoDoomedWait: the streamer of m1 on instance A is gone (its
// model hangs), and the superseding message lands on B in an invocation
// with a 2 s timeout, no longer than the handoff timeout (2 s): waiting it
// out would leave no time to answer. B does not: it takes m1's end early
// enough, sends its stream_end cancelled and answers m2 in full before its
// deadline. A, when it wakes up, stays silent. A cancel in a short
// invocation likewise ends m1 before its deadline.
func TestDeadlineNoDoomedWait(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame lambda.ClientFrame
		want  string
	}{
		{"supersede", msg("m2", "How much does Premium cost? Thanks!"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"},
		{"cancel", cancel(""), "sources:m1 stream:m1 stream_end:m1:cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateModel("Premium", " costs", " 399", " kr.")
			a := gateHarness(t, g)
			b := instanceOf(t, a, func(cfg *lambda.Config) { cfg.CancelHandoffTimeout = 2 * time.Second })
			a.connect("c1")
			done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
			require.NoError(t, <-b.within(2*time.Second, "c1", tc.frame), "the invocation ran into its deadline")
			checkFlows(t, a, "c1", tc.want)
			g.release() // the hung streamer wakes up
			<-done
			checkFlows(t, a, "c1", tc.want)
			checkReleased(t, a.store, "c1", "m1", "m2")
		})
	}
}

// TestCoalescedStream: with CoalesceInterval the typical answers need far
// fewer stream frames (here on the fake clock, at the mock's default
// speed), the first frame is the first released text, and what the client
// gets is otherwise the same as per token: the same text, the same
// response, the same block — hold mode releases the same text, and no
// ungrounded number reaches a frame.
func TestCoalescedStream(t *testing.T) {
	questions := []string{
		"How much does Premium cost?",
		"hi, what does premium cost per month and is basic cheaper?? thx",
		"Vad kostar Premium? hallucinate",
		"What does Premium cost, please call me on +46 70 123 45 67",
	}
	run := func(every time.Duration, mode lambda.Mode, q string) []lambdatest.Frame {
		hs := newHarness(t, func(cfg *lambda.Config) {
			cfg.Retriever = defaultKB(t)
			cfg.Model = lambda.NewMock(lambda.MockClock(cfg.Clock))
			cfg.CoalesceInterval = every
			cfg.Mode = mode
		})
		hs.connect("c1")
		hs.send("c1", msg("m1", q))
		require.NoError(t, lambdatest.CheckFlows(hs.frames("c1")))
		return hs.frames("c1")
	}
	streams := func(fs []lambdatest.Frame) (n int) {
		for _, f := range fs {
			if f.Type == lambda.TypeStream {
				n++
			}
		}
		return n
	}
	for _, mode := range []lambda.Mode{lambda.ModeHold, lambda.ModeAfter} {
		for _, q := range questions {
			perToken := run(0, mode, q)
			coalesced := run(100*time.Millisecond, mode, q)
			assert.Equal(t, withoutStream(perToken), withoutStream(coalesced), q)
			assert.Equal(t, deltas(perToken, "m1"), deltas(coalesced, "m1"), q)
			assert.Equal(t, last(perToken, lambda.TypeResponse), last(coalesced, lambda.TypeResponse), q)
			assert.Equal(t, perToken[1], coalesced[1], "%q: the first frame differs", q)
			if n := streams(perToken); n > 3 {
				assert.Less(t, streams(coalesced), n, q)
			}
			t.Logf("mode %d %-62q PostToConnection: %2d per token, %2d coalesced (100 ms)", mode, q, len(perToken), len(coalesced))
		}
	}
}

// TestCoalescedTimer: on the system clock, buffered text goes out when its
// time comes even if the model sends nothing more; the first text goes
// out before the model gives the next token.
func TestCoalescedTimer(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g, func(cfg *lambda.Config) {
		cfg.Clock = lambda.SystemClock{}
		cfg.CoalesceInterval = 50 * time.Millisecond
	})
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	assert.Equal(t, "Premium", deltas(hs.frames("c1"), "m1"))
	g.step <- struct{}{}
	hs.wait("c1", "the buffered token", func(fs []lambdatest.Frame) bool { return deltas(fs, "m1") == "Premium costs" })
	g.release()
	<-done
	checkFlows(t, hs, "c1", "sources:m1 stream:m1 stream_end:m1:done response:m1:verified")
	assert.Equal(t, "Premium costs 399 kr.", deltas(hs.frames("c1"), "m1"))
}

// defaultKB is the embedded knowledge base.
func defaultKB(t *testing.T) lambda.Retriever {
	t.Helper()
	base, err := kb.Default()
	require.NoError(t, err)
	return base
}

// TestCancelReadsPerAnswer: the typical answers, on the fake clock at the
// mock's default speed, read the cancel flag at most once per check
// interval (the fake clock wakes nobody: only before a frame), never right
// after the answer started, never before its last frame (whose end is
// taken by a conditional write):
// with the bootstrap's settings (100 ms coalescing, 200 ms checks) fewer
// reads than per token with 100 ms checks.
func TestCancelReadsPerAnswer(t *testing.T) {
	reads := func(q string, coalesce, check time.Duration) (int, time.Duration) {
		fs := &faultyStore{Store: lambda.NewMemStore()}
		hs := newHarness(t, func(cfg *lambda.Config) {
			cfg.Retriever = defaultKB(t)
			cfg.Model = lambda.NewMock(lambda.MockClock(cfg.Clock))
			cfg.Store = fs
			cfg.CoalesceInterval, cfg.CancelCheckInterval = coalesce, check
		})
		hs.connect("c1")
		start := hs.clock.Now()
		hs.send("c1", msg("m1", q))
		checkFlows(t, hs, "c1", "sources:m1 stream:m1 stream_end:m1:done response:m1:verified")
		return fs.checkCount(), hs.clock.Now().Sub(start)
	}
	for _, q := range []string{
		"How much does Premium cost?",
		"hi, what does premium cost per month and is basic cheaper?? thx",
		"Vad kostar Premium per månad?",
	} {
		before, _ := reads(q, 0, 100*time.Millisecond)
		after, d := reads(q, 100*time.Millisecond, 200*time.Millisecond)
		assert.Less(t, after, before, q)
		assert.LessOrEqual(t, after, int(d/(200*time.Millisecond)), q)
		t.Logf("%-66q %v: %d reads of the cancel flag (per token, 100 ms checks: %d)", q, d.Round(time.Millisecond), after, before)
	}
}

// TestCancelCheckTimer: on the system clock the streamer reads the cancel
// flag every check interval while tokens come, even when no frame is due
// (here the coalescing interval is far longer): a cancel on another
// instance ends the stream at the streamer's next read, before the
// canceller's handoff times out, and the buffered tokens are never sent.
func TestCancelCheckTimer(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	var warnings logCounter
	a := gateHarness(t, g, func(cfg *lambda.Config) {
		cfg.Clock = lambda.SystemClock{}
		cfg.CancelCheckInterval = 20 * time.Millisecond
		cfg.CoalesceInterval = time.Hour
	})
	b := instanceOf(t, a, logTo(&warnings), func(cfg *lambda.Config) { cfg.CancelHandoffTimeout = 10 * time.Second })
	a.connect("c1")
	done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
	g.step <- struct{}{} // buffered
	cancelled := b.sendAsync("c1", cancel("m1"))
	require.Eventually(t, func() bool {
		stop, err := a.store.AnswerCancelled(t.Context(), "c1", "m1")
		return err == nil && stop
	}, 5*time.Second, time.Millisecond, "the cancel is not recorded")
	g.step <- struct{}{} // a token came: the streamer reads the flag within 20 ms
	<-cancelled
	g.release()
	<-done
	checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled")
	assert.Equal(t, "Premium", deltas(a.frames("c1"), "m1"))
	assert.Zero(t, warnings.n.Load(), "the handoff timed out")
}
