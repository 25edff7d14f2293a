package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// This file reads what is printed with a number and makes it a quantity:
// a scale ("1.5 million" is 1500000), a unit or currency ("399 kr", "5 TB",
// "$160"), a period ("per month", "/mån"), and the structured kinds that are
// written with words (dates with month names, quarters, ordinals).
//
// Every look at the text goes through scanner.at, so a quantity is final only
// once nothing after it can still change it: in hold mode "399" is held while
// it may still become "399 €" or "399 kr per year".

// quantity reads what follows a plain number (integer, decimal, grouped,
// ambiguous): a percent sign or word, a scale, a unit, a period.
func (s *scanner) quantity(t *token, prefixUnit uint8) {
	if t.kind == kInteger && s.ascii(t.end) == ' ' {
		// "2 and a half hours", "2 och en halv timme": 2.5
		if c := s.ascii(t.end+1) | 0x20; c == 'a' || c == 'o' {
			if h := s.halfAfter(t.end + 1); h != 0 {
				t.canon, t.end, t.kind = s.keep([]byte(decimal(s.str(t.canon), "5"))), h, kDecimal
			}
		}
	}
	if prefixUnit == 0 && s.hour(t) {
		return // "6 pm", "kl. 8" (see hours.go)
	}
	s.quantityOf(t, prefixUnit)
	if t.period == 0 && t.unit-1 < lastCurrency {
		// A price with no period of its own: one its sentence names.
		t.period = s.pricePeriod(t.start, t.end)
	}
}

// quantityOf is quantity, but for a price's period named apart from it.
func (s *scanner) quantityOf(t *token, prefixUnit uint8) {
	k := t.end
	// What may follow is told by the rune after the number, or after a
	// space after it, read as ASCII (see quantityAfter); most numbers are
	// followed by nothing read below.
	var c rune
	var f uint8
	j := k // the word after the number would start at j
	if text := s.t; fast && uint(k+1) < uint(len(text)) {
		// Both bytes in the text: read without ascii's checks (a byte
		// beyond ASCII has the flags of notASCII in quantityAfter, and is
		// never ' ' or '/', which is all c is compared with), and not
		// counted (s.reads): they are bytes the scan passes after the
		// number.
		if c = rune(text[k]); c == ' ' {
			j++
			f = quantityAfter[1][text[j]]
		} else {
			f = quantityAfter[0][c]
		}
	} else if c = s.ascii(k); c == ' ' {
		j++
		f = quantityAfter[1][uint8(s.ascii(j))]
	} else {
		f = quantityAfter[0][uint8(c)]
	}
	if f == 0 {
		t.unit = prefixUnit
		return
	}
	if f == qHyphen {
		// A unit of letters joined by a hyphen ("a 14-day trial", "a
		// 5-GB plan", "14-dagars"; not "5-$"): the unit, read as after a
		// space, and what it is per.
		j = k + 1
		if f = quantityAfter[1][uint8(s.ascii(j))] & qUnit; f == 0 || !isLetter(s.at(j)) {
			t.unit = prefixUnit
			return
		}
		f |= qPeriod
	}
	// A percent, which ends at end: its canonical form is the number's
	// with a '%'. Only a '%' right after the number can spell that in the
	// text ("99.9%" as printed costs nothing); after a space or as a word
	// it is kept without a look.
	end := 0
	if f&qPercent != 0 {
		end = j + 1
	} else if f&qPercentWord != 0 {
		if _, e, ok := s.read(percentWords, j); ok {
			end = e
		}
	}
	if end > 0 {
		// (The sign is right after the number, end == k+1, just when j
		// == k: a percent word comes after a space.)
		switch r := t.canon; {
		case fast && j == k && r.at >= 0 && r.n > 0 && int(r.at+r.n) < len(s.f.src) && s.f.src[r.at+r.n] == '%':
			// The canonical form stands in the text, with the sign
			// right after it: that makes the percent's.
			t.canon.n++
		case fast && j != k:
			// Kept with a '%' after the canonical form when that is
			// the last form kept ("12,5 %": "12.5"), which extends it,
			// else after a copy of it.
			if n := len(s.canons); r.at < 0 && r.n >= 0 && int(^r.at)+int(r.n) == n {
				s.grow(1)
				t.canon.n++
				s.canons = append(s.canons, '%')
			} else if r.at >= 0 && uint32(r.n) < 8 && int(r.at)+8 <= len(s.f.src) && n+8 <= cap(s.canons) {
				// A form of up to seven bytes in the text, with the
				// sign after it, in one write where canons have room.
				m := int(r.n) * 8
				put64((*[8]byte)(s.canons[n:n+8]), le64at(s.f.src, int(r.at))&(1<<m-1)|'%'<<m)
				s.canons = s.canons[:n+int(r.n)+1]
				t.canon = ref{^int32(n), r.n + 1}
			} else {
				form := s.str(r)
				n := s.grow(len(form) + 1)
				s.canons = append(append(s.canons, form...), '%')
				t.canon = ref{^int32(n), int32(len(form) + 1)}
			}
		default:
			s.buf = append(append(s.buf[:0], s.str(r)...), '%')
			if j == k {
				t.canon = s.intern(s.buf, t.start)
			} else {
				t.canon = s.keep(s.buf) // the text spells no percent so
			}
		}
		t.end, t.kind = end, kPercent
	} else {
		t.unit = prefixUnit
		// A scale glued to the digits ("50k", "$8.2m"; a bare "5m" is
		// metres), or after a space ("1.5 million").
		if f&(qGlued|qScale) != 0 { // (most numbers: neither)
			var w *trieNode
			e, ok := 0, false
			if f&qGlued != 0 {
				w, e, ok = s.read(gluedScales, k)
				// The one-letter word "m" is a scale after a unit
				// written before the number (t.unit, set above), or
				// before a currency after a space ("15m euros"):
				// metres of money are none.
				m := e-k == 1 && s.t[k]|0x20 == 'm'
				ok = ok && (!m || t.unit != 0 || s.currencyAfter(e))
			}
			if !ok && t.kind != kWords && f&qScale != 0 && (!fast || s.may(scaleWords, j)) {
				w, e, ok = s.read(scaleWords, j)
			}
			if ok {
				s.scale(t, w, e)
				if j = t.end; s.ascii(j) == ' ' {
					j++
				}
				f |= qUnit // what follows the scale word
			}
		}
		// A unit or currency right after the number, or after one space
		// ("399 kr", "5TB", "399:-", "12 €"), unless one written before
		// is not a currency.
		if t.unit <= lastCurrency && f&qUnit != 0 {
			// (readLetters reads most units, read the rest, as
			// quantity calls each itself: read in a call of its own,
			// these would cost more.)
			code, e := uint8(0), -1
			if fast {
				code, e = s.readLetters(unitWords, j)
			}
			ok := e > 0
			if e < 0 {
				var w *trieNode
				if w, e, ok = s.read(unitWords, j); ok {
					code = w.code
				}
			}
			// "$5 million dollars" keeps $; "$5 kr" is not read.
			if ok && (t.unit == 0 || code == t.unit) {
				t.unit, t.end = code, e
				if code <= lastCurrency && s.ascii(e) == ' ' {
					// A currency's cents: "5 euro cents" is 5 cents.
					if w, e, ok := s.read(unitWords, e+1); ok && (w.code == cent || w.code == penny || w.code == ore) {
						t.unit, t.end = w.code, e
					}
				}
			} else if !ok && t.unit == 0 && s.ascii(j-1) == ' ' {
				// "5 Canadian dollars", "399 danska kronor"
				if code, e, ok := s.qualifiedCurrency(j); ok {
					t.unit, t.end = code, e
				} else if s.inches(t.start, j) {
					t.unit, t.end = inch, j+2
				}
			}
		}
	}
	// What the quantity is per: "/month", "/mån", " per year", " a month",
	// " i månaden", " monthly".
	if p := t.end; p != k { // after what was read: told by the rune after it
		var b byte // the byte after a space at p, as ascii reads it
		if text := s.t; fast && uint(p+1) < uint(len(text)) {
			// Both bytes in the text: read as at the number, without
			// ascii's checks, and not counted (s.reads): they are bytes
			// the scan passes after the number.
			c, b = rune(text[p]), text[p+1]
		} else if c = s.ascii(p); c == ' ' {
			b = uint8(s.ascii(p + 1))
		}
		f = qPeriod
		if c == ' ' {
			f = 0
			// (quantityAfter tells periodStarts.starts by a byte of
			// the rune, with no tables of the set to index.)
			if quantityAfter[1][b]&qPeriod != 0 && (!fast || s.may(periodStarts, p+1)) {
				f = qPeriod
			}
		}
	} else if fast {
		// Right after the number: the rune after it read again, not
		// kept through the reads above for a case that seldom comes
		// (the compiler keeps it on the stack where a path to the
		// switch below does not set it).
		if f&qPeriod == 0 {
			return
		}
		c = s.ascii(k)
	}
	if f&qPeriod == 0 {
		return
	}
	switch p := t.end; c {
	case '/':
		code, e := uint8(0), -1 // as for a unit
		if fast {
			code, e = s.readLetters(periodWords, p+1)
		}
		if e > 0 {
			t.period, t.end = code, e
		} else if e < 0 {
			if w, e, ok := s.read(periodWords, p+1); ok {
				t.period, t.end = w.code, e
			}
		}
	case ' ':
		if fast && p == k && !s.may(periodStarts, p+1) {
			return
		}
		if code, e := s.spacedPeriod(p, t.unit); code != 0 {
			t.period, t.end = code, e
		}
	}
	if t.period != 0 {
		// A price per a count and a time: "99 kr per user per month".
		if code, e := s.secondPeriod(t.period, t.end, t.unit); code != 0 {
			t.period, t.end = code, e
		}
	}
	if t.period != 0 && t.unit != 0 {
		// A unit per a period may be a rate of its own: km/h, MB/s.
		t.unit, t.period = rate(t.unit, t.period)
	}
}

// quantityAfter tells what quantity reads after a number by the rune
// right after it ([0]) or after a space after it ([1]) (and, for spelled,
// whether a point word may follow a spelled-out number), as ascii reads it
// (a byte of it, uint8(c)): the ASCII runes (of either case) that begin
// something it reads; at 0x80, a rune beyond ASCII (notASCII), which may
// begin a word of a set, as wordSet.starts takes it, but no scale word
// right after the digits (isLetter(notASCII) is false); at 0xFF the end
// of the text (eof), where every read finds nothing, marked as notASCII.
// Every byte beyond ASCII is marked so, for a byte of the text read as it
// stands.
var quantityAfter = func() (t [2][0x100]uint8) {
	for _, m := range [...]struct {
		at int // 0: right after the number, 1: after a space
		f  uint8
		ws *wordSet
	}{{1, qPercentWord, percentWords}, {0, qGlued, gluedScales}, {0, qScale, scaleWords},
		{1, qScale, scaleWords}, {0, qUnit, unitWords}, {1, qUnit, unitWords}, {1, qPeriod, periodStarts},
		{1, qPoint, pointWords}} {
		for b := range notASCII + 1 {
			if m.ws.starts(b) {
				t[m.at][b] |= m.f
			}
		}
	}
	t[0]['%'], t[1]['%'], t[0]['/'], t[0]['-'] = qPercent, qPercent, qPeriod, qHyphen
	t[0][notASCII] &^= qScale
	for b := notASCII + 1; b <= 0xFF; b++ { // and uint8(eof)
		t[0][b], t[1][b] = t[0][notASCII], t[1][notASCII]
	}
	return t
}()

// The things quantity reads after a number, in quantityAfter.
const (
	qPercent     = 1 << iota // a percent sign
	qPercentWord             // a percent word, after a space
	qGlued                   // a scale glued to the digits
	qScale                   // a scale word
	qUnit                    // a unit or currency
	qPeriod                  // what the quantity is per, after '/' or a space
	qPoint                   // the decimals of a spelled-out number, after a space (for spelled)
	qHyphen                  // a hyphen, which a unit may follow (alone)
)

// scale multiplies the number by the power of ten of scale word w (and
// gives it w's unit when it has none) and ends it at end.
func (s *scanner) scale(t *token, w *trieNode, end int) {
	t.canon = s.keep([]byte(shift(s.str(t.canon), digitsValue(w.value))))
	if w.code != 0 && t.unit == 0 {
		t.unit = w.code
	}
	t.end = end
}

// shift multiplies a canonical decimal by 10^exp, exactly.
func shift(canon string, exp int) string {
	if indexByte(canon, ',') >= 0 {
		// An ambiguous shape keeps its shape; the scale makes it another
		// shape, grounded only by the same shape with the same scale.
		return canon + "e" + itoa(int64(exp))
	}
	neg := hasPrefix(canon, "-")
	if neg {
		canon = canon[1:]
	}
	whole, frac, _ := cut(canon, '.')
	for exp > 0 && frac != "" {
		whole += frac[:1]
		frac = frac[1:]
		exp--
	}
	const zeros = "000000000000" // (strings.Repeat would add 3 KB to the WASM guard)
	for ; exp > len(zeros); exp -= len(zeros) {
		whole += zeros
	}
	whole += zeros[:exp]
	for whole != "" && whole[0] == '0' {
		whole = whole[1:]
	}
	if whole == "" {
		whole = "0"
	}
	out := decimal(whole, frac)
	if neg {
		out = "-" + out
	}
	return out
}

// nounAfter returns the word after byte offset end of text, lower-cased
// and without a plural ending: what a count counts ("3 devices" → "device").
func nounAfter(text string, end int) string {
	i, j := wordAfter(text, end)
	return stemNoun(lowerString(text[i:j]))
}

// wordAfter returns the span [i,j) of the run of letters after the spaces
// at byte offset end of text (empty when none follows).
func wordAfter(text string, end int) (i, j int) {
	i = end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j = i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += size
	}
	return i, j
}

// stemNoun drops a plural ending, English or Swedish, so "device" and
// "devices", "enhet" and "enheter" compare equal.
func stemNoun(w string) string {
	for _, suf := range []string{"ies", "es", "s", "er", "ar", "or"} {
		if len(w) > len(suf)+2 && hasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// gluedPrice reads a price written with a currency glued before its
// digits, its code or "kr" ("SEK499", "USD1,200/month", "kr499"): the
// letters from i and the number after them, which must take in the whole
// word with digits, ending at end. Else the word is a name.
func (s *scanner) gluedPrice(i, end int) (token, int, bool) {
	e := i
	for e < end && e-i < 4 && s.t[e]-'0' >= 10 {
		e++
	}
	if e == i || e == end || s.t[e]-'0' >= 10 {
		return token{}, end, false
	}
	code := gluedCurrencies.code(s.t[i:e])
	if code == 0 {
		return token{}, end, false
	}
	t, next, ok := s.prefixed(i, e, code)
	if !ok || next < end {
		return token{}, end, false
	}
	return t, next, true
}

// inches reports whether the word "in" at j, after the number that starts
// at start, is inches: a length printed with its conversion, "18 in (460
// mm)" or "460 mm (18 in)". Elsewhere "in" is a word.
func (s *scanner) inches(start, j int) bool {
	if s.ascii(j) != 'i' || s.ascii(j+1) != 'n' {
		return false
	}
	switch s.ascii(j + 2) {
	case ' ':
		return s.ascii(j+3) == '(' && uint32(s.ascii(j+4)-'0') < 10
	case ')':
		return start > 0 && s.t[start-1] == '('
	}
	return false
}
