//go:build !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// realData is the labelled real answers (../../../../shared/realdata, beside
// the checkout), which are never copied into the repository.
const realData = "../../../../shared/realdata/dev.jsonl"

// BenchmarkBatchReal runs batch on the real answers of realData repeated to
// 20 MB (written to a temporary file; skipped when realData is not there)
// and, in alternation with it, a regexp guard doing the same job: read the
// lines, decode them, check each answer's numbers against its snippets with
// the regexp extractor of ../../bench_test.go, and write one JSON line each,
// on as many goroutines as batch has workers. It reports each one's MB/s
// and x-regexp, how many times faster batch is.
//
//	go test -run '^$' -bench BatchReal -benchtime 5x ./guardrail/cmd/guardrail
func BenchmarkBatchReal(b *testing.B) {
	one, err := os.ReadFile(realData)
	if err != nil {
		b.Skipf("no real data: %v", err)
	}
	path := filepath.Join(b.TempDir(), "real.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	size := 0
	for size < 20<<20 {
		n, err := f.Write(one)
		if err != nil {
			b.Fatal(err)
		}
		size += n
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	var guard, baseline time.Duration
	for b.Loop() {
		start := time.Now()
		args := []string{"batch", "-in", path, "-workers", strconv.Itoa(workers)}
		if code := run(args, nil, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
		guard += time.Since(start)
		start = time.Now()
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		regexpBatch(in, io.Discard, workers)
		in.Close()
		baseline += time.Since(start)
	}
	n := float64(b.N)
	mbs := func(d time.Duration) float64 { return float64(size) * n / d.Seconds() / 1e6 }
	b.ReportMetric(mbs(guard), "guard-MB/s")
	b.ReportMetric(mbs(baseline), "regexp-MB/s")
	b.ReportMetric(baseline.Seconds()/guard.Seconds(), "x-regexp")
}

// regexpNumber is the baseline extractor of ../../bench_test.go.
var regexpNumber = regexp.MustCompile(`\+?\d+(?:[ .,:/-]\d+)*\s?%?`)

// regexpBatch is the regexp guard of BenchmarkBatchReal: lines are handed
// to workers goroutines in turn, and their output lines written in order.
func regexpBatch(r io.Reader, w io.Writer, workers int) {
	type item struct {
		line []byte
		out  chan []byte
	}
	items := make(chan item, 4*workers)
	order := make(chan chan []byte, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for it := range items {
				var in struct {
					ID      string   `json:"id"`
					Answer  string   `json:"answer"`
					Sources []string `json:"sources"`
				}
				verdict := "pass"
				if json.Unmarshal(it.line, &in) != nil {
					verdict = "error"
				} else {
					have := map[string]bool{}
					for _, s := range in.Sources {
						for _, n := range regexpNumber.FindAllString(s, -1) {
							have[strings.ReplaceAll(n, ",", ".")] = true
						}
					}
					for _, n := range regexpNumber.FindAllString(in.Answer, -1) {
						if !have[strings.ReplaceAll(n, ",", ".")] {
							verdict = "block"
						}
					}
				}
				out, _ := json.Marshal(struct {
					ID      string `json:"id"`
					Verdict string `json:"verdict"`
				}{in.ID, verdict})
				it.out <- append(out, '\n')
			}
		})
	}
	done := make(chan struct{})
	go func() {
		bw := bufio.NewWriter(w)
		for out := range order {
			bw.Write(<-out)
		}
		bw.Flush()
		close(done)
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		it := item{bytes.Clone(sc.Bytes()), make(chan []byte, 1)}
		order <- it.out
		items <- it
	}
	close(items)
	close(order)
	wg.Wait()
	<-done
}
