package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// folded is a text with every rune folded to the form the scanner reads
// (SPEC §3 rule 5: no bypass), and where each folded rune stands in the
// original text. Runes that carry nothing (zero-width spaces, soft hyphens)
// are dropped, so "3\u200b99" reads as "399".
//
// Most runes are ASCII bytes that follow the rune before them, and their
// place is implied: one byte after it. Only the others (a rune of several
// bytes, any byte that is not ASCII, a rune after a dropped one) are
// listed, in moved, so folding costs 4 bytes per rune plus 9 per moved
// rune. Offsets are 32-bit, so a text may be up to 2 GiB long.
type folded struct {
	src   string // the original text, when it is a string (for Extract)
	r     []rune
	moved []movedRune // in order of at
	next  int         // byte offset after the last rune kept
	last  int         // where place last stopped in moved
	// The runes lo < i < hi, between two moved runes, are each one byte
	// at offset i+shift: place's answer without a search, for the run it
	// last looked in.
	lo, hi, shift int
}

// movedRune is the place of a rune whose place is not implied: rune at is
// read from width bytes at byte offset off of the original.
type movedRune struct {
	at, off int32
	width   uint8
}

// add appends a folded rune read from n bytes at byte offset at.
func (f *folded) add(r rune, at, n int) {
	if at != f.next || n != 1 || r >= 0x80 {
		f.moved = append(f.moved, movedRune{at: int32(len(f.r)), off: int32(at), width: uint8(n)})
	}
	f.r = append(f.r, r)
	f.next = at + n
}

// place returns the byte span of rune i in the original.
func (f *folded) place(i int) (start, end int) {
	if f.lo < i && i < f.hi {
		return i + f.shift, i + f.shift + 1 // in the run it looked in last
	}
	// k: how many moved runes stand at or before i. The scanner asks
	// mostly in order, so look on from where the last call stopped;
	// going back, search.
	k := f.last
	if k > len(f.moved) || k > 0 && int(f.moved[k-1].at) > i {
		lo, hi := 0, min(k, len(f.moved))
		for lo < hi {
			if h := int(uint(lo+hi) >> 1); int(f.moved[h].at) <= i {
				lo = h + 1
			} else {
				hi = h
			}
		}
		k = lo
	}
	for k < len(f.moved) && int(f.moved[k].at) <= i {
		k++
	}
	f.last = k
	// Remember the run of runes in place around i. It ends at the next
	// moved rune, or at the end of the text so far: in a stream a rune
	// folded later may be moved, but only after every rune folded before.
	f.lo, f.hi, f.shift = -1, len(f.r), 0
	if k < len(f.moved) {
		f.hi = int(f.moved[k].at)
	}
	if k == 0 {
		return i, i + 1
	}
	m := f.moved[k-1]
	f.lo, f.shift = int(m.at), int(m.off)+int(m.width)-int(m.at)-1
	if int(m.at) == i {
		return int(m.off), int(m.off) + int(m.width)
	}
	start = i + f.shift
	return start, start + 1
}

// inPlace returns how many runes from the start each stand as the one
// byte at their own index.
func (f *folded) inPlace() int {
	if len(f.moved) > 0 {
		return int(f.moved[0].at)
	}
	return len(f.r)
}

// start returns the byte offset of rune i in the original.
func (f *folded) start(i int) int { s, _ := f.place(i); return s }

// appendBytes folds the complete runes of p (whose first byte is at offset
// base of the original text) and returns how many bytes it consumed. When
// atEOF is false a trailing incomplete UTF-8 sequence is left unconsumed, so
// that a rune split across two stream deltas is read the same as whole.
func (f *folded) appendBytes(p []byte, base int, atEOF bool) int {
	i := 0
	for i < len(p) {
		if base+i == f.next && p[i] < 0x80 {
			// A run of ASCII in place: nothing to record.
			r := f.r
			for ; i < len(p) && p[i] < 0x80; i++ {
				r = append(r, rune(p[i]))
			}
			f.r, f.next = r, base+i
			continue
		}
		if !atEOF && !utf8.FullRune(p[i:]) {
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		if fr, keep := foldRune(r); keep {
			f.add(fr, base+i, size)
		}
		i += size
	}
	return i
}

func foldText(s string) *folded {
	f := new(folded)
	f.fold(s)
	return f
}

// fold makes f the folded form of s, reusing f's buffers when they are
// large enough.
func (f *folded) fold(s string) {
	r, moved := f.r[:0], f.moved[:0]
	if cap(r) < len(s) {
		r = make([]rune, 0, len(s))
	}
	*f = folded{src: s}
	r = r[:len(s)] // a byte folds to at most one rune
	n, next := 0, 0
	for i := 0; i < len(s); {
		if i == next {
			// A run of ASCII right after the last rune kept is read as
			// it is, and its place is implied: eight bytes at a time,
			// then byte by byte.
			for ; i+8 <= len(s) && n+8 <= len(r); i, n = i+8, n+8 {
				b := s[i : i+8]
				if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] >= 0x80 {
					break
				}
				d := r[n : n+8 : n+8]
				d[0], d[1], d[2], d[3] = rune(b[0]), rune(b[1]), rune(b[2]), rune(b[3])
				d[4], d[5], d[6], d[7] = rune(b[4]), rune(b[5]), rune(b[6]), rune(b[7])
			}
			for ; i < len(s) && s[i] < 0x80; i++ {
				r[n] = rune(s[i])
				n++
			}
			next = i
			if i == len(s) {
				break
			}
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c, keep := foldRune(c); keep {
			moved = append(moved, movedRune{at: int32(n), off: int32(i), width: uint8(size)})
			r[n] = c
			n++
			next = i + size
		}
		i += size
	}
	f.r, f.moved, f.next = r[:n], moved, next
}

// foldRune maps a rune to what the scanner reads: every decimal digit of any
// script and every superscript or subscript digit to 0–9, every kind of
// space to ' ', dashes and the minus sign to '-', full-width ASCII to ASCII.
// keep is false for runes that are dropped.
func foldRune(r rune) (rune, bool) {
	if r < 0x80 || r >= 0xC0 && r < 0x660 {
		return r, true // ASCII, and the letters from À up to the first digits beyond ASCII
	}
	switch r {
	case 0x00A0, 0x1680, 0x2007, 0x2009, 0x202F, 0x205F, 0x3000,
		0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2008, 0x200A:
		return ' ', true
	case 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E:
		return 0, false
	case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2212, 0xFE58, 0xFE63, 0xFF0D:
		return '-', true
	case 0x2044, 0x2215: // fraction slash, division slash
		return '/', true
	case 0x066A: // Arabic percent sign
		return '%', true
	case 0x066B: // Arabic decimal separator
		return '.', true
	case 0x066C: // Arabic thousands separator
		return ',', true
	case 0x00B9:
		return '1', true
	case 0x00B2:
		return '2', true
	case 0x00B3:
		return '3', true
	case 0x2070:
		return '0', true
	}
	switch {
	case r >= 0x2074 && r <= 0x2079: // superscript 4–9
		return '4' + (r - 0x2074), true
	case r >= 0x2080 && r <= 0x2089: // subscript 0–9
		return '0' + (r - 0x2080), true
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return r - 0xFEE0, true
	}
	if d, ok := digitValue(r); ok {
		return '0' + d, true
	}
	return r, true
}

// digitValue returns the value of a Unicode decimal digit (category Nd).
// Every Nd range in the Unicode tables is a run of whole 0–9 sets, so the
// value is the distance from the start of the range, modulo 10.
func digitValue(r rune) (rune, bool) {
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return (r - lo) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return (r - lo) % 10, true
		}
	}
	return 0, false
}
