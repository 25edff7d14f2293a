package kb

import (
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// Units: a query word that names a unit of measure in the guard's table
// ("gigabytes", "gigs", "minutes", "kilos") matches the knowledge base's
// words for the same unit ("GB", "min") as an exact match would: "I need 50
// more gigs" finds "12.5 kr per 10 GB". Currencies are matched by their own
// rule (see currency).

// unitOf returns the unit a word names after a number in the guard's table
// ("GB" for "gigs"), or "" for a word that names none, a currency, or a
// word that is its unit's own name.
func unitOf(w string) string {
	if utf8.RuneCountInString(w) < 2 || hasDigit(w) {
		return ""
	}
	ns := guardrail.Extract("1 " + w)
	if len(ns) != 1 || ns[0].End != len(w)+2 || ns[0].Unit == 0 || ns[0].Unit.Currency() {
		return ""
	}
	return ns[0].Unit.String()
}

// units returns the surface words of the index by the unit they name,
// found once, on the first query that names one.
func (ix *index) units() map[string][]string {
	ix.unitOnce.Do(func() {
		ix.unitIdx = map[string][]string{}
		for _, f := range ix.fwords {
			if u := unitOf(f.word); u != "" {
				ix.unitIdx[u] = append(ix.unitIdx[u], f.word)
			}
		}
	})
	return ix.unitIdx
}

// unit adds the base's words for the unit a word names to its expansions,
// and reports whether there were any.
func (ix *index) unit(exps *expansions, word string) bool {
	u := unitOf(word)
	if u == "" {
		return false
	}
	found := false
	for _, w := range ix.units()[u] {
		if w != word && ix.addWord(exps, w, 1) {
			found = true
		}
	}
	return found
}
