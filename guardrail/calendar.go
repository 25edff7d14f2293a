package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// Month names, English and Swedish, with their number.
var monthWords = newWordSet(table(`
	01 = january jan januari
	02 = february feb februari
	03 = march mar mars
	04 = april apr
	05 = may maj
	06 = june jun juni
	07 = july jul juli
	08 = august aug augusti
	09 = september sep sept
	10 = october oct oktober okt
	11 = november nov
	12 = december dec`))

// Ordinal words from "third" up ("first" and "second", "första" and
// "andra" are too often not numbers; they count only before "quarter").
var ordinalWords = newWordSet(table(`
	1 = first första
	2 = second andra
	3 = third tredje
	4 = fourth fjärde
	5 = fifth femte
	6 = sixth sjätte
	7 = seventh sjunde
	8 = eighth åttonde
	9 = ninth nionde
	10 = tenth tionde
	11 = eleventh elfte
	12 = twelfth tolfte`))

var quarterWords = newWordSet(table(`q = quarter quarters kvartal kvartalet`))

var ordinalSuffixes = newWordSet(table(`= st nd rd th :a :e`))

// ordinalSuffix reads "st", "nd", "rd", "th" or Swedish ":a", ":e" right
// after the digits of an ordinal ("3rd", "21st", "3:e").
func (s *scanner) ordinalSuffix(k int) (int, bool) {
	if fast {
		// Most numbers: two ASCII bytes that begin no suffix (read
		// would stop at one of them, within the text).
		t := s.t
		if uint(k) < uint(len(t)) && uint(k+1) < uint(len(t)) && t[k]|t[k+1] < 0x80 {
			if r := ordinalSuffixes.step(0, t[k]); r == 0 || ordinalSuffixes.step(r, t[k+1]) == 0 {
				s.reads += 2
				return 0, false
			}
		}
	}
	_, e, ok := s.read(ordinalSuffixes, k)
	return e, ok
}

// quarterAfter reads " quarter" / " kvartalet" (or "-quarter") after an
// ordinal at end: "third quarter", "3rd-quarter", "tredje kvartalet".
func (s *scanner) quarterAfter(end int) (int, bool) {
	if c := s.ascii(end); c != ' ' && c != '-' {
		return 0, false
	}
	_, e, ok := s.read(quarterWords, end+1)
	return e, ok
}

// ordinalToken is the token of an ordinal with value v over [i,end), or of
// a quarter when " quarter" follows and v is 1–4.
func (s *scanner) ordinalToken(i, end int, v string) token {
	if v >= "1" && v <= "4" && len(v) == 1 {
		if e, ok := s.quarterAfter(end); ok {
			return token{start: i, end: e, canon: s.keep([]byte("Q" + v)), kind: kQuarter}
		}
	}
	return token{start: i, end: end, canon: s.keep([]byte(v + ordSuffix(v))), kind: kOrdinal}
}

// ordSuffix is the English suffix of an ordinal's canonical form.
func ordSuffix(v string) string {
	n := 0 // the last two digits; v is a canonical integer
	for i := max(0, len(v)-2); i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return "th"
		}
		n = n*10 + int(v[i]-'0')
	}
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

// dayMonth reads a month name after a day [i,dayEnd) ("27 May", "8 juni",
// "8th of June"), then an optional year: "27 May 1863" is 1863-05-27.
func (s *scanner) dayMonth(i, dayEnd int, day int) (token, bool) {
	if day < 1 || day > 31 || s.ascii(dayEnd) != ' ' {
		return token{}, false
	}
	j := dayEnd + 1
	if _, e, ok := s.read(ofWord, j); ok && s.ascii(e) == ' ' {
		j = e + 1
	}
	m, e, ok := s.month(j)
	if !ok {
		return token{}, false
	}
	date, end := "--"+m+"-"+pad2(day), e
	if y, ye, ok := s.yearAfter(e); ok {
		date, end = y+"-"+m+"-"+pad2(day), ye
	}
	return token{start: i, end: end, kind: kDate, canon: s.keep([]byte(date))}, true
}

// month reads a month name at i, with a full stop after an abbreviation
// ("Aug. 10"). English names that are also common words ("may", "march")
// count only capitalised.
func (s *scanner) month(i int) (string, int, bool) {
	w, e, ok := s.read(monthWords, i)
	if !ok {
		return "", 0, false
	}
	m := w.value
	// "may" (not "maj"), "march" and "mar" (not "mars"), all ASCII (no
	// rune but ASCII is read as one of their letters).
	if !unicode.IsUpper(s.at(i)) && (m == "05" && s.t[i+2]|0x20 == 'y' || m == "03" && e-i != 4) {
		return "", 0, false
	}
	// An abbreviation of up to four letters (a rune read as an ASCII
	// letter, "İ" as "i", may be longer).
	if n := e - i; (n <= 4 || n < 8 && utf8.RuneCountInString(s.t[i:e]) <= 4) && s.ascii(e) == '.' {
		e++
	}
	return m, e, true
}

var ofWord = newWordSet(map[string]string{"of": ""})

// mayStartMonth reports whether c may begin "of" or a month name: false
// only for an ASCII rune that begins neither.
func mayStartMonth(c rune) bool {
	return ofWord.starts(c) || monthWords.starts(c)
}

// yearAfter reads a four-digit year after " ", ", " or " , " at i.
func (s *scanner) yearAfter(i int) (string, int, bool) {
	j := i
	if s.ascii(j) == ' ' && s.ascii(j+1) == ',' {
		j++
	}
	if s.ascii(j) == ',' {
		j++
	}
	if s.ascii(j) != ' ' {
		return "", 0, false
	}
	j++
	e := s.digits(j)
	if e-j != 4 || s.ascii(j) == '0' || isAlnum(s.at(e)) {
		return "", 0, false
	}
	return s.str(s.digitString(j, e)), e, true
}

// monthFirst reads a date that starts with a month name at i: "May 27,
// 1863", "June 8", "June 2019" (a month of a year: 2019-06).
func (s *scanner) monthFirst(i int) (token, int, bool) {
	m, e, ok := s.month(i)
	if !ok || s.ascii(e) != ' ' {
		return token{}, 0, false
	}
	if y, ye, ok := s.yearAfter(e); ok {
		return token{start: i, end: ye, kind: kDate, canon: s.keep([]byte(y + "-" + m))}, ye, true
	}
	d := s.digits(e + 1)
	if d-(e+1) < 1 || d-(e+1) > 2 {
		return token{}, 0, false
	}
	end := d
	if oe, ok := s.ordinalSuffix(d); ok {
		end = oe
	}
	if isAlnum(s.at(end)) {
		return token{}, 0, false
	}
	day := s.atoi(e+1, d)
	if day < 1 || day > 31 {
		return token{}, 0, false
	}
	date := "--" + m + "-" + pad2(day)
	if y, ye, ok := s.yearAfter(end); ok {
		date, end = y+"-"+m+"-"+pad2(day), ye
	}
	return token{start: i, end: end, kind: kDate, canon: s.keep([]byte(date))}, end, true
}

// yearRange reads "2007-2008", "2007–08", "2007/08", "2007 -- 11" after a
// four-digit year [i,k): the years from the first to the second.
func (s *scanner) yearRange(i, k int) (token, bool) {
	if k-i != 4 || s.ascii(i) == '0' {
		return token{}, false
	}
	j := k
	if s.ascii(j) == ' ' {
		j++
	}
	sep := s.ascii(j)
	if sep != '-' && sep != '/' {
		return token{}, false
	}
	j++
	if sep == '-' && s.ascii(j) == '-' {
		j++
	}
	if s.ascii(j) == ' ' && s.ascii(k) == ' ' {
		j++
	}
	e := s.digits(j)
	if n := e - j; n != 2 && n != 4 || isAlnum(s.at(e)) || s.ascii(e) == '-' && isDigit(s.ascii(e+1)) {
		return token{}, false
	}
	from, to := s.atoi(i, k), s.atoi(j, e)
	if e-j == 2 {
		to += from / 100 * 100
	}
	if to <= from || to > from+100 {
		return token{}, false
	}
	return token{start: i, end: e, kind: kRange, canon: s.keep([]byte(itoa(int64(from)) + "-" + itoa(int64(to))))}, true
}

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
		return "0" + itoa(int64(n))
	}
	return itoa(int64(n))
}

// appendPad2 appends n (0–99) in two digits.
func appendPad2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10))
}
