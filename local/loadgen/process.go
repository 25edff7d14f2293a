package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The servers under test: started as child processes, stopped, and read
// for their memory and CPU.

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

// procFile returns the server process's file /proc/PID/name (nil when
// the server was not started here or the file cannot be read).
func (s *server) procFile(name string) []byte {
	if s.proc == nil {
		return nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", s.proc.Pid, name))
	if err != nil {
		return nil
	}
	return b
}

// rss returns the resident set size of a server started here, in bytes
// (Linux; 0 when unknown).
func (s *server) rss() uint64 {
	b := s.procFile("status")
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
	b := s.procFile("stat")
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
