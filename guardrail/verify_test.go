package guardrail

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	kb := []string{
		"Basic: 99 kr/månad. Premium: 399 kr/månad.",
		"Ring oss på +46 8 123 45 67 vardagar 08:00–17:00.",
		"Årsrabatt 20%. Lagring 1 TB, upp till 10 000 filer. Moms 12,5 %.",
		"Erbjudandet gäller till 2025-12-31. Antal: 1,000 licenser.",
		"Vi har ninety-nine servrar och tjugo kontor.",
	}
	src := NewSources(kb)
	tests := []struct {
		answer   string
		grounded bool
		citation []int // per number
	}{
		{"Premium kostar 399 kr/månad.", true, []int{0}},
		{"Premium costs 399 SEK per month, Basic 99.", true, []int{0, 0}},
		{"Basic kostar 777 kr/månad.", false, []int{-1}},
		{"No numbers at all.", true, nil},
		{"Call +46-8-123-45-67.", true, []int{1}},
		{"Call 08-123 45 67.", false, []int{-1}},         // national does not ground international
		{"Open 08:00 to 17:00.", true, []int{1, 1}},      // times
		{"You save 20 percent.", true, []int{2}},         // word percent = 20%
		{"You save 20 on the year.", true, []int{2}},     // bare value of a percent
		{"Moms 12.5%.", true, []int{2}},                  // comma and point agree
		{"Moms 12.50 %.", true, []int{2}},                // trailing zero
		{"Up to 10000 files.", true, []int{2}},           // grouping
		{"Up to 10 000 files.", true, []int{2}},          // no-break space
		{"Up to ten thousand files.", true, []int{2}},    // words ground against digits
		{"Valid until 2025/12/31.", true, []int{3}},      // date forms
		{"1,000 licenses.", true, []int{3}},              // same ambiguous shape
		{"1.000 licenses.", true, []int{3}},              // same digits, same shape
		{"1000 licenses.", false, []int{-1}},             // ambiguity blocks
		{"We run 99 servers.", true, []int{0}},           // digits against words
		{"Vi har 20 kontor.", true, []int{2}},            // first source that grounds
		{"We have twenty offices.", true, []int{2}},      // 20 is grounded by 20% (bare) first
		{"Premium 399, eller ０９９?", false, []int{0, -1}}, // 099 != 99
		{"Premium ３９９ kr", true, []int{0}},               // full-width folds
		{"Premium 3\u200b99 kr", true, []int{0}},         // zero width cannot split
		{"Premium 399 kr, Basic 98 kr", false, []int{0, -1}},
		{"Pris −99 kr", false, []int{-1}}, // sign matters
	}
	for _, tc := range tests {
		v := Verify(tc.answer, src)
		if v.Grounded != tc.grounded {
			t.Errorf("Verify(%q).Grounded = %v, want %v (%+v)", tc.answer, v.Grounded, tc.grounded, v.Numbers)
			continue
		}
		if len(v.Numbers) != len(tc.citation) {
			t.Errorf("Verify(%q): %d numbers, want %d: %+v", tc.answer, len(v.Numbers), len(tc.citation), v.Numbers)
			continue
		}
		for i, n := range v.Numbers {
			if int(n.Citation) != tc.citation[i] || n.Grounded != (tc.citation[i] >= 0) {
				t.Errorf("Verify(%q) number %q: citation %d grounded %v, want citation %d", tc.answer, n.Text, n.Citation, n.Grounded, tc.citation[i])
			}
		}
		first, blocked := v.FirstUngrounded()
		if blocked == v.Grounded || (blocked && first.Grounded) {
			t.Errorf("Verify(%q): FirstUngrounded = %+v, %v", tc.answer, first, blocked)
		}
	}
}

// SPEC §3 rule 6: one separator followed by exactly three digits is
// grounded only by the same digits in the same shape.
func TestVerifyOneGroupShape(t *testing.T) {
	for _, tc := range []struct {
		answer, source string
		grounded       bool
	}{
		{"1,000", "1", false},
		{"1,000", "1000", false},
		{"1,000", "1.0", false},
		{"1,000", "1 000", false},
		{"1,000", "1.000", true},
		{"1000", "1,000", false},
		{"1", "1,000", false},
		{"1,000,000", "1 000 000", true},
		{"12,500 kr", "12 500 kr", false},
		{"12,500 kr", "12,500 kr", true},
	} {
		if v := VerifyStrings(tc.answer, []string{tc.source}); v.Grounded != tc.grounded {
			t.Errorf("answer %q, source %q: grounded %v, want %v", tc.answer, tc.source, v.Grounded, tc.grounded)
		}
	}
}

func TestVerifyNoSources(t *testing.T) {
	if v := Verify("It costs 5 kr.", nil); v.Grounded {
		t.Error("a number with no sources must block")
	}
	if v := Verify("No numbers here.", nil); !v.Grounded {
		t.Error("an answer without numbers needs no source")
	}
	if v := Check(Number{Canonical: "5"}, []*Source{nil, NewSource("5")}); v.Citation != 1 {
		t.Errorf("nil source must be skipped: %+v", v)
	}
}

// A Unit is its code in names, named by its name (what String and JSON
// write, what ParseUnit reads). A Source compares units and periods by
// code: a Number made by hand with a Unit that has no name agrees only
// with a number that prints none.
func TestCheckUnits(t *testing.T) {
	for c, v := range names {
		if nameCode(v) != uint8(c) {
			t.Errorf("names[%d] = %q has code %d: names must not repeat", c, v, nameCode(v))
		}
		if u, ok := ParseUnit(v); !ok || u != Unit(c) || u.String() != v {
			t.Errorf("ParseUnit(%q) = %d, %v; want %d named %q", v, u, ok, c, v)
		}
	}
	if u, ok := ParseUnit("kronor"); ok {
		t.Errorf("ParseUnit(kronor) = %v, true: only normalised names parse", u)
	}
	unit := func(name string) Unit {
		u, ok := ParseUnit(name)
		if !ok {
			t.Fatalf("ParseUnit(%q): no such unit", name)
		}
		return u
	}
	nameless := Unit(len(names))
	src := NewSources([]string{"Premium: 399 kr/månad", "Basic 99"})
	for _, tc := range []struct {
		n    Number
		cite int
	}{
		{Number{Canonical: "399"}, 0},
		{Number{Canonical: "399", Unit: unit("SEK")}, 0},
		{Number{Canonical: "399", Unit: unit("SEK"), Period: unit("month")}, 0},
		{Number{Canonical: "399", Unit: unit("EUR")}, -1},
		{Number{Canonical: "399", Period: unit("year")}, -1},
		{Number{Canonical: "399", Unit: nameless}, -1},
		{Number{Canonical: "399", Period: nameless}, -1},
		{Number{Canonical: "99", Unit: nameless}, 1},
		{Number{Canonical: "99", Unit: unit("EUR"), Period: nameless}, 1},
	} {
		if v := Check(tc.n, src); int(v.Citation) != tc.cite || v.Grounded != (tc.cite >= 0) {
			t.Errorf("Check(%+v) = %+v, want citation %d", tc.n, v, tc.cite)
		}
		if g := src[0].Grounds(tc.n); g != (tc.cite == 0) {
			t.Errorf("Grounds(%+v) = %v", tc.n, g)
		}
	}
	b, _ := json.Marshal(Number{Canonical: "399", Unit: unit("SEK"), Period: unit("month")})
	var n Number
	if err := json.Unmarshal(b, &n); !strings.Contains(string(b), `"unit":"SEK","period":"month"`) ||
		err != nil || n.Unit != unit("SEK") || n.Period != unit("month") {
		t.Errorf("JSON %s read back as %+v, %v: want the unit and the period by name", b, n, err)
	}
	if b, _ := json.Marshal(Number{Canonical: "399"}); strings.Contains(string(b), "unit") {
		t.Errorf("JSON %s: a number without a unit has none in JSON", b)
	}
	if err := json.Unmarshal([]byte(`{"unit":"kronor"}`), &n); err == nil {
		t.Error(`JSON "unit":"kronor" read: a unit's JSON is its normalised name`)
	}
	if got := nameless.String(); got != "unit"+strconv.Itoa(len(names)) {
		t.Errorf("a Unit with no name prints %q", got)
	}
}

// A small count written as a word keeps what it counts in its Number, so
// that Check tells it as Verify does: unverified, or ungrounded where a
// snippet binds another value to the same noun.
func TestCheckCounts(t *testing.T) {
	for _, tc := range []struct {
		text, source string
		want         State
	}{
		{"It has two devices.", "Any device.", Unverified},
		{"It has two devices.", "Up to 3 devices.", Ungrounded},
		{"It has two devices.", "Up to 2 devices.", Grounded},
		{"It has 2 devices.", "Any device.", Ungrounded},
	} {
		src := NewSources([]string{tc.source})
		v := Verify(tc.text, src)
		for _, n := range Extract(tc.text) {
			if c := Check(n, src); c.State != tc.want || len(v.Numbers) != 1 || v.Numbers[0].State != tc.want ||
				Check(v.Numbers[0].Number, src).State != tc.want {
				t.Errorf("%q against %q: Check %v, Verify %+v, want %v", tc.text, tc.source, c.State, v.Numbers, tc.want)
			}
		}
	}
}

func TestVerdictJSON(t *testing.T) {
	v := VerifyStrings("Premium 399 kr", []string{"Premium: 399 kr/månad"})
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"grounded":true,"numbers":[{"text":"399 kr","canonical":"399","kind":"integer","unit":"SEK","start":8,"end":14,"state":"grounded","grounded":true,"citation":0}]}`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
}

// A number a source states in the same form, printed with no unit and no
// period, is grounded by the quick index of its sources (citeQuick), for
// every length of key the index holds: citeQuick writes quickPrint and
// quickHash out, and a look-up it placed other than addQuick did would
// only miss (check grounds the number all the same), so that only this
// test tells.
func TestCiteQuick(t *testing.T) {
	if !fast {
		t.Skip("the general path makes no quick index")
	}
	text := "7, 42, 399, 2025, 12345, 1.25, 1234567, 98765432, 123456789, 1234567890123456 och +46 8 123 45 67."
	for _, sources := range [][]*Source{NewSources([]string{text}), NewSources([]string{"0", text, "1"})} {
		s := scanText(text)
		nvs := make([]NumberVerdict, len(s.toks))
		s.fillVerdicts(nvs, text)
		if !citeQuick(nvs, s.quickTable(sources, len(nvs))) {
			for _, nv := range nvs {
				if nv.State == 0 {
					t.Errorf("%d sources: %q (%q) not grounded by the quick index", len(sources), nv.Text, nv.Canonical)
				}
			}
		}
		s.done()
	}
}

// TestEnumNames holds Kind and State to their names, both ways, as the
// JSON of a Number and a NumberVerdict writes and reads them.
func TestEnumNames(t *testing.T) {
	for k := Kind(1); k <= KindRange; k++ {
		var back Kind
		if b, err := json.Marshal(k); err != nil || back.UnmarshalText(b[1:len(b)-1]) != nil || back != k || k.String() == "" {
			t.Errorf("kind %d: JSON %s, %v, read back as %d", k, b, err, back)
		}
	}
	for st := Grounded; st <= Unverified; st++ {
		var back State
		if b, err := json.Marshal(st); err != nil || back.UnmarshalText(b[1:len(b)-1]) != nil || back != st || st.String() == "" {
			t.Errorf("state %d: JSON %s, %v, read back as %d", st, b, err, back)
		}
	}
	if got := Kind(99).String(); got != "kind99" {
		t.Errorf("Kind(99).String() = %q", got)
	}
	if got := State(7).String(); got != "state7" {
		t.Errorf("State(7).String() = %q", got)
	}
	var k Kind
	if err := json.Unmarshal([]byte(`"integr"`), &k); err == nil || err.Error() != `guardrail: unknown kind "integr"` {
		t.Errorf("unknown kind: %v", err)
	}
	var st State
	if err := json.Unmarshal([]byte(`"fine"`), &st); err == nil || err.Error() != `guardrail: unknown state "fine"` {
		t.Errorf("unknown state: %v", err)
	}
}
