package kb

import (
	_ "embed"
	"math"
	"strconv"
	"strings"
)

// The dictionary: the words of English (WordNet 3.0, words of a sense seen
// in its tagged corpus) and Swedish (Viggo Kann's synonym lexicon) as
// sorted Snowball stems, generated with the lexicon (kb/internal/gen) and
// looked up in the embedded text by binary search, so it costs nothing to
// load. A word the dictionary holds is a word of the language, not a
// misspelling: it is not taken for a misspelt stop word or word of
// conversation ("snow" is not "now").

//go:embed lexicon/words-en.txt
var wordsEN string

//go:embed lexicon/words-sv.txt
var wordsSV string

// inDictionary reports whether w is a word of English or Swedish.
func inDictionary(w string) bool {
	return sortedHas(wordsEN, lexStem(w, 0)) || sortedHas(wordsSV, lexStem(w, 1))
}

// sortedHas reports whether key is a line of list: lines in byte order, each
// ending in "\n", after a header of lines starting with "#".
func sortedHas(list, key string) bool {
	_, ok := sortedGet(list, key)
	return ok
}

// sortedGet returns the rest of the line of list that begins with key and a
// space ("" for a line that is key alone): lines in byte order, each ending
// in "\n", after a header of lines starting with "#".
func sortedGet(list, key string) (string, bool) {
	for strings.HasPrefix(list, "#") {
		_, list, _ = strings.Cut(list, "\n")
	}
	lo, hi := 0, len(list) // both at the start of a line
	for lo < hi {
		mid := (lo + hi) / 2
		start := lo + strings.LastIndexByte(list[lo:mid], '\n') + 1
		end := start + strings.IndexByte(list[start:], '\n')
		if end < start {
			return "", false // no final line break: not a list
		}
		line, rest, _ := strings.Cut(list[start:end], " ")
		switch {
		case line == key:
			return rest, true
		case line < key:
			lo = end + 1
		default:
			hi = start
		}
	}
	return "", false
}

//go:embed lexicon/uses-en.txt
var usesEN string

// wSpecific scales how much less a common English word counts in ranking
// (see specificity).
const wSpecific = 0.05

// commonUses is the number of uses in WordNet's tagged corpus from which
// an English word is among the commonest of the language ("come", "make",
// "take"): it says little of what a message is about (see analyse).
const commonUses = 100

// uses returns the uses of w's stem in WordNet's tagged corpus (0 when it
// has none, or w is not English).
func uses(w string) int {
	s, ok := sortedGet(usesEN, lexStem(w, 0))
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// specificity returns how much a word of an English message counts in the
// ranking: 1/(1 + wSpecific·ln(1+n)), n the uses of its stem in WordNet's
// tagged corpus (kb/lexicon/uses-en.txt). Words common in any English text
// ("make", "like", "way") say less of what a question is about than words
// rare in English ("calendar", "label"): 0.67 for "be", 0.78 for
// "consider", 1 for a word the corpus never uses.
func specificity(w string) float64 {
	n := uses(w)
	if n == 0 {
		return 1
	}
	return 1 / (1 + wSpecific*math.Log1p(float64(n)))
}
