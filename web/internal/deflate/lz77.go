package deflate

import (
	"encoding/binary"
	"math"
	"math/bits"
)

const (
	windowSize = 32768
	minMatch   = 3
	maxMatch   = 258
	hashBits   = 16
	// maxChain bounds the candidates tried per position.
	maxChain = 8192
)

// pair says that distance dist gives matches of every length from the
// previous pair's len+1 (or minMatch) up to len, and is the nearest that does.
type pair struct{ len, dist uint16 }

// matches holds, for each position of [start, end), the pairs giving the
// nearest distance of every match length possible there (within the data
// from start-windowSize to end). They are found once and serve every pass.
type matches struct {
	start int
	off   []int32 // pairs[off[i]:off[i+1]] are those of position start+i
	pairs []pair
}

// longest returns the longest match at p (length 0 when none).
func (m *matches) longest(p int) (length, dist int) {
	i := p - m.start
	if m.off[i] == m.off[i+1] {
		return 0, 0
	}
	q := m.pairs[m.off[i+1]-1]
	return int(q.len), int(q.dist)
}

// findMatches finds the pairs of every position of [start, end). The
// nearest match of 3 bytes or more is the first true one on the chain of
// positions with the same hash of 3 bytes; the longer ones are searched on
// the chain of the hash of 4 bytes (fewer candidates, all at least as far:
// any of them is a 3-byte match), nearest first, keeping each that is
// longer than the best so far, up to maxChain candidates.
func findMatches(data []byte, start, end int) *matches {
	m := &matches{start: start, off: make([]int32, end-start+1)}
	m.pairs = make([]pair, 0, (end-start)/2)
	bitsN := min(hashBits, max(8, bits.Len(uint(end-max(0, start-windowSize)))))
	head3, head4 := make([]int32, 1<<bitsN), make([]int32, 1<<bitsN)
	for i := range head3 {
		head3[i], head4[i] = -1, -1
	}
	win := min(windowSize, 1<<bits.Len(uint(end)))
	prev3, prev4 := make([]int32, win), make([]int32, win)
	mask := win - 1
	for i := max(0, start-windowSize); i < end; i++ {
		if i+minMatch > len(data) {
			if i >= start {
				m.off[i-start+1] = int32(len(m.pairs))
			}
			continue
		}
		x := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16
		h3 := x * 2654435761 >> (32 - bitsN)
		has4 := i+4 <= len(data)
		var h4 uint32
		if has4 {
			h4 = (x | uint32(data[i+3])<<24) * 2246822519 >> (32 - bitsN)
		}
		if i >= start {
			limit := min(maxMatch, end-i)
			best := minMatch - 1
			for p, hops := int(head3[h3]), 0; limit >= minMatch && p >= 0 && i-p <= windowSize && hops < maxChain; hops++ {
				if data[p] == data[i] && data[p+1] == data[i+1] && data[p+2] == data[i+2] {
					best = minMatch + matchLen(data[p+minMatch:], data[i+minMatch:i+limit])
					m.pairs = append(m.pairs, pair{uint16(best), uint16(i - p)})
					break
				}
				p = int(prev3[p&mask])
			}
			if has4 && best >= minMatch {
				for p, hops := int(head4[h4]), 0; p >= 0 && i-p <= windowSize && hops < maxChain && best < limit; hops++ {
					if data[p+best] == data[i+best] {
						if l := matchLen(data[p:], data[i:i+limit]); l > best {
							m.pairs = append(m.pairs, pair{uint16(l), uint16(i - p)})
							best = l
						}
					}
					p = int(prev4[p&mask])
				}
			}
			m.off[i-start+1] = int32(len(m.pairs))
		}
		prev3[i&mask] = head3[h3]
		head3[h3] = int32(i)
		if has4 {
			prev4[i&mask] = head4[h4]
			head4[h4] = int32(i)
		}
	}
	return m
}

// matchLen returns the length of the common prefix of a and b (len(a) >= len(b)).
func matchLen(a, b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// store is an LZ77 parse: a literal (dist 0) or a match per symbol, and
// the position in the input where each symbol starts.
type store struct {
	litlen []uint16 // literal byte, or match length
	dist   []uint16 // 0 for a literal
	pos    []int32
}

func (s *store) add(litlen, dist, pos int) {
	s.litlen = append(s.litlen, uint16(litlen))
	s.dist = append(s.dist, uint16(dist))
	s.pos = append(s.pos, int32(pos))
}

func (s *store) appendStore(o *store) {
	s.litlen = append(s.litlen, o.litlen...)
	s.dist = append(s.dist, o.dist...)
	s.pos = append(s.pos, o.pos...)
}

// greedy parses [start, end) with lazy matching: a match is taken unless
// the next position has a better one. A 3-byte match far away counts as
// shorter (it costs about as much as its literals).
func greedy(data []byte, m *matches, start, end int) *store {
	score := func(l, d int) int {
		if l == minMatch && d > 1024 {
			return l - 1
		}
		return l
	}
	s := &store{}
	for i := start; i < end; {
		l, d := m.longest(i)
		l = min(l, end-i)
		if l >= minMatch && i+1 < end {
			l2, d2 := m.longest(i + 1)
			l2 = min(l2, end-i-1)
			if l2 >= minMatch && score(l2, d2) > score(l, d)+0 {
				s.add(int(data[i]), 0, i)
				i++
				continue
			}
		}
		if l < minMatch || score(l, d) < minMatch {
			s.add(int(data[i]), 0, i)
			i++
			continue
		}
		d = m.distFor(i, l)
		s.add(l, d, i)
		i += l
	}
	return s
}

// distFor returns the nearest distance of a match of length l at p.
func (m *matches) distFor(p, l int) int {
	i := p - m.start
	for _, q := range m.pairs[m.off[i]:m.off[i+1]] {
		if int(q.len) >= l {
			return int(q.dist)
		}
	}
	panic("deflate: no match of that length")
}

// stats are symbol counts of a parse.
type stats struct {
	lit  [288]float64
	dist [32]float64
}

func statsOf(s *store) *stats {
	st := &stats{}
	for i, ll := range s.litlen {
		if d := s.dist[i]; d == 0 {
			st.lit[ll]++
		} else {
			st.lit[257+int(lengthSym[ll])]++
			st.dist[distSym(int(d))]++
		}
	}
	st.lit[256] = 1
	return st
}

// costModel is the bit cost of each choice under some symbol statistics:
// the entropy of each symbol plus its extra bits.
type costModel struct {
	lit    [256]float64
	length [maxMatch + 1]float64
	dist   [30]float64
}

func entropy(counts []float64, out []float64) {
	sum := 0.0
	for _, c := range counts {
		sum += c
	}
	log2sum := math.Log2(sum)
	if sum == 0 {
		log2sum = math.Log2(float64(len(counts)))
	}
	for i, c := range counts {
		if c == 0 {
			out[i] = log2sum
		} else {
			out[i] = max(0, log2sum-math.Log2(c))
		}
	}
}

func newCostModel(st *stats) *costModel {
	var lit [288]float64
	var dist [32]float64
	entropy(st.lit[:], lit[:])
	entropy(st.dist[:], dist[:])
	cm := &costModel{}
	copy(cm.lit[:], lit[:256])
	for l := minMatch; l <= maxMatch; l++ {
		s := lengthSym[l]
		cm.length[l] = lit[257+int(s)] + float64(lengthExtra[s])
	}
	for d := range cm.dist {
		cm.dist[d] = dist[d] + float64(distExtra[d])
	}
	return cm
}

// parser holds the buffers of optimal parses.
type parser struct {
	cost   []float64
	length []uint16
	steps  []uint16
}

// optimal returns the cheapest parse of [start, end) under cm: a shortest
// path over positions where each edge is a literal or a match length with
// its nearest distance.
func (ps *parser) optimal(data []byte, m *matches, start, end int, cm *costModel) *store {
	n := end - start
	if cap(ps.cost) < n+1 {
		ps.cost = make([]float64, n+1)
		ps.length = make([]uint16, n+1)
	}
	cost, length := ps.cost[:n+1], ps.length[:n+1]
	for i := range cost {
		cost[i] = math.Inf(1)
	}
	cost[0] = 0
	for j := 0; j < n; j++ {
		c := cost[j]
		p := start + j
		if lc := c + cm.lit[data[p]]; lc < cost[j+1] {
			cost[j+1] = lc
			length[j+1] = 1
		}
		i := p - m.start
		l, limit := minMatch, n-j
		prs := m.pairs[m.off[i]:m.off[i+1]]
		if limit >= maxMatch && len(prs) > 0 && prs[len(prs)-1].len == maxMatch && i > 0 &&
			m.off[i] > m.off[i-1] && m.pairs[m.off[i]-1].len == maxMatch {
			// inside a long repeat (here and one before, the longest match
			// is the longest possible): only the longest match is tried,
			// shorter ones end where the repeat's later matches reach
			q := prs[len(prs)-1]
			if x := c + cm.dist[distSym(int(q.dist))] + cm.length[maxMatch]; x < cost[j+maxMatch] {
				cost[j+maxMatch] = x
				length[j+maxMatch] = maxMatch
			}
			continue
		}
		for _, q := range prs {
			dc := c + cm.dist[distSym(int(q.dist))]
			top := min(int(q.len), limit)
			for ; l <= top; l++ {
				if x := dc + cm.length[l]; x < cost[j+l] {
					cost[j+l] = x
					length[j+l] = uint16(l)
				}
			}
			if top == limit {
				break
			}
		}
	}
	steps := ps.steps[:0]
	for j := n; j > 0; j -= int(length[j]) {
		steps = append(steps, length[j])
	}
	ps.steps = steps
	s := &store{}
	p := start
	for k := len(steps) - 1; k >= 0; k-- {
		l := int(steps[k])
		if l == 1 {
			s.add(int(data[p]), 0, p)
		} else {
			s.add(l, m.distFor(p, l), p)
		}
		p += l
	}
	return s
}

// rng is a deterministic pseudo-random generator (multiply-with-carry,
// as Marsaglia's), so that the output never depends on a seed.
type rng struct{ z, w uint32 }

func (r *rng) next() uint32 {
	r.z = 36969*(r.z&65535) + (r.z >> 16)
	r.w = 18000*(r.w&65535) + (r.w >> 16)
	return r.z<<16 + r.w
}

func randomize(r *rng, f []float64) {
	for i := range f {
		if (r.next()>>4)%3 == 0 {
			f[i] = f[r.next()%uint32(len(f))]
		}
	}
}

// optimalBlock iterates optimal parses of [start, end): the first under
// the statistics st, each next one under the statistics of the previous,
// and returns the smallest as a dynamic block. When the
// cost stops changing, the statistics of the best are perturbed at random
// (deterministically) to leave the local minimum.
func (ps *parser) optimalBlock(data []byte, m *matches, start, end, iterations int, st *stats) *store {
	var best *store
	bestCost := math.Inf(1)
	var bestStats, lastStats *stats
	lastCost, lastRandom := -1.0, -1
	r := &rng{1, 2}
	for it := 0; it < iterations; it++ {
		s := ps.optimal(data, m, start, end, newCostModel(st))
		c := dynamicBits(s, 0, len(s.litlen))
		if c < bestCost {
			best, bestCost, bestStats = s, c, st
		}
		lastStats = st
		st = statsOf(s)
		if lastRandom >= 0 {
			for i := range st.lit {
				st.lit[i] = math.Floor(st.lit[i] + lastStats.lit[i]/2)
			}
			for i := range st.dist {
				st.dist[i] = math.Floor(st.dist[i] + lastStats.dist[i]/2)
			}
			st.lit[256] = 1
		}
		if it > 5 && c == lastCost {
			cp := *bestStats
			st = &cp
			randomize(r, st.lit[:])
			randomize(r, st.dist[:30])
			st.lit[256] = 1
			lastRandom = it
		}
		lastCost = c
	}
	if best == nil {
		best = ps.optimal(data, m, start, end, newCostModel(st))
	}
	return best
}
