package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// The guard fails closed on what it cannot read as a value but a reader
// could (README, the number rule): each run of such runes is a number of
// KindUnreadable, grounded only by the same run in a snippet.

// unreadableRune reports whether r, a rune beyond ASCII as the scanner
// reads it (after fold), is unreadable: a numeral the scanner has no
// reading for (any rune with a Unicode numeric value, categories Nl and
// No, which fold has not turned into a digit; a Han numeral), the fraction
// slash, or a format character (Cf) that fold does not drop, such as the
// bidi controls.
func unreadableRune(r rune) bool {
	return unicode.In(r, unicode.Nl, unicode.No, unicode.Cf) || hanNumeral(r) || r == 0x2044
}

// BidiControl reports whether r is a bidirectional control (U+061C,
// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): a rune that shows the
// text around it in another order than it is stored in.
func BidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// hanNumeral reports whether r is a numeral of Chinese and Japanese (the
// common and the financial forms): letters (Lo) in Unicode, but numbers
// to a reader. (〇 is Nl, read by unreadableRune as such.)
func hanNumeral(r rune) bool {
	if r >= 0x4E00 && r <= 0x9FFF {
		for _, h := range hanNumerals {
			if h == r {
				return true
			}
		}
	}
	return false
}

// hanNumerals: zero to nine, ten, hundred, thousand, ten thousand, a
// hundred million, a trillion, "two" (of a pair), and the financial forms.
const hanNumerals = "零一二三四五六七八九十百千万萬亿億兆两兩壹贰貳叁參肆伍陆陸柒捌玖拾佰仟"

// fractionDecimals returns the decimals a vulgar fraction with an exact
// decimal value adds to the number it follows ("399½" is 399.5). The
// others (⅓, ⅙, ⅐, …) are unreadable.
func fractionDecimals(r rune) string {
	switch r {
	case '½':
		return "5"
	case '¼':
		return "25"
	case '¾':
		return "75"
	case '⅕':
		return "2"
	case '⅖':
		return "4"
	case '⅗':
		return "6"
	case '⅘':
		return "8"
	case '⅛':
		return "125"
	case '⅜':
		return "375"
	case '⅝':
		return "625"
	case '⅞':
		return "875"
	case '⅒':
		return "1"
	}
	return ""
}

// fraction reads a vulgar fraction at k, right after the run of digits
// [i,k) (no sign, no separator), as part of the number: t is the decimal
// of the digits and the fraction, and ok.
func (s *scanner) fraction(t *token, i, k int) bool {
	c := s.at(k)
	frac := fractionDecimals(c)
	if frac == "" {
		return false
	}
	d := s.str(s.digitString(i, k))
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	t.set(i, k+utf8.RuneLen(c), s.keep([]byte(d+"."+frac)), kDecimal)
	return true
}

// unreadable reads the run of unreadable runes at i into t and returns its
// end.
func (s *scanner) unreadable(t *token, i int) int {
	j := i
	for c := s.at(j); c >= 0x80 && unreadableRune(c); c = s.at(j) {
		j += utf8.RuneLen(c)
	}
	t.set(i, j, s.intern([]byte(s.t[i:j]), i), kUnread)
	return j
}

// charRef reads an HTML character reference at i, the '&', that may show
// as a numeral in a client that renders HTML or markdown: a numeric one
// ("&#52;", "&#x34;", with or without its ';'), and a named one whose name
// holds a digit ("&frac12;", "&sup2;"), touches a digit ("399&nbsp;000")
// or is followed by '#' ("&amp;#52;", shown as "&#52;" and read again by
// some). The guard does not decode them: each is unreadable (t, ok).
func (s *scanner) charRef(t *token, i int) (next int, ok bool) {
	j := i + 1
	if s.ascii(j) == '#' {
		j++
		hex := false
		if c := s.ascii(j); c == 'x' || c == 'X' {
			hex = true
			j++
		}
		k := j
		for c := s.ascii(k); isDigit(c) || hex && (c|0x20 >= 'a' && c|0x20 <= 'f'); c = s.ascii(k) {
			k++
		}
		if k == j {
			return i + 1, false
		}
		if s.ascii(k) == ';' {
			k++
		}
		t.set(i, k, s.intern([]byte(s.t[i:k]), i), kUnread)
		return k, true
	}
	digit := false
	for c := s.ascii(j); c < 0x80 && c > 0 && asciiClass[c] != 0; c = s.ascii(j) {
		digit = digit || isDigit(c)
		j++
	}
	if j == i+1 || j-i > 32 || s.ascii(j) != ';' {
		return i + 1, false
	}
	if after := s.ascii(j + 1); digit || after == '#' || isDigit(after) || isDigit(s.ascii(i-1)) {
		t.set(i, j+1, s.intern([]byte(s.t[i:j+1]), i), kUnread)
		return j + 1, true
	}
	return i + 1, false
}

// isFormat reports whether r is a format character (Cf).
func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }

// cleaned reports whether Clean removes r.
func cleaned(r rune) bool {
	if r < 0xAD || r == 0x200C || r == 0x200D || !unicode.Is(unicode.Cf, r) {
		return false
	}
	// The prepended concatenation marks (U+0600–U+0605, U+06DD, …) are
	// shown, as signs over the digits after them: kept, for the guard to
	// block as unreadable.
	return !unicode.Is(unicode.Prepended_Concatenation_Mark, r)
}

// Clean removes from text the format characters (Unicode category Cf)
// that change how text is shown without being shown themselves — the
// bidi controls, which can show "399" as "993", zero-width spaces, word
// joiners, byte order marks, soft hyphens, tags, … — except the zero-width
// joiner and non-joiner, which shape letters and emoji and show nothing
// between digits (the guard reads them as nothing). An answer is shown and
// verified as cleaned, so that it shows as it was read: the server cleans
// the model's text before the stream guard sees it. A text with nothing to
// remove is returned as it is.
func Clean(text string) string {
	i := indexFunc(text, cleaned)
	if i < 0 {
		return text
	}
	var b textBuf
	b.Grow(len(text))
	b.WriteString(text[:i])
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !cleaned(r) {
			b.WriteString(text[i : i+size]) // as it is: a byte that starts no rune too
		}
		i += size
	}
	return b.String()
}

// romanNumeral reports whether w is a Roman numeral written in capitals
// in standard form, of three letters or more ("XIV", "CDXCIX", "MMXXV"):
// the letters I V X L C D M, which, read with the subtractive rule, write
// back to w by the usual rules (value 1–3999). Shorter ones ("II", "CD",
// "DC", "XL") are read as the abbreviations they most often are.
func romanNumeral(w string) bool {
	if len(w) < 3 || len(w) > 15 {
		return false
	}
	v := 0
	for k := range len(w) {
		d := romanValue(w[k]) // (the one after it is read again: w is short)
		if d == 0 {
			return false
		}
		if k+1 < len(w) && d < romanValue(w[k+1]) {
			v -= d
		} else {
			v += d
		}
	}
	return v >= 1 && v <= 3999 && romanString(v) == w
}

func romanValue(c byte) int {
	switch c {
	case 'I':
		return 1
	case 'V':
		return 5
	case 'X':
		return 10
	case 'L':
		return 50
	case 'C':
		return 100
	case 'D':
		return 500
	case 'M':
		return 1000
	}
	return 0
}

// romanString writes v (1–3999) as a Roman numeral in standard form.
func romanString(v int) string {
	var b []byte
	for k, n := range [...]int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1} {
		for ; v >= n; v -= n {
			b = append(b, [...]string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}[k]...)
		}
	}
	return string(b)
}
