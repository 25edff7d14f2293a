package dynamostore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/apigw"
	"github.com/groundwire/groundwire/lambda/dynamostore"
	"github.com/groundwire/groundwire/lambda/emulator"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// The tests below run the real handler as it runs in Lambda: several
// lambda.Handler values ("instances", each with its own in-process state
// and its own clients) that share only the DynamoDB table and API Gateway
// (the Management API emulator in front of a recorder).

type oneSnippet struct{}

func (oneSnippet) Search(query string, k int) []lambda.Hit {
	return []lambda.Hit{{Snippet: &lambda.Snippet{File: "kb/pricing.md", Line: 3, Text: "Premium costs 399 kr per month."}, Score: 1}}
}

// gateway is API Gateway's side: the Management API over recorded
// connections.
type gateway struct {
	rec *emulator.Recorder
	url string
}

func newGateway(t *testing.T) *gateway {
	rec := emulator.NewRecorder()
	srv := httptest.NewServer(emulator.NewManagementAPI(rec, emulator.ManagementOptions{RequireSignature: true}))
	t.Cleanup(srv.Close)
	return &gateway{rec: rec, url: srv.URL}
}

func (g *gateway) frames(conn string) []lambdatest.Frame {
	var out []lambdatest.Frame
	for _, b := range g.rec.Sent(conn) {
		var f lambdatest.Frame
		if err := json.Unmarshal(b, &f); err != nil {
			panic(err)
		}
		out = append(out, f)
	}
	return out
}

func (g *gateway) summary(conn string) string { return lambdatest.Summary(g.frames(conn)) }

func (g *gateway) waitFor(t *testing.T, conn, what string, cond func([]lambdatest.Frame) bool) []lambdatest.Frame {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		fs := g.frames(conn)
		if cond(fs) {
			return fs
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %s", what, lambdatest.Summary(fs))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// instance is one Lambda instance: a handler with its own store client and
// sender.
func instance(t *testing.T, g *gateway, storeEndpoint, table string, opts ...func(*lambda.Config)) *lambda.Handler {
	t.Helper()
	cfg := lambda.Config{
		Retriever: oneSnippet{},
		Model:     lambda.NewMock(lambda.MockDelay(0, 0)),
		Store:     dynamostore.New(client(storeEndpoint), table, dynamostore.Options{Timeout: time.Second}),
		Sender:    apigw.New(aws.Config{Region: "us-east-1", Credentials: credentials, RetryMaxAttempts: 1}, apigw.Options{Endpoint: g.url}),
		// as the bootstrap sets them
		CancelCheckInterval: 200 * time.Millisecond,
		CoalesceInterval:    100 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := lambda.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "AKIDLOCAL", SecretAccessKey: "local"}, nil
})

func ev(typ, conn, body string) events.APIGatewayWebsocketProxyRequest {
	return events.APIGatewayWebsocketProxyRequest{Body: body, RequestContext: events.APIGatewayWebsocketProxyRequestContext{
		EventType: typ, ConnectionID: conn, RouteKey: "$default",
	}}
}

func frame(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func connect(t *testing.T, g *gateway, h *lambda.Handler, conn string) {
	t.Helper()
	g.rec.Open(conn, emulator.Info{ConnectedAt: time.Now()})
	if resp, _ := h.Handle(context.Background(), ev(lambda.EventConnect, conn, "")); resp.StatusCode != 200 {
		t.Fatalf("connect: %d", resp.StatusCode)
	}
}

// warnCounter is a slog.Handler that counts records at warning level and
// above (the handler warns when a cancel handoff times out).
type warnCounter struct{ n atomic.Int32 }

func (c *warnCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (c *warnCounter) Handle(context.Context, slog.Record) error    { c.n.Add(1); return nil }
func (c *warnCounter) WithAttrs([]slog.Attr) slog.Handler           { return c }
func (c *warnCounter) WithGroup(string) slog.Handler                { return c }

func logTo(c *warnCounter) func(*lambda.Config) {
	return func(cfg *lambda.Config) { cfg.Logger = slog.New(c) }
}

func slowModel(cfg *lambda.Config) {
	cfg.Model = lambda.NewMock(lambda.MockDelay(10*time.Millisecond, 10*time.Millisecond))
}

// checkFlows checks the frames of a connection: want is their summary, and
// their order is the SPEC's (lambdatest.CheckFlows): in particular no
// stream frame of a cancelled message after its stream_end.
func checkFlows(t *testing.T, fs []lambdatest.Frame, want string) {
	t.Helper()
	if err := lambdatest.CheckFlows(fs); err != nil {
		t.Fatal(err)
	}
	if got := lambdatest.Summary(fs); got != want {
		t.Fatalf("frames %s\nwant %s", got, want)
	}
}

// checkReleased checks that the table holds no record of the answers.
func checkReleased(t *testing.T, table, conn string, ids ...string) {
	t.Helper()
	st := dynamostore.New(client(endpoint), table, dynamostore.Options{})
	for _, id := range ids {
		if ok, err := st.AnswerReleased(context.Background(), conn, id); err != nil || !ok {
			t.Fatalf("answer %s not released (%v)", id, err)
		}
	}
}

// TestCancelAcrossInstances: instance A streams an answer; the cancel lands
// on instance B, which shares only the table. B sets the flag and waits; A
// sees the flag at its next check (at most every 200 ms), takes the end of
// the answer and sends stream_end cancelled itself, so no stream frame can
// follow it; then B's invocation returns.
func TestCancelAcrossInstances(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	var warnings warnCounter
	a := instance(t, g, endpoint, table, slowModel, logTo(&warnings))
	b := instance(t, g, endpoint, table, slowModel, logTo(&warnings))
	connect(t, g, a, "c1")
	text := "$say Premium" + strings.Repeat(" word", 300) + " call me"
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Handle(context.Background(), ev(lambda.EventMessage, "c1", frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: text})))
	}()
	g.waitFor(t, "c1", "streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m1")) > 20 })
	start := time.Now()
	b.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"cancel","id":"m1"}`))
	d := time.Since(start)
	if fs := g.frames("c1"); fs[len(fs)-1].String() != "stream_end:m1:cancelled" {
		t.Fatalf("the cancel returned before the stream_end: %s", lambdatest.Summary(fs))
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("instance A still streaming 5 s after the cancel")
	}
	if d > 900*time.Millisecond {
		t.Fatalf("the cancel took %v", d)
	}
	t.Logf("cancel across instances took %v", d)
	// ready for the next message at once, on either instance
	b.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"message","id":"m2","text":"How much is Premium?"}`))
	checkFlows(t, g.frames("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified")
	checkReleased(t, table, "c1", "m1", "m2")
	if n := warnings.n.Load(); n != 0 {
		t.Fatalf("%d warnings: the handoff timed out", n)
	}
}

// TestSupersedeAcrossInstances: a new message on instance B cancels the one
// streaming on A; B's sources wait for A's stream_end cancelled.
func TestSupersedeAcrossInstances(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	var warnings warnCounter
	a := instance(t, g, endpoint, table, slowModel, logTo(&warnings))
	b := instance(t, g, endpoint, table, logTo(&warnings))
	connect(t, g, a, "c1")
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Handle(context.Background(), ev(lambda.EventMessage, "c1", frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: "$say Premium" + strings.Repeat(" word", 300)})))
	}()
	g.waitFor(t, "c1", "streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m1")) > 20 })
	b.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"message","id":"m2","text":"How much is Premium?"}`))
	<-done
	checkFlows(t, g.frames("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified")
	checkReleased(t, table, "c1", "m1", "m2")
	if n := warnings.n.Load(); n != 0 {
		t.Fatalf("%d warnings: the handoff timed out", n)
	}
}

// stuckModel streams a few tokens, then hangs until released, as a model
// (or an instance) that stopped responding.
type stuckModel struct{ release chan struct{} }

func (m stuckModel) Stream(ctx context.Context, p lambda.Prompt) (lambda.Tokens, error) {
	return &stuckTokens{m: m}, nil
}

type stuckTokens struct {
	m stuckModel
	n int
}

func (t *stuckTokens) Next() (string, error) {
	t.n++
	if t.n > 3 {
		<-t.m.release
	}
	if t.n > 6 {
		return "", io.EOF
	}
	return " word", nil
}

func (t *stuckTokens) Close() error { return nil }

// flagReads counts the reads of the cancel flag.
type flagReads struct {
	lambda.Store
	n atomic.Int32
}

func (s *flagReads) AnswerCancelled(ctx context.Context, conn, msg string) (bool, error) {
	s.n.Add(1)
	return s.Store.AnswerCancelled(ctx, conn, msg)
}

// TestHandoffStreamerHung: the streamer on A hangs; the cancel (or the
// superseding message) on B waits CancelHandoffTimeout, then takes the end
// and sends stream_end cancelled itself. When A wakes up it reads the
// cancel before it posts anything, and stays silent.
func TestHandoffStreamerHung(t *testing.T) {
	for _, tc := range []struct{ name, frame, want string }{
		{"cancel", `{"type":"cancel"}`, "sources:m1 stream:m1 stream_end:m1:cancelled"},
		{"supersede", `{"type":"message","id":"m2","text":"How much is Premium?"}`, "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:done response:m2:verified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table := newTable(t)
			g := newGateway(t)
			stuck := stuckModel{release: make(chan struct{})}
			var warnings warnCounter
			reads := &flagReads{}
			a := instance(t, g, endpoint, table, func(cfg *lambda.Config) {
				cfg.Model, cfg.Mode = stuck, lambda.ModeAfter
				reads.Store = cfg.Store
				cfg.Store = reads
			})
			b := instance(t, g, endpoint, table, logTo(&warnings), func(cfg *lambda.Config) { cfg.CancelHandoffTimeout = 300 * time.Millisecond })
			connect(t, g, a, "c1")
			done := make(chan struct{})
			go func() {
				defer close(done)
				a.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"How much is Premium?"}`))
			}()
			g.waitFor(t, "c1", "streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m1")) >= 3*len(" word") })
			// A reads the flag once more a check interval after its last
			// token, then nothing until the model wakes up: cancel after
			// that read
			for deadline := time.Now().Add(5 * time.Second); reads.n.Load() == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("A never read the cancel flag")
				}
			}
			start := time.Now()
			b.Handle(context.Background(), ev(lambda.EventMessage, "c1", tc.frame))
			if d := time.Since(start); d < 300*time.Millisecond {
				t.Fatalf("B took the end after %v, before the handoff timeout", d)
			}
			checkFlows(t, g.frames("c1"), tc.want)
			close(stuck.release)
			<-done
			checkFlows(t, g.frames("c1"), tc.want)
			checkReleased(t, table, "c1", "m1", "m2")
			if n := warnings.n.Load(); n != 1 {
				t.Fatalf("%d warnings, want the one of the timed-out handoff", n)
			}
		})
	}
}

// TestHandoffRace: three instances, answers streaming at 5 ms a token with
// the bootstrap's 200 ms check interval and 100 ms coalescing, cancels and superseding messages
// landing on any instance at random moments. Whatever the interleaving,
// every message gets exactly one end, nothing of a message follows its end
// (no stray stream frame after stream_end cancelled), a new message begins
// after the previous one ended, and no record is left. The handoff timeout
// is 10 s, not the default 1 s: a streamer that is alive hands off however
// slowly a loaded machine runs it (the default failed at a load of 7 with
// -race), while one that never hands off still draws the warning.
func TestHandoffRace(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	var warnings warnCounter
	hs := make([]*lambda.Handler, 3)
	for i := range hs {
		hs[i] = instance(t, g, endpoint, table, logTo(&warnings), func(cfg *lambda.Config) {
			cfg.Model = lambda.NewMock(lambda.MockDelay(5*time.Millisecond, 5*time.Millisecond))
			cfg.Mode = lambda.ModeAfter
			cfg.Limits.NoRateLimit = true
			cfg.CancelHandoffTimeout = 10 * time.Second
		})
	}
	text := "$say Premium" + strings.Repeat(" word", 30)
	var wg sync.WaitGroup
	for round := range 6 {
		conn := fmt.Sprintf("c%d", round)
		connect(t, g, hs[0], conn)
		rnd := rand.New(rand.NewPCG(3, uint64(round)))
		wg.Go(func() {
			var ids []string
			var inv sync.WaitGroup
			for i := range 4 {
				h := hs[rnd.IntN(len(hs))]
				var body string
				switch k := rnd.IntN(4); {
				case i == 0 || k < 2:
					id := fmt.Sprintf("m%d", i)
					ids = append(ids, id)
					body = frame(lambda.ClientFrame{Type: "message", ID: id, Text: text})
				case k == 2:
					body = `{"type":"cancel"}`
				default:
					body = frame(lambda.ClientFrame{Type: "cancel", ID: ids[len(ids)-1]})
				}
				inv.Go(func() { h.Handle(context.Background(), ev(lambda.EventMessage, conn, body)) })
				time.Sleep(time.Duration(rnd.IntN(150)) * time.Millisecond)
			}
			inv.Wait()
			fs := g.frames(conn)
			if err := lambdatest.CheckFlows(fs); err != nil {
				t.Errorf("%s: %v", conn, err)
				return
			}
			for _, id := range ids {
				n := 0
				for _, f := range fs {
					if f.ID == id && (f.Type == lambda.TypeStreamEnd || f.Type == lambda.TypeError) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s: %s ended %d times: %s", conn, id, n, lambdatest.Summary(fs))
				}
			}
			checkReleased(t, table, conn, ids...)
			t.Logf("%s: %s", conn, lambdatest.Summary(fs))
		})
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	if n := warnings.n.Load(); n != 0 {
		t.Fatalf("%d warnings: a handoff timed out although every streamer was alive", n)
	}
}

type countingExecutor struct{ n atomic.Int32 }

func (x *countingExecutor) Execute(ctx context.Context, a lambda.Action) (string, error) {
	x.n.Add(1)
	time.Sleep(20 * time.Millisecond)
	return "Ticket created.", nil
}

func executors(x lambda.Executor) func(*lambda.Config) {
	return func(cfg *lambda.Config) {
		cfg.Executors = map[string]lambda.Executor{lambda.ActionCreateTicket: x, lambda.ActionScheduleCallback: x, lambda.ActionSendSMS: x}
	}
}

func suggest(t *testing.T, g *gateway, h *lambda.Handler, conn, msgID string) string {
	t.Helper()
	h.Handle(context.Background(), ev(lambda.EventMessage, conn, frame(lambda.ClientFrame{Type: "message", ID: msgID, Text: "Premium price? Create ticket please"})))
	fs := g.frames(conn)
	last := fs[len(fs)-1]
	if last.Type != lambda.TypeActionSuggestion || last.SuggestionID == "" {
		t.Fatalf("no suggestion: %s", lambdatest.Summary(fs))
	}
	return last.SuggestionID
}

func confirm(h *lambda.Handler, conn, id string) {
	h.Handle(context.Background(), ev(lambda.EventMessage, conn, frame(lambda.ClientFrame{Type: "confirm_action", SuggestionID: id})))
}

// results returns the action_executed results sent to a connection.
func results(g *gateway, conn string) []lambda.ActionResult {
	var out []lambda.ActionResult
	for _, f := range g.frames(conn) {
		if f.Type == lambda.TypeActionExecuted {
			out = append(out, f.Result)
		}
	}
	return out
}

// TestConfirmRaceAcrossInstances: 20 confirms of one suggestion spread over
// four instances execute it exactly once.
func TestConfirmRaceAcrossInstances(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	x := &countingExecutor{}
	hs := make([]*lambda.Handler, 4)
	for i := range hs {
		hs[i] = instance(t, g, endpoint, table, executors(x))
	}
	connect(t, g, hs[0], "c1")
	id := suggest(t, g, hs[1], "c1", "m1")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { confirm(hs[i%len(hs)], "c1", id) })
	}
	wg.Wait()
	if n := x.n.Load(); n != 1 {
		t.Fatalf("executed %d times", n)
	}
	rs := results(g, "c1")
	if len(rs) != 20 {
		t.Fatalf("%d results", len(rs))
	}
	count := map[lambda.ActionResult]int{}
	for _, r := range rs {
		count[r]++
	}
	if count[lambda.ActionResult{Success: true, Message: "Ticket created."}] != 1 ||
		count[lambda.ActionResult{Success: true, Ignored: true, Message: lambda.MsgAlreadyExecuted}] != 19 {
		t.Fatalf("results %v", count)
	}
}

// TestExpiryAcrossInstances: with an injected clock, a confirm after 30 s is
// expired, a repeat within 30 s of execution is ignored and after that
// expired; a foreign connection sees the suggestion as unknown; a cancel
// withdraws pending suggestions.
func TestExpiryAcrossInstances(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	clock := lambdatest.NewClock(t0)
	x := &countingExecutor{}
	opts := []func(*lambda.Config){executors(x), func(cfg *lambda.Config) { cfg.Clock = clock }}
	a := instance(t, g, endpoint, table, opts...)
	b := instance(t, g, endpoint, table, opts...)
	connect(t, g, a, "c1")
	connect(t, g, a, "c2")

	s1 := suggest(t, g, a, "c1", "m1")
	clock.Advance(30*time.Second + time.Millisecond)
	confirm(b, "c1", s1)

	s2 := suggest(t, g, a, "c1", "m2")
	confirm(b, "c2", s2) // foreign
	clock.Advance(10 * time.Second)
	confirm(b, "c1", s2)
	clock.Advance(30 * time.Second)
	confirm(a, "c1", s2)
	clock.Advance(time.Millisecond)
	confirm(b, "c1", s2)

	s3 := suggest(t, g, b, "c1", "m3")
	a.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"cancel"}`))
	confirm(b, "c1", s3)

	msgs := func(rs []lambda.ActionResult) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Message)
		}
		return strings.Join(out, " | ")
	}
	if got, want := msgs(results(g, "c1")), "Suggestion expired | Ticket created. | Already executed | Suggestion expired | Suggestion cancelled"; got != want {
		t.Fatalf("c1 results: %s\nwant %s", got, want)
	}
	if got := msgs(results(g, "c2")); got != lambda.MsgUnknown {
		t.Fatalf("c2 results: %s", got)
	}
	if x.n.Load() != 1 {
		t.Fatalf("executed %d times", x.n.Load())
	}
}

// TestDisconnectOnOtherInstance: $disconnect lands on B while A streams: A
// stops, and the connection's suggestions are unknown afterwards.
func TestDisconnectOnOtherInstance(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	a := instance(t, g, endpoint, table, func(cfg *lambda.Config) {
		cfg.Model = lambda.NewMock(lambda.MockDelay(10*time.Millisecond, 10*time.Millisecond))
	})
	b := instance(t, g, endpoint, table)
	connect(t, g, a, "c1")
	id := suggest(t, g, b, "c1", "m0")
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Handle(context.Background(), ev(lambda.EventMessage, "c1", frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: "$say Premium" + strings.Repeat(" word", 300)})))
	}()
	g.waitFor(t, "c1", "streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m1")) > 20 })
	b.Handle(context.Background(), ev(lambda.EventDisconnect, "c1", ""))
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("still streaming after disconnect")
	}
	n := len(g.frames("c1"))
	if last := g.frames("c1")[n-1]; last.Type != lambda.TypeStream {
		t.Fatalf("frames after disconnect: %s", g.summary("c1"))
	}
	st := dynamostore.New(client(endpoint), table, dynamostore.Options{})
	if _, o, err := st.ClaimSuggestion(context.Background(), "c1", id, time.Now()); err != nil || o != lambda.ClaimUnknown {
		t.Fatalf("suggestion after disconnect: %v %v", o, err)
	}
}

// closedPort returns the endpoint of a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := "http://" + l.Addr().String()
	l.Close()
	return ep
}

// TestStoreDown: DynamoDB unreachable. Nothing executes and the client is
// told; a message gets an error instead of an answer; nothing hangs.
func TestStoreDown(t *testing.T) {
	g := newGateway(t)
	x := &countingExecutor{}
	h := instance(t, g, closedPort(t), "groundwire", executors(x))
	g.rec.Open("c1", emulator.Info{})
	start := time.Now()
	if resp, _ := h.Handle(context.Background(), ev(lambda.EventConnect, "c1", "")); resp.StatusCode != 500 {
		t.Fatalf("connect with the store down: %d", resp.StatusCode)
	}
	confirm(h, "c1", "0123456789abcdef0123456789abcdef")
	h.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"message","id":"m1","text":"How much is Premium?"}`))
	h.Handle(context.Background(), ev(lambda.EventMessage, "c1", `{"type":"cancel"}`))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v with the store down", d)
	}
	if x.n.Load() != 0 {
		t.Fatal("executed with the store down")
	}
	if got := g.summary("c1"); got != "action_executed:"+lambda.MsgNotConfirmed+" error:m1:internal error::internal" {
		t.Fatalf("frames %s", got)
	}
	if rs := results(g, "c1"); rs[0].Success || rs[0].Ignored {
		t.Fatalf("result %+v", rs[0])
	}
}

// flaky is a proxy in front of DynamoDB that can be taken down: then it
// drops connections, as a network failure does.
type flaky struct {
	down atomic.Bool
	url  string
}

func newFlaky(t *testing.T, target string) *flaky {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	f := &flaky{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f.down.Load() {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// TestStoreDownWhileStreaming: DynamoDB fails in the middle of an answer:
// the stream stops cleanly with an error (the answer cannot be checked for
// cancellation any more), within the bounded retries; a confirm executes
// nothing.
func TestStoreDownWhileStreaming(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	f := newFlaky(t, endpoint)
	x := &countingExecutor{}
	h := instance(t, g, f.url, table, executors(x), func(cfg *lambda.Config) {
		cfg.Model = lambda.NewMock(lambda.MockDelay(10*time.Millisecond, 10*time.Millisecond))
	})
	connect(t, g, h, "c1")
	id := suggest(t, g, h, "c1", "m0")
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.Handle(context.Background(), ev(lambda.EventMessage, "c1", frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: "$say Premium" + strings.Repeat(" word", 500)})))
	}()
	g.waitFor(t, "c1", "streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m1")) > 20 })
	f.down.Store(true)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream hangs with the store down")
	}
	confirm(h, "c1", id)
	fs := g.frames("c1")
	if x.n.Load() != 0 {
		t.Fatal("executed with the store down")
	}
	tail := lambdatest.Summary(fs[len(fs)-3:])
	if !strings.HasSuffix(tail, "stream:m1 error:m1:internal action_executed:"+lambda.MsgNotConfirmed) {
		t.Fatalf("frames end with %s", tail)
	}
	for _, fr := range fs {
		if fr.ID == "m1" && (fr.Type == lambda.TypeResponse || fr.Type == lambda.TypeStreamEnd) {
			t.Fatalf("answer completed with the store down: %s", g.summary("c1"))
		}
	}
}

// TestDeadlineAcrossInstances: invocations with a 1.5 s timeout, as the
// Lambda runtime sets it, and answers that would stream for 3 s. The
// answer on A ends before A's deadline with stream_end cancelled; a
// message on B while it streams waits for that end (or takes it) and ends
// before its own deadline too; a follow-up on either instance is answered
// in full; nothing is left in the table.
func TestDeadlineAcrossInstances(t *testing.T) {
	table := newTable(t)
	g := newGateway(t)
	a := instance(t, g, endpoint, table, slowModel)
	b := instance(t, g, endpoint, table, slowModel)
	connect(t, g, a, "c1")
	long := "$say Premium" + strings.Repeat(" word", 300)
	within := func(h *lambda.Handler, body string) <-chan error {
		out := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
			defer cancel()
			h.Handle(ctx, ev(lambda.EventMessage, "c1", body))
			out <- ctx.Err()
		}()
		return out
	}
	first := within(a, frame(lambda.ClientFrame{Type: "message", ID: "m1", Text: long}))
	if err := <-first; err != nil {
		t.Fatalf("m1's invocation ran into its deadline: %v", err)
	}
	checkFlows(t, g.frames("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled")
	second := within(a, frame(lambda.ClientFrame{Type: "message", ID: "m2", Text: long}))
	g.waitFor(t, "c1", "m2 streaming", func(fs []lambdatest.Frame) bool { return len(lambdatest.Deltas(fs, "m2")) > 20 })
	third := within(b, frame(lambda.ClientFrame{Type: "message", ID: "m3", Text: long}))
	for _, done := range []<-chan error{second, third} {
		if err := <-done; err != nil {
			t.Fatalf("an invocation ran into its deadline: %v", err)
		}
	}
	checkFlows(t, g.frames("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:cancelled sources:m3 stream:m3 stream_end:m3:cancelled")
	if err := <-within(b, `{"type":"message","id":"m4","text":"How much is Premium?"}`); err != nil {
		t.Fatal(err)
	}
	checkFlows(t, g.frames("c1"), "sources:m1 stream:m1 stream_end:m1:cancelled sources:m2 stream:m2 stream_end:m2:cancelled sources:m3 stream:m3 stream_end:m3:cancelled sources:m4 stream:m4 stream_end:m4:done response:m4:verified")
	checkReleased(t, table, "c1", "m1", "m2", "m3", "m4")
}
