// Package guardrail finds every number in a text and decides whether the
// numbers of an answer are grounded in cited snippets.
//
// The rule (SPEC §3): every number in an answer must have a canonical form equal
// to the canonical form of a number in at least one cited snippet; otherwise the
// answer is blocked. Snippets and answers go through the same extractor, so
// "10 000" in a snippet and "10 000" in an answer agree.
//
// The package uses the standard library only, does no I/O and builds for
// GOOS=js GOARCH=wasm. All functions are safe for concurrent use; a
// [StreamGuard] is not (one guard per answer, fed by one goroutine).
package guardrail

import "github.com/groundwire/groundwire/guardrail/jsonw"

// Kind says what sort of printed value a [Number] is. Its text form
// (String, and so its JSON) is its name: "integer", "decimal", ….
//
// It is a small integer, so that a Number holds no pointer for it (a text
// full of numbers makes many), and not a byte, so that go vet reports
// string(k) written where k.String() is meant.
type Kind uint16

// The kinds of numbers the extractor recognises. The kinds that may carry
// a scale, unit or period come first (integer to ambiguous), then the
// percent: those a sign may precede.
const (
	KindInteger   Kind = iota + 1 // 12, 1000, -5
	KindDecimal                   // 12.5, 12,5, 1,234.56
	KindGrouped                   // 10 000, 181,674,817, 1.234.567
	KindAmbiguous                 // 1,000 (one thousand, or one with three decimals)
	KindPercent                   // 20%, 20 %, 12,5 %, twenty percent
	KindDate                      // 2025-12-31, 2025/12/31, 27 May 1863
	KindTime                      // 14:30, 8:05
	KindPhone                     // +46 8 123 45 67, 08-123 45 67
	KindWords                     // spelled out: ninety-nine, två tusen
	KindOrdinal                   // 3rd, third, tredje, 3:e
	KindQuarter                   // Q3, 3Q, third quarter, tredje kvartalet
	KindRange                     // 2007-2008, 2007–08: a range of years
	KindName                      // A380, X-15, COVID-19: letters and digits in one name
	// KindUnreadable is what the guard cannot read as a value but could
	// be read as one: a run of numerals it has no reading for (④⑨⑨,
	// ⅭⅮⅩⅭⅨ, 四百九十九, ⅓), a character reference that spells a digit
	// (&#52;), or a format character fold does not drop, such as a
	// bidi control (U+202E), which can show text in another order than
	// it was read. Its canonical form is the run as written: only the
	// same run in a snippet grounds it, and a run with a format character
	// never (Clean removes them).
	KindUnreadable
)

var kindNames = enumNames{"kind", []string{"", "integer", "decimal", "grouped", "ambiguous", "percent",
	"date", "time", "phone", "words", "ordinal", "quarter", "range", "name", "unreadable"}}

// String returns the kind's name ("" for none).
func (k Kind) String() string { return kindNames.name(int(k)) }

// MarshalText returns the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	i, err := kindNames.index(b)
	*k = Kind(i)
	return err
}

// enumNames are the names of a small integer type's values (Kind, State, Unit),
// what their String and JSON are, by value; what names the type in errors.
type enumNames struct {
	what  string
	names []string
}

// name returns the name of value i, or what and i for a value without one.
func (e enumNames) name(i int) string {
	if i < len(e.names) {
		return e.names[i]
	}
	return e.what + itoa(int64(i))
}

// index returns the value named name (what MarshalText writes), or an
// error naming e's type.
func (e enumNames) index(name []byte) (int, error) {
	for i, n := range e.names {
		if n == string(name) {
			return i, nil
		}
	}
	return 0, nameError("guardrail: unknown " + e.what + " " + string(jsonw.AppendString(nil, string(name), false)))
}

// nameError is the error of index: a name in JSON's quotes (package errors,
// and strconv's quoting, would add their code to the WASM guard).
type nameError string

func (e nameError) Error() string { return string(e) }

// Unit is a unit, a currency or a unit of time printed with a number:
// what a [Number] counts in (its Unit) or is per (its Period). Its text
// form (String, and so its JSON) is its normalised name: "SEK" for kr,
// kronor and :-, "EUR" for € and euro, "GB", "day", "month"; the zero Unit
// is none (""). The units are those of the rule's table (see the README's
// number rule); a Unit with no name agrees only with none.
//
// It is a byte, so that a Number holds its unit and its period beside its
// Kind, with no pointer for the collector to scan or guard (go vet does
// not report string(u) for a byte as it does for a Kind).
type Unit uint8

var unitNames = enumNames{"unit", names[:]}

// String returns the unit's name ("" for none).
func (u Unit) String() string { return unitNames.name(int(u)) }

// Currency reports whether u is a currency ("SEK", "USD", "kroner").
func (u Unit) Currency() bool { return u >= 1 && uint8(u) <= lastCurrency }

// MarshalText returns the unit's name.
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText reads a unit's name ("" for none).
func (u *Unit) UnmarshalText(b []byte) error {
	i, err := unitNames.index(b)
	*u = Unit(i)
	return err
}

// ParseUnit returns the unit named name, as String writes it ("SEK",
// "month"; "" is none), and whether there is one.
func ParseUnit(name string) (Unit, bool) {
	var u Unit
	return u, u.UnmarshalText([]byte(name)) == nil
}

// Number is one printed value found in a text.
//
// Start and End are byte offsets into the text the number was extracted from,
// so text[Start:End] == Text. Canonical is the form compared by the rule: two
// numbers that print the same value have equal canonical forms.
type Number struct {
	Text      string `json:"text"`
	Canonical string `json:"canonical"`
	Kind      Kind   `json:"kind"`
	// Unit is the unit or currency printed with the number ("SEK" for
	// 399 kr), and Period what it is per ("month" for /mån, per month, a
	// month): none (0) when none is printed.
	Unit   Unit `json:"unit,omitempty"`
	Period Unit `json:"period,omitempty"`
	Start  int  `json:"start"`
	End    int  `json:"end"`

	// noun is what a small count written as a word counts ("devic" of
	// "two devices", see nounAt), or nil: only check reads it. A pointer
	// (to the scan's nouns, see nounStrings), not a string, keeps a Number
	// at 64 bytes and a NumberVerdict at 80, which an answer's verdicts,
	// allocated on every Verify, are made of.
	noun *string
}
