package guardrail

import (
	"math/bits"
	"unicode/utf8"
)

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
	// the first lowest; its slot is told by the top bits of the key times
	// a large odd constant (wordSlot), and the slots after it in turn
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

// letterSlot is the first slot of the key x in a table of 256 (partKeys).
func letterSlot(x uint64) uint8 { return uint8((x * 0x9E3779B97F4A7C15) >> 56) }

// wordSlot is the first slot of the key x in letterKeys.
func wordSlot(x uint64) uint { return uint((x * 0x9E3779B97F4A7C15) >> (64 - letterBits)) }

// letterBits is log2 of the slots of letterKeys.
const letterBits = 10

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

// sortedWords returns the words of m in order: slices.Sorted(maps.Keys(m)),
// which would link packages slices, maps and iter into the WASM guard (a
// sort of the fast paths, which it leaves out).
func sortedWords(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for w := range m {
		i, j := 0, len(out) // w goes before out[j], after out[:i]
		for i < j {
			if h := (i + j) / 2; out[h] < w {
				i = h + 1
			} else {
				j = h
			}
		}
		out = append(out, "")
		copy(out[i+1:], out[i:])
		out[i] = w
	}
	return out
}

// withLetters gives ws its letterKeys, natively (the WASM guard makes
// none), and returns it. It panics if a word runs on from a run of letters
// into an ASCII rune that is neither a letter nor a digit (read could not
// tell its end by the letters; readLetters leaves a run followed by a digit
// to read), or if the table would be more than half full.
func (ws *wordSet) withLetters() *wordSet {
	if !fast {
		return ws
	}
	keys := make([]uint64, 1<<letterBits)
	n := 0
	// (The words in order, so that the slots they take, and the probes
	// of a look-up, are the same from run to run.)
	for _, w := range sortedWords(ws.words) {
		r, key := 0, uint64(0) // r: the bytes of the letters the word starts with
		for i := 0; i < len(w); {
			b, n := w[i], 1
			letter := b < 0x80 && asciiClass[b]&classLetter != 0
			if b == 0xC3 && i+1 < len(w) {
				// A letter of Latin-1, its own lower case (à–þ), or none.
				n, letter = 2, w[i+1] >= 0xA0 && w[i+1] <= 0xBE && w[i+1] != 0xB7
			}
			if b < 0x80 && !letter && b-'0' >= 10 && r != 0 && r == i {
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
		h := wordSlot(key)
		for keys[h] != 0 {
			h = (h + 1) & (1<<letterBits - 1)
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

// code returns the code of the value of w, a word of the set (an ASCII
// letter of w in either case), or 0.
func (ws *wordSet) code(w string) uint8 {
	r := 0
	for i := 0; i < len(w); i++ {
		if r = ws.step(r, w[i]); r == 0 {
			return 0
		}
	}
	if node := ws.rows[r+ws.width-1]; node&nodeWhole != 0 {
		return ws.nodes[node&nodeIndex].code
	}
	return 0
}

// codeOf is code for a word as bytes.
func (ws *wordSet) codeOf(w []byte) uint8 {
	if n := ws.node(w); n != nil {
		return n.code
	}
	return 0
}

// value returns the value of w, a word of the set (an ASCII letter of w
// in either case), or "".
func (ws *wordSet) value(w []byte) string {
	if n := ws.node(w); n != nil {
		return n.value
	}
	return ""
}

// node returns the node where w ends, a word of the set, or nil.
func (ws *wordSet) node(w []byte) *trieNode {
	r := 0
	for _, b := range w {
		if r = ws.step(r, b); r == 0 {
			return nil
		}
	}
	if node := ws.rows[r+ws.width-1]; node&nodeWhole != 0 {
		return &ws.nodes[node&nodeIndex]
	}
	return nil
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
// i), or -1 where read must read it. It reads as read would: a run of one
// to seven ASCII letters, followed by an ASCII rune that is neither a
// letter nor a digit, is a word of the set when letterKeys holds it, else
// none: a walk would stop at the end of the run, or within it (at a
// letter, after a letter). A run followed by a digit is left to read (a
// word may go on in digits, "m2"; else it must not run on into one). A run
// that holds bytes beyond ASCII too is a word of the set when letterKeys
// holds it and its 0xC3s stand as such (leadsStand); else read reads it (a
// walk may stop before a rune beyond ASCII that is no letter). It calls nothing and
// checks no index it need not (a leaf, without a frame of its own), for
// quantity, which reads most units and periods so. It counts no reads of
// its own (s.reads, for TestScanLinear): the eight bytes it reads after a
// number, once or twice (a unit, a period), are bytes the scan passes,
// counted where it returns.
func (s *scanner) readLetters(ws *wordSet, i int) (code uint8, end int) {
	t, keys := s.t, ws.letterKeys
	if uint(i+8) > uint(len(t)) || len(keys) != 1<<letterBits {
		return 0, -1
	}
	x := le64at(t, i)
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
	if c-'0' < 10 {
		return 0, -1 // a word may go on in digits ("m2")
	}
	tbl := (*[1 << letterBits]uint64)(keys) // (its length checked above)
	for h := wordSlot(key); ; h++ {
		if e := tbl[h&(1<<letterBits-1)]; (e^key)<<8 == 0 || e == 0 {
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
