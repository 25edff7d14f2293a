package guardrail

import (
	"unicode/utf8"
)

// A snippet is read generously where that cannot let a wrong number of an
// answer through: it adds values the snippet states in a form an answer
// would not be read in, never a value the snippet does not state. Answers
// are read strictly as they are.
//
//   - A lower-case "may" or "march" beside a day number is a month
//     ("opens on may 30" states May 30): snippets are often lower-cased.
//   - Digits glued after a word of three letters or more, the last two
//     in lower case, stand apart ("founded in Stockholm2004" states 2004),
//     and so does a capitalised word glued after one in lower case
//     ("press releaseMay 1 2019" states May 1, 2019): scraped text loses
//     the breaks between its parts. A code in capitals ("COVID19", "MP4")
//     stays whole.
//   - A number after a part noun names the part that an ordinal before it
//     names ("Season 4" states the fourth season), and the other way round.
//   - The first day of a range of days with its month at the end is a
//     date of that month ("7 to 12 April" states April 7).
//   - A period of several units states its length ("199 kr every two
//     weeks" states two weeks; see periodLengths).
//   - The first end of a range states the scale, unit or percent printed
//     after the second ("3–4 miljoner kronor" states 3 miljoner kronor;
//     see rangeStart).

// generousNumbers returns what the snippet text, whose numbers are nums,
// states read generously: the numbers of its text with the breaks that
// scraping lost put back (none when it lost none), and the ordinals and
// values that its parts' numbers state (see partOrdinals).
func generousNumbers(text string, nums []Number) (more, starts []Number, keys []string) {
	if g, ok := generousText(text); ok {
		more = Extract(g)
	}
	starts = rangeStarts(text, nums)
	return append(periodLengths(more, nums), starts...), starts, partOrdinals(text, nums)
}

// generousText returns text with a space put between a word and the
// digits or the capitalised word glued after it, and "may" and "march"
// capitalised beside a day number, and whether it changed any.
func generousText(text string) (string, bool) {
	var b []byte // the text so far, once it changes
	last := 0    // the bytes of text up to last are in b
	run, lowers := 0, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 'a' && c <= 'z':
			run++
			lowers++
			if (c == 'm') && (i == 0 || !isLetterByte(text[i-1])) {
				if w, ok := lowerMonthAt(text, i); ok {
					b = append(b, text[last:i]...)
					b = append(b, 'M')
					b = append(b, w[1:]...)
					last = i + len(w)
				}
			}
			continue
		case c >= 'A' && c <= 'Z':
			if lowers >= 2 && run >= 3 && i+1 < len(text) && text[i+1] >= 'a' && text[i+1] <= 'z' {
				b = append(b, text[last:i]...)
				b = append(b, ' ')
				last = i
			}
			run++
			lowers = 0
			continue
		case c >= '0' && c <= '9':
			if lowers >= 2 && run >= 3 {
				b = append(b, text[last:i]...)
				b = append(b, ' ')
				last = i
			}
		}
		if c >= 0x80 { // a letter beyond ASCII goes on the word ("Malmö2010")
			if r, size := utf8.DecodeRuneInString(text[i:]); isLetter(r) {
				run++
				if lowers++; toLower(r) != r {
					lowers = 0
				}
				i += size - 1
				continue
			}
		}
		run, lowers = 0, 0
	}
	if b == nil {
		return text, false
	}
	return string(append(b, text[last:]...)), true
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }

// lowerMonthAt returns "may" or "march" when that word stands at i beside
// a day number: before a space and one or two digits that end there, or
// after one or two digits and a space.
func lowerMonthAt(text string, i int) (string, bool) {
	for _, w := range [2]string{"may", "march"} {
		e := i + len(w)
		if !hasPrefix(text[i:], w) || e < len(text) && isLetterByte(text[e]) {
			continue
		}
		if e+1 < len(text) && text[e] == ' ' && text[e+1] >= '0' && text[e+1] <= '9' {
			d := e + 1
			for d < len(text) && text[d] >= '0' && text[d] <= '9' {
				d++
			}
			if d-(e+1) <= 2 && (d == len(text) || !isLetterByte(text[d]) || hasPrefix(text[d:], "th") || hasPrefix(text[d:], "st") || hasPrefix(text[d:], "nd") || hasPrefix(text[d:], "rd")) {
				return w, true
			}
		}
		if i >= 2 && text[i-1] == ' ' && text[i-2] >= '0' && text[i-2] <= '9' {
			d := i - 2
			for d > 0 && text[d-1] >= '0' && text[d-1] <= '9' {
				d--
			}
			if i-1-d <= 2 {
				return w, true
			}
		}
	}
	return "", false
}

// partOrdinals returns the ordinals that the snippet's numbers after a
// part noun state ("Season 4": "4th"), the values that its ordinals
// before one state ("the fourth season": "4"), and the dates that a day
// of a range of days states ("7 to 12 April": April 7; "March 3–9":
// March 9; see rangeDay), as keys of its index.
func partOrdinals(text string, nums []Number) []string {
	var keys []string
	for k := range nums {
		n := &nums[k]
		switch n.Kind {
		case KindInteger, KindWords:
			if len(n.Canonical) <= 3 && n.Canonical != "0" && isDigits(n.Canonical) && partNouns[lowerString(lastWord(text[:n.Start]))] {
				keys = append(keys, n.Canonical+ordSuffix(n.Canonical))
			}
			for j := k - 1; j <= k+1; j += 2 {
				if j >= 0 && j < len(nums) {
					if d, ok := rangeDay(text, n, &nums[j], j > k); ok {
						_, md := dateParts(d.Canonical)
						keys = append(keys, d.Canonical, "--"+md) // (twice when it has no year)
					}
				}
			}
		case KindOrdinal:
			if partNouns[stemNoun(lowerString(firstWord(text[n.End:])))] || partNouns[lowerString(firstWord(text[n.End:]))] {
				v := n.Canonical
				for len(v) > 0 && (v[len(v)-1] < '0' || v[len(v)-1] > '9') {
					v = v[:len(v)-1] // "4th" → "4"
				}
				keys = append(keys, v)
			}
		}
	}
	return keys
}

// firstWord returns the word of letters after one space at the start of
// text, as printed.
func firstWord(text string) string {
	if !hasPrefix(text, " ") {
		return ""
	}
	j := 1
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isLetter(r) {
			break
		}
		j += size
	}
	return text[1:j]
}

// rangeBetween reports whether between, the text between two numbers,
// joins them as a range: a dash or a range word ("to", "till") between
// spaces.
func rangeBetween(between string) bool {
	b := trimSpaces(between)
	return b == "-" || b == "–" || b == "—" || rangeWords[b] && between == " "+b+" "
}
