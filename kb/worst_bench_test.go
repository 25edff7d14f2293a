package kb

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// worstMessages are the costliest messages we can construct for the
// default base, each at the size a client may send (128 KB): one long
// random word, many random words (each compared with every word of the
// base by spelling), many one-word parts, misspellings of the base's own
// words (each matches, and is scored), long compounds of the base's words,
// and names.
func worstMessages(base *Base) map[string]string {
	r := rand.New(rand.NewPCG(7, 7))
	letters := []rune("abcdefghijklmnopqrstuvwxyzåäö")
	word := func(n int) string {
		w := make([]rune, n)
		for i := range w {
			w[i] = letters[r.IntN(len(letters))]
		}
		return string(w)
	}
	var vocab []string
	for _, f := range base.idx.fwords {
		if len(f.runes) >= 6 {
			vocab = append(vocab, f.word)
		}
	}
	misspell := func(w string) string {
		rs := []rune(w)
		i := r.IntN(len(rs))
		rs[i] = letters[r.IntN(len(letters))]
		return string(rs)
	}
	fill := func(next func() string) string {
		var b strings.Builder
		for b.Len() < 128*1024 {
			b.WriteString(next())
		}
		return b.String()
	}
	return map[string]string{
		"long-word":    word(128 * 1024),
		"random-words": fill(func() string { return word(8+r.IntN(6)) + " " }),
		"parts":        fill(func() string { return word(9) + "? " }),
		"misspellings": fill(func() string { return misspell(vocab[r.IntN(len(vocab))]) + " " }),
		"compounds": fill(func() string {
			return vocab[r.IntN(len(vocab))] + vocab[r.IntN(len(vocab))] + vocab[r.IntN(len(vocab))] + " "
		}),
		"max-len-words": fill(func() string { return word(maxWordRunes) + " " }),
		"names":         fill(func() string { return "Hej " + strings.ToUpper(word(1)) + word(9) + ", " }),
	}
}

// BenchmarkWorstMessage measures the costliest messages (worstMessages)
// against typical ones (the messages of testdata/retrieval.jsonl), in turn
// in the same run, with the word cache emptied before every search (its
// worst case), and reports worst/typical: the ratio of each kind's median
// time to the typical messages' median. The limits of trie.go keep it
// under 10.
func BenchmarkWorstMessage(b *testing.B) {
	base, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	var typical []string
	for _, c := range loadRetrievalCases(b) {
		typical = append(typical, c.Query)
	}
	worst := worstMessages(base)
	kinds := make([]string, 0, len(worst))
	for k := range worst {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	cold := func() {
		base.idx.cache.mu.Lock()
		base.idx.cache.m, base.idx.cache.stemmed, base.idx.cache.english = nil, nil, nil
		base.idx.cache.mu.Unlock()
	}
	run := func(q string) time.Duration {
		cold()
		start := time.Now()
		base.Search(q, 3)
		return time.Since(start)
	}
	times := map[string][]time.Duration{}
	i := 0
	for b.Loop() {
		times["typical"] = append(times["typical"], run(typical[i%len(typical)]))
		k := kinds[i%len(kinds)]
		times[k] = append(times[k], run(worst[k]))
		i++
	}
	median := func(ts []time.Duration) float64 {
		ts = slices.Clone(ts)
		slices.Sort(ts)
		return float64(ts[len(ts)/2])
	}
	typ := median(times["typical"])
	b.ReportMetric(typ/1e3, "typical-µs")
	worstRatio := 0.0
	for _, k := range kinds {
		if len(times[k]) == 0 {
			continue
		}
		ratio := median(times[k]) / typ
		worstRatio = max(worstRatio, ratio)
		b.ReportMetric(ratio, k+"/typical")
	}
	b.ReportMetric(worstRatio, "worst/typical")
}

// TestWorstMessagesBounded checks the limits behind BenchmarkWorstMessage
// by counting work, not time: each of the costliest messages expands at
// most maxMessageWords words (the cache, emptied before, holds what was
// expanded), and a word longer than maxWordRunes is neither stemmed, split
// nor matched.
func TestWorstMessagesBounded(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for kind, msg := range worstMessages(base) {
		base.idx.cache.mu.Lock()
		base.idx.cache.m, base.idx.cache.stemmed, base.idx.cache.english = nil, nil, nil
		base.idx.cache.mu.Unlock()
		base.Search(msg, 3)
		base.idx.cache.mu.Lock()
		n := len(base.idx.cache.m)
		base.idx.cache.mu.Unlock()
		if n > maxMessageWords {
			t.Errorf("%s: %d words expanded, limit %d", kind, n, maxMessageWords)
		}
	}
	long := strings.Repeat("lagringstillägg", 3)
	if info := base.idx.info(long, Swedish); info.known || info.left != "" || len(info.exps) > 0 {
		t.Errorf("a word of %d letters was expanded: %+v", len([]rune(long)), info)
	}
	if l, r := base.idx.splitCompound("lagringstillägget"); l != "lagring" || r != "tillägget" {
		t.Errorf("splitCompound(lagringstillägget) = %q, %q", l, r)
	}
}
