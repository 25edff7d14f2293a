package guardrail

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"Premium: 399 kr/månad", "12,5 %", "10 000 kr", "+46 8 123 45 67", "08-123 45 67",
	"2025-12-31", "2025/12/31", "1,000", "181,674,817", "1.234,56", "A380 COVID-19",
	"ninety-nine", "två tusen", "nittionio", "1. list\n2) item", "３ ٣ ³ −5", "14:30",
	"3 4 5", "1-2", ".5", "twenty percent", "3\u200b99", "\xff\xfe", "+", "-", "a hundred and",
	"| Plan | Monthly price (SEK) |\n|---|---|\n| Pro | 99 kr/year |", "| Plan | Storage (GB) |\n| Pro | 1 TB | 20 |",
	"\u202e399\u202c kr", "④⑨⑨ ⅩⅣ CDXCIX 四百九十九", "399½ 1⁄2", "&#52; 399&nbsp;000 &frac12;",
	"the twenty-first century", "one hundred and first", "a thirty-second ad", "tjugoförsta tvåhundrade gången",
	"in mid-2016 and the mid-1990s",
}

func FuzzExtract(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		nums := Extract(text)
		last := 0
		for _, n := range nums {
			if n.Start < last || n.End <= n.Start || n.End > len(text) {
				t.Fatalf("span [%d,%d] out of order or range (last %d, len %d)", n.Start, n.End, last, len(text))
			}
			last = n.End
			if text[n.Start:n.End] != n.Text {
				t.Fatalf("Text %q != text[%d:%d] %q", n.Text, n.Start, n.End, text[n.Start:n.End])
			}
			if n.Canonical == "" || n.Kind == 0 {
				t.Fatalf("empty canonical or kind: %+v", n)
			}
			// A canonical form is a fixed point: read again, it is one
			// number with the same canonical form. An ambiguous shape's
			// canonical form is its digit groups joined by ',' (a form no
			// other kind takes) and is not itself read as that shape.
			// So is a scaled ambiguous shape's ("1,000K": "1,000e3") and a
			// partial date's ("June 8": "--06-08"; "June 2019": "2019-06").
			if n.Kind == KindUnreadable {
				continue // the run as written, which read alone may be prose ("&nbsp;" is unreadable only next to a digit)
			}
			if n.Kind == KindAmbiguous {
				shape, exp, scaled := strings.Cut(n.Canonical, "e")
				if strings.Trim(shape, "-0123456789,%") != "" || !strings.Contains(shape, ",") ||
					scaled && strings.Trim(exp, "0123456789") != "" {
					t.Fatalf("ambiguous canonical %q of %q", n.Canonical, n.Text)
				}
				continue
			}
			if n.Kind == KindPercent && strings.Contains(n.Canonical, ",") {
				continue // a percent of an ambiguous shape keeps the shape ("1.000,000,000%")
			}
			if n.Kind == KindDate && (strings.HasPrefix(n.Canonical, "--") || len(n.Canonical) == len("2019-06")) {
				continue
			}
			again := Extract(n.Canonical)
			if n.Kind == KindName {
				// A name's canonical form is its text with case and dashes
				// folded; read alone it is still one number, but may take
				// another reading: "kr0" of "kr0%" is a name, "KR0" alone
				// a price glued to its currency (which no name grounds:
				// fail closed).
				if len(again) != 1 || again[0].Text != n.Canonical {
					t.Fatalf("canonical %q of name %q reads back as %+v", n.Canonical, n.Text, again)
				}
				continue
			}
			if len(again) != 1 || again[0].Canonical != n.Canonical && !threeDecimals(n, again[0]) {
				t.Fatalf("canonical %q of %q (%s) reads back as %+v", n.Canonical, n.Text, n.Kind, again)
			}
		}
		if !reflect.DeepEqual(nums, Extract(text)) {
			t.Fatal("Extract is not deterministic")
		}
	})
}

func FuzzVerify(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, fuzzSeeds[(i+3)%len(fuzzSeeds)], fuzzSeeds[(i+7)%len(fuzzSeeds)])
	}
	f.Fuzz(func(t *testing.T, answer, s1, s2 string) {
		sources := NewSources([]string{s1, s2})
		v := Verify(answer, sources)
		all, blocks := true, false
		for _, n := range v.Numbers {
			// A date or a range may be grounded by its parts, which its
			// citation (the first part's snippet) need not state whole.
			whole := n.Kind != KindDate && n.Kind != KindRange
			switch {
			case n.Grounded != (n.State == Grounded):
				t.Fatalf("number %+v: Grounded and State disagree", n)
			case n.Grounded && (n.Citation < 0 || int(n.Citation) >= len(sources) || whole && !sources[n.Citation].Grounds(n.Number)):
				t.Fatalf("grounded number %+v has a bad citation", n)
			case n.State == Derived && (len(n.Operands) == 0 || int(n.Citation) != n.Operands[0]):
				t.Fatalf("derived number %+v does not cite its first operand's source", n)
			case !n.Grounded && n.State != Derived && n.Citation != -1:
				t.Fatalf("ungrounded number %+v has a citation", n)
			case n.State == Unverified && n.Kind != KindWords && n.Kind != KindName:
				t.Fatalf("only a count in words or a name can be unverified: %+v", n)
			}
			all = all && n.Grounded
			blocks = blocks || Default.Blocks(n.State)
		}
		if v.Grounded == blocks {
			t.Fatalf("Grounded = %v, but per-number states say blocked = %v", v.Grounded, blocks)
		}
		if strict := Strict.Verify(answer, sources); strict.Grounded != all {
			t.Fatalf("strict Grounded = %v, but every number grounded = %v", strict.Grounded, all)
		}
		// An answer made of a source is grounded by it, unless a cell of
		// a table in it prints a unit or period its header contradicts,
		// or it holds a format character the guard reads, or names a
		// currency no row holds ("5 Jamaican dollars"), which ground
		// nothing.
		if !Verify(s1, sources).Grounded && !cellDisagrees(s1) && !strings.ContainsFunc(s1, readFormat) && !namesUnknownCurrency(s1) {
			t.Fatalf("a source does not ground itself: %q", s1)
		}
	})
}

// namesUnknownCurrency reports whether a number of text is printed with
// a currency no row holds.
func namesUnknownCurrency(text string) bool {
	for _, n := range Extract(text) {
		if uint8(n.Unit) == unknownCurrency {
			return true
		}
	}
	return false
}

// readFormat reports whether r is a format character the guard does not
// read as nothing: an unreadable run that holds one is never grounded.
func readFormat(r rune) bool {
	_, keep := foldRune(r)
	return keep && isFormat(r)
}

func FuzzStreamGuard(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s+" "+fuzzSeeds[(i+1)%len(fuzzSeeds)], uint64(i)*7919+3)
	}
	sources := streamSources
	f.Fuzz(func(t *testing.T, text string, cuts uint64) {
		var pieces []string
		rest := text
		for len(rest) > 0 {
			n := int(cuts%7) + 1
			cuts = cuts/7 ^ cuts<<13
			n = min(n, len(rest))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		whole := Verify(text, sources)
		got, _, v := streamAll(sources, pieces)
		if want := wantReleased(text, whole); got != want {
			t.Fatalf("released %q, want %q (pieces %q)", got, want, pieces)
		}
		if v.Grounded != whole.Grounded || len(v.Numbers) != len(whole.Numbers) {
			t.Fatalf("verdict %+v, want %+v", v, whole)
		}
		for i := range v.Numbers {
			if !reflect.DeepEqual(v.Numbers[i], whole.Numbers[i]) {
				t.Fatalf("number %d: %+v, want %+v", i, v.Numbers[i], whole.Numbers[i])
			}
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("released invalid UTF-8 from valid text: %q", got)
		}
	})
}

// threeDecimals reports the one case where a canonical form does not read
// back as itself: a decimal settled by its own shape ("1,0010" is 1.001)
// whose canonical form has three decimals after a short integer part, which
// written alone is the ambiguous shape ("1.001" reads 1,001). The two
// canonical forms differ, so neither grounds the other.
func threeDecimals(n, again Number) bool {
	return (n.Kind == KindDecimal || n.Kind == KindPercent) && strings.Count(n.Canonical, ".") == 1 &&
		strings.ReplaceAll(n.Canonical, ".", ",") == again.Canonical
}

// TestScanLinear checks that the scanner's work grows linearly with its
// input, for ordinary text and for the inputs built to slow it down: the
// runes it looks at per rune of input stay the same from 4 KB to 64 KB
// (counted, not timed, so the test is exact on any machine).
func TestScanLinear(t *testing.T) {
	units := map[string]string{
		"prose":             benchParagraph,
		"digits-and-spaces": "1 000 ",
		"plus-groups":       "+1 1 1 1 ",
		"number-words":      "twenty twenty-one and a ",
		"swedish-compounds": "tjugotjugotjugo ",
		"separators":        "1.2,3.4,",
		"long-number":       "1234567890",
		"months":            "May 27, 1863 och 27 maj ",
		"units":             "399 kr per month per ",
		"letters":           "abcdefghijklmnopqrstuvwxyz",
	}
	perRune := func(text string) float64 {
		s := scanner{f: foldText(text), final: true}
		s.scan(0)
		return float64(s.reads) / float64(s.f.size())
	}
	for name, unit := range units {
		small := perRune(strings.Repeat(unit, (4<<10)/len(unit)+1))
		large := perRune(strings.Repeat(unit, (64<<10)/len(unit)+1))
		if large > small*1.1 || large > 64 {
			t.Errorf("%s: %.1f runes read per rune at 4 KB, %.1f at 64 KB", name, small, large)
		}
		t.Logf("%s: %.1f runes read per rune of input", name, large)
	}
}

// cellDisagrees reports whether a number in a table's cell of text prints
// a unit or period that its column contradicts (see column.bind).
func cellDisagrees(text string) bool {
	sc := scanText(text)
	defer sc.done()
	nums := sc.numbers(text)
	cells, _ := bindCells(text, nums, sc.toks)
	for k, a := range cells {
		t := &sc.toks[k]
		if a.unit == cellConflict && t.unit != 0 || a.period == cellConflict && t.period != 0 {
			return true
		}
	}
	return false
}
