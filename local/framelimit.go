package main

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// errFrameTooLarge ends a connection whose client sent a frame over the
// frame limit.
var errFrameTooLarge = errors.New("websocket frame over the size limit")

// frameLimitConn watches the WebSocket frame headers of what the client
// sends, to enforce API Gateway's per-frame limit (32 KB). gorilla/websocket
// limits whole messages only (Conn.SetReadLimit, used for the 128 KB message
// limit); a message may be fragmented into several frames, each of which
// API Gateway limits separately. When a data frame's header announces a
// payload over the limit, Read fails with errFrameTooLarge before the
// payload is read, and the server closes the connection with 1009.
//
// Read is called by one goroutine only (the connection's reader); the
// server offers no compression, so frame lengths are the payload sizes.
type frameLimitConn struct {
	net.Conn
	limit uint64

	hdr      [14]byte // the frame header being read
	hdrLen   int      // bytes of it read so far
	need     int      // its full length, once its second byte is known
	skip     uint64   // payload bytes left of the current frame
	tooLarge atomic.Bool

	// While corked, writes are gathered and sent by uncork in one write
	// (the writer corks around a batch of queued frames: one system call
	// instead of one per frame).
	wmu    sync.Mutex
	corked bool
	wbuf   *[]byte
	// the write deadline set while corked, applied by uncork (gorilla
	// sets it before every frame: one timer update per batch, not per
	// frame)
	deadline    time.Time
	deadlineSet bool
	// What gorilla/websocket's Conn would refuse further writes for (its
	// writeErr), for the data frames appendText writes past it: a write
	// that failed, or a close frame sent.
	werr      error
	closeSent bool
}

var corkBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 8192); return &b }}

func (c *frameLimitConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	if c.corked {
		*c.wbuf = append(*c.wbuf, p...)
		c.noteClose(p)
		c.wmu.Unlock()
		return len(p), nil
	}
	// A close frame is noted before it is written: the writer must not
	// add data frames while it is on its way (they would follow it).
	c.noteClose(p)
	c.wmu.Unlock()
	n, err := c.Conn.Write(p)
	if err != nil {
		c.wmu.Lock()
		c.werr = cmp.Or(c.werr, err)
		c.wmu.Unlock()
	}
	return n, err
}

// noteClose notes a close frame written (gorilla/websocket writes a
// control frame in one Write, its header first): no data frame may follow
// it. c.wmu must be held.
func (c *frameLimitConn) noteClose(p []byte) {
	if len(p) >= 2 && p[0] == 0x80|websocket.CloseMessage {
		c.closeSent = true
	}
}

// appendText adds data frames to the corked writes: each a text message
// in one final, unmasked frame, byte for byte what gorilla/websocket's
// WriteMessage writes for a server without compression, without its write
// buffer (taken from and given back to its pool, boxed, per frame) and
// locks. Like WriteMessage it fails once a write failed or a close frame
// was sent.
func (c *frameLimitConn) appendText(q []queued) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	switch {
	case c.werr != nil:
		return c.werr
	case c.closeSent:
		return websocket.ErrCloseSent
	case !c.corked:
		return errNotCorked
	}
	b := *c.wbuf
	for _, f := range q {
		b = append(appendTextHeader(b, len(f.data)), f.data...)
	}
	*c.wbuf = b
	return nil
}

var errNotCorked = errors.New("frames appended to a connection not corked")

// appendTextHeader appends the header of a final, unmasked text frame of
// n bytes (RFC 6455 §5.2: the length in 7 bits, or 126 and 16 bits, or 127
// and 64 bits).
func appendTextHeader(b []byte, n int) []byte {
	const b0 = 0x80 | websocket.TextMessage // FIN, text
	switch {
	case n >= 1<<16:
		return binary.BigEndian.AppendUint64(append(b, b0, 127), uint64(n))
	case n > 125:
		return binary.BigEndian.AppendUint16(append(b, b0, 126), uint16(n))
	default:
		return append(b, b0, byte(n))
	}
}

// SetWriteDeadline sets the deadline of the next network write: while
// corked, that of uncork's.
func (c *frameLimitConn) SetWriteDeadline(t time.Time) error {
	c.wmu.Lock()
	if c.corked {
		c.deadline, c.deadlineSet = t, true
		c.wmu.Unlock()
		return nil
	}
	c.wmu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

// cork starts gathering writes.
func (c *frameLimitConn) cork() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.corked {
		c.corked = true
		c.wbuf = corkBuffers.Get().(*[]byte)
	}
}

// uncork writes what was gathered (under the write deadline last set).
func (c *frameLimitConn) uncork() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if !c.corked {
		return nil
	}
	c.corked = false
	b := c.wbuf
	c.wbuf = nil
	var err error
	if c.deadlineSet {
		c.deadlineSet = false
		err = c.Conn.SetWriteDeadline(c.deadline)
	}
	if err == nil {
		_, err = c.Conn.Write(*b)
	}
	if err != nil {
		c.werr = cmp.Or(c.werr, err)
	}
	if cap(*b) <= 64*1024 {
		*b = (*b)[:0]
		corkBuffers.Put(b)
	}
	return err
}

func newFrameLimitConn(c net.Conn, limit int) *frameLimitConn {
	return &frameLimitConn{Conn: c, limit: uint64(limit)}
}

func (c *frameLimitConn) Read(p []byte) (int, error) {
	if c.tooLarge.Load() {
		return 0, errFrameTooLarge
	}
	n, err := c.Conn.Read(p)
	if c.scan(p[:n]) {
		c.tooLarge.Store(true)
		return 0, errFrameTooLarge
	}
	return n, err
}

// scan follows the frame structure through b and reports whether a data
// frame over the limit starts in it.
func (c *frameLimitConn) scan(b []byte) bool {
	for len(b) > 0 {
		if c.skip > 0 {
			k := min(uint64(len(b)), c.skip)
			c.skip -= k
			b = b[k:]
			continue
		}
		c.hdr[c.hdrLen] = b[0]
		c.hdrLen++
		b = b[1:]
		if c.hdrLen == 2 {
			c.need = 2
			switch c.hdr[1] & 0x7f {
			case 126:
				c.need += 2
			case 127:
				c.need += 8
			}
			if c.hdr[1]&0x80 != 0 { // masked (every client frame)
				c.need += 4
			}
		}
		if c.hdrLen < 2 || c.hdrLen < c.need {
			continue
		}
		var length uint64
		switch l := c.hdr[1] & 0x7f; l {
		case 126:
			length = uint64(binary.BigEndian.Uint16(c.hdr[2:4]))
		case 127:
			length = binary.BigEndian.Uint64(c.hdr[2:10])
		default:
			length = uint64(l)
		}
		if opcode := c.hdr[0] & 0x0f; opcode < 8 && length > c.limit {
			return true
		}
		c.skip = length
		c.hdrLen, c.need = 0, 0
	}
	return false
}

// hijackWrapper hands gorilla/websocket's Upgrader a frameLimitConn instead
// of the raw connection. gorilla reads through a bufio.Reader it resets (or
// creates) on the connection it hijacked, so every byte passes scan.
type hijackWrapper struct {
	http.ResponseWriter
	wrap func(net.Conn) net.Conn
}

func (h hijackWrapper) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the response writer cannot be hijacked")
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return nil, nil, err
	}
	return h.wrap(conn), brw, nil
}
