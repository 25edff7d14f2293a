package lambda

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/groundwire/groundwire/kb"
)

// withinEdits agrees with the optimal string alignment distance computed
// plainly, for short and long words (past its 32-letter buffers) and
// letters outside ASCII.
func TestWithinEdits(t *testing.T) {
	osa := func(a, b []rune) int {
		d := make([][]int, len(a)+1)
		for i := range d {
			d[i] = make([]int, len(b)+1)
			d[i][0] = i
		}
		for j := range d[0] {
			d[0][j] = j
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
				if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
					d[i][j] = min(d[i][j], d[i-2][j-2]+1)
				}
			}
		}
		return d[len(a)][len(b)]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	letters := []rune("abcåäö")
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteRune(letters[rng.IntN(len(letters))])
		}
		return b.String()
	}
	for i := 0; i < 20000; i++ {
		n := 1 + rng.IntN(8)
		if i%10 == 0 {
			n = 30 + rng.IntN(8)
		}
		a := word(n)
		b := []rune(a)
		for range rng.IntN(4) { // a few edits
			switch p := rng.IntN(len(b) + 1); rng.IntN(3) {
			case 0:
				b = append(b[:p], append([]rune{letters[rng.IntN(len(letters))]}, b[p:]...)...)
			case 1:
				if p < len(b) {
					b = append(b[:p], b[p+1:]...)
				}
			default:
				if p+1 < len(b) {
					b[p], b[p+1] = b[p+1], b[p]
				}
			}
		}
		want := osa([]rune(a), b)
		for k := 0; k <= 3; k++ {
			if got := withinEdits(a, string(b), k); got != (want <= k) {
				t.Fatalf("withinEdits(%q, %q, %d) = %v, distance %d", a, string(b), k, got, want)
			}
		}
	}
}

// splitParts splits where the regular expression it replaces matches, on
// edge cases and random texts of the characters that matter.
func TestSplitPartsAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`[?!;]+|\.\s`)
	check := func(s string) {
		t.Helper()
		got, want := splitParts(s), re.Split(s, -1)
		if len(got) != len(want) || len(got) > 0 && !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	}
	for _, s := range []string{"", "?", "a", "a.b", "a. b", "a.\tb.\nc.\rd.\fe.\vf", "what?!; now", "?x?", "x??", "..  ", "a.\u00a0b", "ok.", "é?ü.\n"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(5, 23))
	alphabet := []string{"?", "!", ";", ".", " ", "\t", "\n", "\v", "a", "é", "\xff"}
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(12); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(b.String())
	}
}

// asksAmount matches where the regular expression it replaces does.
func TestAsksAmountAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`\b(?:how (?:much|many|long|often|soon|fast)|when|what time|hur (?:mycket|många|länge|lång|ofta|snabbt)|när|vilken tid)\b|\bcost|\bkosta|\bpris|\bprice`)
	check := func(s string) {
		t.Helper()
		if got, want := asksAmount(s), re.MatchString(s); got != want {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"", "how much", "how much does it cost", "showcase", "when", "whenever", "awhen", "_when", "when_", "när", "änär", "närma", "hur långa", "hur lång?",
		"pricey", "xprice", "éprice", "what time is it", "what timer", "hur mycket", "vilken tid", "vilken tider", "the cost", "1cost", "how  much"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"how", "much", "many", "when", "what", "time", "hur", "många", "lång", "länge", "när", "vilken", "tid", "cost", "kosta", "pris", "price", "a", "é", "_", "1", " ", "  ", "?", "\xff"}
	for range 50000 {
		var b strings.Builder
		for n := rng.IntN(6); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		check(b.String())
	}
}

// joinCuts cuts where the regular expression it replaces starts its group,
// match after match.
func TestJoinCutsAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?:,|\band\b|\boch\b|\balso\b|\bsamt\b|\bplus\b)\s+(?:(?:and|och|also|plus|then|sen|så)\s+)?((?:how|what|whats|when|where|which|why|who|can|could|do|does|is|are|will|would|should|hur|vad|när|var|vilken|vilket|vilka|varför|kan|går|finns|har|är|ska|får|måste)\b)`)
	check := func(s string) {
		t.Helper()
		want := []int{}
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			want = append(want, m[2])
		}
		if got := joinCuts(s, []int{}); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"", ",", ", how", "x, and how much, and what", "band how", "and  then what", "och så vad kostar det", "plus\thow",
		", and and how", ", varför inte", ", varförx", ", whats up", ", whatsoever", "also is", ",, how", "and,how", "and, how",
		"price, and can i pay with swish?", "hur mycket kostar det och hur säger jag upp", "éand how", "_and how", "and how_"} {
		check(s)
	}
	rng := rand.New(rand.NewPCG(3, 17))
	words := []string{",", "and", "och", "also", "samt", "plus", "then", "sen", "så", "how", "what", "whats", "can", "could", "do", "does",
		"var", "varför", "när", "är", "måste", "x", "é", "_", "1", " ", "  ", "\t", "\v", "\xff", "ands", "hows"}
	for range 50000 {
		var b strings.Builder
		for n := rng.IntN(8); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
		}
		check(b.String())
	}
}

// The mock's file cache gives render what it computes without it: for
// every file of the default knowledge base (and paths with a number, or
// none), in both languages, twice (the second time from the cache).
func TestFileCacheAsComputed(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"", "kb/en/2024-prices.md", "notes/v2/sv/faq.md", "a.sv.md"}
	for _, sn := range base.Snippets() {
		files = append(files, sn.File)
	}
	c := &fileCache{}
	for range 2 {
		for _, f := range files {
			for _, lang := range []Lang{English, Swedish} {
				want := fileInfo{fileLang(f), citeFile(f, lang)}
				if got := c.get(f, lang); got != want {
					t.Fatalf("get(%q, %s) = %+v, want %+v", f, lang, got, want)
				}
				if got := (*fileCache)(nil).get(f, lang); got != want {
					t.Fatalf("nil cache: get(%q, %s) = %+v, want %+v", f, lang, got, want)
				}
			}
		}
	}
	if want := fmt.Sprintf(phrases[English].source, "kb/en/plans.md"); citeFile("kb/en/plans.md", English) != want {
		t.Errorf("citeFile = %q, want %q", citeFile("kb/en/plans.md", English), want)
	}
	if got := citeFile("kb/en/2024-prices.md", Swedish); got != phrases[Swedish].anon {
		t.Errorf("a path with a number is cited %q, want %q", got, phrases[Swedish].anon)
	}
}

// The mock's random source is seeded with the question's FNV-1a hash, as
// hash/fnv computes it: the same answers and delays for the same seed and
// question.
func TestMockSourceSeed(t *testing.T) {
	m := NewMock(MockSeed(7))
	for _, q := range []string{"", "What does Premium cost?", "Vad kostar Familj per månad? 😅", "hallucinate 5 kr"} {
		h := fnv.New64a()
		h.Write([]byte(q))
		want := rand.NewPCG(7, h.Sum64())
		got := m.pcg(Prompt{Question: q})
		for range 4 {
			if g, w := got.Uint64(), want.Uint64(); g != w {
				t.Fatalf("%q: %d, want %d", q, g, w)
			}
		}
	}
}

// DetectLang counts the words of the lower-cased text as splitting it
// does (strings.FieldsFunc on non-letters, after strings.ToLower), on
// random texts of both languages' words in any case, other letters,
// digits, punctuation and invalid bytes.
func TestDetectLangAsSplit(t *testing.T) {
	plain := func(text string) Lang {
		if strings.ContainsAny(text, "åäöÅÄÖ") {
			return Swedish
		}
		sv, en := 0, 0
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if swedishWords[w] {
				sv++
			}
			if englishWords[w] {
				en++
			}
		}
		if sv > en {
			return Swedish
		}
		return English
	}
	pieces := []string{"och", "OCH", "Vad", "kostar", "KOSTNAD", "what", "What", "DOES", "the", "cost", "é", "Émile", "straße",
		"Ⅰ", "İ", "K", "\xff", "5", "?", " ", " ", ",", "-", "abonnemang", "Pris", "priser", "month", "hej"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		if s := b.String(); DetectLang(s) != plain(s) {
			t.Fatalf("DetectLang(%q) = %s, want %s", s, DetectLang(s), plain(s))
		}
	}
}

func BenchmarkDetectLang(b *testing.B) {
	texts := []string{"What does Premium cost?", "How do I cancel, and do I get money back?", "vad kostar familj per manad", "Hi! Can I pay with Swish?"}
	i := 0
	for b.Loop() {
		DetectLang(texts[i%len(texts)])
		i++
	}
}

// TestMockAllocs guards what the mock and DetectLang gain from their
// scratch: once a pooled scratch has grown, picking the sentences for a
// question allocates only splitParts' slice; DetectLang of an
// ASCII message allocates nothing.
func TestMockAllocs(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	q := "what does premium cost, and can i pay with swish?" // lower case: strings.ToLower gives it back
	hits, _ := search(base, q, DefaultTopK, English)
	sents := sentences(hits)
	m := NewMock(MockDelay(0, 0))
	sc := &pickScratch{seen: map[string]bool{}}
	if len(pickSentences(q, sents, m.words, sc)) == 0 {
		t.Fatal("no sentence picked")
	}
	// what is left is splitParts' slice of the parts (grown for the
	// second); the question's words, the match table and what is picked
	// are in sc
	if n := testing.AllocsPerRun(100, func() { pickSentences(q, sents, m.words, sc) }); n > 2 {
		t.Errorf("pickSentences: %.0f allocations, want at most 2", n)
	}
	if n := testing.AllocsPerRun(100, func() { DetectLang("What does Premium cost, and can I pay with Swish?") }); n != 0 {
		t.Errorf("DetectLang: %.0f allocations, want 0", n)
	}
}
