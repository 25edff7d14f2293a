package deflate

import "math"

// histogram counts the symbols of s[a:b), with one end-of-block symbol.
func histogram(s *store, a, b int) (lit [288]int, dist [32]int) {
	for i := a; i < b; i++ {
		if d := s.dist[i]; d == 0 {
			lit[s.litlen[i]]++
		} else {
			lit[257+int(lengthSym[s.litlen[i]])]++
			dist[distSym(int(d))]++
		}
	}
	lit[256] = 1
	return lit, dist
}

// dataBits is the size of symbols counted in lit and dist under the given
// code lengths, extra bits included.
func dataBits(lit *[288]int, dist *[32]int, litLens, distLens []uint8) int {
	n := 0
	for s, c := range lit {
		if c > 0 {
			n += c * (int(litLens[s]) + int(litExtra[s]))
		}
	}
	for s, c := range dist[:30] {
		if c > 0 {
			n += c * (int(distLens[s]) + int(distExtra[s]))
		}
	}
	return n
}

// dynTrees are the code lengths of a dynamic block and how its header
// sends them.
type dynTrees struct {
	lit         [288]uint8
	dist        [32]uint8
	hlit, hdist int
	items       []clItem
	cl          [19]uint8
	hclen       int
	headerBits  int
	bits        int // headerBits and the data's
}

// clItem is one symbol of the code-length code and its extra bits' value.
type clItem struct{ sym, extra uint8 }

var clExtraBits = [19]uint8{16: 2, 17: 3, 18: 7}

// buildTrees returns the code lengths for the counts lit and dist, and the
// size of the header sending them; its items too when withItems.
//
// Two codes are tried: the optimal code for the counts, and the optimal
// code for counts smoothed for the run-length codes (see smoothForRuns),
// whose header may be enough smaller; the smaller block wins.
func buildTrees(lit *[288]int, dist *[32]int, withItems bool) *dynTrees {
	t := treesFor(lit, dist, withItems)
	t.bits = t.headerBits + dataBits(lit, dist, t.lit[:], t.dist[:])
	sl, sd := *lit, *dist
	smoothForRuns(sl[:286])
	smoothForRuns(sd[:30])
	u := treesFor(&sl, &sd, withItems)
	u.bits = u.headerBits + dataBits(lit, dist, u.lit[:], u.dist[:])
	if u.bits < t.bits {
		return u
	}
	return t
}

// smoothForRuns replaces each stretch of at least four counts that are all
// close to the stretch's mean (and not already a run of equal counts, or
// of zeros, that the run-length codes send well) with that mean, so that
// the symbols get equal code lengths that code 16 repeats. Used symbols
// keep a count of at least 1.
func smoothForRuns(c []int) {
	n := len(c)
	for n > 0 && c[n-1] == 0 {
		n--
	}
	// runs that are good as they are: 5+ zeros, 7+ equal counts
	keep := make([]bool, n)
	for i := 0; i < n; {
		j := i
		for j < n && c[j] == c[i] {
			j++
		}
		if (c[i] == 0 && j-i >= 5) || (c[i] != 0 && j-i >= 7) {
			for k := i; k < j; k++ {
				keep[k] = true
			}
		}
		i = j
	}
	for i := 0; i < n; {
		if keep[i] {
			i++
			continue
		}
		// the longest stretch from i whose counts stay within 4 of the
		// mean of the first four (or of what is left)
		ref := 0
		m := min(4, n-i)
		for k := i; k < i+m; k++ {
			ref += c[k]
		}
		ref = (ref + m/2) / m
		j, sum := i, 0
		for j < n && !keep[j] && abs(c[j]-ref) < 4 {
			sum += c[j]
			j++
		}
		if j-i >= 4 || (j-i >= 3 && sum == 0) {
			v := (sum + (j-i)/2) / (j - i)
			if sum > 0 {
				v = max(v, 1)
			}
			for k := i; k < j; k++ {
				c[k] = v
			}
			i = j
		} else {
			i++
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func treesFor(lit *[288]int, dist *[32]int, withItems bool) *dynTrees {
	t := &dynTrees{}
	limitedLengths(lit[:], 15, t.lit[:])
	limitedLengths(dist[:30], 15, t.dist[:])
	// Some inflaters reject a distance code of fewer than two codes.
	used := 0
	for _, l := range t.dist[:30] {
		if l > 0 {
			used++
		}
	}
	switch used {
	case 0:
		t.dist[0], t.dist[1] = 1, 1
	case 1:
		if t.dist[0] == 0 {
			t.dist[0] = 1
		} else {
			t.dist[1] = 1
		}
	}
	t.hlit, t.hdist = 286, 30
	for t.hlit > 257 && t.lit[t.hlit-1] == 0 {
		t.hlit--
	}
	for t.hdist > 1 && t.dist[t.hdist-1] == 0 {
		t.hdist--
	}
	all := make([]uint8, 0, t.hlit+t.hdist)
	all = append(append(all, t.lit[:t.hlit]...), t.dist[:t.hdist]...)
	t.headerBits = math.MaxInt
	var scratch [286 + 30]clItem
	best := 0
	for flags := 0; flags < 8; flags++ {
		items := rleLengths(scratch[:0], all, flags&1 != 0, flags&2 != 0, flags&4 != 0)
		var cl [19]uint8
		hclen, n := clCode(items, &cl)
		if n < t.headerBits {
			best, t.cl, t.hclen, t.headerBits = flags, cl, hclen, n
		}
	}
	if withItems {
		t.items = rleLengths(nil, all, best&1 != 0, best&2 != 0, best&4 != 0)
	}
	return t
}

// rleLengths run-length encodes code lengths with the code-length code:
// 16 repeats the previous length 3-6 times, 17 and 18 send 3-10 and
// 11-138 zeros; each may be left unused. The items are appended to items.
func rleLengths(items []clItem, all []uint8, use16, use17, use18 bool) []clItem {
	for i := 0; i < len(all); {
		v := all[i]
		r := 1
		for i+r < len(all) && all[i+r] == v {
			r++
		}
		if v == 0 {
			for r >= 3 {
				if use18 && r >= 11 {
					k := min(r, 138)
					items = append(items, clItem{18, uint8(k - 11)})
					r, i = r-k, i+k
				} else if use17 {
					k := min(r, 10)
					items = append(items, clItem{17, uint8(k - 3)})
					r, i = r-k, i+k
				} else {
					break
				}
			}
		} else if use16 && r >= 4 {
			items = append(items, clItem{v, 0})
			r, i = r-1, i+1
			for r >= 3 {
				k := min(r, 6)
				items = append(items, clItem{16, uint8(k - 3)})
				r, i = r-k, i+k
			}
		}
		for ; r > 0; r-- {
			items = append(items, clItem{v, 0})
			i++
		}
	}
	return items
}

// clCode sets cl to the code-length code of items and returns the number
// of its lengths sent (HCLEN+4) and the header's size in bits after the
// block type.
func clCode(items []clItem, cl *[19]uint8) (hclen, n int) {
	var freq [19]int
	for _, it := range items {
		freq[it.sym]++
	}
	limitedLengths(freq[:], 7, cl[:])
	used := 0
	for _, l := range cl {
		if l > 0 {
			used++
		}
	}
	if used == 1 { // a complete code, as zlib requires of this one
		for s := range cl {
			if cl[s] == 0 {
				cl[s] = 1
				break
			}
		}
	}
	hclen = 19
	for hclen > 4 && cl[clOrder[hclen-1]] == 0 {
		hclen--
	}
	n = 5 + 5 + 4 + 3*hclen
	for _, it := range items {
		n += int(cl[it.sym]) + int(clExtraBits[it.sym])
	}
	return hclen, n
}

func dynamicBits(s *store, a, b int) float64 {
	lit, dist := histogram(s, a, b)
	return float64(3 + buildTrees(&lit, &dist, false).bits)
}

func storedBits(n int) float64 {
	chunks := max(1, (n+65534)/65535)
	return float64(chunks*(3+5+32) + 8*n)
}

// blockBits is the size of s[a:b) in the cheapest block type, where the
// symbols cover nbytes of input.
func blockBits(s *store, a, b, nbytes int) float64 {
	lit, dist := histogram(s, a, b)
	dyn := 3 + buildTrees(&lit, &dist, false).bits
	fix := 3 + dataBits(&lit, &dist, fixedLit[:], fixedDist[:])
	return min(storedBits(nbytes), float64(min(dyn, fix)))
}

// writeBlock writes s[a:b), covering data[from:to], as the cheapest of a
// stored, fixed or dynamic block.
func writeBlock(w *bitWriter, data []byte, s *store, a, b, from, to int, final bool) {
	lit, dist := histogram(s, a, b)
	t := buildTrees(&lit, &dist, true)
	dyn := 3 + t.bits
	fix := 3 + dataBits(&lit, &dist, fixedLit[:], fixedDist[:])
	stored := storedBits(to - from)
	fin := uint64(0)
	if final {
		fin = 1
	}
	switch {
	case stored < float64(min(dyn, fix)):
		for first := true; first || from < to; first = false {
			n := min(to-from, 65535)
			last := uint64(0)
			if from+n == to {
				last = fin
			}
			w.bits(last, 1)
			w.bits(0, 2)
			w.align()
			w.bits(uint64(n), 16)
			w.bits(uint64(^uint16(n)), 16)
			w.out = append(w.out, data[from:from+n]...)
			from += n
		}
	case fix <= dyn:
		w.bits(fin, 1)
		w.bits(1, 2)
		writeSymbols(w, s, a, b, fixedLit[:], fixedDist[:])
	default:
		w.bits(fin, 1)
		w.bits(2, 2)
		w.bits(uint64(t.hlit-257), 5)
		w.bits(uint64(t.hdist-1), 5)
		w.bits(uint64(t.hclen-4), 4)
		for _, s := range clOrder[:t.hclen] {
			w.bits(uint64(t.cl[s]), 3)
		}
		clCodes := canonical(t.cl[:])
		for _, it := range t.items {
			w.bits(uint64(clCodes[it.sym]), uint(t.cl[it.sym]))
			if e := clExtraBits[it.sym]; e > 0 {
				w.bits(uint64(it.extra), uint(e))
			}
		}
		writeSymbols(w, s, a, b, t.lit[:], t.dist[:])
	}
}

func writeSymbols(w *bitWriter, s *store, a, b int, litLens, distLens []uint8) {
	lc, dc := canonical(litLens), canonical(distLens)
	for i := a; i < b; i++ {
		ll, d := int(s.litlen[i]), int(s.dist[i])
		if d == 0 {
			w.bits(uint64(lc[ll]), uint(litLens[ll]))
			continue
		}
		ls := int(lengthSym[ll])
		w.bits(uint64(lc[257+ls]), uint(litLens[257+ls]))
		w.bits(uint64(ll-int(lengthBase[ls])), uint(lengthExtra[ls]))
		ds := distSym(d)
		w.bits(uint64(dc[ds]), uint(distLens[ds]))
		w.bits(uint64(d-int(distBase[ds])), uint(distExtra[ds]))
	}
	w.bits(uint64(lc[256]), uint(litLens[256]))
}

// splitPoints returns where to split s (symbol indices, increasing) into
// at most maxBlocks blocks: the largest block not yet settled is cut at the
// point minimising the size of its two halves, when that is smaller than
// the whole, until no block gains from a cut. end is the input position
// after the last symbol.
func splitPoints(s *store, end, maxBlocks int) []int {
	n := len(s.litlen)
	bytePos := func(i int) int {
		if i == n {
			return end
		}
		return int(s.pos[i])
	}
	cost := func(a, b int) float64 { return blockBits(s, a, b, bytePos(b)-bytePos(a)) }
	var points []int
	done := map[int]bool{}
	a, b := 0, n
	for n >= 10 && len(points)+1 < maxBlocks {
		p, c := findMinimum(func(i int) float64 { return cost(a, i) + cost(i, b) }, a+1, b)
		if c >= cost(a, b) || p == a+1 || p == b {
			done[a] = true
		} else {
			points = insertSorted(points, p)
		}
		// the largest block not settled
		a, b = -1, -1
		prev := 0
		for k := 0; k <= len(points); k++ {
			e := n
			if k < len(points) {
				e = points[k]
			}
			if !done[prev] && e-prev >= 10 && (a < 0 || e-prev > b-a) {
				a, b = prev, e
			}
			prev = e
		}
		if a < 0 {
			break
		}
	}
	return points
}

func insertSorted(p []int, x int) []int {
	i := 0
	for i < len(p) && p[i] < x {
		i++
	}
	p = append(p, 0)
	copy(p[i+1:], p[i:])
	p[i] = x
	return p
}

// findMinimum returns a position in [lo, hi) where f is smallest, and f
// there: exhaustively for a short range (under 16: up to 1024, as zopfli
// does, gave 50 bytes less on the guard for a third more time), else by
// narrowing around the best
// of nine evenly spaced samples (f is assumed roughly unimodal).
func findMinimum(f func(int) float64, lo, hi int) (int, float64) {
	if hi-lo < 16 {
		best, bestV := lo, math.Inf(1)
		for i := lo; i < hi; i++ {
			if v := f(i); v < bestV {
				best, bestV = i, v
			}
		}
		return best, bestV
	}
	const samples = 9
	pos, last := lo, math.Inf(1)
	for hi-lo > samples {
		var p [samples]int
		var v [samples]float64
		bi := 0
		for i := range p {
			p[i] = lo + (i+1)*((hi-lo)/(samples+1))
			v[i] = f(p[i])
			if v[i] < v[bi] {
				bi = i
			}
		}
		if v[bi] > last {
			break
		}
		if bi > 0 {
			lo = p[bi-1]
		}
		if bi < samples-1 {
			hi = p[bi+1]
		}
		pos, last = p[bi], v[bi]
	}
	return pos, last
}
