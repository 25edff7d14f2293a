package guardrail

import (
	"math/bits"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Extract returns every number in text, in order of appearance. See the
// package documentation and SPEC §3 for what counts as one number.
func Extract(text string) []Number {
	s := scanText(text)
	out := s.numbers(text)
	s.done()
	return out
}

// numbers returns the numbers of the tokens of a scan of text (nil for
// none).
func (s *scanner) numbers(text string) []Number {
	if len(s.toks) == 0 {
		return nil
	}
	out := make([]Number, len(s.toks))
	if fast {
		s.fillAll(out, text)
	} else {
		for k := range out {
			s.fill(&out[k], &s.toks[k], text)
		}
	}
	for _, c := range s.counts {
		if c.tok < len(out) {
			w := s.str(c.noun) // (see Number.noun)
			out[c.tok].noun, out[c.tok].nounLen = unsafe.StringData(w), int32(len(w))
		}
	}
	return out
}

// scanText scans the whole of text and returns the scanner, whose toks are
// the numbers of text in order, with their spans in text (see spans). The
// caller calls done once it has read them.
func scanText(text string) *scanner {
	spareMu.Lock()
	s := spare
	spare = nil
	spareMu.Unlock()
	if s == nil {
		s = &scanner{f: new(folded)}
	}
	s.f.fold(text)
	s.final, s.prefix = true, 0
	s.toks, s.counts = s.toks[:0], s.counts[:0]
	s.scan(0)
	s.spans()
	return s
}

// done gives back a scanner scanText returned, to be the spare.
func (s *scanner) done() {
	if f := s.f; cap(f.b) <= maxSpare {
		f.src = ""                            // hold no text
		s.room, s.canons = len(s.canons), nil // the numbers filled keep theirs
		if fast && cap(s.quick)*int(unsafe.Sizeof(quickSlot{})) > maxSpare {
			s.quick = nil
		}
		spareMu.Lock()
		spare = s
		spareMu.Unlock()
	}
}

// spare is a scanner with its folded text, kept between calls of each so
// that a call scans into buffers already allocated instead of anew. Concurrent calls that find none allocate their own.
// Only the numbers outlive a call, and none of them points into these
// buffers. Tokens hold no pointers, so the spare's are no work for the
// garbage collector.
var (
	spareMu sync.Mutex
	spare   *scanner
)

// maxSpare is the most bytes of a folded text kept for reuse.
const maxSpare = 256 << 10

// eof is what the scanner reads past the end of the text.
const eof rune = -1

// token is a number found by the scanner, with its span in bytes of the
// folded text. It holds
// no pointer, so that the garbage collector neither scans the tokens of a
// scan nor guards their writes with barriers: its strings are refs and
// codes, made strings only when a Number is filled. (What a small count
// counts, which few numbers have, is kept aside: see counted.)
type token struct {
	_            [0]func() // not comparable: no equality function in the WASM guard
	start, end   int
	canon        ref
	kind         kind
	unit, period uint8 // the codes of the Number's Unit and Period (see names)
}

// counted is what the small count written as a word of token tok (its
// index in the scan's toks) counts: its noun, read by spelled. A scan
// keeps them aside (scanner.counts), not in every token, which makes a
// token 32 bytes instead of 40. Spelled adds the noun of the token it
// reads at the index the token takes when scan adds it; when scan does
// not (its step looked past the end of the text), it adds no token after
// it, so that tok is past the last token.
type counted struct {
	tok  int
	noun ref
}

// set makes t the number of kind k over [start,end) with the canonical
// form canon, and nothing more. (Zeroing t and setting these fields takes
// fewer instructions than storing a token literal, made aside and copied.)
func (t *token) set(start, end int, canon ref, k kind) {
	*t = token{}
	t.start, t.end, t.canon, t.kind = start, end, canon, k
}

// add appends to s.toks the number of kind k over [start,end) with the
// canonical form canon, and nothing more, as set makes it, writing its
// fields in place: an append of a token literal makes the token on the
// stack, zeroed, and copies it. (Each field is written, the unit and period
// too, so that a token of an earlier scan where the scanner's toks reach
// leaves nothing in it; the token's padding holds nothing read. Small
// enough to inline: append grows toks, once in a while. Where toks have
// room, the token's place is taken from the slice as loaded, before its
// length is stored, which needs no check of its bounds.)
func (s *scanner) add(start, end int, canon ref, k kind) {
	var t *token
	if n := len(s.toks); n < cap(s.toks) {
		t = &s.toks[:n+1][n]
		s.toks = s.toks[:n+1]
	} else {
		s.toks = append(s.toks, token{})
		t = &s.toks[n]
	}
	t.start, t.end, t.canon = start, end, canon
	t.unit, t.period = 0, 0 // (written before the kind, they take one store)
	t.kind = k
}

// ref is a string the scanner made: n bytes at byte offset at of the
// source text when at >= 0, else at ^at of the scan's canons; when n is -1,
// the decimal form of at, a number below 100 (most numbers spelled out).
type ref struct{ at, n int32 }

// smalls holds the numbers below 100 in two digits each.
const smalls = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// str returns the string r refers to.
func (s *scanner) str(r ref) string {
	if r.at < 0 && r.n > 0 { // the commonest of the forms not in place
		// In place (see keep), from the address of its first byte: a
		// form of a byte or more starts inside canons, which takes one
		// check (a slice of canons from there takes two and a mask).
		return unsafe.String(&s.canons[^r.at], r.n)
	}
	if r.n >= 0 {
		if r.at < 0 { // an empty form in canons
			return ""
		}
		return s.f.src[r.at : r.at+r.n]
	}
	i := 2 * r.at // in smalls, without the leading zero
	if r.at < 10 {
		i++
	}
	return smalls[i : 2*r.at+2]
}

// kind is a Kind inside the package, with short names for its values.
type kind = Kind

const (
	kInteger   = KindInteger
	kDecimal   = KindDecimal
	kGrouped   = KindGrouped
	kAmbiguous = KindAmbiguous // the last plain kind
	kPercent   = KindPercent   // the last signable kind
	kDate      = KindDate
	kTime      = KindTime
	kPhone     = KindPhone
	kWords     = KindWords
	kOrdinal   = KindOrdinal
	kQuarter   = KindQuarter
	kRange     = KindRange
)

// names are the names of the units and periods (Unit), by code: names[0]
// is none; the currencies written before a number come first (usd, eur, gbp).
// Every value of the unit and period words has a code (TestNames).
var names = [...]string{"", "USD", "EUR", "GBP", "SEK", "öre", "KB", "MB", "GB", "TB", "PB",
	"kbit", "Mbit", "Gbit", "Mbit/s", "Gbit/s", "ms", "second", "minute", "hour", "day",
	"week", "month", "year", "kg", "g", "km", "cm", "mm", "lb", "user"}

const (
	usd uint8 = iota + 1
	eur
	gbp
)

// nameCode returns the code of v in names, or 0.
func nameCode(v string) uint8 {
	for c, w := range names {
		if w == v {
			return uint8(c)
		}
	}
	return 0
}

// spans turns the spans of the tokens from byte offsets into the folded
// text into byte offsets into the original, once the scan is done: they
// differ only for a token that ends after the first rune folded to another
// or dropped (most texts have none). The tokens are in order, so they are
// placed in order, as place is quickest asked.
func (s *scanner) spans() {
	f, toks := s.f, s.toks
	if len(f.moved) == 0 || len(toks) == 0 || toks[len(toks)-1].end <= int(f.moved[0].at) {
		return // f.inPlace() is past the last token
	}
	in := int(f.moved[0].at)
	for k := range toks {
		if t := &toks[k]; t.end > in {
			start, _ := f.place(t.start)
			_, t.end = f.place(t.end - 1)
			t.start = start
		}
	}
}

// fill makes n, a zero Number (every caller's is new), the number of token
// t of the scan (after spans) of text, the text the scanner's f.src is. A
// canonical form the scan found spelled in place at the number's own span
// (see intern) is the number's Text, with no second slice made. (Its
// caller sets the noun of a small count: see counted.)
func (s *scanner) fill(n *Number, t *token, text string) {
	printed := text[t.start:t.end]
	canon := printed
	if c := t.canon; c.at != int32(t.start) || int(c.n) != len(printed) {
		canon = s.str(c)
	}
	n.Text, n.Canonical, n.Kind, n.Start, n.End = printed, canon, t.kind, t.start, t.end
	n.Unit, n.Period = Unit(t.unit), Unit(t.period)
}

// fillAll is fill for every token of a scan of text, into out, written
// out for the fast path: a loop that calls nothing (str is inlined). It
// reads each token's fields where they are (a copy of the token on the
// stack, which the loop read them from before, costs four moves more and
// keeps no more of them in registers), and writes the span, kind, unit
// and period first, from the span it keeps (its bounds are read once, not
// again after the writes) and the kind, unit and period in one load and
// one store (they lie as in a Number), so that the loop keeps the text's
// length in a register. A canonical form that starts where the number
// does in the text is a prefix of its Text ("399" of "399 kr", or all of
// it), sliced from it without str. Verify's fast path fills its
// NumberVerdicts with the same loop (fillVerdicts).
func (s *scanner) fillAll(out []Number, text string) {
	toks := s.toks[:len(out)]
	for k := range toks {
		n, t := &out[k], &toks[k]
		start, end := t.start, t.end
		n.Start, n.End, n.Kind, n.Unit, n.Period = start, end, t.kind, Unit(t.unit), Unit(t.period)
		printed := text[start:end]
		canon := printed
		if c, m := t.canon, int(t.canon.n); c.at != int32(start) || uint(m) > uint(len(printed)) {
			canon = s.str(c)
		} else {
			canon = printed[:m]
		}
		n.Text, n.Canonical = printed, canon
	}
}

// scanner reads a folded text left to right, byte by byte where it reads
// ASCII and rune by rune where not (positions are byte offsets into the
// folded text, always at the start of a rune). Every look at a rune goes
// through at (or reads what at would, with its checks written out), which
// records when a decision needed a rune past the end of a text that may
// still grow (final == false). A step whose decision looked
// past the end is not final: the stream guard holds the text from that
// step's start and scans it again when more text arrives. Because every step
// depends only on runes before the end, a step that did not look past the
// end makes the same decision on any longer text, which is what makes the
// stream guard agree with Extract on the whole text.
type scanner struct {
	f       *folded
	t       string // f.text(), read by at
	final   bool
	pastEnd bool
	scratch []byte           // lower-cased words
	buf     []byte           // the canonical form being written
	lex     []lexeme         // the lexemes of the spelled-out number being read
	words   [maxWords]lexeme // those of the English number read by englishRun
	prefix  uint8            // the currency written before the number being read
	toks    []token          // the numbers found by scan
	counts  []counted        // what the small counts among them count
	quick   []quickSlot      // verify's index of the sources, when it merges theirs
	canons  []byte           // canonical forms not spelled as such in the text, and nouns (see keep)
	room    int              // the length of the last text's canons
	reads   int              // bytes looked at, for the test that scanning is linear: those a scan passes (once, where it returns), and what its steps read
	inPlace int              // bytes before it stand as they are in f.src (set by scan)
	aside   [24]byte         // a phone number's canonical form when canons have no room (see formRoom)
}

// at returns the rune that starts at byte i.
func (s *scanner) at(i int) rune {
	s.reads++
	if t := s.t; uint(i) < uint(len(t)) && t[i] < 0x80 {
		return rune(t[i])
	}
	return s.wide(i)
}

// ascii is at for the tests of a rune against ASCII, which need no rune
// beyond ASCII decoded: it returns notASCII for one (and, unlike at, is
// small enough to inline).
func (s *scanner) ascii(i int) rune {
	s.reads++
	if uint(i) < uint(len(s.t)) {
		if c := s.t[i]; c < 0x80 {
			return rune(c)
		}
		return notASCII
	}
	if i >= 0 && !s.final {
		s.pastEnd = true
	}
	return eof
}

// notASCII is what ascii reads for a rune beyond ASCII: no letter, digit
// or space (for the tests it is read for), but taken for the start of any
// word by wordSet.starts.
const notASCII rune = 0x80

// wide is at for a rune beyond ASCII (U+FFFD for a byte that starts none),
// or past the ends of the text.
func (s *scanner) wide(i int) rune {
	if uint(i) < uint(len(s.t)) {
		r, _ := utf8.DecodeRuneInString(s.t[i:])
		return r
	}
	if i >= 0 && !s.final {
		s.pastEnd = true
	}
	return eof
}

// lastRune returns the last rune of t (U+FFFD for a byte that ends none).
func lastRune(t string) rune {
	if c := t[len(t)-1]; c < 0x80 {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return r
}

// runeLen is the number of bytes of c, a rune the scanner read that is a
// letter or digit (U+FFFD read from a byte that starts no rune is neither,
// and is one byte).
func runeLen(c rune) int {
	if c < 0x80 {
		return 1
	}
	return utf8.RuneLen(c)
}

// scan runs steps from byte i and appends the numbers found to
// s.toks. It returns the index where it stopped and whether it stopped
// because the step starting there was not final.
func (s *scanner) scan(i int) (stop int, open bool) {
	s.t = s.f.text()
	text := s.t
	n := len(text)
	s.inPlace = 0
	if s.f.src != "" {
		s.inPlace = s.f.inPlace()
	}
	var t token // the number read by a step (when ok), which ends at next
	var next int
	var ok bool
	s.reads -= i // the bytes the scan passes, counted where it returns
	if fast && i < n && text[i]-'0' >= 10 {
		i = s.prose(i) // a scan that starts in prose (see below)
	}
	for i < n {
	read: // at i, where prose stopped or need not look
		c := text[i]
		if !fast && c == ' ' { // most often between a number and the next (prose reads it)
			i++
			continue
		}
		if c-'0' < 10 {
			k := i + 1
			if fast {
				j, e, open := s.integers(i)
				if i = j; open {
					s.reads += i
					return i, true
				}
				if e == j { // prose read up to j, where a step is
					continue
				}
				k = e
			} else {
				for k < n && text[k]-'0' < 10 {
					k++
				}
			}
			if k == n && !s.final {
				s.reads += i
				return i, true // the run may go on
			}
			// The other shapes, without reading the run again.
			s.reads += k - i + 1
			s.pastEnd = false
			next, ok = s.shapes(&t, i, k)
		} else if c == '+' && i+1 < n && text[i+1]-'0' < 10 {
			// An international phone number, or nothing.
			s.pastEnd = false
			if next, ok = s.intlPhone(&t, i); !ok {
				if fast && !s.pastEnd {
					i++ // to the digit after the '+', which prose would not read
					goto read
				}
				next = i + 1
			}
		} else {
			s.pastEnd = false
			if fast && c < 0x80 && asciiClass[c]&classLetter != 0 {
				s.reads++ // as step's at reads it
				next, ok = s.word(&t, i)
			} else {
				next, ok = s.step(&t, i)
			}
		}
		if s.pastEnd {
			s.reads += i
			return i, true
		}
		if ok {
			s.toks = append(s.toks, t)
		}
		i = next
		// The fast path reads prose after each round, up to a number or
		// what needs a step: after a number or a step, most often a space
		// and a word, read without a round of their own; and a round takes
		// a step where prose stopped without prose trying it again. (It
		// need not try a digit first: the stream guard starts most scans
		// at a number that was open. integers reads the prose after the
		// numbers it reads itself, and goes on to the next number without
		// a round of scan.) proseRun reads the most of it,
		// before the last nine bytes of the text; prose reads on where it
		// leaves off (a rune beyond ASCII, the end of the text).
		if fast {
			if i <= n-9 {
				j, slow := proseRun(text, i)
				if slow {
					i = s.prose(j)
				} else {
					i = j
				}
			} else {
				i = s.prose(i)
			}
		}
	}
	s.reads += i
	return i, false
}

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
			x = le64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(t)), i)))
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
// loop that calls nothing, not even a panic for an index out of range (so
// that it needs no stack frame and keeps what it reads in registers; the
// indexes below are proved in range, or read with unsafe where the loop's
// bound shows them in t, and its tables are read from proseTables): ASCII
// that starts nothing, and words of ASCII letters and the Latin-1 letters
// of two bytes beginning 0xC3 (å, ä, ö, é, …) that end at an ASCII rune,
// while nine bytes are left in the text. It returns where it stopped and
// whether prose is to read on from there (slow): a rune beyond ASCII, the
// end of the text. A word or sign followed by a space goes on to the next
// word at once (spaced), without a round of the loop.
func proseRun(t string, i int) (end int, slow bool) {
	p := unsafe.Pointer(unsafe.StringData(t))
	pt := &proseTables
	// The loop reads the eight bytes from i, and one after them (the
	// byte after a word of seven letters and a space): i stays at or
	// before last.
	for last := len(t) - 9; i <= last; {
		// e is where a space is, after a word or a sign read: spaced
		// reads on after it.
		var e int
		x := le64((*[8]byte)(unsafe.Add(p, i))) // the eight bytes from i
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
			c := *(*byte)(unsafe.Add(p, e))
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
						if d := *(*byte)(unsafe.Add(p, j+1)); pt.classOf(d)&clAfterC3 == 0 {
							return i, true
						}
						j += 2
					}
					if j > last {
						return i, true
					}
					m := lowerLetters(le64((*[8]byte)(unsafe.Add(p, j))) | 0x20*ones)
					j += m
					if c = *(*byte)(unsafe.Add(p, j)); m < 7 && c != 0xC3 { // (j is in t)
						break
					}
				}
				if n < 4 && c < 0x80 {
					// The key of the whole word, which ends at c, from its
					// first bytes read again (which keeps fewer values through
					// the loop above).
					key = (uint32(le64((*[8]byte)(unsafe.Add(p, i)))) | 0x20202020) & pt.mask(min(j-i, 4))
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
				if d := *(*byte)(unsafe.Add(p, i+1)); d == ' ' {
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
			if x = le64((*[8]byte)(unsafe.Add(p, i))); pt.classOf(byte(x))&clWordByte != 0 {
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
// loads another's anew at each read, two instructions a word. It reads the
// block through the methods below, which add an offset to that address
// with unsafe (each offset is in the block: a byte indexes 256 bytes, n is
// at most 7 and h>>6 below 1024), since reading a field of a *proseBlock
// would test the pointer for nil at each read.
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
func (b *proseBlock) classOf(c byte) uint8 {
	return *(*uint8)(unsafe.Add(unsafe.Pointer(b), c))
}

// mask is startMasks[n], for n of 0 to 7.
func (b *proseBlock) mask(n int) uint32 {
	return *(*uint32)(unsafe.Add(unsafe.Pointer(b), unsafe.Offsetof(b.masks)+4*uintptr(n)))
}

// mayStart reports whether wordStarts holds the hash h of a key (see
// startHash).
func (b *proseBlock) mayStart(h uint32) bool {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(b), unsafe.Offsetof(b.starts)+8*uintptr(h>>6)))&(1<<(h&63)) != 0
}

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
	return le64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(t)), len(t)-8)))>>past |
		0x3030303030303030<<((64-past)&63)
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
// when step reads it alone and finds nothing there (any but a letter, '€'
// and '£'), else 0.
func inertRune(t string) int {
	if generalPunctuation(t) {
		return 3
	}
	r, size := utf8.DecodeRuneInString(t)
	if r == '€' || r == '£' || r < 0x100 && latinClass[r]&clLetter != 0 || r >= 0x100 && isWideLetter(r) {
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
// Punctuation block, U+2000–U+206F (spaces, dashes, quotes, "…", "•"):
// the runes beyond Latin-1 most common in prose, none of them a letter or
// a mark (TestGeneralPunctuation), told by their bytes.
func generalPunctuation(t string) bool {
	return len(t) >= 3 && t[0] == 0xE2 && (t[1] == 0x80 || t[1] == 0x81 && t[2] < 0xB0) && t[2]&0xC0 == 0x80
}

// step reads what starts at i with a rune that is not a digit (scan reads
// those): a number into t (ok) or prose, up to next.
func (s *scanner) step(t *token, i int) (next int, ok bool) {
	c := s.at(i)
	if isLetter(c) { // the most common by far
		return s.word(t, i)
	}
	unit := uint8(0) // of a currency written before a number
	switch c {
	case '$':
		unit = usd
	case '€':
		unit = eur
	case '£':
		unit = gbp
	case '+':
		// scan reads a '+' before a digit (see intlPhone); at the end of
		// a text that may grow, one may follow yet.
		s.ascii(i + 1)
	case '-':
		if isDigit(s.ascii(i+1)) && signContext(s.ascii(i-1)) {
			if *t, next, ok = s.number(i + 1); ok && t.kind <= kPercent { // signable
				t.start = i
				t.canon = s.keep([]byte("-" + s.str(t.canon)))
				return next, true
			}
		}
	case '.', ',':
		if isDigit(s.ascii(i+1)) && signContext(s.ascii(i-1)) {
			*t, next, ok = s.leadingFraction(i)
			return next, ok
		}
	}
	if unit != 0 {
		*t, next, ok = s.prefixed(i, i+utf8.RuneLen(c), unit)
		return next, ok
	}
	if c >= 0x80 {
		_, size := utf8.DecodeRuneInString(s.t[i:])
		return i + size, false
	}
	return i + 1, false
}

// inert marks the ASCII runes that start nothing: step reads them alone
// and goes on to the next rune.
var inert = func() (t [0x80]bool) {
	for c := range rune(0x80) {
		t[c] = !isDigit(c) && !isLetter(c) && c != '$' && c != '+' && c != '-' && c != '.' && c != ','
	}
	return t
}()

// isDigit reports whether c is an ASCII digit. Loops that run for most
// runes write the test out, as uint32(c-'0') < 10: the WASM guard is built
// without inlining, where a call in a loop costs some 200 bytes of code.
func isDigit(c rune) bool { return c >= '0' && c <= '9' }

func isAlnum(c rune) bool {
	if uint32(c) < 0x80 { // eof is not
		return asciiClass[c]&classAlnum != 0
	}
	return isWideAlnum(c)
}

func isLetter(c rune) bool {
	if uint32(c) < 0x80 {
		return asciiClass[c]&classLetter != 0
	}
	return isWideLetter(c)
}

// The tests for runes beyond ASCII stay out of line, so that the ASCII
// tests above inline.

//go:noinline
func isWideAlnum(c rune) bool { return unicode.IsLetter(c) || unicode.IsMark(c) }

//go:noinline
func isWideLetter(c rune) bool { return unicode.IsLetter(c) }

// asciiClass holds what each ASCII rune is, so the tests above are one
// look-up for ASCII (and small enough to inline).
var asciiClass = func() (t [0x80]uint8) {
	for c := range rune(0x80) {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = classLetter | classAlnum
		case isDigit(c):
			t[c] = classAlnum
		}
	}
	return t
}()

const (
	classLetter = 1 << iota
	classAlnum
)

// signContext reports whether a '-' (or a leading decimal mark) after c
// belongs to the number that follows it: after a space, the start of the
// text or an opening bracket, not after a digit or a letter ("1-2", "A-5").
func signContext(c rune) bool {
	return c == eof || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == '[' || c == '"' || c == '\'' || c == ':' || c == '='
}

// digits returns the end of the run of ASCII digits starting at i. It
// reads as at does, without a call of at per byte.
func (s *scanner) digits(i int) int {
	t, j := s.t, i
	for uint(j) < uint(len(t)) && t[j]-'0' < 10 {
		j++
	}
	s.reads += j - i + 1
	if j >= len(t) && !s.final {
		s.pastEnd = true
	}
	return j
}

// atLineStart reports whether only spaces or tabs stand between the start
// of the line and i.
func (s *scanner) atLineStart(i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch s.t[j] {
		case ' ', '\t':
			continue
		case '\n', '\r':
			return true
		default:
			return false
		}
	}
	return true
}

// number reads what starts with a digit at i, after a sign or a currency
// (scan reads the other numbers itself).
func (s *scanner) number(i int) (t token, next int, ok bool) {
	next, ok = s.shapes(&t, i, s.digits(i))
	return t, next, ok
}

// shapes reads what starts with the run of digits [i,k) when it is not a
// plain integer: a number into t (ok), or formatting up to next. Every
// shape is told first by the rune after the digits, which each would read
// first: it is read once here, and only the shapes that rune can start are
// tried, in order, and only when the length of the run allows them, so
// that a plain number costs little.
func (s *scanner) shapes(t *token, i, k int) (next int, ok bool) {
	n, first := k-i, s.t[i] // first: a digit
	switch c := s.ascii(k); c {
	case '.', ')':
		// A markdown ordered-list marker ("1. ", "2) ") at the start of
		// a line is formatting, not a number.
		if n <= 9 && s.atLineStart(i) && isBlank(s.ascii(k+1)) {
			return k + 1, false
		}
		if c == '.' && n == 4 && s.date(t, i, k, c) {
			return t.end, true
		}
	case '-', '/', ' ':
		if n == 4 {
			if c != ' ' && s.date(t, i, k, c) {
				return t.end, true
			}
			if r, ok := s.yearRange(i, k); ok {
				*t = r
				return t.end, true
			}
		}
		// A day, when a month name (or "of") may follow. (The rune after
		// the space is read whatever the day: by numeric and quantity
		// when not here.)
		if c == ' ' && n <= 2 && mayStartMonth(s.ascii(k+1)) {
			if day := s.atoi(i, k); day >= 1 && day <= 31 {
				if d, ok := s.dayMonth(i, k, day); ok {
					*t = d
					return t.end, true
				}
			}
		}
		if c != '/' && first == '0' && n >= 2 && n <= 4 {
			if end, ok := s.nationalPhone(t, i, k); ok {
				return end, true
			}
		}
	case 'Q', 'q':
		if n == 1 && first >= '1' && first <= '4' && !isAlnum(s.at(k+1)) {
			t.set(i, k+1, s.keep([]byte{'Q', first}), kQuarter)
			return k + 1, true
		}
	case ':':
		if isDigit(s.ascii(k + 1)) {
			// A time; no ordinal suffix (":a", ":e") stands before a
			// digit, as ordinalSuffix would find, reading it.
			if n <= 2 && s.clock(t, i, k) {
				return t.end, true
			}
			break
		}
		fallthrough
	default:
		// An ordinal suffix.
		if ordinalSuffixes.starts(c) {
			if e, ok := s.ordinalSuffix(k); ok && n <= 4 && first != '0' {
				if n <= 2 {
					if d, ok := s.dayMonth(i, e, s.atoi(i, k)); ok {
						*t = d
						return t.end, true
					}
				}
				*t = s.ordinalToken(i, e, s.str(s.digitString(i, k)))
				return t.end, true
			}
		}
		if c == ':' && n <= 2 && s.clock(t, i, k) {
			return t.end, true
		}
	}
	s.numeric(t, i, k)
	s.quantity(t, s.prefix)
	return t.end, true
}

// integers reads the numbers from i, where a digit is, and
// appends them to s.toks, as long as one follows the last (after a space,
// or after the prose it reads after a number, as scan would; where that
// prose stops at a '+' before a digit or at a word that may begin a number
// word, it reads those as scan does, with intlPhone and word, and goes on):
// the plain integers, those grouped with spaces ("10 000"), the decimals
// and grouped numbers ("12,5", "181,674,817"), and those that only a
// quantity may follow ("399 kr", "20 %", "5TB"). A run of digits is a plain
// integer when the one or two runes after it (and, after a space, the
// length of the next run of digits) rule out every other reading in
// shapes: no list marker, date, range, ordinal, quarter, day of a month,
// time, phone number, grouping, decimals, percent, scale, unit or period
// can follow. That is the common case of a number, and most of a list of
// numbers, decided without the tests of each shape; when they rule out all
// but numeric and quantity, integers calls those as shapes would. It
// returns the run of digits [j,k) that is none of these, for scan to read,
// or k == j when prose after the last number stops at j at none of these
// (a step is there, or the end of the text); open when what it read at j
// looked past the end of a text that may grow. It counts no reads (s.reads, for TestScanLinear) of its own: the runs it
// reads and the byte or two it looks at after each are bytes the scan
// passes, counted once where scan returns (a run it leaves to scan, scan
// counts again as it reads it), and the functions it calls count theirs.
func (s *scanner) integers(i int) (j, k int, open bool) {
	r, n := s.t, len(s.t)
	for { // at a digit
		// (Compared unsigned, k needs no test of its bounds for r[k].)
		for k = i + 1; uint(k) < uint(n) && r[k]-'0' < 10; k++ {
		}
	run: // [i,k) is a run of digits
		e := 0           // the end of the run of digits after a space after it, when read
		group := byte(0) // the byte after [i,k) when grouping or decimals follow
		if uint(k+1) >= uint(n) {
			return i, k, false // near the end
		}
		// (k+1 is in r, proved by the test above, and so is k, which
		// follows the digit at i: byteAt reads it without the test of
		// its bounds that the compiler cannot tell from k+1's.)
		c, d := byteAt(r, k), r[k+1]
		if c|d >= 0x80 { // (either is beyond ASCII)
			return i, k, false
		}
		if c != ' ' {
			if f := afterRun[c]; f&endsRun == 0 {
				if f&quantityRuns != 0 {
					goto quantified
				}
				// Decimals or grouping ("12,5", "181,674,817"), which
				// only numeric reads in shapes, unless a date may follow
				// ("2025.12.31").
				if (c == ',' || c == '.' && k-i != 4) && d-'0' < 10 {
					group = c
					goto quantified
				}
				// A time ("08:00"), a date ("2025-12-31") or a phone
				// number with an area code ("08-123 45 67"), which
				// shapes would try first for these runes, and read here
				// without going back to it.
				if d-'0' < 10 && (c == ':' && k-i <= 2 || c == '-' && (k-i == 4 || byteAt(r, i) == '0' && k-i >= 2 && k-i <= 3)) {
					goto shaped
				}
				return i, k, false
			}
		} else if f := afterRun[d]; f&spaceEndsRun == 0 {
			if f&isDigitRune == 0 {
				// A range ("2007 - 08"), a day and month ("3 May"), or
				// else what quantity reads (percent, unit, scale, period).
				if k-i == 4 && (d == '-' || d == '/') || k-i <= 2 && f&monthRuns != 0 {
					return i, k, false
				}
				goto quantified
			}
			if byteAt(r, i) == '0' { // (the digit at i)
				if k-i >= 2 && k-i <= 4 {
					return i, k, false // maybe a phone number ("070 123 45 67")
				}
			} else if k-i <= 3 {
				// "10 000" when a group of three digits (or a run
				// at the end of the text) follows: none of the other
				// shapes, but grouping starts so.
				for e = k + 2; uint(e) < uint(n) && r[e]-'0' < 10; e++ {
				}
				if e == n || e-(k+1) == 3 {
					group = ' '
					goto quantified
				}
			}
		}
		if k <= s.inPlace {
			s.add(i, k, ref{int32(i), int32(k - i)}, kInteger) // as digitString does, without a call
		} else {
			s.add(i, k, s.digitString(i, k), kInteger)
		}
		if e > 0 {
			i, k = k+1, e // the run after the space, read already
			goto run
		}
		// A digit or a '+' after the integer and a space ("1 2", "+1 1
		// 1 1 +1") is told by the bytes read after the run, before prose
		// is called, which would stop there at once. (After any other
		// number one seldom comes: prose tells it, as the first byte it
		// reads.)
		if i = k; c == ' ' {
			i, c = k+1, d
		}
		if f := afterRun[c]; f&(isDigitRune|isPlus) != 0 {
			if f&isDigitRune != 0 {
				continue
			}
			// An international phone number, as at plus below. (Read
			// here again, not there: a jump to plus would enter the
			// loop of prose and plus, which next begins, at a second
			// place, and the compiler, which then finds no loop there,
			// places spills within the loop and proves fewer bounds.)
			if uint(i+1) >= uint(n) || r[i+1]-'0' >= 10 {
				return i, i, false
			}
			var t token
			s.pastEnd = false
			end, ok := s.intlPhone(&t, i)
			if s.pastEnd {
				return i, i, true
			}
			if !ok {
				i++ // to the digit after the '+'
				continue
			}
			s.toks = append(s.toks, t)
			k = end
		}
		goto next
	shaped:
		// A time, date or phone number: the shape shapes tries first
		// when the run [i,k) is followed by c and a digit (a date first
		// after four digits and a hyphen, before a range or a phone
		// number). When it is not one, scan calls shapes, which tries
		// it again and reads what else the run may start.
		{
			var t token
			s.pastEnd = false
			var ok bool
			if c == ':' {
				ok = s.clock(&t, i, k)
			} else if k-i == 4 {
				ok = s.date(&t, i, k, '-')
			} else {
				_, ok = s.nationalPhone(&t, i, k)
			}
			if s.pastEnd {
				return i, i, true
			}
			if !ok {
				return i, k, false
			}
			s.toks = append(s.toks, t)
			k = t.end
			goto next
		}
	quantified:
		// The number whose first run of digits is [i,k), with its
		// grouping or decimals when group, the byte after the run, is
		// not 0 (numeric reads them), or else an integer, and what
		// quantity reads after it, as shapes would. (Read here, not in a
		// function of its own: a call costs more than the values
		// integers keeps on the stack across these calls.)
		{
			var t token
			s.pastEnd = false
			if group == ' ' {
				// Grouped with spaces ("10 000"), [k+1,e) the first
				// group: the groups of three after it, read as numeric
				// reads them while they stand in the text with a byte
				// after them, which is no decimal mark; numeric reads
				// the rest.
				g := e
				for uint(g) < uint(n) && r[g] == ' ' {
					h := g + 1
					for h < n && r[h]-'0' < 10 {
						h++
					}
					if h == n {
						g = n // a run at the end, which may go on: numeric reads it
						break
					}
					if h-(g+1) != 3 {
						break
					}
					g = h
				}
				if uint(g) < uint(n) && r[g] != '.' && r[g] != ',' {
					t.set(i, g, s.keepGroups(i, k, g, 0), kGrouped)
				} else {
					s.numeric(&t, i, k)
				}
			} else if group != 0 {
				// Most often one group after a mark ("12,5"):
				// oneGroup, sooner than numeric, which reads what
				// oneGroup does not.
				if !s.oneGroup(&t, i, k, rune(group)) {
					s.numeric(&t, i, k)
				}
			} else {
				canon := ref{int32(i), int32(k - i)} // as digitString does, without a call
				if k > s.inPlace {
					canon = s.digitString(i, k)
				}
				// As numeric would set it (t is zero: no set needed).
				t.start, t.end, t.canon, t.kind = i, k, canon, kInteger
			}
			s.quantity(&t, s.prefix)
			if s.pastEnd {
				return i, i, true
			}
			s.toks = append(s.toks, t)
			k = t.end
		}
		goto next
	plus:
		// A '+' at i: an international phone number when a digit
		// follows, or else nothing before the digit, as scan reads it
		// (and without a digit after it, scan's step reads it).
		{
			if uint(i+1) >= uint(n) || r[i+1]-'0' >= 10 {
				return i, i, false
			}
			var t token
			s.pastEnd = false
			end, ok := s.intlPhone(&t, i)
			if s.pastEnd {
				return i, i, true
			}
			if !ok {
				i++ // to the digit after the '+'
				continue
			}
			s.toks = append(s.toks, t)
			k = end
		}
	next: // (compared unsigned: no second test of the bounds)
		if i = k; uint(i) < uint(n) && r[i] == ' ' {
			i++ // read with it
		}
		// Prose after the number, read here as scan reads it after a
		// round (a space and a word, most often, up to the next number),
		// so that the next number is read without going back to scan.
		if i <= n-9 {
			j, slow := proseRun(r, i)
			if i = j; slow {
				i = s.prose(i)
			}
		} else {
			i = s.prose(i)
		}
		if uint(i) < uint(n) {
			if c := r[i]; c-'0' < 10 {
				continue
			} else if c == '+' {
				goto plus
			} else if c < 0x80 && asciiClass[c]&classLetter != 0 {
				goto word
			}
		}
		return i, i, false
	word:
		// A word at i that prose stops at (it may begin a number
		// word), read with word as scan reads it, and the prose after
		// it as after a number.
		{
			var t token
			s.pastEnd = false
			s.reads++ // as scan counts it
			end, ok := s.word(&t, i)
			if s.pastEnd {
				return i, i, true
			}
			if ok {
				s.toks = append(s.toks, t)
			}
			k = end
		}
		goto next
	}
}

// afterRun marks the ASCII runes that end a plain integer right after its
// digits (endsRun), or after a space after it (spaceEndsRun); those after
// which shapes reads nothing but an integer and what quantity reads
// (quantityRuns); the digits; and the runes that may begin a month name
// or "of" (monthRuns: "3 May"); and '+' (isPlus: integers leaves one
// after a number to scan without reading prose, which would stop at it).
// It has a place for every byte, so that integers reads the byte after a
// number in it without testing that it is ASCII first (a byte beyond is
// none of these). Only integers reads it, a fast path: the WASM guard
// leaves it empty, without the code that fills it.
var afterRun = func() (t [0x100]uint8) {
	if !fast {
		return t
	}
	for c := range rune(0x80) {
		// Right after the digits: none of the runes that start a shape
		// other than a plain number in shapes (a list marker, date, range,
		// ordinal suffix, quarter, time, phone number, grouping or
		// decimals).
		if !isDigit(c) && c != ' ' && c != '.' && c != ',' && c != ')' && c != '-' && c != '/' && c != ':' &&
			c != 'Q' && c != 'q' && !ordinalSuffixes.starts(c) {
			t[c] |= quantityRuns
		}
		// Ending an integer right after its digits with nothing read
		// with it: none of those runes, and nothing quantity reads (no
		// unit, $ or :-, no glued scale and no percent).
		if t[c]&quantityRuns != 0 && quantityAfter[0][c] == 0 {
			t[c] |= endsRun
		}
		// After a space: no percent, range, day and month, unit, scale or
		// period, and no grouping.
		if !isDigit(c) && quantityAfter[1][c] == 0 && c != '-' && c != '/' && !mayStartMonth(c) {
			t[c] |= spaceEndsRun
		}
		if isDigit(c) {
			t[c] |= isDigitRune
		}
		if mayStartMonth(c) {
			t[c] |= monthRuns
		}
	}
	t['+'] |= isPlus
	return t
}()

const (
	endsRun = 1 << iota
	spaceEndsRun
	quantityRuns
	isDigitRune
	monthRuns // after a space: a month name, or "of", may begin with it
	isPlus
)

// digitString returns the digits [i,k) as a string: in the original text
// when they stand there as they are.
func (s *scanner) digitString(i, k int) ref {
	if fast && k <= s.inPlace { // most: no rune before k was folded (place would say so)
		return ref{int32(i), int32(k - i)}
	}
	if src := s.f.src; src != "" {
		p, _ := s.f.place(i)
		if _, e := s.f.place(k - 1); e-p == k-i {
			return ref{int32(p), int32(k - i)}
		}
	}
	s.buf = s.appendDigits(s.buf[:0], i, k)
	return s.intern(s.buf, i)
}

// prefixed reads a number after a currency written before it ("$160",
// "€ 12", "SEK 399"), which ends at e. It is not a number when no plain
// number follows.
func (s *scanner) prefixed(i, e int, unit uint8) (token, int, bool) {
	j := e
	if s.ascii(j) == ' ' {
		j++
	}
	if !isDigit(s.ascii(j)) {
		return token{}, e, false
	}
	s.prefix = unit
	t, next, ok := s.number(j)
	s.prefix = 0
	if !ok || t.kind > kAmbiguous { // not plain
		return token{}, j, false
	}
	t.start = i
	return t, next, true
}

// plain reports whether a number of kind k can carry a scale, unit or period.
func plain(k Kind) bool {
	switch k {
	case KindInteger, KindDecimal, KindGrouped, KindAmbiguous:
		return true
	}
	return false
}

func isBlank(c rune) bool { return c == ' ' || c == '\t' }

// date reads YYYY-MM-DD, YYYY/MM/DD or YYYY.MM.DD (one separator
// throughout, a real month and day; with '.' two digits each) into t. The
// year is [i,k), and sep the rune after it.
func (s *scanner) date(t *token, i, k int, sep rune) bool {
	if sep != '-' && sep != '/' && sep != '.' {
		return false
	}
	if r := s.t; fast && k+8 <= len(r) {
		// Most dates: two digits for the month and two for the day, then
		// a byte in the text that is no digit, all in the eight bytes
		// from k (the separator), read at once. The reads below find the
		// same within the text. The digits are told as digitBytes tells
		// them: the high bit of each byte of d is set where x holds no
		// digit, exactly up to the first byte that carries (none does
		// before the day's last digit where all four are digits and the
		// separators one of '-', '/', '.').
		x := le64at(r, k)
		v := x ^ '0'*ones
		d := ((v + 0x76*ones) | v) & 0x0080_8080_0080_8000 // the bytes of MM, DD and the byte after
		if d == 0x0080_0000_0000_0000 && byte(x>>24) == byte(sep) {
			s.reads += 7
			month, day := byte(v>>8)*10+byte(v>>16), byte(v>>32)*10+byte(v>>40)
			if month < 1 || month > 12 || day < 1 || day > 31 {
				return false
			}
			if sep == '-' && k+6 <= s.inPlace {
				t.set(i, k+6, ref{int32(i), int32(k + 6 - i)}, kDate) // as written, as intern would find
				return true
			}
		}
	}
	minDigits := 1
	if sep == '.' {
		minDigits = 2
	}
	m := s.digits(k + 1)
	if m-(k+1) < minDigits || m-(k+1) > 2 || s.ascii(m) != sep {
		return false
	}
	d := s.digits(m + 1)
	if d-(m+1) < minDigits || d-(m+1) > 2 || sep == '.' && isDigit(s.ascii(d)) {
		return false
	}
	month, day := s.atoi(k+1, m), s.atoi(m+1, d)
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return false
	}
	var canon ref
	if fast && sep == '-' && d-k == 6 && d <= s.inPlace {
		canon = ref{int32(i), int32(d - i)} // YYYY-MM-DD as written, as intern would find
	} else {
		b := s.appendDigits(s.buf[:0], i, k)
		b = appendPad2(append(b, '-'), month)
		b = appendPad2(append(b, '-'), day)
		s.buf = b
		canon = s.intern(b, i)
	}
	t.set(i, d, canon, kDate)
	return true
}

// clock reads a time of day, H:MM or HH:MM with an optional :SS, into t;
// the hour is [i,k), one or two digits before a ':'.
func (s *scanner) clock(t *token, i, k int) bool {
	if r := s.t; fast && k-i == 2 && i >= 2 && k+4 <= len(r) {
		// Most times: HH:MM, then a byte in the text that neither
		// lengthens the minutes nor starts seconds (no digit, nor ':',
		// which is '0'+10), read at once: the eight bytes that end with
		// that byte, shifted to start at the hour (x). The reads below
		// find the same within the text.
		if x := le64at(r, i-2) >> 16; byte(x>>40)-'0' > 10 {
			s.reads += 4
			m1, m2 := byte(x>>24)-'0', byte(x>>32)-'0'
			if m1 >= 10 || m2 >= 10 {
				return false // fewer than two digits for the minutes
			}
			hour := int(byte(x)-'0')*10 + int(byte(x>>8)-'0')
			if hour > 24 || m1 > 5 {
				return false
			}
			if k+3 <= s.inPlace {
				t.set(i, k+3, ref{int32(i), 5}, kTime) // as written, as intern would find
				return true
			}
		}
	}
	m := s.digits(k + 1)
	if m-(k+1) != 2 {
		return false
	}
	hour, minute := s.atoi(i, k), s.atoi(k+1, m)
	if hour > 24 || minute > 59 {
		return false
	}
	end, sec := m, -1
	if s.ascii(m) == ':' {
		if e := s.digits(m + 1); e-(m+1) == 2 {
			if sec = s.atoi(m+1, e); sec <= 59 {
				end = e
			}
		}
	}
	var canon ref
	if fast && k-i == 2 && end <= s.inPlace {
		canon = ref{int32(i), int32(end - i)} // HH:MM as written, as intern would find
	} else {
		b := appendPad2(s.buf[:0], hour)
		b = appendPad2(append(b, ':'), minute)
		if end > m {
			b = appendPad2(append(b, ':'), sec)
		}
		s.buf = b
		canon = s.intern(b, i)
	}
	t.set(i, end, canon, kTime)
	return true
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// intlPhone reads into t an international phone number: '+', then groups
// of digits separated by single spaces or hyphens, 7 to 15 digits in all
// (E.164). It returns where the number ends. It reads the bytes itself, up
// to the rune after the last group it looked at, as digits and ascii would.
func (s *scanner) intlPhone(t *token, i int) (end int, ok bool) {
	const maxDigits = 15
	r := s.t
	if fast && i+phoneReach <= len(r) {
		// Most numbers (fast path): the groups read eight bytes at a time
		// (digitBytes), their digits written after the '+' as they are
		// read (see formRoom), which makes the canonical form without a
		// second pass. This reads what the general path below would; it
		// leaves to it (having kept nothing) a group whose bytes reach
		// into the last eight of the text, and a run of seven digits or
		// more.
		//
		// The groups end at the first two bytes in a row that are no
		// digits at the latest (a separator is followed by a digit). When
		// two such bytes come among the eight after the first digit, and
		// a byte that is no digit among the first six of these, fewer
		// than seven digits come before them: the number is none ("+1 1
		// 1 1 +1"), told at once without reading its groups. (The groups
		// hold no seven digits in a row, which the general path would
		// read, and end before the last eight bytes.)
		if nd := nonDigits(le64at(r, i+2)); nd&(nd>>8) != 0 && nd&(0x80*ones>>16) != 0 {
			s.reads += bits.TrailingZeros64(nd&(nd>>8))>>3 + 11 // up to the two, and eight bytes after, as below
			return 0, false
		}
		x := le64at(r, i+1) // the first group: scan calls intlPhone at a digit after the '+'
		m := digitBytes(x)
		if m == 7 {
			goto general
		}
		b, form := s.formRoom()
		b[0] = '+'
		put64((*[8]byte)(b[1:9]), x) // the bytes after the digits are overwritten or dropped
		w, g := 1+m, i+1+m           // w bytes of the form; g: after the last group
		end = g
		for last := len(r) - 9; r[g] == ' ' || r[g] == '-'; {
			// The next group: one to four digits, at most 15 in all.
			if g > last {
				goto general
			}
			x = le64at(r, g+1)
			if m = digitBytes(x); m == 7 {
				goto general
			}
			if uint(m-1) > 3 || w+m > 16 {
				break
			}
			put64((*[8]byte)(b[w&15:]), x) // at most 14 digits before these
			w, g = w+m, g+1+m
			end = g
		}
		s.reads += g + 9 - i
		if w < 8 { // fewer than 7 digits
			return 0, false
		}
		// Seven digits or more, at most six before a separator: the text
		// does not spell the form (see phone).
		c, ok := s.keepForm(form, w)
		if !ok {
			c = s.keep(s.aside[:w])
		}
		t.set(i, end, c, kPhone)
		return end, true
	}
general:
	total, g := 0, i+1 // g: where the group being read ends
	for {
		j := g // the group starts at j
		for g < len(r) && r[g]-'0' < 10 {
			g++
		}
		n := g - j
		if total > 0 && (n == 0 || n > 4) || total+n > maxDigits {
			break
		}
		total, end = total+n, g
		if g >= len(r) || r[g] != ' ' && r[g] != '-' {
			break
		}
		g++
	}
	s.reads += g - i
	if g >= len(r) && !s.final {
		s.pastEnd = true
	}
	if total < 7 {
		return 0, false
	}
	s.phone(t, i, end)
	return end, true
}

// phoneReach is how many bytes from its start a phone number and the bytes
// read after it most often take: the fast paths of intlPhone and
// nationalPhone read none nearer the end of the text (where the stream
// guard reads them, as the text grows), which the general path reads.
const phoneReach = 24

// formRoom returns where the phone readers' fast paths write a canonical
// form as they read it, eight bytes at a time: the room after canons where
// it has 24 bytes, else the scanner's aside; and n, the length of canons,
// or -1 for the aside. Kept (keepForm, or keep for the aside), either
// grows canons as keep would.
func (s *scanner) formRoom() (b *[24]byte, n int) {
	if n := len(s.canons); cap(s.canons)-n >= 24 {
		return (*[24]byte)(s.canons[n : n+24]), n
	}
	return &s.aside, -1
}

// keepForm takes the first m bytes of the form written to formRoom's
// bytes at n, as it returned, into canons and returns their ref; for the
// aside it returns false, and the caller keeps them with keep. (Small
// enough to inline, for the room canons have for most numbers.)
func (s *scanner) keepForm(n, m int) (ref, bool) {
	if n < 0 {
		return ref{}, false
	}
	s.canons = s.canons[:n+m]
	return ref{^int32(n), int32(m)}, true
}

// nationalPhone reads into t a national phone number starting with 0: an
// area code and a hyphen ("08-123 45 67", "0771-123 456"), or
// space-separated groups ("070 123 45 67"); 7 to 12 digits in all. It
// returns where the number ends.
func (s *scanner) nationalPhone(t *token, i, k int) (end int, ok bool) {
	area := k - i
	if area < 2 || area > 4 {
		return 0, false
	}
	if r := s.t; fast && i+phoneReach <= len(r) {
		// Most numbers (fast path), as in intlPhone: the area code and
		// each group written to the form as they are read. After a
		// hyphen, the first group has two to eight digits and the others
		// two to four; after a space, all have two or three.
		hyphen, most := r[k] == '-', 4
		if !hyphen {
			if r[k] != ' ' || area < 3 {
				return 0, false
			}
			most = 3
		}
		b, form := s.formRoom()
		put64((*[8]byte)(b[:8]), le64at(r, i)) // the area code, and bytes after it the next group overwrites
		w, g := area, k                        // w digits so far; g: after the last group
		if hyphen {
			x := le64at(r, k+1)
			m := digitBytes(x)
			if m == 7 {
				goto general
			}
			if m < 2 {
				return 0, false
			}
			put64((*[8]byte)(b[w&15:]), x) // after at most four digits
			w, g = w+m, k+1+m
		}
		end = g
		for last := len(r) - 9; r[g] == ' ' || r[g] == '-' && hyphen; {
			if g > last {
				goto general
			}
			x := le64at(r, g+1)
			m := digitBytes(x)
			if m == 7 {
				goto general
			}
			if uint(m-2) > uint(most-2) || w+m > 12 {
				break
			}
			put64((*[8]byte)(b[w&15:]), x) // after at most 10 digits
			w, g = w+m, g+1+m
			end = g
		}
		s.reads += g + 9 - i
		// After a space, each group read took its digits and a space,
		// and the area code its digits: g-i-w groups.
		if w < 7 || !hyphen && g-i-w < 3 {
			return 0, false
		}
		c, ok := s.keepForm(form, w)
		if !ok {
			c = s.keep(s.aside[:w])
		}
		t.set(i, end, c, kPhone)
		return end, true
	}
general:
	total, groups := area, 0
	end = k
	switch s.ascii(k) {
	case '-':
		g := s.digits(k + 1)
		n := g - (k + 1)
		if n < 2 || n > 8 {
			return 0, false
		}
		total += n
		end = g
		for {
			sep := s.ascii(end)
			if sep != ' ' && sep != '-' {
				break
			}
			g := s.digits(end + 1)
			n := g - (end + 1)
			if n < 2 || n > 4 || total+n > 12 {
				break
			}
			total += n
			end = g
		}
	case ' ':
		if area < 3 {
			return 0, false
		}
		for s.ascii(end) == ' ' {
			g := s.digits(end + 1)
			n := g - (end + 1)
			if n < 2 || n > 3 || total+n > 12 {
				break
			}
			total += n
			end = g
			groups++
		}
		if groups < 3 {
			return 0, false
		}
	default:
		return 0, false
	}
	if total < 7 {
		return 0, false
	}
	s.phone(t, i, end)
	return end, true
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

// le64at returns the eight bytes of t from i, which i+8 <= len(t) must
// keep within t, as le64 reads them (one load; as prose reads them).
func le64at(t string, i int) uint64 {
	return le64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(t)), i)))
}

// byteAt returns the byte of t at i, which the caller keeps within t,
// read without a test of its bounds, where the compiler cannot prove them.
func byteAt(t string, i int) byte {
	return *(*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(t)), i))
}

// put64 writes x to b, the lowest byte first (one store where the machine
// is little-endian).
func put64(b *[8]byte, x uint64) {
	b[0], b[1], b[2], b[3] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	b[4], b[5], b[6], b[7] = byte(x>>32), byte(x>>40), byte(x>>48), byte(x>>56)
}

// phone makes t the phone number [i,end). Its canonical form is its
// digits, after a '+' when it starts with one.
func (s *scanner) phone(t *token, i, end int) {
	b := s.buf[:0]
	if s.t[i] == '+' {
		b = append(b, '+')
	}
	b = s.appendDigits(b, i, end)
	s.buf = b
	if fast && len(b) != end-i {
		// A space or hyphen separates the digits: the text does not
		// spell the form.
		t.set(i, end, s.keep(b), kPhone)
		return
	}
	t.set(i, end, s.intern(b, i), kPhone)
}

// numeric reads into t an integer or decimal whose first run of digits is
// [i,k): space-grouped thousands ("10 000"), then groups after '.' or ','.
// The shapes are settled by SPEC §3 rule 6.
func (s *scanner) numeric(t *token, i, k int) {
	intEnd, spaced := k, false // the integer part is [i,intEnd)
	c := s.ascii(k)            // the rune after the integer part
	if c == ' ' && k-i <= 3 && s.t[i] != '0' {
		for c == ' ' {
			g := s.digits(intEnd + 1)
			if g-(intEnd+1) != 3 {
				break
			}
			intEnd, spaced = g, true
			c = s.ascii(intEnd)
		}
	}
	if fast {
		if !spaced && s.oneGroup(t, i, k, c) {
			return
		}
		if spaced && c != '.' && c != ',' { // "10 000": its digits
			t.set(i, intEnd, s.keepGroups(i, k, intEnd, 0), kGrouped)
			return
		}
	}
	// Groups after decimal marks or point/comma grouping.
	var gs groups
	end := intEnd
	for (c == '.' || c == ',') && isDigit(s.ascii(end+1)) {
		g := s.digits(end + 1)
		gs.add(group{sep: c, start: end + 1, end: g})
		end = g
		c = s.ascii(end)
	}
	kind := kInteger
	var canon ref
	if end == k {
		canon = s.digitString(i, k) // most numbers
	} else {
		b := s.appendDigits(s.buf[:0], i, intEnd) // the integer part
		// Only an integer part of up to three digits, not starting with 0,
		// can be followed by groups of thousands; when spaced it was not.
		short := !spaced && k-i <= 3 && s.t[i] != '0'
		switch {
		case gs.n == 0:
			kind = kGrouped
		case gs.n == 1 && spaced:
			b, kind = s.appendDecimal(b, gs.first), kDecimal
		case gs.n == 1:
			if gs.first.len() == 3 && short {
				// "1,000" and "1.000": one thousand, or one with three decimals.
				b, kind = s.appendShape(b, intEnd, end), kAmbiguous
			} else {
				b, kind = s.appendDecimal(b, gs.first), kDecimal
			}
		case spaced:
			b, kind = s.appendShape(b, intEnd, end), kAmbiguous
		default:
			// Two or more groups: thousands grouping ("181,674,817"),
			// grouping with a decimal part in the other mark ("1,234.56",
			// "1.234,5"), or else a shape that only the same shape grounds.
			switch sep, last := gs.first.sep, gs.last; {
			case short && gs.thousands && last.sep == sep && last.len() == 3:
				b, kind = s.appendDigits(b, intEnd, end), kGrouped
			case short && gs.thousands && last.sep != sep:
				b, kind = s.appendDecimal(s.appendDigits(b, intEnd, last.start), last), kDecimal
			default:
				b, kind = s.appendShape(b, intEnd, end), kAmbiguous
			}
		}
		s.buf = b
		if spaced || fast && len(b) > k-i && b[k-i] != s.t[k] {
			// Never spelled so: the text has spaces, or another byte
			// after the integer part ("12,5" is "12.5").
			canon = s.keep(b)
		} else {
			canon = s.intern(b, i)
		}
	}
	t.set(i, end, canon, kind)
}

// oneGroup reads for numeric, sooner, the most common number with a mark
// after its integer part [i,k): one group of digits after the mark c, and
// no more ("12,5", "99.9", "1,000"). Its canonical form is the number up
// to its last digit not a trailing zero of a decimal, with the canonical
// mark, which is often the one written. oneGroup reads what numeric would,
// byte by byte as digits and ascii would read them while they stand in the
// text; with any other number, one whose reads reach the last byte of the
// text (where one may look past its end), or one that stands in the text
// as written but not in place, it returns false, and numeric reads it
// again.
func (s *scanner) oneGroup(t *token, i, k int, c rune) bool {
	x := s.t
	if c != '.' && c != ',' || k+2 >= len(x) || x[k+1]-'0' >= 10 {
		return false
	}
	// The group is [k+1,g); g is compared unsigned, so that the byte
	// read needs no test of its bounds.
	g := k + 2
	for uint(g) < uint(len(x)) && x[g]-'0' < 10 {
		g++
	}
	if g+1 >= len(x) {
		return false
	}
	s.reads += g - k + 1
	if m := x[g]; (m == '.' || m == ',') && x[g+1]-'0' < 10 {
		return s.thousands(t, i, k, c, g) // more groups
	}
	kind, mark, end := kDecimal, byte('.'), g // the canonical form: [i,end) with mark at k
	if g-k == 4 && k-i <= 3 && x[i] != '0' {
		kind, mark = kAmbiguous, ',' // "1,000" and "1.000": see numeric
	} else {
		for end > k+1 && x[end-1] == '0' {
			end-- // trailing zeros dropped
		}
		if end == k+1 {
			end, mark = k, byte(c) // no decimals left: the integer
		}
	}
	var canon ref
	if mark == byte(c) { // as written
		if end > s.inPlace {
			return false
		}
		canon = ref{int32(i), int32(end - i)}
	} else {
		n := s.grow(end - i)
		if fast && end-i <= 8 && i+8 <= len(x) && n+8 <= cap(s.canons) {
			// Up to eight bytes, copied in one write where canons
			// have room for it.
			b := s.canons[n : n+8]
			put64((*[8]byte)(b), le64at(x, i))
			b[k-i] = mark
			s.canons = s.canons[:n+end-i]
		} else {
			b := append(s.canons, x[i:end]...)
			b[n+k-i] = mark
			s.canons = b
		}
		canon = ref{^int32(n), int32(end - i)}
	}
	t.set(i, g, canon, kind)
	return true
}

// thousands reads for oneGroup, sooner than numeric, a number grouped in
// thousands with one mark throughout ("181,674,817", "1.000.000"), or with
// a decimal part after the other mark ("1,234.56"): an integer part [i,k)
// of up to three digits, not starting with 0, then groups of three digits
// each after the mark c, the first [k+1,g), and another group after it.
// Its canonical form is its digits, with the decimals after a '.' (see
// numeric). It reads what numeric would, as oneGroup does (g+1 is in the
// text); with any other number it returns false.
func (s *scanner) thousands(t *token, i, k int, c rune, g int) bool {
	x := s.t
	if k-i > 3 || x[i] == '0' || g-k != 4 {
		return false
	}
	kind, end := kGrouped, g // the number is [i,end)
	for {
		m := x[g] // (g+1 is in the text: see oneGroup and below)
		if m != '.' && m != ',' || x[g+1]-'0' >= 10 {
			end = g
			break
		}
		e := g + 2
		for uint(e) < uint(len(x)) && x[e]-'0' < 10 {
			e++
		}
		if e+1 >= len(x) {
			return false
		}
		if m == byte(c) && e-g == 4 {
			g = e
			continue
		}
		if m == byte(c) {
			return false
		}
		// After the other mark: decimals, when no group follows.
		if m := x[e]; (m == '.' || m == ',') && x[e+1]-'0' < 10 {
			return false
		}
		kind, end = kDecimal, e
		break
	}
	s.reads += end - g
	e, more := g, 0 // the decimals kept are [g+1,e), more bytes with the '.'
	if kind == kDecimal {
		for e = end; e > g+1 && s.t[e-1] == '0'; e-- { // trailing zeros dropped
		}
		if e > g+1 {
			more = e - g
		}
	}
	canon := s.keepGroups(i, k, g, more)
	if more > 0 {
		// Kept right after the digits, where canons ends.
		s.canons = append(append(s.canons, '.'), s.t[g+1:e]...)
		canon.n += int32(e - g)
	}
	t.set(i, end, canon, kind)
	return true
}

// keepGroups keeps the digits of [i,g), a number grouped in thousands: the
// integer part [i,k), then groups of three digits, each after one byte;
// with room for more bytes after them, kept next.
func (s *scanner) keepGroups(i, k, g, more int) ref {
	m := k - i + (g-k)>>2*3 // the digits
	n := s.grow(m + more)
	if t := s.t; fast && g+5 <= len(t) && n+m+5 <= cap(s.canons) {
		// Eight bytes read and written at once for the integer part (of
		// one to three digits, as every caller has it) and for each group
		// (without its mark), each written over the bytes after the last:
		// the last group's eight bytes lie within the text and within
		// canons' room.
		b := s.canons[:cap(s.canons)]
		put64((*[8]byte)(b[n:n+8]), le64at(t, i))
		w := n + k - i
		for p := k + 1; p < g; p += 4 {
			put64((*[8]byte)(b[w:w+8]), le64at(t, p))
			w += 3
		}
		s.canons = s.canons[:w]
		return ref{^int32(n), int32(m)}
	}
	b := s.canons
	for p := i; p < k; p++ { // one to three digits: no copy called
		b = append(b, s.t[p])
	}
	for p := k + 1; p < g; p += 4 {
		b = append(b, s.t[p], s.t[p+1], s.t[p+2])
	}
	s.canons = b
	return ref{^int32(n), int32(len(b) - n)}
}

// group is a run of digits after a '.' or ',' in a number.
type group struct {
	sep        rune
	start, end int
}

func (g group) len() int { return g.end - g.start }

// groups sums up the groups after the integer part of a number, read one
// by one: how many, the first and the last, and whether every group before
// the last is three digits after the first group's mark.
type groups struct {
	n           int
	first, last group
	thousands   bool
}

func (gs *groups) add(g group) {
	if gs.n == 0 {
		gs.first, gs.thousands = g, true
	} else {
		gs.thousands = gs.thousands && gs.last.sep == gs.first.sep && gs.last.len() == 3
	}
	gs.last = g
	gs.n++
}

// appendShape appends the groups [i,end) of a shape with no settled
// reading to its integer part in b, each after a ','. That is a form no
// decimal (always '.') or integer canonical form takes, so only the same
// shape grounds it.
func (s *scanner) appendShape(b []byte, i, end int) []byte {
	for _, c := range []byte(s.t[i:end]) {
		if c == '.' {
			c = ','
		}
		b = append(b, c)
	}
	return b
}

// appendDecimal appends the decimals g to the integer part in b, in the
// canonical form of a decimal: '.' as the mark, trailing zeros dropped
// ("12,50" → "12.5", "12.00" → "12").
func (s *scanner) appendDecimal(b []byte, g group) []byte {
	end := g.end
	for end > g.start && s.t[end-1] == '0' {
		end--
	}
	if end == g.start {
		return b
	}
	return s.appendDigits(append(b, '.'), g.start, end)
}

// appendDigits appends the digits among bytes [i,j) to b.
func (s *scanner) appendDigits(b []byte, i, j int) []byte {
	if n := len(b); fast && n+j-i <= cap(b) {
		// Room for every byte (as most often): each is written, and
		// moved past when a digit, with no test for room.
		b = b[:n+j-i]
		for _, c := range []byte(s.t[i:j]) {
			b[n] = c
			n += int(isDigitByte[c])
		}
		return b[:n]
	}
	for _, c := range []byte(s.t[i:j]) {
		if c-'0' < 10 {
			b = append(b, c)
		}
	}
	return b
}

// isDigitByte is 1 for the bytes of the ASCII digits and 0 for the others:
// a look-up that appendDigits adds, with no comparison.
var isDigitByte = [256]uint8{'0': 1, '1': 1, '2': 1, '3': 1, '4': 1, '5': 1, '6': 1, '7': 1, '8': 1, '9': 1}

// atoi returns the value of the digits [i,j) (at most a few).
func (s *scanner) atoi(i, j int) int {
	n := 0
	for _, c := range []byte(s.t[i:j]) {
		n = n*10 + int(c-'0')
	}
	return n
}

// appendPad2 appends n (0–99) in two digits.
func appendPad2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}

// intern returns b as a ref into the original text when the text spells b
// from folded byte i on (so most canonical forms cost nothing), else into canons.
func (s *scanner) intern(b []byte, i int) ref {
	if q := i + len(b); fast && q <= s.inPlace {
		// Most: the bytes up to q stand in the original as they are, so
		// the original spells b from i on when the folded text does.
		if s.t[i:q] == string(b) {
			return ref{int32(i), int32(len(b))}
		}
		return s.keep(b)
	}
	if src := s.f.src; src != "" && i < len(s.t) {
		p, _ := s.f.place(i)
		if q := p + len(b); q <= len(src) && src[p:q] == string(b) {
			return ref{int32(p), int32(len(b))}
		}
	}
	return s.keep(b)
}

// keep writes b to canons and returns its ref. str makes the strings of
// the numbers filled over canons in place (unsafe.String, as a
// strings.Builder does), so bytes once in canons are never written again:
// canons is only appended to, a full one is replaced by a larger one, and
// scanText leaves the next text none (TestNumbersOutliveTheScanner). A
// text's canons start with the room the last text's took (at most this
// text's length, at least 16 bytes), so a text most often costs one
// allocation for them all.
// The few canonical forms made as strings are kept as []byte(…), a copy on
// the stack for most.
func (s *scanner) keep(b []byte) ref {
	n := s.grow(len(b))
	s.canons = append(s.canons, b...)
	return ref{^int32(n), int32(len(b))}
}

// grow makes room in canons for m more bytes, as keep needs for a form of
// m bytes, and returns the length of canons: where they go. A form written
// there directly (past the length, so in canons only once it is extended
// over them) must be m bytes long, so that canons grow as keep would grow
// them: by the exact length of each form.
func (s *scanner) grow(m int) int {
	n := len(s.canons)
	if n+m > cap(s.canons) {
		c := make([]byte, n, max(2*cap(s.canons), n+m, min(s.room, len(s.t)), 16))
		copy(c, s.canons)
		s.canons = c
	}
	return n
}

// decimal is the canonical form of a decimal: '.' as the mark, trailing
// zeros dropped ("12,50" → "12.5", "12.00" → "12").
func decimal(whole, frac string) string {
	for frac != "" && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// leadingFraction reads ".5" or ",5" after a space: the decimal 0.5.
func (s *scanner) leadingFraction(i int) (token, int, bool) {
	g := s.digits(i + 1)
	t := token{start: i, end: g, kind: kDecimal, canon: s.keep([]byte(decimal("0", s.str(s.digitString(i+1, g)))))}
	s.quantity(&t, s.prefix)
	return t, t.end, true
}

var percentWords = newWordSet(map[string]string{"percent": "", "procent": "", "per cent": ""})
