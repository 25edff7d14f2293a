package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// longSay is a question the mock answers with n words after "Premium
// costs" (so that the pricing snippets are retrieved and the answer is
// not refused), each its own token and so its own `stream` frame at token
// delay 0 (hold mode releases a word as soon as it is complete).
func longSay(n int) string {
	return "$say Premium costs" + strings.Repeat(" ok", n)
}

// shrinkServerSendBuffer gives the server's end of the connection whose
// client end is ws a small socket send buffer, as a slow network would:
// a client that does not read then fills it within a few KB, whatever the
// kernel's buffer autotuning (which can hold megabytes on loopback, and
// take a race-instrumented server minutes to fill with short frames).
func shrinkServerSendBuffer(t *testing.T, ts *testServer, ws *websocket.Conn) {
	t.Helper()
	waitFor(t, "the server's end of the connection", func() bool {
		for _, c := range ts.s.reg.all() {
			if c.fl != nil && c.ws.RemoteAddr().String() == ws.LocalAddr().String() {
				if tc, ok := c.fl.Conn.(*net.TCPConn); ok {
					if err := tc.SetWriteBuffer(4096); err != nil {
						t.Fatal(err)
					}
				}
				return true
			}
		}
		return false
	})
}

// TestSlowClientIsDropped: a connection whose writer does not run stands
// for a client that does not read. Its queue takes frames up to
// sendQueueBytes; then a send waits, and once the oldest frame has waited
// WriteWait the client is dropped (1008) and the connection is gone for the
// handler.
func TestSlowClientIsDropped(t *testing.T) {
	const wait = 300 * time.Millisecond
	ts := startServer(t, func(c *config) { c.WriteWait = wait })
	p := peer{connID: newID(), connectedAt: time.Now()}
	c := newClient(ts.s, nil, nil, p, ts.s.log)
	ts.s.reg.add(c)
	defer ts.s.reg.remove(c)
	defer c.cancel()
	big := []byte(`{"type":"stream","delta":"` + strings.Repeat("x", 64<<10-30) + `"}`)
	n := 0
	start := time.Now()
	var err error
	for ; n < 100; n++ {
		if err = ts.s.reg.Send(t.Context(), p.connID, big); err != nil {
			break
		}
	}
	waited := time.Since(start)
	if !isGone(err) {
		t.Fatalf("send %d: %v, want ErrGone", n, err)
	}
	if n != sendQueueBytes/len(big) {
		t.Fatalf("%d frames of %d bytes queued, want %d (the byte bound)", n, len(big), sendQueueBytes/len(big))
	}
	c.qmu.Lock()
	held := c.pendingBytes
	c.qmu.Unlock()
	if held > sendQueueBytes {
		t.Fatalf("%d bytes queued, over the bound %d", held, sendQueueBytes)
	}
	if waited < wait {
		t.Fatalf("dropped after %v, before the oldest frame had waited %v", waited, wait)
	}
	if code, reason, ok := c.closedByServer(); !ok || code != websocket.ClosePolicyViolation || reason != reasonSlow {
		t.Fatalf("closed with %d %q", code, reason)
	}
	if err := ts.s.reg.Send(t.Context(), p.connID, []byte(`{}`)); !isGone(err) {
		t.Fatalf("after the drop: %v, want ErrGone", err)
	}
	if err := ts.s.reg.Send(t.Context(), "nobody", []byte(`{}`)); !isGone(err) {
		t.Fatalf("unknown connection: %v, want ErrGone", err)
	}
	if got := counterValue(ts.s.metrics.dropped); got != 1 {
		t.Fatalf("dropped counter %v, want 1", got)
	}
}

// TestSlowClientQueueByFrames: the frame bound holds too: sendQueue small
// frames fill the queue, and the next send waits for room.
func TestSlowClientQueueByFrames(t *testing.T) {
	// WriteWait long enough that filling the queue (slow under -race on a
	// loaded machine) does not make the first frame old enough to drop.
	ts := startServer(t, func(c *config) { c.WriteWait = 5 * time.Second })
	p := peer{connID: newID(), connectedAt: time.Now()}
	c := newClient(ts.s, nil, nil, p, ts.s.log)
	ts.s.reg.add(c)
	defer ts.s.reg.remove(c)
	defer c.cancel()
	for i := range sendQueue {
		if err := ts.s.reg.Send(t.Context(), p.connID, []byte(`{"type":"stream"}`)); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	// A send whose context ends while it waits returns that error and
	// queues nothing.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := ts.s.reg.Send(ctx, p.connID, []byte(`{"type":"stream"}`)); err != context.DeadlineExceeded {
		t.Fatalf("send on a full queue with a short context: %v", err)
	}
	if err := ts.s.reg.Send(t.Context(), p.connID, []byte(`{"type":"stream"}`)); !isGone(err) {
		t.Fatalf("full queue: %v, want ErrGone", err)
	}
	if _, reason, _ := c.closedByServer(); reason != reasonSlow {
		t.Fatalf("closed with %q", reason)
	}
}

// TestFastReaderIsNotDropped: a real client reading as fast as it can gets
// long answers at token delay 0 whole — more `stream` frames than the queue
// holds, produced faster than they are written — and is never dropped: the
// answer waits for the writer instead.
func TestFastReaderIsNotDropped(t *testing.T) {
	ts := startServer(t, func(c *config) { c.NoRateLimit = true })
	c := ts.dial(t, "", nil)
	const words = 1300 // 3,900 characters, under the text limit
	for i := range 3 {
		id := fmt.Sprint("long", i)
		c.message(id, longSay(words))
		fs := c.answer(id)
		streams := 0
		for _, f := range fs {
			if f.Type == "stream" {
				streams++
			}
		}
		last := fs[len(fs)-1]
		if last.Type != "response" || last.Status != "verified" || streams < sendQueue {
			t.Fatalf("answer %d: %d stream frames, ends with %v", i, streams, last)
		}
		if got := strings.Count(deltas(fs, id), "ok"); got != words {
			t.Fatalf("answer %d: %d words streamed, want %d", i, got, words)
		}
	}
	if got := counterValue(ts.s.metrics.dropped); got != 0 {
		t.Fatalf("a client reading at full speed was dropped (%v)", got)
	}
}

// TestStoppedReaderIsDropped: a real client that asks for long answers and
// stops reading is dropped once its oldest unwritten frame has waited
// WriteWait (1 s here); the server's queue for it never holds more than
// sendQueueBytes meanwhile, and other clients are served.
func TestStoppedReaderIsDropped(t *testing.T) {
	const wait = time.Second
	ts := startServer(t, func(c *config) { c.WriteWait = wait; c.NoRateLimit = true })
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	ws, _, err := d.Dial("ws://"+ts.addr+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	shrinkServerSendBuffer(t, ts, ws)
	start := time.Now()
	maxHeld := 0
	deadline := start.Add(wait + 30*time.Second)
	for i := 0; counterValue(ts.s.metrics.dropped) == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("not dropped after %v", time.Since(start))
		}
		// A few long answers (~60 KB of frames each), each superseding
		// the last.
		if i < 20 && i%5 == 0 {
			ws.SetWriteDeadline(time.Now().Add(time.Second))
			ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"type":"message","id":"s%d","text":%q}`, i, longSay(1300)))
		}
		for _, c := range ts.s.reg.all() {
			c.qmu.Lock()
			maxHeld = max(maxHeld, c.pendingBytes)
			c.qmu.Unlock()
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("dropped %v after the client stopped reading; at most %d bytes queued for it", time.Since(start).Round(time.Millisecond), maxHeld)
	if maxHeld > sendQueueBytes+64<<10 { // one frame may go over when the queue is empty
		t.Fatalf("%d bytes queued for the client, over the bound %d", maxHeld, sendQueueBytes)
	}
	waitFor(t, "the connection to be gone", func() bool { return ts.s.reg.len() == 0 })
	// The server still serves others.
	other := ts.dial(t, "", nil)
	other.message("m1", "How much does Premium cost?")
	if fs := other.answer("m1"); fs[len(fs)-1].Status != "verified" {
		t.Fatalf("another client after the drop: %v", types(fs))
	}
}
