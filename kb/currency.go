package kb

import (
	"strings"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// Currencies: a query word that names a currency in the guard's ISO 4217
// table ("dollars", "euro", "pund", "yen"; not a bare code such as "try"
// or "pen", which are words too) asks in what currency something is paid.
// It matches the knowledge base's own currency names ("kronor") and its
// words for currency (currencyWords) as an exact match would: what it asks
// about is the currency, whichever it names; so "Do you bill in dollars?"
// finds "All prices are in Swedish kronor" before the snippets of a section
// headed "Yearly billing".

// currencyWords are the words for currency itself, in English and Swedish.
var currencyWords = []string{"currency", "currencies", "valuta", "valutan", "valutor"}

// currencyName reports a word that names a currency (not its code).
func currencyName(w string) bool {
	if utf8.RuneCountInString(w) < 3 || hasDigit(w) {
		return false
	}
	ns := guardrail.Extract("1 " + w)
	if len(ns) != 1 || ns[0].End != len(w)+2 {
		return false
	}
	code := ns[0].Unit.String()
	if len(code) != 3 || strings.ToUpper(code) != code || strings.EqualFold(code, w) {
		return false
	}
	for _, r := range code {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// currencies returns the surface words of the index that name a currency,
// found once, on the first query that names one.
func (ix *index) currencies() []string {
	ix.currencyOnce.Do(func() {
		for _, f := range ix.fwords {
			if currencyName(f.word) {
				ix.currencyIdx = append(ix.currencyIdx, f.word)
			}
		}
	})
	return ix.currencyIdx
}

// currency adds the base's currency names and words for currency to the
// expansions of a word that names a currency, and reports whether there
// were any.
func (ix *index) currency(exps *expansions, word string) bool {
	if !currencyName(word) {
		return false
	}
	found := false
	for _, w := range append(ix.currencies(), currencyWords...) {
		if w != word && ix.addWord(exps, w, 1) {
			found = true
		}
	}
	return found
}
