package kb

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kljensen/snowball/swedish"
)

// tokenizeOrigSpec is tokenizeOrig as its documentation states it, written
// independently: words are runs of letters, decimal digits and combining
// marks; each word (lower-cased) of more than one letter, or of digits;
// after the last word of a run of words separated by hyphens only, the
// run's words joined (lower-cased), spanning the run's text.
func tokenizeOrigSpec(text string, fn func(tok, orig string)) {
	words := specWord.FindAllStringIndex(text, -1)
	for k, w := range words {
		orig := text[w[0]:w[1]]
		if tok := strings.ToLower(orig); utf8.RuneCountInString(tok) > 1 || isDigits(tok) {
			fn(tok, orig)
		}
		if k+1 < len(words) && strings.Trim(text[w[1]:words[k+1][0]], "-") == "" {
			continue // the run goes on
		}
		first := k
		for first > 0 && strings.Trim(text[words[first-1][1]:words[first][0]], "-") == "" {
			first--
		}
		if first < k {
			var joined strings.Builder
			for _, v := range words[first : k+1] {
				joined.WriteString(strings.ToLower(text[v[0]:v[1]]))
			}
			fn(joined.String(), text[words[first][0]:w[1]])
		}
	}
}

var specWord = regexp.MustCompile(`[\p{L}\p{Nd}\p{Mn}]+`)

// TestTokenizeOrigSpec compares tokenizeOrig with its specification
// on 50,000 random texts of letters (both cases, å ä ö, İ, combining
// marks), digits, hyphens, spaces and punctuation, and invalid bytes.
func TestTokenizeOrigSpec(t *testing.T) {
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
		want, got := collect(tokenizeOrigSpec, text), collect(tokenizeOrig, text)
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

// TestSwedishVerbNouns: a Swedish noun in -ning or -ering (8 letters or
// more) also stems as its verb; shorter ones, whose ending is often the
// verb's own "n" or no ending at all, do not; nor, when the language is
// not known, an English word in -ning ("listening", "returning").
func TestSwedishVerbNouns(t *testing.T) {
	for _, c := range []struct {
		word, verb string
		has        bool
	}{
		{"synkningen", "synka", true},
		{"betalningar", "betala", true},
		{"uppladdning", "ladda upp", false}, // a particle verb: the stem is "upplad", not "ladd"
		{"uppladdning", "uppladda", true},
		{"registreringen", "registrera", true},
		{"uppdateringar", "uppdaterar", true},
		{"räkning", "räka", false},
		{"tidningen", "tida", false},
		{"störning", "stör", true},
	} {
		got := stems(c.word, Swedish, nil)
		var want string
		if w, _, ok := strings.Cut(c.verb, " "); ok {
			want = stemSwedish(w)
		} else {
			want = stemSwedish(c.verb)
		}
		if slices.Contains(got, want) != c.has {
			t.Errorf("stems(%q) = %q: holds %q (the stem of %q) %v, want %v", c.word, got, want, c.verb, !c.has, c.has)
		}
		if got[0] != stemSwedish(c.word) {
			t.Errorf("stems(%q) = %q: the noun's own stem %q must come first", c.word, got, stemSwedish(c.word))
		}
	}
}

// TestPhraseLookupAllocs guards that looking a message's words up in the
// phrase tables allocates only for what is found: the n-grams are joined
// in a buffer, not as strings (two searches a message each joined up to
// 2n−3 of them).
func TestPhraseLookupAllocs(t *testing.T) {
	var none, some []string
	tokenize("can I pay for my subscription with a gift card", func(tok string) { none = append(none, tok) })
	tokenize("how much does it cost to run the app on my phone", func(tok string) { some = append(some, tok) })
	if w, _ := phrases(none, phraseHints); len(w) != 0 {
		t.Fatalf("phrases(%q) = %q, want none", none, w)
	}
	if w, _ := phrases(some, phraseHints); len(w) == 0 {
		t.Fatalf("phrases(%q) found none", some)
	}
	if n := testing.AllocsPerRun(100, func() { phrases(none, phraseHints) }); n != 0 {
		t.Errorf("phrases with no phrase found: %.0f allocations, want 0", n)
	}
	// what it returns: the words and the set of covered tokens
	if n := testing.AllocsPerRun(100, func() { phrases(some, phraseHints) }); n > 3 {
		t.Errorf("phrases with one phrase found: %.0f allocations, want at most 3", n)
	}
	if n := testing.AllocsPerRun(100, func() { platformSlots(none, nil) }); n != 0 {
		t.Errorf("platformSlots with no slot: %.0f allocations, want 0", n)
	}
}

func TestSwedishVerbNounsNotEnglish(t *testing.T) {
	for w, verb := range map[string]string{"listening": "listea", "returning": "retura", "screening": "screea"} {
		if got := stems(w, "", nil); slices.Contains(got, swedish.Stem(verb, true)) {
			t.Errorf("stems(%q, \"\") = %q: an English word takes the Swedish verb stem %q", w, got, swedish.Stem(verb, true))
		}
	}
	if got := stems("synkningen", "", nil); !slices.Contains(got, stemSwedish("synka")) {
		t.Errorf("stems(\"synkningen\", \"\") = %q: no verb stem", got)
	}
}
