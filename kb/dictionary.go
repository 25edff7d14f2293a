package kb

import (
	_ "embed"
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
	for strings.HasPrefix(list, "#") {
		_, list, _ = strings.Cut(list, "\n")
	}
	lo, hi := 0, len(list) // both at the start of a line
	for lo < hi {
		mid := (lo + hi) / 2
		start := lo + strings.LastIndexByte(list[lo:mid], '\n') + 1
		end := start + strings.IndexByte(list[start:], '\n')
		if end < start {
			return false // no final line break: not a list
		}
		switch line := list[start:end]; {
		case line == key:
			return true
		case line < key:
			lo = end + 1
		default:
			hi = start
		}
	}
	return false
}
