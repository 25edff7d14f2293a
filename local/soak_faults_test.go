package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/lambda"
)

// faultStore fails a seeded fraction of the calls that carry an answer or a
// suggestion (not PutConnection/DeleteConnection: those decide whether a
// client is connected at all, and are tested on their own in lambda).
type faultStore struct {
	lambda.Store
	on    atomic.Bool
	p     float64
	mu    sync.Mutex
	rng   *rand.Rand
	fails atomic.Int64
}

var errInjected = errors.New("injected store failure")

func (s *faultStore) fail() bool {
	if !s.on.Load() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rng.Float64() < s.p {
		s.fails.Add(1)
		return true
	}
	return false
}

func (s *faultStore) StartAnswer(ctx context.Context, c, m string, now time.Time) (string, error) {
	if s.fail() {
		return "", errInjected
	}
	return s.Store.StartAnswer(ctx, c, m, now)
}

func (s *faultStore) CancelAnswer(ctx context.Context, c, m string) (string, error) {
	if s.fail() {
		return "", errInjected
	}
	return s.Store.CancelAnswer(ctx, c, m)
}

func (s *faultStore) AnswerCancelled(ctx context.Context, c, m string) (bool, error) {
	if s.fail() {
		return false, errInjected
	}
	return s.Store.AnswerCancelled(ctx, c, m)
}

func (s *faultStore) EndAnswer(ctx context.Context, c, m string) (bool, error) {
	if s.fail() {
		return false, errInjected
	}
	return s.Store.EndAnswer(ctx, c, m)
}

func (s *faultStore) PutSuggestion(ctx context.Context, sg lambda.Suggestion) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.PutSuggestion(ctx, sg)
}

func (s *faultStore) ClaimSuggestion(ctx context.Context, c, id string, now time.Time) (lambda.Suggestion, lambda.ClaimOutcome, error) {
	if s.fail() {
		return lambda.Suggestion{}, lambda.ClaimUnknown, errInjected
	}
	return s.Store.ClaimSuggestion(ctx, c, id, now)
}

func (s *faultStore) FinishSuggestion(ctx context.Context, c, id string, now time.Time) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.FinishSuggestion(ctx, c, id, now)
}

func (s *faultStore) WithdrawSuggestions(ctx context.Context, c string, now time.Time) error {
	if s.fail() {
		return errInjected
	}
	return s.Store.WithdrawSuggestions(ctx, c, now)
}

// goneSender answers ErrGone, from the first frame about a message whose id
// ends in "-gone" on, for that connection: as API Gateway does for a
// connection that vanished between two PostToConnection calls.
type goneSender struct {
	lambda.Sender
	mu   sync.Mutex
	gone map[string]bool
}

var goneMark = []byte(`-gone"`)

func (g *goneSender) Send(ctx context.Context, connID string, data []byte) error {
	g.mu.Lock()
	if bytes.Contains(data, goneMark) {
		g.gone[connID] = true
	}
	gone := g.gone[connID]
	g.mu.Unlock()
	if gone {
		return fmt.Errorf("post to %s: %w", connID, lambda.ErrGone)
	}
	return g.Sender.Send(ctx, connID, data)
}

func TestSoakFaults(t *testing.T) {
	d, n, seed := soakSettings(t, 4*time.Second)

	t.Run("store", func(t *testing.T) {
		var fs *faultStore
		r := newSoak(t, seed, func(ts *testServer, d *deps) {
			fs = &faultStore{Store: d.Store, p: 0.02, rng: rand.New(rand.NewPCG(seed, 99))}
			fs.on.Store(true)
			d.Store = fs
		})
		r.faults = true
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		r.soak(n, d, nil)
		fs.on.Store(false)
		t.Logf("%d store calls failed", fs.fails.Load())
		r.report()
		if fs.fails.Load() == 0 {
			t.Fatal("no store call failed")
		}
		// Connections stay usable: a message after the failures is
		// answered normally.
		r.problems = nil
		c := r.ts.dial(t, "", nil)
		c.message("after", "What does Premium cost?")
		checkFlow(t, c.answer("after"), "after", lambda.ReasonDone, lambda.StatusVerified)
		c.close()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("gone", func(t *testing.T) {
		var gs *goneSender
		r := newSoak(t, seed, func(ts *testServer, d *deps) {
			d.WrapSender = func(s lambda.Sender) lambda.Sender {
				gs = &goneSender{Sender: s, gone: map[string]bool{}}
				return gs
			}
		})
		r.faults = true
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		r.soak(n, d, nil)
		gs.mu.Lock()
		t.Logf("%d connections gone", len(gs.gone))
		gs.mu.Unlock()
		r.report()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("slow-reader", func(t *testing.T) {
		// The server drops a client that does not read when its oldest
		// unwritten frame has waited WriteWait (1008; shortened here from
		// 10 s), or when a write has been blocked that long.
		r := newSoak(t, seed, nil, func(c *config) { c.WriteWait = 2 * time.Second })
		baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
		// One client asks for long answers and never reads them.
		dialer := websocket.Dialer{HandshakeTimeout: 5 * time.Second, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetReadBuffer(4096)
			}
			return c, err
		}}
		slowWS, _, err := dialer.Dial("ws://"+r.ts.addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer slowWS.Close()
		shrinkServerSendBuffer(t, r.ts, slowWS)
		// It sends confirms of unknown suggestions (never rate limited,
		// each answered at once with about as many bytes: ids are at most
		// 128 bytes, so nothing amplifies) as fast as it can, and reads
		// nothing.
		stop := make(chan struct{})
		var closed atomic.Bool // the server closed the connection
		var wg sync.WaitGroup
		wg.Go(func() {
			junk := []byte(`{"type":"confirm_action","suggestionId":"` + strings.Repeat("x", lambda.MaxIDBytes) + `"}`)
			for i := 0; i < 10_000_000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				slowWS.SetWriteDeadline(time.Now().Add(30 * time.Second))
				if err := slowWS.WriteMessage(websocket.TextMessage, junk); err != nil {
					t.Logf("slow client: %d frames written, then %v", i, err)
					var ne net.Error
					closed.Store(!errors.As(err, &ne) || !ne.Timeout())
					return
				}
			}
		})
		r.soak(n, d, func() {
			waitLong(t, "the client that does not read to be dropped", func() bool {
				return counterValue(r.ts.s.metrics.dropped) >= 1 || closed.Load()
			})
		})
		close(stop)
		wg.Wait()
		slowWS.Close()
		r.report()
		r.checkClean(baseG, baseHeap)
	})

	t.Run("shutdown", func(t *testing.T) {
		r := newSoak(t, seed, nil, func(c *config) { c.TokenDelay = delayRange{2 * time.Millisecond, 4 * time.Millisecond} })
		r.shutdown, r.noAbort = true, true
		r.soak(n, d+time.Minute, func() {
			time.Sleep(min(d, 2*time.Second))
			if err := r.ts.stop(); err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
		for _, s := range r.sessions {
			r.checkShutdown(s)
		}
		r.report()
		if r.ts.store.len() != 0 {
			t.Fatalf("%d connections left in the store", r.ts.store.len())
		}
	})
}

// checkShutdown: the session was closed with 1001, and every stream that
// had started was ended (cancelled, or done with its response) first.
func (r *soakRun) checkShutdown(s *session) {
	var ce *websocket.CloseError
	if !errors.As(s.readErr, &ce) || ce.Code != websocket.CloseGoingAway {
		r.problem("%s: ended with %v, want close 1001", s.name, s.readErr)
	}
	started, ended := map[string]bool{}, map[string]bool{}
	for _, f := range s.frames {
		switch {
		case f.Type == "sources":
			started[f.ID] = true
		case f.Type == "stream_end" || f.Type == "error":
			ended[f.ID] = true
		}
	}
	for id := range started {
		if !ended[id] {
			r.problem("%s: the stream of %s was not ended before the close", s.name, id)
		}
	}
}
