package kb

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// tokenizeOrigBuilt is tokenizeOrig as first written: the joined form of
// a hyphenated run built word by word as the words are read.
func tokenizeOrigBuilt(text string, fn func(tok, orig string)) {
	var (
		start     = -1
		joined    strings.Builder
		parts     int
		joinStart int
	)
	emitJoined := func(end int) {
		if parts > 1 {
			fn(joined.String(), text[joinStart:end])
		}
		joined.Reset()
		parts = 0
	}
	last := 0
	emit := func(end int) {
		orig := text[start:end]
		tok := strings.ToLower(orig)
		if parts == 0 {
			joinStart = start
		}
		start = -1
		last = end
		if utf8.RuneCountInString(tok) > 1 || isDigits(tok) {
			fn(tok, orig)
		}
		joined.WriteString(tok)
		parts++
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			emit(i)
		}
		if r != '-' || i+1 >= len(text) || parts == 0 {
			emitJoined(last)
		}
	}
	if start >= 0 {
		emit(len(text))
	}
	emitJoined(last)
}

// TestTokenizeOrigAsBuilt compares tokenizeOrig with the first version
// on 50,000 random texts of letters (both cases, å ä ö, İ, combining
// marks), digits, hyphens, spaces and punctuation, and invalid bytes.
func TestTokenizeOrigAsBuilt(t *testing.T) {
	pieces := []string{"a", "B", "e", "post", "Å", "ö", "İ", "ẞ", "\u0301", "1", "99", "-", "-", "--", " ", ",", ".", "?", "’", "\xff", "Σ", "ς", "x-", "-y"}
	rng := rand.New(rand.NewPCG(1, 2))
	collect := func(tk func(string, func(string, string)), text string) (out []string) {
		tk(text, func(tok, orig string) { out = append(out, tok+"|"+orig) })
		return out
	}
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		want, got := collect(tokenizeOrigBuilt, text), collect(tokenizeOrig, text)
		if !slices.Equal(want, got) {
			t.Fatalf("%q: got %q, want %q", text, got, want)
		}
	}
}

func BenchmarkTokenize(b *testing.B) {
	const msg = "Hi! What does Premium cost per month, and can I pay by e-invoice or Swish?"
	b.ReportAllocs()
	for b.Loop() {
		tokenize(msg, func(string) {})
	}
}
