package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/groundwire/groundwire/guardrail"
)

const (
	defaultMaxLine = 16 << 20 // longest input line, in bytes (newline excluded)
	readBufferSize = 64 << 10
	writeBufSize   = 256 << 10
	// Bounds of the work in flight (read, not yet written): a number of
	// chunks of lines per worker, and a number of input bytes. One chunk is
	// always admitted, however long, so a line up to -max-line never blocks
	// the pipeline.
	chunksPerWorker  = 4
	maxBytesInFlight = 32 << 20
	// Bounds of the cache of source lists (see sourceCache): lines that
	// cite the same snippets share their Sources, built once.
	cacheEntries = 256
	cacheBytes   = 8 << 20 // of the lists' JSON
)

var batchCmd = &command{
	name:     "batch",
	synopsis: "batch [-in FILE] [-out FILE] [-workers N] [-max-line BYTES] [-strict]",
	usage: `Scores a JSONL file: reads -in (default stdin), writes -out (default
stdout). Each input line is one JSON object

  {"id": string, "answer": string, "sources": [string, ...]}

and gives one output line, in input order:

  {"id":…,"verdict":"pass"|"block","numbers":[{"text":…,"canonical":…,
   "kind":…,"state":…,"grounded":bool,"source":N[,"formula":…]},…]}

where "state" is "grounded", "ungrounded", "unverified" (a small count in
words that no snippet states or contradicts) or "derived" (one shown
operation over the snippets' quantities gives it; it adds "formula"),
"source" is the index in "sources" of the first snippet grounding the
number (of a derived one's first operand), or -1; "verdict" is "block" when
any number is ungrounded, or with -strict also unverified or derived.

A line that cannot be scored (not JSON, not an object, "id" missing or not a
non-empty string, "answer" or "sources" missing or of the wrong type, longer
than -max-line) gives {"id":…,"error":"…"}, or {"line":N,"error":"…"} when
it has no usable id (N is the 1-based line number), and the run goes on.
Blank lines are skipped.

Lines are scored by N workers in parallel with bounded memory; the output is
buffered and keeps the input order.

Exit status: 0 (also when some lines are errors), 2 on a usage error, when
the input cannot be read or the output cannot be written.
`,
	run: runBatch,
}

type batchOptions struct {
	strict  bool
	in, out string
	workers int
	maxLine int
}

func runBatch(c *command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opt batchOptions
	fs := newFlagSet(c)
	fs.StringVar(&opt.in, "in", "-", "input JSONL `FILE` (\"-\": stdin)")
	fs.StringVar(&opt.out, "out", "-", "output JSONL `FILE` (\"-\": stdout)")
	fs.IntVar(&opt.workers, "workers", 0, "`N` parallel workers (0: one per CPU)")
	fs.IntVar(&opt.maxLine, "max-line", defaultMaxLine, "longest input line in `BYTES`; longer lines are reported as errors")
	fs.BoolVar(&opt.strict, "strict", false, "strict policy: unverified numbers (small counts in words) and derived ones block too")
	if code, done := parseFlags(c, fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(c, fs, stderr, "unexpected argument %q (use -in FILE)", fs.Arg(0))
	}
	if opt.workers < 0 {
		return usageError(c, fs, stderr, "-workers must be >= 0")
	}
	if opt.maxLine < 1 {
		return usageError(c, fs, stderr, "-max-line must be >= 1")
	}
	if opt.workers == 0 {
		opt.workers = runtime.GOMAXPROCS(0)
	}

	in := stdin
	var inInfo os.FileInfo
	if opt.in != "-" && opt.in != "" {
		f, err := os.Open(opt.in)
		if err != nil {
			return errorf(stderr, c.name, "%v", err)
		}
		defer f.Close()
		in = f
		inInfo, _ = f.Stat()
	}
	out := stdout
	var outFile *os.File
	if opt.out != "-" && opt.out != "" {
		// Creating -out truncates it: never when it is the input.
		if oi, err := os.Stat(opt.out); err == nil && inInfo != nil && os.SameFile(inInfo, oi) {
			return errorf(stderr, c.name, "-out %s is the input file", opt.out)
		}
		f, err := os.Create(opt.out)
		if err != nil {
			return errorf(stderr, c.name, "%v", err)
		}
		defer f.Close() // after a successful Close below, a no-op
		out, outFile = f, f
	}

	err := batch(in, out, opt.workers, opt.maxLine, policyOf(opt.strict))
	if outFile != nil {
		if cerr := outFile.Close(); err == nil && cerr != nil {
			err = &writeError{cerr}
		}
	}
	if err != nil {
		return errorf(stderr, c.name, "%v", err)
	}
	return exitOK
}

// readError and writeError tell the two ways a batch run fails.
type readError struct{ err error }
type writeError struct{ err error }

func (e *readError) Error() string  { return "reading input: " + e.err.Error() }
func (e *readError) Unwrap() error  { return e.err }
func (e *writeError) Error() string { return "writing output: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// A chunk is up to linesPerChunk consecutive input lines, handed to a
// worker at once: the per-line cost of the channels, the scheduler and the
// writer's reordering is paid once a chunk. Its lines are spans of one
// buffer (data), and its output lines are appended to one (out); both are
// reused for later chunks once the writer has written them.
type chunk struct {
	seq   int    // position among the chunks sent to the workers
	data  []byte // the lines without their newlines, one after the other
	lines []lineSpan
	out   []byte // the output lines, newlines included
}

// lineSpan is one line of a chunk: data[start:end].
type lineSpan struct {
	start, end int
	line       int  // 1-based line number in the input
	tooLong    bool // (then start == end)
}

// job is one input line, as a worker scores it.
type job struct {
	line    int    // 1-based line number in the input
	data    []byte // the line without its newline; nil when tooLong
	tooLong bool
}

const (
	// A chunk holds up to linesPerChunk lines and is sent once it holds
	// chunkBytes bytes (one line always fits, however long). A buffer
	// grown beyond maxKeptChunk by a long line is not reused.
	linesPerChunk = 64
	chunkBytes    = 256 << 10
	maxKeptChunk  = 1 << 20
)

// batch scores the JSONL lines of r and writes the results to w in input
// order. The pipeline is
//
//	reader ─chunks→ workers ─chunks→ writer (reorders, writes, releases)
//
// and at most maxItems chunks and about maxBytesInFlight input bytes are in
// flight between the reader and the writer, so memory does not depend on the
// size of the input. The error is a *readError or a *writeError.
func batch(r io.Reader, w io.Writer, workers, maxLine int, policy guardrail.Policy) error {
	maxItems := workers * chunksPerWorker
	budget := newInflight(maxItems, maxBytesInFlight)
	jobs := make(chan *chunk, 2*workers)
	results := make(chan *chunk, 2*workers)
	// Chunks the writer is done with, for the reader to fill again.
	free := make(chan *chunk, maxItems)
	var failed atomic.Bool // set by the writer when the output fails

	var readErr error
	go func() {
		defer close(jobs)
		lr := lineReader{br: bufio.NewReaderSize(r, readBufferSize), max: maxLine}
		var c *chunk
		send := func() {
			budget.acquire(len(c.data))
			jobs <- c
			c = nil
		}
		for seq := 0; !failed.Load(); {
			if c == nil {
				select {
				case c = <-free:
					c.data, c.lines, c.out = c.data[:0], c.lines[:0], c.out[:0]
				default:
					c = &chunk{}
				}
				c.seq = seq
				seq++
			}
			start := len(c.data)
			data, tooLong, err := lr.next(c.data)
			if err != nil {
				if err != io.EOF {
					readErr = &readError{err}
				}
				break
			}
			c.data = data
			if !tooLong && len(bytes.TrimSpace(data[start:])) == 0 {
				c.data = data[:start]
				continue // blank line
			}
			c.lines = append(c.lines, lineSpan{start: start, end: len(data), line: lr.n, tooLong: tooLong})
			if len(c.lines) == linesPerChunk || len(c.data) >= chunkBytes {
				send()
			}
		}
		if c != nil && len(c.lines) > 0 && !failed.Load() {
			send()
		}
	}()

	var wg sync.WaitGroup
	cache := newSourceCache(cacheEntries, cacheBytes)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := scorer{policy: policy, cache: cache}
			for c := range jobs {
				for _, l := range c.lines {
					j := job{line: l.line, tooLong: l.tooLong}
					if !l.tooLong {
						j.data = c.data[l.start:l.end:l.end]
					}
					c.out = s.score(c.out, j, maxLine)
				}
				results <- c
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	// The writer. Chunks in flight have consecutive sequence numbers
	// starting at next, at most maxItems of them, so seq%maxItems is a free
	// slot.
	bw := bufio.NewWriterSize(w, writeBufSize)
	ring := make([]*chunk, maxItems)
	next := 0
	var writeErr error
	for c := range results {
		ring[c.seq%maxItems] = c
		for i := next % maxItems; ring[i] != nil; i = next % maxItems {
			c := ring[i]
			if writeErr == nil {
				if _, err := bw.Write(c.out); err != nil {
					writeErr = &writeError{err}
					failed.Store(true) // stop the reader; keep draining
				}
			}
			ring[i] = nil
			next++
			size := len(c.data)
			if cap(c.data) <= maxKeptChunk && cap(c.out) <= maxKeptChunk {
				select {
				case free <- c:
				default: // (the reader has made one more meanwhile)
				}
			}
			budget.release(size)
		}
	}
	if writeErr == nil {
		if err := bw.Flush(); err != nil {
			writeErr = &writeError{err}
		}
	}
	// results is closed: the reader and the workers are done, readErr is set.
	return errors.Join(readErr, writeErr)
}

// inflight bounds the chunks and bytes between the reader and the writer.
// Only the reader acquires.
type inflight struct {
	mu                 sync.Mutex
	cond               sync.Cond
	items, bytes       int
	maxItems, maxBytes int
}

func newInflight(maxItems, maxBytes int) *inflight {
	f := &inflight{maxItems: maxItems, maxBytes: maxBytes}
	f.cond.L = &f.mu
	return f
}

func (f *inflight) acquire(n int) {
	f.mu.Lock()
	for f.items >= f.maxItems || (f.items > 0 && f.bytes+n > f.maxBytes) {
		f.cond.Wait()
	}
	f.items++
	f.bytes += n
	f.mu.Unlock()
}

func (f *inflight) release(n int) {
	f.mu.Lock()
	f.items--
	f.bytes -= n
	f.mu.Unlock()
	f.cond.Signal()
}

// lineReader reads lines of any length, keeping at most max bytes of one.
type lineReader struct {
	br  *bufio.Reader
	max int
	n   int // lines read so far
}

// next appends the next line without its newline to dst and returns it. A
// line longer than max bytes is skipped without being kept: next returns
// dst as it was and tooLong. err is io.EOF after the last line (a last line
// without newline counts).
func (r *lineReader) next(dst []byte) (data []byte, tooLong bool, err error) {
	size, start := 0, len(dst)
	data = dst
	for {
		frag, err := r.br.ReadSlice('\n')
		if err == nil {
			frag = frag[:len(frag)-1]
		}
		size += len(frag)
		if size > r.max {
			tooLong, data = true, dst[:start]
		} else {
			data = append(data, frag...)
		}
		switch {
		case err == nil:
			r.n++
			return data, tooLong, nil
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && size > 0:
			r.n++
			return data, tooLong, nil
		default:
			return dst[:start], false, err
		}
	}
}

// Input and output lines.
type batchIn struct {
	ID      json.RawMessage `json:"id"`
	Answer  *string         `json:"answer"`
	Sources json.RawMessage `json:"sources"` // decoded by sourceCache.get
}

type batchNumber struct {
	Text      string          `json:"text"`
	Canonical string          `json:"canonical"`
	Kind      guardrail.Kind  `json:"kind"`
	State     guardrail.State `json:"state"`
	Grounded  bool            `json:"grounded"`
	Source    int             `json:"source"`
	// Formula is a derived number's arithmetic (see guardrail.Derivation).
	Formula string `json:"formula,omitempty"`
}

type batchOut struct {
	ID      string        `json:"id"`
	Verdict string        `json:"verdict"`
	Numbers []batchNumber `json:"numbers"`
}

type batchErr struct {
	ID    string `json:"id,omitempty"`
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

// scorer turns input lines into output lines; one per worker.
type scorer struct {
	policy guardrail.Policy
	cache  *sourceCache
	out    batchOut // the last verdict, its Numbers reused for the next
}

// score appends the output line (newline included) for j to dst.
func (s *scorer) score(dst []byte, j job, maxLine int) []byte {
	if j.tooLong {
		return appendResult(dst, batchErr{Line: j.line, Error: "line longer than " + strconv.Itoa(maxLine) + " bytes"})
	}
	return appendResult(dst, s.scoreLine(j))
}

// scoreLine returns the result of j: a batchErr, or a *batchOut (s.out,
// valid until the next call).
func (s *scorer) scoreLine(j job) any {
	if id, answer, sources, ok := quickLine(j.data); ok {
		return s.verdictOf(id, answer, sources)
	}
	var in batchIn
	err := json.Unmarshal(j.data, &in)
	// A type error still fills the other fields: keep the id if there is one.
	var id string
	idErr := ""
	switch {
	case len(in.ID) == 0 || string(in.ID) == "null":
		idErr = `missing "id"`
	case json.Unmarshal(in.ID, &id) != nil:
		idErr = `"id" must be a string`
	case id == "":
		idErr = `empty "id"`
	}
	fail := func(msg string) any {
		if idErr != "" {
			return batchErr{Line: j.line, Error: msg}
		}
		return batchErr{ID: id, Error: msg}
	}
	switch {
	case err != nil:
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return fail("invalid JSON: " + err.Error())
		}
		switch te.Field {
		case "":
			return fail("not a JSON object")
		case "answer":
			return fail(`"answer" must be a string`)
		default:
			return fail(`"sources" must be an array of strings`)
		}
	case idErr != "":
		return fail(idErr)
	case in.Answer == nil:
		return fail(`missing "answer"`)
	case len(in.Sources) == 0 || string(in.Sources) == "null":
		return fail(`missing "sources"`)
	}
	return s.verdictOf(id, *in.Answer, in.Sources)
}

// verdictOf returns the result of a line whose id, answer and sources,
// the JSON of the list, were read: in s.out, without allocating it or its
// Numbers anew.
func (s *scorer) verdictOf(id, answer string, rawSources []byte) any {
	sources, ok := s.cache.get(rawSources)
	if !ok {
		return batchErr{ID: id, Error: `"sources" must be an array of strings`}
	}
	v := s.policy.Verify(answer, sources)
	out := &s.out
	out.ID, out.Verdict, out.Numbers = id, "pass", out.Numbers[:0]
	if out.Numbers == nil {
		out.Numbers = []batchNumber{} // "numbers":[], not null
	}
	if !v.Grounded {
		out.Verdict = "block"
	}
	for _, n := range v.Numbers {
		bn := batchNumber{Text: n.Text, Canonical: n.Canonical, Kind: n.Kind, State: n.State, Grounded: n.Grounded, Source: int(n.Citation)}
		if n.Derivation != nil {
			bn.Formula = n.Formula
		}
		out.Numbers = append(out.Numbers, bn)
	}
	return out
}

// sourceCache holds the Sources of the source lists lines cite, by the
// JSON text of the list, shared by the workers: lines that cite the same
// snippets (several answers to one question) decode and index them once.
// It keeps at most maxEntries lists and about maxBytes of their JSON,
// dropping the oldest first.
type sourceCache struct {
	mu                   sync.Mutex
	m                    map[string][]*guardrail.Source
	order                []string // keys, oldest first
	bytes                int
	maxEntries, maxBytes int
}

func newSourceCache(maxEntries, maxBytes int) *sourceCache {
	return &sourceCache{m: map[string][]*guardrail.Source{}, maxEntries: maxEntries, maxBytes: maxBytes}
}

// get returns the Sources of raw, the JSON of a list of snippets, and
// false when raw is not an array of strings.
func (c *sourceCache) get(raw json.RawMessage) ([]*guardrail.Source, bool) {
	c.mu.Lock()
	srcs, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return srcs, true
	}
	var texts []string
	if json.Unmarshal(raw, &texts) != nil {
		return nil, false
	}
	srcs = guardrail.NewSources(texts)
	if len(raw) > c.maxBytes {
		return srcs, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[string(raw)]; ok {
		return srcs, true // another worker added it meanwhile
	}
	for len(c.order) > 0 && (len(c.order) >= c.maxEntries || c.bytes+len(raw) > c.maxBytes) {
		old := c.order[0]
		c.order = c.order[1:]
		delete(c.m, old)
		c.bytes -= len(old)
	}
	key := string(raw)
	c.m[key] = srcs
	c.order = append(c.order, key)
	c.bytes += len(key)
	return srcs, true
}
