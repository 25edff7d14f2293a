package guardrail

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A derived number (state Derived) is a number of an answer that no snippet
// states but that is the result of one operation over quantities of the
// cited snippets — or over one of them and a count the answer states in
// the same sentence — where the sentence says that it computes (a cue,
// see cues.go):
//
//   - sum a + b and difference a − b of two quantities of the same unit
//     and period ("in total", "more than");
//   - product a × k and quotient a ÷ k of a quantity by a count, a whole
//     number from 2 to 1000 that has no unit ("3 users", "three friends",
//     "up to 6 members"), or a rate by its period ("399 kr/month × 3
//     months"); the ratio a ÷ b of two quantities of the same unit
//     ("times", "each");
//   - a percentage p % × b, a percent change (b − a) ÷ a and a share
//     a ÷ b written as a percent ("percent", "cheaper", "discount");
//   - a conversion within a dimension (see convert.go): the answer's
//     number states a unit or period of the same dimension as the
//     quantity's but another ("4 788 kr a year" against "399 kr/month");
//     no word is needed, the unit is the cue.
//
// The arithmetic is exact (see exact.go). The result must be the answer's
// number as printed: equal, or within half a unit of its last printed
// digit, or of its second significant digit after a rounding word ("about
// 4 800 kr"), when it is printed with two significant digits at least.
// Years, dates, times, phone numbers, ordinals and names are never
// derived nor operands.
const (
	// maxOperands bounds the quantities of the cited snippets the search
	// takes; with more, no number is derived (fail closed).
	maxOperands = 4096
	// maxProbes bounds the candidates the search looks at for one
	// number; past it, the number is not derived.
	maxProbes = 1 << 14
)

// opKey is what an operand's value is of: its unit and period codes,
// whether it is a percent, and for a count with no unit the noun it
// counts (the word after it, without a plural ending): two quantities
// add up, compare or divide into a share only when their keys are equal.
type opKey struct {
	unit, period uint8
	pct          bool
	noun         string
}

// operand is a quantity an operation may take.
type operand struct {
	v     dec
	f     float64 // v, for the coarse search
	key   opKey
	src   int    // index of the source, −1 for the answer
	text  string // as printed
	count bool   // a whole number from 2 to 1000 with no unit or period
	// time is whether its unit is one of time (it may multiply a rate
	// per that unit).
	time bool
}

// operandOf returns n, printed with a, as an operand, if it may be one.
func operandOf(n *Number, a attrs) (operand, bool) {
	c := n.Canonical
	o := operand{text: n.Text, key: opKey{unit: a.unit, period: a.period}}
	switch n.Kind {
	case KindInteger, KindDecimal, KindGrouped, KindWords:
	case KindPercent:
		c, o.key.pct = strings.TrimSuffix(c, "%"), true
	default:
		return operand{}, false
	}
	switch o.key.unit {
	case boundUnit:
		o.key.unit = 0
	case cellPercent:
		o.key.unit, o.key.pct = 0, true
	}
	if o.key.unit == 0 && o.key.period == 0 && !o.key.pct && isYearShaped(c) {
		return operand{}, false
	}
	v, ok := parseDec(c)
	if !ok || v.c <= 0 || v.e > maxExp || v.e < -maxExp {
		return operand{}, false
	}
	o.v, o.f = v, v.float()
	o.count = (o.key.unit == 0 || o.key.unit == userUnit) && o.key.period == 0 && !o.key.pct && v.e >= 0 && v.cmp(dec{2, 0}) >= 0 && v.cmp(dec{1, 3}) <= 0
	if int(o.key.unit) < len(scales) && o.key.period == 0 && !o.key.pct {
		f := scales[o.key.unit].family
		o.time = f != 0 && (f == scales[unitCode("month")].family || f == scales[unitCode("second")].family)
	}
	return o, true
}

// userUnit is the code of the unit "user", a count.
var userUnit = uint8(unitCode("user"))

// unitCode returns the code of the unit named name.
func unitCode(name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	panic("guardrail: no unit " + name)
}

// operands returns the quantities of the snippet that may be operands,
// with their attrs as NewSource indexes them (a table cell's from its
// column): values with a unit, currency or period, percents, and counts
// of a noun ("6 members"), not bare values ("24/7", "version 123"). Made
// when first asked for.
func (s *Source) operands() []operand {
	if ops := s.ops.Load(); ops != nil {
		return *ops
	}
	sc := scanText(s.Text)
	nums := sc.numbers(s.Text)
	cells := bindCells(s.Text, nums, sc.toks)
	var ops []operand
	for k := range nums {
		n := &nums[k]
		a := attrs{sc.toks[k].unit, sc.toks[k].period}
		if cells != nil && cells[k] != (attrs{}) {
			a = cells[k]
		}
		noun := ""
		if a == (attrs{}) && n.Kind != KindPercent {
			first, _, _ := sc.nounRun(sc.toks[k].end)
			if first == "" || functionWords[first] {
				continue // a bare value is no quantity
			}
			noun = first
		}
		if o, ok := operandOf(n, a); ok {
			o.key.noun = noun
			o.text = countText(s.Text, n, o)
			ops = append(ops, o)
		}
	}
	sc.done()
	s.ops.Store(&ops)
	return ops
}

// pool is the operands of the cited snippets, sorted by key and value.
type pool struct {
	ops    []operand
	keys   []opKey // the keys of ops, in order
	starts []int   // where the operands of keys[i] start in ops; one more at the end
	counts []operand
}

// newPool gathers the operands of sources; nil when they have none or
// more than maxOperands.
func newPool(sources []*Source) *pool {
	p := &pool{}
	for i, s := range sources {
		if s == nil {
			continue
		}
		for _, o := range s.operands() {
			o.src = i
			p.ops = append(p.ops, o)
		}
	}
	if len(p.ops) == 0 || len(p.ops) > maxOperands {
		return nil
	}
	slices.SortStableFunc(p.ops, func(a, b operand) int {
		if c := keyCmp(a.key, b.key); c != 0 {
			return c
		}
		return a.v.cmp(b.v)
	})
	for i, o := range p.ops {
		if i == 0 || o.key != p.ops[i-1].key {
			p.keys = append(p.keys, o.key)
			p.starts = append(p.starts, i)
		}
		if o.count || o.time {
			p.counts = append(p.counts, o)
		}
	}
	p.starts = append(p.starts, len(p.ops))
	return p
}

func keyCmp(a, b opKey) int {
	switch {
	case a.noun != b.noun:
		return strings.Compare(a.noun, b.noun)
	case a.unit != b.unit:
		return int(a.unit) - int(b.unit)
	case a.period != b.period:
		return int(a.period) - int(b.period)
	case a.pct != b.pct:
		if a.pct {
			return 1
		}
		return -1
	}
	return 0
}

// group returns the operands of key k, by value.
func (p *pool) group(k int) []operand { return p.ops[p.starts[k]:p.starts[k+1]] }

// between returns the range [i, j) of the operands of g whose value lies
// in [lo, hi] (widened by a little for the error of floats; the exact test
// comes after).
func between(g []operand, lo, hi float64) (int, int) {
	lo, hi = lo-1e-9*abs(lo)-1e-12, hi+1e-9*abs(hi)+1e-12
	i, _ := slices.BinarySearchFunc(g, lo, func(o operand, x float64) int {
		if o.f < x {
			return -1
		}
		return 1
	})
	j := i
	for j < len(g) && g[j].f <= hi {
		j++
	}
	return i, j
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// target is an answer's number the search tries to derive.
type target struct {
	nv       *NumberVerdict
	key      opKey
	v, unit  dec // the value as printed, and the unit of its last printed digit
	lo, hi   float64
	cues     cue
	counts   []operand // the counts the answer states in the sentence
	probes   int
	formula  string
	operands []operand
}

// derivable reports whether the number of nv, printed with a, is one
// derive may make: ungrounded, a plain quantity, no year.
func derivable(nv *NumberVerdict, a attrs) bool {
	if nv.State != Ungrounded {
		return false
	}
	_, ok := operandOf(&nv.Number, a)
	return ok
}

// newTarget makes the target of nv (printed with a, counting noun) in a
// sentence with cues cs, a rounding word before it when about.
func newTarget(nv *NumberVerdict, a attrs, noun string, cs cue, about bool) (*target, bool) {
	o, ok := operandOf(&nv.Number, a)
	if !ok {
		return nil, false
	}
	t := &target{nv: nv, key: o.key, v: o.v, cues: cs}
	if o.key.unit == 0 && o.key.period == 0 && !o.key.pct {
		t.key.noun = noun
	}
	t.unit = printedUnit(nv.Text, strings.TrimSuffix(nv.Canonical, "%"))
	if m := magnitude(o.v); about && t.unit.cmp(dec{1, m - 1}) < 0 {
		t.unit = dec{1, m - 1}
	}
	half := t.unit.float() / 2
	t.lo, t.hi = o.f-half, o.f+half
	return t, true
}

// printedUnit returns the unit of the last digit a number printed as text
// shows of its canonical value c: 0.1 for "12,5", 1 for "4 788", 100 000
// for "1.5 million" (two digits printed of seven).
func printedUnit(text, c string) dec {
	whole, frac, _ := strings.Cut(c, ".")
	if frac != "" {
		return dec{1, -int32(len(frac))}
	}
	printed := 0
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			printed++
		}
	}
	whole = strings.TrimPrefix(whole, "-")
	if printed > 0 && printed < len(whole) {
		return dec{1, int32(len(whole) - printed)}
	}
	return dec{1, 0}
}

// try checks a candidate, the exact result n/den from the operands ops,
// against the target; on a match it records the formula.
func (t *target) try(n, den dec, formula func() string, ops ...operand) bool {
	t.probes++
	if !within(n, den, t.v, t.unit) {
		return false
	}
	// A result that is not exact must be printed with two significant
	// digits at least: "2.2 yards" for 2 metres, not "2 yards".
	exact := within(n, den, t.v, dec{})
	if !exact && magnitude(t.v) <= t.unit.e+magnitude(dec{t.unit.c, 0}) {
		return false
	}
	eq := " = "
	if !exact {
		eq = " ≈ "
	}
	t.formula = formula() + eq + t.nv.Text
	t.operands = ops
	return true
}

// spent reports whether the target has used its probes.
func (t *target) spent() bool { return t.probes >= maxProbes }

// agrees reports whether operands of key k may give the target's
// quantity: the same unit and period where the target prints them.
func (t *target) agrees(k opKey) bool {
	return k.pct == t.key.pct && (t.key.unit == 0 || k.unit == t.key.unit) && (t.key.period == 0 || k.period == t.key.period) &&
		k.noun == t.key.noun
}

// derive searches the operations in order and reports whether one gives
// the target.
func (p *pool) derive(t *target) bool {
	return p.convert(t) ||
		t.cues&cueTotal != 0 && p.sum(t) ||
		t.cues&cueDiff != 0 && p.difference(t) ||
		t.cues&(cueTotal|cueTimes|cueShare) != 0 && p.product(t) ||
		t.cues&(cueTimes|cueShare) != 0 && p.quotient(t) ||
		t.cues&cueTimes != 0 && p.ratio(t) ||
		t.cues&(cuePercent|cueDiff) != 0 && p.percent(t)
}

// sum: a + b, two operands of one key.
func (p *pool) sum(t *target) bool {
	for k, key := range p.keys {
		if !t.agrees(key) {
			continue
		}
		g := p.group(k)
		for i := range g {
			a := g[i]
			lo, hi := between(g, t.lo-a.f, t.hi-a.f)
			for j := max(lo, i+1); j < hi; j++ {
				b := g[j]
				if n, ok := a.v.add(b.v); ok && t.try(n, one, func() string { return a.text + " + " + b.text }, a, b) {
					return true
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// difference: a − b, two operands of one key; of two percents only when
// the sentence says it counts in points ("percentage points").
func (p *pool) difference(t *target) bool {
	for k, key := range p.keys {
		if !t.agrees(key) || key.pct && t.cues&cuePoints == 0 {
			continue
		}
		g := p.group(k)
		for i := range g {
			a := g[i]
			lo, hi := between(g, a.f-t.hi, a.f-t.lo)
			for j := lo; j < hi && j < i; j++ {
				b := g[j]
				if n, ok := a.v.sub(b.v); ok && t.try(n, one, func() string { return a.text + " − " + b.text }, a, b) {
					return true
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// factors returns the counts and quantities of time the target may be
// multiplied or divided by: the answer's (first: what the sentence
// counts), then the snippets'.
func (p *pool) factors(t *target) []operand {
	if len(t.counts) == 0 {
		return p.counts
	}
	return append(slices.Clip(t.counts), p.counts...)
}

// product: a × k, a quantity by a count (of the quantity's key), or a rate
// by a quantity of its period (399 kr/month × 3 months: kr).
func (p *pool) product(t *target) bool {
	for _, c := range p.factors(t) {
		for k, key := range p.keys {
			switch {
			case c.count && t.agrees(key):
			case c.time && key.period == c.key.unit && !key.pct && t.key.period == 0 && (t.key.unit == 0 || t.key.unit == key.unit):
			default:
				continue
			}
			g := p.group(k)
			lo, hi := between(g, t.lo/c.f, t.hi/c.f)
			for j := lo; j < hi; j++ {
				a := g[j]
				if a.src == c.src && a.text == c.text {
					continue // a count times itself
				}
				if n, ok := a.v.mul(c.v); ok && t.try(n, one, func() string { return a.text + " × " + c.text }, a, c) {
					return true
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// quotient: a ÷ k, a quantity by a count, or by a quantity of time (450
// kr ÷ 5 days: kr per day).
func (p *pool) quotient(t *target) bool {
	for _, c := range p.factors(t) {
		for k, key := range p.keys {
			switch {
			case c.count && t.agrees(key):
			case c.time && key.period == 0 && !key.pct && t.key.period == c.key.unit && (t.key.unit == 0 || t.key.unit == key.unit):
			default:
				continue
			}
			g := p.group(k)
			lo, hi := between(g, t.lo*c.f, t.hi*c.f)
			for j := lo; j < hi; j++ {
				a := g[j]
				if a.src == c.src && a.text == c.text {
					continue
				}
				if t.try(a.v, c.v, func() string { return a.text + " ÷ " + c.text }, a, c) {
					return true
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// ratio: a ÷ b, two operands of one key, as a number with no unit ("2.5
// times").
func (p *pool) ratio(t *target) bool {
	if t.key.unit != 0 || t.key.period != 0 || t.key.pct {
		return false
	}
	for k := range p.keys {
		g := p.group(k)
		for i := range g {
			b := g[i]
			lo, hi := between(g, t.lo*b.f, t.hi*b.f)
			for j := lo; j < hi; j++ {
				a := g[j]
				if a.v == b.v {
					continue // (1: no ratio)
				}
				if t.try(a.v, b.v, func() string { return a.text + " ÷ " + b.text }, a, b) {
					return true
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// percent: a percentage p % × b of a quantity (for a target that is no
// percent); a percent change (b − a) ÷ a or a share b ÷ a of two operands
// of one key (for a target that is).
func (p *pool) percent(t *target) bool {
	if !t.key.pct {
		return p.percentOf(t)
	}
	if t.key.period != 0 {
		return false
	}
	for k, key := range p.keys {
		if key.pct {
			continue
		}
		g := p.group(k)
		for i := range g {
			a := g[i]
			change := func(lo, hi float64) bool {
				l, h := between(g, lo, hi)
				for j := l; j < h; j++ {
					if j == i {
						continue
					}
					b := g[j]
					d, ok1 := b.v.sub(a.v)
					n, ok2 := d.abs().mul(hundred)
					if ok1 && ok2 && t.try(n, a.v, func() string { return "(" + b.text + " − " + a.text + ") ÷ " + a.text }, b, a) {
						return true
					}
				}
				return false
			}
			if change(a.f*(1+t.lo/100), a.f*(1+t.hi/100)) || change(a.f*(1-t.hi/100), a.f*(1-t.lo/100)) {
				return true
			}
			if t.cues&cuePercent != 0 {
				l, h := between(g, a.f*t.lo/100, a.f*t.hi/100)
				for j := l; j < h; j++ {
					if j == i {
						continue
					}
					b := g[j]
					if n, ok := b.v.mul(hundred); ok && t.try(n, a.v, func() string { return b.text + " ÷ " + a.text }, b, a) {
						return true
					}
				}
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// percentOf: p % × b.
func (p *pool) percentOf(t *target) bool {
	for k, key := range p.keys {
		if !key.pct {
			continue
		}
		for _, pc := range p.group(k) {
			for k2, key2 := range p.keys {
				if !t.agrees(key2) {
					continue
				}
				g := p.group(k2)
				lo, hi := between(g, t.lo*100/pc.f, t.hi*100/pc.f)
				for j := lo; j < hi; j++ {
					b := g[j]
					if n, ok := pc.v.mul(b.v); ok && t.try(n, hundred, func() string { return pc.text + " × " + b.text }, pc, b) {
						return true
					}
				}
				if t.spent() {
					return false
				}
			}
		}
	}
	return false
}

// convert: a quantity written in another unit, or a rate per another
// period, of the same dimension.
func (p *pool) convert(t *target) bool {
	if t.key.unit == 0 && t.key.period == 0 || t.key.pct {
		return false
	}
	for k, key := range p.keys {
		if key.pct {
			continue
		}
		var from, to scale
		switch {
		case t.key.unit != 0 && key.unit != t.key.unit && key.period == t.key.period:
			f, tt, ok := convertible(key.unit, t.key.unit)
			if !ok {
				continue
			}
			from, to = f, tt // value × from ÷ to
		case t.key.period != 0 && key.period != t.key.period && (key.unit == t.key.unit || t.key.unit == 0):
			f, tt, ok := convertible(key.period, t.key.period)
			if !ok {
				continue
			}
			from, to = tt, f // per from: value × to ÷ from
		default:
			continue
		}
		g := p.group(k)
		r := from.size.float() / to.size.float()
		lo, hi := between(g, t.lo/r, t.hi/r)
		for j := lo; j < hi; j++ {
			a := g[j]
			if n, ok := a.v.mul(from.size); ok && t.try(n, to.size, func() string { return a.text + factorText(from.size, to.size) }, a) {
				return true
			}
		}
		if t.spent() {
			return false
		}
	}
	return false
}

// factorText writes the factor n ÷ d of a conversion: " × 12", " ÷ 1000",
// " × 2.54", or both when neither way is a decimal.
func factorText(n, d dec) string {
	q, okq := quo(n, d)
	if okq && q.cmp(one) >= 0 {
		return " × " + q.String()
	}
	if r, ok := quo(d, n); ok {
		return " ÷ " + r.String()
	}
	if okq {
		return " × " + q.String()
	}
	return " × " + n.String() + " ÷ " + d.String()
}

var (
	one     = dec{1, 0}
	hundred = dec{1, 2}
)

// answerNoun returns the noun a count of an answer that ends at end
// counts, as Source.operands reads it in a snippet: the word after it,
// lower case and without a plural ending, unless it is a function word.
func answerNoun(text string, end int) string {
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	j := i
	for j < len(text) {
		c, size := utf8.DecodeRuneInString(text[j:])
		if !isLetter(c) {
			break
		}
		j += size
	}
	w := lowerString(text[i:j])
	if w == "" || functionWords[w] {
		return ""
	}
	return stemNoun(w)
}

// countText is the text of operand o, the number n of text, in a
// formula: a count with the word after it, the noun it counts ("6
// members", "tre personer"); the others as printed.
func countText(text string, n *Number, o operand) string {
	if !o.count || o.key.noun == "" || n.End >= len(text) || text[n.End] != ' ' {
		return o.text
	}
	i := n.End + 1
	j := i
	for j < len(text) {
		c, size := utf8.DecodeRuneInString(text[j:])
		if !isLetter(c) {
			break
		}
		j += size
	}
	if j == i || strings.HasSuffix(n.Text, text[i:j]) {
		return o.text
	}
	return o.text + " " + text[i:j]
}
