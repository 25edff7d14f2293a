package kb

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// genKB generates a knowledge base of n snippets: files of 50 one-line
// paragraphs under a heading, with words drawn from a vocabulary of 20 000
// made-up words (Zipf-distributed, like real text) and numbers.
func genKB(n int) fstest.MapFS {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	syll := []string{"ka", "lo", "mi", "ne", "su", "tra", "ber", "ön", "gå", "ri", "pe", "vad", "ul", "ex", "dor"}
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for j := 0; j < 2+r.IntN(3); j++ {
			w.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = w.String()
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(2, uint64(n))), 1.1, 1, uint64(len(vocab)-1))
	m := fstest.MapFS{}
	const perFile = 50
	for f := 0; f*perFile < n; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s %s\n\n", vocab[zipf.Uint64()], vocab[zipf.Uint64()])
		for l := 0; l < perFile && f*perFile+l < n; l++ {
			fmt.Fprintf(&b, "- %s:", vocab[zipf.Uint64()])
			for w := 0; w < 10+r.IntN(10); w++ {
				b.WriteString(" " + vocab[zipf.Uint64()])
			}
			fmt.Fprintf(&b, " %d kr, %d,%d %%.\n", r.IntN(1000), r.IntN(100), r.IntN(10))
		}
		m[fmt.Sprintf("d%03d/f%05d.md", f%100, f)] = &fstest.MapFile{Data: []byte(b.String())}
	}
	return m
}

var benchSizes = []int{100, 10_000, 100_000}

// BenchmarkLoad measures building the index (chunking, number extraction,
// stemming, postings) and reports the heap it keeps per snippet.
func BenchmarkLoad(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			fsys := genKB(n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			base, err := Load(fsys)
			if err != nil || base.Len() != n {
				b.Fatalf("%v, %d snippets", err, base.Len())
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(base)
			perSnippet := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
			b.ResetTimer()
			for b.Loop() {
				if _, err := Load(fsys); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perSnippet, "bytes/snippet")
		})
	}
}

// BenchmarkSearch measures one query against bases of growing size.
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			fsys := genKB(n)
			base, err := Load(fsys)
			if err != nil {
				b.Fatal(err)
			}
			// queries made of words of the base, one misspelt, one unknown
			queries := []string{}
			for _, s := range base.Snippets()[:20] {
				w := strings.Fields(s.Text)
				queries = append(queries, w[1]+" "+w[3]+" "+w[5], w[2]+"x what is", "pizza "+w[4])
			}
			b.ResetTimer()
			i := 0
			for b.Loop() {
				base.Search(queries[i%len(queries)], 3)
				i++
			}
		})
	}
}

// BenchmarkDefault is a cold start: loading the embedded knowledge base.
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		if _, err := loadDefault(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchDefault is one customer question against the default base.
func BenchmarkSearchDefault(b *testing.B) {
	base, _ := Default()
	qs := []string{"What does Premium cost?", "Vad kostar premium?", "hur sägger jag upp mitt abbonemang", "What is the capital of France?"}
	// repeated: the words' expansions come from the cache; cold: the cache
	// is emptied before every search (the cost of words never seen before).
	for _, cold := range []bool{false, true} {
		name := "repeated"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if cold {
					base.idx.cache.mu.Lock()
					base.idx.cache.m, base.idx.cache.stemmed, base.idx.cache.english = nil, nil, nil
					base.idx.cache.mu.Unlock()
				}
				base.Search(qs[i%len(qs)], 3)
				i++
			}
		})
	}
}

// BenchmarkSearchQuestions runs every message of testdata/retrieval.jsonl
// against the default base, in turn, and reports the latency of one search:
// p50-µs and p99-µs over every search run, and p99-best-µs, the p99 over
// the messages of each message's fastest run (what the search costs,
// without the pauses a busy machine adds to single runs).
//
// warm: every word was seen before (the expansion cache holds it); cold:
// the cache is emptied before every search, so every word of the message is
// expanded as if the index had never seen it — the cost of a message's
// first search after a start (and of words never asked before).
func BenchmarkSearchQuestions(b *testing.B) {
	base, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, c := range loadRetrievalCases(b) {
		qs = append(qs, c.Query)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			for _, q := range qs {
				base.Search(q, 3) // warm the cache
			}
			var times []time.Duration
			best := make([]time.Duration, len(qs))
			i := 0
			for b.Loop() {
				if cold {
					base.idx.cache.mu.Lock()
					base.idx.cache.m, base.idx.cache.stemmed, base.idx.cache.english = nil, nil, nil
					base.idx.cache.mu.Unlock()
				}
				start := time.Now()
				base.Search(qs[i%len(qs)], 3)
				d := time.Since(start)
				times = append(times, d)
				if q := i % len(qs); best[q] == 0 || d < best[q] {
					best[q] = d
				}
				i++
			}
			at := func(ts []time.Duration, p float64) float64 {
				ts = slices.DeleteFunc(slices.Clone(ts), func(d time.Duration) bool { return d == 0 })
				slices.Sort(ts)
				return float64(ts[int(p*float64(len(ts)-1))].Microseconds())
			}
			b.ReportMetric(at(times, 0.50), "p50-µs")
			b.ReportMetric(at(times, 0.99), "p99-µs")
			b.ReportMetric(at(best, 0.99), "p99-best-µs")
		})
	}
}

// BenchmarkDefaultWithLexicon is a cold start with the lexicon: loading the
// embedded base and parsing both lexicon tables (done once per process, at
// the first search).
func BenchmarkDefaultWithLexicon(b *testing.B) {
	for b.Loop() {
		if _, err := loadDefault(); err != nil {
			b.Fatal(err)
		}
		parseLexicon(lexiconEN)
		parseLexicon(lexiconSV)
	}
}
