package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the echo server that loadgen starts
// (it starts itself, os.Executable, with -echo-server).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-echo-server" {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { // the parent stops it with SIGINT; a closed stdout ends it too
			for {
				time.Sleep(time.Second)
				if _, err := os.Stdout.Stat(); err != nil {
					cancel()
				}
			}
		}()
		os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestLoadgen runs the generator briefly (50 connections, 1 s a phase)
// against ./local and both echo servers, so that it keeps working.
func TestLoadgen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts ./local; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-conns", "50", "-throughput-conns", "10", "-rate", "100", "-duration", "1s", "-json", out}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.FramesPerAnswer < 4 || rep.BytesPerAnswer == 0 {
		t.Fatalf("answer pattern: %d frames, %d bytes", rep.FramesPerAnswer, rep.BytesPerAnswer)
	}
	for _, s := range []*ServerReport{rep.Groundwire, rep.Echo, rep.EchoBatched} {
		if s == nil {
			t.Fatal("a server was not measured")
		}
		if s.Connected != 50 || errCount(s) != 0 {
			t.Errorf("%s: %d connected, %d errors (%s %s %s)", s.Name, s.Connected, errCount(s),
				s.FirstConnectErr, s.Throughput.FirstError, s.AtRate.FirstError)
		}
		if s.Throughput.Completed == 0 || s.AtRate.Completed == 0 || s.AtRate.LatencyMs.N == 0 {
			t.Errorf("%s: nothing measured: %+v %+v", s.Name, s.Throughput, s.AtRate)
		}
		if s.MemPerConnBytes <= 0 && !strings.HasPrefix(s.MemNote, "after GC") {
			t.Errorf("%s: memory not measured: %q", s.Name, s.MemNote)
		}
	}
	if rep.ThroughputRatio <= 0 || rep.ThroughputRatioBatched <= 0 {
		t.Fatalf("ratios %v %v", rep.ThroughputRatio, rep.ThroughputRatioBatched)
	}
	if !strings.Contains(stdout.String(), "of the echo baseline's") {
		t.Fatalf("no summary line in the table")
	}
}

func TestFrameHead(t *testing.T) {
	for in, want := range map[string][3]string{
		`{"type":"stream","id":"q1","delta":" Premium"}`:             {"stream", "q1", ""},
		`{"type":"stream_end","id":"q1","reason":"cancelled"}`:       {"stream_end", "q1", "cancelled"},
		`{"type":"error","code":"internal","message":"x","id":"q2"}`: {"error", "q2", ""},
		`{"type":"action_executed","suggestionId":"a","result":{}}`:  {"action_executed", "", ""},
		`{"type":"response","id":"q\"3","text":"a"}`:                 {"response", "q\"3", ""},
	} {
		typ, id, reason := frameHead([]byte(in))
		if [3]string{typ, id, reason} != want {
			t.Errorf("%s: %q %q %q, want %q", in, typ, id, reason, want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-conns", "0"}, &stderr, &stderr); code != 2 {
		t.Fatalf("-conns 0: exit %d", code)
	}
	if code := run(t.Context(), []string{"extra"}, &stderr, &stderr); code != 2 {
		t.Fatalf("extra argument: exit %d", code)
	}
	if code := run(t.Context(), []string{"-url", "http://x"}, &stderr, &stderr); code != 1 {
		t.Fatalf("-url http: exit %d", code)
	}
}

// TestAttack runs the attack mode briefly (3 connections that never read,
// 20 frames each with 100 KB ids) against ./local: every frame is taken,
// and what comes back is a small fraction of what was sent.
func TestAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts ./local; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "attack.json")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-attack", "-attack-conns", "3", "-attack-frames", "20", "-attack-id-bytes", "100000", "-attack-time", "30s", "-json", out}, &stdout, &stderr)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep AttackReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Written != 60 || rep.WriteErrors != 0 {
		t.Fatalf("%d frames written, %d connections cut; want 60, 0", rep.Written, rep.WriteErrors)
	}
	if rep.ConfirmReplyBytes == 0 || rep.MessageReplyBytes == 0 || rep.Amplification > 0.01 {
		t.Fatalf("replies: confirm %d bytes, message %d bytes (%.4f× what was sent)", rep.ConfirmReplyBytes, rep.MessageReplyBytes, rep.Amplification)
	}
	if runtime.GOOS == "linux" && (rep.RSSBeforeMB <= 0 || rep.RSSPeakMB < rep.RSSBeforeMB || rep.RSSAfterMB <= 0) {
		t.Fatalf("RSS %.1f MB before, %.1f MB peak, %.1f MB after", rep.RSSBeforeMB, rep.RSSPeakMB, rep.RSSAfterMB)
	}
}
