package guardrail

import (
	"strings"
	"testing"
	"unicode"
)

// TestUnreadableBlocks: every form a reader takes for a number that the
// guard has no reading for blocks an answer whose snippets state the
// number in digits, whole and streamed (issue 27).
func TestUnreadableBlocks(t *testing.T) {
	src := NewSources([]string{"Premium costs 399 kr/month; Basic 199 kr. Hälften: 0.5."})
	for _, a := range []string{
		"Premium costs \u202e399\u202c kr/month.", // shown as "993"
		"Premium costs 3\u202e99 kr/month.",
		"Premium costs \u2067399\u2069 kr.",
		"Premium costs \u200f399 kr.",
		"Premium costs 3\u206299 kr.", // invisible times
		"Premium costs ④⑨⑨ kr.",
		"Premium costs ➍➒➒ kr.",
		"Premium costs ⑷⑼⑼ kr.",
		"Premium costs ⅭⅮⅩⅭⅨ kr.",
		"Premium costs CDXCIX kr.",
		"Premium costs ⅽⅾⅹⅽⅸ kr.",
		"Premium costs 四百九十九 kr.",
		"Premium costs 肆佰玖拾玖 kr.",
		"Premium costs 〇 kr.",
		"Premium costs &#x34;&#x39;&#x39; kr.",
		"Premium costs &#52;&#57;&#57; kr.",
		"Premium costs &#52 kr.",
		"Premium costs 399&nbsp;000 kr.",
		"Premium costs &frac12; kr.",
		"Premium costs &amp;#52;99 kr.",
		"Premium costs 399⅓ kr.",
		"Premium costs 399 ½ kr.",
		"Premium costs 1⁄2 kr.",
		"Premium costs 399½ kr/month.", // 399.5, no snippet states it
	} {
		v := Verify(a, src)
		if v.Grounded {
			t.Errorf("%q: grounded, want blocked: %+v", a, v.Numbers)
		}
		g := NewStreamGuard(src)
		var got strings.Builder
		for _, r := range a {
			s, _ := g.Feed(string(r))
			got.WriteString(s)
		}
		s, sv := g.Close()
		got.WriteString(s)
		if sv.Grounded {
			t.Errorf("%q: stream guard grounded it", a)
		}
		if first, ok := v.FirstUngrounded(); ok && got.String() != a[:first.Start] {
			t.Errorf("%q: stream released %q, want %q", a, got.String(), a[:first.Start])
		}
	}
}

// TestUnreadableGroundedAsWritten: an unreadable run is grounded by the
// same run in a snippet, never by its value in digits; a run holding a
// format character by nothing.
func TestUnreadableGroundedAsWritten(t *testing.T) {
	for _, c := range []struct {
		snippet, answer string
		grounded        bool
	}{
		{"Steg ④ av ⑤.", "Gå till steg ④.", true},
		{"Steg 4 av 5.", "Gå till steg ④.", false},
		{"Ludvig ⅩⅣ", "Ludvig ⅩⅣ", true},
		{"Ludvig ⅩⅣ", "Ludvig ⅩⅤ", false},
		{"统一价格 399 元", "统一 399", true},
		{"价格 399", "统一 399", false},
		{"Use &#169; 2024", "Use &#169; 2024", true},
		{"It costs 399 kr", "It costs \u202e399 kr", false},
		{"It costs \u202e399 kr", "It costs \u202e399 kr", false},
		{"R&amp;D costs 399 kr", "R&amp;D costs 399 kr", true}, // prose
		{"A&B", "A&B: 399 kr", false},
	} {
		v := VerifyStrings(c.answer, []string{c.snippet})
		if v.Grounded != c.grounded {
			t.Errorf("%q by %q: grounded %v, want %v (%+v)", c.answer, c.snippet, v.Grounded, c.grounded, v.Numbers)
		}
	}
}

// TestFractions: a vulgar fraction with an exact decimal value glued to a
// number is part of it.
func TestFractions(t *testing.T) {
	for _, c := range []struct{ text, canon string }{
		{"399½", "399.5"},
		{"2¼ h", "2.25"},
		{"-1¾", "-1.75"},
		{"07⅛", "7.125"},
		{"0⅝", "0.625"},
		{"1⅒", "1.1"},
	} {
		ns := Extract(c.text)
		if len(ns) != 1 || ns[0].Canonical != c.canon || ns[0].Kind != KindDecimal {
			t.Errorf("Extract(%q) = %+v, want one decimal %s", c.text, ns, c.canon)
		}
	}
	if v := VerifyStrings("It costs 399½ kr.", []string{"399.50 kr"}); !v.Grounded {
		t.Errorf("399½ kr not grounded by 399.50 kr: %+v", v.Numbers)
	}
	if v := VerifyStrings("It costs 399½ kr.", []string{"399 kr"}); v.Grounded {
		t.Errorf("399½ kr grounded by 399 kr")
	}
}

// TestEveryNumeralFailsClosed holds the rule over all of Unicode, not the
// examples above: every rune with a numeric value (Nd, Nl, No) and every
// format character (Cf) is read, as a digit or as (part of) a number, or
// it blocks; none is skipped. Each stands in an answer right after a
// grounded number and alone.
func TestEveryNumeralFailsClosed(t *testing.T) {
	src := NewSources([]string{"It costs 399 kr."})
	n := 0
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !unicode.In(r, unicode.Nd, unicode.Nl, unicode.No, unicode.Cf) && !hanNumeral(r) {
			continue
		}
		n++
		if fr, keep := foldRune(r); !keep || fr < 0x80 {
			continue // read as a digit, a sign, or nothing (zero-width)
		}
		for _, a := range []string{"It costs 399" + string(r) + " kr.", "It costs " + string(r) + " kr."} {
			if Verify(a, src).Grounded {
				t.Errorf("%U (%q) is skipped: %q grounded", r, string(r), a)
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d runes checked", n)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"Premium costs \u202e399\u202c kr.":    "Premium costs 399 kr.",
		"a\u200bb\u2060c\ufeffd\u00ade\u2066f": "abcdef",
		"e\u200dmoji \u200c":                   "e\u200dmoji \u200c", // joiners kept
		"\u0600123":                            "\u0600123",          // shown: kept, blocked
		"bad \xff byte\u200e":                  "bad \xff byte",
		"plain 399 kr":                         "plain 399 kr",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	// Whatever Clean leaves, the guard reads as shown: no bidi control.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if BidiControl(r) && Clean(string(r)) != "" {
			t.Errorf("Clean keeps %U", r)
		}
	}
}

// TestRomanNumerals: a word of three or more capital Roman letters in
// standard form is unreadable; other words of those letters are prose.
func TestRomanNumerals(t *testing.T) {
	for _, w := range []string{"III", "XIV", "CDXCIX", "MMXXV", "MCMLXXXIV", "MMMCMXCIX", "MIX", "XXX"} {
		if !romanNumeral(w) {
			t.Errorf("%s: not read as a Roman numeral", w)
		}
		if v := VerifyStrings("It is "+w+" now.", []string{"It is 499 now, 3, 14, 2025, 1009, 30."}); v.Grounded {
			t.Errorf("%s: grounded by its value in digits", w)
		}
		if v := VerifyStrings("It is "+w+" now.", []string{"Louis " + w}); !v.Grounded {
			t.Errorf("%s: not grounded by the same word: %+v", w, v.Numbers)
		}
	}
	for _, w := range []string{"II", "CD", "DC", "XL", "IIII", "VV", "IC", "XM", "CIVIL", "VIVID", "LCD", "DIM", "cdxcix", "Mix", "MMMM", "CCCC"} {
		if romanNumeral(w) {
			t.Errorf("%s: read as a Roman numeral", w)
		}
		if v := VerifyStrings("It is "+w+" now.", nil); !v.Grounded {
			t.Errorf("%s: blocked: %+v", w, v.Numbers)
		}
	}
	// romanString and romanNumeral agree on every value.
	for v := 1; v <= 3999; v++ {
		if r := romanString(v); len(r) >= 3 != romanNumeral(r) {
			t.Fatalf("%d: %s", v, r)
		}
	}
}
