package guardrail

import (
	"unicode"
	"unicode/utf8"
)

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
	from := len(s.toks)
	stop, open = s.steps(i)
	s.denDays(from)
	return stop, open
}

// denDays makes each integer of s.toks[from:] that Swedish "den" stands
// before, 1 to 31 in one or two digits with no unit, the ordinal it is: a
// day of a month ("den 25 varje månad" is the 25th, as "den 25:e" is; "den
// 18 år" stays 18 years).
func (s *scanner) denDays(from int) {
	t := s.t
	for k := from; k < len(s.toks); k++ {
		tk := &s.toks[k]
		i := tk.start
		if tk.kind != kInteger || tk.unit != 0 || i < 4 || t[i-4]|0x20 != 'd' || t[i-3] != 'e' || t[i-2] != 'n' || t[i-1] != ' ' ||
			i > 4 && (t[i-5] >= 0x80 || isLetter(rune(t[i-5]))) {
			continue
		}
		if d := s.str(tk.canon); len(d) <= 2 && d != "0" && d != "00" && digitsValue(d) <= 31 {
			*tk = s.ordinalToken(i, i+len(d), itoa(int64(digitsValue(d))))
		}
	}
}

// steps is scan's loop.
func (s *scanner) steps(i int) (stop int, open bool) {
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
		unit = s.dollar(i) // "$5", "A$5", "US$5"
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
	case '&':
		return s.charRef(t, i)
	default:
		unit = symbolCurrency(c) // '€', '£', '¥', '₹', …
	}
	if unit != 0 {
		*t, next, ok = s.prefixed(i, i+utf8.RuneLen(c), unit)
		return next, ok
	}
	if c >= 0x80 {
		if unreadableRune(c) {
			return s.unreadable(t, i), true
		}
		_, size := utf8.DecodeRuneInString(s.t[i:])
		return i + size, false
	}
	return i + 1, false
}

// inert marks the ASCII runes that start nothing: step reads them alone
// and goes on to the next rune.
var inert = func() (t [0x80]bool) {
	for c := range rune(0x80) {
		t[c] = !isDigit(c) && !isLetter(c) && c != '$' && c != '+' && c != '-' && c != '.' && c != ',' && c != '&'
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
// tests above inline. A Han numeral is no letter to the scanner (see
// unreadableRune): it ends a word, and is read alone.

//go:noinline
func isWideAlnum(c rune) bool { return (unicode.IsLetter(c) || unicode.IsMark(c)) && !hanNumeral(c) }

//go:noinline
func isWideLetter(c rune) bool { return unicode.IsLetter(c) && !hanNumeral(c) }

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
	c := s.ascii(k)
	if c == notASCII && s.fraction(t, i, k) { // "399½"
		s.quantity(t, s.prefix)
		return t.end, true
	}
	switch c {
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
