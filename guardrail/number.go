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

// Kind says what sort of printed value a [Number] is.
type Kind string

// The kinds of numbers the extractor recognises.
const (
	KindInteger   Kind = "integer"   // 12, 1000, -5
	KindDecimal   Kind = "decimal"   // 12.5, 12,5, 1,234.56
	KindGrouped   Kind = "grouped"   // 10 000, 181,674,817, 1.234.567
	KindPercent   Kind = "percent"   // 20%, 20 %, 12,5 %, twenty percent
	KindDate      Kind = "date"      // 2025-12-31, 2025/12/31
	KindTime      Kind = "time"      // 14:30, 8:05
	KindPhone     Kind = "phone"     // +46 8 123 45 67, 08-123 45 67
	KindWords     Kind = "words"     // spelled out: ninety-nine, två tusen
	KindOrdinal   Kind = "ordinal"   // 3rd, third, tredje, 3:e
	KindQuarter   Kind = "quarter"   // Q3, 3Q, third quarter, tredje kvartalet
	KindRange     Kind = "range"     // 2007-2008, 2007–08: a range of years
	KindAmbiguous Kind = "ambiguous" // 1,000 (one thousand, or one with three decimals)
)

// Number is one printed value found in a text.
//
// Start and End are byte offsets into the text the number was extracted from,
// so text[Start:End] == Text. Canonical is the form compared by the rule: two
// numbers that print the same value have equal canonical forms.
type Number struct {
	Text      string `json:"text"`
	Canonical string `json:"canonical"`
	Kind      Kind   `json:"kind"`
	// Unit is the unit or currency printed with the number, normalised
	// ("SEK" for kr, kronor and :-; "EUR"; "GB"; "day"), and Period what it
	// is per ("month" for /mån, per month, a month). Empty when none is
	// printed.
	Unit   string `json:"unit,omitempty"`
	Period string `json:"period,omitempty"`
	Start  int    `json:"start"`
	End    int    `json:"end"`

	noun string // for a small count written as a word: what it counts
}
