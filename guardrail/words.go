package guardrail

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// word reads what starts with a letter at i: a code with digits inside
// ("A380", "COVID-19"), a spelled-out number ("ninety-nine", "två tusen",
// "nittionio"), or a prose word.
func (s *scanner) word(i int) (token, int, bool) {
	j, hasDigit := s.alnumRun(i)
	// A compound of alphanumeric runs joined by single hyphens holds a
	// code when any run has a digit ("COVID-19", "SE-123").
	end := j
	for s.at(end) == '-' && isAlnum(s.at(end+1)) {
		e, digit := s.alnumRun(end + 1)
		hasDigit = hasDigit || digit
		end = e
	}
	if hasDigit {
		// A quarter ("Q3"); any other name with digits ("COVID-19",
		// "A380") is a name, not a quantity.
		if end == i+2 && (s.at(i) == 'Q' || s.at(i) == 'q') && s.at(i+1) >= '1' && s.at(i+1) <= '4' {
			return token{start: i, end: end, canon: "Q" + s.str(i+1, end), kind: KindQuarter}, end, true
		}
		return token{}, end, false
	}
	if !mayBeNumber(s.f.r[i:j]) {
		return token{}, j, false // most prose words: no number word starts so
	}
	if w := s.lower(s.f.r[i:j]); !numberWords.has(w) && !swedishNumber(w) {
		return token{}, j, false // the other prose words
	}
	if unicode.IsUpper(s.at(i)) {
		if t, next, ok := s.monthFirst(i); ok {
			return t, next, true
		}
		if unit, e, ok := s.read(currencyCodes, i); ok && e == j {
			if t, next, ok := s.prefixed(i, e, unit); ok {
				return t, next, true
			}
		}
	}
	// An ordinal word counts before a noun ("third place", "tredje
	// kvartalet"), not as a marker of a list ("Third, …").
	if v, e, ok := s.read(ordinalWords, i); ok && e == j {
		t := s.ordinalToken(i, e, v)
		if t.kind == KindQuarter || (v > "2" || len(v) > 1) && s.at(e) == ' ' && isLetter(s.at(e+1)) {
			return t, t.end, true
		}
		return token{}, j, false
	}
	if t, ok := s.spelled(i, j); ok {
		return t, t.end, true
	}
	return token{}, j, false
}

// nounAt reads the word after a small count ending at i, for the check
// that no snippet binds another number to it ("two devices" against "up to
// 3 devices"). It reads through the scanner, so in hold mode the count is
// decided only once its noun is complete.
func (s *scanner) nounAt(i int) string {
	if s.at(i) != ' ' {
		return ""
	}
	e := i + 1
	for isLetter(s.at(e)) {
		e++
	}
	return stemNoun(string(s.lower(s.f.r[i+1 : e])))
}

// wordStarts is a filter (a 64K-bit hash set) of how a word that may be a
// number begins: the first three letters, lower-cased, of every number word,
// ordinal, month name and currency code and of every run of Swedish number
// parts ("tvåhundra…"), and two-letter such words whole ("en"). A word of
// two or more letters whose beginning is not in it is prose, decided
// without a look-up ("the", "eller", "månad"). "and" is left out: no number
// starts with it (see parseGroup).
var wordStarts = func() (t [1 << 10]uint64) {
	add := func(w []rune) {
		if key, ok := startKey(w); ok {
			h := startHash(key)
			t[h>>6] |= 1 << (h & 63)
		}
	}
	for w := range numberWords.words {
		if w != "and" {
			add([]rune(w))
		}
	}
	for a := range swedishParts {
		for b := range swedishParts {
			add([]rune(a + b))
		}
		if w := []rune(a); len(w) == 2 {
			add(w)
		}
	}
	return t
}()

// startKey packs the first (up to) three lower-cased letters of a word of
// two or more letters and their count; ok is false when the word is shorter
// or one of them lies beyond Latin-1.
func startKey(w []rune) (key uint32, ok bool) {
	n := min(len(w), 3)
	if n < 2 {
		return 0, false
	}
	key = uint32(n) << 24
	for k, c := range w[:n] {
		c = latinLower(c)
		if c >= 0x100 {
			return 0, false
		}
		key |= uint32(c) << (8 * k)
	}
	return key, true
}

func startHash(key uint32) uint32 { return key * 0x9E3779B1 >> 16 }

// mayBeNumber reports whether the whole word w (letters) may be a number
// word or begin a number: false only when wordStarts rules it out.
func mayBeNumber(w []rune) bool {
	key, ok := startKey(w)
	if !ok {
		return true
	}
	h := startHash(key)
	return wordStarts[h>>6]&(1<<(h&63)) != 0
}

// latinLower lower-cases an ASCII or Latin-1 letter (other runes stay).
func latinLower(c rune) rune {
	if uint32(c) < 0x100 {
		return rune(latinLowers[c])
	}
	return c
}

// isLatinLetter reports whether c is an ASCII or Latin-1 letter.
func isLatinLetter(c rune) bool { return uint32(c) < 0x100 && latinClass[c]&clLetter != 0 }

// latinClass holds what prose needs to know of each rune below 0x100, so
// that it reads a rune with one look-up: whether it starts nothing
// (clInert, ASCII only), is a letter (clLetter), or may follow a prose word
// (clWordEnd: ASCII, not a letter, digit or hyphen), or starts a number
// only before a digit (clSign: + - . ,). latinLowers holds its lower case.
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
		if c < 0x80 && !isAlnum(c) && c != '-' {
			t[c] |= clWordEnd
		}
		if c == '+' || c == '-' || c == '.' || c == ',' {
			t[c] |= clSign
		}
	}
	return t, lower
}()

const (
	clInert = 1 << iota
	clLetter
	clWordEnd
	clSign
)

// mayBeLatinNumber is mayBeNumber for a word w of two or more ASCII or
// Latin-1 letters, written out so that prose can inline it.
func mayBeLatinNumber(w []rune) bool {
	key := 2<<24 | uint32(latinLowers[uint8(w[0])]) | uint32(latinLowers[uint8(w[1])])<<8
	if len(w) > 2 {
		key += 1<<24 | uint32(latinLowers[uint8(w[2])])<<16
	}
	h := startHash(key)
	return wordStarts[h>>6]&(1<<(h&63)) != 0
}

func (s *scanner) alnumEnd(i int) int {
	end, _ := s.alnumRun(i)
	return end
}

// alnumRun returns the end of the run of letters and digits at i and
// whether it holds a digit.
func (s *scanner) alnumRun(i int) (end int, digit bool) {
	r, j := s.f.r, i
	for j < len(r) && r[j] < 0x80 { // ASCII, read without the checks of at
		class := asciiClass[r[j]]
		if class&classAlnum == 0 {
			break
		}
		digit = digit || class&classLetter == 0
		j++
	}
	s.reads += j - i
	for c := s.at(j); isAlnum(c); c = s.at(j) {
		digit = digit || isDigit(c)
		j++
	}
	return j, digit
}

// numberWords are the words that the word step reads as a number, or as
// the start of one or of a date, on their own: English number words,
// ordinals, month names and currency codes. A word that is none of them
// and no Swedish number (see swedishNumber) is prose.
var numberWords = func() *wordSet {
	m := map[string]string{}
	for w := range englishWords {
		m[w] = ""
	}
	for _, ws := range []*wordSet{ordinalWords, monthWords, currencyCodes} {
		for w := range ws.words {
			m[w] = ""
		}
	}
	return newWordSet(m)
}()

// swedishParts as a word set.
var swedishPartSet = func() *wordSet {
	m := map[string]string{}
	for w := range swedishParts {
		m[w] = ""
	}
	return newWordSet(m)
}()

// swedishNumber reports whether the lower-cased word w is written together
// from Swedish number parts ("tvåhundrafemtio"). A word longer than 63
// bytes is not checked: it is reported as one.
func swedishNumber(w []byte) bool {
	if len(w) > 63 {
		return true
	}
	reach := uint64(1) // bit p: w[:p] is made of parts
	for p := range w {
		if reach&(1<<p) == 0 {
			continue
		}
		for q, n := p, 0; q < len(w); q++ {
			if n = swedishPartSet.child(n, w[q]); n < 0 {
				break
			}
			if swedishPartSet.nodes[n].whole {
				reach |= 1 << (q + 1)
			}
		}
	}
	return reach&(1<<len(w)) != 0
}

// lexeme kinds of spelled-out numbers.
const (
	lexUnit    = iota + 1 // one … nine
	lexTeen               // ten … nineteen
	lexTens               // twenty … ninety
	lexHundred            // hundred
	lexScale              // thousand, million, billion
	lexAnd                // "and" inside a number: two hundred and five
	lexArticle            // "a" before hundred or a scale: a thousand
)

type lexeme struct {
	kind int
	val  int64
}

var englishWords = func() map[string]lexeme {
	m := map[string][]lexeme{}
	series(m, lexUnit, 1, 1, "one two three four five six seven eight nine")
	series(m, lexTeen, 10, 1, "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen")
	series(m, lexTens, 20, 10, "twenty thirty forty fifty sixty seventy eighty ninety")
	series(m, lexHundred, 100, 0, "hundred")
	series(m, lexScale, 1e3, 0, "thousand")
	series(m, lexScale, 1e6, 0, "million")
	series(m, lexScale, 1e9, 0, "billion")
	series(m, lexAnd, 0, 0, "and")
	series(m, lexArticle, 1, 0, "a")
	one := make(map[string]lexeme, len(m))
	for w, ls := range m {
		one[w] = ls[0]
	}
	return one
}()

// swedishParts are the parts Swedish number words are written together
// from: "tvåhundrafemtio" is två·hundra·femtio.
var swedishParts = func() map[string][]lexeme {
	m := map[string][]lexeme{}
	series(m, lexUnit, 1, 0, "en ett")
	series(m, lexUnit, 2, 1, "två tre fyra fem sex sju åtta nio")
	series(m, lexTeen, 10, 1, "tio elva tolv tretton fjorton femton sexton sjutton arton nitton")
	series(m, lexTens, 20, 10, "tjugo trettio fyrtio femtio sextio sjuttio åttio nittio")
	series(m, lexHundred, 100, 0, "hundra")
	series(m, lexScale, 1e3, 0, "tusen")
	series(m, lexScale, 1e6, 0, "miljon miljoner")
	series(m, lexScale, 1e9, 0, "miljard miljarder")
	series(m, lexUnit, 1, 0, "ettusen") // ett·tusen: two lexemes
	series(m, lexScale, 1e3, 0, "ettusen")
	return m
}()

const maxSwedishPart = len("miljarder")

// numberParts holds the English number words and the Swedish parts.
var numberParts = func() *wordSet {
	m := map[string]string{}
	for w := range englishWords {
		m[w] = ""
	}
	for w := range swedishParts {
		m[w] = ""
	}
	return newWordSet(m)
}()

// isPrefix reports whether w is the start (or the whole) of a word of the
// set.
func (ws *wordSet) isPrefix(w []byte) bool {
	n := 0
	for _, b := range w {
		if n = ws.child(n, b); n < 0 {
			return false
		}
	}
	return true
}

// numberWordPrefix reports whether w is the start of a number word: of an
// English one, or Swedish parts followed by the start of a part.
func numberWordPrefix(w []byte) bool {
	if numberParts.isPrefix(w) {
		return true
	}
	for n := min(len(w)-1, maxSwedishPart); n >= 2; n-- {
		if swedishPartSet.has(w[:n]) && numberWordPrefix(w[n:]) {
			return true
		}
	}
	return false
}

// appendLex appends the lexemes of one lower-cased word to dst and returns
// its language ('e' English, 's' Swedish), or dst as it was and 0 when the
// word is not (entirely) a number word. The words of one number are all of
// one language.
func appendLex(dst []lexeme, w []byte) ([]lexeme, byte) {
	if !numberParts.isPrefix(w[:min(len(w), 2)]) {
		return dst, 0
	}
	if l, ok := englishWords[string(w)]; ok {
		return append(dst, l), 'e'
	}
	if d, ok := appendSwedish(dst, w); ok {
		return d, 's'
	}
	return dst, 0
}

// lower writes the lower-case UTF-8 of r into the scanner's scratch buffer.
func (s *scanner) lower(r []rune) []byte {
	b := s.scratch[:0]
	for _, c := range r {
		if c < 0x80 {
			b = append(b, lowerASCII(byte(c)))
		} else {
			b = utf8.AppendRune(b, toLower(c))
		}
	}
	s.scratch = b
	return b
}

// toLower is unicode.ToLower for a rune beyond ASCII, with the Latin-1
// letters (å, ä, ö, é, ü, …) mapped without searching the case tables.
func toLower(c rune) rune {
	switch {
	case c >= 0xC0 && c <= 0xDE && c != 0xD7: // À–Þ but ×
		return c + 0x20
	case c >= 0xDF && c <= 0xFF: // ß and the lower-case letters (and ÷)
		return c
	}
	return unicode.ToLower(c)
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// appendSwedish splits a word into Swedish number parts, longest part
// first, backtracking, and appends their lexemes to dst; false when it
// cannot be split entirely.
func appendSwedish(dst []lexeme, w []byte) ([]lexeme, bool) {
	if len(w) == 0 {
		return dst, false
	}
	for n := min(len(w), maxSwedishPart); n >= 2; n-- {
		p, ok := swedishParts[string(w[:n])]
		if !ok {
			continue
		}
		if n == len(w) {
			return append(dst, p...), true
		}
		if d, ok := appendSwedish(append(dst, p...), w[n:]); ok {
			return d, true
		}
	}
	return dst, false
}

// spelled reads a spelled-out number whose first word is [i,j): words joined
// by single spaces or hyphens, as long as they still form one number. Only
// values from two upwards count (SPEC §3 rule 5).
func (s *scanner) spelled(i, j int) (token, bool) {
	lex, lang := appendLex(s.lex[:0], s.lower(s.f.r[i:j]))
	if lang == 0 {
		return token{}, false
	}
	const maxWords = 12
	// The lexemes of the words read are lex; word n ends at rune
	// words[n].end, its lexemes at lex[words[n].lex].
	words := append(s.words[:0], spelledWord{end: j, lex: len(lex)})
	for len(words) < maxWords && continues(lex) {
		end := words[len(words)-1].end
		sep := s.at(end)
		if sep != ' ' && sep != '-' || !isLetter(s.at(end+1)) {
			break
		}
		// Read the next word only while it can still be a number word,
		// so that "five users" is final without seeing the end of "users".
		e := end + 1
		w := s.scratch[:0]
		viable := true
		node := 0 // in numberParts, while w is the start of a word of it
		for c := s.at(e); isLetter(c); c = s.at(e) {
			n := len(w)
			if c < 0x80 {
				w = append(w, lowerASCII(byte(c)))
			} else {
				w = utf8.AppendRune(w, toLower(c))
			}
			for _, b := range w[n:] {
				if node >= 0 {
					node = numberParts.child(node, b)
				}
			}
			if node < 0 && !numberWordPrefix(w) {
				viable = false
				break
			}
			e++
		}
		s.scratch = w
		if len(w) == 0 || !viable || isAlnum(s.at(e)) {
			break // not a number word, or letters running into digits (a code)
		}
		var lg byte
		if lex, lg = appendLex(lex, w); lg != lang {
			lex = lex[:words[len(words)-1].lex]
			break
		}
		words = append(words, spelledWord{end: e, lex: len(lex)})
	}
	s.lex, s.words = lex, words
	for n := len(words); n > 0; n-- {
		v, ok := parseNumber(lex[:words[n-1].lex])
		if !ok {
			continue
		}
		if v < 2 {
			return token{}, false
		}
		t := token{start: i, end: words[n-1].end, canon: strconv.FormatInt(v, 10), kind: KindWords}
		if frac, e, ok := s.spelledFraction(t.end); ok {
			t.canon, t.end = decimal(t.canon, frac), e
		}
		s.quantity(&t, "")
		if v <= 10 && n == 1 && t.kind == KindWords && t.unit == "" && t.period == "" && t.canon == strconv.FormatInt(v, 10) {
			t.noun = s.nounAt(t.end)
		}
		return t, true
	}
	return token{}, false
}

// spelledWord is a word of a spelled-out number: where it ends in the text
// and where its lexemes end.
type spelledWord struct{ end, lex int }

var pointWords = newWordSet(map[string]string{"point": "", "dot": "", "komma": ""})

// spelledFraction reads the decimals of a spelled-out number after end:
// "three point five", "twelve dot fifty", "tre komma fem".
func (s *scanner) spelledFraction(end int) (string, int, bool) {
	if s.at(end) != ' ' {
		return "", 0, false
	}
	_, e, ok := s.read(pointWords, end+1)
	if !ok || s.at(e) != ' ' || !isLetter(s.at(e+1)) {
		return "", 0, false
	}
	j := s.alnumEnd(e + 1)
	var buf [8]lexeme
	l, lang := appendLex(buf[:0], s.lower(s.f.r[e+1:j]))
	if lang == 0 {
		return "", 0, false
	}
	v, ok := parseNumber(l)
	if !ok || v >= 100 {
		return "", 0, false
	}
	return strconv.FormatInt(v, 10), j, true
}

// continues reports whether the words read so far may still be followed by
// more words of the same number: they form a number, or they end in "and"
// or "a" ("two hundred and", "a"). A sequence that is no number and does not
// end so cannot become one ("tjugo tjugo"), so the scanner stops reading.
func continues(flat []lexeme) bool {
	if k := flat[len(flat)-1].kind; k == lexAnd || k == lexArticle {
		return true
	}
	_, ok := parseNumber(flat)
	return ok
}

// parseNumber evaluates a whole sequence of lexemes as one number:
//
//	number  = { group scale [and] } [ group ]   (scales strictly decreasing)
//	group   = [unit | a] hundred [[and] small] | small
//	small   = tens [unit] | teen | unit
//
// A scale with no group before it counts once ("tusen", "a thousand").
func parseNumber(l []lexeme) (int64, bool) {
	var total int64
	lastScale := int64(1e18)
	i := 0
	any := false
	for i < len(l) {
		g, n := parseGroup(l[i:])
		if i+n < len(l) && l[i+n].kind == lexScale {
			scale := l[i+n].val
			if scale >= lastScale {
				return 0, false
			}
			if n == 0 {
				g = 1
			}
			total += g * scale
			lastScale = scale
			i += n + 1
			any = true
			if i < len(l) && l[i].kind == lexAnd && i+1 < len(l) {
				i++
			}
			continue
		}
		if n == 0 || i+n != len(l) || (g >= lastScale && any) {
			return 0, false
		}
		total += g
		i += n
		any = true
	}
	return total, any
}

// parseGroup reads a group (1–999) at the start of l and returns its value
// and the number of lexemes it used (0 when none).
func parseGroup(l []lexeme) (int64, int) {
	i := 0
	var v int64
	if len(l) >= 2 && (l[0].kind == lexUnit || l[0].kind == lexArticle) && l[1].kind == lexHundred {
		v, i = l[0].val*100, 2
	} else if len(l) >= 1 && l[0].kind == lexHundred {
		v, i = 100, 1
	} else if len(l) >= 2 && l[0].kind == lexArticle && l[1].kind == lexScale {
		return 1, 1
	}
	if i > 0 {
		rest := l[i:]
		if len(rest) >= 2 && rest[0].kind == lexAnd {
			if s, n := parseSmall(rest[1:]); n > 0 {
				return v + s, i + 1 + n
			}
			return v, i
		}
		s, n := parseSmall(rest)
		return v + s, i + n
	}
	return parseSmall(l)
}

func parseSmall(l []lexeme) (int64, int) {
	if len(l) == 0 {
		return 0, 0
	}
	switch l[0].kind {
	case lexTens:
		if len(l) >= 2 && l[1].kind == lexUnit {
			return l[0].val + l[1].val, 2
		}
		return l[0].val, 1
	case lexTeen, lexUnit:
		return l[0].val, 1
	}
	return 0, 0
}
