// Package storetest is the conformance suite of lambda.Store: every store
// (memory, DynamoDB) must pass StoreConformance.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/lambda"
)

var t0 = time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)

const window = 30 * time.Second

// suggestion returns a pending suggestion of conn created at t0.
func suggestion(id, conn string) lambda.Suggestion {
	return lambda.Suggestion{
		ID: id, ConnectionID: conn, MessageID: "m1", Action: lambda.ActionSendSMS,
		Payload: map[string]string{"phone": "+46 70 123 45 67"}, CreatedAt: t0,
		Window: window, ExpiresAt: t0.Add(window),
	}
}

// StoreConformance runs the store contract against fresh stores from
// newStore (one per subtest; they must not share state, e.g. use unique
// table names or key prefixes).
func StoreConformance(t *testing.T, newStore func(t *testing.T) lambda.Store) {
	ctx := context.Background()
	cancelled := func(t *testing.T, s lambda.Store, conn, msg string, want bool) {
		t.Helper()
		got, err := s.AnswerCancelled(ctx, conn, msg)
		require.NoError(t, err)
		require.Equal(t, want, got, "AnswerCancelled(%s, %s)", conn, msg)
	}
	claim := func(t *testing.T, s lambda.Store, conn, id string, at time.Time, want lambda.ClaimOutcome) lambda.Suggestion {
		t.Helper()
		sg, got, err := s.ClaimSuggestion(ctx, conn, id, at)
		require.NoError(t, err)
		require.Equal(t, want, got, "ClaimSuggestion(%s, %s, t0+%v)", conn, id, at.Sub(t0))
		return sg
	}

	t.Run("ConnectionLifecycle", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutConnection(ctx, lambda.Connection{ID: "c1", ConnectedAt: t0}))
		require.NoError(t, s.DeleteConnection(ctx, "c1"))
		require.NoError(t, s.DeleteConnection(ctx, "c1")) // unknown: not an error
		require.NoError(t, s.DeleteConnection(ctx, "never"))
	})

	released := func(t *testing.T, s lambda.Store, conn, msg string, want bool) {
		t.Helper()
		got, err := s.AnswerReleased(ctx, conn, msg)
		require.NoError(t, err)
		require.Equal(t, want, got, "AnswerReleased(%s, %s)", conn, msg)
	}
	start := func(t *testing.T, s lambda.Store, conn, msg, wantPrev string) {
		t.Helper()
		prev, err := s.StartAnswer(ctx, conn, msg, t0)
		require.NoError(t, err)
		require.Equal(t, wantPrev, prev, "StartAnswer("+conn+", "+msg+")")
	}
	cancelAnswer := func(t *testing.T, s lambda.Store, conn, msg, want string) {
		t.Helper()
		got, err := s.CancelAnswer(ctx, conn, msg)
		require.NoError(t, err)
		require.Equal(t, want, got, "CancelAnswer("+conn+", "+msg+")")
	}
	end := func(t *testing.T, s lambda.Store, conn, msg string, want bool) {
		t.Helper()
		got, err := s.EndAnswer(ctx, conn, msg)
		require.NoError(t, err)
		require.Equal(t, want, got, "EndAnswer("+conn+", "+msg+")")
	}
	take := func(t *testing.T, s lambda.Store, conn, msg string, want bool) {
		t.Helper()
		got, err := s.TakeAnswerEnd(ctx, conn, msg)
		require.NoError(t, err)
		require.Equal(t, want, got, "TakeAnswerEnd("+conn+", "+msg+")")
	}
	release := func(t *testing.T, s lambda.Store, conn, msg string) {
		t.Helper()
		require.NoError(t, s.ReleaseAnswer(ctx, conn, msg))
	}

	t.Run("AnswerStartEnd", func(t *testing.T) {
		s := newStore(t)
		cancelled(t, s, "c1", "m1", true) // unknown answer must stop
		released(t, s, "c1", "m1", true)
		start(t, s, "c1", "m1", "")
		cancelled(t, s, "c1", "m1", false)
		cancelled(t, s, "c1", "other", true)
		released(t, s, "c1", "m1", false)
		take(t, s, "c1", "m1", false) // active: its end is not a cancelled one
		end(t, s, "c1", "m1", true)
		cancelled(t, s, "c1", "m1", true) // ended: must stop
		end(t, s, "c1", "m1", false)      // taken once
		take(t, s, "c1", "m1", false)
		cancelAnswer(t, s, "c1", "", "") // ending: nothing to cancel
		cancelAnswer(t, s, "c1", "m1", "")
		released(t, s, "c1", "m1", false) // kept until its end is sent
		release(t, s, "c1", "m1")
		released(t, s, "c1", "m1", true)
		cancelled(t, s, "c1", "m1", true)
		release(t, s, "c1", "m1") // no record: not an error
		release(t, s, "c9", "m9")
		start(t, s, "c1", "m2", "")
		_, err := s.StartAnswer(ctx, "c1", "m2", t0) // the same id again while it has a record
		require.ErrorIs(t, err, lambda.ErrAnswerInUse)
		cancelled(t, s, "c1", "m2", false) // untouched
		released(t, s, "c1", "m2", false)
		start(t, s, "c1", "m3", "m2") // and still the current answer
		release(t, s, "c1", "m2")
		_, err = s.StartAnswer(ctx, "c1", "m1", t0) // released: the id is free again
		require.NoError(t, err)
	})

	t.Run("AnswerSupersede", func(t *testing.T) {
		s := newStore(t)
		start(t, s, "c1", "m1", "")
		start(t, s, "c1", "m2", "m1")
		cancelled(t, s, "c1", "m1", true)
		cancelled(t, s, "c1", "m2", false)
		end(t, s, "c1", "m1", false)       // superseded: not done
		cancelAnswer(t, s, "c1", "m1", "") // already cancelled
		released(t, s, "c1", "m1", false)  // its stream_end is still owed
		take(t, s, "c1", "m1", true)       // whoever sends it takes it
		take(t, s, "c1", "m1", false)      // once
		released(t, s, "c1", "m1", false)  // being sent
		release(t, s, "c1", "m1")          // sent
		released(t, s, "c1", "m1", true)   // the waiters go on
		cancelled(t, s, "c1", "m2", false) // m1's release did not touch m2
		cancelAnswer(t, s, "c1", "", "m2") // m2 is still current
		take(t, s, "c1", "m2", true)
		release(t, s, "c1", "m2")
		start(t, s, "c1", "m3", "")
	})

	t.Run("AnswerSupersedeEnding", func(t *testing.T) {
		// the previous answer's end was taken (done) but not sent yet: it
		// is not cancelled, and the new answer still waits for it
		s := newStore(t)
		start(t, s, "c1", "m1", "")
		end(t, s, "c1", "m1", true)
		start(t, s, "c1", "m2", "m1")
		take(t, s, "c1", "m1", false)
		released(t, s, "c1", "m1", false)
		release(t, s, "c1", "m1")
		released(t, s, "c1", "m1", true)
		cancelAnswer(t, s, "c1", "", "m2")
	})

	t.Run("AnswerSupersedeCancelled", func(t *testing.T) {
		// cancelled, its stream_end not sent yet: the next answer gets its
		// id to wait for
		s := newStore(t)
		start(t, s, "c1", "m1", "")
		cancelAnswer(t, s, "c1", "m1", "m1")
		start(t, s, "c1", "m2", "m1")
		take(t, s, "c1", "m1", true)
		release(t, s, "c1", "m1")
		start(t, s, "c1", "m3", "m2")
		take(t, s, "c1", "m2", true) // m2 superseded
		end(t, s, "c1", "m3", true)
	})

	t.Run("AnswerCancel", func(t *testing.T) {
		s := newStore(t)
		cancelAnswer(t, s, "c1", "", "") // nothing active
		start(t, s, "c1", "m1", "")
		cancelAnswer(t, s, "c1", "other", "")
		cancelled(t, s, "c1", "m1", false)
		cancelAnswer(t, s, "c1", "m1", "m1")
		cancelled(t, s, "c1", "m1", true)
		cancelAnswer(t, s, "c1", "", "") // repeated
		cancelAnswer(t, s, "c1", "m1", "")
		end(t, s, "c1", "m1", false) // the streamer lost: no done
		take(t, s, "c1", "m1", true)
		release(t, s, "c1", "m1")
		cancelAnswer(t, s, "c1", "", "") // released: nothing current
		start(t, s, "c1", "m2", "")
		cancelAnswer(t, s, "c1", "", "m2")
		end(t, s, "c1", "m2", false)
		cancelled(t, s, "c1", "m2", true)
		take(t, s, "c1", "m2", true)
	})

	t.Run("AnswerLongID", func(t *testing.T) {
		s := newStore(t)
		long := strings.Repeat("é", 1500) // 3000 bytes
		start(t, s, "c1", long, "")
		start(t, s, "c1", long+"x", long)
		cancelled(t, s, "c1", long, true)
		cancelled(t, s, "c1", long+"x", false)
		take(t, s, "c1", long, true)
		release(t, s, "c1", long)
		released(t, s, "c1", long, true)
		released(t, s, "c1", long+"x", false)
		cancelAnswer(t, s, "c1", "", long+"x")
	})

	t.Run("AnswersPerConnection", func(t *testing.T) {
		s := newStore(t)
		start(t, s, "c1", "m1", "")
		start(t, s, "c2", "m1", "")
		cancelAnswer(t, s, "c2", "", "m1")
		cancelled(t, s, "c1", "m1", false)
		take(t, s, "c1", "m1", false)
		take(t, s, "c2", "m1", true)
		release(t, s, "c2", "m1")
		released(t, s, "c1", "m1", false)
		end(t, s, "c1", "m1", true)
	})

	t.Run("DeleteConnectionStopsAnswer", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutConnection(ctx, lambda.Connection{ID: "c1", ConnectedAt: t0}))
		start(t, s, "c1", "m1", "")
		start(t, s, "c1", "m2", "m1") // m1's end still owed
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		require.NoError(t, s.DeleteConnection(ctx, "c1"))
		cancelled(t, s, "c1", "m1", true)
		cancelled(t, s, "c1", "m2", true)
		released(t, s, "c1", "m1", true) // waiters go on
		released(t, s, "c1", "m2", true)
		end(t, s, "c1", "m2", false)
		take(t, s, "c1", "m1", false)
		cancelAnswer(t, s, "c1", "", "")
		claim(t, s, "c1", "s1", t0, lambda.ClaimUnknown)
		start(t, s, "c1", "m3", "")
	})

	t.Run("AnswerRace", func(t *testing.T) {
		// the streamer's EndAnswer and a CancelAnswer race: exactly one
		// wins; after a cancel, the end is the cancelled one
		s := newStore(t)
		for i := range 50 {
			conn := fmt.Sprintf("c%d", i)
			start(t, s, conn, "m1", "")
			var ended bool
			var cancelledID string
			var errs [2]error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ended, errs[0] = s.EndAnswer(ctx, conn, "m1") }()
			go func() { defer wg.Done(); cancelledID, errs[1] = s.CancelAnswer(ctx, conn, "m1") }()
			wg.Wait()
			require.NoError(t, errors.Join(errs[:]...))
			if ended == (cancelledID != "") {
				t.Fatalf("ended=%v cancelled=%q: want exactly one winner", ended, cancelledID)
			}
			take(t, s, conn, "m1", !ended)
		}
	})

	t.Run("EndSupersedeRace", func(t *testing.T) {
		// the streamer's EndAnswer races the next StartAnswer: m1 ends
		// either done or superseded (its end then taken by TakeAnswerEnd),
		// never both, never neither
		s := newStore(t)
		for i := range 50 {
			conn := fmt.Sprintf("c%d", i)
			start(t, s, conn, "m1", "")
			var ended bool
			var prev string
			var errs [2]error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ended, errs[0] = s.EndAnswer(ctx, conn, "m1") }()
			go func() { defer wg.Done(); prev, errs[1] = s.StartAnswer(ctx, conn, "m2", t0) }()
			wg.Wait()
			require.NoError(t, errors.Join(errs[:]...))
			require.Equal(t, "m1", prev, "previous") // not released yet in either case
			take(t, s, conn, "m1", !ended)
			cancelled(t, s, conn, "m2", false)
		}
	})

	t.Run("TakeEndRace", func(t *testing.T) {
		// many invocations (a streamer, cancels, superseding messages) race
		// for the end of one cancelled answer: exactly one takes it
		s := newStore(t)
		for round := range 5 {
			conn := fmt.Sprintf("c%d", round)
			start(t, s, conn, "m1", "")
			cancelAnswer(t, s, conn, "", "m1")
			const n = 32
			won := make([]bool, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if i%4 == 0 {
						won[i], errs[i] = s.EndAnswer(ctx, conn, "m1") // never wins after a cancel
					} else {
						won[i], errs[i] = s.TakeAnswerEnd(ctx, conn, "m1")
					}
				})
			}
			wg.Wait()
			require.NoError(t, errors.Join(errs...))
			winners := 0
			for _, w := range won {
				if w {
					winners++
				}
			}
			if winners != 1 {
				t.Fatalf("round %d: %d winners, want exactly one", round, winners)
			}
			released(t, s, conn, "m1", false)
		}
	})

	t.Run("CancelRace", func(t *testing.T) {
		// cancels with and without id and a superseding start race: m1 is
		// cancelled once, and its end is taken once
		s := newStore(t)
		for round := range 10 {
			conn := fmt.Sprintf("c%d", round)
			start(t, s, conn, "m1", "")
			const n = 8
			got := make([]string, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					switch i % 3 {
					case 0:
						got[i], errs[i] = s.CancelAnswer(ctx, conn, "")
					case 1:
						got[i], errs[i] = s.CancelAnswer(ctx, conn, "m1")
					default:
						got[i], errs[i] = s.StartAnswer(ctx, conn, fmt.Sprintf("m%d", 2+i), t0)
					}
				})
			}
			wg.Wait()
			require.NoError(t, errors.Join(errs...))
			cancels := 0
			for i, g := range got {
				if i%3 != 2 && g == "m1" {
					cancels++
				}
			}
			if cancels > 1 {
				t.Fatalf("round %d: m1 cancelled %d times: %q", round, cancels, got)
			}
			cancelled(t, s, conn, "m1", true)
			take(t, s, conn, "m1", true)
			take(t, s, conn, "m1", false)
		}
	})

	t.Run("ClaimExecuteOnce", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		sg := claim(t, s, "c1", "s1", t0.Add(10*time.Second), lambda.ClaimExecute)
		want := suggestion("s1", "c1")
		assert.Equal(t, want.ID, sg.ID)
		assert.Equal(t, want.Action, sg.Action)
		assert.Equal(t, want.Payload, sg.Payload)
		assert.Equal(t, want.MessageID, sg.MessageID)
		require.Equal(t, lambda.SuggestionExecuting, sg.Status, "status after claim")
		claim(t, s, "c1", "s1", t0.Add(11*time.Second), lambda.ClaimAlreadyExecuted)
		require.NoError(t, s.FinishSuggestion(ctx, "c1", "s1", t0.Add(12*time.Second)))
		claim(t, s, "c1", "s1", t0.Add(12*time.Second+window), lambda.ClaimAlreadyExecuted)
		claim(t, s, "c1", "s1", t0.Add(12*time.Second+window+time.Millisecond), lambda.ClaimExpired)
	})

	t.Run("ClaimWindowBoundary", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		claim(t, s, "c1", "s1", t0.Add(window), lambda.ClaimExecute)
		claim(t, s, "c1", "s2", t0.Add(window+time.Millisecond), lambda.ClaimExpired)
		claim(t, s, "c1", "s2", t0.Add(window+time.Minute), lambda.ClaimExpired)
	})

	t.Run("ClaimUnknownAndForeign", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		claim(t, s, "c1", "nope", t0, lambda.ClaimUnknown)
		sg := claim(t, s, "c2", "s1", t0, lambda.ClaimUnknown)
		require.Zero(t, sg, "a foreign claim reveals nothing of the suggestion")
		claim(t, s, "c1", "s1", t0, lambda.ClaimExecute) // the foreign confirm changed nothing
	})

	t.Run("PutSuggestionDuplicate", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		require.ErrorIs(t, s.PutSuggestion(ctx, suggestion("s1", "c1")), lambda.ErrDuplicateSuggestion)
	})

	t.Run("Withdraw", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s3", "c2")))
		claim(t, s, "c1", "s2", t0.Add(time.Second), lambda.ClaimExecute)
		require.NoError(t, s.WithdrawSuggestions(ctx, "c1", t0.Add(2*time.Second)))
		claim(t, s, "c1", "s1", t0.Add(3*time.Second), lambda.ClaimCancelled)
		claim(t, s, "c1", "s1", t0.Add(3*time.Minute), lambda.ClaimCancelled)
		claim(t, s, "c1", "s2", t0.Add(3*time.Second), lambda.ClaimAlreadyExecuted) // executing: left alone
		require.NoError(t, s.FinishSuggestion(ctx, "c1", "s2", t0.Add(4*time.Second)))
		claim(t, s, "c2", "s3", t0.Add(5*time.Second), lambda.ClaimExecute) // other connection untouched
		require.NoError(t, s.WithdrawSuggestions(ctx, "nobody", t0))
	})

	t.Run("FinishGone", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.FinishSuggestion(ctx, "c1", "nope", t0))
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		claim(t, s, "c1", "s1", t0, lambda.ClaimExecute)
		require.NoError(t, s.DeleteConnection(ctx, "c1"))
		require.NoError(t, s.FinishSuggestion(ctx, "c1", "s1", t0.Add(time.Second)))
	})

	t.Run("Retention", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		claim(t, s, "c1", "s2", t0.Add(time.Second), lambda.ClaimExecute)
		require.NoError(t, s.FinishSuggestion(ctx, "c1", "s2", t0.Add(2*time.Second)))
		// kept at least 5 minutes: still known (expired), not unknown
		for _, d := range []time.Duration{time.Minute, 3 * time.Minute, 5 * time.Minute} {
			claim(t, s, "c1", "s1", t0.Add(d), lambda.ClaimExpired)
			claim(t, s, "c1", "s2", t0.Add(d), lambda.ClaimExpired)
		}
	})

	t.Run("ClaimRace", func(t *testing.T) {
		s := newStore(t)
		require.NoError(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		const n = 32
		outcomes := make([]lambda.ClaimOutcome, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, o, err := s.ClaimSuggestion(ctx, "c1", "s1", t0.Add(time.Second))
				if err != nil {
					panic(err)
				}
				outcomes[i] = o
			}()
		}
		wg.Wait()
		count := map[lambda.ClaimOutcome]int{}
		for _, o := range outcomes {
			count[o]++
		}
		if count[lambda.ClaimExecute] != 1 || count[lambda.ClaimAlreadyExecuted] != n-1 {
			t.Fatalf("outcomes %v: want exactly one execute", count)
		}
	})

	t.Run("ClaimWithdrawRace", func(t *testing.T) {
		for i := 0; i < 50; i++ {
			s := newStore(t)
			id := fmt.Sprintf("s%d", i)
			require.NoError(t, s.PutSuggestion(ctx, suggestion(id, "c1")))
			var o lambda.ClaimOutcome
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); _, o, _ = s.ClaimSuggestion(ctx, "c1", id, t0) }()
			go func() { defer wg.Done(); s.WithdrawSuggestions(ctx, "c1", t0) }()
			wg.Wait()
			after := claim(t, s, "c1", id, t0, map[lambda.ClaimOutcome]lambda.ClaimOutcome{
				lambda.ClaimExecute:   lambda.ClaimAlreadyExecuted,
				lambda.ClaimCancelled: lambda.ClaimCancelled,
			}[o])
			_ = after
			if o != lambda.ClaimExecute && o != lambda.ClaimCancelled {
				t.Fatalf("claim racing withdraw: %v", o)
			}
		}
	})
}
