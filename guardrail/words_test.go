package guardrail

import (
	"strings"
	"testing"
)

// TestSpelledStopsOnlyWhenNoNumberCanFollow checks the two rules by which
// spelled stops reading words that form no number yet: words that end in
// "and" or "a" where openEnd says no number can go on ("twenty one and"),
// and "a" followed by anything but "hundred" or a scale. No longer sequence
// that starts so may form a number, or stopping early would change what is
// read.
func TestSpelledStopsOnlyWhenNoNumberCanFollow(t *testing.T) {
	alphabet := []lexeme{
		{lexUnit, 1}, {lexUnit, 5}, {lexTeen, 12}, {lexTens, 20}, {lexHundred, 100},
		{lexScale, 1e3}, {lexScale, 1e6}, {lexAnd, 0}, {lexArticle, 1},
	}
	maxPrefix, maxMore := 4, 3
	if testing.Short() {
		maxMore = 2
	}
	// all returns every sequence of 1 to n lexemes of the alphabet.
	all := func(n int) [][]lexeme {
		out := [][]lexeme{}
		last := [][]lexeme{{}}
		for range n {
			var next [][]lexeme
			for _, l := range last {
				for _, x := range alphabet {
					next = append(next, append(append([]lexeme{}, l...), x))
				}
			}
			out, last = append(out, next...), next
		}
		return out
	}
	more := append(all(maxMore), nil)
	stops, opens := 0, 0
	for _, l := range all(maxPrefix) {
		k := l[len(l)-1].kind
		stop := (k == lexAnd || k == lexArticle) && !openEnd(l)
		if len(l) >= 2 && l[0].kind == lexArticle && l[1].kind != lexHundred && l[1].kind != lexScale {
			stop = true
		}
		if !stop {
			if k == lexAnd || k == lexArticle {
				opens++
			}
			continue
		}
		stops++
		for _, m := range more {
			seq := append(append([]lexeme{}, l...), m...)
			if v, ok := parseNumber(seq); ok {
				t.Fatalf("spelled stops after %v, but %v is the number %d", l, seq, v)
			}
		}
	}
	if stops == 0 || opens == 0 {
		t.Fatalf("%d sequences stop and %d go on: the alphabet does not test both", stops, opens)
	}
}

// TestOpenEndGoesOn checks that openEnd keeps reading where a number may
// still follow.
func TestOpenEndGoesOn(t *testing.T) {
	for _, words := range []string{
		"two hundred and five", "a thousand and one", "one million and a hundred",
		"a hundred", "two thousand a hundred",
	} {
		var l []lexeme
		fields(words, func(w string) { l = append(l, englishWords[w]) })
		for n := 1; n < len(l); n++ {
			if k := l[n-1].kind; (k == lexAnd || k == lexArticle) && !openEnd(l[:n]) {
				t.Errorf("%q: openEnd stops after %d words", words, n)
			}
		}
		if _, ok := parseNumber(l); !ok {
			t.Errorf("%q is no number", words)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		words string
		want  int64 // 0: no number
	}{
		{"nine", 9}, {"twelve", 12}, {"twenty", 20}, {"hundred", 100}, {"thousand", 1000},
		{"twenty one", 21}, {"twenty twenty", 0}, {"one two", 0}, {"ten one", 0}, {"twelve nine", 0},
		{"one hundred", 100}, {"a hundred", 100}, {"thousand hundred", 1100}, {"hundred five", 105},
		{"two thousand and five", 2005}, {"a million", 1000000}, {"thousand million", 0},
	} {
		var l []lexeme
		fields(c.words, func(w string) { l = append(l, englishWords[w]) })
		if v, ok := parseNumber(l); v != c.want || ok != (c.want != 0) {
			t.Errorf("parseNumber(%q) = %d, %v, want %d", c.words, v, ok, c.want)
		}
	}
}

// TestNumberWordsBeginNoQuantity checks what spelled relies on to skip
// spelledFraction and quantity when a space and an English number word
// follow a number: no word that they read after a space (decimals, percent,
// unit, period) begins with an English number word other than "a".
func TestNumberWordsBeginNoQuantity(t *testing.T) {
	sets := map[string]*wordSet{
		"pointWords": pointWords, "percentWords": percentWords, "unitWords": unitWords,
		"periodSpaced": periodSpaced,
	}
	for w := range englishWords {
		if w == "a" {
			continue
		}
		for name, ws := range sets {
			for x := range ws.words {
				if len(x) >= len(w) && x[:len(w)] == w {
					t.Errorf("%s holds %q, which begins with the number word %q", name, x, w)
				}
			}
		}
	}
}

// TestOrdinalsAreNoNumbers checks what word relies on to look for an
// ordinal only in a word that is no number word: no ordinal word is an
// English number word or splits into Swedish number parts.
func TestOrdinalsAreNoNumbers(t *testing.T) {
	for w := range ordinalWords.words {
		if _, ok := englishWords[w]; ok {
			t.Errorf("ordinal %q is an English number word", w)
		}
		if l, ok := appendSwedish(nil, []byte(w)); ok {
			t.Errorf("ordinal %q splits into the Swedish number parts %v", w, l)
		}
	}
}

// TestTimePrefixes checks that a prefix of a time position joined to a
// year or a decade ("mid-2016", "mid-1990s") is prose before a year or
// decade read as any other, and that names stay names.
func TestTimePrefixes(t *testing.T) {
	for _, c := range []struct {
		text, want string // canonical/kind
	}{
		{"in mid-2016", "2016/integer"},
		{"Mid-2016 sales", "2016/integer"},
		{"the mid-1990s", "1990/integer"},
		{"the mid-1990's", "1990/integer"},
		{"pre-2008 levels", "2008/integer"},
		{"post-2010 rules", "2010/integer"},
		{"the early-2000s", "2000/integer"},
		{"the late-1800s", "1800/integer"},
		{"the late-90s", "90/integer"},
		{"the 90s", "90/integer"},
		{"under 1990-talet", "1990/integer"},
		{"COVID-19", "COVID19/name"},
		{"X-15", "X15/name"},
		{"Pre-2 model", "PRE2/name"},
		{"mid-3000", "MID3000/name"},
		{"mid-0990", "MID0990/name"},
		{"mid-2016s", "MID2016/name"},
		{"mid-1995s", "MID1995/name"},
		{"mid-95s", "MID95/name"},
		{"mid-20", "MID20/name"},
		{"mid-199", "MID199/name"},
		{"mid-s20", "MIDS20/name"},
		{"mid-2016-17", "MID201617/name"},
		{"midi-2016", "MIDI2016/name"},
	} {
		var got []string
		for _, n := range Extract(c.text) {
			got = append(got, n.Canonical+"/"+n.Kind.String())
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: %v, want %s", c.text, got, c.want)
		}
	}
	checkGrounding(t, []groundingCase{
		{"Sales fell in mid-2016.", "Sales fell in 2016.", true},
		{"Sales fell in 2016.", "Sales fell in mid-2016.", true},
		{"Sales fell in mid-2017.", "Sales fell in 2016.", false},
		{"Sales fell in 2017.", "Sales fell in mid-2016.", false},
		{"It peaked in the mid-1990s.", "It peaked in the 1990s.", true},
		{"It peaked in the 1990s.", "It peaked in the mid-1990s.", true},
		{"It peaked in the mid-1990s.", "Den toppade under 1990-talet.", true},
		{"It peaked in the mid-1990s.", "Den toppade under 1980-talet.", false},
		{"Rates were cut post-2009.", "Rates were cut after 2008.", false},
		{"The COVID-19 rules.", "The COVID-20 rules.", false},
	})
	// "mid-" streamed in pieces is held until the year is read; then the
	// prefix is released as prose, and the year blocks.
	g := NewStreamGuard(NewSources([]string{"In 2016."}))
	var out strings.Builder
	pieces := []string{"In mid", "-", "20", "17 it fell."}
	for k, p := range pieces {
		safe, _ := g.Feed(p)
		if out.WriteString(safe); k < len(pieces)-1 && out.String() != "In " {
			t.Errorf("after %q: released %q", pieces[:k+1], out.String())
		}
	}
	if safe, v := g.Close(); v.Grounded || out.String()+safe != "In mid-" {
		t.Errorf("mid-2017 streamed against 2016: released %q, %+v", out.String()+safe, v.Numbers)
	}
}
