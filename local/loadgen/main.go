// Command loadgen measures the local server under load, beside a raw
// gorilla/websocket echo server measured in the same run.
//
//	go run ./local/loadgen                      # 1,000 connections, 1,000 msg/s, 5 s a phase
//	go run ./local/loadgen -conns 5000 -json out.json
//	go run ./local/loadgen -url ws://host:8787/ws -conns 200
//
// By default it builds ./local and starts it as a child process on
// 127.0.0.1 with -token-delay 0 -no-rate-limit -pprof (so that the
// server's memory is measured apart from the clients'), and starts itself
// again as the echo server. For each server it measures:
//
//   - connect: the WebSocket handshake of each of -conns connections;
//   - memory per idle connection: the server's HeapInuse+StackInuse and Sys
//     (after a forced GC, read from /debug/pprof/heap) before and after
//     the connections opened, divided by their number;
//   - throughput: -throughput-conns connections each sending the question
//     and waiting for its response (closed loop) for -duration;
//   - latency at -rate messages a second (open loop, spread over every
//     connection, one message in flight per connection): time to first
//     token and message to response, p50/p95/p99.
//
// The echo server answers each request frame with as many frames, of the
// same sizes, as groundwire sends for the question (recorded by a probe
// first), so the two differ only by what the server does per message. The
// report is a table on stdout and, with -json FILE, JSON.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

type options struct {
	URL             string
	Token           string
	Conns           int
	ThroughputConns int
	Rate            float64
	Duration        time.Duration
	Question        string
	JSON            string
	ServerBin       string
	SourceIPs       int
	NoEcho          bool
	Hold            time.Duration

	// -attack (attack.go)
	Attack        bool
	AttackConns   int
	AttackFrames  int
	AttackIDBytes int
	AttackTime    time.Duration

	// the hidden echo-server mode
	echoServer bool
	echoBatch  bool
	pattern    string
}

func parse(args []string, stderr io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.URL, "url", "", "WebSocket URL of a running server (ws://host:port/ws); default: start ./local on 127.0.0.1")
	fs.StringVar(&o.Token, "token", "", "auth token for -url (sent as ?token=)")
	fs.IntVar(&o.Conns, "conns", 1000, "connections held open at once")
	fs.IntVar(&o.ThroughputConns, "throughput-conns", 256, "connections sending back to back in the throughput phase (at most -conns)")
	fs.Float64Var(&o.Rate, "rate", 1000, "messages a second in the latency phase")
	fs.DurationVar(&o.Duration, "duration", 5*time.Second, "length of the throughput and of the latency phase")
	fs.StringVar(&o.Question, "question", "What does Premium cost?", "the message every client sends")
	fs.StringVar(&o.JSON, "json", "", "also write the results as JSON to this file")
	fs.StringVar(&o.ServerBin, "server-bin", "", "a built ./local binary to start (default: go build it)")
	fs.IntVar(&o.SourceIPs, "source-ips", 0, "spread connections over this many source addresses 127.0.0.1… (default: 1 per 20,000 connections)")
	fs.BoolVar(&o.NoEcho, "no-echo", false, "skip the echo baseline")
	fs.DurationVar(&o.Hold, "hold", 0, "keep each server's connections open, idle, this long after its phases (to inspect the server)")
	fs.BoolVar(&o.Attack, "attack", false, "measure hostile clients instead: -attack-conns connections that never read send -attack-frames frames each with -attack-id-bytes ids; report the server's peak RSS")
	fs.IntVar(&o.AttackConns, "attack-conns", 50, "attack: connections")
	fs.IntVar(&o.AttackFrames, "attack-frames", 520, "attack: frames per connection (confirm_action and message, alternately)")
	fs.IntVar(&o.AttackIDBytes, "attack-id-bytes", 120<<10, "attack: length of each frame's id or suggestionId (under -max-message)")
	fs.DurationVar(&o.AttackTime, "attack-time", time.Minute, "attack: stop after this long")
	fs.BoolVar(&o.echoServer, "echo-server", false, "run as the echo server (internal)")
	fs.BoolVar(&o.echoBatch, "echo-batch", false, "echo server: one network write per answer (internal)")
	fs.StringVar(&o.pattern, "pattern", "", "echo server: sizes of the frames answering each request (internal)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.Conns < 1 || o.ThroughputConns < 1 || o.Rate <= 0 || o.Duration <= 0:
		return o, errors.New("-conns, -throughput-conns, -rate and -duration must be positive")
	case o.Attack && (o.AttackConns < 1 || o.AttackFrames < 1 || o.AttackIDBytes < 1 || o.AttackTime <= 0):
		return o, errors.New("-attack-conns, -attack-frames, -attack-id-bytes and -attack-time must be positive")
	}
	o.ThroughputConns = min(o.ThroughputConns, o.Conns)
	if o.SourceIPs <= 0 {
		o.SourceIPs = 1 + o.Conns/20000
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 2
	}
	if o.echoServer {
		if err := serveEcho(ctx, o.pattern, o.echoBatch, stdout); err != nil {
			fmt.Fprintf(stderr, "loadgen echo server: %v\n", err)
			return 1
		}
		return 0
	}
	if o.Attack {
		return runAttack(ctx, o, stdout, stderr)
	}
	rep, err := measure(ctx, o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 1
	}
	rep.print(stdout)
	if o.JSON != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(o.JSON, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "loadgen: %v\n", err)
			return 1
		}
	}
	return 0
}

// Report is what one run measured.
type Report struct {
	Conns           int     `json:"conns"`
	ThroughputConns int     `json:"throughputConns"`
	Rate            float64 `json:"rate"`
	DurationSeconds float64 `json:"durationSeconds"`
	Question        string  `json:"question"`
	FramesPerAnswer int     `json:"framesPerAnswer"`
	BytesPerAnswer  int     `json:"bytesPerAnswer"`
	CPUs            int     `json:"cpus"`
	GoVersion       string  `json:"goVersion"`
	Target          string  `json:"target"`

	Groundwire *ServerReport `json:"groundwire"`
	// Echo writes each frame as gorilla/websocket does (a network write
	// per frame); EchoBatched writes the frames of an answer in one
	// network write, as groundwire's writer does with the frames it finds
	// queued: the stricter baseline.
	Echo        *ServerReport `json:"echo,omitempty"`
	EchoBatched *ServerReport `json:"echoBatched,omitempty"`
	// Throughput ratios: groundwire's over each echo server's.
	ThroughputRatio        float64 `json:"throughputRatio,omitempty"`
	ThroughputRatioBatched float64 `json:"throughputRatioBatched,omitempty"`
}

// ServerReport is what was measured against one server.
type ServerReport struct {
	Name string `json:"name"`

	ConnectMs       Stats   `json:"connectMs"`
	ConnectSeconds  float64 `json:"connectSeconds"` // all connections
	ConnectErrors   int     `json:"connectErrors"`
	Connected       int     `json:"connected"`
	FirstConnectErr string  `json:"firstConnectError,omitempty"`

	// Memory of the server per idle connection (bytes), from its
	// runtime.MemStats after a GC: heap+stacks in use, and Sys.
	MemPerConnBytes float64 `json:"memPerConnBytes,omitempty"`
	SysPerConnBytes float64 `json:"sysPerConnBytes,omitempty"`
	// RSSPerConnBytes is the growth of the server process's resident set
	// (VmRSS, Linux, a server started here) per connection: what the
	// machine pays, garbage not yet returned to the OS included.
	RSSPerConnBytes float64 `json:"rssPerConnBytes,omitempty"`
	// RSSPerConnAfterLoad is the same once the load phases are over and
	// every connection is idle again (buffers grown by the load included).
	RSSPerConnAfterLoad float64 `json:"rssPerConnAfterLoad,omitempty"`
	HeapPerConnBytes    float64 `json:"heapPerConnBytes,omitempty"`
	MemNote             string  `json:"memNote,omitempty"`
	ServerHeapMBBefore  float64 `json:"serverHeapMBBefore,omitempty"`

	Throughput Phase `json:"throughput"`
	AtRate     Phase `json:"atRate"`
}

// Phase is one load phase.
type Phase struct {
	Sent        int     `json:"sent"`
	Completed   int     `json:"completed"`
	Errors      int     `json:"errors"`
	Timeouts    int     `json:"timeouts"`
	Skipped     int     `json:"skipped,omitempty"` // latency phase: no idle connection when due
	PerSecond   float64 `json:"perSecond"`
	TTFTMs      Stats   `json:"ttftMs"`
	LatencyMs   Stats   `json:"latencyMs"`
	ServerCPU   float64 `json:"serverCpuSeconds,omitempty"`
	CPUPerMsgUs float64 `json:"serverCpuPerMessageUs,omitempty"`
	FirstError  string  `json:"firstError,omitempty"`
}

// Stats are percentiles in milliseconds.
type Stats struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
	N   int     `json:"n"`
}

func stats(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		i := int(q * float64(len(ds)-1))
		return float64(ds[i].Microseconds()) / 1000
	}
	return Stats{P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: at(1), N: len(ds)}
}

// server is a server under test.
type server struct {
	name  string
	wsURL string
	base  string // http://host:port, for /debug/pprof and /metrics
	proc  *os.Process
	logs  *tailBuffer
	local bool // started here: memory and CPU can be read
	// target describes the server for the report.
	target string
}

func measure(ctx context.Context, o options, stderr io.Writer) (*Report, error) {
	raiseFileLimit(stderr)
	rep := &Report{
		Conns: o.Conns, ThroughputConns: o.ThroughputConns, Rate: o.Rate,
		DurationSeconds: o.Duration.Seconds(), Question: o.Question,
		CPUs: runtime.NumCPU(), GoVersion: runtime.Version(),
	}
	gw, stopServer, err := target(ctx, o, stderr)
	if err != nil {
		return nil, err
	}
	defer stopServer()
	rep.Target = gw.target

	// The frames of one answer, which the echo server reproduces.
	sizes, err := probe(ctx, gw.wsURL, o.Question)
	if err != nil {
		return nil, fmt.Errorf("probe: %w (server log: %s)", err, gw.logs)
	}
	rep.FramesPerAnswer = len(sizes)
	for _, n := range sizes {
		rep.BytesPerAnswer += n
	}
	fmt.Fprintf(stderr, "loadgen: an answer is %d frames, %d bytes\n", len(sizes), rep.BytesPerAnswer)

	if rep.Groundwire, err = load(ctx, o, gw, stderr); err != nil {
		return nil, err
	}
	gw.stop()
	if o.NoEcho {
		return rep, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var ps []string
	for _, n := range sizes {
		ps = append(ps, strconv.Itoa(n))
	}
	for _, batch := range []bool{false, true} {
		name, args := "echo", []string{"-echo-server", "-pattern", strings.Join(ps, ",")}
		if batch {
			name, args = "echo-batched", append(args, "-echo-batch")
		}
		echo, err := start(ctx, name, self, args, "echo listening on ")
		if err != nil {
			return nil, err
		}
		er, err := load(ctx, o, echo, stderr)
		echo.stop()
		if err != nil {
			return nil, err
		}
		ratio := 0.0
		if er.Throughput.PerSecond > 0 {
			ratio = rep.Groundwire.Throughput.PerSecond / er.Throughput.PerSecond
		}
		if batch {
			rep.EchoBatched, rep.ThroughputRatioBatched = er, ratio
		} else {
			rep.Echo, rep.ThroughputRatio = er, ratio
		}
	}
	return rep, nil
}

// target is the server to measure: -url, or ./local built (or -server-bin)
// and started here with -token-delay 0 -no-rate-limit -pprof; stop stops it.
func target(ctx context.Context, o options, stderr io.Writer) (gw *server, stop func(), err error) {
	if o.URL != "" {
		u, err := url.Parse(o.URL)
		if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
			return nil, nil, fmt.Errorf("-url %q: want ws://host:port/ws", o.URL)
		}
		if o.Token != "" {
			q := u.Query()
			q.Set("token", o.Token)
			u.RawQuery = q.Encode()
		}
		base := "http://" + u.Host
		if u.Scheme == "wss" {
			base = "https://" + u.Host
		}
		return &server{name: "groundwire", wsURL: u.String(), base: base, target: o.URL}, func() {}, nil
	}
	bin := o.ServerBin
	cleanup := func() {}
	if bin == "" {
		dir, err := os.MkdirTemp("", "loadgen-*")
		if err != nil {
			return nil, nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		fmt.Fprintln(stderr, "loadgen: building ./local …")
		if bin, err = buildServer(ctx, dir); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	gw, err = start(ctx, "groundwire", bin, []string{
		"-addr", "127.0.0.1:0", "-token-delay", "0", "-no-rate-limit", "-pprof", "-no-wasm",
		"-max-conns", strconv.Itoa(o.Conns + o.AttackConns + 1000), "-max-conns-per-ip", "0",
		"-idle-timeout", "1h", "-kb-watch", "0", "-log-level", "warn", "-log-format", "json",
	}, "groundwire listening on ")
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	gw.target = "in-process child: local -token-delay 0 -no-rate-limit"
	return gw, func() { gw.stop(); cleanup() }, nil
}

// load runs the phases against one server.
func load(ctx context.Context, o options, s *server, stderr io.Writer) (*ServerReport, error) {
	r := &ServerReport{Name: s.name}
	before, memErr := s.mem()
	if memErr == nil {
		r.ServerHeapMBBefore = float64(before.heap) / 1e6
	}

	fmt.Fprintf(stderr, "loadgen: %s: opening %d connections …\n", s.name, o.Conns)
	conns, connectTimes, errs, firstErr, took := openConns(ctx, s.wsURL, o.Conns, o.SourceIPs)
	defer func() {
		for _, c := range conns {
			c.ws.Close()
		}
	}()
	r.ConnectMs, r.ConnectSeconds, r.ConnectErrors, r.Connected = stats(connectTimes), took.Seconds(), errs, len(conns)
	r.FirstConnectErr = firstErr
	if len(conns) == 0 {
		return r, fmt.Errorf("%s: no connection opened: %s", s.name, firstErr)
	}

	time.Sleep(time.Second) // let the handshakes' garbage settle
	if after, err := s.mem(); memErr == nil && err == nil {
		n := float64(len(conns))
		r.MemPerConnBytes = (float64(after.heap+after.stack) - float64(before.heap+before.stack)) / n
		r.HeapPerConnBytes = (float64(after.heap) - float64(before.heap)) / n
		r.SysPerConnBytes = (float64(after.sys) - float64(before.sys)) / n
		if before.rss > 0 && after.rss > 0 {
			r.RSSPerConnBytes = (float64(after.rss) - float64(before.rss)) / n
		}
		r.MemNote = after.note
	} else if err != nil {
		r.MemNote = "not measured: " + err.Error()
	}

	fmt.Fprintf(stderr, "loadgen: %s: throughput, %d connections back to back for %v …\n", s.name, o.ThroughputConns, o.Duration)
	cpu0 := s.cpu()
	r.Throughput = closedLoop(ctx, conns[:min(o.ThroughputConns, len(conns))], o.Question, o.Duration)
	if cpu1 := s.cpu(); cpu1 > 0 {
		r.Throughput.ServerCPU = cpu1 - cpu0
		if r.Throughput.Completed > 0 {
			r.Throughput.CPUPerMsgUs = r.Throughput.ServerCPU / float64(r.Throughput.Completed) * 1e6
		}
	}

	fmt.Fprintf(stderr, "loadgen: %s: %.0f messages/s over %d connections for %v …\n", s.name, o.Rate, len(conns), o.Duration)
	cpu0 = s.cpu()
	r.AtRate = openLoop(ctx, conns, o.Question, o.Rate, o.Duration)
	if cpu1 := s.cpu(); cpu1 > 0 {
		r.AtRate.ServerCPU = cpu1 - cpu0
		if r.AtRate.Completed > 0 {
			r.AtRate.CPUPerMsgUs = r.AtRate.ServerCPU / float64(r.AtRate.Completed) * 1e6
		}
	}

	time.Sleep(time.Second) // the last answers end; every connection is idle
	if after, err := s.mem(); memErr == nil && err == nil && before.rss > 0 && after.rss > 0 {
		r.RSSPerConnAfterLoad = (float64(after.rss) - float64(before.rss)) / float64(len(conns))
	}
	if o.Hold > 0 {
		fmt.Fprintf(stderr, "loadgen: %s: holding %d idle connections for %v …\n", s.name, len(conns), o.Hold)
		select {
		case <-time.After(o.Hold):
		case <-ctx.Done():
		}
	}
	return r, nil
}

// --- clients ---

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

// --- servers ---

func (s *server) stop() {
	if s.proc == nil {
		return
	}
	s.proc.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() {
		s.proc.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.proc.Kill()
		<-done
	}
	s.proc = nil
}

// start starts a server process and waits for the line announcing its
// address.
func start(ctx context.Context, name, bin string, args []string, announce string) (*server, error) {
	cmd := exec.Command(bin, args...)
	logs := &tailBuffer{}
	cmd.Stderr = logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{name: name, proc: cmd.Process, logs: logs, local: true}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, announce) {
				f := strings.Fields(strings.TrimPrefix(line, announce))
				if len(f) > 0 {
					select {
					case addr <- f[0]:
					default:
					}
				}
			}
		}
	}()
	select {
	case a := <-addr:
		s.base = a
		s.wsURL = "ws" + strings.TrimPrefix(a, "http") + "/ws"
		return s, nil
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	s.stop()
	return nil, fmt.Errorf("%s did not start: %s", name, logs)
}

type memStats struct {
	heap, stack, sys uint64
	rss              uint64 // resident set of a server started here; 0 when unknown
	note             string
}

// mem reads the server's memory after a GC from /debug/pprof/heap (started
// here), or from /metrics (no GC: an approximation).
func (s *server) mem() (memStats, error) {
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	if s.local {
		body, err := get(c, s.base+"/debug/pprof/heap?gc=1&debug=1")
		if err != nil {
			return memStats{}, err
		}
		m := memStats{note: "after GC, from /debug/pprof/heap"}
		for _, line := range strings.Split(body, "\n") {
			var v uint64
			switch {
			case sscan(line, "# HeapInuse = %d", &v):
				m.heap = v
			case sscan(line, "# StackInuse = %d", &v):
				m.stack = v
			case sscan(line, "# Sys = %d", &v):
				m.sys = v
			}
		}
		if m.heap == 0 {
			return m, errors.New("no HeapInuse in the heap profile")
		}
		m.rss = s.rss()
		return m, nil
	}
	body, err := get(c, s.base+"/metrics")
	if err != nil {
		return memStats{}, err
	}
	m := memStats{note: "from /metrics, without a forced GC (approximate)"}
	for _, line := range strings.Split(body, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "go_memstats_heap_inuse_bytes":
			m.heap = uint64(v)
		case "go_memstats_stack_inuse_bytes":
			m.stack = uint64(v)
		case "go_memstats_sys_bytes":
			m.sys = uint64(v)
		}
	}
	if m.heap == 0 {
		return m, errors.New("no go_memstats_heap_inuse_bytes in /metrics")
	}
	return m, nil
}

func sscan(line, format string, v *uint64) bool {
	n, err := fmt.Sscanf(line, format, v)
	return n == 1 && err == nil
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return string(b), err
}

// rss returns the resident set size of a server started here, in bytes
// (Linux; 0 when unknown).
func (s *server) rss() uint64 {
	if s.proc == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.proc.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

// cpu returns the CPU seconds the server process has used (Linux; 0 when
// unknown).
func (s *server) cpu() float64 {
	if s.proc == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.proc.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) in ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// buildServer builds ./local into dir.
func buildServer(ctx context.Context, dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "local")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./local")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./local: %v\n%s", err, out)
	}
	return bin, nil
}

// moduleRoot finds the groundwire checkout from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.Contains(b, []byte("module github.com/groundwire/groundwire\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the groundwire checkout: run from it, or pass -server-bin or -url")
		}
		dir = parent
	}
}

// tailBuffer keeps the last 8 KB written (a child's stderr).
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8192 {
		t.b = t.b[len(t.b)-8192:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// --- report ---

func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "loadgen: %d connections; question %q = %d frames, %d bytes; %d CPUs, %s\n",
		r.Conns, r.Question, r.FramesPerAnswer, r.BytesPerAnswer, r.CPUs, r.GoVersion)
	fmt.Fprintf(w, "target: %s\n\n", r.Target)
	g := r.Groundwire
	e, b := r.Echo, r.EchoBatched
	if e == nil {
		e = &ServerReport{}
	}
	if b == nil {
		b = &ServerReport{}
	}
	row := func(name string, format string, ratio bool, f func(*ServerReport) float64) {
		fmt.Fprintf(w, "%-44s", name)
		for _, s := range []*ServerReport{g, e, b} {
			fmt.Fprintf(w, " %12s", fmt.Sprintf(format, f(s)))
		}
		if ratio {
			for _, s := range []*ServerReport{e, b} {
				if v := f(s); v > 0 {
					fmt.Fprintf(w, " %7.2f", f(g)/v)
				} else {
					fmt.Fprintf(w, " %7s", "")
				}
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-44s %12s %12s %12s %7s %7s\n", "", "groundwire", "echo", "echo-batch", "÷echo", "÷batch")
	row("connections opened", "%.0f", false, func(s *ServerReport) float64 { return float64(s.Connected) })
	row("connect p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.ConnectMs.P50 })
	row("connect p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.ConnectMs.P99 })
	row("server memory per idle conn, heap+stack (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.MemPerConnBytes / 1024 })
	row("server memory per idle conn, Sys (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.SysPerConnBytes / 1024 })
	row("server memory per idle conn, RSS (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.RSSPerConnBytes / 1024 })
	row("  … idle again after the load (KB)", "%.1f", true, func(s *ServerReport) float64 { return s.RSSPerConnAfterLoad / 1024 })
	row(fmt.Sprintf("throughput, %d conns back to back (msg/s)", r.ThroughputConns), "%.0f", true, func(s *ServerReport) float64 { return s.Throughput.PerSecond })
	row("  latency p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.Throughput.LatencyMs.P50 })
	row("  server CPU per message (µs)", "%.0f", true, func(s *ServerReport) float64 { return s.Throughput.CPUPerMsgUs })
	row(fmt.Sprintf("at %.0f msg/s: completed per second", r.Rate), "%.0f", false, func(s *ServerReport) float64 { return s.AtRate.PerSecond })
	row("  time to first token p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.TTFTMs.P50 })
	row("  time to first token p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.TTFTMs.P99 })
	row("  message to response p50 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P50 })
	row("  message to response p95 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P95 })
	row("  message to response p99 (ms)", "%.2f", false, func(s *ServerReport) float64 { return s.AtRate.LatencyMs.P99 })
	row("  server CPU per message (µs)", "%.0f", false, func(s *ServerReport) float64 { return s.AtRate.CPUPerMsgUs })
	row("errors + timeouts (all phases)", "%.0f", false, func(s *ServerReport) float64 { return float64(errCount(s)) })
	if r.ThroughputRatio > 0 {
		fmt.Fprintf(w, "\ngroundwire's throughput is %.0f%% of the echo baseline's (%.0f%% of the batched one's).\n",
			100*r.ThroughputRatio, 100*r.ThroughputRatioBatched)
	}
	for _, s := range []*ServerReport{r.Groundwire, r.Echo, r.EchoBatched} {
		if s == nil {
			continue
		}
		for _, msg := range []string{s.FirstConnectErr, s.Throughput.FirstError, s.AtRate.FirstError} {
			if msg != "" {
				fmt.Fprintf(w, "%s: first error: %s\n", s.Name, msg)
			}
		}
		if s.AtRate.Skipped > 0 {
			fmt.Fprintf(w, "%s: %d messages not sent at the rate (every connection busy)\n", s.Name, s.AtRate.Skipped)
		}
	}
}

func errCount(s *ServerReport) int {
	return s.ConnectErrors + s.Throughput.Errors + s.Throughput.Timeouts + s.AtRate.Errors + s.AtRate.Timeouts
}
