package guardrail

import "math/bits"

// le64 returns the eight bytes at b as a number, the first in the lowest
// byte whatever the machine (read in one load where it is little-endian).
func le64(b *[8]byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// tailBytes returns the bytes of t from i, fewer than eight, as prose reads
// eight at once, with '0' in place of those past its end: the last eight
// bytes of t (which holds eight or more), shifted.
func tailBytes(t string, i int) uint64 {
	past := uint(i+8-len(t)) * 8 & 63 // bits, 8 to 56
	return le64at(t, len(t)-8)>>past | 0x3030303030303030<<((64-past)&63)
}

// digitBytes returns how many of the first seven bytes of x (in the order
// they stand in the text, the first in the lowest byte) are ASCII digits
// before the first that is not: 7 for seven digits or more. It tests them
// all at once, as asciiLetters does: xor-ed with '0', a digit reads 0–9;
// adding 0x76 sets the high bit of a byte from 10 to 0x89, and or-ing in
// the byte itself that of one from 0x80 up. A carry out of a byte comes
// only from one that is no digit, and spoils only the bytes after it, past
// the count. The eighth byte is taken for no digit, which keeps the count
// below eight and spares TrailingZeros64 a word with no bit set.
func digitBytes(x uint64) int {
	v := x ^ '0'*ones
	other := ((v + 0x76*ones) | v) & (0x80 * ones)
	return bits.TrailingZeros64(other|1<<63) >> 3
}

// nonDigits returns x, eight bytes of a text, with the high bit of each byte
// that is no ASCII digit set and every other bit clear. Unlike digitBytes,
// it tells each byte exactly: xor-ed with '0', a digit reads 0–9; adding
// 0x76 to the low seven bits sets the high bit of a byte from 10 up, with
// no carry out of any byte, and or-ing in the byte itself that of one from
// 0x80 up.
func nonDigits(x uint64) uint64 {
	v := x ^ '0'*ones
	return ((v&(0x7F*ones) + 0x76*ones) | v) & (0x80 * ones)
}

// le64at returns the eight bytes of t from i as le64 reads them: one test
// of bounds (slicing the eight bytes out, which panics unless i+8 <=
// len(t)), then one load, into which the compiler combines the eight byte
// loads of constant index.
func le64at(t string, i int) uint64 {
	b := t[i : i+8]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// put64 writes x to b, the lowest byte first (one store where the machine
// is little-endian).
func put64(b *[8]byte, x uint64) {
	b[0], b[1], b[2], b[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	b[4], b[5], b[6], b[7] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
}
