package lambda_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

// fakeKB is a tiny retriever: snippets ranked by how many words (3+ letters)
// they share with the query.
type fakeKB struct{ snippets []*lambda.Snippet }

func newFakeKB() *fakeKB {
	kb := &fakeKB{}
	add := func(file string, line int, text string) {
		kb.snippets = append(kb.snippets, &lambda.Snippet{File: file, Line: line, Text: text, Source: guardrail.NewSource(text)})
	}
	add("kb/en/pricing.md", 3, "Premium: 399 kr/month.")
	add("kb/en/pricing.md", 4, "Basic plan: 99 kr/month.")
	add("kb/sv/priser.md", 3, "Premium kostar 399 kr/månad.")
	add("kb/en/support.md", 2, "Support is open on weekdays.")
	return kb
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("åäö", r))
	}) {
		if len([]rune(w)) >= 3 {
			m[w] = true
		}
	}
	return m
}

func (kb *fakeKB) Search(query string, k int) []lambda.Hit {
	q := words(query)
	var hits []lambda.Hit
	for _, s := range kb.snippets {
		n := 0
		for w := range words(s.Text) {
			if q[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, lambda.Hit{Snippet: s, Score: float64(n)})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if k <= 0 {
		k = 3
	}
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

var epoch = time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)

type harness struct {
	t      *testing.T
	h      *lambda.Handler
	sender *lambdatest.Sender
	clock  *lambdatest.Clock
	store  lambda.Store
	wg     sync.WaitGroup
}

// newHarness builds a handler with the fake KB, the mock model without
// delays, a memory store, a recording sender and a fake clock; edit the
// config with the options.
func newHarness(t *testing.T, opts ...func(*lambda.Config)) *harness {
	t.Helper()
	hs := &harness{t: t, sender: lambdatest.NewSender(), clock: lambdatest.NewClock(epoch)}
	cfg := lambda.Config{
		Retriever: newFakeKB(),
		Model:     lambda.NewMock(lambda.MockDelay(0, 0), lambda.MockClock(hs.clock)),
		Store:     lambda.NewMemStore(),
		Sender:    hs.sender,
		Clock:     hs.clock,
	}
	for _, o := range opts {
		o(&cfg)
	}
	hs.store = cfg.Store
	if s, ok := cfg.Sender.(*lambdatest.Sender); ok {
		hs.sender = s
	}
	if c, ok := cfg.Clock.(*lambdatest.Clock); ok {
		hs.clock = c
	}
	h, err := lambda.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs.h = h
	t.Cleanup(hs.wg.Wait)
	return hs
}

func event(eventType, conn string) events.APIGatewayWebsocketProxyRequest {
	route := map[string]string{lambda.EventConnect: "$connect", lambda.EventMessage: "$default", lambda.EventDisconnect: "$disconnect"}[eventType]
	return events.APIGatewayWebsocketProxyRequest{
		RequestContext: events.APIGatewayWebsocketProxyRequestContext{
			RouteKey:     route,
			EventType:    eventType,
			ConnectionID: conn,
			DomainName:   "localhost",
			Stage:        "local",
		},
	}
}

func (hs *harness) connect(conn string) {
	hs.t.Helper()
	resp, err := hs.h.Handle(context.Background(), event(lambda.EventConnect, conn))
	if err != nil || resp.StatusCode != 200 {
		hs.t.Fatalf("connect %s: %d %v", conn, resp.StatusCode, err)
	}
}

func (hs *harness) disconnect(conn string) {
	hs.t.Helper()
	hs.h.Handle(context.Background(), event(lambda.EventDisconnect, conn))
}

// send delivers one client frame and waits for its invocation to return.
func (hs *harness) send(conn string, frame any) {
	hs.t.Helper()
	<-hs.sendAsync(conn, frame)
}

// sendAsync delivers a client frame in its own goroutine (as API Gateway
// does) and returns a channel closed when the invocation returned.
func (hs *harness) sendAsync(conn string, frame any) <-chan struct{} {
	var body string
	switch f := frame.(type) {
	case string:
		body = f
	default:
		b, err := json.Marshal(f)
		if err != nil {
			hs.t.Fatal(err)
		}
		body = string(b)
	}
	req := event(lambda.EventMessage, conn)
	req.Body = body
	done := make(chan struct{})
	hs.wg.Add(1)
	go func() {
		defer hs.wg.Done()
		defer close(done)
		resp, err := hs.h.Handle(context.Background(), req)
		if err != nil || resp.StatusCode != 200 {
			panic(fmt.Sprintf("message: %d %v", resp.StatusCode, err))
		}
	}()
	return done
}

func (hs *harness) frames(conn string) []lambdatest.Frame { return hs.sender.Frames(conn) }

func (hs *harness) summary(conn string) string { return lambdatest.Summary(hs.frames(conn)) }

// wait waits until the frames of conn satisfy cond.
func (hs *harness) wait(conn string, what string, cond func([]lambdatest.Frame) bool) []lambdatest.Frame {
	hs.t.Helper()
	fs, ok := hs.sender.WaitFor(conn, 5*time.Second, cond)
	if !ok {
		hs.t.Fatalf("timed out waiting for %s; frames: %s", what, lambdatest.Summary(fs))
	}
	return fs
}

func has(s string) func([]lambdatest.Frame) bool {
	return func(fs []lambdatest.Frame) bool {
		for _, f := range fs {
			if f.String() == s {
				return true
			}
		}
		return false
	}
}

func msg(id, text string) lambda.ClientFrame {
	return lambda.ClientFrame{Type: lambda.TypeMessage, ID: id, Text: text}
}

func msgLang(id, text, lang string) lambda.ClientFrame {
	return lambda.ClientFrame{Type: lambda.TypeMessage, ID: id, Text: text, Lang: lang}
}

func cancel(id string) lambda.ClientFrame {
	return lambda.ClientFrame{Type: lambda.TypeCancel, ID: id}
}

func confirm(sid string) lambda.ClientFrame {
	return lambda.ClientFrame{Type: lambda.TypeConfirmAction, SuggestionID: sid}
}

// last returns the last frame of a type.
func last(fs []lambdatest.Frame, typ string) lambdatest.Frame {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i].Type == typ {
			return fs[i]
		}
	}
	return lambdatest.Frame{}
}

// withoutStream drops stream frames (their number depends on how much the
// guard holds back).
func withoutStream(fs []lambdatest.Frame) string {
	var out []string
	for _, f := range fs {
		if f.Type != lambda.TypeStream {
			out = append(out, f.String())
		}
	}
	return strings.Join(out, " ")
}

// gateModel streams scripted tokens, each released by the test through
// step (or all at once when step is nil). It records Close calls.
type gateModel struct {
	tokens []string
	step   chan struct{}

	mu      sync.Mutex
	started chan struct{} // closed when the first Stream starts
	closed  int
	open    sync.Once
}

func newGateModel(tokens ...string) *gateModel {
	return &gateModel{tokens: tokens, step: make(chan struct{}), started: make(chan struct{})}
}

// release lets every remaining token through (at once, for good).
func (g *gateModel) release() { g.open.Do(func() { close(g.step) }) }

func (g *gateModel) Stream(ctx context.Context, p lambda.Prompt) (lambda.Tokens, error) {
	g.mu.Lock()
	select {
	case <-g.started:
	default:
		close(g.started)
	}
	g.mu.Unlock()
	return &gateTokens{g: g, ctx: ctx, toks: g.tokens}, nil
}

type gateTokens struct {
	g    *gateModel
	ctx  context.Context
	toks []string
}

func (t *gateTokens) Next() (string, error) {
	if len(t.toks) == 0 {
		return "", io.EOF
	}
	select {
	case <-t.g.step:
	case <-t.ctx.Done():
		return "", t.ctx.Err()
	}
	tok := t.toks[0]
	t.toks = t.toks[1:]
	return tok, nil
}

func (t *gateTokens) Close() error {
	t.g.mu.Lock()
	t.g.closed++
	t.g.mu.Unlock()
	return nil
}

func (g *gateModel) closes() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

func readEvent(t *testing.T, name string) events.APIGatewayWebsocketProxyRequest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	var req events.APIGatewayWebsocketProxyRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// countingModel counts Stream calls of the model it wraps.
type countingModel struct {
	lambda.Model
	mu    sync.Mutex
	calls int
}

func (m *countingModel) Stream(ctx context.Context, p lambda.Prompt) (lambda.Tokens, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	return m.Model.Stream(ctx, p)
}

func (m *countingModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// faultyStore fails the methods named in fail; it counts AnswerCancelled.
type faultyStore struct {
	lambda.Store
	mu     sync.Mutex
	fail   map[string]bool
	checks int
}

var errStoreDown = fmt.Errorf("dynamodb: connection refused (user +46 70 123 45 67)")

func (s *faultyStore) failing(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fail[name]
}

func (s *faultyStore) setFail(name string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail == nil {
		s.fail = map[string]bool{}
	}
	s.fail[name] = on
}

func (s *faultyStore) ClaimSuggestion(ctx context.Context, conn, id string, now time.Time) (lambda.Suggestion, lambda.ClaimOutcome, error) {
	if s.failing("ClaimSuggestion") {
		return lambda.Suggestion{}, lambda.ClaimUnknown, errStoreDown
	}
	return s.Store.ClaimSuggestion(ctx, conn, id, now)
}

func (s *faultyStore) StartAnswer(ctx context.Context, conn, msg string, now time.Time) (string, error) {
	if s.failing("StartAnswer") {
		return "", errStoreDown
	}
	return s.Store.StartAnswer(ctx, conn, msg, now)
}

func (s *faultyStore) AnswerCancelled(ctx context.Context, conn, msg string) (bool, error) {
	s.mu.Lock()
	s.checks++
	s.mu.Unlock()
	if s.failing("AnswerCancelled") {
		return false, errStoreDown
	}
	return s.Store.AnswerCancelled(ctx, conn, msg)
}

func (s *faultyStore) PutSuggestion(ctx context.Context, sg lambda.Suggestion) error {
	if s.failing("PutSuggestion") {
		return errStoreDown
	}
	return s.Store.PutSuggestion(ctx, sg)
}

func (s *faultyStore) checkCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.checks
}

// countingExecutor counts executions; when gate is not nil each execution
// waits for it.
type countingExecutor struct {
	mu    sync.Mutex
	n     int
	gate  chan struct{}
	begun chan struct{}
}

func (x *countingExecutor) Execute(ctx context.Context, a lambda.Action) (string, error) {
	x.mu.Lock()
	x.n++
	x.mu.Unlock()
	if x.begun != nil {
		x.begun <- struct{}{}
	}
	if x.gate != nil {
		<-x.gate
	}
	return "done " + a.Name, nil
}

func (x *countingExecutor) count() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.n
}

// failingModel fails at Stream (atStart) or after one token.
type failingModel struct{ atStart bool }

func (m failingModel) Stream(ctx context.Context, p lambda.Prompt) (lambda.Tokens, error) {
	if m.atStart {
		return nil, fmt.Errorf("model unavailable for %q", p.Question)
	}
	return &failingTokens{}, nil
}

type failingTokens struct{ n int }

func (t *failingTokens) Next() (string, error) {
	t.n++
	if t.n == 1 {
		return "Premium", nil
	}
	return "", fmt.Errorf("stream broke: call +46 70 123 45 67")
}

func (t *failingTokens) Close() error { return nil }

// logCounter is a slog.Handler that counts records at warning level and
// above (the handler warns when a cancel handoff times out).
type logCounter struct{ n atomic.Int32 }

func (c *logCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (c *logCounter) Handle(context.Context, slog.Record) error    { c.n.Add(1); return nil }
func (c *logCounter) WithAttrs([]slog.Attr) slog.Handler           { return c }
func (c *logCounter) WithGroup(string) slog.Handler                { return c }

// logTo makes the handler log to c.
func logTo(c *logCounter) func(*lambda.Config) {
	return func(cfg *lambda.Config) { cfg.Logger = slog.New(c) }
}
