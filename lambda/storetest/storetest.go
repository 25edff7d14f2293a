// Package storetest is the conformance suite of lambda.Store: every store
// (memory, DynamoDB) must pass StoreConformance.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

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
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	cancelled := func(t *testing.T, s lambda.Store, conn, msg string, want bool) {
		t.Helper()
		got, err := s.AnswerCancelled(ctx, conn, msg)
		must(t, err)
		if got != want {
			t.Fatalf("AnswerCancelled(%s, %s) = %v, want %v", conn, msg, got, want)
		}
	}
	str := func(t *testing.T, what, got, want string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s = %q, want %q", what, got, want)
		}
	}
	boolean := func(t *testing.T, what string, got, want bool) {
		t.Helper()
		if got != want {
			t.Fatalf("%s = %v, want %v", what, got, want)
		}
	}
	claim := func(t *testing.T, s lambda.Store, conn, id string, at time.Time, want lambda.ClaimOutcome) lambda.Suggestion {
		t.Helper()
		sg, got, err := s.ClaimSuggestion(ctx, conn, id, at)
		must(t, err)
		if got != want {
			t.Fatalf("ClaimSuggestion(%s, %s, t0+%v) = %v, want %v", conn, id, at.Sub(t0), got, want)
		}
		return sg
	}

	t.Run("ConnectionLifecycle", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutConnection(ctx, lambda.Connection{ID: "c1", ConnectedAt: t0}))
		must(t, s.DeleteConnection(ctx, "c1"))
		must(t, s.DeleteConnection(ctx, "c1")) // unknown: not an error
		must(t, s.DeleteConnection(ctx, "never"))
	})

	t.Run("AnswerStartEnd", func(t *testing.T) {
		s := newStore(t)
		cancelled(t, s, "c1", "m1", true) // unknown answer must stop
		prev, err := s.StartAnswer(ctx, "c1", "m1", t0)
		must(t, err)
		str(t, "first StartAnswer", prev, "")
		cancelled(t, s, "c1", "m1", false)
		cancelled(t, s, "c1", "other", true)
		ended, err := s.EndAnswer(ctx, "c1", "m1")
		must(t, err)
		boolean(t, "EndAnswer active", ended, true)
		cancelled(t, s, "c1", "m1", true)
		ended, err = s.EndAnswer(ctx, "c1", "m1")
		must(t, err)
		boolean(t, "EndAnswer twice", ended, false)
		prev, err = s.StartAnswer(ctx, "c1", "m2", t0)
		must(t, err)
		str(t, "StartAnswer after end", prev, "")
	})

	t.Run("AnswerSupersede", func(t *testing.T) {
		s := newStore(t)
		_, err := s.StartAnswer(ctx, "c1", "m1", t0)
		must(t, err)
		prev, err := s.StartAnswer(ctx, "c1", "m2", t0)
		must(t, err)
		str(t, "superseded", prev, "m1")
		cancelled(t, s, "c1", "m1", true)
		cancelled(t, s, "c1", "m2", false)
		ended, err := s.EndAnswer(ctx, "c1", "m1")
		must(t, err)
		boolean(t, "EndAnswer superseded", ended, false)
		cancelled(t, s, "c1", "m2", false) // m1's end did not touch m2
		ended, err = s.EndAnswer(ctx, "c1", "m2")
		must(t, err)
		boolean(t, "EndAnswer m2", ended, true)
	})

	t.Run("AnswerCancel", func(t *testing.T) {
		s := newStore(t)
		got, err := s.CancelAnswer(ctx, "c1", "")
		must(t, err)
		str(t, "cancel with nothing active", got, "")
		_, err = s.StartAnswer(ctx, "c1", "m1", t0)
		must(t, err)
		got, err = s.CancelAnswer(ctx, "c1", "other")
		must(t, err)
		str(t, "cancel other id", got, "")
		cancelled(t, s, "c1", "m1", false)
		got, err = s.CancelAnswer(ctx, "c1", "m1")
		must(t, err)
		str(t, "cancel", got, "m1")
		cancelled(t, s, "c1", "m1", true)
		got, err = s.CancelAnswer(ctx, "c1", "")
		must(t, err)
		str(t, "repeated cancel", got, "")
		prev, err := s.StartAnswer(ctx, "c1", "m2", t0)
		must(t, err)
		str(t, "StartAnswer after cancel", prev, "") // m1 already got its stream_end
		ended, err := s.EndAnswer(ctx, "c1", "m1")
		must(t, err)
		boolean(t, "EndAnswer cancelled+superseded", ended, false)
		got, err = s.CancelAnswer(ctx, "c1", "")
		must(t, err)
		str(t, "cancel without id", got, "m2")
		ended, err = s.EndAnswer(ctx, "c1", "m2")
		must(t, err)
		boolean(t, "EndAnswer cancelled", ended, false)
		cancelled(t, s, "c1", "m2", true)
	})

	t.Run("AnswersPerConnection", func(t *testing.T) {
		s := newStore(t)
		_, err := s.StartAnswer(ctx, "c1", "m1", t0)
		must(t, err)
		prev, err := s.StartAnswer(ctx, "c2", "m1", t0)
		must(t, err)
		str(t, "other connection", prev, "")
		got, err := s.CancelAnswer(ctx, "c2", "")
		must(t, err)
		str(t, "cancel c2", got, "m1")
		cancelled(t, s, "c1", "m1", false)
	})

	t.Run("DeleteConnectionStopsAnswer", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutConnection(ctx, lambda.Connection{ID: "c1", ConnectedAt: t0}))
		_, err := s.StartAnswer(ctx, "c1", "m1", t0)
		must(t, err)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		must(t, s.DeleteConnection(ctx, "c1"))
		cancelled(t, s, "c1", "m1", true)
		ended, err := s.EndAnswer(ctx, "c1", "m1")
		must(t, err)
		boolean(t, "EndAnswer after delete", ended, false)
		claim(t, s, "c1", "s1", t0, lambda.ClaimUnknown)
	})

	t.Run("AnswerRace", func(t *testing.T) {
		// the streamer's EndAnswer and a CancelAnswer race: exactly one wins
		for i := 0; i < 50; i++ {
			s := newStore(t)
			_, err := s.StartAnswer(ctx, "c1", "m1", t0)
			must(t, err)
			var ended bool
			var cancelledID string
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ended, _ = s.EndAnswer(ctx, "c1", "m1") }()
			go func() { defer wg.Done(); cancelledID, _ = s.CancelAnswer(ctx, "c1", "m1") }()
			wg.Wait()
			if ended == (cancelledID != "") {
				t.Fatalf("ended=%v cancelled=%q: want exactly one winner", ended, cancelledID)
			}
		}
	})

	t.Run("ClaimExecuteOnce", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		sg := claim(t, s, "c1", "s1", t0.Add(10*time.Second), lambda.ClaimExecute)
		if sg.ID != "s1" || sg.Action != lambda.ActionSendSMS || sg.Payload["phone"] != "+46 70 123 45 67" || sg.MessageID != "m1" {
			t.Fatalf("claimed suggestion %+v", sg)
		}
		if sg.Status != lambda.SuggestionExecuting {
			t.Fatalf("status after claim %q", sg.Status)
		}
		claim(t, s, "c1", "s1", t0.Add(11*time.Second), lambda.ClaimAlreadyExecuted)
		must(t, s.FinishSuggestion(ctx, "c1", "s1", t0.Add(12*time.Second)))
		claim(t, s, "c1", "s1", t0.Add(12*time.Second+window), lambda.ClaimAlreadyExecuted)
		claim(t, s, "c1", "s1", t0.Add(12*time.Second+window+time.Millisecond), lambda.ClaimExpired)
	})

	t.Run("ClaimWindowBoundary", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		must(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		claim(t, s, "c1", "s1", t0.Add(window), lambda.ClaimExecute)
		claim(t, s, "c1", "s2", t0.Add(window+time.Millisecond), lambda.ClaimExpired)
		claim(t, s, "c1", "s2", t0.Add(window+time.Minute), lambda.ClaimExpired)
	})

	t.Run("ClaimUnknownAndForeign", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		claim(t, s, "c1", "nope", t0, lambda.ClaimUnknown)
		if sg := claim(t, s, "c2", "s1", t0, lambda.ClaimUnknown); sg.ID != "" {
			t.Fatalf("foreign claim returned %+v", sg)
		}
		claim(t, s, "c1", "s1", t0, lambda.ClaimExecute) // the foreign confirm changed nothing
	})

	t.Run("PutSuggestionDuplicate", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		if err := s.PutSuggestion(ctx, suggestion("s1", "c1")); !errors.Is(err, lambda.ErrDuplicateSuggestion) {
			t.Fatalf("duplicate put: %v", err)
		}
	})

	t.Run("Withdraw", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		must(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		must(t, s.PutSuggestion(ctx, suggestion("s3", "c2")))
		claim(t, s, "c1", "s2", t0.Add(time.Second), lambda.ClaimExecute)
		must(t, s.WithdrawSuggestions(ctx, "c1", t0.Add(2*time.Second)))
		claim(t, s, "c1", "s1", t0.Add(3*time.Second), lambda.ClaimCancelled)
		claim(t, s, "c1", "s1", t0.Add(3*time.Minute), lambda.ClaimCancelled)
		claim(t, s, "c1", "s2", t0.Add(3*time.Second), lambda.ClaimAlreadyExecuted) // executing: left alone
		must(t, s.FinishSuggestion(ctx, "c1", "s2", t0.Add(4*time.Second)))
		claim(t, s, "c2", "s3", t0.Add(5*time.Second), lambda.ClaimExecute) // other connection untouched
		must(t, s.WithdrawSuggestions(ctx, "nobody", t0))
	})

	t.Run("FinishGone", func(t *testing.T) {
		s := newStore(t)
		must(t, s.FinishSuggestion(ctx, "c1", "nope", t0))
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		claim(t, s, "c1", "s1", t0, lambda.ClaimExecute)
		must(t, s.DeleteConnection(ctx, "c1"))
		must(t, s.FinishSuggestion(ctx, "c1", "s1", t0.Add(time.Second)))
	})

	t.Run("Retention", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
		must(t, s.PutSuggestion(ctx, suggestion("s2", "c1")))
		claim(t, s, "c1", "s2", t0.Add(time.Second), lambda.ClaimExecute)
		must(t, s.FinishSuggestion(ctx, "c1", "s2", t0.Add(2*time.Second)))
		// kept at least 5 minutes: still known (expired), not unknown
		for _, d := range []time.Duration{time.Minute, 3 * time.Minute, 5 * time.Minute} {
			claim(t, s, "c1", "s1", t0.Add(d), lambda.ClaimExpired)
			claim(t, s, "c1", "s2", t0.Add(d), lambda.ClaimExpired)
		}
	})

	t.Run("ClaimRace", func(t *testing.T) {
		s := newStore(t)
		must(t, s.PutSuggestion(ctx, suggestion("s1", "c1")))
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
			must(t, s.PutSuggestion(ctx, suggestion(id, "c1")))
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
