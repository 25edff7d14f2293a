package deflate

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// inflate decodes a gzip member with compress/gzip, failing the test on
// any error.
func inflate(t testing.TB, gz []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	r.Multistream(false)
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

func stdGzip(data []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// inputs are varied contents: each exercises another part of the encoder.
func inputs() map[string][]byte {
	text := []byte(strings.Repeat("The guard checks every number of the answer against the sources. ", 40) +
		"Quarterly revenue rose 12.5% to $4.2 billion; the 2026 outlook is unchanged.\n")
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	r := rand.New(rand.NewPCG(7, 7))
	var prose strings.Builder
	for prose.Len() < 60_000 { // past the window, words in random order
		prose.WriteString(words[r.IntN(len(words))])
		prose.WriteByte(" \n,."[r.IntN(4)])
	}
	chunk := randomBytes(3, 40_000)
	far := append(append(append([]byte{}, chunk...), randomBytes(4, 1000)...), chunk...) // repeat beyond the 32 KB window
	near := append(append([]byte{}, randomBytes(5, 5000)...), randomBytes(5, 5000)...)   // long repeat within it
	var binary []byte
	for i := 0; i < 8_000; i++ { // a table of little-endian records
		binary = append(binary, byte(i), byte(i>>8), 0, 0, 0x41, byte(i%7), 0xff, 0)
	}
	return map[string][]byte{
		"empty":      {},
		"one byte":   {'x'},
		"two bytes":  {0, 0},
		"repeated":   bytes.Repeat([]byte{'a'}, 100_000),
		"random":     randomBytes(1, 100_000),
		"text":       text,
		"prose":      []byte(prose.String()),
		"far repeat": far,
		"near":       near,
		"records":    binary,
		"all bytes": func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}(),
	}
}

func TestRoundTrip(t *testing.T) {
	for name, in := range inputs() {
		for _, it := range []int{1, 4} {
			if it > 1 && len(in) > 20_000 {
				continue // the parse's iterations are checked on the small ones
			}
			gz := Gzip(in, it)
			if out := inflate(t, gz); !bytes.Equal(out, in) {
				t.Errorf("%s, %d iterations: round trip gives %d bytes, want %d", name, it, len(out), len(in))
			}
			if name == "random" && len(gz) > len(in)+100 { // stored blocks
				t.Errorf("random: %d bytes, input %d: not stored", len(gz), len(in))
			}
			if name == "repeated" && len(gz) > 300 {
				t.Errorf("repeated byte: %d bytes", len(gz))
			}
		}
	}
}

// TestParts: an input of several parts decodes, and a part's matches reach
// into the previous part's window.
func TestParts(t *testing.T) {
	defer func(n int) { masterSize = n }(masterSize)
	masterSize = 30_000
	chunk := randomBytes(9, 20_000)
	in := bytes.Repeat(chunk, 5) // 100 KB, 4 parts
	gz := Gzip(in, 2)
	if !bytes.Equal(inflate(t, gz), in) {
		t.Fatal("round trip differs")
	}
	if len(gz) > 21_000 { // the chunk once, then matches
		t.Errorf("%d bytes: the repeats in later parts were not matched", len(gz))
	}
}

// TestHeader: the member has no name, no time, and the trailer compress/gzip
// checks (it fails on a bad CRC or size).
func TestHeader(t *testing.T) {
	gz := Gzip([]byte("groundwire"), 1)
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if r.Name != "" || !r.ModTime.IsZero() || r.Comment != "" || r.Extra != nil {
		t.Errorf("header %+v, want a zero one", r.Header)
	}
	bad := bytes.Clone(gz)
	bad[len(bad)-5] ^= 1 // the CRC
	if _, err := io.ReadAll(must(gzip.NewReader(bytes.NewReader(bad)))); err == nil {
		t.Error("a corrupted CRC was accepted: the test cannot see a bad trailer")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// realistic is the repository's README and the start of this test's own
// executable (Go machine code and data).
func realistic(t testing.TB) []byte {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	return append(readme, exe[:min(len(exe), 150_000)]...)
}

// TestSmaller: on real content the encoding is smaller than compress/gzip
// at its best level, and inflaters read it (GNU gzip too, when installed).
func TestSmaller(t *testing.T) {
	in := realistic(t)
	gz, std := Gzip(in, 5), stdGzip(in)
	t.Logf("%d bytes: %d with compress/gzip -9, %d here (%.2f %%)", len(in), len(std), len(gz), 100*float64(len(gz))/float64(len(std)))
	if !bytes.Equal(inflate(t, gz), in) {
		t.Fatal("round trip differs")
	}
	if len(gz) >= len(std)*97/100 {
		t.Errorf("%d bytes, not 3 %% under compress/gzip's %d", len(gz), len(std))
	}
	if path, err := exec.LookPath("gzip"); err == nil {
		cmd := exec.Command(path, "-dc")
		cmd.Stdin = bytes.NewReader(gz)
		out, err := cmd.Output()
		if err != nil || !bytes.Equal(out, in) {
			t.Errorf("gzip -dc: %v, %d bytes, want %d", err, len(out), len(in))
		}
	}
}

// TestDeterministic: the same input gives the same bytes.
func TestDeterministic(t *testing.T) {
	in := realistic(t)[:150_000]
	a, b := Gzip(in, 7), Gzip(bytes.Clone(in), 7)
	if !bytes.Equal(a, b) {
		t.Error("two encodings of the same input differ")
	}
}

// TestLimitedLengths: codes are complete (Kraft sum 1) and within the
// limit, also for weights whose Huffman code is deeper than the limit.
func TestLimitedLengths(t *testing.T) {
	fib := make([]int, 30)
	fib[0], fib[1] = 1, 1
	for i := 2; i < len(fib); i++ {
		fib[i] = fib[i-1] + fib[i-2]
	}
	for _, c := range []struct {
		freq []int
		max  int
	}{{fib, 15}, {fib, 7}, {fib[:19], 7}, {[]int{5, 0, 0, 3}, 15}, {[]int{1, 1, 1, 1, 1}, 3}} {
		lens := make([]uint8, len(c.freq))
		limitedLengths(c.freq, c.max, lens)
		kraft, deepest := 0.0, 0
		for s, l := range lens {
			if (l == 0) != (c.freq[s] == 0) {
				t.Errorf("freq %v: symbol %d length %d", c.freq, s, l)
			}
			if l > 0 {
				kraft += 1 / float64(uint(1)<<l)
				deepest = max(deepest, int(l))
			}
		}
		if kraft != 1 || deepest > c.max {
			t.Errorf("freq %v, limit %d: lengths %v (Kraft sum %v)", c.freq, c.max, lens, kraft)
		}
	}
	// The lengths are optimal: no code within the limit costs less
	// (exhaustive over all length vectors of a few symbols).
	for _, c := range []struct {
		freq []int
		max  int
	}{{[]int{1, 1, 2, 3, 5, 8, 13}, 4}, {[]int{1, 2, 4, 8, 16, 32, 64}, 3}, {[]int{3, 1, 4, 1, 5, 9, 2}, 4}} {
		lens := make([]uint8, len(c.freq))
		limitedLengths(c.freq, c.max, lens)
		got := 0
		for s, l := range lens {
			got += c.freq[s] * int(l)
		}
		if best := bruteLimited(c.freq, c.max); got != best {
			t.Errorf("freq %v, limit %d: lengths %v cost %d, the optimum is %d", c.freq, c.max, lens, got, best)
		}
	}
}

// bruteLimited is the cost of the cheapest prefix code of freq with codes
// of at most maxBits, by trying every vector of lengths.
func bruteLimited(freq []int, maxBits int) int {
	best := -1
	lens := make([]int, len(freq))
	var try func(i int, kraft float64)
	try = func(i int, kraft float64) {
		if kraft > 1 {
			return
		}
		if i == len(freq) {
			cost := 0
			for s, l := range lens {
				cost += freq[s] * l
			}
			if best < 0 || cost < best {
				best = cost
			}
			return
		}
		for l := 1; l <= maxBits; l++ {
			lens[i] = l
			try(i+1, kraft+1/float64(uint(1)<<l))
		}
	}
	try(0, 0)
	return best
}

func FuzzRoundTrip(f *testing.F) {
	for _, in := range inputs() {
		if len(in) < 3000 {
			f.Add(in)
		}
	}
	f.Add([]byte("abcabcabcabcabcabcabcabc"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if out := inflate(t, Gzip(in, 2)); !bytes.Equal(out, in) {
			t.Errorf("round trip of %d bytes gives %d", len(in), len(out))
		}
	})
}

// BenchmarkGzip encodes the realistic input and reports the time and the
// size against compress/gzip at its best level in the same run.
func BenchmarkGzip(b *testing.B) {
	in := realistic(b)
	for _, it := range []int{1, 5, 15} {
		b.Run(fmt.Sprintf("iterations=%d", it), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			var std, ours time.Duration
			var stdN, ourN int
			for b.Loop() {
				t0 := time.Now()
				stdN = len(stdGzip(in))
				t1 := time.Now()
				ourN = len(Gzip(in, it))
				std, ours = std+t1.Sub(t0), ours+time.Since(t1)
			}
			b.ReportMetric(float64(ours)/float64(std), "time/stdlib")
			b.ReportMetric(float64(ourN)/float64(stdN), "size/stdlib")
		})
	}
}

// TestSmoothForRuns: smoothed counts keep every used symbol used, turn a
// stretch of close counts into one run, and leave long runs alone.
func TestSmoothForRuns(t *testing.T) {
	c := []int{100, 101, 99, 100, 102, 0, 0, 0, 0, 0, 0, 7, 7, 7, 7, 7, 7, 7, 3, 1, 0, 2, 50, 0}
	orig := slices.Clone(c)
	smoothForRuns(c)
	for i := range c {
		if orig[i] > 0 && c[i] == 0 {
			t.Errorf("symbol %d: count %d became 0", i, orig[i])
		}
	}
	if !slices.Equal(c[:5], []int{100, 100, 100, 100, 100}) {
		t.Errorf("close counts %v smoothed to %v", orig[:5], c[:5])
	}
	if !slices.Equal(c[5:18], orig[5:18]) {
		t.Errorf("runs %v changed to %v", orig[5:18], c[5:18])
	}
	if c[22] != 50 {
		t.Errorf("a lone count 50 became %d", c[22])
	}
}

// TestVersion ties Version to the encoder's output: the digest of the
// encodings of the varied inputs is the one recorded for this Version. A
// change of the encoder that changes any byte fails here until Version is
// bumped (so that no cache serves an older encoder's bytes under the new
// one's name) and the digest recorded again.
func TestVersion(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		// The costs are floats: where the compiler fuses a multiply
		// and an add (arm64, ppc64, s390x) one may round otherwise and
		// another parse win, which is as good, but other bytes.
		t.Skipf("the digest is recorded on amd64; %s may round the costs otherwise", runtime.GOARCH)
	}
	digests := map[int]string{
		1: "faba36895056480b5f6da9c1e58082a9147141a0d3f38ca17d5cd90a794db6fc",
	}
	h := sha256.New()
	in := inputs()
	names := slices.Sorted(maps.Keys(in))
	for _, name := range names {
		h.Write(Gzip(in[name], 3))
	}
	got := hex.EncodeToString(h.Sum(nil))
	if want := digests[Version]; got != want {
		t.Errorf("the encodings of the test inputs changed (digest %s, recorded for Version %d: %q): bump Version and record the new digest", got, Version, want)
	}
}
