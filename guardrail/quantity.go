package guardrail

import (
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// This file reads what is printed with a number and makes it a quantity:
// a scale ("1.5 million" is 1500000), a unit or currency ("399 kr", "5 TB",
// "$160"), a period ("per month", "/mån"), and the structured kinds that are
// written with words (dates with month names, quarters, ordinals).
//
// Every look at the text goes through scanner.at, so a quantity is final only
// once nothing after it can still change it: in hold mode "399" is held while
// it may still become "399 €" or "399 kr per year".

// wordSet is a set of lower-case words with a value each, kept as a byte
// trie so that a word can be read byte by byte and given up on as soon as
// no word of the set can match, without hashing what was read. The trie is
// built as nodes with their edges, then laid out flat for reading, with a
// look-up per byte.
type wordSet struct {
	words map[string]string // word → normalised value
	nodes []trieNode        // nodes[0] is the root
	// sym holds the symbol of each byte of the words, 1 up (0: a byte in
	// none); an upper-case ASCII letter has the symbol of its lower case,
	// so that a read folds ASCII case for nothing.
	sym [256]uint8
	// rows holds a row of width entries for each node, the root's first:
	// entry sym[b] of a row is the row (its offset in rows) of the node
	// after byte b, 0 for none (no byte leads to the root, nor does
	// symbol 0), and the last entry is the node: its index in nodes and
	// what read needs to know of it (nodeWhole; nodeAlnum and nodeMid
	// where read takes its fast path).
	rows  []uint16
	width int
	// pairs marks, by a first byte b0 and a second b1 (ASCII, of either
	// case), at bit b1&63 of pairs[2*b0+b1>>6], the words' first two
	// bytes, and every second byte after a first that is a word alone
	// (see may); made by withPairs for the sets quantity asks may about.
	pairs []uint64
	// letterKeys is a hash table of the words of one to seven bytes of
	// letters, ASCII or of Latin-1 (0xC3 and à–þ), which readLetters
	// finds by their bytes at once; made by withLetters for the sets of
	// units and periods, whose words run on from their letters into no
	// ASCII rune that is not one. A word's key is its bytes with 0x20 set
	// in each (lower case as they are, but 0xC3 made 0xE3: a text's bytes
	// read so match it whatever their case) in the low bytes of a uint64,
	// the first lowest; its slot is told by the top byte of the key times
	// a large odd constant (letterSlot), and the slots after it in turn
	// (linear probing; the table is at most half full). A slot holds the
	// key and, in its top byte, which no key of seven bytes or fewer
	// fills, the code of the word's value; 0 marks an empty slot. (A slice, not an array
	// of its own type: every type of a field adds to the WASM guard,
	// which makes none of these.)
	letterKeys []uint64
}

// letterRun is asciiLetters for the letters of letterKeys: 8 × how many
// of the first seven bytes of x are ASCII letters or bytes beyond ASCII
// before the first that is neither. A byte beyond ASCII takes nothing from
// the next as asciiLetters reads it (its 0x20 set, it is 0xA0 or more),
// and carries into it only when it is 0xFB or more, a byte no word of
// letterKeys holds.
func letterRun(x uint64) int {
	z := (x | 0x20*ones) - 'a'*ones
	other := ((z + (0x80-26)*ones) | z) &^ x & (0x80 * ones)
	return bits.TrailingZeros64(other|1<<63) &^ 7
}

// leadsStand reports whether the bytes of x that key, a key of letterKeys
// x matches (x with 0x20 set in each byte), holds as 0xE3 stand as 0xC3
// in x, as the first bytes of letters of Latin-1, not as 0xE3 (found
// exactly: no carry crosses a byte). Then x holds the word's letters, each
// in either case: an ASCII letter, or a letter of Latin-1 whose second
// byte lower-cases by 0x20 set (À–Þ; no key holds ÷, whose byte × would
// read as).
func leadsStand(x, key uint64) bool {
	y := key ^ 0xE3*ones
	e3 := ^((y&(0x7F*ones) + 0x7F*ones) | y) & (0x80 * ones)
	return x&(e3>>2) == 0
}

// letterSlot is the first slot of the key x in letterKeys.
func letterSlot(x uint64) uint8 { return uint8((x * 0x9E3779B97F4A7C15) >> 56) }

const (
	nodeWhole = 1 << (15 - iota) // a word of the set ends here
	nodeAlnum                    // the words through here end (so far) in a letter or digit
	nodeMid                      // the node stands within the bytes of a rune
	nodeIndex = nodeMid - 1      // the bits of the index in nodes
)

type trieNode struct {
	next  []trieEdge
	value string
	code  uint8 // of value in names (0: none)
	whole bool  // a word of the set ends here
}

type trieEdge struct {
	b  byte
	to int32
}

// newWordSet makes the set of the words of m, which are lower case: every
// rune of them is its own lower case (toLower), which read relies on.
func newWordSet(m map[string]string) *wordSet {
	ws := &wordSet{words: m, nodes: []trieNode{{}}, width: 1}
	for w, v := range m {
		n := 0
		for i := 0; i < len(w); i++ {
			n = ws.add(n, w[i])
		}
		unit := v[indexByte(v, ' ')+1:] // the last field: the value, or the unit of a scale
		ws.nodes[n].value, ws.nodes[n].code, ws.nodes[n].whole = v, nameCode(unit), true
	}
	// Lay the trie out flat (add gave the bytes their symbols).
	for c := byte('A'); c <= 'Z'; c++ {
		ws.sym[c] = ws.sym[c+'a'-'A']
	}
	ws.width++ // the node's entry
	ws.rows = make([]uint16, len(ws.nodes)*ws.width)
	if len(ws.rows) > 1<<16 || len(ws.nodes) > nodeIndex {
		panic("guardrail: a word set too large for its rows")
	}
	for n, node := range ws.nodes {
		for _, e := range node.next {
			ws.rows[n*ws.width+int(ws.sym[e.b])] = uint16(int(e.to) * ws.width)
		}
		ws.rows[(n+1)*ws.width-1] = uint16(n)
		if node.whole {
			ws.rows[(n+1)*ws.width-1] |= nodeWhole
		}
	}
	if fast {
		// What the words through a node end in so far (every node
		// ends the same start of words).
		for w := range m {
			r := 0
			for i := 0; i < len(w); i++ {
				r = ws.step(r, w[i])
				if !utf8.ValidString(w[:i+1]) { // (the words are valid UTF-8)
					ws.rows[r+ws.width-1] |= nodeMid
				} else if isAlnum(lastRune(w[:i+1])) {
					ws.rows[r+ws.width-1] |= nodeAlnum
				}
			}
		}
	}
	return ws
}

// withPairs gives ws its pairs, natively (the WASM guard makes none), and
// returns it.
func (ws *wordSet) withPairs() *wordSet {
	if !fast {
		return ws
	}
	ws.pairs = make([]uint64, 2*0x80)
	for b0 := range byte(0x80) {
		r := ws.step(0, b0)
		if r == 0 {
			continue
		}
		whole := ws.rows[r+ws.width-1]&nodeWhole != 0
		for b1 := range byte(0x80) {
			if whole || ws.step(r, b1) != 0 {
				ws.pairs[2*int(b0)+int(b1>>6)] |= 1 << (b1 & 63)
			}
		}
	}
	return ws
}

// withLetters gives ws its letterKeys, natively (the WASM guard makes
// none), and returns it. It panics if a word runs on from a run of letters
// into an ASCII rune that is not one (read could not tell its end by the
// letters), or if the table would be more than half full.
func (ws *wordSet) withLetters() *wordSet {
	if !fast {
		return ws
	}
	keys := make([]uint64, 256)
	n := 0
	// (The words in order, so that the slots they take, and the probes
	// of a look-up, are the same from run to run.)
	for _, w := range slices.Sorted(maps.Keys(ws.words)) {
		r, key := 0, uint64(0) // r: the bytes of the letters the word starts with
		for i := 0; i < len(w); {
			b, n := w[i], 1
			letter := b < 0x80 && asciiClass[b]&classLetter != 0
			if b == 0xC3 && i+1 < len(w) {
				// A letter of Latin-1, its own lower case (à–þ), or none.
				n, letter = 2, w[i+1] >= 0xA0 && w[i+1] <= 0xBE && w[i+1] != 0xB7
			}
			if b < 0x80 && !letter && r != 0 && r == i {
				panic("guardrail: a word runs on from its letters: " + w)
			}
			if letter && r == i {
				r += n
				for j := i; j < i+n; j++ {
					key |= uint64(w[j]|0x20) << (8 * j)
				}
			}
			i += n
		}
		if r != len(w) || len(w) > 7 {
			continue // not a run of letters, or too long for readLetters
		}
		if n++; 2*n > len(keys) {
			panic("guardrail: too many words for letterKeys")
		}
		row := 0
		for i := 0; i < len(w); i++ {
			row = ws.step(row, w[i])
		}
		code := ws.nodes[ws.rows[row+ws.width-1]&nodeIndex].code
		h := letterSlot(key)
		for keys[h] != 0 {
			h++
		}
		keys[h] = key | uint64(code)<<56
	}
	ws.letterKeys = keys
	return ws
}

// add returns the node after byte b from node n, made when missing, and
// gives b a symbol when it has none.
func (ws *wordSet) add(n int, b byte) int {
	for _, e := range ws.nodes[n].next {
		if e.b == b {
			return int(e.to)
		}
	}
	if ws.sym[b] == 0 {
		ws.sym[b] = uint8(ws.width)
		ws.width++
	}
	ws.nodes = append(ws.nodes, trieNode{})
	to := len(ws.nodes) - 1
	ws.nodes[n].next = append(ws.nodes[n].next, trieEdge{b, int32(to)})
	return to
}

// step returns the row of the node after byte b (in either case, when an
// ASCII letter) from the node of row r, or 0.
func (ws *wordSet) step(r int, b byte) int {
	return int(ws.rows[r+int(ws.sym[b])])
}

// has reports whether w is a word of the set (an ASCII letter of w in
// either case).
func (ws *wordSet) has(w []byte) bool {
	r := 0
	for _, b := range w {
		if r = ws.step(r, b); r == 0 {
			return false
		}
	}
	return ws.rows[r+ws.width-1]&nodeWhole != 0
}

// starts reports whether a word of the set may begin with rune c: false
// only for an ASCII rune that begins none.
func (ws *wordSet) starts(c rune) bool {
	return uint32(c) >= 0x80 || ws.rows[ws.sym[c]] != 0
}

// may reports whether read may find a word of ws at i, told sooner by
// the two bytes there (fast path, for the sets with pairs): false only
// when they stand in the text, both ASCII, and begin no word of ws, nor
// is the first alone a word of it: read would stop at one of them and
// find none, as it does at most words after a number.
func (s *scanner) may(ws *wordSet, i int) bool {
	t := s.t
	if uint(i+1) >= uint(len(t)) || t[i]|t[i+1] >= 0x80 {
		return true
	}
	b := t[i+1]
	return ws.pairs[2*int(t[i])+int(b>>6)]>>(b&63)&1 != 0
}

// readLetters reads the word of ws at i, a set with letterKeys, by the
// eight bytes there at once where they decide it (fast path): it returns
// the end of the word read and the code of its value (the one thing
// quantity asks of the word), or end 0 for none (a word read ends after
// i), or -1 where read must read it. It reads as read would: a run of one to seven ASCII letters, followed by an ASCII rune
// that is not one, is a word of the set when letterKeys holds it and no
// digit follows (a word ends in a letter, which must not run on into a
// digit), else none: a walk would stop at the end of the run, or within it
// (at a letter, after a letter). A run that holds bytes beyond ASCII too
// is a word of the set when letterKeys holds it, its 0xC3s stand as such
// (leadsStand), and no digit follows; else read reads it (a walk may stop
// before a rune beyond ASCII that is no letter). It calls nothing and
// checks no index it need not (a leaf, without a frame of its own), for
// quantity, which reads most units and periods so. It counts no reads of
// its own (s.reads, for TestScanLinear): the eight bytes it reads after a
// number, once or twice (a unit, a period), are bytes the scan passes,
// counted where it returns.
func (s *scanner) readLetters(ws *wordSet, i int) (code uint8, end int) {
	t, keys := s.t, ws.letterKeys
	if uint(i+8) > uint(len(t)) || len(keys) != 256 {
		return 0, -1
	}
	x := le64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(t)), i)))
	k := letterRun(x)
	c := byte(x >> k)
	// The byte after a run of fewer than seven bytes is an ASCII rune
	// that is no letter (see letterRun; a carry from a byte of 0xFB or
	// more may end the run elsewhere, but such a run holds no key, and
	// is left to read below); after seven, it may be anything.
	if k == 0 || k == 56 && (c >= 0x80 || asciiClass[c]&classLetter != 0) {
		return 0, -1
	}
	// (The key holds a byte beyond ASCII where the run does.)
	key := (x | 0x20*ones) & (1<<k - 1)
	for h := letterSlot(key); c-'0' >= 10; h++ {
		if e := keys[h]; (e^key)<<8 == 0 || e == 0 {
			if e != 0 && (key&(0x80*ones) == 0 || leadsStand(x, key)) {
				return uint8(e >> 56), i + k>>3
			}
			break
		}
	}
	if key&(0x80*ones) != 0 {
		return 0, -1
	}
	return 0, 0
}

// read reports which word of the set stands at i as a whole word (not
// followed by a letter or digit when it ends in one), the node where it ends
// (with its value) and where it ends. It reads only while the runes read,
// lower-cased, can still be (a prefix of) a word of the set, so it looks at
// most one rune further than it must.
func (s *scanner) read(ws *wordSet, i int) (w *trieNode, end int, ok bool) {
	t, rows := s.t, ws.rows
	if fast {
		// The bytes of the text as they stand, without the checks of
		// at: an ASCII letter in either case (see sym), and a rune
		// beyond ASCII that leads on through all its bytes is a rune of
		// the words, its own lower case. Only where the text holds a
		// rune beyond ASCII that may be read otherwise (as a rune of the
		// words only once lower-cased) is it read again rune by rune,
		// as below.
		sym, e, r := &ws.sym, i, 0
		for uint(e) < uint(len(t)) {
			m := int(rows[r+int(sym[t[e]])])
			if m == 0 {
				break
			}
			r, e = m, e+1
		}
		// The walk is decided where it stopped at the end of a rune,
		// before ASCII or the end,
		node, c := rows[r+ws.width-1], byte(0) // c: the byte after (0: none)
		if uint(e) < uint(len(t)) {
			c = t[e]
		}
		if node&nodeMid == 0 && c < 0x80 {
			s.reads += e - i + 1 // and the rune after, as at
			if e >= len(t) && !s.final {
				s.pastEnd = true // as at notes: the word may go on
			}
			// A word that ends in a letter or digit must not run on
			// into one (the root is not whole: no word is empty).
			if node&nodeWhole == 0 || node&nodeAlnum != 0 && asciiClass[c]&classAlnum != 0 {
				return nil, 0, false
			}
			return &ws.nodes[node&nodeIndex], e, true
		}
		// or before a rune of Latin-1 (0xC2 or 0xC3 and a byte 0x80–0xBF),
		// which did not lead on from its first byte: nor would it
		// lower-cased, which keeps that byte (À–Þ lower to à–þ). No rune
		// of Latin-1 is a mark, so it is a letter or digit when a letter.
		if node&nodeMid == 0 && c&^1 == 0xC2 && e+1 < len(t) && t[e+1]&0xC0 == 0x80 {
			s.reads += e - i + 1
			l := (c&1)<<6 | t[e+1]&0x3F | 0x80 // the rune, below 0x100
			if node&nodeWhole == 0 || node&nodeAlnum != 0 && latinClass[l]&clLetter != 0 {
				return nil, 0, false
			}
			return &ws.nodes[node&nodeIndex], e, true
		}
	}
	// Rune by rune, each lower-cased.
	e, r := i, 0
walk:
	for e < len(t) {
		c, size := rune(t[e]), 1
		if c >= 0x80 {
			c, size = utf8.DecodeRuneInString(t[e:])
		}
		var buf [utf8.UTFMax]byte
		m := r
		for _, b := range buf[:utf8.EncodeRune(buf[:], toLower(c))] {
			if m = ws.step(m, b); m == 0 {
				break walk
			}
		}
		r, e = m, e+size
	}
	s.reads += e - i
	after := s.at(e) // the rune that ended the walk, or eof past the end
	node := rows[r+ws.width-1]
	if node&nodeWhole == 0 || isAlnum(after) && isAlnum(lastRune(t[:e])) {
		return nil, 0, false
	}
	return &ws.nodes[node&nodeIndex], e, true
}

// Units and currencies, normalised to one name per quantity: kr = SEK =
// kronor = :-; € = EUR = euro; GB; day; … Two quantities that both state a
// unit must state the same one.
var unitWords = newWordSet(table(`
	SEK = kr sek kronor krona :-
	öre = öre
	EUR = € eur euro euros
	USD = $ usd dollar dollars
	GBP = £ gbp pound pounds
	KB = kb
	MB = mb
	GB = gb
	TB = tb
	PB = pb
	kbit = kbit
	Mbit = mbit
	Gbit = gbit
	Mbit/s = mbps
	Gbit/s = gbps
	ms = ms millisecond milliseconds millisekunder
	second = sec second seconds sekund sekunder
	minute = min mins minute minutes minut minuter
	hour = h hr hrs hour hours tim timme timmar
	day = day days dag dagar dygn
	week = week weeks vecka veckor
	month = month months månad månader
	year = year years år
	kg = kg
	g = g
	km = km
	cm = cm
	mm = mm
	lb = lb lbs
	user = users user användare`)).withLetters()

// Periods: what a price or a rate is per. "per month" = "a month" = "/mån".
var periodWords = newWordSet(table(`
	month = month mo mon mån månad månaden
	year = year yr år året
	week = week wk vecka veckan
	day = day dag dagen dygn
	hour = hour h hr timme timmen tim
	user = user användare seat`)).withLetters()

// periodSpaced are read after a space after a quantity: the adverbs that
// stand alone ("399 kr monthly"), valued by their period, and the joins
// that come between the quantity and its period ("per month", "a year",
// "i månaden", "om året"), valued "". All are letters, so a word read
// here ends where no word of either kind goes on: one read finds what a
// read of the adverbs and one of the joins would.
var periodSpaced = newWordSet(table(`
	month = monthly månadsvis
	year = yearly annually årligen
	week = weekly
	day = daily
	= per a an each every i om pro`)).withPairs()

// Scale words after a number: "1.5 million", "2 mkr" (also a currency),
// valued by their exponent, or their exponent and unit (the code of a word
// set's value is that of its last field).
const scaleSpec = `
	3 = thousand tusen
	6 = million mn mln miljon miljoner
	9 = billion bn miljard miljarder mdr md
	12 = trillion
	3 SEK = tkr
	6 SEK = mkr msek
	9 SEK = mdkr`

var scaleWords = newWordSet(table(scaleSpec)).withPairs()

// Short scales written right after the digits: "$8.2m", "50k", "3bn".
var gluedScales = newWordSet(table(`
	3 = k
	6 = m mn
	9 = bn`))

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

var currencyCodes = newWordSet(table(`
	SEK = sek
	USD = usd
	EUR = eur
	GBP = gbp`))

// quantity reads what follows a plain number (integer, decimal, grouped,
// ambiguous): a percent sign or word, a scale, a unit, a period.
func (s *scanner) quantity(t *token, prefixUnit uint8) {
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
		// number. (k, the end of the number, is in the text with k+1:
		// byteAt reads it without the test of its bounds that the
		// compiler cannot tell from k+1's.)
		if c = rune(byteAt(text, k)); c == ' ' {
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
				// written before the number (t.unit, set above).
				m := e-k == 1 && s.t[k]|0x20 == 'm'
				ok = ok && (!m || t.unit != 0)
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
		if t.unit <= gbp && f&qUnit != 0 {
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
			c, b = rune(byteAt(text, p)), text[p+1]
		} else if c = s.ascii(p); c == ' ' {
			b = uint8(s.ascii(p + 1))
		}
		f = qPeriod
		if c == ' ' {
			f = 0
			// (quantityAfter tells periodSpaced.starts by a byte of
			// the rune, with no tables of the set to index.)
			if quantityAfter[1][b]&qPeriod != 0 && (!fast || s.may(periodSpaced, p+1)) {
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
		if fast && p == k && !s.may(periodSpaced, p+1) {
			return
		}
		w, e, ok := s.read(periodSpaced, p+1)
		if ok && w.code == 0 && s.ascii(e) == ' ' { // a join: the period follows
			w, e, ok = s.read(periodWords, e+1)
		}
		if ok && w.code != 0 {
			t.period, t.end = w.code, e
		}
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
		{1, qScale, scaleWords}, {0, qUnit, unitWords}, {1, qUnit, unitWords}, {1, qPeriod, periodSpaced},
		{1, qPoint, pointWords}} {
		for b := range notASCII + 1 {
			if m.ws.starts(b) {
				t[m.at][b] |= m.f
			}
		}
	}
	t[0]['%'], t[1]['%'], t[0]['/'] = qPercent, qPercent, qPeriod
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
		return canon + "e" + strconv.Itoa(exp)
	}
	neg := strings.HasPrefix(canon, "-")
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
	return token{start: i, end: e, kind: kRange, canon: s.keep([]byte(strconv.Itoa(from) + "-" + strconv.Itoa(to)))}, true
}

// nounAfter returns the word after byte offset end of text, lower-cased
// and without a plural ending: what a count counts ("3 devices" → "device").
func nounAfter(text string, end int) string {
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsLetter(r) {
			break
		}
		j += size
	}
	return stemNoun(lowerString(text[i:j]))
}

// stemNoun drops a plural ending, English or Swedish, so "device" and
// "devices", "enhet" and "enheter" compare equal.
func stemNoun(w string) string {
	for _, suf := range []string{"ies", "es", "s", "er", "ar", "or"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
