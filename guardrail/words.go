package guardrail

import (
	"maps"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// word reads what starts with a letter at i: a code with digits inside
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
				return end, false // a code, as below
			}
			if rest == 0 || end > 0 {
				// (A value below two is no number: see spelled.)
				if r.val >= 2 && s.spelled(t, i, e, nil, 'e', &r) {
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
		// a code when any run has a digit ("COVID-19", "SE-123").
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
				*t = token{start: i, end: end, canon: s.keep([]byte("Q" + s.str(s.digitString(i+1, end)))), kind: kQuarter}
				return end, true
			}
			return end, false
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
			return j, false // prose
		}
		if unicode.IsUpper(s.at(i)) {
			if m, next, ok := s.monthFirst(i); ok {
				*t = m
				return next, true
			}
			if w, e, ok := s.read(currencyCodes, i); ok && e == j {
				if p, next, ok := s.prefixed(i, e, w.code); ok {
					*t = p
					return next, true
				}
			}
		}
		if lang == 0 {
			// An ordinal word (no Swedish number: TestOrdinalsAreNoNumbers)
			// counts before a noun ("third place", "tredje kvartalet"), not
			// as a marker of a list ("Third, …").
			if w, e, ok := s.read(ordinalWords, i); ok && e == j {
				v := w.value
				o := s.ordinalToken(i, e, v)
				if o.kind == kQuarter || (v > "2" || len(v) > 1) && s.at(e) == ' ' && isLetter(s.at(e+1)) {
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

// nounAt reads the word after a small count ending at i, for the check
// that no snippet binds another number to it ("two devices" against "up to
// 3 devices"). It reads through the scanner, so in hold mode the count is
// decided only once its noun is complete.
func (s *scanner) nounAt(i int) ref {
	if s.at(i) != ' ' {
		return ref{}
	}
	e := i + 1
	if fast {
		e = s.letterRun(e)
	}
	for c := s.at(e); isLetter(c); c = s.at(e) {
		e += runeLen(c)
	}
	return s.keep([]byte(stemNoun(string(s.lower(s.t[i+1 : e])))))
}

// wordStarts is a filter (a 64K-bit hash set) of how a word that may be a
// number begins: the key (see startKey) of every number word, ordinal,
// month name and currency code and of every run of Swedish number parts
// ("tvåhundra…"). A word whose key is not in it is prose, decided without
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
		for ; p < len(t) && t[p] < 0x80 && asciiClass[t[p]]&classAlnum != 0; p++ {
			all &= asciiClass[t[p]]
		}
		if j == 0 {
			j = p
		}
		// At p, an ASCII rune that is no letter or digit, unless undecided.
		if p+1 >= len(t) || t[p] >= 0x80 || t[p] == '-' && t[p+1] >= 0x80 {
			return 0, 0, false
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

// numberWords are the words that the word step reads as a number, or as
// the start of one or of a date, on their own: English number words,
// ordinals, month names and currency codes. A word that is none of them
// and cannot be split into Swedish number parts (see appendSwedish) is
// prose.
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

// partNodes is a byte trie of the English number words and the Swedish
// parts; partNodes[0] is the root. A node holds the node after each byte
// (0: none; by the symbol of the byte in partSym, the letters a–z first),
// the lexeme of the English word and the lexemes of the Swedish part that
// end there (kind 0, nil: none), whether it begins "hundred" or a scale
// word, the only words that may follow "a", and whether a Swedish part ends
// on the way to it (see readPart).
var partNodes = func() (t []partNode) {
	sym := &partSym
	m := map[string]string{}
	for w := range englishWords {
		m[w] = w
	}
	for w := range swedishParts {
		m[w] = w
	}
	ws := newWordSet(m)
	for c := byte('a'); c <= 'z'; c++ {
		sym[c], sym[c-'a'+'A'] = c-'a'+1, c-'a'+1 // the upper case for walkLetters
	}
	next := uint8('z' - 'a' + 1)
	t = make([]partNode, len(ws.nodes))
	for n := len(t) - 1; n >= 0; n-- { // children before their parent
		node, p := ws.nodes[n], &t[n]
		p.en, p.sv = englishWords[node.value], swedishParts[node.value]
		p.scale = p.en.kind == lexHundred || p.en.kind == lexScale
		for _, e := range node.next {
			if sym[e.b] == 0 {
				next++
				sym[e.b] = next
			}
			p.next[sym[e.b]-1] = int16(e.to)
			p.scale = p.scale || t[e.to].scale
			if d := int(sym[e.b]); d <= 26 {
				partWalk[n<<5|d] = uint16(e.to) << 5
			}
		}
	}
	if fast { // for readPart
		for n := range t { // parents before their children
			for _, e := range ws.nodes[n].next {
				t[e.to].afterPart = t[n].afterPart || t[e.to].sv != nil
			}
		}
		// For knownPart (the fast path only): each word of one to six
		// letters a–z, in order (so that the slots the words take do
		// not change from run to run).
		if fast {
			for _, w := range slices.Sorted(maps.Keys(m)) {
				n, key := 0, uint64(0)
				for k := range len(w) {
					if w[k] < 'a' || w[k] > 'z' || k == 6 {
						key = 0
						break
					}
					n = int(t[n].next[sym[w[k]]-1])
					key |= uint64(w[k]) << (8 * k)
				}
				if key != 0 {
					h := letterSlot(key)
					for partKeys[h] != 0 {
						h++
					}
					partKeys[h] = key | uint64(n)<<48
				}
			}
		}
	}
	return t
}()

// partKeys holds the words of partNodes of one to six letters a–z, for
// knownPart (fast path): a slot holds a word's bytes in its low bytes and
// its node in its top two (0: an empty slot), at the word's letterSlot or,
// where that is taken, the next free after it. It holds some fifty words:
// a look-up ends at an empty slot.
var partKeys [256]uint64

// knownPart returns what walkLetters(t, start, false) does, where it can
// tell at once (ok): at a word of partKeys, of one to six ASCII letters
// (in either case) followed by a byte that is none, the walk reaches the
// word's node at its end and stops there (the byte has no symbol of a
// letter). It reads the eight bytes from start, where t holds them.
func knownPart(t string, start int) (e, node int, ok bool) {
	if start+8 > len(t) {
		return 0, 0, false
	}
	y := le64at(t, start) | 0x20*ones
	n := lowerLetters(y)
	if n == 0 || n == 7 {
		return 0, 0, false
	}
	key := y & (1<<(8*n) - 1)
	for h := letterSlot(key); ; h++ {
		k := partKeys[h]
		if k<<16 == key<<16 {
			return start + n, int(k >> 48), true
		}
		if k == 0 {
			return 0, 0, false
		}
	}
}

// partSym holds the symbol of each byte in partNodes (0: none; 1–26: a–z,
// and A–Z for walkLetters).
var partSym [256]uint8

type partNode struct {
	next      [31]int16 // by symbol - 1: a symbol of 32 would alias the next row of partWalk
	en        lexeme
	sv        []lexeme
	scale     bool
	afterPart bool // a Swedish part ends here or at a node before
}

// partChild returns the node after byte b from node n of partNodes, or -1.
func partChild(n int, b byte) int {
	if d := partSym[b]; d != 0 && partNodes[n].next[d-1] != 0 {
		return int(partNodes[n].next[d-1])
	}
	return -1
}

// numberWordPrefix reports whether w is the start of a number word: of an
// English one, or Swedish parts followed by the start of a part.
func numberWordPrefix(w []byte) bool {
	n := 0
	for q := range w {
		if n = partChild(n, w[q]); n < 0 {
			return false
		}
		if q+1 < len(w) && partNodes[n].sv != nil && numberWordPrefix(w[q+1:]) {
			return true
		}
	}
	return true
}

// lexemes appends the lexemes of the word [i,j), which is no English number
// word, to dst and returns its language: 's' Swedish, 0 when it is no
// number word (and dst as it was). The word is left lower-cased in
// s.scratch, or none when wordStarts rules out every number word and
// ordinal, month name or currency code.
func (s *scanner) lexemes(dst []lexeme, i, j int) ([]lexeme, byte) {
	w := s.t[i:j]
	s.scratch = s.scratch[:0]
	if !mayBeNumber(w) {
		return dst, 0 // most prose words: no number word starts so
	}
	d, ok := appendSwedish(dst, s.lower(w))
	if !ok {
		return dst, 0
	}
	return d, 's'
}

// lower writes the lower-case UTF-8 of w into the scanner's scratch buffer.
func (s *scanner) lower(w string) []byte {
	b := s.scratch[:0]
	for i := 0; i < len(w); {
		if c := w[i]; c < 0x80 {
			b = append(b, latinLowers[c])
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(w[i:])
		b = utf8.AppendRune(b, toLower(c))
		i += size
	}
	s.scratch = b
	return b
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

// appendSwedish splits a word into Swedish number parts, longest part
// first, backtracking, and appends their lexemes to dst; false when it
// cannot be split entirely.
func appendSwedish(dst []lexeme, w []byte) ([]lexeme, bool) {
	var parts [len("miljarder")]int32 // parts[q-1]: the node of w[:q] when a part
	n, last, nodes := 0, 0, partNodes
	for q := 0; q < len(w) && q < len(parts); q++ {
		d := partSym[w[q]]
		if d == 0 || nodes[n].next[d-1] == 0 {
			break
		}
		if n = int(nodes[n].next[d-1]); nodes[n].sv != nil {
			parts[q], last = int32(n), q+1
		}
	}
	for q := last; q > 0; q-- {
		if parts[q-1] == 0 {
			continue
		}
		p := partNodes[parts[q-1]].sv
		if q == len(w) {
			return append(dst, p...), true
		}
		if d, ok := appendSwedish(append(dst, p...), w[q:]); ok {
			return d, true
		}
	}
	return dst, false
}

// spelled reads into t a spelled-out number whose first word is [i,j), of
// the lexemes lex in the language lang ('e' English, 's' Swedish): words
// joined by single spaces or hyphens of the same language, as long as they
// still form one number; or, when run is not nil, it takes what englishRun
// read there. Only values from two upwards count (SPEC §3 rule 5).
func (s *scanner) spelled(t *token, i, j int, lex []lexeme, lang byte, run *spelledRun) bool {
	// Words are read while they may still form one number: the longest
	// run of them that does ends at rune best (0: none), has the value val
	// and bestWords words. "a" begins a number only before "hundred" or a
	// scale word, so after it only their beginnings are read.
	var val int64
	best, bestWords, end := 0, 0, j
	follow := 0 // where the last English number word read (not "a") starts
	if run != nil {
		val, best, bestWords, follow = run.val, run.best, run.words, run.follow
	} else if lex[0].kind == lexAnd {
		return false // no number starts with "and" (see parseGroup)
	}
	for words := 1; run == nil; words++ {
		// More words may follow a number, or words that end in "and" or
		// "a" where a number may go on ("two hundred and", "a"), which
		// form none; other words that form no number cannot become one
		// ("tjugo tjugo", "twenty one and").
		if k := lex[len(lex)-1].kind; k != lexAnd && k != lexArticle {
			v, ok := parseNumber(lex)
			if !ok {
				break
			}
			val, best, bestWords = v, end, words
		} else if !openEnd(lex) {
			break
		}
		if words == maxWords {
			break
		}
		if sep := s.ascii(end); sep != ' ' && sep != '-' {
			break
		}
		// Read the next word only while it can still be a number word,
		// so that "five users" is final without seeing the end of "users".
		start := end + 1
		e, node, viable := s.readPart(start, words == 1 && lex[0].kind == lexArticle)
		if e == start || !viable {
			break // no word, not a number word, or letters running into digits (a code)
		}
		lg := byte('e')
		if node >= 0 && partNodes[node].en.kind != 0 {
			lex = append(lex, partNodes[node].en)
			if partNodes[node].en.kind != lexArticle {
				follow = start
			}
		} else if fast && node >= 0 && partNodes[node].sv != nil {
			lex, lg = append(lex, partNodes[node].sv...), 's' // one part, as lexemes finds it
		} else {
			lex, lg = s.lexemes(lex, start, e) // no English word (see readPart)
		}
		if lg != lang { // the words of one number are of one language
			break
		}
		end = e
	}
	if cap(lex) > cap(s.lex) {
		s.lex = lex // grown
	}
	if best == 0 || val < 2 {
		return false
	}
	t.set(i, best, ref{int32(val), -1}, kWords)
	if val >= 100 {
		t.canon = s.keep([]byte(strconv.FormatInt(val, 10)))
	}
	// A number followed by a space and another number word ("twenty
	// twenty-one") has no decimals, percent, unit or period: none of
	// them begins with an English number word but "a" (see
	// TestNumberWordsBeginNoQuantity).
	if follow != best+1 || s.t[best] != ' ' {
		// (quantityAfter tells pointWords.starts by a byte of the rune.)
		if s.ascii(t.end) == ' ' && quantityAfter[1][uint8(s.ascii(t.end+1))]&qPoint != 0 {
			if frac, e, ok := s.spelledFraction(t.end + 1); ok {
				t.canon, t.end = s.keep([]byte(decimal(s.str(t.canon), frac))), e
			}
		}
		s.quantity(t, 0)
	}
	// A small count as it was read: no decimals, scale, unit or period.
	if val <= 10 && bestWords == 1 && t.kind == kWords && t.unit|t.period == 0 && t.canon == (ref{int32(val), -1}) {
		if noun := s.nounAt(t.end); noun.n != 0 {
			s.counts = append(s.counts, counted{len(s.toks), noun}) // (see counted)
		}
	}
	return true
}

// maxWords is the most words spelled reads as one number.
const maxWords = 12

// spelledRun is what spelled's loop finds: the longest run of words
// that forms one number ends at best (0: none), has the value val and so
// many words; the last English number word read (not "a") starts at
// follow.
type spelledRun struct {
	val                 int64
	best, words, follow int
	chain               bool // englishRun's chain, while it reads (see there)
}

// englishRun is the loop of spelled for English number words in ASCII
// ("twenty-four", "two hundred and five"), the first of lexeme first and
// ending at j: it reads what the loop reads and finds what it finds (into
// r, which starts zero), but from the walk along partWalk alone (see
// readPart), with the lexemes in s.words. It returns false when that takes
// more than the walk: a rune beyond ASCII or past the end of the text, or a
// word that goes on beyond the walk and may be Swedish parts (see
// partNode.afterPart); spelled's loop then reads the words itself.
//
// With chain, a hyphen follows the first word, and the runs of letters and
// digits joined to it by hyphens are a code when any has a digit (see
// word): the words read after hyphens, of letters only, are such runs.
// rest is where that compound goes on beyond them (0: it ends before), for
// word to read on with asciiCompound.
func (s *scanner) englishRun(r *spelledRun, first lexeme, j int, chain bool) (rest int, ok bool) {
	t, end, n := s.t, j, 1
	s.words[0] = first
	// chain is kept in r while the loop reads, not in a register: the
	// walks' loops keep their values in registers, none reloaded.
	r.chain = chain
	article := false // after a first "a": only "hundred" or a scale word may follow
	switch first.kind {
	case lexAnd:
		n = maxWords // no number starts with "and" (see parseGroup)
	case lexArticle:
		article = true
	default:
		r.val, r.best, r.words = first.val, j, 1
	}
	for n < maxWords {
		if end >= len(t) {
			return 0, false
		}
		sep := t[end]
		if sep != '-' {
			r.chain = false
			if sep != ' ' {
				break
			}
		}
		start := end + 1
		// (Two walks, each inlined: the one for most words has no test
		// of article in its loop, nor a value more in its registers.)
		var e, node int
		if article {
			e, node = walkLetters(t, start, true)
		} else {
			e, node = walkLetters(t, start, false)
		}
		s.reads += e - start + 2
		if uint(e) >= uint(len(t)) || t[e] >= 0x80 { // (unsigned: no bounds to check)
			return 0, false
		}
		p := &partNodes[node]
		if c := asciiClass[t[e]]; c&classLetter != 0 {
			// The word goes on where no English word does (after "a",
			// no "hundred" or scale word): no number word, unless
			// Swedish parts that readPart reads on.
			if !article && p.afterPart {
				return 0, false
			}
			break
		} else if e == start || c != 0 || p.en.kind == 0 {
			break // no word, letters running into digits, or no English word
		}
		w := p.en
		s.words[n] = w
		n++
		end, article = e, false
		if w.kind != lexArticle {
			r.follow = start
		}
		if w.kind == lexAnd || w.kind == lexArticle {
			if !openEnd(s.words[:n]) {
				break
			}
		} else if n == 2 && w.kind == lexUnit && s.words[0].kind == lexTens {
			// "twenty-four", the commonest run of two words, valued as
			// parseNumber values it, without the call.
			r.val, r.best, r.words = s.words[0].val+w.val, end, n
		} else if v, ok := parseNumber(s.words[:n]); ok {
			r.val, r.best, r.words = v, end, n
		} else {
			break
		}
	}
	if r.chain {
		return end, true
	}
	return 0, true
}

// openEnd reports whether lexemes that end in "and" or "a" may still
// become a number (see parseNumber): "and" must follow "hundred" or a scale
// ("two hundred and", "a million and"), "a" must begin a group: come first
// or after a scale, with or without "and" ("a", "two million and a").
func openEnd(l []lexeme) bool {
	n := len(l)
	var before [2]int // the kinds of the two lexemes before the last (0: none)
	for k := range min(n-1, 2) {
		before[k] = l[n-2-k].kind
	}
	if l[n-1].kind == lexAnd {
		return before[0] == lexHundred || before[0] == lexScale
	}
	return n == 1 || before[0] == lexScale || before[0] == lexAnd && before[1] == lexScale
}

// walkLetters follows the letters a–z (in either case) of t from start
// along partNodes, only to the beginnings of "hundred" and the scale words
// after "a", and returns where it stopped and the node it reached.
func walkLetters(t string, start int, article bool) (e, node int) {
	w, base := &partWalk, 0
	for e = start; e < len(t); e++ {
		m := int(w[(base|int(partSym[t[e]]))&(len(w)-1)])
		if m == 0 || article && !partNodes[m>>5].scale {
			break
		}
		base = m
	}
	return e, base >> 5
}

// partWalk holds the letters a–z of partNodes for walkLetters: the entry
// of node n for the byte b, at n<<5|partSym[b], is the child's n<<5 when b
// is a letter a–z or A–Z, else 0 (as for no child). It has room for 512
// nodes (partNodes has about 210).
var partWalk [1 << 14]uint16

// readPart reads the word at start while it can still be a number word:
// the start of a word of partNodes or Swedish parts followed by such a
// start (see numberWordPrefix) or, after "a", the start of "hundred" or a
// scale word. It returns where it stopped reading, the node of partNodes
// the word read leads to (-1: none) and whether the word read is still
// viable and ends there, at a rune that is no letter, digit or mark
// (letters running into digits are a code).
func (s *scanner) readPart(start int, article bool) (e, node int, viable bool) {
	var w []byte // the word read, lower-cased, once node is -1
	t := s.t
	e, node = walkLetters(t, start, article)
	s.reads += e - start
	if e < len(t) && t[e] < 0x80 {
		// Most words end, or stop being viable, at an ASCII rune.
		s.reads++
		if c := asciiClass[t[e]]; c&classLetter == 0 {
			return e, node, c == 0 // no digit either
		}
		if article {
			return e, node, false // no child of node leads to "hundred" or a scale
		}
		if fast && !partNodes[node].afterPart {
			return e, -1, false // as below: the letter leads nowhere from node
		}
	}
	for c := s.at(e); ; c = s.at(e) {
		if !isLetter(c) {
			return e, node, !isAlnum(c)
		}
		if node >= 0 {
			var buf [utf8.UTFMax]byte
			b := buf[:1]
			if buf[0] = lowerASCII(byte(c)); c >= 0x80 {
				b = buf[:utf8.EncodeRune(buf[:], toLower(c))]
			}
			for _, x := range b {
				p := node
				if node = partChild(node, x); node < 0 {
					if fast && !partNodes[p].afterPart {
						// No part ends on the way: the word read
						// begins no Swedish parts followed by a
						// number word (see numberWordPrefix).
						return e, node, false
					}
					w = s.lower(t[start : e+runeLen(c)])
					break
				}
			}
		} else if c < 0x80 {
			w = append(w, lowerASCII(byte(c)))
		} else {
			w = utf8.AppendRune(w, toLower(c))
		}
		if article && (node < 0 || !partNodes[node].scale) || node < 0 && !numberWordPrefix(w) {
			return e, node, false
		}
		e += runeLen(c)
	}
}

var pointWords = newWordSet(map[string]string{"point": "", "dot": "", "komma": ""})

// spelledFraction reads the decimals of a spelled-out number after the
// space before i: "three point five", "twelve dot fifty", "tre komma fem".
func (s *scanner) spelledFraction(i int) (string, int, bool) {
	_, e, ok := s.read(pointWords, i)
	if !ok || s.at(e) != ' ' || !isLetter(s.at(e+1)) {
		return "", 0, false
	}
	j, _ := s.alnumRun(e + 1)
	var buf [8]lexeme
	l := buf[:0]
	if k, n := walkLetters(s.t, e+1, false); k == j && partNodes[n].en.kind != 0 {
		l = append(l, partNodes[n].en)
	} else if l, _ = s.lexemes(l, e+1, j); len(l) == 0 {
		return "", 0, false
	}
	v, ok := parseNumber(l)
	if !ok || v >= 100 {
		return "", 0, false
	}
	return strconv.FormatInt(v, 10), j, true
}

// parseNumber evaluates a whole sequence of lexemes as one number:
//
//	number  = { group scale [and] } [ group ]   (scales strictly decreasing)
//	group   = [unit | a] hundred [[and] small] | small
//	small   = tens [unit] | teen | unit
//
// A scale with no group before it counts once ("tusen", "a thousand").
func parseNumber(l []lexeme) (int64, bool) {
	switch {
	case len(l) == 1 && l[0].kind <= lexScale:
		return l[0].val, true // one word: a small number, hundred or a scale
	case len(l) == 2 && l[0].kind <= lexTens && l[1].kind <= lexTens:
		if l[0].kind == lexTens && l[1].kind == lexUnit {
			return l[0].val + l[1].val, true
		}
		return 0, false // two small numbers, but for "twenty-one", are none
	}
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
