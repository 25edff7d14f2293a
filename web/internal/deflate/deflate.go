// Package deflate writes gzip (RFC 1952) streams that are smaller than
// those of compress/gzip, for assets compressed once and served many times.
//
// The DEFLATE (RFC 1951) data is made the way zopfli makes it: for each
// position, the nearest distance of every match length is found once (hash
// chains over the 32 KB window); the input is split into blocks where a
// greedy parse says that separate Huffman codes pay for their headers; each
// block is parsed optimally (a shortest path over positions, whose edge
// costs are the entropies of the symbols in the previous parse, iterated
// and perturbed at random, deterministically, when stuck); the optimal
// parse is split again if that is smaller; and each block is written as
// the cheapest of stored, fixed and dynamic, with length-limited Huffman
// codes (package-merge: 15 bits, 7 for the code-length code) and the
// run-length codes 16/17/18 chosen for the smallest header. It is written
// from the algorithm, with no code of zopfli's. The same input always gives
// the same bytes.
package deflate

import (
	"encoding/binary"
	"hash/crc32"
)

// masterSize is the size of the parts compressed one after the other (each
// with the window of the previous): it bounds the memory of the matches.
const masterSize = 1 << 20

// maxBlocks bounds the blocks of one part.
const maxBlocks = 15

// DefaultIterations is the number of optimal parses per block that
// [Gzip] callers use unless they measure otherwise.
const DefaultIterations = 5

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
	bounds := []int{start}
	for _, p := range splitPoints(g, end, maxBlocks) {
		bounds = append(bounds, int(g.pos[p]))
	}
	bounds = append(bounds, end)

	all := &store{}
	var points []int
	ps := &parser{}
	for k := 0; k+1 < len(bounds); k++ {
		if k > 0 {
			points = append(points, len(all.litlen))
		}
		all.appendStore(ps.optimalBlock(data, m, bounds[k], bounds[k+1], iterations))
	}
	if again := splitPoints(all, end, maxBlocks); splitCost(all, again, end) < splitCost(all, points, end) {
		points = again
	}
	n := len(all.litlen)
	a := 0
	for k := 0; k <= len(points); k++ {
		b := n
		if k < len(points) {
			b = points[k]
		}
		to := end
		if b < n {
			to = int(all.pos[b])
		}
		writeBlock(w, data, all, a, b, int(all.pos[a]), to, final && b == n)
		a = b
	}
}

func splitCost(s *store, points []int, end int) float64 {
	n := len(s.litlen)
	total := 0.0
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
		total += blockBits(s, a, b, to-int(s.pos[a]))
		a = b
	}
	return total
}
