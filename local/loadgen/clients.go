package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// The clients: connections, their frames, and the two kinds of load.

// conn is one client connection with at most one message in flight.
type conn struct {
	ws  *websocket.Conn
	seq int

	mu      sync.Mutex
	pending string
	sentAt  time.Time
	first   time.Time
	done    chan result
}

type result struct {
	ttft, total time.Duration
	err         string
}

func dialer(i, sourceIPs int) *websocket.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if sourceIPs > 1 {
		d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i%sourceIPs))}
	}
	return &websocket.Dialer{
		NetDialContext:   d.DialContext,
		HandshakeTimeout: 15 * time.Second,
		ReadBufferSize:   4096,
		WriteBufferSize:  1024,
	}
}

func openConns(ctx context.Context, u string, n, sourceIPs int) ([]*conn, []time.Duration, int, string, time.Duration) {
	var (
		mu       sync.Mutex
		conns    []*conn
		times    []time.Duration
		errs     int
		firstErr string
		wg       sync.WaitGroup
		next     atomic.Int64
	)
	start := time.Now()
	for range min(64, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				ws, resp, err := dialer(i, sourceIPs).DialContext(ctx, u, nil)
				d := time.Since(t0)
				if resp != nil && resp.Body != nil {
					resp.Body.Close()
				}
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == "" {
						firstErr = err.Error()
						if resp != nil {
							firstErr += fmt.Sprintf(" (HTTP %d)", resp.StatusCode)
						}
					}
				} else {
					c := &conn{ws: ws, done: make(chan result, 1)}
					go c.read()
					conns = append(conns, c)
					times = append(times, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return conns, times, errs, firstErr, time.Since(start)
}

// frameHead reads the type, id and reason of a server frame.
func frameHead(data []byte) (typ, id, reason string) {
	var f struct {
		Type   string `json:"type"`
		ID     string `json:"id"`
		Reason string `json:"reason"`
	}
	// The type and the id come first; the rest (deltas, citations) need
	// not be decoded.
	if i := bytes.Index(data, []byte(`"id":"`)); i > 0 {
		if j := bytes.IndexByte(data[i+6:], '"'); j >= 0 {
			head := append(append([]byte(nil), data[:i+6+j+1]...), '}')
			if json.Unmarshal(head, &f) == nil && f.Type != lambdaStreamEnd {
				return f.Type, f.ID, ""
			}
		}
	}
	json.Unmarshal(data, &f)
	return f.Type, f.ID, f.Reason
}

const lambdaStreamEnd = "stream_end"

func (c *conn) read() {
	for {
		_, data, err := c.ws.ReadMessage()
		now := time.Now()
		if err != nil {
			c.finish(now, "connection: "+err.Error())
			return
		}
		typ, id, reason := frameHead(data)
		c.mu.Lock()
		if id == "" || id != c.pending {
			c.mu.Unlock()
			if typ == "error" && id == "" {
				c.finish(now, "error frame: "+string(data))
			}
			continue
		}
		switch typ {
		case "stream":
			if c.first.IsZero() {
				c.first = now
			}
		case "stream_end":
			if reason == "cancelled" {
				c.mu.Unlock()
				c.finish(now, "cancelled")
				continue
			}
		case "error":
			c.mu.Unlock()
			c.finish(now, "error frame: "+string(data))
			continue
		case "response":
			c.mu.Unlock()
			c.finish(now, "")
			continue
		}
		c.mu.Unlock()
	}
}

// finish ends the message in flight, if any.
func (c *conn) finish(now time.Time, errText string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == "" {
		return
	}
	r := result{total: now.Sub(c.sentAt), err: errText}
	if !c.first.IsZero() {
		r.ttft = c.first.Sub(c.sentAt)
	}
	c.pending = ""
	c.done <- r
}

var msgSeq atomic.Int64

// ask sends the question and waits for its response (at most 10 s).
func (c *conn) ask(question string) result {
	id := "q" + strconv.FormatInt(msgSeq.Add(1), 36)
	b, _ := json.Marshal(map[string]string{"type": "message", "id": id, "text": question})
	c.mu.Lock()
	c.pending, c.sentAt, c.first = id, time.Now(), time.Time{}
	c.mu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
		c.finish(time.Now(), "write: "+err.Error())
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case r := <-c.done:
		return r
	case <-t.C:
		c.mu.Lock()
		c.pending = ""
		c.mu.Unlock()
		select { // it may have finished meanwhile
		case <-c.done:
		default:
		}
		return result{err: "timeout"}
	}
}

// tally collects the results of a phase.
type tally struct {
	mu     sync.Mutex
	p      Phase
	ttft   []time.Duration
	totals []time.Duration
}

func (t *tally) add(r result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case r.err == "timeout":
		t.p.Timeouts++
	case r.err != "":
		t.p.Errors++
		if t.p.FirstError == "" {
			t.p.FirstError = r.err
		}
	default:
		t.p.Completed++
		t.totals = append(t.totals, r.total)
		if r.ttft > 0 {
			t.ttft = append(t.ttft, r.ttft)
		}
	}
}

func (t *tally) phase(d time.Duration) Phase {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.p
	p.PerSecond = float64(p.Completed) / d.Seconds()
	p.TTFTMs, p.LatencyMs = stats(t.ttft), stats(t.totals)
	return p
}

// closedLoop: every connection asks again as soon as it has its answer.
func closedLoop(ctx context.Context, conns []*conn, question string, d time.Duration) Phase {
	var t tally
	var sent atomic.Int64
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) && ctx.Err() == nil {
				sent.Add(1)
				t.add(c.ask(question))
			}
		})
	}
	wg.Wait()
	p := t.phase(time.Since(start))
	p.Sent = int(sent.Load())
	return p
}

// openLoop sends rate messages a second, each on an idle connection.
func openLoop(ctx context.Context, conns []*conn, question string, rate float64, d time.Duration) Phase {
	var t tally
	idle := make(chan *conn, len(conns))
	for _, c := range conns {
		idle <- c
	}
	var wg sync.WaitGroup
	start := time.Now()
	sent, skipped := 0, 0
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for now := start; now.Sub(start) < d && ctx.Err() == nil; now = <-tick.C {
		due := int(now.Sub(start).Seconds()*rate) - sent - skipped
		for range due {
			select {
			case c := <-idle:
				sent++
				wg.Go(func() {
					t.add(c.ask(question))
					idle <- c
				})
			default:
				skipped++
			}
		}
	}
	elapsed := time.Since(start)
	wg.Wait()
	p := t.phase(elapsed)
	p.Sent, p.Skipped = sent, skipped
	return p
}

// probe asks the question once and returns the sizes of the frames of the
// answer (sources … response).
func probe(ctx context.Context, u, question string) ([]int, error) {
	ws, resp, err := dialer(0, 1).DialContext(ctx, u, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	b, _ := json.Marshal(map[string]string{"type": "message", "id": "probe", "text": question})
	if err := ws.WriteMessage(websocket.TextMessage, b); err != nil {
		return nil, err
	}
	var sizes []int
	ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			return nil, err
		}
		typ, _, _ := frameHead(data)
		sizes = append(sizes, len(data))
		switch typ {
		case "response":
			return sizes, nil
		case "error":
			return nil, fmt.Errorf("error frame: %s", data)
		}
	}
}
