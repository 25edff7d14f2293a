package kb

import "unicode/utf8"

// Limits on the work one message costs (see the README, "Limits and
// guarantees"): a message is read up to maxMessageBytes, in at most
// maxParts parts; at most maxMessageWords distinct words are expanded; a
// word longer than maxWordRunes is not stemmed, split or matched by
// spelling (it is an unknown word). Compound splitting walks the index's
// tries once forwards and once backwards, so a word costs time linear in
// its length.
const (
	maxMessageBytes = 1024
	maxParts        = 12
	maxMessageWords = 12
	maxWordRunes    = 32
	maxStemChecks   = 4 // parts of one compound checked by stemming
)

// Flags of a word in a trie.
const (
	tEnglish  = 1 << iota // an indexed English word or stem (langBit)
	tSwedish              // an indexed Swedish word or stem
	tThes                 // a word of the thesaurus with an indexed word in its group
	tConverse             // a word of conversation
	tKnown    = tEnglish | tSwedish | tThes
)

// trie is a set of words with flags, walked rune by rune: the words of a
// word's beginnings (forward trie) or endings (a trie of reversed words) are
// found in one pass over it.
type trie struct {
	edges map[uint64]uint32 // node<<32 | rune → child
	flags []uint8           // per node: the flags of the word ending there
}

func newTrie() *trie {
	return &trie{edges: map[uint64]uint32{}, flags: []uint8{0}}
}

func (t *trie) insert(w string, reversed bool, f uint8) {
	node := uint32(0)
	step := func(r rune) {
		k := uint64(node)<<32 | uint64(uint32(r))
		next, ok := t.edges[k]
		if !ok {
			next = uint32(len(t.flags))
			t.flags = append(t.flags, 0)
			t.edges[k] = next
		}
		node = next
	}
	if reversed {
		for i := len(w); i > 0; {
			r, n := utf8.DecodeLastRuneInString(w[:i])
			step(r)
			i -= n
		}
	} else {
		for _, r := range w {
			step(r)
		}
	}
	t.flags[node] |= f
}

// prefixes sets out[k] to the flags of r[:k] (0 when not a word), for
// k = 0..len(r); out must have len(r)+1 elements.
func (t *trie) prefixes(r []rune, out []uint8) {
	clear(out)
	node := uint32(0)
	for i, c := range r {
		next, ok := t.edges[uint64(node)<<32|uint64(uint32(c))]
		if !ok {
			return
		}
		node = next
		out[i+1] = t.flags[node]
	}
}

// suffixes sets out[k] to the flags of r[k:] (0 when not a word) in a trie
// of reversed words, for k = 0..len(r); out must have len(r)+1 elements.
func (t *trie) suffixes(r []rune, out []uint8) {
	clear(out)
	node := uint32(0)
	for i := len(r) - 1; i >= 0; i-- {
		next, ok := t.edges[uint64(node)<<32|uint64(uint32(r[i]))]
		if !ok {
			return
		}
		node = next
		out[i] = t.flags[node]
	}
}

// buildTries fills the index's forward and backward tries: its surface
// words and stems with their languages, the words of the thesaurus whose
// groups hold an indexed word, and the words of conversation.
func (ix *index) buildTries() {
	ix.fwd, ix.bwd = newTrie(), newTrie()
	add := func(w string, f uint8) {
		ix.fwd.insert(w, false, f)
		ix.bwd.insert(w, true, f)
	}
	for w, bits := range ix.langs {
		add(w, bits)
	}
	for w, syns := range synonyms {
		for _, s := range syns {
			if ix.langs[s] != 0 {
				add(w, tThes)
				break
			}
		}
	}
	for w := range conversationWords {
		add(w, tConverse)
	}
}
