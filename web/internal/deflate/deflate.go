// Package deflate writes gzip (RFC 1952) streams that are smaller than
// those of compress/gzip, for assets compressed once and served many times.
//
// The DEFLATE (RFC 1951) data is made the way zopfli makes it, written from
// the algorithm (no code of zopfli's):
//   - for each position, the nearest distance of every match length is
//     found once (hash chains of 3 and 4 bytes over the 32 KB window);
//   - a greedy (lazy) parse is split into blocks where separate Huffman
//     codes pay for their headers: the largest block is cut where its two
//     halves are smallest, until no cut gains;
//   - each block is parsed optimally, as a shortest path over positions
//     whose edges are a literal or a match length at its nearest distance,
//     costing the entropy of its symbol in the previous parse plus its
//     extra bits (the greedy parse's first), iterated; when the size stops
//     changing, the best statistics are perturbed at random (with a fixed
//     seed). Costs from the previous parse's code lengths instead of its
//     entropies gave 0.3 % more on the guard;
//   - the optimal parse is split again, kept if that is smaller;
//   - each block is written as the cheapest of stored, fixed and dynamic,
//     with length-limited Huffman codes (package-merge: 15 bits, 7 for the
//     code-length code), the run-length codes 16/17/18 chosen for the
//     smallest header, and of the code for the counts and the code for
//     counts smoothed into runs, the one giving the smaller block.
//
// The same input always gives the same bytes on one architecture (the
// costs are floats, which a fused multiply-add, as on arm64, may round
// otherwise).
package deflate

import (
	"encoding/binary"
	"hash/crc32"
)

// masterSize is the size of the parts compressed one after the other (each
// with the window of the previous): it bounds the memory of the matches. A
// variable for the tests.
var masterSize = 1 << 20

// maxBlocks bounds the blocks of one part; the guard's split into fewer
// (it is 655,941 bytes so, 657,749 with zopfli's bound of 15).
const maxBlocks = 200

// Version changes whenever the encoding of some input changes (TestVersion
// fails until it does): a cache of
// encodings names it so that an improved encoder is not shadowed by what
// an older one kept.
const Version = 1

// Gzip returns data as a gzip member with no name and modification time 0
// (as compress/gzip writes it with a zero Header), its DEFLATE data made
// with the given number of optimal-parse iterations per block (at least 1).
func Gzip(data []byte, iterations int) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255}
	out = append(out, Deflate(data, iterations)...)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(out, uint32(len(data)))
}

// Deflate returns the raw DEFLATE encoding of data (see [Gzip]).
func Deflate(data []byte, iterations int) []byte {
	iterations = max(1, iterations)
	w := &bitWriter{}
	if len(data) == 0 {
		w.bits(1, 1) // final
		w.bits(1, 2) // fixed
		w.bits(0, 7) // end of block
		w.align()
		return w.out
	}
	for start := 0; start < len(data); start += masterSize {
		end := min(len(data), start+masterSize)
		part(w, data, start, end, iterations, end == len(data))
	}
	w.align()
	return w.out
}

// part writes the blocks of data[start:end].
func part(w *bitWriter, data []byte, start, end, iterations int, final bool) {
	m := findMatches(data, start, end)
	g := greedy(data, m, start, end)
	all, points := optimizeBlocks(data, m, g, splitPoints(g, end, maxBlocks), end, iterations)
	if again := splitPoints(all, end, maxBlocks); splitCost(all, again, end) < splitCost(all, points, end) {
		points = again
	}
	n := len(all.litlen)
	eachBlock(all, points, end, func(a, b, from, to int) {
		writeBlock(w, data, all, a, b, from, to, final && b == n)
	})
}

// eachBlock calls fn with each block of s cut at the symbol indices
// points: its symbols [a,b) and the bytes [from,to) they stand for (to is
// end for the last).
func eachBlock(s *store, points []int, end int, fn func(a, b, from, to int)) {
	n := len(s.litlen)
	a := 0
	for k := 0; k <= len(points); k++ {
		b := n
		if k < len(points) {
			b = points[k]
		}
		to := end
		if b < n {
			to = int(s.pos[b])
		}
		fn(a, b, int(s.pos[a]), to)
		a = b
	}
}

// optimizeBlocks parses optimally each block of s (cut at the symbol
// indices points), starting from the statistics of s in that block, and
// returns the parse and its block boundaries.
func optimizeBlocks(data []byte, m *matches, s *store, points []int, end, iterations int) (*store, []int) {
	all := &store{}
	var out []int
	ps := &parser{}
	first := true
	eachBlock(s, points, end, func(a, b, from, to int) {
		if !first {
			out = append(out, len(all.litlen))
		}
		first = false
		init := statsOf(&store{litlen: s.litlen[a:b], dist: s.dist[a:b]})
		all.appendStore(ps.optimalBlock(data, m, from, to, iterations, init))
	})
	return all, out
}

func splitCost(s *store, points []int, end int) float64 {
	total := 0.0
	eachBlock(s, points, end, func(a, b, from, to int) {
		total += blockBits(s, a, b, to-from)
	})
	return total
}
