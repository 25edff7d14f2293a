// Package lambda is the agent: handlers for API Gateway WebSocket events
// ($connect, $default messages, $disconnect) that retrieve snippets, stream a
// model's answer through the number guard, and offer and execute actions
// (SPEC §4–8). The local server and the AWS bootstrap both call
// [Handler.Handle]; the product's behaviour lives here once.
//
// # Concurrency
//
// Every client frame is its own invocation of Handle, possibly concurrent
// with others of the same connection, exactly as API Gateway invokes Lambda.
// An invocation carrying a `message` returns only when that answer has
// ended, so an adapter must deliver each frame in its own goroutine: a
// `cancel` or `confirm_action` then runs while the answer still streams.
//
// State that other invocations must see (each answer with its cancel flag
// and who sends its end, suggestions) lives in the [Store]. Within one
// process the handler also keeps, per connection, a mutex that serialises
// its sends and answer transitions, the live answer's cancel function (so a
// cancel handled in the same process interrupts the model at once) and the
// message rate limiter. In Lambda that in-process state is per instance.
//
// # Cancel across instances
//
// Nothing of a message may follow its stream_end (SPEC §5, §7), and the
// streaming invocation is the only one that knows when it stops sending. So
// the end of an answer is taken exactly once, in the store
// ([Store.EndAnswer] while active, [Store.TakeAnswerEnd] once cancelled), and
// only the taker sends it; the streamer takes it itself whenever it is
// alive:
//
//   - When the answer streams in the process that handles the `cancel` (or
//     the superseding `message`), that invocation stops it under the
//     connection's mutex, takes its end and sends stream_end cancelled at
//     once: nothing of the answer is sent after the stop.
//   - Otherwise it sets the cancel flag and waits. The streamer, on another
//     instance, reads the flag every [Config.CancelCheckInterval] while
//     tokens come, and always before it posts a frame if its last read is
//     older (the end it takes with a conditional write that fails once the
//     answer is cancelled),
//     takes the end, sends stream_end cancelled and releases the answer's
//     record; the waiting invocation polls [Store.AnswerReleased] and goes
//     on. A superseding message sends its sources only then, so the old
//     answer's stream_end comes first; a message superseded while it waits
//     gets only its stream_end cancelled. Across instances a cancel thus
//     takes effect within about one check interval and one token.
//   - If the streamer has not taken the end within
//     [Config.CancelHandoffTimeout] (its instance died, or it hangs in the
//     model or in a send), the waiting invocation takes it and sends
//     stream_end cancelled itself. A hung streamer that wakes up later reads
//     the flag before it posts anything (its last read is older than the
//     check interval, which is at most half the timeout) and stays silent.
//
// # Deadlines
//
// An invocation's context carries its deadline (in Lambda the function's
// timeout). An answer still streaming [Config.DeadlineMargin] before it is
// ended with stream_end cancelled, and waits for another answer's end are
// bounded by it too (see awaitEnd), so that every message gets its end
// before the runtime stops the invocation, and no later invocation waits
// for an end that will never come. Such a bounded wait takes the end after
// at least twice the check interval (a live streamer's next check), unless
// the invocation's own deadline is closer still.
//
// What is left: a post the streamer began before the cancel and that takes
// longer than CancelHandoffTimeout − CancelCheckInterval to reach API Gateway
// (or a stall that long between its read of the flag and its post) can land
// after that stream_end; and if a streamer dies between taking the end and
// sending it, the client gets no stream_end for that message (a later
// message waits at most twice the timeout for it, then goes on). On
// disconnect nothing is sent anyway: [Store.DeleteConnection] removes every
// answer record, so nobody waits and every streamer stops at its next read
// of the flag.
package lambda

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"golang.org/x/time/rate"

	"github.com/groundwire/groundwire/guardrail"
)

// Mode says when answers are verified.
type Mode int

const (
	// ModeHold (default) verifies while streaming: no number is sent before
	// it is complete and grounded; an ungrounded number stops the stream.
	ModeHold Mode = iota
	// ModeAfter streams everything and verifies the whole answer at the
	// end; if that fails, stream_end says "blocked" and the response is the
	// blocked message, which the client shows instead of the streamed text.
	ModeAfter
)

// Config holds the handler's dependencies and settings. Retriever, Model,
// Store and Sender are required; the rest has defaults.
type Config struct {
	Retriever Retriever
	Model     Model
	Store     Store
	Sender    Sender
	// Clock defaults to SystemClock.
	Clock Clock
	// Executors by action name; nil means DefaultExecutors(). An action
	// without an executor is still suggested, and its confirm fails.
	Executors map[string]Executor
	Mode      Mode
	// Policy decides which numbers block an answer: guardrail.Default
	// blocks ungrounded ones, guardrail.Strict also unverified small counts
	// written as words ("two companies").
	Policy guardrail.Policy
	// TopK is how many snippets to retrieve (default 3).
	TopK   int
	Limits Limits
	// AuthToken, when set, must equal the `token` query parameter of CONNECT
	// (else 401).
	AuthToken string
	// AuthSecret, when set, also admits CONNECTs whose `token` is a token
	// signed with it and not expired (SignToken, VerifyToken); at least
	// MinSecretBytes long. With both set, either passes.
	AuthSecret []byte
	// AllowedOrigins lists origins ("https://app.example.com", compared
	// case-insensitively) accepted besides the server's own; "*" accepts
	// any. A CONNECT with another Origin header gets 403; one without an
	// Origin header (not a browser) is accepted.
	AllowedOrigins []string
	// SuggestionWindow is how long a suggestion can be confirmed, and how
	// long repeats are "Already executed" after execution (default 30 s).
	SuggestionWindow time.Duration
	// ActionTimeout bounds one executor run (default 10 s). Executors run
	// detached from cancel and disconnect, so an action never stops halfway.
	ActionTimeout time.Duration
	// CancelCheckInterval is how often a streaming answer reads the
	// store's cancel flag: while tokens come, every interval (a timer, with
	// a Clock that has one: SystemClock), and before a frame is posted if
	// the last read is older; a model that sends nothing costs no reads.
	// 0 (default, right for the memory store) reads before every frame.
	// Cancels handled in the same process act at once whatever this says;
	// a cancel (or superseding message) handled on another instance takes
	// effect at the streamer's next read, within about this interval, and
	// the stream_end cancelled comes then. A DynamoDB store may want e.g.
	// 200 ms.
	CancelCheckInterval time.Duration
	// CancelHandoffTimeout bounds how long an invocation that cancelled or
	// superseded an answer streaming on another instance waits for that
	// streamer to send the answer's stream_end cancelled before it takes
	// the end and sends it itself (the streamer died or hangs). Default
	// max(3 × CancelCheckInterval, 1 s); values below twice
	// CancelCheckInterval are raised to that. Measured in real time, not
	// by Clock.
	CancelHandoffTimeout time.Duration
	// CoalesceInterval batches an answer's released text into fewer
	// `stream` frames (in AWS each is a billed PostToConnection): text
	// released when nothing was sent for this long (the first text in
	// particular) goes out at once, later text at most this long after the
	// previous frame, so frames are at least this far apart and no released
	// text waits longer. 0 (default) sends every released piece at once.
	CoalesceInterval time.Duration
	// DeadlineMargin is how long before the invocation's deadline (the
	// context's, which the Lambda runtime sets from the function's timeout)
	// an answer is ended, to leave time for its final writes: it gets
	// stream_end cancelled then, and a wait for another answer's end gives
	// up so that the client still gets both ends. At most half the time
	// left when the invocation starts; default 1 s.
	DeadlineMargin time.Duration
	// Logger receives internal errors (default: discard). Phone-like
	// numbers are masked; tokens and message texts are never logged unless
	// LogText is set.
	Logger  *slog.Logger
	LogText bool
}

// Handler handles API Gateway WebSocket events. It is safe for concurrent
// use; see the package documentation for the concurrency model.
type Handler struct {
	cfg       Config
	retriever Retriever
	model     Model
	store     Store
	sender    Sender
	clock     Clock
	executors map[string]Executor
	limits    Limits
	log       *slog.Logger
	handoff   time.Duration // CancelHandoffTimeout with its default
	poll      time.Duration // how often awaitEnd reads the store

	mu        sync.Mutex
	conns     map[string]*conn
	lastEvict time.Time
}

// conn is this process's state of one connection.
type conn struct {
	id      string
	limiter *rate.Limiter // nil: no rate limit

	// mu serialises this process's sends to the connection and the answer
	// transitions around them (start, cancel, end), so that in process
	// nothing of a message is ever sent after its stream_end.
	mu       sync.Mutex
	live     *liveAnswer // the answer streaming in this process, if any
	gone     bool        // the connection is gone: send nothing more
	lastSeen time.Time   // guarded by Handler.mu
}

// liveAnswer is an answer streaming in this process.
type liveAnswer struct {
	msgID   string
	halt    context.CancelFunc // interrupts the model
	stopped bool               // guarded by conn.mu: send nothing more for it
}

// stop halts the answer. c.mu must be held.
func (a *liveAnswer) stop() {
	a.stopped = true
	a.halt()
}

// DefaultDeadlineMargin is the default of Config.DeadlineMargin.
const DefaultDeadlineMargin = time.Second

// DefaultCancelHandoffTimeout is the least default of
// Config.CancelHandoffTimeout.
const DefaultCancelHandoffTimeout = time.Second

// New returns a handler for cfg.
func New(cfg Config) (*Handler, error) {
	switch {
	case cfg.Retriever == nil:
		return nil, errors.New("lambda: Config.Retriever is required")
	case cfg.Model == nil:
		return nil, errors.New("lambda: Config.Model is required")
	case cfg.Store == nil:
		return nil, errors.New("lambda: Config.Store is required")
	case cfg.Sender == nil:
		return nil, errors.New("lambda: Config.Sender is required")
	case cfg.Mode != ModeHold && cfg.Mode != ModeAfter:
		return nil, fmt.Errorf("lambda: unknown Mode %d", cfg.Mode)
	case len(cfg.AuthSecret) > 0 && len(cfg.AuthSecret) < MinSecretBytes:
		return nil, fmt.Errorf("lambda: Config.AuthSecret must be at least %d bytes", MinSecretBytes)
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Executors == nil {
		cfg.Executors = DefaultExecutors()
	}
	if cfg.TopK <= 0 {
		cfg.TopK = DefaultTopK
	}
	if cfg.SuggestionWindow <= 0 {
		cfg.SuggestionWindow = DefaultSuggestionWindow
	}
	if cfg.ActionTimeout <= 0 {
		cfg.ActionTimeout = DefaultActionTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.CoalesceInterval < 0 {
		cfg.CoalesceInterval = 0
	}
	if cfg.DeadlineMargin <= 0 {
		cfg.DeadlineMargin = DefaultDeadlineMargin
	}
	if cfg.CancelCheckInterval < 0 {
		cfg.CancelCheckInterval = 0
	}
	iv := cfg.CancelCheckInterval
	if cfg.CancelHandoffTimeout <= 0 {
		cfg.CancelHandoffTimeout = max(3*iv, DefaultCancelHandoffTimeout)
	}
	cfg.CancelHandoffTimeout = max(cfg.CancelHandoffTimeout, 2*iv)
	return &Handler{
		cfg:       cfg,
		retriever: cfg.Retriever,
		model:     cfg.Model,
		store:     cfg.Store,
		sender:    cfg.Sender,
		clock:     cfg.Clock,
		executors: cfg.Executors,
		limits:    cfg.Limits.withDefaults(),
		log:       cfg.Logger,
		handoff:   cfg.CancelHandoffTimeout,
		poll:      min(max(iv/4, 5*time.Millisecond), 25*time.Millisecond),
		conns:     make(map[string]*conn),
	}, nil
}

// API Gateway event types.
const (
	EventConnect    = "CONNECT"
	EventMessage    = "MESSAGE"
	EventDisconnect = "DISCONNECT"
)

// Handle handles one API Gateway WebSocket event, dispatching on
// RequestContext.EventType. CONNECT answers 200, 401 (token) or 403
// (origin); MESSAGE and DISCONNECT answer 200: what a message causes is
// sent through the Sender, errors included. The returned error is always
// nil; an unknown event type answers 400.
func (h *Handler) Handle(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) (events.APIGatewayProxyResponse, error) {
	connID := req.RequestContext.ConnectionID
	if connID == "" {
		return status(400), nil
	}
	switch req.RequestContext.EventType {
	case EventConnect:
		return h.connect(ctx, req), nil
	case EventMessage:
		h.message(ctx, req, nil)
		return status(200), nil
	case EventDisconnect:
		h.disconnect(ctx, connID)
		return status(200), nil
	}
	return status(400), nil
}

func status(code int) events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{StatusCode: code}
}

func (h *Handler) connect(ctx context.Context, req events.APIGatewayWebsocketProxyRequest) events.APIGatewayProxyResponse {
	if !h.originAllowed(header(req, "Origin"), header(req, "Host")) {
		return status(403)
	}
	if !h.authorized(query(req, "token")) {
		return status(401)
	}
	c := Connection{ID: req.RequestContext.ConnectionID, ConnectedAt: h.clock.Now()}
	if err := h.store.PutConnection(ctx, c); err != nil {
		h.logError(ctx, "connect: store", c.ID, "", err)
		return status(500)
	}
	h.conn(c.ID)
	return status(200)
}

// originAllowed: no Origin (not a browser), the server's own host, or an
// allowed origin.
func (h *Handler) originAllowed(origin, host string) bool {
	if origin == "" {
		return true
	}
	for _, o := range h.cfg.AllowedOrigins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || host == "" {
		return false
	}
	return strings.EqualFold(u.Host, host)
}

// tokenEqual compares in constant time (hashing first, so that not even the
// length leaks).
func tokenEqual(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// header returns a header's value, names compared case-insensitively.
func header(req events.APIGatewayWebsocketProxyRequest, name string) string {
	for k, v := range req.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, vs := range req.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

func query(req events.APIGatewayWebsocketProxyRequest, name string) string {
	if v, ok := req.QueryStringParameters[name]; ok {
		return v
	}
	if vs := req.MultiValueQueryStringParameters[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

func (h *Handler) disconnect(ctx context.Context, connID string) {
	c := h.conn(connID)
	c.mu.Lock()
	c.gone = true
	if c.live != nil {
		c.live.stop()
	}
	c.mu.Unlock()
	h.forget(ctx, c)
}

// forget drops everything of a connection that is gone: this process's
// state and the store's.
func (h *Handler) forget(ctx context.Context, c *conn) {
	h.mu.Lock()
	if h.conns[c.id] == c {
		delete(h.conns, c.id)
	}
	h.mu.Unlock()
	if err := h.store.DeleteConnection(context.WithoutCancel(ctx), c.id); err != nil {
		h.logError(ctx, "disconnect: store", c.id, "", err)
	}
}

// idleEvict is how long a connection's in-process state is kept without
// events (API Gateway closes connections after 10 min idle, 2 h at most).
const idleEvict = 2*time.Hour + 15*time.Minute

// conn returns this process's state of a connection, creating it.
func (h *Handler) conn(id string) *conn {
	now := h.clock.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if now.Sub(h.lastEvict) > 10*time.Minute {
		// In Lambda the DISCONNECT may land on another instance: forget
		// connections idle for longer than API Gateway keeps them.
		h.lastEvict = now
		for k, c := range h.conns {
			if now.Sub(c.lastSeen) > idleEvict {
				delete(h.conns, k)
			}
		}
	}
	c := h.conns[id]
	if c == nil {
		c = &conn{id: id, limiter: h.limits.newLimiter()}
		h.conns[id] = c
	}
	c.lastSeen = now
	return c
}

// sendLocked sends one frame. c.mu must be held. When the connection is gone
// (ErrGone) it stops the connection's live answer, forgets the connection
// and returns an error wrapping ErrGone; later sends return ErrGone at once.
func (h *Handler) sendLocked(ctx context.Context, c *conn, msgID string, frame any) error {
	if c.gone {
		return ErrGone
	}
	if a, ok := frame.(jsonAppender); ok {
		return h.sendDataLocked(ctx, c, msgID, a.appendJSON(frameBuffer(a.sizeHint())))
	}
	data, err := json.Marshal(frame)
	if err != nil {
		return err
	}
	return h.sendDataLocked(ctx, c, msgID, data)
}

// sendFrameLocked is sendLocked for the frames of an answer, without
// boxing them in an interface (an allocation per frame).
func sendFrameLocked[F jsonAppender](h *Handler, ctx context.Context, c *conn, msgID string, f F) error {
	if c.gone {
		return ErrGone
	}
	return h.sendDataLocked(ctx, c, msgID, f.appendJSON(frameBuffer(f.sizeHint())))
}

// sendDataLocked sends an encoded frame (see sendLocked).
func (h *Handler) sendDataLocked(ctx context.Context, c *conn, msgID string, data []byte) error {
	err := h.sender.Send(ctx, c.id, data)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrGone):
		c.gone = true
		if c.live != nil {
			c.live.stop()
		}
		h.forget(ctx, c)
	default:
		h.logError(ctx, "send", c.id, msgID, err)
	}
	return err
}

// stopLocked stops an answer live in this process whose record is no
// longer active (cancelled, superseded or gone): it sends nothing more, and
// if this invocation takes its end it sends its stream_end cancelled. It
// reports whether the answer's end is settled: sent by this invocation, or
// nothing to wait for. c.mu must be held.
func (h *Handler) stopLocked(ctx context.Context, c *conn, a *liveAnswer) bool {
	a.stop()
	return h.endCancelledLocked(ctx, c, a.msgID)
}

// endCancelledLocked takes the end of the cancelled answer id if nobody
// did, sends its stream_end cancelled and releases the record. It reports
// whether it did. c.mu must be held.
func (h *Handler) endCancelledLocked(ctx context.Context, c *conn, id string) bool {
	won, err := h.store.TakeAnswerEnd(ctx, c.id, id)
	if err != nil {
		h.logError(ctx, "take answer end: store", c.id, id, err)
		return false
	}
	if !won {
		return false
	}
	h.sendLocked(ctx, c, id, StreamEndFrame{Type: TypeStreamEnd, ID: id, Reason: ReasonCancelled})
	if err := h.store.ReleaseAnswer(context.WithoutCancel(ctx), c.id, id); err != nil {
		h.logError(ctx, "release answer: store", c.id, id, err)
	}
	return true
}

// stopAt is when an invocation with ctx must end its work to leave time
// for its final writes before ctx's deadline (in Lambda the invocation's):
// the deadline less DeadlineMargin, or less half the time left when that is
// shorter. Zero: ctx has no deadline.
func (h *Handler) stopAt(ctx context.Context) time.Time {
	d, ok := ctx.Deadline()
	if !ok {
		return time.Time{}
	}
	return d.Add(-min(h.cfg.DeadlineMargin, max(time.Until(d)/2, 0)))
}

// awaitEnd waits until the end of answer id has been sent: id was cancelled
// or superseded (by this invocation or an earlier one) and is not live in
// this process, so its streamer, on another instance, sends its stream_end
// cancelled when it next checks the cancel flag, and releases the record.
// If nobody has taken the end within the handoff timeout (that streamer
// died or hangs), this invocation takes it and sends the stream_end itself;
// if someone took it but has not released it, it waits once more at most
// the timeout. Store errors end the wait (logged). c.mu must not be held.
//
// With a limit (this invocation's stopAt) the wait never outlasts it, and
// each round waits at most half the time left before it (but at least
// twice the check interval, a live streamer's next check): an invocation
// does not inherit a doomed wait for a streamer that is gone, it takes the
// end early enough to do its own work.
func (h *Handler) awaitEnd(ctx context.Context, c *conn, id string, limit time.Time) {
	round := func() time.Time {
		now := time.Now()
		d := now.Add(h.handoff)
		if !limit.IsZero() {
			d = now.Add(min(h.handoff, max(limit.Sub(now)/2, 2*h.cfg.CancelCheckInterval)))
			if d.After(limit) {
				d = limit
			}
		}
		return d
	}
	deadline := round()
	tried := false
	for {
		done, err := h.store.AnswerReleased(ctx, c.id, id)
		if err != nil {
			h.logError(ctx, "await answer end: store", c.id, id, err)
			return
		}
		if done {
			return
		}
		if !time.Now().Before(deadline) {
			if tried {
				h.log.WarnContext(ctx, "answer end taken but not released", "conn", c.id, "msg", Mask(id))
				return
			}
			tried = true
			h.log.WarnContext(ctx, "cancel handoff timed out: sending stream_end cancelled for the streamer", "conn", c.id, "msg", Mask(id))
			c.mu.Lock()
			won := h.endCancelledLocked(context.WithoutCancel(ctx), c, id)
			c.mu.Unlock()
			if won {
				return
			}
			deadline = round()
			continue
		}
		if (SystemClock{}).Sleep(ctx, min(h.poll, time.Until(deadline))) != nil {
			return
		}
	}
}

// send is sendLocked taking the lock.
func (h *Handler) send(ctx context.Context, c *conn, msgID string, frame any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return h.sendLocked(ctx, c, msgID, frame)
}

// sendError sends an `error` frame for err: its code and message when it is
// an *Error, else (logged) internal and "Internal error.".
func (h *Handler) sendError(ctx context.Context, c *conn, msgID string, err error) {
	if ErrorCode(err) == EInternal {
		h.logError(ctx, "internal", c.id, msgID, err)
	}
	h.send(ctx, c, msgID, errorFrame(msgID, err))
}

func errorFrame(msgID string, err error) ErrorFrame {
	return ErrorFrame{Type: TypeError, Code: ErrorCode(err), Message: ErrorMessage(err), ID: msgID}
}

// logError logs an internal error with the connection and message ids; the
// error text is masked.
func (h *Handler) logError(ctx context.Context, what, connID, msgID string, err error) {
	attrs := []slog.Attr{slog.String("conn", connID)}
	if msgID != "" {
		attrs = append(attrs, slog.String("msg", Mask(msgID)))
	}
	attrs = append(attrs, slog.String("err", Mask(err.Error())))
	h.log.LogAttrs(ctx, slog.LevelError, what, attrs...)
}

// body returns the request body, decoded when API Gateway base64-encoded it.
func body(req events.APIGatewayWebsocketProxyRequest) (string, error) {
	if !req.IsBase64Encoded {
		return req.Body, nil
	}
	b, err := base64.StdEncoding.DecodeString(req.Body)
	return string(b), err
}
