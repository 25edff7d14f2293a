package kb

import (
	"cmp"
	"slices"
)

// Proximity: a snippet in which two words that stand next to each other in
// the question also stand next to each other (stop words skipped, in the
// same order, in its text, a heading or its "asked" comment; numbers and
// units left out) gets a little
// more score: wPair times the mean inverse document frequency of the two,
// per such pair. It only reorders snippets that match anyway; it does not
// count in the off-topic rule (its measured effect: the README,
// "Knowledge base").
const wPair = 0.1

// pairKey is a pair of stems, hashed (FNV-1a, a zero byte between them).
func pairKey(a, b string) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(a); i++ {
		h = (h ^ uint64(a[i])) * prime
	}
	h *= prime // the separator (a zero byte)
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * prime
	}
	return h
}

// pairBuilder collects the pairs of neighbouring stems of the snippets
// while they are indexed, and builds the index's pair postings.
type pairBuilder struct {
	prev  []string // the stems of the word before
	pairs []pairPosting
	doc   uint32 // the snippet being indexed
}

// pairPosting is a pair of neighbouring stems (its key) in a snippet.
type pairPosting struct {
	key uint64
	doc uint32
}

// start starts a new text of the snippet doc (a heading, the text, …):
// words of different texts are not neighbours.
func (p *pairBuilder) start() { p.prev = p.prev[:0] }

// word adds the stems of the next word.
func (p *pairBuilder) word(ss []string) {
	for _, a := range p.prev {
		for _, b := range ss {
			p.pairs = append(p.pairs, pairPosting{pairKey(a, b), p.doc})
		}
	}
	p.prev = append(p.prev[:0], ss...)
}

// done returns the pair postings, sorted by key then snippet, each once.
func (p *pairBuilder) done() []pairPosting {
	slices.SortFunc(p.pairs, func(a, b pairPosting) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.doc, b.doc)
	})
	return slices.Clip(slices.Compact(p.pairs))
}

// proximity adds the proximity bonus to the snippets s has scored that
// cover at least least of a part's weight, for the part's words (in the
// order of the message; their own stems, which the index holds).
func (ix *index) proximity(s *scratch, words []qword, least float64) {
	var prev []expansion
	for _, q := range words {
		var cur []expansion
		if numberLike(q.word) {
			// a number or a unit: matched as it is, and maybe the
			// customer's own figure; it neither ranks nor pairs
			prev = nil
			continue
		}
		for i, e := range q.exps {
			if e.weight == 1 {
				cur = q.exps[i : i+1]
				break
			}
		}
		for _, a := range prev {
			for _, b := range cur {
				key := pairKey(a.stem, b.stem)
				i, found := slices.BinarySearchFunc(ix.pairs, key, func(p pairPosting, k uint64) int { return cmp.Compare(p.key, k) })
				if !found {
					continue
				}
				w := wPair * (ix.idf(len(ix.terms[a.stem])) + ix.idf(len(ix.terms[b.stem]))) / 2
				for ; i < len(ix.pairs) && ix.pairs[i].key == key; i++ {
					if d := ix.pairs[i].doc; s.hit[d] && s.cover[d] > 0 && s.cover[d] >= least {
						s.score[d] += w
					}
				}
			}
		}
		prev = cur
	}
}
