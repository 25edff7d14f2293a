package guardrail

import (
	"math"
	"sync/atomic"
)

// State is the verdict on one number of an answer. Its text form (String,
// and so its JSON) is its name: "grounded", "ungrounded", "unverified",
// "derived".
// Like [Kind] it is a small integer that go vet keeps from being written
// as string(st).
type State uint16

const (
	// Grounded: a cited snippet states the same quantity.
	Grounded State = iota + 1
	// Ungrounded: no snippet states it. It blocks the answer.
	Ungrounded
	// Unverified: a small count written as a word ("two companies") that
	// no snippet states and none contradicts, or a name with digits
	// ("COVID-19") whose stem a snippet names alone and none names with
	// other digits. It blocks only under [Strict].
	Unverified
	// Derived: no snippet states it, but it is the result of one
	// operation over quantities of the snippets, which the answer's
	// sentence says it computes (see derive.go); NumberVerdict.Formula
	// shows the operation. It blocks only under [Strict].
	Derived
)

var stateNames = enumNames{"state", []string{"", "grounded", "ungrounded", "unverified", "derived"}}

// String returns the state's name ("" for none).
func (st State) String() string { return stateNames.name(int(st)) }

// MarshalText returns the state's name.
func (st State) MarshalText() ([]byte, error) { return []byte(st.String()), nil }

// UnmarshalText reads a state's name.
func (st *State) UnmarshalText(b []byte) error {
	i, err := stateNames.index(b)
	*st = State(i)
	return err
}

// Policy decides which states block an answer.
type Policy uint8

const (
	// Default blocks ungrounded numbers.
	Default Policy = iota
	// Strict blocks ungrounded, unverified and derived numbers.
	Strict
)

// Blocks reports whether a number in state st blocks the answer.
func (p Policy) Blocks(st State) bool {
	return st == Ungrounded || (st == Unverified || st == Derived) && p == Strict
}

// String returns "default" or "strict".
func (p Policy) String() string {
	if p == Strict {
		return "strict"
	}
	return "default"
}

// ParsePolicy reads "default" (or "") and "strict".
func ParsePolicy(s string) (Policy, bool) {
	switch s {
	case "", "default":
		return Default, true
	case "strict":
		return Strict, true
	}
	return Default, false
}

// attrs is what a snippet prints with one value: the unit and period that
// an answer's quantity with the same value must not contradict, as codes
// into names (0: none printed), so that they compare as bytes.
type attrs struct{ unit, period uint8 }

// attrsOf returns the attrs of n. (A Unit with no name, which only a
// Number made by hand has, is a code no snippet's number has: it agrees
// only with none.)
func attrsOf(n *Number) attrs { return attrs{uint8(n.Unit), uint8(n.Period)} }

// agreeing reports whether one of as, a snippet's, may be printed with
// the same quantity as want, an answer's: where both print a unit, it is
// the same one, and not the unknown currency (two names no row holds may
// name two currencies); their periods agree (periodAgrees).
func agreeing(as []attrs, want attrs) bool {
	for _, a := range as {
		if (a.unit == 0 || want.unit == 0 || a.unit == want.unit && a.unit != unknownCurrency) &&
			periodAgrees(a.period, want.period) {
			return true
		}
	}
	return false
}

// Source is a cited snippet with its quantities extracted once, so that an
// answer can be verified against it without scanning the snippet again.
// A Source is immutable after [NewSource] and safe for concurrent use.
type Source struct {
	Text      string
	Numbers   []Number
	index     []indexSlot               // by value: open addressing on keyPrint's hash
	filter    keyFilter                 // of the values, to pass over a source quickly
	counted   map[string][]string       // noun → values the snippet binds to it
	lower     atomic.Pointer[string]    // the text in lower case, for month names and names: made when first asked for (see lowerText)
	quick     []quickSlot               // the index of Verify's fast path (see quickIndex)
	keys      []quickSlot               // the slots in quick, for quickTable to merge
	ops       atomic.Pointer[[]operand] // the operands of derived numbers: made when first asked for (see operands)
	qualified []qualifiedNumber         // the numbers printed with a qualifier ("up to 6", "exkl. moms"; see checkQualifiers)
	allTax    atomic.Uint32             // 1 + what a sentence of it says of all prices' tax ("All prices include VAT"; see pricesTax), 0 until first asked for
}

// NewSource extracts the quantities of a snippet and indexes them by value.
// A percent also indexes its bare value ("20%" grounds "20"); a date indexes
// its year, its year-month and its day-month; a range of years indexes both
// years. A value printed with no unit or period but followed by a word
// ("25 engineers", "three-bedroom"), and the parts above, are bound
// (boundUnit): they ground the bare value and no quantity printed with a
// unit. A number in a cell of a Markdown table is indexed with what its
// column header says it is (see bindCells). What the snippet states read
// generously (see generousNumbers) is indexed too, bound.
func NewSource(text string) *Source {
	sc := scanText(text)
	nums := sc.numbers(text)
	cells, quals := bindCells(text, nums, sc.toks)
	s := &Source{Text: text, Numbers: nums, qualified: qualifiedNumbers(text, nums, quals)}
	more, starts, ords := generousNumbers(text, nums)
	keys := len(ords) + len(cells) // (a cell may add its percentage)
	for _, ns := range [2][]Number{nums, more} {
		for _, n := range ns {
			keys++
			if n.Kind == KindDate || n.Kind == KindRange || n.Kind == KindPercent {
				keys += 3
			}
		}
	}
	size := 2
	for size < 2*keys { // at most half full
		size <<= 1
	}
	s.index = make([]indexSlot, size)
	for k := range nums {
		n, t := &nums[k], &sc.toks[k]
		a := attrs{t.unit, t.period} // attrsOf(n), from the scan
		if n.Kind == KindUnreadable && indexFunc(n.Canonical, isFormat) >= 0 {
			continue // a format character (a bidi control) grounds nothing
		}
		if cells != nil && cells[k] != (attrs{}) {
			if a = cells[k]; a.unit == cellPercent {
				// A percentage of a percent column: its bare value
				// is bound, as a percent's is.
				a.unit = boundUnit
				s.add(n.Canonical+"%", a)
			}
		}
		if plain(n.Kind) || n.Kind == KindWords {
			s.count(sc, t, n)
			// It counts a word after it, or joined by a hyphen
			// ("three-bedroom").
			if a == (attrs{}) && (nounAfter(text, n.End) != "" || n.End+1 < len(text) && text[n.End] == '-' && nounAfter(text, n.End+1) != "") {
				a.unit = boundUnit
			}
		}
		if len(starts) > 0 && starts[0].Start == n.Start {
			// The first end of a range is what its second end prints
			// after it ("99–129 kr/month": 99 kr/month; "from $20 to
			// $24 per month": $20 per month), or, where that scales
			// it, bound ("$230–240 million": no 230 kr).
			if starts[0].Canonical == n.Canonical {
				a = attrsOf(&starts[0])
			} else if a.unit == 0 {
				a.unit = boundUnit
			}
			starts = starts[1:]
		}
		s.addNumber(n, a)
	}
	sc.done()
	// What generous reading adds is bound: it grounds a bare value, never
	// one printed with a unit.
	for k := range more {
		a := attrsOf(&more[k])
		if a.unit == 0 {
			a.unit = boundUnit
		}
		s.addNumber(&more[k], a)
	}
	for _, o := range ords {
		s.add(o, attrs{boundUnit, 0})
	}
	if fast {
		s.quickIndex()
	}
	return s
}

// addNumber indexes n, printed with a, and its parts, which are bound to
// it.
func (s *Source) addNumber(n *Number, a attrs) {
	s.add(n.Canonical, a)
	part := attrs{boundUnit, 0}
	switch n.Kind {
	case KindPercent:
		s.add(trimSuffix(n.Canonical, "%"), attrs{boundUnit, a.period})
	case KindDate:
		y, md := dateParts(n.Canonical)
		if y != "" {
			s.add(y, part)
		}
		if md != "" {
			s.add("--"+md, part)
			if y != "" {
				s.add(y+"-"+md[:2], part)
			}
		}
	case KindRange:
		from, to, _ := cut(n.Canonical, '-')
		s.add(from, part)
		s.add(to, part)
	}
}

// add indexes a with key.
func (s *Source) add(key string, a attrs) {
	fp, h := keyPrint(key)
	sl := s.slot(key, fp, h)
	if sl.attrs == nil {
		sl.key, sl.fp = key, fp
	}
	sl.attrs = append(sl.attrs, a)
	w, bit := keyBit(h)
	s.filter[w] |= bit
}

// indexSlot is a value the snippet states, with what it prints with each
// number of that value; attrs is nil in an empty slot.
type indexSlot struct {
	key   string
	fp    uint64 // keyPrint(key)
	attrs []attrs
}

// slot returns the slot of key (whose print is fp and hash h), or the empty
// slot where it goes.
func (s *Source) slot(key string, fp uint64, h uint32) *indexSlot {
	mask := uint32(len(s.index) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &s.index[i]
		if sl.attrs == nil || sl.fp == fp && len(sl.key) == len(key) && sameTail(sl.key, key) {
			return sl
		}
	}
}

// keyFilter is a 256-bit summary of a set of keys: a key whose bit is not
// set is not in the set. Most numbers of an answer stand in one source of
// several; the others are passed over without a look-up.
type keyFilter [4]uint64

// keyPrint returns the print of a key and its hash. The print is the
// key's first 8 bytes (all of a shorter one, read so that keys of the same
// length with the same print are equal), so that a slot holds a key when
// its print and length are the key's and, for a longer key, its bytes
// after the 8th are the key's (sameTail).
func keyPrint(key string) (fp uint64, h uint32) {
	n := len(key)
	if n >= 4 {
		fp = uint64(le32(key)) | uint64(le32(key[min(n, 8)-4:]))<<32
	} else if n > 0 {
		fp = uint64(key[0]) | uint64(key[n/2])<<8 | uint64(key[n-1])<<16
	}
	x := fp
	if n > 8 { // the rest, 8 bytes at a time, the last 8 read last
		for t := key[8:]; len(t) > 8; t = t[8:] {
			x = (x ^ uint64(le32(t)) ^ uint64(le32(t[4:]))<<32) * keyMul
		}
		t := key[n-8:]
		x = x*keyMul ^ uint64(le32(t)) ^ uint64(le32(t[4:]))<<32
	}
	return fp, uint32((x ^ uint64(n)) * keyMul >> 32)
}

const keyMul = 0x9e3779b97f4a7c15 // 2^64 / the golden ratio, odd

// sameTail reports whether two keys of the same length and print have the
// same bytes after the 8th, that is whether they are equal. It compares
// them byte by byte, not with ==, which calls memequal: a call would make
// the look-up keep its values on the stack for it.
func sameTail(a, b string) bool {
	for i := 8; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// le32 reads the first 4 bytes of s, little-endian (one load).
func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// le64s reads the first 8 bytes of s, little-endian (one load).
func le64s(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// keyBit returns the word of keyFilter and the bit in it that stand for a
// key of hash h: the top 8 bits of h.
func keyBit(h uint32) (w uint32, bit uint64) { return h >> 30, 1 << (h >> 24 & 63) }

// dateParts splits a canonical date: "2004-10-19" → "2004", "10-19";
// "--10-19" → "", "10-19"; "2019-06" → "2019", "".
func dateParts(c string) (year, monthDay string) {
	if hasPrefix(c, "--") {
		return "", c[2:]
	}
	if len(c) == len("2004-10-19") {
		return c[:4], c[5:]
	}
	return c[:4], ""
}

// NewSources is NewSource for each text, in order.
func NewSources(texts []string) []*Source {
	out := make([]*Source, len(texts))
	for i, t := range texts {
		out[i] = NewSource(t)
	}
	return out
}

// Grounds reports whether the snippet states the quantity n: the same value
// after scale and, where both print one, the same unit and the same period.
func (s *Source) Grounds(n Number) bool {
	return cite([]*Source{s}, n.Canonical, attrsOf(&n)) == 0
}

// parts returns what grounds a date or a range of years when no snippet
// states it whole: a date's year and its day-month ("November 2, 2004"
// from "November 2" and a date in 2004), a month of a year's year and its
// month named ("May 2018" from "2018-03-23" and "in May"), a range's two
// years ("1933-2006" from "September 1, 1933 -- September 13, 2006").
func parts(n *Number) (keys []string, month string) {
	switch n.Kind {
	case KindDate:
		y, md := dateParts(n.Canonical)
		switch {
		case y != "" && md != "":
			return []string{y, "--" + md}, ""
		case y != "" && len(n.Canonical) == len("2019-06"):
			return []string{y}, n.Canonical[5:]
		}
	case KindRange:
		from, to, _ := cut(n.Canonical, '-')
		return []string{from, to}, ""
	}
	return nil, ""
}

// lowerText returns the snippet's text in lower case, for month names and
// the stems of names: made when first asked for, not in NewSource (rarely
// needed); by each goroutine that finds none yet, all alike.
func (s *Source) lowerText() string {
	lower := s.lower.Load()
	if lower == nil {
		l := lowerString(s.Text)
		lower = &l
		s.lower.Store(lower)
	}
	return *lower
}

// mentionsMonth reports whether the snippet names month m ("05") or holds a
// date in it.
func (s *Source) mentionsMonth(m string) bool {
	lower := s.lowerText()
	for w, v := range monthWords.words {
		if v == m && len(w) > 3 && contains(lower, w) {
			return true
		}
	}
	for _, n := range s.Numbers {
		if n.Kind == KindDate {
			if _, md := dateParts(n.Canonical); hasPrefix(md, m+"-") {
				return true
			}
		}
	}
	return false
}

// count binds the value of n, the number of token t of the scan sc of the
// snippet, to what it counts (see nounRun): under its first word and its
// head. A number that may be a year counts only a plural noun.
func (s *Source) count(sc *scanner, t *token, n *Number) {
	first, head, plural := sc.nounRun(t.end)
	if first == "" || isYearShaped(n.Text) && !plural {
		return
	}
	if s.counted == nil {
		s.counted = map[string][]string{}
	}
	for _, w := range [2]string{first, head} {
		if w != "" {
			s.counted[w] = append(s.counted[w], n.Canonical)
		}
	}
}

// contradicts reports whether the snippet binds a value other than
// canonical to noun, what a small count counts ("up to 3 devices" against
// "two devices"): to its first word or its head (see nounKey).
func (s *Source) contradicts(noun, canonical string) bool {
	first, head, _ := cut(noun, ' ')
	for _, w := range [2]string{first, head} {
		for _, v := range s.counted[w] {
			if v != canonical {
				return true
			}
		}
	}
	return false
}

// NumberVerdict is the verdict on one number of an answer.
type NumberVerdict struct {
	Number
	State State `json:"state"`
	// Grounded is State == Grounded.
	Grounded bool `json:"grounded"`
	// Citation is the index of the first source that grounds the number,
	// or -1 when none does; for a derived number, the source of its
	// first operand. An int32, which fits beside State and Grounded,
	// keeps a NumberVerdict at 80 bytes: the sources after the first
	// 2^31-1 are not read (see citable).
	Citation int32 `json:"citation"`
	// Derivation is how a derived number is computed (nil for the
	// others); its fields are the verdict's in JSON.
	*Derivation
}

// Derivation is the operation a derived number is the result of.
type Derivation struct {
	// Formula is the operation with its operands as printed: "399
	// kr/month × 12 = 4 788 kr a year".
	Formula string `json:"formula"`
	// Operands are the indexes of the sources of the operands, in the
	// formula's order, each once (a count the answer states has none).
	Operands []int `json:"operands"`
}

// Verdict is the verdict on a whole answer. Grounded is true when no number
// blocks it under the policy it was checked with (an answer without numbers
// is grounded).
type Verdict struct {
	Grounded bool            `json:"grounded"`
	Numbers  []NumberVerdict `json:"numbers"`
}

// FirstUngrounded returns the first number that blocks the answer under
// the default policy.
func (v Verdict) FirstUngrounded() (NumberVerdict, bool) {
	return v.FirstBlocking(Default)
}

// FirstBlocking returns the first number that blocks the answer under p.
func (v Verdict) FirstBlocking(p Policy) (NumberVerdict, bool) {
	for _, n := range v.Numbers {
		if p.Blocks(n.State) {
			return n, true
		}
	}
	return NumberVerdict{}, false
}

// Check returns the verdict on one number against the sources.
func Check(n Number, sources []*Source) NumberVerdict {
	nv := NumberVerdict{Number: n}
	if fast {
		sources = citable(sources)
	}
	nv.check(sources, attrsOf(&n))
	return nv
}

// check sets the verdict on nv.Number (State, Grounded, Citation) in place,
// so that Verify fills its result without copying each number again; want
// is the number's attrs (Verify has their codes from the scan).
func (nv *NumberVerdict) check(sources []*Source, want attrs) {
	n := &nv.Number
	c := cite(sources, n.Canonical, want)
	nv.State, nv.Grounded, nv.Citation = Grounded, true, int32(c)
	if c >= 0 {
		return
	}
	if keys, month := parts(n); keys != nil {
		c = -1
		for _, k := range keys {
			i := cite(sources, k, attrs{})
			if i < 0 {
				c = -1
				break
			}
			if c < 0 {
				c = i
			}
		}
		if c >= 0 && month != "" && groundedBy(sources, func(s *Source) bool { return s.mentionsMonth(month) }) < 0 {
			c = -1
		}
		if c >= 0 {
			nv.Citation = int32(c)
			return
		}
	}
	nv.State, nv.Grounded = Ungrounded, false
	if n.Kind == KindName {
		nv.State = nameState(n, sources)
		return
	}
	if n.noun != nil {
		nv.State = Unverified
		for _, s := range sources {
			if s != nil && s.contradicts(*n.noun, n.Canonical) {
				nv.State = Ungrounded
				break
			}
		}
	}
}

// citable returns the sources a Citation, an int32, can index: the first
// 2^31-1 (what only a later source states is not grounded: fail closed).
// The callers call it on the native build's path (fast), not in the WASM
// guard, whose 4 GB of memory cannot hold so many and whose code is kept
// small (natively, the general path is a test build).
func citable(sources []*Source) []*Source {
	return sources[:min(len(sources), math.MaxInt32)]
}

// cite returns the index of the first source that states a number of
// value key with attrs that agree with want, or -1.
func cite(sources []*Source, key string, want attrs) int {
	fp, h := keyPrint(key)
	w, bit := keyBit(h)
	for i, s := range sources {
		if s == nil || s.filter[w]&bit == 0 {
			continue
		}
		if agreeing(s.slot(key, fp, h).attrs, want) {
			return i
		}
	}
	return -1
}

// groundedBy returns the index of the first source for which ok holds, or -1.
func groundedBy(sources []*Source, ok func(*Source) bool) int {
	for i, s := range sources {
		if s != nil && ok(s) {
			return i
		}
	}
	return -1
}

// Verify checks every number of answer against the sources under the
// default policy.
func Verify(answer string, sources []*Source) Verdict {
	return Default.Verify(answer, sources)
}

// Verify checks every number of answer against the sources under p.
func (p Policy) Verify(answer string, sources []*Source) Verdict {
	if fast {
		sources = citable(sources)
	}
	s := scanText(answer)
	v := Verdict{Grounded: true, Numbers: make([]NumberVerdict, len(s.toks))}
	if fast {
		s.fillVerdicts(v.Numbers, answer)
		if len(s.counts) != 0 {
			s.setNouns(v.Numbers)
		}
		if !citeQuick(v.Numbers, s.quickTable(sources, len(v.Numbers))) {
			v.Grounded = p.checkRest(s, v.Numbers, sources)
		}
		if !checkQualifiers(answer, v.Numbers, sources) || !checkSteps(answer, v.Numbers, sources) {
			v.Grounded = false
		}
		if !v.Grounded {
			v.Grounded = p.deriveAll(answer, v.Numbers, sources)
		}
	} else {
		for k := range v.Numbers {
			s.fill(&v.Numbers[k].Number, &s.toks[k], answer)
		}
		s.setNouns(v.Numbers)
		for k := range v.Numbers {
			nv, t := &v.Numbers[k], &s.toks[k]
			if nv.check(sources, attrs{t.unit, t.period}); p.Blocks(nv.State) {
				v.Grounded = false
			}
		}
		if !checkQualifiers(answer, v.Numbers, sources) || !checkSteps(answer, v.Numbers, sources) {
			v.Grounded = false
		}
		if !v.Grounded {
			v.Grounded = p.deriveAll(answer, v.Numbers, sources)
		}
	}
	s.done()
	return v
}
