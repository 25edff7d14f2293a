package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// The attack mode (-attack) measures what hostile clients that never read
// cost the server: -attack-conns connections each send -attack-frames
// frames, alternately a confirm_action whose suggestionId is
// -attack-id-bytes long and a message whose id is that long, as fast as
// the server takes them, and read nothing. A message of that size is sent
// in 16 KB frames (under the 32 KB frame limit). The server's resident set
// is sampled every 50 ms; the run stops when every frame is written, or
// every connection is closed, or after -attack-time. Before, one client
// that reads sends one frame of each kind and counts the bytes that come
// back: the amplification.

// AttackReport is what an attack run measured.
type AttackReport struct {
	Conns       int     `json:"conns"`
	Frames      int     `json:"framesPerConn"`
	IDBytes     int     `json:"idBytes"`
	Target      string  `json:"target"`
	Written     int64   `json:"framesWritten"`
	BytesIn     int64   `json:"bytesWritten"`
	WriteErrors int64   `json:"writeErrors"`
	Seconds     float64 `json:"seconds"`

	RSSBeforeMB float64 `json:"rssBeforeMB"`
	RSSPeakMB   float64 `json:"rssPeakMB"`
	RSSAfterMB  float64 `json:"rssAfterMB"`
	Dropped     float64 `json:"slowClientsDropped"`

	// Bytes the server sent back to a reading client for one frame of each
	// kind, and their ratio to the frame's size.
	ConfirmReplyBytes int     `json:"confirmReplyBytes"`
	MessageReplyBytes int     `json:"messageReplyBytes"`
	Amplification     float64 `json:"amplification"`
}

func attackFrames(idBytes int) (confirm, message []byte) {
	id := strings.Repeat("x", idBytes)
	confirm = []byte(`{"type":"confirm_action","suggestionId":"` + id + `"}`)
	message = []byte(`{"type":"message","id":"` + id + `","text":"What does Premium cost?"}`)
	return confirm, message
}

// attackDialer dials with frames of 16 KB, under the server's 32 KB frame
// limit. The socket buffers are the system's: a small receive buffer would
// slow the client's own sending down (to about 5 frames of 120 KB a second
// on loopback), and the attack is to send as fast as the server takes it.
func attackDialer() *websocket.Dialer {
	return &websocket.Dialer{
		NetDialContext:   (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		HandshakeTimeout: 15 * time.Second,
		ReadBufferSize:   4096,
		WriteBufferSize:  16 << 10,
	}
}

// replyBytes sends one frame on a new connection that reads, and counts the
// bytes of what comes back within a second of the last frame.
func replyBytes(ctx context.Context, u string, frame []byte) (int, error) {
	ws, _, err := attackDialer().DialContext(ctx, u, nil)
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
		return 0, err
	}
	n := 0
	for {
		ws.SetReadDeadline(time.Now().Add(time.Second))
		_, b, err := ws.ReadMessage()
		if err != nil {
			return n, nil
		}
		n += len(b)
	}
}

func attack(ctx context.Context, o options, s *server, stderr io.Writer) (*AttackReport, error) {
	r := &AttackReport{Conns: o.AttackConns, Frames: o.AttackFrames, IDBytes: o.AttackIDBytes}
	confirm, message := attackFrames(o.AttackIDBytes)
	var err error
	if r.ConfirmReplyBytes, err = replyBytes(ctx, s.wsURL, confirm); err != nil {
		return nil, fmt.Errorf("amplification probe: %w", err)
	}
	if r.MessageReplyBytes, err = replyBytes(ctx, s.wsURL, message); err != nil {
		return nil, fmt.Errorf("amplification probe: %w", err)
	}
	r.Amplification = float64(r.ConfirmReplyBytes+r.MessageReplyBytes) / float64(len(confirm)+len(message))

	before := s.rss()
	r.RSSBeforeMB = float64(before) / 1e6
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range o.AttackConns {
		ws, _, err := attackDialer().DialContext(ctx, s.wsURL, nil)
		if err != nil {
			return nil, fmt.Errorf("attack connection %d: %w", i, err)
		}
		conns = append(conns, ws)
	}
	fmt.Fprintf(stderr, "loadgen: attack: %d connections, %d frames each with %d-byte ids, for at most %v …\n",
		len(conns), o.AttackFrames, o.AttackIDBytes, o.AttackTime)

	start := time.Now()
	deadline := start.Add(o.AttackTime)
	var written, bytesIn, errs atomic.Int64
	var wg sync.WaitGroup
	for _, ws := range conns {
		wg.Go(func() {
			for i := range o.AttackFrames {
				f := confirm
				if i%2 == 1 {
					f = message
				}
				ws.SetWriteDeadline(deadline)
				if err := ws.WriteMessage(websocket.TextMessage, f); err != nil {
					errs.Add(1)
					return
				}
				written.Add(1)
				bytesIn.Add(int64(len(f)))
			}
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	// The window starts with the sample before the attack: the RSS may
	// fall while it runs (the runtime gives back what start-up took).
	peak := before
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
sample:
	for {
		peak = max(peak, s.rss())
		select {
		case <-done:
			break sample
		case <-tick.C:
		case <-ctx.Done():
			break sample
		}
	}
	// The frames are written: the server still holds what it took in
	// until its invocations and writers are done; keep sampling a while.
	settle := time.Now().Add(2 * time.Second)
	for time.Now().Before(settle) && ctx.Err() == nil {
		peak = max(peak, s.rss())
		time.Sleep(50 * time.Millisecond)
	}
	r.Seconds = time.Since(start).Seconds()
	r.Written, r.BytesIn, r.WriteErrors = written.Load(), bytesIn.Load(), errs.Load()
	r.RSSPeakMB = float64(peak) / 1e6
	r.Dropped = s.metric("groundwire_slow_clients_dropped_total")
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	time.Sleep(time.Second)
	r.RSSAfterMB = float64(s.rss()) / 1e6
	return r, nil
}

// metric reads one unlabelled value from the server's /metrics (0 when
// missing).
func (s *server) metric(name string) float64 {
	c := &http.Client{Timeout: 10 * time.Second}
	body, err := get(c, s.base+"/metrics")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}

func (r *AttackReport) print(w io.Writer) {
	fmt.Fprintf(w, "attack: %d connections × %d frames with %d-byte ids (%s)\n", r.Conns, r.Frames, r.IDBytes, r.Target)
	fmt.Fprintf(w, "  written      %d frames, %.1f MB in %.1f s (%d connections cut)\n", r.Written, float64(r.BytesIn)/1e6, r.Seconds, r.WriteErrors)
	fmt.Fprintf(w, "  server RSS   %.1f MB before, %.1f MB peak, %.1f MB after\n", r.RSSBeforeMB, r.RSSPeakMB, r.RSSAfterMB)
	fmt.Fprintf(w, "  dropped      %.0f clients that did not read\n", r.Dropped)
	fmt.Fprintf(w, "  replies      confirm %d bytes, message %d bytes: %.4f× what was sent\n", r.ConfirmReplyBytes, r.MessageReplyBytes, r.Amplification)
}

func (r *AttackReport) json() []byte {
	b, _ := json.MarshalIndent(r, "", "  ")
	return append(b, '\n')
}

func runAttack(ctx context.Context, o options, stdout, stderr io.Writer) int {
	raiseFileLimit(stderr)
	s, stop, err := target(ctx, o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	defer stop()
	r, err := attack(ctx, o, s, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v (server log: %s)\n", err, s.logs)
		return 1
	}
	r.Target = s.target
	r.print(stdout)
	if o.JSON != "" {
		if err := os.WriteFile(o.JSON, r.json(), 0o644); err != nil {
			fmt.Fprintf(stderr, "loadgen: %v\n", err)
			return 1
		}
	}
	return 0
}
