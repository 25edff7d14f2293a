package guardrail

import "sync"

// Extract returns every number in text, in order of appearance. See the
// package documentation and SPEC §3 for what counts as one number.
func Extract(text string) []Number {
	s := scanText(text)
	out := s.numbers(text)
	s.done()
	return out
}

// numbers returns the numbers of the tokens of a scan of text (nil for
// none).
func (s *scanner) numbers(text string) []Number {
	if len(s.toks) == 0 {
		return nil
	}
	out := make([]Number, len(s.toks))
	if fast {
		s.fillAll(out, text)
	} else {
		for k := range out {
			s.fill(&out[k], &s.toks[k], text)
		}
	}
	if len(s.counts) != 0 {
		nouns := s.nounStrings()
		for k, c := range s.counts {
			if c.tok < len(out) && nouns[k] != "" {
				out[c.tok].noun = &nouns[k]
			}
		}
	}
	return out
}

// nounStrings returns the noun of each small count of the scan (see
// counted), for the Numbers of the counts to point to.
func (s *scanner) nounStrings() []string {
	nouns := make([]string, len(s.counts))
	for k, c := range s.counts {
		nouns[k] = s.str(c.noun)
	}
	return nouns
}

// scanText scans the whole of text and returns the scanner, whose toks are
// the numbers of text in order, with their spans in text (see spans). The
// caller calls done once it has read them.
func scanText(text string) *scanner {
	spareMu.Lock()
	s := spare
	spare = nil
	spareMu.Unlock()
	if s == nil {
		s = &scanner{f: new(folded)}
	}
	s.f.fold(text)
	s.final, s.prefix = true, 0
	s.toks, s.counts = s.toks[:0], s.counts[:0]
	s.canons, s.canonAt, s.canonStr = s.canons[:0], 0, ""
	s.scan(0)
	s.spans()
	return s
}

// done gives back a scanner scanText returned, to be the spare.
func (s *scanner) done() {
	if f := s.f; f.b.Cap() <= maxSpare {
		f.src, f.b = "", textBuf{} // hold no text
		s.room, s.canonStr = len(s.canons), ""
		if cap(s.canons) > maxSpare {
			s.canons = nil
		}
		if fast && cap(s.quick) > maxSpare/quickSlotSize {
			s.quick, s.quickFor, s.quickTbl = nil, nil, nil
		}
		spareMu.Lock()
		spare = s
		spareMu.Unlock()
	}
}

// spare is a scanner with its folded text, kept between calls of each so
// that a call scans into buffers already allocated instead of anew. Concurrent calls that find none allocate their own.
// Only the numbers outlive a call, and none of them points into these
// buffers. Tokens hold no pointers, so the spare's are no work for the
// garbage collector.
var (
	spareMu sync.Mutex
	spare   *scanner
)

// maxSpare is the most bytes of a folded text, or of the scanner's other
// buffers, kept for reuse.
const maxSpare = 256 << 10

// quickSlotSize is the size of a quickSlot in bytes (TestSizes).
const quickSlotSize = 24

// eof is what the scanner reads past the end of the text.
const eof rune = -1

// token is a number found by the scanner, with its span in bytes of the
// folded text. It holds
// no pointer, so that the garbage collector neither scans the tokens of a
// scan nor guards their writes with barriers: its strings are refs and
// codes, made strings only when a Number is filled. (What a small count
// counts, which few numbers have, is kept aside: see counted.)
type token struct {
	_            [0]func() // not comparable: no equality function in the WASM guard
	start, end   int
	canon        ref
	kind         kind
	unit, period uint8 // the codes of the Number's Unit and Period (see names)
}

// counted is what the small count written as a word of token tok (its
// index in the scan's toks) counts: its noun, read by spelled. A scan
// keeps them aside (scanner.counts), not in every token, which makes a
// token 32 bytes instead of 40. Spelled adds the noun of the token it
// reads at the index the token takes when scan adds it; when scan does
// not (its step looked past the end of the text), it adds no token after
// it, so that tok is past the last token.
type counted struct {
	tok  int
	noun ref
}

// set makes t the number of kind k over [start,end) with the canonical
// form canon, and nothing more. (Zeroing t and setting these fields takes
// fewer instructions than storing a token literal, made aside and copied.)
func (t *token) set(start, end int, canon ref, k kind) {
	*t = token{}
	t.start, t.end, t.canon, t.kind = start, end, canon, k
}

// add appends to s.toks the number of kind k over [start,end) with the
// canonical form canon, and nothing more, as set makes it, writing its
// fields in place: an append of a token literal makes the token on the
// stack, zeroed, and copies it. (Each field is written, the unit and period
// too, so that a token of an earlier scan where the scanner's toks reach
// leaves nothing in it; the token's padding holds nothing read. Small
// enough to inline: append grows toks, once in a while. Where toks have
// room, the token's place is taken from the slice as loaded, before its
// length is stored, which needs no check of its bounds.)
func (s *scanner) add(start, end int, canon ref, k kind) {
	var t *token
	if n := len(s.toks); n < cap(s.toks) {
		t = &s.toks[:n+1][n]
		s.toks = s.toks[:n+1]
	} else {
		s.toks = append(s.toks, token{})
		t = &s.toks[n]
	}
	t.start, t.end, t.canon = start, end, canon
	t.unit, t.period = 0, 0 // (written before the kind, they take one store)
	t.kind = k
}

// ref is a string the scanner made: n bytes at byte offset at of the
// source text when at >= 0, else at ^at of the scan's canons; when n is -1,
// the decimal form of at, a number below 100 (most numbers spelled out).
type ref struct{ at, n int32 }

// smalls holds the numbers below 100 in two digits each.
const smalls = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// str returns the string r refers to.
func (s *scanner) str(r ref) string {
	if r.at < 0 && r.n > 0 { // the commonest of the forms not in place
		// From canonStr, a copy of canons from canonAt on (see canons).
		k, n := int(^r.at)-s.canonAt, int(r.n)
		if k < 0 || n > len(s.canonStr)-k {
			k = s.copyCanons(int(^r.at))
		}
		return s.canonStr[k : k+n]
	}
	if r.n >= 0 {
		if r.at < 0 { // an empty form in canons
			return ""
		}
		return s.f.src[r.at : r.at+r.n]
	}
	i := 2 * r.at // in smalls, without the leading zero
	if r.at < 10 {
		i++
	}
	return smalls[i : 2*r.at+2]
}

// kind is a Kind inside the package, with short names for its values.
type kind = Kind

const (
	kInteger   = KindInteger
	kDecimal   = KindDecimal
	kGrouped   = KindGrouped
	kAmbiguous = KindAmbiguous // the last plain kind
	kPercent   = KindPercent   // the last signable kind
	kDate      = KindDate
	kTime      = KindTime
	kPhone     = KindPhone
	kWords     = KindWords
	kOrdinal   = KindOrdinal
	kQuarter   = KindQuarter
	kRange     = KindRange
	kName      = KindName
	kUnread    = KindUnreadable
)

// spans turns the spans of the tokens from byte offsets into the folded
// text into byte offsets into the original, once the scan is done: they
// differ only for a token that ends after the first rune folded to another
// or dropped (most texts have none). The tokens are in order, so they are
// placed in order, as place is quickest asked.
func (s *scanner) spans() {
	f, toks := s.f, s.toks
	if len(f.moved) == 0 || len(toks) == 0 || toks[len(toks)-1].end <= int(f.moved[0].at) {
		return // f.inPlace() is past the last token
	}
	in := int(f.moved[0].at)
	for k := range toks {
		if t := &toks[k]; t.end > in {
			start, _ := f.place(t.start)
			_, t.end = f.place(t.end - 1)
			t.start = start
		}
	}
}

// fill makes n, a zero Number (every caller's is new), the number of token
// t of the scan (after spans) of text, the text the scanner's f.src is. A
// canonical form the scan found spelled in place at the number's own span
// (see intern) is the number's Text, with no second slice made. (Its
// caller sets the noun of a small count: see counted.)
func (s *scanner) fill(n *Number, t *token, text string) {
	printed := text[t.start:t.end]
	canon := printed
	if c := t.canon; c.at != int32(t.start) || int(c.n) != len(printed) {
		canon = s.str(c)
	}
	n.Text, n.Canonical, n.Kind, n.Start, n.End = printed, canon, t.kind, t.start, t.end
	n.Unit, n.Period = Unit(t.unit), Unit(t.period)
}

// fillAll is fill for every token of a scan of text, into out, written
// out for the fast path: a loop that calls nothing (str is inlined). It
// reads each token's fields where they are (a copy of the token on the
// stack, which the loop read them from before, costs four moves more and
// keeps no more of them in registers), and writes the span, kind, unit
// and period first, from the span it keeps (its bounds are read once, not
// again after the writes) and the kind, unit and period in one load and
// one store (they lie as in a Number), so that the loop keeps the text's
// length in a register. A canonical form that starts where the number
// does in the text is a prefix of its Text ("399" of "399 kr", or all of
// it), sliced from it without str. Verify's fast path fills its
// NumberVerdicts with the same loop (fillVerdicts).
func (s *scanner) fillAll(out []Number, text string) {
	toks := s.toks[:len(out)]
	for k := range toks {
		n, t := &out[k], &toks[k]
		start, end := t.start, t.end
		n.Start, n.End, n.Kind, n.Unit, n.Period = start, end, t.kind, Unit(t.unit), Unit(t.period)
		printed := text[start:end]
		canon := printed
		if c, m := t.canon, int(t.canon.n); c.at != int32(start) || uint(m) > uint(len(printed)) {
			canon = s.str(c)
		} else {
			canon = printed[:m]
		}
		n.Text, n.Canonical = printed, canon
	}
}

// scanner reads a folded text left to right, byte by byte where it reads
// ASCII and rune by rune where not (positions are byte offsets into the
// folded text, always at the start of a rune). Every look at a rune goes
// through at (or reads what at would, with its checks written out), which
// records when a decision needed a rune past the end of a text that may
// still grow (final == false). A step whose decision looked
// past the end is not final: the stream guard holds the text from that
// step's start and scans it again when more text arrives. Because every step
// depends only on runes before the end, a step that did not look past the
// end makes the same decision on any longer text, which is what makes the
// stream guard agree with Extract on the whole text.
type scanner struct {
	f        *folded
	t        string // f.text(), read by at
	final    bool
	pastEnd  bool
	scratch  []byte           // lower-cased words
	buf      []byte           // the canonical form being written
	lex      []lexeme         // the lexemes of the spelled-out number being read
	words    [maxWords]lexeme // those of the English number read by englishRun
	prefix   uint8            // the currency written before the number being read
	toks     []token          // the numbers found by scan
	counts   []counted        // what the small counts among them count
	quick    []quickSlot      // verify's index of the sources, when it merges theirs
	quickFor []*Source        // the sources whose merged index quick[:len(quickTbl)] is, or nil
	quickTbl []quickSlot      // that index
	canons   []byte           // canonical forms not spelled as such in the text, and nouns (see keep)
	canonStr string           // canons from canonAt on, as a string (see canon)
	canonAt  int
	room     int      // the length of the last text's canons
	reads    int      // bytes looked at, for the test that scanning is linear: those a scan passes (once, where it returns), and what its steps read
	inPlace  int      // bytes before it stand as they are in f.src (set by scan)
	aside    [24]byte // a phone number's canonical form when canons have no room (see formRoom)
}

// intern returns b as a ref into the original text when the text spells b
// from folded byte i on (so most canonical forms cost nothing), else into canons.
func (s *scanner) intern(b []byte, i int) ref {
	if q := i + len(b); fast && q <= s.inPlace {
		// Most: the bytes up to q stand in the original as they are, so
		// the original spells b from i on when the folded text does.
		if s.t[i:q] == string(b) {
			return ref{int32(i), int32(len(b))}
		}
		return s.keep(b)
	}
	if src := s.f.src; src != "" && i < len(s.t) {
		p, _ := s.f.place(i)
		if q := p + len(b); q <= len(src) && src[p:q] == string(b) {
			return ref{int32(p), int32(len(b))}
		}
	}
	return s.keep(b)
}

// copyCanons makes canonStr a copy of canons from a on, as str reads
// them, and returns where a is in it: 0. Bytes once in canons are never
// written again within a scan (canons is only appended to), so the copy
// stays true, and the numbers filled share it: filling a text's numbers
// copies its canons once, where most go in order
// (TestNumbersOutliveTheScanner).
func (s *scanner) copyCanons(a int) int {
	s.canonAt, s.canonStr = a, string(s.canons[a:])
	return 0
}

// keep writes b to canons and returns its ref. A text's canons start with
// the room the last text's took (at most this text's length, at least 16
// bytes), in the buffer the last text used where it is large enough.
// The few canonical forms made as strings are kept as []byte(…), a copy on
// the stack for most.
func (s *scanner) keep(b []byte) ref {
	n := s.grow(len(b))
	s.canons = append(s.canons, b...)
	return ref{^int32(n), int32(len(b))}
}

// grow makes room in canons for m more bytes, as keep needs for a form of
// m bytes, and returns the length of canons: where they go. A form written
// there directly (past the length, so in canons only once it is extended
// over them) must be m bytes long, so that canons grow as keep would grow
// them: by the exact length of each form.
func (s *scanner) grow(m int) int {
	n := len(s.canons)
	if n+m > cap(s.canons) {
		c := make([]byte, n, max(2*cap(s.canons), n+m, min(s.room, len(s.t)), 16))
		copy(c, s.canons)
		s.canons = c
	}
	return n
}
