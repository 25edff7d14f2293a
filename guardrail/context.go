package guardrail

import (
	"unicode/utf8"
)

// A small count written as a word ("two companies") that no snippet states
// is unverified, which blocks only under the strict policy. Where the word
// is no count but a time, a day or the number of a part ("at six pm",
// "from seven to 12 April", "part three"), it is checked as strictly as
// digits: countContext tells those places.

// partNouns are the nouns a number after which names a part, not a count:
// "part three", "Season 4", "kapitel sju".
var partNouns = wordList(`part chapter season episode volume
	del kapitel säsong avsnitt volym`)

// timeBefore are the words before a clock time: "klockan sex", "kl. sju".
var timeBefore = wordList(`klockan kl`)

// timeAfter are the words after a clock time: "six pm", "seven o'clock".
var timeAfter = wordList(`am pm a.m. p.m. a.m p.m o'clock o’clock`)

// rangeWords join the two ends of a range: "from seven to 12 April".
var rangeWords = wordList(`to till until through and och`)

// wordList is the set of the words of ws, separated by spaces, tabs and
// newlines. (It splits them itself: strings.Fields would add the Unicode
// space tables to the WASM guard.)
func wordList(ws string) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && ws[j] != ' ' && ws[j] != '\t' && ws[j] != '\n' {
			j++
		}
		if j > i {
			m[ws[i:j]] = true
		}
		i = j + 1
	}
	return m
}

// Where a count word stands (see countPlace).
const (
	placeCount = iota // a count: "two companies"
	placeTime         // a clock time: "six pm", "klockan sex"
	placePart         // a part's number: "part three"
	placeDay          // a day of a month: "seven April", "April seven"
)

// countPlace tells where the count word over [i,e) stands: after a part
// noun ("part three") or a word that leads a time ("klockan sex"), before
// a word that ends a time ("six pm"), beside a month name ("seven April",
// "April seven," but not "in June two companies"), or as the first end of a range of days or times ("seven
// to 12 April", "six to eight pm"); else it is a count. For a day it
// returns the month ("04"), and whether the month follows the word
// directly (where dayMonth reads it). What follows is read through at, so
// that in hold mode the count is decided only once those words are
// complete.
func (s *scanner) countPlace(i, e int) (place int, month string, after bool) {
	if w := lastWord(s.t[:i]); w != "" {
		lw := lowerString(w)
		switch {
		case partNouns[lw]:
			return placePart, "", false
		case timeBefore[lw]:
			return placeTime, "", false
		case isMonthName(w):
			// A day, unless a word follows that it counts ("in June
			// two companies merged").
			if n, _ := s.wordAt(e); n == "" {
				return placeDay, monthWords.words[lw], false
			}
		}
	}
	w, k := s.wordAt(e)
	switch {
	case w == "":
		return placeCount, "", false
	case timeAfter[w]:
		return placeTime, "", false
	case rangeWords[w]:
		// The other end: one or two digits or a number word, then a
		// month name or a word that ends a time.
		if s.ascii(k) != ' ' {
			return placeCount, "", false
		}
		j := k + 1
		if d := s.digits(j); d > j && d-j <= 2 {
			j = d
		} else if n, m := s.wordAt(j - 1); n != "" && numberWords.has([]byte(n)) {
			j = m
		} else {
			return placeCount, "", false
		}
		if n, _ := s.wordAt(j); n != "" {
			if timeAfter[n] {
				return placeTime, "", false
			}
			if m, _, ok := s.month(j + 1); ok {
				return placeDay, m, false
			}
		}
		return placeCount, "", false
	}
	if m, _, ok := s.month(e + 1); ok {
		return placeDay, m, true
	}
	return placeCount, "", false
}

// dayToken makes t, a count word of value day that stands as a day of
// month (see countPlace), a date: with the month and year after it where
// they follow ("seven April 2020", as dayMonth reads them), else with the
// year after it where one follows ("April seven, 2020").
func (s *scanner) dayToken(t *token, day int, month string, after bool) {
	if after {
		if d, ok := s.dayMonth(t.start, t.end, day); ok {
			*t = d
			return
		}
	}
	date, end := "--"+month+"-"+pad2(day), t.end
	if y, ye, ok := s.yearAfter(t.end); ok {
		date, end = y+"-"+month+"-"+pad2(day), ye
	}
	*t = token{start: t.start, end: end, kind: kDate, canon: s.keep([]byte(date))}
}

// isMonthName reports whether w, a word as printed, is a month name:
// "may", "march" and "mar" only capitalised, as dates read them.
func isMonthName(w string) bool {
	lw := lowerString(w)
	if _, ok := monthWords.words[lw]; !ok {
		return false
	}
	return lw != "may" && lw != "march" && lw != "mar" || w[0] >= 'A' && w[0] <= 'Z'
}

// lastWord returns the word of letters that ends text before one space
// and an optional full stop ("kl. "), as printed. It reads text, which is
// before the number and so final, without at.
func lastWord(text string) string {
	if !hasSuffix(text, " ") {
		return ""
	}
	end := len(text) - 1
	if end > 0 && text[end-1] == '.' {
		end--
	}
	j := end
	for j > 0 && end-j <= 16 {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if !isLetter(r) {
			break
		}
		j -= size
	}
	if j == end || end-j > 16 {
		return ""
	}
	return text[j:end]
}

// wordAt reads the word after a space at i: letters, with the full stops
// and apostrophes within it ("p.m.", "o'clock"), in lower case, and where
// it ends. It returns "" when no space and letter are at i.
func (s *scanner) wordAt(i int) (string, int) {
	if s.ascii(i) != ' ' || !isLetter(s.at(i+1)) {
		return "", i
	}
	b := s.scratch[:0]
	j := i + 1
	for n := 0; n < 32; n++ {
		c := s.at(j)
		if isLetter(c) {
			b = utf8.AppendRune(b, toLower(c))
			j += runeLen(c)
			continue
		}
		if (c == '.' || c == '\'' || c == '’') && isLetter(s.at(j+utf8.RuneLen(c))) {
			b = utf8.AppendRune(b, c)
			j += utf8.RuneLen(c)
			continue
		}
		if c == '.' && len(b) == 3 && b[1] == '.' { // "p.m."
			b = append(b, '.')
			j++
		}
		break
	}
	s.scratch = b
	return string(b), j
}

// functionWords end the run of words after a count that nounRun reads:
// the closed classes of English and Swedish (articles, prepositions,
// conjunctions, pronouns, auxiliaries), which no noun phrase runs on
// through.
var functionWords = wordList(`a an the and or but nor of in on at to for from with by per as
	than that which who whom whose this these those is are was were be been being has have
	had do does did will would can could should may might must it its their his her our your
	my we they he she you i not no all each every also only just more most over under into
	onto about after before during between through within without up down out off so if then
	there here when where while via each
	en ett och eller men av på till för från med som än att vilken vilket vilka denna detta
	dessa det den de är var varit blir blev har hade ska skulle kan kunde inte alla varje
	också bara mer mest över efter före mellan genom inom utan upp ned ner ut om när där
	medan vi ni han hon hen sin sitt sina deras dess`)

// nounRun reads what a count ending at i counts: the word after it (its
// first, "suitable" of "four suitable products for you") and the last of
// the run of up to three words in lower case that follows it up to a
// function word or anything but a space and a letter (its head,
// "product"), both without a plural ending (see stemNoun); head is "" when
// it is first. A count and a snippet's number count the same thing when
// either of these is one of the other's ("four suitable products" and "six
// products"); plural tells whether the last word of the run has a plural
// ending. It reads through at (see wordAt).
func (s *scanner) nounRun(i int) (first, head string, plural bool) {
	w, j := s.wordAt(i)
	if w == "" {
		return "", "", false
	}
	first = stemNoun(w)
	if functionWords[w] {
		return first, "", false
	}
	last := w
	for n := 1; n < 3; n++ {
		if s.ascii(j) != ' ' {
			break
		}
		if c := s.at(j + 1); !isLetter(c) || toLower(c) != c {
			break // no word, or a capitalised one: a name
		}
		v, k := s.wordAt(j)
		if functionWords[v] {
			break
		}
		last, j = v, k
	}
	if last != w {
		head = stemNoun(last)
	}
	if head == first {
		head = ""
	}
	return first, head, stemNoun(last) != last
}

// nounKey is the noun of a count as a Number holds it: its first word, and
// its head after a space when it has one.
func nounKey(first, head string) string {
	if head == "" {
		return first
	}
	return first + " " + head
}

// isYearShaped reports whether the digits d may be a year: four of them,
// from 1000 to 2099. Such a number counts the noun after it only when that
// is plural ("2000 employees"), not in "a 1972 film".
func isYearShaped(d string) bool {
	return len(d) == 4 && (d[0] == '1' || d[0] == '2' && d[1] == '0') && isDigits(d)
}

func isDigits(d string) bool {
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return d != ""
}
