package guardrail

import (
	"math/bits"
	"unicode/utf8"
)

// prose skips from i what step reads as prose, as long as that is decided
// by the bytes in the text and quickly: ASCII that starts nothing, and
// words of ASCII or Latin-1 letters followed by an ASCII rune that is not a
// hyphen, or by the end of a whole text (final), which begin no number word
// (see mayBeNumber), or are "a" before a space and a word that begins no
// "hundred" or scale word. It returns i
// when the rune at i needs a step. proseRun reads the most of it, before
// the last nine bytes of the text, and scan calls it first; prose reads
// itself what proseRun leaves (a rune beyond ASCII, the end of the text,
// where the stream guard reads most), calling proseRun again after each
// round.
func (s *scanner) prose(i int) int {
	// A round read here, and proseRun after it, as long as what is read
	// is prose.
	t := s.t
	for {
		var k, j int // the word below: 8 × its first ASCII letters, its end
		var key uint32
		// The eight bytes from i, read at once; past the end of the
		// text as '0', which stops a word and makes the sign before it
		// one that may start a number, as the end does (it may be
		// followed by a digit yet).
		var x uint64
		if i+8 <= len(t) { // the eight bytes are in t
			x = le64at(t, i)
		} else if i >= len(t) {
			break
		} else if len(t) >= 8 {
			x = tailBytes(t, i)
		} else {
			x = shortBytes(t, i)
		}
		c := byte(x)
		cl := latinClass[c] // of ASCII: a byte beyond is none of these
		if cl&clASCIILetter == 0 {
			if cl&clInert != 0 || cl&clSign != 0 && byte(x>>8)-'0' >= 10 {
				i++ // "+", "-", "." or "," before anything but a digit starts nothing
				goto next
			}
			if c < 0x80 {
				break // a digit, '$', or a sign before a digit
			}
		}
		// A word (of ASCII letters, or starting with a byte beyond ASCII
		// that latinWord reads) and its key in wordStarts. It ends at j,
		// at c of class cl.
		k = asciiLetters(x) // 8 × the letters, up to seven
		j = i + k>>3
		key = (uint32(x) | 0x20202020) & startMasks[k>>3]
		c = byte(x >> k)
		cl = latinClass[c]
		if key == 0 || cl&clWordEnd == 0 {
			// Not a word of one to seven ASCII letters and its end: a
			// longer word, one with letters beyond ASCII, one that
			// reaches the end of the text (which may go on), or none.
			for j < len(t) && latinClass[t[j]]&clASCIILetter != 0 {
				j++
			}
			if j < len(t) && t[j] >= 0x80 {
				j, key = latinWord(t, i, j)
			}
			if key == 0 {
				// No letter at i, but a byte beyond ASCII: a rune
				// that step reads alone, finding nothing, is read so
				// here too ("’", "“", "…", "•").
				if size := inertRune(t[i:]); size > 0 {
					i += size
					goto next
				}
				break
			}
			if j == len(t) {
				if !s.final {
					break // the word may go on
				}
				cl = 0 // it ends the text: nothing after it to read
			} else if cl = latinClass[t[j]]; cl&clWordEnd == 0 && (t[j] < 0x80 || !endsWord(t[j:])) {
				break
			}
		}
		if h := startHash(key); wordStarts[h>>6]&(1<<(h&63)) != 0 {
			// "a" is prose before a word that begins no "hundred" or
			// scale word (see proseRun).
			if key != 'a' || j+1 >= len(t) || t[j] != ' ' || latinClass[t[j+1]]&clScale != 0 {
				break
			}
		}
		if i = j; cl&clInert != 0 {
			i++ // read now rather than at the top of the loop
		}
	next:
		if fast && i <= len(t)-9 { // (proseRun reads tables only the fast path makes)
			j, slow := proseRun(t, i)
			if i = j; !slow {
				break
			}
		}
	}
	return i
}

// proseRun reads the common case of prose from i, as prose would, in a
// loop that calls nothing but a panic for an index out of range, which the
// loop's bound rules out (it keeps what it reads in registers, and its
// tables are read from proseTables): ASCII
// that starts nothing, and words of ASCII letters and the Latin-1 letters
// of two bytes beginning 0xC3 (å, ä, ö, é, …) that end at an ASCII rune,
// while nine bytes are left in the text. It returns where it stopped and
// whether prose is to read on from there (slow): a rune beyond ASCII, the
// end of the text. A word or sign followed by a space goes on to the next
// word at once (spaced), without a round of the loop.
func proseRun(t string, i int) (end int, slow bool) {
	pt := &proseTables
	// The loop reads the eight bytes from i, and one after them (the
	// byte after a word of seven letters and a space): i stays at or
	// before last.
	for last := len(t) - 9; i <= last; {
		// e is where a space is, after a word or a sign read: spaced
		// reads on after it.
		var e int
		x := le64at(t, i) // the eight bytes from i
		if c := byte(x); pt.classOf(c)&clWordByte == 0 {
			// No word at i.
			cl := pt.classOf(c)
			if cl&clInert != 0 || cl&clSign != 0 && byte(x>>8)-'0' >= 10 {
				// Starts nothing; nor does a space after it.
				if byte(x>>8) != ' ' {
					i++
					continue
				}
				e = i + 1
				goto spaced
			}
			return i, c >= 0x80 // a digit, '$', a sign before a digit
		}
		// A word: the n ASCII letters x begins with (see lowerLetters),
		// up to e, followed by c, read again from the text (so that the
		// count need not stay in the register a shift by it takes), and
		// its key in wordStarts.
	word:
		{
			y := x | 0x20*ones
			e = i + lowerLetters(y) // (the end of the word is in t)
			c := t[e]
			n := e - i
			key := uint32(y) & pt.mask(n)
			if c == ' ' { // the most common end
				if h := startHash(key); pt.mayStart(h) {
					// "a" is prose before a word that begins no "hundred" or
					// scale word, as word finds ("a year"); x holds that
					// word's first byte.
					if key != 'a' || pt.classOf(byte(x>>16))&clScale != 0 {
						return i, false
					}
				}
				goto spaced
			}
			if n == 7 || c == 0xC3 {
				// The word may go on: more than seven ASCII letters, or a
				// Latin-1 letter. Its key is known where it begins with four
				// ASCII letters, and is looked up before the rest is read.
				if n >= 4 {
					if h := startHash(key); pt.mayStart(h) {
						return i, false
					}
				}
				j := i + n
				for {
					if c == 0xC3 {
						if j >= last { // (else j+1 is in t)
							return i, true
						}
						if d := t[j+1]; pt.classOf(d)&clAfterC3 == 0 {
							return i, true
						}
						j += 2
					}
					if j > last {
						return i, true
					}
					m := lowerLetters(le64at(t, j) | 0x20*ones)
					j += m
					if c = t[j]; m < 7 && c != 0xC3 { // (j is in t)
						break
					}
				}
				if n < 4 && c < 0x80 {
					// The key of the whole word, which ends at c, from its
					// first bytes read again (which keeps fewer values through
					// the loop above).
					key = (uint32(le64at(t, i)) | 0x20202020) & pt.mask(min(j-i, 4))
					if h := startHash(key); pt.mayStart(h) {
						return i, false
					}
				}
				if c == ' ' { // as after a shorter word
					e = j
					goto spaced
				}
				n = j - i
			} else if h := startHash(key); c < 0x80 && pt.mayStart(h) {
				return i, false
			}
			// It ends at c, as prose where c is no letter, digit or hyphen
			// (which make a word step reads). A rune beyond ASCII at c may
			// be a letter of it, which prose tells.
			cl := pt.classOf(c)
			if cl&clWordEnd == 0 {
				return i, c >= 0x80 // a hyphen or a digit
			}
			if i += n; cl&clInert != 0 {
				i++
			} else if cl&clSign != 0 {
				// A sign, not a hyphen (see clWordEnd): it starts nothing
				// but before a digit, and ", " and ". " are read at once.
				// (i+1 is in t: i is at most last+7.)
				if d := t[i+1]; d == ' ' {
					e = i + 1
					goto spaced
				} else if d-'0' >= 10 {
					i++
				} else {
					return i, false
				}
			}
			continue
		}
	spaced:
		// What follows the space at e: a word read on at once, or a
		// digit for scan, where prose stops; anything else at the top of
		// the loop.
		if i = e + 1; i <= last {
			if x = le64at(t, i); pt.classOf(byte(x))&clWordByte != 0 {
				goto word
			} else if byte(x)-'0' < 10 {
				return i, false
			}
		}
	}
	return i, true
}

// proseTables holds what proseRun looks up, latinClass, startMasks and
// wordStarts, in one block, whose address proseRun keeps in one register
// through its loop: the compiler keeps the address of one table so but
// loads another's anew at each read, two instructions a word. Each index
// is proved in range (a byte indexes 256 bytes, n is masked to 0–7, and
// h>>6 of a 16-bit hash is below 1024), so no read tests its bounds.
var proseTables proseBlock

type proseBlock struct {
	class  [0x100]uint8    // latinClass, and clAfterC3
	masks  [8]uint32       // startMasks
	starts [1 << 10]uint64 // wordStarts
}

func init() {
	if fast { // (the WASM guard has no proseRun)
		proseTables = proseBlock{latinClass, startMasks, wordStarts}
		// clAfterC3 marks the bytes 0x80–0xBF that make a letter of
		// Latin-1 after 0xC3 (À–ÿ but × and ÷), so that proseRun tells
		// one with one look-up.
		for d := 0x80; d < 0xC0; d++ {
			if latinClass[0xC0|d&0x3F]&clLetter != 0 {
				proseTables.class[d] |= clAfterC3
			}
		}
	}
}

// classOf is latinClass[c].
func (b *proseBlock) classOf(c byte) uint8 { return b.class[c] }

// mask is startMasks[n], for n of 0 to 7.
func (b *proseBlock) mask(n int) uint32 { return b.masks[n&7] }

// mayStart reports whether wordStarts holds the hash h of a key (see
// startHash).
func (b *proseBlock) mayStart(h uint32) bool {
	return b.starts[h>>6&(1<<10-1)]&(1<<(h&63)) != 0
}

// shortBytes is tailBytes for a text of fewer than eight bytes.
func shortBytes(t string, i int) uint64 {
	x := uint64(0x3030303030303030) // '0' in every byte
	for k := range len(t) - i {
		x = x&^(0xFF<<(8*k)) | uint64(t[i+k])<<(8*k)
	}
	return x
}

// asciiLetters returns 8 × how many of the first seven bytes of x (in the
// order they stand in the text, the first in the lowest byte) are ASCII
// letters before the first that is not. It tests them all at once: with
// 0x20 set (the lower case of an ASCII letter) and 'a' taken away, a byte
// that is a letter reads 0–25, one that is not 26 or more or, below 'a',
// wraps to 0x80 or more; adding 0x80-26 sets the high bit of the former
// and keeps it clear for a letter. What the taking away borrows from the
// next byte, or the adding carries into it, comes from a byte that is no
// letter: the bytes after it may read wrong, but the count stops before
// them. The eighth byte is taken for no letter, which makes the count at
// most seven and spares the case of none.
func asciiLetters(x uint64) int {
	z := (x | 0x20*ones) - 'a'*ones
	other := ((z + (0x80-26)*ones) | z) & (0x80 * ones)
	return bits.TrailingZeros64(other|1<<63) &^ 7
}

// lowerLetters is asciiLetters of x for y, x with 0x20 set in each byte,
// and counts the letters in bytes, not bits.
func lowerLetters(y uint64) int {
	z := y - 'a'*ones
	other := ((z + (0x80-26)*ones) | z) & (0x80 * ones)
	return bits.TrailingZeros64(other|1<<63) >> 3
}

// startMasks turns the first four bytes of a word of n ASCII letters, at
// most seven, with 0x20 set in each, into its key in wordStarts (see
// startKey): the bytes it has of them, or 0 when it has none.
var startMasks = [8]uint32{0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}

// latinWord reads on the word of ASCII and Latin-1 letters at byte i of t,
// whose bytes up to j are ASCII letters, and returns its end and its key in
// wordStarts (0 when it has no letter).
func latinWord(t string, i, j int) (end int, key uint32) {
	for j < len(t) {
		c := t[j]
		if c < 0x80 {
			if latinClass[c]&clLetter == 0 {
				break
			}
			j++
		} else {
			// U+0080–U+00FF: 0xC2 or 0xC3 and one byte 0x80–0xBF.
			if c&^1 != 0xC2 || j+1 >= len(t) || t[j+1]&0xC0 != 0x80 ||
				latinClass[(c&1)<<6|t[j+1]&0x3F|0x80]&clLetter == 0 {
				break
			}
			j += 2
		}
	}
	if j == i {
		return j, 0
	}
	return j, startKey(t[i:j])
}

// inertRune returns the size of the rune beyond ASCII that t starts with
// when step reads it alone and finds nothing there (any but a letter and a
// currency symbol: '€', '£', …), else 0.
func inertRune(t string) int {
	if generalPunctuation(t) {
		return 3
	}
	r, size := utf8.DecodeRuneInString(t)
	if unreadableRune(r) || r < 0x100 && latinClass[r]&clLetter != 0 || r >= 0x100 && isWideLetter(r) || symbolCurrency(r) != 0 {
		return 0
	}
	return size
}

// endsWord reports whether the rune beyond ASCII that t starts with ends a
// word for the word step as a space does: it is neither a letter nor a
// mark (see alnumRun; no mark lies below U+0300).
func endsWord(t string) bool {
	if generalPunctuation(t) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(t)
	if r < 0x100 {
		return latinClass[r]&clLetter == 0
	}
	return !isWideAlnum(r)
}

// generalPunctuation reports whether t starts with a rune of the General
// Punctuation block, U+2000–U+205F (spaces, dashes, quotes, "…", "•"):
// the runes beyond Latin-1 most common in prose, none of them a letter or
// a mark (TestGeneralPunctuation), told by their bytes. The format
// characters of the block and the fraction slash are left out: the scanner
// reads them as unreadable (see unreadableRune).
func generalPunctuation(t string) bool {
	if len(t) < 3 || t[0] != 0xE2 || t[2]&0xC0 != 0x80 {
		return false
	}
	switch c := t[2]; t[1] {
	case 0x80: // U+2000–U+203F but the format characters U+200B–U+200F, U+202A–U+202E
		return (c < 0x8B || c > 0x8F) && (c < 0xAA || c > 0xAE)
	case 0x81: // U+2040–U+205F but the fraction slash U+2044
		return c < 0xA0 && c != 0x84
	}
	return false
}
