package guardrail

import (
	"unicode"
	"unicode/utf8"
)

// word reads what starts with a letter at i: a name with digits inside
// ("A380", "COVID-19"), a spelled-out number ("ninety-nine", "två tusen",
// "nittionio") into t (ok), or a prose word; it ends at next.
func (s *scanner) word(t *token, i int) (next int, ok bool) {
	// The letters a–z that lead along partNodes are read once, for both
	// the run of letters and digits and the English number word.
	e, n, ok := 0, 0, false
	if fast {
		e, n, ok = knownPart(s.t, i)
	}
	if !ok {
		e, n = walkLetters(s.t, i, false)
	}
	s.reads += e - i
	c := uint32(s.ascii(e))
	if fast && partNodes[n].en.kind != 0 && c < 0x80 && asciiClass[c] == 0 {
		// An English number word: the words after it are read from the
		// walk along partWalk, and the runs of letters and digits joined
		// to it by hyphens with them where they are number words.
		if w := partNodes[n].en; w.kind == lexArticle && c == ' ' && e+1 < len(s.t) {
			// "a" before anything but "hundred" or a scale word, as
			// most words are, is prose, as englishRun finds: when what
			// follows begins none ("a year"), or runs on from the
			// beginning of one into other letters ("a twenty").
			if m := partWalk[partSym[s.t[e+1]]]; m == 0 || !partNodes[m>>5].scale {
				s.reads += 2
				return e, false
			}
			if k, _ := walkLetters(s.t, e+1, true); k < len(s.t) && s.t[k] < 0x80 && asciiClass[s.t[k]]&classLetter != 0 {
				s.reads += k - e
				return e, false
			}
		}
		var r spelledRun
		if rest, ok := s.englishRun(&r, partNodes[n].en, e, c == '-'); ok {
			end, digit := 0, false
			if rest > 0 {
				_, end, digit = s.asciiCompound(rest)
			}
			if digit {
				*t = s.nameToken(i, end) // a name, as below
				return end, true
			}
			if rest == 0 || end > 0 {
				// (A value below two is no number, but for an ordinal
				// word after it: "one hundredth". See spelled.)
				if (r.val >= 2 || r.best != 0) && s.spelled(t, i, e, nil, 'e', &r) {
					return t.end, true
				}
				return e, false
			}
		}
	}
	j := e
	// Most words end at an ASCII rune that is no letter, digit or hyphen.
	if c >= 0x80 || asciiClass[c] != 0 || c == '-' {
		var hasDigit bool
		j, hasDigit = s.alnumRun(e)
		// A compound of alphanumeric runs joined by single hyphens holds
		// a code when any run has a digit ("COVID-19", "SE-123"); a word
		// in lower case after a run with a digit is a noun the name is
		// joined to, as Swedish joins them ("P1-incident",
		// "covid-19-pandemin", "MP3-filer"): the name ends before it.
		end := j
		for s.at(end) == '-' && isAlnum(s.at(end+1)) {
			e, digit := s.alnumRun(end + 1)
			if hasDigit && !digit && lowerWord(s.t[end+1:e]) {
				break
			}
			hasDigit = hasDigit || digit
			end = e
		}
		if hasDigit {
			// A quarter ("Q3"); any other name with digits ("COVID-19",
			// "A380") is a name (see nameToken).
			if end == i+2 && (s.at(i) == 'Q' || s.at(i) == 'q') && s.at(i+1) >= '1' && s.at(i+1) <= '4' {
				*t = token{start: i, end: end, canon: s.keep([]byte("Q" + s.str(s.digitString(i+1, end)))), kind: kQuarter}
				return end, true
			}
			if _, e, ok := s.read(timePrefixes, i); ok && e == j && yearOrDecade(s.t[j+1:end]) {
				return j + 1, false // "mid-2016": a time prefix, then the year
			}
			if p, next, ok := s.gluedPrice(i, end); ok { // "SEK499", "kr499"
				*t = p
				return next, true
			}
			*t = s.nameToken(i, end)
			return end, true
		}
	}
	// No ordinal, month name or currency code is also an English number
	// word, so after one only a spelled-out number may start here.
	lex, lang := s.lex[:0], byte('e')
	if e == j && partNodes[n].en.kind != 0 {
		lex = append(lex, partNodes[n].en)
	} else if fast && e == j && partNodes[n].sv != nil {
		// One Swedish part ("tre", "tusen"), as lexemes finds it.
		lex, lang = append(lex, partNodes[n].sv...), 's'
	} else {
		if lex, lang = s.lexemes(lex, i, j); lang == 0 && !numberWords.has(s.scratch) {
			if romanNumeral(s.t[i:j]) {
				t.set(i, j, s.intern([]byte(s.t[i:j]), i), kUnread)
				return j, true
			}
			if v, ok := swedishOrdinal(s.scratch); ok { // "tjugoförsta"
				*t = s.ordinalToken(i, j, itoa(v))
				return j, true
			}
			if w := s.scratch; (string(w) == "en" || string(w) == "ett") && s.ascii(j) == ' ' {
				// "en och en halv timme" (one alone is no number)
				if h := s.halfAfter(j + 1); h != 0 {
					t.set(i, j, ref{1, -1}, kWords)
					s.addHalf(t, 1, h)
					return t.end, true
				}
			}
			return j, false // prose
		}
		// A month name begins a date in lower case too: Swedish writes
		// them so ("juni 2019"), and so does lower-cased text ("november
		// 25, 1980"); "may" and "march" only capitalised (see month).
		if m, next, ok := s.monthFirst(i); ok {
			*t = m
			return next, true
		}
		if unicode.IsUpper(s.at(i)) {
			if w, e, ok := s.read(currencyCodes, i); ok && e == j {
				if p, next, ok := s.prefixed(i, e, w.code); ok {
					*t = p
					return next, true
				}
			}
		}
		if lang == 0 {
			// An ordinal word (no Swedish number: TestOrdinalsAreNoNumbers)
			// counts before a noun ("third place", "tredje kvartalet"), or
			// in lower case where its clause ends ("finished fourth."),
			// not as a marker of a list ("Third, …"); above twelfth also
			// joined to it by a hyphen ("nineteenth-century"; "third-party",
			// "second-hand" are idioms).
			if w, e, ok := s.read(ordinalWords, i); ok && e == j {
				v := w.value
				o := s.ordinalToken(i, e, v)
				sep := s.at(e)
				if o.kind == kQuarter || (v > "2" || len(v) > 1) && ((sep == ' ' || sep == '-' && (len(v) == 2 && v > "12" || len(v) > 2)) && isLetter(s.at(e+1)) ||
					clauseEnd(sep) && !unicode.IsUpper(s.at(i))) {
					*t = o
					return o.end, true
				}
			}
			return j, false
		}
	}
	if s.spelled(t, i, j, lex, lang, nil) {
		return t.end, true
	}
	return j, false
}

// nounAt reads what a small count ending at i counts (see nounRun), for
// the check that no snippet binds another number to it ("two devices"
// against "up to 3 devices"). It reads through the scanner, so in hold mode
// the count is decided only once its nouns are complete.
func (s *scanner) nounAt(i int) ref {
	first, head, _ := s.nounRun(i)
	if first == "" {
		return ref{}
	}
	return s.keep([]byte(nounKey(first, head)))
}

// wordStarts is a filter (a 64K-bit hash set) of how a word that may be a
// number begins: the key (see startKey) of every number word, ordinal,
// month name and currency code and of every run of Swedish number parts
// ("tvåhundra…"), and of every Roman numeral of three letters or more
// (see romanNumeral). A word whose key is not in it is prose, decided without
// a look-up ("the", "eller", "månad", "I", "i": of the words of one letter
// only "a" is in it). "and" is left out: no number starts with it (see
// parseGroup), and "andra" is longer.
var wordStarts = func() (t [1 << 10]uint64) {
	add := func(w string) {
		h := startHash(startKey(w))
		t[h>>6] |= 1 << (h & 63)
	}
	for w := range numberWords.words {
		if w != "and" {
			add(w)
		}
	}
	for a := range swedishParts {
		for b := range swedishParts {
			add(a + b)
		}
		add(a)
	}
	for v := 1; v <= 3999; v++ { // the Roman numerals, which word reads as unreadable
		if r := romanString(v); len(r) >= 3 {
			add(r)
		}
	}
	return t
}()

// startKey returns the key in wordStarts of the word w (its bytes, one or
// more): its first four bytes, or all of fewer, with 0x20 set in each, and
// 0 in those it has not (so that the keys of words of one, two, three and
// more bytes differ). Setting 0x20 lower-cases an ASCII letter, and a
// letter of Latin-1 (two bytes, 0xC2 or 0xC3 and one 0x80–0xBF) in its
// second byte, so that a word of ASCII and Latin-1 letters has the key of
// its lower case, which prose reads from its bytes as they stand.
func startKey(w string) uint32 {
	key := uint32(0)
	for k := range min(len(w), 4) {
		key |= uint32(w[k]|0x20) << (8 * k)
	}
	return key
}

func startHash(key uint32) uint32 { return key * 0x9E3779B1 >> 16 }

// mayBeNumber reports whether the whole word w (letters) may be a number
// word or begin a number: false only when wordStarts rules it out. A letter
// beyond Latin-1 may lower-case into one that is not ("K", the Kelvin sign,
// is "k"), so a word with one among its first four bytes is not ruled out;
// one after them leaves the key as it is (the first four bytes, lower-cased
// or not).
func mayBeNumber(w string) bool {
	if fast && len(w) >= 4 {
		if x := le32(w); x&0x80808080 == 0 { // four ASCII bytes: the key at once
			h := startHash(x | 0x20202020)
			return wordStarts[h>>6]&(1<<(h&63)) != 0
		}
	}
	for k := 0; k < min(len(w), 4); k++ {
		if w[k] >= 0x80 {
			if w[k]&^1 != 0xC2 || k+1 >= len(w) || w[k+1]&0xC0 != 0x80 {
				return true
			}
			k++
		}
	}
	h := startHash(startKey(w))
	return wordStarts[h>>6]&(1<<(h&63)) != 0
}

// latinClass holds what prose needs to know of each rune below 0x100, so
// that it reads a rune with one look-up: whether it starts nothing
// (clInert, ASCII only), is a letter (clLetter; clASCIILetter for ASCII, so
// that a byte of the text can be looked up), or may follow a prose word
// (clWordEnd: ASCII, not a letter, digit or hyphen), or starts a number
// only before a digit (clSign: + - . ,), or is a letter that begins
// "hundred" or a scale word, which alone may follow "a" in a number
// (clScale, ASCII: see word). clWordByte marks, as bytes of the text, those
// that begin a word for proseRun: the ASCII letters and 0xC3, the first of
// the two bytes of À–ÿ. latinLowers holds its lower case.
var latinClass, latinLowers = func() (t, lower [0x100]uint8) {
	for c := range rune(0x100) {
		lower[c] = uint8(c)
		if c >= 'A' && c <= 'Z' || c >= 0xC0 && c <= 0xDE && c != 0xD7 {
			lower[c] = uint8(c + 0x20)
		}
		if unicode.IsLetter(c) {
			t[c] |= clLetter
		}
		if c < 0x80 && inert[c] {
			t[c] |= clInert
		}
		if c < 0x80 && isLetter(c) {
			t[c] |= clASCIILetter
		}
		if c < 0x80 && !isAlnum(c) && c != '-' {
			t[c] |= clWordEnd
		}
		if c == '+' || c == '-' || c == '.' || c == ',' {
			t[c] |= clSign
		}
		if m := partWalk[partSym[c]]; c < 0x80 && m != 0 && partNodes[m>>5].scale {
			t[c] |= clScale
		}
		if c < 0x80 && isLetter(c) || c == 0xC3 {
			t[c] |= clWordByte
		}
	}
	return t, lower
}()

const (
	clInert = 1 << iota
	clLetter
	clWordEnd
	clSign
	clASCIILetter
	clScale
	clWordByte
	clAfterC3 // (proseTables only: see proseBlock)
)

// alnumRun returns the end of the run of letters and digits at i and
// whether it holds a digit.
func (s *scanner) alnumRun(i int) (end int, digit bool) {
	t, j := s.t, i
	all := uint8(classLetter) // cleared by a digit
	// ASCII is read without the checks of at, and natively the letters
	// of Latin-1 too (two bytes, 0xC2 or 0xC3 and one 0x80–0xBF: see
	// latinWord), which are letters (no digit or mark) as at reads them.
	for j < len(t) {
		if c := t[j]; c < 0x80 && asciiClass[c]&classAlnum != 0 {
			all &= asciiClass[c]
			j++
		} else if fast && c&^1 == 0xC2 && j+1 < len(t) && t[j+1]&0xC0 == 0x80 && latinClass[(c&1)<<6|t[j+1]&0x3F|0x80]&clLetter != 0 {
			j += 2
		} else {
			break
		}
	}
	digit = all == 0
	s.reads += j - i
	if j < len(t) && t[j] < 0x80 {
		s.reads++
		return j, digit // ended by an ASCII rune that is no letter or digit
	}
	for c := s.at(j); isAlnum(c); c = s.at(j) {
		digit = digit || isDigit(c)
		j += runeLen(c)
	}
	return j, digit
}

// asciiCompound reads what word reads from e with alnumRun and the loop
// after it, in bytes, where that is all ASCII ("twenty-four", "COVID-19"):
// the end j of the run of letters and digits at e, the end of the compound
// of such runs joined by single hyphens, and whether they hold a digit.
// end is 0 when that is not decided by ASCII within the text: a rune
// beyond ASCII or the end of the text is read on the way, for word to read
// as at does.
func (s *scanner) asciiCompound(e int) (j, end int, digit bool) {
	t := s.t
	all := uint8(classLetter) // cleared by a digit
	for p := e; ; {
		// lower: a run in lower case after the first, which ends the
		// compound after a digit (see word)
		before, run, lower := all, p, p > e
		for ; p < len(t) && t[p] < 0x80 && asciiClass[t[p]]&classAlnum != 0; p++ {
			all &= asciiClass[t[p]]
			lower = lower && t[p]-'a' < 26
		}
		if j == 0 {
			j = p
		}
		// At p, an ASCII rune that is no letter or digit, unless undecided.
		if p+1 >= len(t) || t[p] >= 0x80 || t[p] == '-' && t[p+1] >= 0x80 {
			return 0, 0, false
		}
		if lower && before == 0 {
			s.reads += p - e + 2
			return j, run - 1, true
		}
		if t[p] != '-' || asciiClass[t[p+1]]&classAlnum == 0 {
			s.reads += p - e + 2
			return j, p, all == 0
		}
		p++
	}
}

// letterRun returns where the run of letters of ASCII and Latin-1 at i
// ends (see alnumRun), read in bytes: at the first rune that is none of
// them, which the caller reads with at.
func (s *scanner) letterRun(i int) int {
	t, j := s.t, i
	for j < len(t) {
		if c := t[j]; c < 0x80 && asciiClass[c]&classLetter != 0 {
			j++
		} else if c&^1 == 0xC2 && j+1 < len(t) && t[j+1]&0xC0 == 0x80 && latinClass[(c&1)<<6|t[j+1]&0x3F|0x80]&clLetter != 0 {
			j += 2
		} else {
			break
		}
	}
	s.reads += j - i
	return j
}

// lower writes the lower-case UTF-8 of w into the scanner's scratch buffer.
func (s *scanner) lower(w string) []byte {
	s.scratch = lowerInto(s.scratch[:0], w)
	return s.scratch
}

// lowerInto appends the lower case of w to dst.
func lowerInto(dst []byte, w string) []byte {
	for i := 0; i < len(w); {
		if c := w[i]; c < 0x80 {
			dst = append(dst, latinLowers[c])
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(w[i:])
		dst = utf8.AppendRune(dst, toLower(c))
		i += size
	}
	return dst
}

// toLower is unicode.ToLower, with ASCII and the Latin-1 letters (å, ä, ö,
// é, ü, …) mapped by latinLowers without searching the case tables.
func toLower(c rune) rune {
	if uint32(c) < 0x100 {
		return rune(latinLowers[c])
	}
	return unicode.ToLower(c)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

var timePrefixes = newWordSet(table(`= mid early late pre post`))

// yearOrDecade reports whether y is a year (1000–2999: "2016") or a decade
// ("1990s", "90s"), the part of a compound that makes a time prefix before
// it ("mid-", "early-", "late-", "pre-", "post-") prose, not a name.
func yearOrDecade(y string) bool {
	n := len(y)
	if y[n-1] == 's' {
		if n--; y[n-1] != '0' || n != 2 && n != 4 {
			return false
		}
	}
	for k := range n {
		if y[k]-'0' >= 10 {
			return false
		}
	}
	return n == 2 && n < len(y) || n == 4 && (y[0] == '1' || y[0] == '2')
}

// clauseEnd reports whether c, the rune after a word, ends its clause or
// the text.
func clauseEnd(c rune) bool {
	switch c {
	case '.', ',', ';', ':', '!', '?', ')', eof:
		return true
	}
	return false
}

// lowerWord reports whether w is letters in lower case only.
func lowerWord(w string) bool {
	for _, c := range w {
		if !isLetter(c) || toLower(c) != c {
			return false
		}
	}
	return w != ""
}
