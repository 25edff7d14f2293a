package guardrail

import (
	"math/bits"
)

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
