package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	dto "github.com/prometheus/client_model/go"

	"github.com/groundwire/groundwire/lambda"
)

// The soak and chaos tests: many clients at once against the real server
// (in process, over loopback), each doing a random but seeded mix of
// everything the protocol allows and a few things it does not, with
// invariants checked on every client's transcript and on the server after
// they leave. Bounded in time: a few seconds each by default,
// GROUNDWIRE_SOAK=5m for a long run, GROUNDWIRE_SOAK_CLIENTS=N for more
// clients, GROUNDWIRE_SOAK_SEED=N to replay a seed (it is logged).

// soakSettings reads the duration (scaled for the faults' subtests by
// share), client count and seed.
func soakSettings(t *testing.T, def time.Duration) (time.Duration, int, uint64) {
	t.Helper()
	d := def
	if testing.Short() {
		d = 2 * time.Second
	}
	if v := os.Getenv("GROUNDWIRE_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("GROUNDWIRE_SOAK: %v", err)
		}
	}
	n := 50
	if v := os.Getenv("GROUNDWIRE_SOAK_CLIENTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("GROUNDWIRE_SOAK_CLIENTS: %q", v)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("GROUNDWIRE_SOAK_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("GROUNDWIRE_SOAK_SEED: %v", err)
		}
	}
	t.Logf("soak: %v, %d clients, seed %d (replay: GROUNDWIRE_SOAK_SEED=%d)", d, n, seed, seed)
	return d, n, seed
}

// soakConfig: a short token delay so that cancels and supersedes land
// mid-stream, a short suggestion window so that some confirms are late, a
// rate limit loose enough that most messages pass.
func soakConfig(c *config) {
	c.TokenDelay = delayRange{time.Millisecond, 3 * time.Millisecond}
	c.SuggestWindow = 400 * time.Millisecond
	c.Rate = 20
	c.Burst = 10
	c.MaxConns = 10000
	c.ShutdownTimeout = 5 * time.Second
}

// execLog counts executions per suggestion id.
type execLog struct {
	mu    sync.Mutex
	bySID map[string]int
}

func (e *execLog) wrap(ex map[string]lambda.Executor) map[string]lambda.Executor {
	e.bySID = map[string]int{}
	out := map[string]lambda.Executor{}
	for name, x := range ex {
		out[name] = lambda.ExecutorFunc(func(ctx context.Context, a lambda.Action) (string, error) {
			e.mu.Lock()
			e.bySID[a.SuggestionID]++
			e.mu.Unlock()
			time.Sleep(time.Millisecond) // a window for racing confirms
			return x.Execute(ctx, a)
		})
	}
	return out
}

func (e *execLog) count(sid string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.bySID[sid]
}

// soakRun is one soak: a server, its clients and what they saw.
type soakRun struct {
	t        *testing.T
	ts       *testServer
	exec     *execLog
	seed     uint64
	faults   bool // store failures or gone connections: errors may replace stream_end
	noAbort  bool // clients never drop their connection
	shutdown bool // the server is shut down under the clients

	mu       sync.Mutex
	sessions []*session
	owner    map[string]*session // suggestion id → the session it was offered to
	pool     []string            // every suggestion id offered, for foreign confirms
	problems []string
}

func (r *soakRun) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) < 50 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

func (r *soakRun) offered(sid string, s *session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner[sid] != nil {
		r.problems = append(r.problems, fmt.Sprintf("suggestion id %s offered twice", sid))
	}
	r.owner[sid] = s
	r.pool = append(r.pool, sid)
}

func (r *soakRun) foreign(rng *rand.Rand, s *session) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for range 5 {
		if len(r.pool) == 0 {
			break
		}
		sid := r.pool[rng.IntN(len(r.pool))]
		if r.owner[sid] != s {
			return sid
		}
	}
	var b [16]byte
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return fmt.Sprintf("%x", b) // a guess
}

// session is one connection of a client, with its transcript.
type session struct {
	r    *soakRun
	name string
	ws   *websocket.Conn

	mu        sync.Mutex
	frames    []frame
	msgs      map[string]string // id → text of every message sent
	order     []string
	badIDs    map[string]bool // ids of malformed messages: errors expected
	mine      []string        // suggestion ids offered to this session
	confirms  map[string]int  // suggestion id → confirms sent
	results   int             // action_executed frames
	sentConfs int
	gone      bool // a "-gone" message was sent: the server may stop answering
	aborted   bool // dropped by the client without a close frame
	readErr   error
	done      chan struct{}
}

func (r *soakRun) dial(name string) (*session, error) {
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, resp, err := d.Dial("ws://"+r.ts.addr+"/ws", nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	s := &session{r: r, name: name, ws: ws, msgs: map[string]string{}, badIDs: map[string]bool{},
		confirms: map[string]int{}, done: make(chan struct{})}
	r.mu.Lock()
	r.sessions = append(r.sessions, s)
	r.mu.Unlock()
	go s.read()
	return s, nil
}

func (s *session) read() {
	defer close(s.done)
	for {
		typ, data, err := s.ws.ReadMessage()
		if err != nil {
			s.mu.Lock()
			s.readErr = err
			s.mu.Unlock()
			return
		}
		if typ != websocket.TextMessage {
			s.r.problem("%s: a binary frame from the server", s.name)
			continue
		}
		var f frame
		if err := json.Unmarshal(data, &f); err != nil {
			s.r.problem("%s: bad frame %q", s.name, data)
			continue
		}
		s.mu.Lock()
		s.frames = append(s.frames, f)
		switch f.Type {
		case "action_suggestion":
			s.mine = append(s.mine, f.SuggestionID)
		case "action_executed":
			s.results++
		}
		s.mu.Unlock()
		if f.Type == "action_suggestion" {
			s.r.offered(f.SuggestionID, s)
		}
	}
}

func (s *session) write(typ int, data []byte) error {
	s.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return s.ws.WriteMessage(typ, data)
}

func (s *session) sendJSON(v map[string]string) error {
	b, _ := json.Marshal(v)
	return s.write(websocket.TextMessage, b)
}

var soakTexts = []string{
	"What does Premium cost?",
	"How much storage does Basic include?",
	"How do I reset my password?",
	"What is the refund policy?",
	"Vad kostar Premium per månad?",
	"Hur mycket lagring ingår i Basic?",
	"hallucinate: what does Premium cost per month?",
	"hallucinate: vad kostar Premium per månad?",
	"Please call me on +46 70 123 45 67",
	"Can you text me at 070-123 45 67 about Premium?",
	"Please create ticket: the sync fails on my laptop",
	"Skicka sms till 070 123 45 67 om priset",
	"Tell me about the weather on Mars",
	"$say Premium costs 399 kr a month and Basic costs 12345 kr.",
}

// message sends a message with a fresh id and returns it.
func (s *session) message(rng *rand.Rand, n *int, suffix string) (string, error) {
	*n++
	id := fmt.Sprintf("%s-m%d%s", s.name, *n, suffix)
	text := soakTexts[rng.IntN(len(soakTexts))]
	f := map[string]string{"type": "message", "id": id, "text": text}
	if rng.IntN(4) == 0 {
		f["lang"] = []string{"en", "sv"}[rng.IntN(2)]
	}
	s.mu.Lock()
	s.msgs[id] = text
	s.order = append(s.order, id)
	if suffix == "-gone" {
		s.gone = true
	}
	s.mu.Unlock()
	return id, s.sendJSON(f)
}

func (s *session) confirm(sid string) error {
	s.mu.Lock()
	s.confirms[sid]++
	s.sentConfs++
	s.mu.Unlock()
	return s.sendJSON(map[string]string{"type": "confirm_action", "suggestionId": sid})
}

// ended reports whether a message has had its last frame (stream_end
// cancelled, response and the suggestion it asks for, or an error).
func (s *session) ended(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return endedLocked(s.frames, id, s.msgs[id], s.r.faults)
}

func endedLocked(fs []frame, id, text string, faults bool) bool {
	// A suggestion the store could not record is not offered.
	wantSuggestion := false
	if a, _ := lambda.DetectAction(text); a != "" && !faults {
		wantSuggestion = true
	}
	resp := false
	for _, f := range fs {
		if f.ID != id {
			continue
		}
		switch {
		case f.Type == "error":
			return true
		case f.Type == "stream_end" && f.Reason == lambda.ReasonCancelled:
			return true
		case f.Type == "response":
			resp = true
			if !wantSuggestion {
				return true
			}
		case f.Type == "action_suggestion":
			return true
		}
	}
	_ = resp
	return false
}

// settled: every message ended, every malformed one refused and every
// confirm answered.
func (s *session) settled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.results < s.sentConfs {
		return false
	}
	refused := map[string]bool{}
	for _, f := range s.frames {
		if f.Type == "error" && s.badIDs[f.ID] {
			refused[f.ID] = true
		}
	}
	if len(refused) < len(s.badIDs) {
		return false
	}
	for _, id := range s.order {
		if !endedLocked(s.frames, id, s.msgs[id], s.r.faults) {
			return false
		}
	}
	return true
}

// client runs one simulated user until the deadline, reconnecting after it
// drops its connection.
func (r *soakRun) client(i int, deadline time.Time) {
	rng := rand.New(rand.NewPCG(r.seed, uint64(i)))
	var sess, n int
	newSession := func() *session {
		for {
			sess++
			s, err := r.dial(fmt.Sprintf("c%d.%d", i, sess))
			if err == nil {
				return s
			}
			if r.shutdown || time.Now().After(deadline) {
				return nil
			}
			r.problem("client %d: dial: %v", i, err)
			time.Sleep(50 * time.Millisecond)
		}
	}
	s := newSession()
	if s == nil {
		return
	}
	var active string
	for time.Now().Before(deadline) {
		var err error
		s.mu.Lock()
		gone := s.gone
		mine := append([]string(nil), s.mine...)
		s.mu.Unlock()
		switch op := rng.IntN(100); {
		case op < 30: // a message (superseding the active one, if any)
			suffix := ""
			if r.faults && !gone && rng.IntN(40) == 0 {
				suffix = "-gone"
			}
			active, err = s.message(rng, &n, suffix)
		case op < 38: // cancel the active message
			err = s.sendJSON(map[string]string{"type": "cancel", "id": active})
		case op < 41: // cancel whatever is active
			err = s.sendJSON(map[string]string{"type": "cancel"})
		case op < 43: // cancel an id that is not active
			err = s.sendJSON(map[string]string{"type": "cancel", "id": "not-active"})
		case op < 53 && len(mine) > 0: // confirm the latest suggestion
			err = s.confirm(mine[len(mine)-1])
		case op < 58 && len(mine) > 0: // double confirm, back to back (racing invocations)
			if err = s.confirm(mine[len(mine)-1]); err == nil {
				err = s.confirm(mine[len(mine)-1])
			}
		case op < 62 && len(mine) > 0: // an older one (maybe expired)
			err = s.confirm(mine[rng.IntN(len(mine))])
		case op < 66: // another connection's (or a guessed) id
			err = s.confirm(r.foreign(rng, s))
		case op < 70: // malformed
			switch rng.IntN(6) {
			case 0:
				err = s.write(websocket.TextMessage, []byte(`{"type":"message","id":`))
			case 1:
				err = s.write(websocket.TextMessage, []byte(`{"type":"nope","id":"x"}`))
			case 2:
				n++
				id := fmt.Sprintf("%s-bad%d", s.name, n)
				s.mu.Lock()
				s.badIDs[id] = true
				s.mu.Unlock()
				err = s.sendJSON(map[string]string{"type": "message", "id": id}) // no text
			case 3:
				err = s.write(websocket.BinaryMessage, []byte{0, 1, 2})
			case 4:
				err = s.write(websocket.TextMessage, []byte(`[1,2,3]`))
			case 5:
				err = s.sendJSON(map[string]string{"type": "confirm_action"}) // no id
			}
		case op < 72 && !r.noAbort: // drop the connection without a close frame
			s.mu.Lock()
			s.aborted = true
			s.mu.Unlock()
			s.ws.NetConn().Close()
			<-s.done
			if s = newSession(); s == nil {
				return
			}
			active = ""
		case op < 80 && active != "": // wait for the answer
			until := time.Now().Add(time.Second)
			for !s.ended(active) && time.Now().Before(until) {
				time.Sleep(5 * time.Millisecond)
			}
		}
		if err != nil {
			if !r.shutdown {
				r.problem("%s: write: %v", s.name, err)
			}
			return
		}
		time.Sleep(time.Duration(2+rng.IntN(40)) * time.Millisecond)
	}
	if r.shutdown {
		return // the server closes the connection
	}
	// Let everything in flight end, then leave properly.
	s.mu.Lock()
	gone := s.gone
	s.mu.Unlock()
	until := time.Now().Add(20 * time.Second)
	for !gone && !s.settled() && time.Now().Before(until) {
		time.Sleep(10 * time.Millisecond)
	}
	if !gone && !s.settled() {
		r.problem("%s: not settled after 20 s", s.name)
	}
	s.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		r.problem("%s: the server did not close after our close frame", s.name)
	}
	s.ws.Close()
	<-s.done
}

// soak runs clients against ts for d and checks every transcript.
func (r *soakRun) soak(n int, d time.Duration, during func()) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { r.client(i, deadline) })
	}
	if during != nil {
		during()
	}
	wg.Wait()
	if r.shutdown {
		r.mu.Lock()
		ss := append([]*session(nil), r.sessions...)
		r.mu.Unlock()
		for _, s := range ss {
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				r.problem("%s: not closed by the shutdown", s.name)
				s.ws.Close()
				<-s.done
			}
		}
	}
	for _, s := range r.sessions {
		r.check(s)
	}
}

// report fails the test with the problems found.
func (r *soakRun) report() {
	r.t.Helper()
	var msgs, frames, execs int
	for _, s := range r.sessions {
		msgs += len(s.order)
		frames += len(s.frames)
	}
	r.exec.mu.Lock()
	for _, c := range r.exec.bySID {
		execs += c
	}
	r.exec.mu.Unlock()
	r.t.Logf("soak: %d connections, %d messages, %d frames received, %d actions executed, %d suggestion ids",
		len(r.sessions), msgs, frames, execs, len(r.pool))
	if len(r.problems) > 0 {
		r.t.Fatalf("seed %d: %d problems:\n%s", r.seed, len(r.problems), strings.Join(r.problems, "\n"))
	}
}

func newSoak(t *testing.T, seed uint64, wrap func(*testServer, *deps), opts ...func(*config)) *soakRun {
	r := &soakRun{t: t, seed: seed, exec: &execLog{}, owner: map[string]*session{}}
	r.ts = startServerWith(t, func(ts *testServer, d *deps) {
		d.Executors = r.exec.wrap(lambda.DefaultExecutors())
		if wrap != nil {
			wrap(ts, d)
		}
	}, append([]func(*config){soakConfig}, opts...)...)
	r.ts.get("/healthz") // the server's own goroutines are all up
	time.Sleep(50 * time.Millisecond)
	return r
}

// heapInuse is the heap in use after two collections.
func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// checkClean checks that nothing of the clients is left in the server.
func (r *soakRun) checkClean(baseG int, baseHeap uint64) {
	t := r.t
	t.Helper()
	// A connection leaves the registry and the store before its handler
	// goroutine returns and uncounts it: wait for all three.
	counted := func() (int, int) {
		r.ts.s.mu.Lock()
		defer r.ts.s.mu.Unlock()
		return r.ts.s.conns, len(r.ts.s.perIP)
	}
	waitFor(t, "every connection to leave the registry, the store and the server's counts", func() bool {
		conns, perIP := counted()
		return r.ts.s.reg.len() == 0 && r.ts.store.len() == 0 && conns == 0 && perIP == 0
	})
	deadline := time.Now().Add(10 * time.Second)
	g := runtime.NumGoroutine()
	for g > baseG && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		g = runtime.NumGoroutine()
	}
	if g > baseG {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the clients left, %d before:\n%s", g, baseG, buf[:runtime.Stack(buf, true)])
	}
	// The logs (debug level, every frame) hold no message text and no
	// phone number, as written or as digits (701234567: nine digits, which
	// nanosecond timestamps and durations in the logs do not hold by chance
	// the way they may hold any seven); then they are dropped, not to count
	// as server memory.
	logs := r.ts.logs.String()
	for _, secret := range []string{"reset my password", "weather on Mars", "Vad kostar", "sync fails", "123 45 67", "701234567"} {
		if i := strings.Index(logs, secret); i >= 0 {
			start := strings.LastIndexByte(logs[:i], '\n') + 1
			end := i + strings.IndexByte(logs[i:]+"\n", '\n')
			t.Errorf("the logs hold %q: %s", secret, logs[start:end])
		}
	}
	t.Logf("logs: %d lines checked", strings.Count(logs, "\n"))
	r.ts.logs.mu.Lock()
	r.ts.logs.b = bytes.Buffer{}
	r.ts.logs.mu.Unlock()
	r.sessions, r.pool, r.owner = nil, nil, nil // let the transcripts go
	heap := heapInuse()
	t.Logf("heap in use: %.1f MB before, %.1f MB after; goroutines %d before, %d after",
		float64(baseHeap)/1e6, float64(heap)/1e6, baseG, g)
	if heap > baseHeap+16<<20 {
		if f, err := os.CreateTemp("", "soak-heap-*.pprof"); err == nil {
			pprof.Lookup("heap").WriteTo(f, 0)
			f.Close()
			t.Logf("heap profile: %s", f.Name())
		}
		t.Fatalf("heap in use grew from %d to %d bytes", baseHeap, heap)
	}
}

func TestSoak(t *testing.T) {
	d, n, seed := soakSettings(t, 10*time.Second)
	r := newSoak(t, seed, nil)
	baseG, baseHeap := runtime.NumGoroutine(), heapInuse()
	r.soak(n, d, nil)
	r.report()
	r.checkClean(baseG, baseHeap)
}

func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counterValue reads a Prometheus counter.
func counterValue(c interface{ Write(*dto.Metric) error }) float64 {
	var m dto.Metric
	if c.Write(&m) != nil || m.Counter == nil {
		return 0
	}
	return m.Counter.GetValue()
}
