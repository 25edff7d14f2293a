package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// folded is a text with every rune folded to the form the scanner reads
// (SPEC §3 rule 5: no bypass), as UTF-8, and where each folded byte stands
// in the original text. Runes that carry nothing (zero-width spaces, soft
// hyphens) are dropped, so "3\u200b99" reads as "399". Every rune that
// folds to another folds to one ASCII byte.
//
// Most texts fold to themselves: then b is empty and the scanner reads src
// as it is. Otherwise b holds the folded bytes, and the runes that fold to
// another or are dropped are listed in moved; every other byte of b stands
// in the original shifted by the bytes those runes gained or lost before
// it. Offsets are 32-bit, so a text may be up to 2 GiB long.
type folded struct {
	src   string      // the original text (so far, in a stream)
	b     textBuf     // the folded text, when it is not src (only appended to: text makes a string of it without a copy natively)
	own   bool        // b holds the folded text (always in a stream on the general path)
	moved []movedRune // in order of at
	last  int         // where place last stopped in moved
	// The bytes lo < i < hi, between two moved runes, each stand at
	// offset i+shift: place's answer without a search, for the run it
	// last looked in.
	lo, hi, shift int
}

// movedRune is a rune of the original, width bytes at byte offset off,
// that folds to the one byte at offset at of the folded text, or that is
// dropped (the bytes from at on stand after it).
type movedRune struct {
	at, off int32
	width   uint8
	drop    bool
}

// text returns the folded text.
func (f *folded) text() string {
	if !f.own {
		return f.src
	}
	return f.b.String()
}

// size returns the number of folded bytes.
func (f *folded) size() int {
	if !f.own {
		return len(f.src)
	}
	return f.b.Len()
}

// place returns the byte span in the original of the folded byte i: the
// whole rune when that byte is a rune that was folded, else the one byte
// it stands as.
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
	// Remember the run of bytes in place around i. It ends at the next
	// moved rune, or at the end of the text so far: in a stream a rune
	// folded later may be moved, but only after every rune folded before.
	f.lo, f.hi, f.shift = -1, f.size(), 0
	if k < len(f.moved) {
		f.hi = int(f.moved[k].at)
	}
	if k == 0 {
		return i, i + 1
	}
	m := f.moved[k-1]
	f.lo, f.shift = int(m.at), int(m.off)+int(m.width)-int(m.at)
	if !m.drop {
		f.shift--
		if int(m.at) == i {
			return int(m.off), int(m.off) + int(m.width)
		}
	} else {
		f.lo-- // the byte at m.at is in the run
	}
	start = i + f.shift
	return start, start + 1
}

// inPlace returns how many bytes from the start stand at their own offset
// in the original.
func (f *folded) inPlace() int {
	if len(f.moved) > 0 {
		return int(f.moved[0].at)
	}
	return f.size()
}

// start returns the byte offset in the original of folded byte i.
func (f *folded) start(i int) int { s, _ := f.place(i); return s }

// appendBytes folds the complete runes of raw from byte from on (those
// before were folded by the calls before) and returns where it stopped:
// at the end of raw or, when atEOF is false, before a trailing incomplete
// UTF-8 sequence, so that a rune split across two stream deltas is read
// the same as whole. raw is the whole text so far, and its bytes never
// change once appended (a stream guard's raw is only appended to).
//
// f.src is raw up to where it stopped, a slice of it, so that the stream
// guard's numbers and released text are strings of it without a copy
// (the guard keeps raw in a textBuf). On the fast path, as
// long as no rune has folded to another, it is the folded text too, as in
// fold: then the bytes are not copied again.
func (f *folded) appendBytes(raw string, from int, atEOF bool) int {
	i := from
	if fast && !f.own {
		for i < len(raw) {
			// ASCII, most of a text: eight bytes at a time, and the
			// fewer left at the end at once as well (the last eight,
			// without those before i), then byte by byte.
			n := len(raw)
			for ; i+8 <= n; i += 8 {
				if le64at(raw, i)&(0x80*ones) != 0 {
					break
				}
			}
			if i+8 > n && n >= 8 && le64at(raw, n-8)>>(8*(i+8-n))&(0x80*ones) == 0 {
				i = n
			}
			for i < n && raw[i] < 0x80 {
				i++
			}
			if i == n {
				break
			}
			if c := raw[i]; c-0xC3 <= 0xD8-0xC3 && i+1 < n && raw[i+1]&0xC0 == 0x80 {
				i += 2 // U+00C0–U+063F (å, ä, ö, é, …) folds to itself
				continue
			}
			if !atEOF && !utf8.FullRuneInString(raw[i:]) {
				break
			}
			r, size := utf8.DecodeRuneInString(raw[i:])
			if fr, keep := foldRune(r); !keep || fr != r {
				f.b.Reset() // from i on, the folded text differs
				f.b.WriteString(raw[:i])
				f.own = true
				break
			}
			i += size
		}
	}
	if !fast || f.own {
		f.own = true
		for i < len(raw) {
			if raw[i] < 0x80 {
				j := i + 1
				for j < len(raw) && raw[j] < 0x80 {
					j++
				}
				f.b.WriteString(raw[i:j])
				i = j
				continue
			}
			if !atEOF && !utf8.FullRuneInString(raw[i:]) {
				break
			}
			r, size := utf8.DecodeRuneInString(raw[i:])
			f.add(r, i, raw[i:i+size])
			i += size
		}
	}
	f.src = raw[:i]
	return i
}

// add appends the folded form of rune r, read from the bytes raw at offset
// off of the original.
func (f *folded) add(r rune, off int, raw string) {
	fr, keep := foldRune(r)
	switch {
	case r == utf8.RuneError && len(raw) == 1 && raw[0] != 0xFF:
		// A byte that starts no rune reads as U+FFFD. It is kept as 0xFF,
		// which starts none either, so that a rune dropped next to it
		// does not join it to the bytes after ("\xc3\u200b\x85" is no
		// "Å").
		f.moved = append(f.moved, movedRune{at: int32(f.b.Len()), off: int32(off), width: 1})
		f.b.WriteByte(0xFF)
	case !keep:
		f.moved = append(f.moved, movedRune{at: int32(f.b.Len()), off: int32(off), width: uint8(len(raw)), drop: true})
	case fr != r:
		f.moved = append(f.moved, movedRune{at: int32(f.b.Len()), off: int32(off), width: uint8(len(raw))})
		f.b.WriteByte(byte(fr))
	default:
		f.b.WriteString(raw)
	}
}

func foldText(s string) *folded {
	f := new(folded)
	f.fold(s)
	return f
}

// fold makes f the folded form of s, reusing f's list of moved runes. A
// text with no rune that folds to another (most, whatever their language)
// is its own folded form, found by reading it once; any other is folded
// into a buffer of its own, which text returns without a copy.
func (f *folded) fold(s string) {
	moved := f.moved[:0]
	*f = folded{src: s, moved: moved}
	i := 0
	if fast {
		i = firstFolded(s)
	} else {
		for i < len(s) {
			// ASCII byte by byte (firstFolded, the fast path, reads
			// eight bytes at a time).
			for ; i < len(s) && s[i] < 0x80; i++ {
			}
			if i == len(s) {
				return
			}
			c, size := utf8.DecodeRuneInString(s[i:])
			if fc, keep := foldRune(c); !keep || fc != c {
				break
			}
			i += size
		}
	}
	if i >= len(s) {
		return
	}
	// From i on, the folded text differs.
	f.b.Grow(len(s))
	f.b.WriteString(s[:i])
	f.own = true
	for i < len(s) {
		j := i
		for j < len(s) && s[j] < 0x80 {
			j++
		}
		f.b.WriteString(s[i:j])
		if i = j; i == len(s) {
			break
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		f.add(c, i, s[i:i+size])
		i += size
	}
}

// firstFolded returns the offset of the first rune of s that folds to
// another or is dropped, or len(s) when none does: where the general loop in
// fold stops, found 32 bytes at a time in a loop of its own (then eight)
// where none of them may start such a rune (see keepsAll), else rune by
// rune. The eight bytes at a time are read with le64, right on any machine
// (one load where it is little-endian and reads unaligned, as amd64 and
// arm64), and the tests of them test each byte on its own.
func firstFolded(s string) int {
	i := 0
	for i < len(s) {
		// 32 bytes at a time, as long as they keep all. (The loads are
		// made on the line of the test, whose instructions stand for the
		// calls of le64 inlined there: no NOP is left for them.)
		for ; i+32 <= len(s); i += 32 {
			w := s[i : i+32]
			if a, b, c, d := le64at(w, 0), le64at(w, 8), le64at(w, 16), le64at(w, 24); (a|b|c|d)&(0x80*ones) != 0 &&
				!(keepsAll(a) && keepsAll(b) && keepsAll(c) && keepsAll(d)) {
				break
			}
		}
		end := len(s)
		if i+32 <= len(s) {
			end = i + 32
		} else if i+8 <= len(s) {
			if keepsAll(le64at(s, i)) {
				i += 8
				continue
			}
			end = i + 8
		}
		for i < end {
			if s[i] < 0x80 {
				i++
				continue
			}
			c, size := utf8.DecodeRuneInString(s[i:])
			if fc, keep := foldRune(c); !keep || fc != c {
				return i
			}
			i += size
		}
	}
	return len(s)
}

// ones has the lowest bit of each of eight bytes set: c*ones is c in each.
const ones = 0x0101010101010101

// keepsAll reports whether none of the eight bytes of x may start a rune
// that folds to another or is dropped: each is ASCII, or continues a rune
// (0x80–0xBF), or starts one of U+00C0–U+063F (0xC3–0xD8), which all fold
// to themselves. A byte that continues a rune only reads, where a rune
// cannot start, as U+FFFD, which folds to itself too; so neither whether
// the rune of such a byte started before x nor whether one starting in x
// ends after it matters. The bytes from 0xC0 are told apart by their low
// seven bits, which adding a constant below 0x80 compares to it in the
// high bit without a carry into the next byte.
func keepsAll(x uint64) bool {
	if x&(0x80*ones) == 0 {
		return true // all ASCII, the most common case, told first
	}
	y := x & (0x7F * ones)
	safeLead := (y + (0x80-0x43)*ones) ^ (y + (0x80-0x59)*ones) // 0x43 <= y < 0x59
	return x&(y+0x40*ones)&^safeLead&(0x80*ones) == 0
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
	case 0x2215: // division slash (the fraction slash is unreadable: "1⁄2" shows as ½)
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
	if fast && r >= 0x2000 && r <= 0x206F {
		return r, true // the rest of General Punctuation: no digit (TestGeneralPunctuation)
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
