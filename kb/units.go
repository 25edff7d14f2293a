package kb

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/groundwire/groundwire/guardrail"
)

// Units and currencies: a query word that names a unit of measure in the
// guard's table ("gigabytes", "gigs", "minutes", "kilos") matches the
// knowledge base's words for the same unit ("GB", "min") as an exact match
// would: "I need 50 more gigs" finds "12.5 kr per 10 GB". A word that names
// a currency matches every currency name of the base (see currency).

// Currencies: a query word that names a currency in the guard's ISO 4217
// table ("dollars", "euro", "pund", "yen"; not a bare code such as "try"
// or "pen", which are words too) asks in what currency something is paid.
// It matches the knowledge base's own currency names ("kronor") and its
// words for currency (currencyWords) as an exact match would: what it asks
// about is the currency, whichever it names; so "Do you bill in dollars?"
// finds "All prices are in Swedish kronor" before the snippets of a section
// headed "Yearly billing". (See unit, which reads both.)

// currencyWords are the words for currency itself, in English and Swedish.
var currencyWords = []string{"currency", "currencies", "valuta", "valutan", "valutor"}

// wordUnit returns the unit or currency a word names after a number in the
// guard's table ("GB" for "gigs", "USD" for "dollars"), or 0.
func wordUnit(w string) guardrail.Unit {
	if utf8.RuneCountInString(w) < 2 || hasDigit(w) {
		return 0
	}
	ns := guardrail.Extract("1 " + w)
	if len(ns) != 1 || ns[0].End != len(w)+2 {
		return 0
	}
	return ns[0].Unit
}

// unitOf returns the name of the unit of measure u, which w names ("GB"
// for "gigs"), or "" when u is none or a currency.
func unitOf(u guardrail.Unit) string {
	if u == 0 || u.Currency() {
		return ""
	}
	return u.String()
}

// currencyName reports whether w, which names u, names a currency by a
// name: not by its code ("try" and "pen" are words too) or a symbol.
func currencyName(w string, u guardrail.Unit) bool {
	code := u.String()
	if utf8.RuneCountInString(w) < 3 || len(code) != 3 || strings.ToUpper(code) != code || strings.EqualFold(code, w) {
		return false
	}
	for _, r := range code {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// unitWords returns the surface words of the index that name a currency,
// and those that name each unit of measure, found once, on the first query
// that names either.
func (ix *index) unitWords() ([]string, map[string][]string) {
	ix.unitOnce.Do(func() {
		ix.unitIdx = map[string][]string{}
		for _, f := range ix.fwords {
			u := wordUnit(f.word)
			if name := unitOf(u); name != "" {
				ix.unitIdx[name] = append(ix.unitIdx[name], f.word)
			} else if u != 0 && currencyName(f.word, u) {
				ix.currencyIdx = append(ix.currencyIdx, f.word)
			}
		}
	})
	return ix.currencyIdx, ix.unitIdx
}

// unit adds to the expansions of a word that names a unit of measure the
// base's words for that unit, or, for a word that names a currency, the
// base's currency names and words for currency ("Do you bill in dollars?"
// finds "All prices are in Swedish kronor"); it reports whether there were
// any.
func (ix *index) unit(exps *expansions, word string) bool {
	u := wordUnit(word)
	if u == 0 {
		return false
	}
	currencies, units := ix.unitWords()
	var words []string
	switch {
	case unitOf(u) != "":
		words = units[unitOf(u)]
	case currencyName(word, u):
		words = slices.Concat(currencies, currencyWords)
	}
	found := false
	for _, w := range words {
		if w != word && ix.addWord(exps, w, 1) {
			found = true
		}
	}
	return found
}
