package kb

import "slices"

// Duplicates: snippets of different files under the same headings (the
// same heading trail) answer the same question — several answers to one
// FAQ entry, copies or versions of one article — and a part shows few hits
// (three in the agent). So, as in maximal marginal relevance (Carbonell and
// Goldstein, 1998) or a search engine's crowding of one site's results, the
// hits are picked one at a time, and a snippet counts wDuplicate times its
// score for each hit already picked from another file under its headings:
// the best answer of each question comes before a second answer of one.
// Snippets of one file under one heading are distinct facts of a section
// (a list's items, a table's rows) and keep their order. The off-topic rule
// does not see it: a part's share is that of its best snippets by score.
const wDuplicate = 0.5

// headingIDs numbers the snippets by their heading trail: snippets with
// the same trail get the same number, a snippet without headings one of
// its own. dup reports a trail that is in two files.
func headingIDs(docs []*Snippet) (ids []int32, dup bool) {
	ids = make([]int32, len(docs))
	type first struct {
		id   int32
		file string
	}
	seen := make(map[string]first)
	for i, d := range docs {
		if d.Heading == "" {
			ids[i] = -int32(i) - 1
			continue
		}
		f, ok := seen[d.Heading]
		if !ok {
			f = first{int32(len(seen)), d.File}
			seen[d.Heading] = f
		}
		dup = dup || f.file != d.File
		ids[i] = f.id
	}
	return ids, dup
}

// diversify picks up to k of cands, best first, each counting wDuplicate
// times its score for every hit picked before it from another file under
// the same headings. It reorders cands and returns its first (at most) k,
// with their scores as discounted. cands are sorted first, so that each
// pick reads only the candidates that can still beat the best so far.
func (ix *index) diversify(cands []ranked, k int) []ranked {
	slices.SortFunc(cands, func(a, b ranked) int {
		if a.better(b) {
			return -1
		}
		if b.better(a) {
			return 1
		}
		return 0
	})
	n := min(k, len(cands))
	for i := 0; i < n; i++ {
		best, bestScore := i, 0.0
		for j := i; j < len(cands); j++ {
			c := &cands[j]
			if j > i && c.other == cands[best].other && c.Score < bestScore {
				break // the rest score less, discounted or not
			}
			score := c.Score
			for _, p := range cands[:i] {
				if ix.heading[p.doc] == ix.heading[c.doc] && p.Snippet.File != c.Snippet.File {
					score *= wDuplicate
				}
			}
			if j == i || c.beats(score, cands[best], bestScore) {
				best, bestScore = j, score
			}
		}
		// move the pick to i, the candidates between it and i one on, in order
		pick := cands[best]
		copy(cands[i+1:best+1], cands[i:best])
		cands[i] = pick
		cands[i].Score = bestScore
	}
	return cands[:n]
}

// beats is better with x's and y's scores as discounted.
func (x ranked) beats(xs float64, y ranked, ys float64) bool {
	x.Score, y.Score = xs, ys
	return x.better(y)
}
