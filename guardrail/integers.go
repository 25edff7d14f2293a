package guardrail

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
		// (k+1 is in r, proved by the test above; so is k, though the
		// compiler, which cannot tell so, tests it.)
		c, d := r[k], r[k+1]
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
				if d-'0' < 10 && (c == ':' && k-i <= 2 || c == '-' && (k-i == 4 || r[i] == '0' && k-i >= 2 && k-i <= 3)) {
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
			if r[i] == '0' { // (the digit at i)
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
		if k-i <= 2 && afterClockWord(r[:i]) {
			return i, k, false // an hour after "kl" ("kl 9 X0"): quantity reads it, in shapes
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
