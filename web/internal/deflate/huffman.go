package deflate

import (
	"math/bits"
	"slices"
)

// Symbol tables of RFC 1951 §3.2.5.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// clOrder is the order in which the code-length code's lengths are sent.
	clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
	// lengthSym maps a match length (3..258) to its literal/length symbol
	// minus 257.
	lengthSym [259]uint8
	// litExtra is the number of extra bits of each literal/length symbol.
	litExtra [288]uint8
	// fixedLit and fixedDist are the code lengths of the fixed code (§3.2.6).
	fixedLit  [288]uint8
	fixedDist [32]uint8
)

func init() {
	for s := 0; s < 29; s++ {
		top := int(lengthBase[s]) + 1<<lengthExtra[s]
		if s == 28 {
			top = 259
		}
		for l := int(lengthBase[s]); l < top && l < 259; l++ {
			lengthSym[l] = uint8(s)
		}
		litExtra[257+s] = lengthExtra[s]
	}
	for i := range fixedLit {
		switch {
		case i < 144:
			fixedLit[i] = 8
		case i < 256:
			fixedLit[i] = 9
		case i < 280:
			fixedLit[i] = 7
		default:
			fixedLit[i] = 8
		}
	}
	for i := range fixedDist {
		fixedDist[i] = 5
	}
}

// distSym returns the distance symbol of d (1..32768).
func distSym(d int) int {
	if d <= 4 {
		return d - 1
	}
	x := uint(d - 1)
	nb := bits.Len(x) - 1
	return 2*nb + int(x>>(nb-1)&1)
}

// limitedLengths sets lens[s] to the length of symbol s in an optimal
// prefix code for freq whose codes are at most maxBits long. Huffman's
// construction (two queues over the sorted weights) gives it when no code
// is longer; else package-merge (Larmore and Hirschberg) does: at each of
// maxBits levels the leaves are merged with the pairs of the level below,
// and a symbol's length is the number of levels whose first 2n-2 items
// hold it. Symbols of frequency 0 get length 0; a single used symbol gets
// length 1.
func limitedLengths(freq []int, maxBits int, lens []uint8) {
	clear(lens[:len(freq)])
	// sorted by weight, then symbol: keys weight<<9 | symbol
	var keys [288]uint64
	k := keys[:0]
	for s, f := range freq {
		if f > 0 {
			k = append(k, uint64(f)<<9|uint64(s))
		}
	}
	n := len(k)
	if n == 0 {
		return
	}
	if n == 1 {
		lens[k[0]&511] = 1
		return
	}
	slices.Sort(k)
	var buf [288]leaf
	leaves := buf[:n]
	for i, x := range k {
		leaves[i] = leaf{int(x >> 9), int(x & 511)}
	}
	if huffmanLengths(leaves, maxBits, lens) {
		return
	}
	packageMerge(leaves, maxBits, lens)
}

type leaf struct{ w, sym int }

// huffmanLengths sets the lengths of Huffman's code for the sorted leaves
// and reports whether none is longer than maxBits.
func huffmanLengths(leaves []leaf, maxBits int, lens []uint8) bool {
	n := len(leaves)
	var weight, parent, depth [2 * 288]int
	for i, l := range leaves {
		weight[i] = l.w
	}
	li, ni := 0, n // fronts of the leaf and node queues
	pick := func(k int) int {
		if li < n && (ni >= k || weight[li] <= weight[ni]) {
			li++
			return li - 1
		}
		ni++
		return ni - 1
	}
	for k := n; k < 2*n-1; k++ {
		a := pick(k)
		b := pick(k)
		parent[a], parent[b] = k, k
		weight[k] = weight[a] + weight[b]
	}
	depth[2*n-2] = 0
	for k := 2*n - 3; k >= 0; k-- {
		depth[k] = depth[parent[k]] + 1
		if k < n && depth[k] > maxBits {
			return false
		}
	}
	for i, l := range leaves {
		lens[l.sym] = uint8(depth[i])
	}
	return true
}

func packageMerge(leaves []leaf, maxBits int, lens []uint8) {
	n := len(leaves)
	// An item is a leaf (index into leaves) or a package (-1).
	type item struct{ w, leaf int }
	levels := make([][]item, maxBits)
	prev := make([]item, n)
	for i, l := range leaves {
		prev[i] = item{l.w, i}
	}
	levels[0] = prev
	for j := 1; j < maxBits; j++ {
		cur := make([]item, 0, n+len(prev)/2)
		li, pi := 0, 0
		for li < n || pi+1 < len(prev) {
			if pi+1 < len(prev) && (li == n || prev[pi].w+prev[pi+1].w < leaves[li].w) {
				cur = append(cur, item{prev[pi].w + prev[pi+1].w, -1})
				pi += 2
			} else {
				cur = append(cur, item{leaves[li].w, li})
				li++
			}
		}
		levels[j] = cur
		prev = cur
	}
	k := 2*n - 2
	for j := maxBits - 1; j >= 0; j-- {
		packages := 0
		for _, it := range levels[j][:min(k, len(levels[j]))] {
			if it.leaf >= 0 {
				lens[leaves[it.leaf].sym]++
			} else {
				packages++
			}
		}
		k = 2 * packages
	}
}

// canonical returns the codes of RFC 1951 §3.2.2 for the lengths lens,
// bit-reversed for writing least significant bit first.
func canonical(lens []uint8) []uint16 {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]int
	code := 0
	for b := 1; b < 16; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	codes := make([]uint16, len(lens))
	for s, l := range lens {
		if l > 0 {
			codes[s] = bits.Reverse16(uint16(next[l])) >> (16 - l)
			next[l]++
		}
	}
	return codes
}

// bitWriter writes a DEFLATE bit stream, least significant bit first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// align pads with zero bits to a byte boundary.
func (w *bitWriter) align() {
	if w.n > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.n = 0, 0
	}
}
