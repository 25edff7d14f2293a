package guardrail

import (
	"unicode/utf8"
)

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
			for _, w := range sortedWords(m) {
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
	if best != 0 && lang == 'e' {
		// An English ordinal word after the number ends it: "twenty-first".
		last := s.words[bestWords-1] // what englishRun read
		if run == nil {
			last = lex[bestWords-1] // (one lexeme a word)
		}
		if s.ordinalAfter(t, i, best, val, last) {
			return true
		}
	}
	half := 0 // where "and a half" after it ends ("two and a half hours")
	if best != 0 && val >= 1 && s.ascii(best) == ' ' {
		half = s.halfAfter(best + 1)
	}
	if best == 0 || val < 2 && half == 0 {
		return false
	}
	t.set(i, best, ref{int32(val), -1}, kWords)
	if val >= 100 {
		t.canon = s.keep([]byte(itoa(val)))
	}
	// A number followed by a space and another number word ("twenty
	// twenty-one") has no decimals, percent, unit or period: none of
	// them begins with an English number word but "a" (see
	// TestNumberWordsBeginNoQuantity).
	if half != 0 {
		s.addHalf(t, val, half)
	} else if follow != best+1 || s.t[best] != ' ' {
		// (quantityAfter tells pointWords.starts by a byte of the rune.)
		if s.ascii(t.end) == ' ' && quantityAfter[1][uint8(s.ascii(t.end+1))]&qPoint != 0 {
			if frac, e, ok := s.spelledFraction(t.end + 1); ok {
				t.canon, t.end = s.keep([]byte(decimal(s.str(t.canon), frac))), e
			}
		}
		s.quantity(t, 0)
	}
	// A small count (to ten, one word) as it was read: no decimals,
	// scale, unit or period; but a time, a part's number or a day of a
	// month is none, and a day (of any value to 31: "May twenty-one") is
	// read as a date (see countPlace).
	if val <= 31 && t.kind == kWords && t.unit|t.period == 0 && t.canon == (ref{int32(val), -1}) {
		switch place, month, after := s.countPlace(t.start, t.end); place {
		case placeCount:
			if val > 10 || bestWords != 1 {
				break
			}
			if noun := s.nounAt(t.end); noun.n != 0 {
				s.counts = append(s.counts, counted{len(s.toks), noun}) // (see counted)
			}
		case placeDay:
			s.dayToken(t, int(val), month, after)
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

var pointWords = newWordSet(table(`= point dot komma`))

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
	return itoa(v), j, true
}

// halfPhrases add a half to the number before them: "two and a half",
// "två och en halv", "två och ett halvt".
var halfPhrases = [...]string{"and a half", "och en halv", "och ett halvt"}

// halfAfter returns where a phrase of halfPhrases at i ends, in any case
// and followed by no letter, or 0.
func (s *scanner) halfAfter(i int) int {
	for _, p := range halfPhrases {
		j := i
		for j-i < len(p) && s.ascii(j)|0x20 == rune(p[j-i]) {
			j++
		}
		if j-i == len(p) && !isLetter(s.at(j)) {
			return j
		}
	}
	return 0
}

// addHalf makes t, a number val written in words, val and a half ending at
// end, and reads on as after a decimal in digits, scale words too ("two
// and a half million dollars").
func (s *scanner) addHalf(t *token, val int64, end int) {
	t.canon, t.end, t.kind = s.keep([]byte(decimal(itoa(val), "5"))), end, kDecimal
	if s.quantity(t, 0); t.kind == kDecimal {
		t.kind = kWords
	}
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
