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
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	gw.target = "child process: local -token-delay 0 -no-rate-limit"
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
