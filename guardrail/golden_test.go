package guardrail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// goldenDigest is the SHA-256 of every result TestGolden computes. A change
// to the scanner that is meant to change no result (a speed-up) must leave
// it as it is; a change meant to change results updates it, with the reason
// in the commit.
const goldenDigest = "7f30c3f50060429a8f6030aec2eeb35a4997b908abac01f25af4b8073ebf0dc4"

// TestGolden runs Extract, Verify (both policies) and the stream guard over
// 20,000 texts generated from a fixed seed out of the pieces the scanner
// reads (numbers, units, scale and period words, number words, months,
// ordinals, Unicode digits and spaces, separators) and compares a digest of
// all results with goldenDigest.
func TestGolden(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("long; the js/wasm build is compared with the native one in web's TestWASMMatchesNative")
	}
	texts := generatedTexts(20000)
	texts = append(texts, benchText(4<<10))
	h := sha256.New()
	put := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(append(b, '\n'))
	}
	for _, text := range texts {
		put(Extract(text))
	}
	for n := 0; n+1 < len(texts); n += 2 {
		answer, sources := texts[n], NewSources([]string{texts[n+1], texts[n][:len(texts[n])/2]})
		put(Verify(answer, sources))
		put(Strict.Verify(answer, sources))
		released, v := streamed(NewStreamGuard(sources), answer, 7)
		put([]any{released, v})
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenDigest {
		t.Errorf("results over the generated corpus changed: digest %s, want %s\n"+
			"(if the change is meant, set goldenDigest to the new digest and say why in the commit)", got, goldenDigest)
	}
}

// streamed feeds answer to g in deltas of size bytes and returns all the
// text it released and its verdict.
func streamed(g *StreamGuard, answer string, size int) (string, Verdict) {
	var released strings.Builder
	for i := 0; i < len(answer); i += size {
		safe, _ := g.Feed(answer[i:min(i+size, len(answer))])
		released.WriteString(safe)
	}
	safe, v := g.Close()
	return released.String() + safe, v
}

// generatedTexts returns n texts generated from a fixed seed out of the
// pieces the scanner reads.
func generatedTexts(n int) []string {
	atoms := strings.Fields(`1 12 399 2025 08 0 10 000 181 674 817 1,000 1.5 12,5 % kr € $ £ SEK :- /mån /month per month a year
		monthly million mkr k m bn tusen miljon twenty twenty-one one two three and a hundred thousand tjugo tjugotre tvåhundra
		ett en fem femtio trettiofem third tredje 3rd 3:e Q3 quarter kvartalet May May. maj June juni of 27 1863 2007-08 2007–2008
		+46 8 123 45 67 070 - – . , : / ( ) 14:30 08:00 GB TB days dagar weeks år years point komma percent procent devices enheter
		COVID-19 A380 x ö å ä Å Ä Ö é ß ３ ٣ ³ ` + "\u200b \u00a0 \u2009" + ` fyra åtta åttio Twenty Jan Feb. Aug Sept first andra st nd rd th
		the och eller and for till filer månad på får Premium kostar users`)
	atoms = append(atoms, " ", " ", "\n", "\n1. ", "  ", "-", "")
	rng := rand.New(rand.NewSource(1))
	texts := make([]string, n)
	for k := range texts {
		var b strings.Builder
		for range 1 + rng.Intn(12) {
			b.WriteString(atoms[rng.Intn(len(atoms))])
			switch rng.Intn(4) {
			case 1, 2:
				b.WriteByte(' ')
			case 3:
				b.WriteString([]string{"-", ",", ".", "/", "\n", "–"}[rng.Intn(6)])
			}
		}
		texts[k] = b.String()
	}
	return texts
}

// TestConcurrentUse runs Extract, NewSources, Verify and stream guards from
// several goroutines at once (the package shares a spare scanner between
// calls) and checks that each gets the results of a call made alone, and
// that results already returned stay as they were while others scan. Run
// it with -race.
func TestConcurrentUse(t *testing.T) {
	texts := generatedTexts(600)
	texts = append(texts, benchText(4<<10), strings.Repeat("+1 1 1 1 ", 500))
	results := func(n int) string {
		answer, other := texts[n], texts[(n+1)%len(texts)]
		sources := NewSources([]string{other, answer[:len(answer)/2]})
		released, v := streamed(NewStreamGuard(sources), answer, 5)
		b, err := json.Marshal([]any{Extract(answer), Verify(answer, sources), Strict.Verify(answer, sources), released, v})
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	want := make([]string, len(texts))
	for n := range texts {
		want[n] = results(n)
	}
	const workers = 4
	kept := make([][]Number, workers)
	var wg sync.WaitGroup
	errs := make(chan string, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			kept[w] = Extract(texts[len(texts)-2])
			for k := range texts {
				n := (k*(2*w+1) + w) % len(texts) // each worker in its own order
				if got := results(n); got != want[n] {
					errs <- fmt.Sprintf("worker %d, text %d (%q): results differ from a call made alone", w, n, texts[n])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	alone, _ := json.Marshal(Extract(texts[len(texts)-2]))
	for w, k := range kept {
		if got, _ := json.Marshal(k); string(got) != string(alone) {
			t.Errorf("worker %d: numbers returned before the other scans changed", w)
		}
	}
}
