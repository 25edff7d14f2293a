package guardrail

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// goldenDigest is the SHA-256 of every result TestGolden computes. A change
// to the scanner that is meant to change no result (a speed-up) must leave
// it as it is; a change meant to change results updates it, with the reason
// in the commit.
const goldenDigest = "3381ff580c849abd96eabfb3caeff2812bedb9d2f21a2d74b142f8869af19746"

// TestGolden runs Extract, Verify (both policies) and the stream guard over
// 20,000 texts generated from a fixed seed out of the pieces the scanner
// reads (numbers, units, scale and period words, number words, months,
// ordinals, Unicode digits and spaces, separators) and compares a digest of
// all results with goldenDigest.
func TestGolden(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("long; the js/wasm build is compared with the native one in web's TestWASMMatchesNative")
	}
	atoms := strings.Fields(`1 12 399 2025 08 0 10 000 181 674 817 1,000 1.5 12,5 % kr € $ £ SEK :- /mån /month per month a year
		monthly million mkr k m bn tusen miljon twenty twenty-one one two three and a hundred thousand tjugo tjugotre tvåhundra
		ett en fem femtio trettiofem third tredje 3rd 3:e Q3 quarter kvartalet May May. maj June juni of 27 1863 2007-08 2007–2008
		+46 8 123 45 67 070 - – . , : / ( ) 14:30 08:00 GB TB days dagar weeks år years point komma percent procent devices enheter
		COVID-19 A380 x ö å ä Å Ä Ö é ß ３ ٣ ³ ` + "\u200b \u00a0 \u2009" + ` fyra åtta åttio Twenty Jan Feb. Aug Sept first andra st nd rd th
		the och eller and for till filer månad på får Premium kostar users`)
	atoms = append(atoms, " ", " ", "\n", "\n1. ", "  ", "-", "")
	rng := rand.New(rand.NewSource(1))
	texts := make([]string, 20000)
	for n := range texts {
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
		texts[n] = b.String()
	}
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
		g := NewStreamGuard(sources)
		var released strings.Builder
		for i := 0; i < len(answer); i += 7 {
			safe, _ := g.Feed(answer[i:min(i+7, len(answer))])
			released.WriteString(safe)
		}
		safe, v := g.Close()
		put([]any{released.String() + safe, v})
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenDigest {
		t.Errorf("results over the generated corpus changed: digest %s, want %s\n"+
			"(if the change is meant, set goldenDigest to the new digest and say why in the commit)", got, goldenDigest)
	}
}
