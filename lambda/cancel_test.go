package lambda_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// streaming starts message id on conn with a gate model (after mode, so
// every released token shows as a stream frame) and releases one token.
func streaming(t *testing.T, hs *harness, g *gateModel, conn, id, text string) <-chan struct{} {
	t.Helper()
	done := hs.sendAsync(conn, msg(id, text))
	g.step <- struct{}{}
	hs.wait(conn, "first token", has("stream:"+id))
	return done
}

// gateHarness is a harness on the gate model. When the test ends, the gate
// opens before the harness waits for its invocations, so that a failing
// test does not leave a streamer blocked.
func gateHarness(t *testing.T, g *gateModel, opts ...func(*lambda.Config)) *harness {
	hs := newHarness(t, append([]func(*lambda.Config){func(cfg *lambda.Config) {
		cfg.Model = g
		cfg.Mode = lambda.ModeAfter
	}}, opts...)...)
	t.Cleanup(g.release)
	return hs
}

// noMore checks that a released token produces nothing.
func noMore(t *testing.T, hs *harness, g *gateModel, conn string, n int) {
	t.Helper()
	select {
	case g.step <- struct{}{}:
	case <-time.After(50 * time.Millisecond):
	}
	time.Sleep(10 * time.Millisecond)
	if got := len(hs.frames(conn)); got != n {
		t.Fatalf("frames after cancel: %s", hs.summary(conn))
	}
}

func TestCancel(t *testing.T) {
	for _, id := range []string{"m1", ""} {
		t.Run("id="+id, func(t *testing.T) {
			g := newGateModel("Premium", " costs", " 399", " kr.")
			hs := gateHarness(t, g)
			hs.connect("c1")
			done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost? Call me")
			hs.send("c1", cancel(id))
			want := "sources:m1 stream:m1 stream_end:m1:cancelled"
			if got := hs.summary("c1"); got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			noMore(t, hs, g, "c1", 3)
			<-done
			if got := hs.summary("c1"); got != want { // no response, no action_suggestion
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			if g.closes() != 1 {
				t.Fatalf("model stream closed %d times", g.closes())
			}
			// repeated cancel: harmless, sends nothing
			hs.send("c1", cancel(id))
			hs.send("c1", cancel("m1"))
			// ready for the next message at once
			hs.sender.Reset("c1")
			g.release()
			hs.send("c1", msg("m2", "How much does Premium cost?"))
			if got, want := hs.summary("c1"), "sources:m2 stream:m2 stream_end:m2:done response:m2:verified"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
		})
	}
}

func TestCancelHoldMode(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.Model = g })
	hs.connect("c1")
	done := hs.sendAsync("c1", msg("m1", "How much does Premium cost?"))
	g.step <- struct{}{} // the model is streaming
	hs.send("c1", cancel("m1"))
	<-done
	if got, want := withoutStream(hs.frames("c1")), "sources:m1 stream_end:m1:cancelled"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	fs := hs.frames("c1")
	if fs[len(fs)-1].String() != "stream_end:m1:cancelled" {
		t.Fatalf("something after stream_end: %s", hs.summary("c1"))
	}
}

func TestCancelNothingActive(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", cancel(""))
	hs.send("c1", cancel("m9"))
	hs.send("c1", msg("m1", "How much does Premium cost?"))
	hs.send("c1", cancel("m1")) // finished: not active
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

func TestCancelOtherID(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	hs.send("c1", cancel("m0"))
	g.release()
	<-done
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

func TestSupersede(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	done1 := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	done2 := hs.sendAsync("c1", msg("m2", "And Premium again?"))
	<-done1 // the old answer stopped
	hs.wait("c1", "m2 sources", has("sources:m2"))
	g.release()
	<-done2
	want := "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"
	if got := hs.summary("c1"); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

// TestReusedID: a message that reuses the id of one still being answered
// is refused with bad_request; the answer streaming goes on and ends as it
// would have, its text the concatenation of its deltas (found by a tester:
// the second message restarted the id, and the two answers' deltas mixed
// under one id with no stream_end for the first).
func TestReusedID(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	hs.send("c1", msg("m1", "Vad kostar Basic?"))
	checkFlows(t, hs, "c1", "sources:m1 stream:m1 error:m1:bad_request")
	if f := hs.frames("c1")[2]; f.Message != "The id is in use by a message still being answered." {
		t.Fatalf("error message %q", f.Message)
	}
	g.release()
	<-done
	checkFlows(t, hs, "c1", "sources:m1 stream:m1 error:m1:bad_request stream:m1 stream_end:m1:done response:m1:verified")
	var deltas strings.Builder
	for _, f := range hs.frames("c1") {
		deltas.WriteString(f.Delta)
	}
	if r := hs.frames("c1")[len(hs.frames("c1"))-1]; r.Text != deltas.String() || !strings.Contains(r.Text, "399") {
		t.Fatalf("response %q, deltas %q", r.Text, deltas.String())
	}
	checkReleased(t, hs.store, "c1", "m1")
}

// instanceOf returns another "instance" of hs: a Handler with its own
// in-process state that shares only the store and the sender with hs, as
// two Lambda instances share only DynamoDB and API Gateway.
func instanceOf(t *testing.T, hs *harness, opts ...func(*lambda.Config)) *harness {
	return newHarness(t, append([]func(*lambda.Config){func(cfg *lambda.Config) {
		cfg.Store = hs.store
		cfg.Sender = hs.sender
	}}, opts...)...)
}

// checkFlows checks the SPEC order of a connection's frames, and that want
// is their summary.
func checkFlows(t *testing.T, hs *harness, conn, want string) {
	t.Helper()
	if err := lambdatest.CheckFlows(hs.frames(conn)); err != nil {
		t.Fatal(err)
	}
	if got := hs.summary(conn); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

// checkReleased checks that the store holds no record of the answers.
func checkReleased(t *testing.T, s lambda.Store, conn string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if ok, err := s.AnswerReleased(t.Context(), conn, id); err != nil || !ok {
			t.Fatalf("answer %s not released (%v)", id, err)
		}
	}
}

// pending checks that an invocation has not returned yet.
func pending(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s returned before the streamer ended the answer", what)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestCancelAcrossInstances: the cancel lands on another instance (another
// Handler sharing the store and the sender, as in Lambda). It sets the flag
// and waits; the streamer sees the flag before its next token and sends
// stream_end cancelled itself, so nothing of the stream can follow it.
func TestCancelAcrossInstances(t *testing.T) {
	for _, id := range []string{"m1", ""} {
		t.Run("id="+id, func(t *testing.T) {
			g := newGateModel("Premium", " costs", " 399", " kr.")
			var warnings logCounter
			a := gateHarness(t, g, logTo(&warnings))
			b := instanceOf(t, a, logTo(&warnings))
			a.connect("c1")
			done := streaming(t, a, g, "c1", "m1", "How much does Premium cost? call me")
			cancelled := b.sendAsync("c1", cancel(id))
			pending(t, cancelled, "the cancel")
			checkFlows(t, a, "c1", "sources:m1 stream:m1")
			g.step <- struct{}{} // A gets its next token, checks the flag and ends the answer
			<-done
			<-cancelled
			checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled")
			checkReleased(t, a.store, "c1", "m1")
			if g.closes() != 1 {
				t.Fatalf("model stream closed %d times", g.closes())
			}
			// repeated cancel: harmless, sends nothing, does not wait
			b.send("c1", cancel(id))
			a.send("c1", cancel("m1"))
			// ready for the next message at once, on either instance
			b.send("c1", msg("m2", "How much does Premium cost?"))
			checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified")
			if n := warnings.n.Load(); n != 0 {
				t.Fatalf("%d warnings: the handoff timed out", n)
			}
		})
	}
}

// TestSupersedeAcrossInstances: the new message lands on another instance.
// Its sources wait for the old answer's stream_end cancelled, which the old
// answer's streamer sends at its next token.
func TestSupersedeAcrossInstances(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	a := gateHarness(t, g)
	b := instanceOf(t, a)
	a.connect("c1")
	done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
	second := b.sendAsync("c1", msg("m2", "How much does Premium cost?"))
	pending(t, second, "the new message")
	checkFlows(t, a, "c1", "sources:m1 stream:m1")
	g.step <- struct{}{}
	<-done
	<-second
	checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified")
	checkReleased(t, a.store, "c1", "m1", "m2")
}

// TestHandoffStreamerHung: the streamer on the other instance does not
// come back (hung in the model, or dead): after CancelHandoffTimeout the
// cancelling (or superseding) invocation takes the end and sends stream_end
// cancelled itself; the streamer, when it wakes, sees the cancel before it
// sends anything and stays silent.
func TestHandoffStreamerHung(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame lambda.ClientFrame
		want  string
	}{
		{"cancel", cancel("m1"), "sources:m1 stream:m1 stream_end:m1:cancelled"},
		{"cancel-no-id", cancel(""), "sources:m1 stream:m1 stream_end:m1:cancelled"},
		{"supersede", msg("m2", "How much does Premium cost?"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGateModel("Premium", " costs", " 399", " kr.")
			var warnings logCounter
			a := gateHarness(t, g)
			b := instanceOf(t, a, logTo(&warnings), func(cfg *lambda.Config) { cfg.CancelHandoffTimeout = 30 * time.Millisecond })
			a.connect("c1")
			done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
			start := time.Now()
			b.send("c1", tc.frame)
			if d := time.Since(start); d < 30*time.Millisecond {
				t.Fatalf("took the end after %v, before the handoff timeout", d)
			}
			checkFlows(t, a, "c1", tc.want)
			g.step <- struct{}{} // the hung streamer wakes up
			<-done
			checkFlows(t, a, "c1", tc.want)
			checkReleased(t, a.store, "c1", "m1", "m2")
			if n := warnings.n.Load(); n != 1 {
				t.Fatalf("%d warnings, want the one of the timed-out handoff", n)
			}
		})
	}
}

// TestCancelledWhileWaiting: a message waiting for the previous answer's
// end is itself superseded (or cancelled) meanwhile: it gets its own
// stream_end cancelled after the previous one's, and no sources.
func TestCancelledWhileWaiting(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	a := gateHarness(t, g)
	b := instanceOf(t, a)
	a.connect("c1")
	done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
	second := b.sendAsync("c1", msg("m2", "How much does Premium cost?"))
	pending(t, second, "m2")
	third := b.sendAsync("c1", msg("m3", "How much does Premium cost?"))
	pending(t, third, "m3")
	g.step <- struct{}{}
	<-done
	<-second
	<-third
	checkFlows(t, a, "c1", "sources:m1 stream:m1 stream_end:m1:cancelled stream_end:m2:cancelled sources:m3 stream:m3 stream_end:m3:done response:m3:verified")
	checkReleased(t, a.store, "c1", "m1", "m2", "m3")
}

// TestHandoffRace: answers on two instances with real token delays, cancels
// and superseding messages landing on either instance at random moments.
// Whatever the interleaving, every message gets exactly one end, nothing of
// a message follows its end, a new message begins after the previous one
// ended, and no record is left; per token and with coalesced frames.
func TestHandoffRace(t *testing.T) {
	for _, every := range []time.Duration{0, 3 * time.Millisecond} {
		t.Run(fmt.Sprintf("coalesce=%v", every), func(t *testing.T) { handoffRace(t, every) })
	}
}

func handoffRace(t *testing.T, coalesce time.Duration) {
	opts := func(cfg *lambda.Config) {
		cfg.CoalesceInterval = coalesce
		cfg.Clock = lambda.SystemClock{}
		cfg.Model = lambda.NewMock(lambda.MockDelay(time.Millisecond, 2*time.Millisecond), lambda.MockClock(lambda.SystemClock{}))
		cfg.Mode = lambda.ModeAfter
		cfg.Limits.NoRateLimit = true
		// the streamer sees a cancel from the other instance only at its
		// next check: a few tokens later
		cfg.CancelCheckInterval = 5 * time.Millisecond
	}
	var warnings logCounter
	a := newHarness(t, opts, logTo(&warnings))
	b := instanceOf(t, a, opts, logTo(&warnings))
	hs := []*harness{a, b}
	rnd := rand.New(rand.NewPCG(1, 2))
	long := "$say Premium" + strings.Repeat(" word", 40)
	for round := range 20 {
		conn := fmt.Sprintf("c%d", round)
		a.connect(conn)
		var ids []string
		var dones []<-chan struct{}
		for i := range 4 {
			h := hs[rnd.IntN(2)]
			switch k := rnd.IntN(4); {
			case i == 0 || k < 2:
				id := fmt.Sprintf("m%d", i)
				ids = append(ids, id)
				dones = append(dones, h.sendAsync(conn, msg(id, long)))
			case k == 2:
				dones = append(dones, h.sendAsync(conn, cancel("")))
			default:
				dones = append(dones, h.sendAsync(conn, cancel(ids[len(ids)-1])))
			}
			time.Sleep(time.Duration(rnd.IntN(8)) * time.Millisecond)
		}
		for _, d := range dones {
			<-d
		}
		fs := a.frames(conn)
		if err := lambdatest.CheckFlows(fs); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, id := range ids {
			n := 0
			for _, f := range fs {
				if f.ID == id && (f.Type == lambda.TypeStreamEnd || f.Type == lambda.TypeError) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("round %d: %s ended %d times: %s", round, id, n, lambdatest.Summary(fs))
			}
		}
		checkReleased(t, a.store, conn, ids...)
	}
	if n := warnings.n.Load(); n != 0 {
		t.Fatalf("%d warnings: a handoff timed out although every streamer was alive", n)
	}
}

func TestCancelCheckInterval(t *testing.T) {
	fs := &faultyStore{Store: lambda.NewMemStore()}
	hs := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = fs
		cfg.CancelCheckInterval = 100 * time.Millisecond
		// 20 ms per token: at most one store check per 5 tokens
		cfg.Model = lambda.NewMock(lambda.MockDelay(20*time.Millisecond, 20*time.Millisecond), lambda.MockClock(cfg.Clock))
	})
	hs.connect("c1")
	hs.send("c1", msg("m1", "$say Premium a b c d e f g h i j k l m n o p q r s"))
	if n := fs.checkCount(); n < 2 || n > 5 {
		t.Fatalf("%d store checks for 20 tokens at 20 ms with a 100 ms interval", n)
	}
	if got := withoutStream(hs.frames("c1")); got != "sources:m1 stream_end:m1:done response:m1:verified" && got != "sources:m1 stream_end:m1:blocked response:m1:blocked" {
		t.Fatalf("frames: %s", got)
	}
}

func TestCancelStoreFailure(t *testing.T) {
	fs := &faultyStore{Store: lambda.NewMemStore()}
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g, func(cfg *lambda.Config) { cfg.Store = fs })
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	fs.setFail("AnswerCancelled", true)
	g.step <- struct{}{}
	<-done // fail-closed: the answer stops
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 error:m1:internal"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

func TestDisconnectWhileStreaming(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	hs.disconnect("c1")
	<-done
	if got, want := hs.summary("c1"), "sources:m1 stream:m1"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if stop, _ := hs.store.AnswerCancelled(t.Context(), "c1", "m1"); !stop {
		t.Fatal("answer still active after disconnect")
	}
}

func TestGoneWhileStreaming(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	hs := gateHarness(t, g)
	hs.connect("c1")
	hs.send("c1", msg("s", "please call me")) // leaves a suggestion
	sid := last(hs.frames("c1"), lambda.TypeActionSuggestion).SuggestionID
	done := streaming(t, hs, g, "c1", "m1", "How much does Premium cost?")
	hs.sender.SetGone("c1")
	g.step <- struct{}{}
	<-done // stopped at the first failed send
	if stop, _ := hs.store.AnswerCancelled(t.Context(), "c1", "m1"); !stop {
		t.Fatal("answer still active after gone")
	}
	if _, o, _ := hs.store.ClaimSuggestion(t.Context(), "c1", sid, epoch); o != lambda.ClaimUnknown {
		t.Fatalf("suggestion survived the gone connection: %v", o)
	}
}
