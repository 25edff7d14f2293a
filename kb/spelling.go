package kb

import "slices"

// Spelling mistakes: a query word the index does not hold matches the
// indexed words within a few edits of it (see editBudget).

// fuzzy adds the stems of the indexed words within the edit budget of word
// (in the language bit), and reports whether there were any. Words are
// compared by length and by the letters they hold before the edit distance
// is computed: an edit changes at most two letters of the set of letters a
// word holds, so words whose sets differ more cannot be close.
func (ix *index) fuzzy(exps *expansions, word string, bit uint8) bool {
	r := []rune(word)
	n := len(r)
	budget := editBudget(n)
	if budget == 0 {
		return false
	}
	mask := letterMask(r)
	var buf [16]int32
	near := buf[:0] // the close words, as indexes of fwords
	for l := max(n-budget, 0); l <= n+budget && l < len(ix.byLen); l++ {
		for _, i := range ix.byLen[l] {
			v := &ix.fwords[i]
			if v.langs&bit == 0 || popcount(mask^v.mask) > 2*budget {
				continue
			}
			if n == 4 && v.runes[0] != r[0] { // a short word: its first letter is right
				continue
			}
			if osaRunes(r, v.runes, budget) <= budget {
				near = append(near, i)
			}
		}
	}
	slices.Sort(near) // in lexical order, as they are added
	for _, i := range near {
		v := &ix.fwords[i]
		for _, st := range ix.surface[v.word] {
			exps.add(st, wFuzzy)
		}
		for _, syn := range synonyms[v.word] {
			ix.addWord(exps, syn, wFuzzy*wSynonym)
		}
	}
	return len(near) > 0
}

// fuzzyWord is an indexed surface word prepared for fuzzy.
type fuzzyWord struct {
	word  string
	runes []rune
	mask  uint64
	langs uint8
}

func letterMask(r []rune) uint64 {
	var m uint64
	for _, c := range r {
		m |= 1 << (uint(c) % 64)
	}
	return m
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// editBudget is the number of edits a misspelt word of n runes may have.
func editBudget(n int) int {
	switch {
	case n >= 8:
		return 2
	case n >= 4:
		return 1
	}
	return 0
}

// osa returns the optimal string alignment distance between a and b (edits:
// insert, delete, substitute, swap two neighbours), or max+1 when it is
// larger than max.
func osa(a, b string, max int) int {
	if a == b {
		return 0
	}
	return osaRunes([]rune(a), []rune(b), max)
}

func osaRunes(ra, rb []rune, max int) int {
	n, m := len(ra), len(rb)
	var buf [3 * 40]int
	var rows []int
	if 3*(m+1) <= len(buf) {
		rows = buf[:3*(m+1)]
	} else {
		rows = make([]int, 3*(m+1))
	}
	prev2, prev, cur := rows[:m+1], rows[m+1:2*(m+1)], rows[2*(m+1):]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= n; i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= m; j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[m] > max {
		return max + 1
	}
	return prev[m]
}
