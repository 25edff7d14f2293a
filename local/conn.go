package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/gorilla/websocket"

	"github.com/groundwire/groundwire/lambda"
)

const (
	// sendQueue and sendQueueBytes bound what may wait for a connection's
	// writer, in frames and in bytes (the frames being written included).
	// A handler that would go over waits until the writer has made room
	// (backpressure: a client reading at full speed slows the answer down
	// to its pace, and is never dropped for it). The wait is bounded by the
	// slow-client rule: a client whose oldest unwritten frame has waited
	// WriteWait does not read, and is dropped (1008). One frame larger than
	// sendQueueBytes is queued when nothing else waits.
	sendQueue      = 512
	sendQueueBytes = 256 << 10

	// maxInFlight bounds the invocations of one connection running at once.
	// Every frame is its own invocation (as in API Gateway), so that a
	// cancel or a confirm overtakes an answer that is still streaming. When
	// all slots are busy the reader waits before reading the next frame
	// (backpressure, as TCP gives): nothing is refused or lost, and since
	// a new message supersedes the one streaming, a slot frees up as soon as
	// the superseded invocation returns.
	maxInFlight = 4

	// orderGate keeps frames in order without serialising them: a frame's
	// invocation starts when the previous frame's invocation has returned,
	// or orderGate after it started, whichever comes first. Quick frames
	// (cancel, confirm, refused messages) are then handled in the order
	// they were sent, a message has made itself the active answer before
	// the frame after it is handled, and a cancel still overtakes an answer
	// that streams. (Plain goroutines would let two frames sent back to
	// back run in either order; API Gateway invokes in arrival order too.)
	orderGate = 25 * time.Millisecond
)

// Close codes (RFC 6455).
const (
	closeNormal         = websocket.CloseNormalClosure     // 1000: DeleteConnection (-lambda)
	closeGoingAway      = websocket.CloseGoingAway         // 1001: shutdown, idle, age
	closePolicy         = websocket.ClosePolicyViolation   // 1008: client does not read
	closeTooBig         = websocket.CloseMessageTooBig     // 1009: frame or message too large
	closeAbnormal       = websocket.CloseAbnormalClosure   // 1006: no close frame
	closeInternal       = websocket.CloseInternalServerErr // 1011: the handler panicked
	reasonShutdown      = "server shutting down"
	reasonIdle          = "idle timeout"
	reasonAge           = "connection age limit"
	reasonSlow          = "client does not read"
	reasonFrameTooLarge = "frame too large"
	reasonMsgTooLarge   = "message too large"
	reasonInternal      = "internal error"
)

// client is one WebSocket connection: one reader goroutine (readPump, on
// the HTTP handler's goroutine) and one writer goroutine (writePump), as in
// gorilla/websocket's chat example. Only the writer writes data frames;
// everything else hands frames to it through send.
type client struct {
	s    *Server
	ws   *websocket.Conn
	fl   *frameLimitConn // nil when the connection could not be wrapped
	peer peer
	log  *slog.Logger
	obs  *frameObserver
	rbuf bytes.Buffer // the frame being read; only readPump uses it (see readFrame)

	// The frames waiting for the writer, and a signal that there are some.
	// A slice rather than a buffered channel: an idle connection holds no
	// queue memory (a channel of 512 would hold 12 KB). pending and
	// pendingBytes count the frames not yet written (queued or in the
	// writer's batch), oldest is when the oldest of them was queued (zero
	// when none), and room is closed when the writer frees some while a
	// sender waits (roomWait).
	qmu          sync.Mutex
	queue        []queued
	qbuf         *[]queued // what queue came from (queues)
	pending      int
	pendingBytes int
	oldest       time.Time
	room         chan struct{}
	roomWait     bool
	wake         chan struct{}

	// quit is closed by close: the writer then sends the close frame (when
	// code is not 0) and stops. code, reason and flush are set before.
	closeOnce sync.Once
	quit      chan struct{}
	code      int
	reason    string
	flush     bool

	readerDone chan struct{}
	writerDone chan struct{}

	// ctx is the context of this connection's invocations.
	ctx      context.Context
	cancel   context.CancelFunc
	sem      chan struct{}
	prev     chan struct{}  // closed when the last dispatched invocation returns
	inflight sync.WaitGroup // dispatched invocations; added to only under drainMu while not draining
	drainMu  sync.Mutex     // orders the reader's dispatch of a frame against shutdown's draining
	draining atomic.Bool    // the server shuts down: frames are no longer dispatched
	dropped  atomic.Bool    // dropped for not reading (see drop)

	opened     time.Time
	lastActive atomic.Int64 // unix nanoseconds of the last data frame, either way
}

func newClient(s *Server, ws *websocket.Conn, fl *frameLimitConn, p peer, log *slog.Logger) *client {
	ctx, cancel := context.WithCancel(s.ctx)
	c := &client{
		s:          s,
		ws:         ws,
		fl:         fl,
		peer:       p,
		log:        log,
		obs:        s.metrics.observer(),
		wake:       make(chan struct{}, 1),
		quit:       make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		ctx:        ctx,
		cancel:     cancel,
		sem:        make(chan struct{}, maxInFlight),
		prev:       make(chan struct{}),
		opened:     p.connectedAt,
	}
	close(c.prev)
	c.lastActive.Store(p.connectedAt.UnixNano())
	return c
}

// close asks the writer to close the connection with code and reason (a
// close frame; code 0 sends none), after writing the frames already queued
// when flush is set. The first call wins; later ones do nothing.
func (c *client) close(code int, reason string, flush bool) {
	c.closeOnce.Do(func() {
		c.code, c.reason, c.flush = code, reason, flush
		close(c.quit)
	})
}

// closedByServer returns the close code and reason the server chose, if it
// initiated the close.
func (c *client) closedByServer() (int, string, bool) {
	select {
	case <-c.quit:
		return c.code, c.reason, c.code != 0
	default:
		return 0, "", false
	}
}

// gone is the error Send returns once the connection is closing.
func (c *client) gone() error {
	return fmt.Errorf("connection %s closing: %w", c.peer.connID, lambda.ErrGone)
}

// queued is a frame waiting for the writer, and when it was queued. owned
// frames are the handler's (lambda.Sender): their buffers go back to
// lambda's pool once written (see recycle).
type queued struct {
	data  []byte
	at    time.Time
	owned bool
}

// deliver queues a frame for the writer. When the queue is full (sendQueue
// frames or sendQueueBytes) it waits for the writer to make room, until ctx
// ends or the client is found slow: its oldest unwritten frame has waited
// WriteWait. A slow client is dropped (close 1008) and the connection is
// gone for the handler. owned says that data is the handler's frame, which
// nothing else refers to (see queued).
func (c *client) deliver(ctx context.Context, data []byte, owned bool) error {
	select {
	case <-c.quit:
		return c.gone()
	default:
	}
	// data is kept until it is written, not copied: lambda.Sender's
	// contract (the handler does not touch a frame after Send), and the
	// server's own frames (errors, the Management API's copy) are not
	// touched either.
	slow := c.s.cfg.WriteWait
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	c.qmu.Lock()
	for {
		now := time.Now()
		behind := time.Duration(0)
		if c.pending > 0 {
			behind = now.Sub(c.oldest)
		}
		if behind >= slow {
			pending, bytes := c.pending, c.pendingBytes
			c.qmu.Unlock()
			c.drop(closePolicy, "behind", behind.Round(time.Millisecond).String(), "frames", pending, "bytes", bytes)
			return c.gone()
		}
		if c.pending == 0 || (c.pending < sendQueue && c.pendingBytes+len(data) <= sendQueueBytes) {
			if c.pending == 0 {
				c.oldest = now
			}
			if c.queue == nil {
				c.qbuf = queues.Get().(*[]queued)
				c.queue = *c.qbuf
			}
			c.queue = append(c.queue, queued{data, now, owned})
			c.pending++
			c.pendingBytes += len(data)
			// observed before the writer can take it: an owned
			// frame's buffer is reused once written
			c.lastActive.Store(now.UnixNano())
			c.obs.sent(data, now)
			break
		}
		// Full: wait for the writer, at most until the oldest frame is
		// WriteWait old.
		if c.room == nil {
			c.room = make(chan struct{})
		}
		room := c.room
		c.roomWait = true
		c.qmu.Unlock()
		if timer == nil {
			timer = time.NewTimer(slow - behind)
		} else {
			timer.Reset(slow - behind)
		}
		select {
		case <-room:
		case <-timer.C:
		case <-c.quit:
			return c.gone()
		case <-ctx.Done():
			return ctx.Err()
		}
		c.qmu.Lock()
	}
	c.qmu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return nil
}

// queues recycles the writers' queues: an idle connection holds none, and
// a busy one does not grow a new one for every batch.
var queues = sync.Pool{New: func() any { q := make([]queued, 0, 16); return &q }}

// take empties the queue and returns what was in it, and the buffer to
// give back (see recycle) once the batch is written; the frames stay
// pending until written (see written).
func (c *client) take() ([]queued, *[]queued) {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	q, buf := c.queue, c.qbuf
	c.queue, c.qbuf = nil, nil
	return q, buf
}

// recycle gives a written batch's buffer back, holding no frame, and the
// handler's frames' buffers to lambda's pool: gorilla/websocket has copied
// their bytes (to its write buffer, or to the network) by the time
// WriteMessage returns.
func recycle(q []queued, buf *[]queued) {
	for _, f := range q {
		if f.owned {
			lambda.RecycleFrame(f.data)
		}
	}
	if buf == nil || cap(q) > 1024 {
		return
	}
	clear(q)
	*buf = q[:0]
	queues.Put(buf)
}

// written records that the frame q[i] of a batch taken from the queue has
// been written (or given up), and wakes a sender waiting for room.
func (c *client) written(q []queued, i int) {
	c.qmu.Lock()
	defer c.qmu.Unlock()
	c.pending--
	c.pendingBytes -= len(q[i].data)
	switch {
	case c.pending == 0:
		c.oldest = time.Time{}
	case i+1 < len(q):
		c.oldest = q[i+1].at
	default:
		c.oldest = c.queue[0].at
	}
	if c.roomWait {
		close(c.room)
		c.room, c.roomWait = nil, false
	}
}

// writeQueued writes the frames queued, in one network write; on failure
// the connection is closed.
func (c *client) writeQueued() bool {
	for {
		q, buf := c.take()
		if len(q) == 0 {
			return true
		}
		if c.fl != nil {
			if !c.writeBatch(q) {
				return false
			}
			recycle(q, buf)
			continue
		}
		// without the frame-limit wrapper (never after an upgrade):
		// gorilla/websocket writes each frame
		for i, f := range q {
			if !c.write(f.data, time.Now().Add(c.s.cfg.WriteWait)) {
				return false
			}
			c.written(q, i)
		}
		recycle(q, buf)
	}
}

// writeBatch writes frames taken from the queue in one network write,
// under one write deadline: framed by appendText, corked. They stay
// pending (and their memory counted) until that write is done.
func (c *client) writeBatch(q []queued) bool {
	c.fl.cork()
	c.fl.SetWriteDeadline(time.Now().Add(c.s.cfg.WriteWait))
	err := c.fl.appendText(q)
	// uncorked whatever happened: a refused batch leaves what was gathered
	// before it (a pong) to be written, and the cork's buffer goes back
	if uerr := c.fl.uncork(); err == nil {
		err = uerr
	}
	if err != nil {
		c.fail(err)
		return false
	}
	for i := range q {
		c.written(q, i)
	}
	return true
}

// writePump writes queued frames, pings, enforces the idle timeout and the
// maximum connection age, and sends the close frame.
func (c *client) writePump() {
	defer close(c.writerDone)
	cfg := &c.s.cfg
	tick := time.NewTicker(c.s.tick)
	defer tick.Stop()
	lastPing := time.Now()
	for {
		select {
		case <-c.wake:
			if !c.writeQueued() {
				return
			}
		case now := <-tick.C:
			switch {
			case now.Sub(c.opened) >= cfg.MaxConnAge:
				c.close(closeGoingAway, reasonAge, true)
			case now.Sub(time.Unix(0, c.lastActive.Load())) >= cfg.IdleTimeout:
				c.close(closeGoingAway, reasonIdle, true)
			case now.Sub(lastPing) >= cfg.PingPeriod:
				lastPing = now
				if err := c.ws.WriteControl(websocket.PingMessage, nil, now.Add(cfg.WriteWait)); err != nil {
					c.fail(err)
					return
				}
			}
		case <-c.quit:
			c.finish()
			return
		}
	}
}

// write writes one data frame with a write deadline; on failure the
// connection is closed.
func (c *client) write(data []byte, deadline time.Time) bool {
	c.ws.SetWriteDeadline(deadline)
	if err := c.ws.WriteMessage(websocket.TextMessage, data); err != nil {
		c.fail(err)
		return false
	}
	return true
}

// fail ends a connection the writer cannot write to: closing the network
// connection makes the reader return. A write that timed out (its frame
// waited WriteWait for the client to read) is the slow-client rule
// found by the writer rather than by a sender: the client is dropped, and
// counted as such, though no close frame can reach it.
func (c *client) fail(err error) {
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		c.drop(0, "err", err.Error())
	} else {
		c.log.Debug("write failed", "err", err)
		c.close(0, "", false)
	}
	c.ws.Close()
}

// drop closes a client that does not read its frames (code 0: without a
// close frame), counting and logging it once whichever of the senders and
// the writer found it first.
func (c *client) drop(code int, attrs ...any) {
	if c.dropped.Swap(true) {
		return
	}
	c.s.metrics.dropped.Inc()
	c.log.Warn("dropping a client that does not read its frames", attrs...)
	c.close(code, reasonSlow, false)
}

// finish runs in the writer once close was called: the queued frames (when
// flushing), then the close frame, then at most CloseGrace for the client's
// close frame (the reader returns on it) before the network connection is
// closed.
func (c *client) finish() {
	if c.code == 0 {
		return
	}
	cfg := &c.s.cfg
	if c.flush && !c.writeQueued() {
		return
	}
	msg := websocket.FormatCloseMessage(c.code, c.reason)
	if err := c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(cfg.CloseGrace)); err != nil {
		c.log.Debug("close frame not sent", "err", err)
	}
	t := time.NewTimer(cfg.CloseGrace)
	defer t.Stop()
	select {
	case <-c.readerDone:
	case <-t.C:
	}
	c.ws.Close()
}

// readPump reads frames until the connection ends and returns the close
// code and reason of the $disconnect event.
func (c *client) readPump() (int, string) {
	defer close(c.readerDone)
	cfg := &c.s.cfg
	c.ws.SetReadLimit(int64(cfg.MaxMessage))
	c.ws.SetPongHandler(func(string) error {
		return c.ws.SetReadDeadline(time.Now().Add(cfg.PongWait))
	})
	for {
		c.ws.SetReadDeadline(time.Now().Add(cfg.PongWait))
		typ, data, err := c.readFrame()
		if err != nil {
			return c.readEnd(err)
		}
		now := time.Now()
		c.lastActive.Store(now.UnixNano())
		switch typ {
		case websocket.TextMessage:
			// Once shutdown has set draining, no frame is dispatched, so
			// the invocations it waits for are only those counted before.
			c.drainMu.Lock()
			if c.draining.Load() {
				c.drainMu.Unlock()
				continue // shutting down: the connection closes with 1001
			}
			c.inflight.Add(1)
			c.drainMu.Unlock()
			c.dispatch(data, now)
		case websocket.BinaryMessage:
			if !c.draining.Load() {
				c.refuseBinary()
			}
		}
	}
}

// readFrame reads the next frame into c.rbuf, which dispatch does not keep
// (the event's body is a copy), rather than a new buffer for every frame
// as websocket.Conn.ReadMessage does. A buffer a large frame grew is let
// go, so that an idle connection keeps at most keptReadBuffer bytes.
func (c *client) readFrame() (int, []byte, error) {
	if c.rbuf.Cap() > keptReadBuffer {
		c.rbuf = bytes.Buffer{}
	}
	c.rbuf.Reset()
	typ, r, err := c.ws.NextReader()
	if err != nil {
		return typ, nil, err
	}
	if _, err := c.rbuf.ReadFrom(r); err != nil {
		return typ, nil, err
	}
	return typ, c.rbuf.Bytes(), nil
}

// keptReadBuffer is the most a connection's read buffer keeps between
// frames.
const keptReadBuffer = 4 << 10

// readEnd tells why the reader stopped, closing with 1009 when the client
// sent too much.
func (c *client) readEnd(err error) (int, string) {
	if code, reason, ok := c.closedByServer(); ok {
		return code, reason
	}
	if c.fl != nil && c.fl.tooLarge.Load() {
		c.log.Info("closing: frame over the limit", "limit", c.s.cfg.MaxFrame)
		c.close(closeTooBig, reasonFrameTooLarge, false)
		return closeTooBig, reasonFrameTooLarge
	}
	if errors.Is(err, websocket.ErrReadLimit) {
		// gorilla/websocket has sent the close frame (1009).
		c.log.Info("closing: message over the limit", "limit", c.s.cfg.MaxMessage)
		return closeTooBig, reasonMsgTooLarge
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code, ce.Text
	}
	c.log.Debug("read ended", "err", err)
	return closeAbnormal, ""
}

// dispatch hands one text frame to the handler as a MESSAGE event, in its
// own goroutine (see maxInFlight and orderGate; the goroutine is a worker
// that may have run earlier invocations, see workers).
// now is when it was read. The reader has counted it in c.inflight; its
// invocation, or dispatch when the connection closes first, marks it done.
func (c *client) dispatch(data []byte, now time.Time) {
	// The type and id for the metrics and the logs, as json.Unmarshal
	// reads them (the last of duplicate keys, any casing); a frame the
	// handler will take is read as it reads it, which is the same and
	// cheaper, and the in-process handler is given it decoded.
	inv := &invocation{c: c, dec: lambda.Decoded{Body: string(data)}, now: now} // data is the reader's buffer
	inv.dec.Frame, inv.dec.Err = lambda.DecodeClientFrame(data)
	if inv.dec.Err == nil {
		inv.typ, inv.id = inv.dec.Frame.Type, inv.dec.Frame.ID
	} else {
		inv.typ, inv.id = frameTypeID(data)
	}
	typ := c.s.metrics.clientFrame(inv.typ)
	if c.log.Enabled(c.ctx, slog.LevelDebug) { // Mask runs a regular expression
		c.log.Debug("frame", "type", typ, "id", lambda.Mask(truncate(inv.id, 64)))
	}
	if inv.typ == lambda.TypeMessage && inv.id != "" && len(inv.id) <= lambda.MaxIDBytes {
		c.obs.received(inv.id, now)
	}
	inv.typ = typ // the metrics' label, for the log of a failed invocation
	select {
	case <-c.prev: // returned already: no timer to start
	default:
		gate := time.NewTimer(orderGate)
		select {
		case <-c.prev:
		case <-gate.C:
		case <-c.quit:
			gate.Stop()
			c.inflight.Done()
			return
		}
		gate.Stop()
	}
	select {
	case c.sem <- struct{}{}:
	case <-c.quit:
		c.inflight.Done()
		return
	}
	inv.done = make(chan struct{})
	c.prev = inv.done
	c.s.workers.run(inv)
}

// frameTypeID reads a frame's type and id as json.Unmarshal does (the
// last of duplicate keys, any casing), for a frame the handler's decoder
// refuses; the type of one that is not JSON is "invalid".
func frameTypeID(data []byte) (typ, id string) {
	var f struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(data, &f) != nil {
		return "invalid", f.ID
	}
	return f.Type, f.ID
}

// invocation is a frame dispatched to the handler: what its worker needs,
// in one allocation.
type invocation struct {
	c       *client
	dec     lambda.Decoded
	now     time.Time // when the frame was read
	typ, id string    // the metrics' label of its type; its id
	done    chan struct{}
}

// run invokes the handler (on a worker, see workers).
func (inv *invocation) run() {
	c := inv.c
	defer func() {
		close(inv.done)
		<-c.sem
		c.inflight.Done()
	}()
	// made here, on the worker's stack: kept, the event (600 bytes)
	// would be allocated for every frame
	ev := messageEvent(c.peer, inv.dec.Body, inv.now)
	panicked, err := c.invoke(ev, &inv.dec)
	if err != nil {
		c.invocationFailed(inv.typ, inv.id, err)
	}
	if panicked {
		// what the connection's state holds after a panic is not known:
		// it goes, as a Lambda execution environment that panicked does
		c.close(closeInternal, reasonInternal, true)
	}
}

// invoke runs the handler for one frame. A panic in it fails this
// invocation (an `internal` error frame, and the panic and its stack in the
// log) and closes its connection (see run), as Lambda's runtime fails an
// invocation that panics: it does not take the server and every other
// connection down.
func (c *client) invoke(ev events.APIGatewayWebsocketProxyRequest, dec *lambda.Decoded) (panicked bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked, err = true, fmt.Errorf("handler panic: %v\n%s", r, debug.Stack())
		}
	}()
	if h, ok := c.s.handler.(decodedInvoker); ok {
		_, err = h.HandleDecoded(c.ctx, ev, dec)
	} else {
		_, err = c.s.handler.Handle(c.ctx, ev)
	}
	return false, err
}

// invocationFailed answers a frame whose invocation failed (with -lambda:
// the function is down, failed or timed out; in process: the handler
// panicked) with an `error` frame `internal` carrying the frame's id, and
// logs it. Nothing is sent when the connection is going: its invocations were
// given up.
func (c *client) invocationFailed(typ, id string, err error) {
	logID := lambda.Mask(truncate(id, 64))
	if c.ctx.Err() != nil {
		c.log.Debug("invocation given up: the connection is gone", "type", typ, "id", logID, "err", err.Error())
		return
	}
	c.log.Error("invocation failed", "type", typ, "id", logID, "err", err.Error())
	if len(id) > lambda.MaxIDBytes {
		id = "" // as the handler does: an over-long id is not echoed
	}
	data, _ := json.Marshal(lambda.ErrorFrame{Type: lambda.TypeError, Code: lambda.ErrorCode(err), Message: lambda.ErrorMessage(err), ID: id})
	c.deliver(c.ctx, data, false)
}

// binaryRefusal answers a binary frame. The protocol is JSON in text frames
// (SPEC §5); API Gateway would pass a binary frame to the handler
// base64-encoded, where it would be parsed like text. Locally it is refused,
// so that a client sending binary frames finds out before it is deployed.
var binaryRefusal, _ = json.Marshal(lambda.ErrorFrame{
	Type:    lambda.TypeError,
	Code:    lambda.EBadRequest,
	Message: "Binary frames are not supported: send JSON in text frames.",
})

func (c *client) refuseBinary() {
	c.s.metrics.clientFrame("binary")
	c.deliver(c.ctx, binaryRefusal, false)
}

// truncate shortens client-chosen strings before they are logged.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
