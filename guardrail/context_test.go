package guardrail

import (
	"regexp"
	"strconv"
	"testing"
)

// countWordsEN are the English count words by value, as a swap writes them.
var countWordsEN = []string{2: "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// TestCountWordDaysInRealAnswers takes the correct answers of
// ../shared/realdata/dev.jsonl (when present) that date a day of a month in
// digits ("May 5", "5 May"), writes the day as a count word of another
// value, and requires the guard to block at least 95 % of them: a count
// word in a date is a day, checked as strictly as digits, not an
// unverified count. It logs how many stay grounded when the count word has
// the day's own value.
func TestCountWordDaysInRealAnswers(t *testing.T) {
	const months = `(?:January|February|March|April|May|June|July|August|September|October|November|December)`
	dates := regexp.MustCompile(`\b(` + months + ` )(\d{1,2})\b|\b(\d{1,2})( ` + months + `)\b`)
	var swaps, blocked, same, kept int
	for _, c := range realAnswers(t) {
		if c.Expect != "pass" {
			continue
		}
		srcs := NewSources(c.Sources)
		if verdictWord(Strict.Verify(c.Answer, srcs)) != "pass" {
			continue // (a swap must be what blocks it)
		}
		for _, m := range dates.FindAllStringSubmatchIndex(c.Answer, -1) {
			lo, hi := m[4], m[5] // the day's digits
			if lo < 0 {
				lo, hi = m[6], m[7]
			}
			day, _ := strconv.Atoi(c.Answer[lo:hi])
			for v := 2; v <= 10; v++ {
				answer := c.Answer[:lo] + countWordsEN[v] + c.Answer[hi:]
				got := verdictWord(Strict.Verify(answer, srcs))
				if v == day {
					same++
					if got == "pass" {
						kept++
					} else {
						t.Logf("%s: %q is blocked", c.ID, answer)
					}
					continue
				}
				swaps++
				if got == "block" {
					blocked++
				} else {
					t.Logf("%s: %q passes", c.ID, answer)
				}
			}
		}
	}
	if swaps < 40 {
		t.Fatalf("only %d swaps: the dev set should date days in its correct answers", swaps)
	}
	t.Logf("count-word days swapped: %d/%d blocked; the day's own count word: %d/%d grounded", blocked, swaps, kept, same)
	if float64(blocked) < 0.95*float64(swaps) {
		t.Errorf("%d/%d swapped days blocked, under 95 %%", blocked, swaps)
	}
}
