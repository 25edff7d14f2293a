package lambda_test

import (
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
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

func gateHarness(t *testing.T, g *gateModel, opts ...func(*lambda.Config)) *harness {
	return newHarness(t, append([]func(*lambda.Config){func(cfg *lambda.Config) {
		cfg.Model = g
		cfg.Mode = lambda.ModeAfter
	}}, opts...)...)
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
			close(g.step)
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
	close(g.step)
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
	close(g.step)
	<-done2
	want := "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"
	if got := hs.summary("c1"); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

// TestCancelAcrossInstances: the cancel lands on another instance (another
// Handler sharing the store and the sender, as in Lambda). The flag in the
// store stops the stream before the next token.
func TestCancelAcrossInstances(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	a := gateHarness(t, g)
	b := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = a.store
		cfg.Sender = a.sender
	})
	a.connect("c1")
	done := streaming(t, a, g, "c1", "m1", "How much does Premium cost? call me")
	b.send("c1", cancel("m1"))
	want := "sources:m1 stream:m1 stream_end:m1:cancelled"
	if got := a.summary("c1"); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	g.step <- struct{}{} // instance A gets its next token, checks the flag and stops
	<-done
	if got := a.summary("c1"); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if stop, _ := a.store.AnswerCancelled(t.Context(), "c1", "m1"); !stop {
		t.Fatal("answer still active")
	}
}

// TestSupersedeAcrossInstances: the new message lands on another instance.
func TestSupersedeAcrossInstances(t *testing.T) {
	g := newGateModel("Premium", " costs", " 399", " kr.")
	a := gateHarness(t, g)
	b := newHarness(t, func(cfg *lambda.Config) {
		cfg.Store = a.store
		cfg.Sender = a.sender
	})
	a.connect("c1")
	done := streaming(t, a, g, "c1", "m1", "How much does Premium cost?")
	b.send("c1", msg("m2", "How much does Premium cost?"))
	g.step <- struct{}{}
	<-done
	want := "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"
	if got := a.summary("c1"); got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
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
