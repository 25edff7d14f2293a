package guardrail

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// spellOrdinal writes n (1–999) as an English ordinal the way English
// writes it ("one hundred and twenty-first"), or a Swedish one, written
// together ("etthundratjugoförsta"); an oracle of its own, apart from the
// scanner's tables.
func spellOrdinal(n int, swedish bool) string {
	var units, unitOrd, teenOrd, tens, tensOrd []string
	hundred, hundredth, and := " hundred", " hundredth", " and "
	if swedish {
		units = strings.Fields("- ett två tre fyra fem sex sju åtta nio")
		unitOrd = strings.Fields("- första andra tredje fjärde femte sjätte sjunde åttonde nionde")
		teenOrd = strings.Fields("tionde elfte tolfte trettonde fjortonde femtonde sextonde sjuttonde artonde nittonde")
		tens = strings.Fields("- - tjugo trettio fyrtio femtio sextio sjuttio åttio nittio")
		tensOrd = strings.Fields("- - tjugonde trettionde fyrtionde femtionde sextionde sjuttionde åttionde nittionde")
		hundred, hundredth, and = "hundra", "hundrade", ""
	} else {
		units = strings.Fields("- one two three four five six seven eight nine")
		unitOrd = strings.Fields("- first second third fourth fifth sixth seventh eighth ninth")
		teenOrd = strings.Fields("tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth")
		tens = strings.Fields("- - twenty thirty forty fifty sixty seventy eighty ninety")
		tensOrd = strings.Fields("- - twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth")
	}
	join := "-"
	if swedish {
		join = ""
	}
	var b strings.Builder
	h, r := n/100, n%100
	if h > 0 {
		b.WriteString(units[h])
		if r == 0 {
			b.WriteString(hundredth)
			return b.String()
		}
		b.WriteString(hundred)
		b.WriteString(and)
	}
	switch {
	case r < 10:
		b.WriteString(unitOrd[r])
	case r < 20:
		b.WriteString(teenOrd[r-10])
	case r%10 == 0:
		b.WriteString(tensOrd[r/10])
	default:
		b.WriteString(tens[r/10] + join + unitOrd[r%10])
	}
	return b.String()
}

// TestOrdinalWordsGenerated generates the ordinal words above twelfth from
// the number words the scanner reads, by each language's rule (see
// ordinalWords), and compares them with generatedOrdinals, the text the
// guard reads them from.
func TestOrdinalWordsGenerated(t *testing.T) {
	by := map[int64][]string{}
	for w, l := range englishWords {
		suffix := "th" // thirteenth, hundredth, millionth
		if w[len(w)-1] == 'y' {
			w, suffix = w[:len(w)-1], "ieth" // twentieth
		}
		if l.val > 12 && l.kind <= lexScale {
			by[l.val] = append(by[l.val], w+suffix)
		}
	}
	for w, ls := range swedishParts {
		suffix, l := "de", ls[0] // trettonde, hundrade, tusende
		if w[len(w)-1] == 'o' {
			suffix = "nde" // tjugonde
		} else if l.val >= 1e6 {
			suffix = "te" // miljonte, miljardte
		}
		if l.val > 12 && len(ls) == 1 && !strings.HasSuffix(w, "er") { // not ettusen, miljoner
			by[l.val] = append(by[l.val], w+suffix)
		}
	}
	var b strings.Builder
	for _, v := range slices.Sorted(maps.Keys(by)) {
		ws := by[v]
		slices.SortFunc(ws, func(a, b string) int { // the English ("…th") first, the Swedish ("…e") after
			return cmp.Compare(b[len(b)-1], a[len(a)-1])
		})
		fmt.Fprintf(&b, "\n\t%d = %s", v, strings.Join(ws, " "))
	}
	if b.String() != generatedOrdinals {
		t.Errorf("generatedOrdinals differ from the rule; generated:\n%s", b.String())
	}
}

// TestOrdinalWordsRead reads every ordinal from 13th to 999th written in
// words, English and Swedish, before a noun: one ordinal of that value.
func TestOrdinalWordsRead(t *testing.T) {
	for n := 13; n <= 999; n++ {
		want := itoa(int64(n)) + ordSuffix(itoa(int64(n)))
		for _, c := range []struct {
			lang, text string
		}{
			{"en", "the " + spellOrdinal(n, false) + " place"},
			{"sv", "den " + spellOrdinal(n, true) + " platsen"},
		} {
			got := Extract(c.text)
			if len(got) != 1 || got[0].Kind != KindOrdinal || got[0].Canonical != want {
				t.Errorf("%s %q: %+v, want one ordinal %s", c.lang, c.text, got, want)
			}
		}
	}
}

// TestOrdinalWordsExtract checks the compounds and what is no compound.
func TestOrdinalWordsExtract(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // canonical/kind
	}{
		{"in the twenty-first century", []string{"21st/ordinal"}},
		{"in the twenty first century", []string{"21st/ordinal"}},
		{"the Twenty-First Century", []string{"21st/ordinal"}},
		{"his hundredth goal", []string{"100th/ordinal"}},
		{"the two hundredth anniversary", []string{"200th/ordinal"}},
		{"the one hundred and first day", []string{"101st/ordinal"}},
		{"a thousandth of a second", []string{"1000th/ordinal"}},
		{"the nineteenth century", []string{"19th/ordinal"}},
		{"she finished twenty-third.", []string{"23rd/ordinal"}},
		{"twenty-first-century art", []string{"21st/ordinal"}},
		{"det tjugoförsta århundradet", []string{"21st/ordinal"}},
		{"för hundrade gången", []string{"100th/ordinal"}},
		{"tvåhundrade gången", []string{"200th/ordinal"}},
		{"det nittonde seklet", []string{"19th/ordinal"}},
		// "second" after "a" or "an" is a time unit, else an ordinal.
		{"the thirty-second president", []string{"32nd/ordinal"}},
		{"his twenty second birthday", []string{"22nd/ordinal"}},
		{"she finished forty-second", []string{"42nd/ordinal"}},
		{"An eighty-second pause", []string{"80/words"}},
		{"a thirty-second ad", []string{"30/words"}},
		{"a twenty second delay", []string{"20/words"}},
		// A count before an adjective, and a scale before a space.
		{"twenty first-time buyers", []string{"20/words"}},
		{"two million first graders", []string{"2000000/words"}},
		// "first", "second", "första", "andra" alone are no numbers.
		{"the first time", nil},
		{"the second time", nil},
		{"första gången", nil},
		{"andra gången", nil},
		// Alone, an ordinal word counts before a noun, as before, and
		// above twelfth before a hyphen and a noun.
		{"Thirteenth, the scores.", nil},
		{"a nineteenth-century church", []string{"19th/ordinal"}},
		{"ett sjuttonde-plats", []string{"17th/ordinal"}},
		{"third-party apps", nil},
		{"a twelfth-century church", nil},
		// Words of two languages form no ordinal.
		{"twenty tredje plats", []string{"20/words", "3rd/ordinal"}},
	} {
		var got []string
		for _, n := range Extract(c.text) {
			got = append(got, n.Canonical+"/"+n.Kind.String())
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

// TestSwedishOrdinalWords checks what ordinalAfter and swedishOrdinal
// rely on to tell the languages apart: every Swedish ordinal word ends in
// "a" or "e", and no English one does.
func TestSwedishOrdinalWords(t *testing.T) {
	for w := range ordinalWords.words {
		english := strings.HasSuffix(w, "th") || strings.HasSuffix(w, "st") || strings.HasSuffix(w, "nd") || strings.HasSuffix(w, "rd")
		if swedish := strings.HasSuffix(w, "a") || strings.HasSuffix(w, "e"); english == swedish {
			t.Errorf("%q: ends as an English ordinal %v, as a Swedish one %v", w, english, swedish)
		}
	}
}

// groundingCase is an answer, its snippet and whether it passes.
type groundingCase struct {
	answer, snippet string
	pass            bool
}

// checkGrounding verifies each case whole, streamed rune by rune and in
// random pieces: the same verdict, and a blocked answer released only up
// to its first ungrounded number.
func checkGrounding(t *testing.T, cases []groundingCase) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		src := NewSources([]string{c.snippet})
		v := Verify(c.answer, src)
		if v.Grounded != c.pass {
			t.Errorf("%q against %q: grounded %v, want %v: %+v", c.answer, c.snippet, v.Grounded, c.pass, v.Numbers)
			continue
		}
		want := wantReleased(c.answer, v)
		for _, pieces := range [][]string{strings.SplitAfter(c.answer, ""), splitRandom(r, c.answer)} {
			got, _, sv := streamAll(src, pieces)
			if sv.Grounded != v.Grounded || got != want {
				t.Errorf("%q against %q streamed in %q: released %q, grounded %v; want %q, %v", c.answer, c.snippet, pieces, got, sv.Grounded, want, v.Grounded)
			}
		}
	}
}

// TestOrdinalWordsGround checks ordinals in words against digits and the
// reverse, English and Swedish: the same value grounds, another blocks.
func TestOrdinalWordsGround(t *testing.T) {
	checkGrounding(t, []groundingCase{
		{"It was built in the 19th century.", "It was built in the nineteenth century.", true},
		{"It was built in the nineteenth century.", "It was built in the 19th century.", true},
		{"It was built in the 19th century.", "It was built in the twentieth century.", false},
		{"It was built in the twentieth century.", "It was built in the 19th century.", false},
		{"We live in the 21st century.", "We live in the twenty-first century.", true},
		{"We live in the twenty-first century.", "We live in the 21st century.", true},
		{"We live in the twenty-first century.", "We live in the 22nd century.", false},
		{"We live in the twenty-first century.", "The year 2000 had 20 centuries before it.", false},
		{"A nineteenth-century church.", "A 19th-century church.", true},
		{"A nineteenth-century church.", "An 18th-century church.", false},
		{"A 19th-century church.", "A nineteenth-century church.", true},
		{"It was his 100th goal.", "It was his hundredth goal.", true},
		{"It was his hundredth goal.", "It was his 100th goal.", true},
		{"It was his hundredth goal.", "It was his 99th goal.", false},
		{"She was forty-second on the list.", "She was 42nd on the list.", true},
		{"The two hundredth anniversary was held.", "The 200th anniversary was held.", true},
		{"The two hundredth anniversary was held.", "The 2nd and the 100th anniversary were held.", false},
		{"Kyrkan byggdes på 1800-talet, det nittonde seklet.", "Kyrkan byggdes under 19:e seklet på 1800-talet.", true},
		{"Det är den 21:a upplagan.", "Det är den tjugoförsta upplagan.", true},
		{"Det är den tjugoförsta upplagan.", "Det är den 21:a upplagan.", true},
		{"Det är den tjugoförsta upplagan.", "Det är den 20:e upplagan.", false},
		{"Hon kom på 14:e plats.", "Hon kom på trettonde plats.", false},
		{"För hundrade gången.", "För 100:e gången.", true},
		{"A thirty-second ad.", "A 30-second ad.", true},
		{"The thirty-second president.", "The 32nd president.", true},
		{"The thirty-second president.", "It lasts 30 seconds.", false},
	})
}

// TestOrdinalWordsHeld streams "twenty" and "first" in separate pieces: the
// guard releases nothing of the number until its reading is final, and
// never takes "twenty" for a count of its own.
func TestOrdinalWordsHeld(t *testing.T) {
	for _, c := range []struct {
		snippet string
		pieces  []string
		pass    bool
	}{
		{"The 21st edition.", []string{"The twenty", "-", "first edition."}, true},
		{"The 20 editions.", []string{"The twenty", "-", "first edition."}, false},
		{"The 21st edition.", []string{"The twenty ", "fir", "st edition."}, true},
		{"Den 21:a upplagan.", []string{"Den tjugo", "för", "sta upplagan."}, true},
		{"Den 20:e upplagan och 20 till.", []string{"Den tjugo", "för", "sta upplagan."}, false},
		{"The 200th edition.", []string{"The two", " hundred", "th edition."}, true},
		{"The 2nd edition, and 200 more.", []string{"The two", " hundred", "th edition."}, false},
	} {
		g := NewStreamGuard(NewSources([]string{c.snippet}))
		prefix := c.pieces[0][:4] // "The ", "Den ": the prose before the number
		var out strings.Builder
		for k, p := range c.pieces {
			safe, _ := g.Feed(p)
			out.WriteString(safe)
			if k < len(c.pieces)-1 && out.String() != prefix {
				t.Errorf("%q: released %q after piece %d, before the number's reading is final", c.pieces, out.String(), k)
			}
		}
		safe, v := g.Close()
		out.WriteString(safe)
		if v.Grounded != c.pass {
			t.Errorf("%q against %q: grounded %v, want %v: %+v", c.pieces, c.snippet, v.Grounded, c.pass, v.Numbers)
		}
		if whole := strings.Join(c.pieces, ""); c.pass && out.String() != whole || !c.pass && out.String() != prefix {
			t.Errorf("%q: released %q", c.pieces, out.String())
		}
	}
}
