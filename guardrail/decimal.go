package guardrail

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
