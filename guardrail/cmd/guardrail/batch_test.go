//go:build !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// genReader streams n generated JSONL lines without holding them all.
type genReader struct {
	n, i int
	line func(i int) []byte
	cur  []byte
	read int64 // bytes handed out
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.cur) == 0 {
		if g.i >= g.n {
			return 0, io.EOF
		}
		g.cur = g.line(g.i)
		g.i++
	}
	n := copy(p, g.cur)
	g.cur = g.cur[n:]
	g.read += int64(n)
	return n, nil
}

var filler = strings.Repeat("Our plans are billed monthly and can be cancelled at any time. ", 5)

// genLine is a typical input line of about 500 bytes: id L<i>, a blocked
// answer for every 3rd line.
func genLine(i int) []byte {
	price := 100 + i%900
	answer := price
	if i%3 == 0 {
		answer++
	}
	return fmt.Appendf(nil, `{"id":"L%08d","answer":"Premium costs %d a month, Basic %d; see page %d.","sources":["Premium: %d a month. %s","Basic: %d.","Pages: %d, %d."]}`+"\n",
		i, answer, price/2, i%50, price, filler, price/2, i%50, i%50+1)
}

// orderChecker checks that output lines carry ids L00000000, L00000001, …
// in order, without keeping them.
type orderChecker struct {
	next  int
	part  []byte
	bad   error
	lines int
}

func (c *orderChecker) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.part = append(c.part, p...)
			break
		}
		line := p[:i]
		if len(c.part) > 0 {
			line = append(c.part, line...)
			c.part = c.part[:0]
		}
		p = p[i+1:]
		want := fmt.Sprintf(`{"id":"L%08d",`, c.next)
		if c.bad == nil && !bytes.HasPrefix(line, []byte(want)) {
			c.bad = fmt.Errorf("output line %d = %.80q, want prefix %q", c.lines+1, line, want)
		}
		c.next++
		c.lines++
	}
	return n, nil
}

// TestBatchBoundedMemory streams ~50 MB through batch, with a few 1 MB lines
// in it, and checks that the heap stays small and the output is complete
// and in order. Under the race detector it streams 5 MB and checks only the
// output (the detector's own memory makes the bound meaningless).
func TestBatchBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 50 MB")
	}
	lines := 100_000 // ~ 530 bytes each
	if raceEnabled {
		lines = 10_000
	}
	big := strings.Repeat("x", 1<<20)
	line := func(i int) []byte {
		if i%20_000 == 1 { // a long (but allowed) answer now and then
			return fmt.Appendf(nil, `{"id":"L%08d","answer":"%s 7.","sources":["7"]}`+"\n", i, big)
		}
		return genLine(i)
	}
	in := &genReader{n: lines, line: line}
	out := &orderChecker{}

	runtime.GC()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	var stderr bytes.Buffer
	code := run([]string{"batch", "-workers", "2"}, in, out, &stderr)
	close(stop)
	wg.Wait()

	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if out.bad != nil {
		t.Fatal(out.bad)
	}
	if out.lines != lines || len(out.part) != 0 {
		t.Fatalf("%d output lines (partial %d bytes), want %d", out.lines, len(out.part), lines)
	}
	const limit = 64 << 20
	t.Logf("input %.1f MB, peak HeapInuse %.1f MB", float64(in.read)/1e6, float64(peak)/1e6)
	if raceEnabled {
		return
	}
	if in.read < 50e6 {
		t.Errorf("input only %d bytes", in.read)
	}
	if peak > limit {
		t.Errorf("peak HeapInuse %d bytes, want < %d", peak, limit)
	}
}

// A line longer than the default -max-line is an error line; the lines
// around it are scored.
func TestBatchOverlongLineDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 17 MB")
	}
	long := make([]byte, defaultMaxLine+1)
	for i := range long {
		long[i] = 'x'
	}
	parts := [][]byte{
		[]byte(`{"id":"a","answer":"7.","sources":["7"]}` + "\n"),
		long, []byte("\n"),
		[]byte(`{"id":"b","answer":"7.","sources":["7"]}`), // no final newline
	}
	var out, stderr bytes.Buffer
	code := run([]string{"batch"}, io.MultiReader(bytesReaders(parts)...), &out, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := `{"id":"a","verdict":"pass","numbers":[{"text":"7","canonical":"7","kind":"integer","state":"grounded","grounded":true,"source":0}]}
{"line":2,"error":"line longer than 16777216 bytes"}
{"id":"b","verdict":"pass","numbers":[{"text":"7","canonical":"7","kind":"integer","state":"grounded","grounded":true,"source":0}]}
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}

func bytesReaders(parts [][]byte) []io.Reader {
	rs := make([]io.Reader, len(parts))
	for i, p := range parts {
		rs[i] = bytes.NewReader(p)
	}
	return rs
}

// Lines exactly at the limit pass; CRLF line ends are accepted.
func TestBatchLineLimitAndCRLF(t *testing.T) {
	line := `{"id":"a","answer":"7.","sources":["7"]}`
	in := line + "\r\n" + line + "\n"
	var out, stderr bytes.Buffer
	limit := strconv.Itoa(len(line) + 1) // the \r counts
	if code := run([]string{"batch", "-max-line", limit}, strings.NewReader(in), &out, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	sc := bufio.NewScanner(&out)
	n := 0
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil || v["verdict"] != "pass" {
			t.Errorf("line %d: %s", n+1, sc.Text())
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d output lines, want 2", n)
	}
}

type failingWriter struct{ after, written int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.written+len(p) > w.after {
		return 0, errors.New("disk full")
	}
	w.written += len(p)
	return len(p), nil
}

// When the output fails, batch stops reading and exits 2.
func TestBatchWriteError(t *testing.T) {
	in := &genReader{n: 1_000_000, line: genLine} // ~500 MB if read to the end
	var stderr bytes.Buffer
	code := run([]string{"batch"}, in, &failingWriter{after: 1 << 20}, &stderr)
	if code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(stderr.String(), "writing output: disk full") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if in.read > 50<<20 {
		t.Errorf("read %d bytes after the output failed", in.read)
	}
}

type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// When the input fails, the lines read so far are written and batch exits 2.
func TestBatchReadError(t *testing.T) {
	in := &failingReader{r: &genReader{n: 3, line: genLine}, err: errors.New("connection reset")}
	var out, stderr bytes.Buffer
	code := run([]string{"batch"}, in, &out, &stderr)
	if code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(stderr.String(), "reading input: connection reset") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("%d output lines, want 3:\n%s", n, out.String())
	}
}

// BenchmarkBatch reports the throughput of batch with one worker and with
// one per CPU, on the same input, in the same run:
//
//	go test -run '^$' -bench Batch -benchtime 5x ./guardrail/cmd/guardrail
func BenchmarkBatch(b *testing.B) {
	var in bytes.Buffer
	for i := 0; in.Len() < 8<<20; i++ {
		in.Write(genLine(i))
	}
	data := in.Bytes()
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			args := []string{"batch", "-workers", strconv.Itoa(workers)}
			for b.Loop() {
				if code := run(args, bytes.NewReader(data), io.Discard, io.Discard); code != exitOK {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// Lines are handed to the workers in chunks: whatever the number of lines
// (not a multiple of a chunk), where blank, invalid and overlong lines fall
// in a chunk, and whatever the number of workers, the output is each line's
// own output line, in input order.
func TestBatchChunks(t *testing.T) {
	const maxLine = 400
	var in bytes.Buffer
	var want []byte
	s := scorer{policy: policyOf(false), cache: newSourceCache(cacheEntries, cacheBytes)}
	line := 0
	for i := range 3*linesPerChunk + 5 {
		var l []byte
		switch {
		case i%23 == 5:
			l = []byte(`{"id":"bad","answer":`) // invalid JSON
		case i%31 == 7:
			l = []byte(`{"id":"long","answer":"` + strings.Repeat("9 ", maxLine) + `","sources":[]}`)
		case i == linesPerChunk-1 || i == linesPerChunk:
			l = []byte(`["not an object"]`)
		default:
			l = bytes.TrimSuffix(genLine(i), []byte("\n"))
		}
		if i%17 == 3 {
			in.WriteString("  \n") // a blank line: no output, but it counts
			line++
		}
		in.Write(l)
		in.WriteByte('\n')
		line++
		if len(l) > maxLine {
			want = s.score(want, job{line: line, tooLong: true}, maxLine)
		} else {
			want = s.score(want, job{line: line, data: l}, maxLine)
		}
	}
	for _, workers := range []string{"1", "2", "3"} {
		var out, stderr bytes.Buffer
		code := run([]string{"batch", "-workers", workers, "-max-line", strconv.Itoa(maxLine)}, bytes.NewReader(in.Bytes()), &out, &stderr)
		if code != exitOK {
			t.Fatalf("workers %s: exit %d: %s", workers, code, stderr.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("workers %s: output differs from the lines scored one by one:\n%s\nwant:\n%s", workers, out.Bytes(), want)
		}
	}
}
