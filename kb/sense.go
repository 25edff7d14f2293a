package kb

import (
	"cmp"
	_ "embed"
	"slices"

	"github.com/groundwire/groundwire/kb/memo"
)

// Two-word nouns: a message's two neighbouring words that make one English
// noun of WordNet ("post office", "tax return", "swimming pool") which the
// knowledge base never writes together are read as that noun, another
// thing than the base's "office", "tax" or "pool": they rank the snippets
// but weigh as unknown words in the off-topic rule and do not vouch for
// their part (see analyse). A noun the base writes too ("Christmas Eve",
// "phone number") is the base's own.

//go:embed lexicon/nouns-en.txt
var nounsEN string

// otherNouns returns the words of tokens (a clause of a message, every
// word in order) that are half of a two-word noun of English the base does
// not hold (see above); nil for a Swedish message.
func (ix *index) otherNouns(tokens []string, lang string) map[string]bool {
	if lang == Swedish || len(tokens) < 2 {
		return nil
	}
	var out map[string]bool
	prev := ""
	for i, tok := range tokens {
		if stopWord(tok) || conversationWords[tok] || isDigits(tok) {
			prev = ""
			continue
		}
		st := memo.Get(&ix.cache.mu, &ix.cache.english, maxCachedWords, tok, func() string { return lexStem(tok, 0) })
		if prev != "" && sortedHas(nounsEN, prev+"_"+st) && !ix.hasPair(prev, st) {
			if out == nil {
				out = map[string]bool{}
			}
			out[tokens[i-1]], out[tok] = true, true
		}
		prev = st
	}
	return out
}

// hasPair reports whether a snippet holds the stems a and b next to each
// other (stop words skipped; see pairBuilder).
func (ix *index) hasPair(a, b string) bool {
	_, found := slices.BinarySearchFunc(ix.pairs, pairKey(a, b), func(p pairPosting, k uint64) int { return cmp.Compare(p.key, k) })
	return found
}
