package guardrail

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
//     an amount less or plus a percent, b − p % and b + p % ("20 % off
//     399 kr": 319,20 kr), only when exact (small percents of nearby
//     amounts round to nearly any value);
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
// derived nor operands, but for a span of years between two years the
// answer's sentence prints (yearspan.go).
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
		c, o.key.pct = trimSuffix(c, "%"), true
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
		o.time = f != 0 && (f == monthFamily || f == secondFamily)
	}
	return o, true
}

// userUnit is the code of the unit "user", a count; monthFamily and
// secondFamily are the families of time (see convert.go).
var (
	userUnit     = unitNamed("user")
	monthFamily  = scales[unitNamed("month")].family
	secondFamily = scales[unitNamed("second")].family
)

// unitNamed returns the code of the unit named name, or 0. (Not
// ParseUnit: its error links strconv's quoting tables into the WASM guard.)
func unitNamed(name string) uint8 {
	for i, n := range names {
		if n == name {
			return uint8(i)
		}
	}
	return 0
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
	cells, _ := bindCells(s.Text, nums, sc.toks)
	var ops []operand
	for k := range nums {
		n := &nums[k]
		a := attrs{sc.toks[k].unit, sc.toks[k].period}
		if cells != nil && cells[k] != (attrs{}) {
			a = cells[k]
		} else if k+1 < len(nums) {
			// the first end of a range: what the second prints after it
			if r, ok := rangeStart(s.Text, n, &nums[k+1]); ok && r.Canonical == n.Canonical {
				a = attrsOf(&r)
			}
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
			if own := (attrs{sc.toks[k].unit, sc.toks[k].period}); a != own {
				o.text = cellText(o, own)
			}
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
	sortOperands(p.ops)
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

// sortOperands sorts ops by key and value, keeping the order of equals
// (a merge sort: the pool may hold thousands).
func sortOperands(ops []operand) {
	if len(ops) < 2 {
		return
	}
	tmp := make([]operand, len(ops))
	for w := 1; w < len(ops); w *= 2 {
		for lo := 0; lo < len(ops)-w; lo += 2 * w {
			mid, hi := lo+w, min(lo+2*w, len(ops))
			i, j, k := lo, mid, lo
			for ; i < mid && j < hi; k++ {
				if before(&ops[j], &ops[i]) {
					tmp[k], j = ops[j], j+1
				} else {
					tmp[k], i = ops[i], i+1
				}
			}
			k += copy(tmp[k:], ops[i:mid])
			copy(tmp[k:], ops[j:hi])
			copy(ops[lo:hi], tmp[lo:hi])
		}
	}
}

// before reports whether a sorts before b: by key, then value.
func before(a, b *operand) bool {
	x, y := a.key, b.key
	switch {
	case x.noun != y.noun:
		return x.noun < y.noun
	case x.unit != y.unit:
		return x.unit < y.unit
	case x.period != y.period:
		return x.period < y.period
	case x.pct != y.pct:
		return y.pct
	}
	return a.v.cmp(b.v) < 0
}

// group returns the operands of key k, by value.
func (p *pool) group(k int) []operand { return p.ops[p.starts[k]:p.starts[k+1]] }

// between returns the range [i, j) of the operands of g whose value lies
// in [lo, hi] (widened by a little for the error of floats; the exact test
// comes after).
func between(g []operand, lo, hi float64) (int, int) {
	lo, hi = lo-1e-9*abs(lo)-1e-12, hi+1e-9*abs(hi)+1e-12
	i, j := 0, len(g)
	for i < j {
		if m := int(uint(i+j) >> 1); g[m].f < lo {
			i = m + 1
		} else {
			j = m
		}
	}
	j = i
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
	operands []*operand
}

// newTarget makes the target of nv, read as the operand o (counting
// noun), in a sentence with cues cs, a rounding word before it when about.
func newTarget(nv *NumberVerdict, o operand, noun string, cs cue, about bool) *target {
	t := &target{nv: nv, key: o.key, v: o.v, cues: cs}
	if perParts[o.key.period][0] != 0 {
		t.cues |= cueShare // its "per person" is its cue
	}
	if o.key.unit == 0 && o.key.period == 0 && !o.key.pct {
		t.key.noun = noun
	}
	t.unit = printedUnit(nv.Text, trimSuffix(nv.Canonical, "%"))
	if m := magnitude(o.v); about && t.unit.cmp(dec{1, m - 1}) < 0 {
		t.unit = dec{1, m - 1}
	}
	half := t.unit.float() / 2
	t.lo, t.hi = o.f-half, o.f+half
	return t
}

// printedUnit returns the unit of the last digit a number printed as text
// shows of its canonical value c: 0.1 for "12,5", 1 for "4 788", 100 000
// for "1.5 million" (two digits printed of seven).
func printedUnit(text, c string) dec {
	whole, frac, _ := cut(c, '.')
	if frac != "" {
		return dec{1, -int32(len(frac))}
	}
	printed := 0
	for i := 0; i < len(text); i++ {
		if text[i] >= '0' && text[i] <= '9' {
			printed++
		}
	}
	whole = trimPrefix(whole, "-")
	if printed > 0 && printed < len(whole) {
		return dec{1, int32(len(whole) - printed)}
	}
	return dec{1, 0}
}

// op is an operation, as the search tries it: for an operand x and a
// group g of operands y (see pool.pairs), the exact result n ÷ d of x and
// y (see result) and its formula (see formula).
type op uint8

const (
	opSum     op = iota // x + y
	opDiff              // x − y
	opProd              // y × x, x a count or a time
	opQuot              // y ÷ x, x a count or a time
	opRatio             // y ÷ x, of one key, as a number with no unit
	opPctOf             // x % × y
	opLess              // y less x %: y × (100 − x) ÷ 100
	opMore              // y plus x %: y × (100 + x) ÷ 100
	opChange            // |y − x| ÷ x as a percent
	opShare             // y ÷ x as a percent
	opConvert           // y × from ÷ to
)

// derive searches the operations the target's cues allow, in order, and
// reports whether one gives the target.
func (p *pool) derive(t *target) bool {
	for _, o := range [...]struct {
		op   op
		cues cue // one of them is needed (none: the unit is the cue)
	}{
		{opConvert, 0},
		{opSum, cueTotal},
		{opDiff, cueDiff},
		{opProd, cueTotal | cueTimes | cueShare},
		{opQuot, cueTimes | cueShare},
		{opRatio, cueTimes},
		{opPctOf, cuePercent | cueDiff},
		{opLess, cuePercent | cueDiff},
		{opMore, cuePercent | cueDiff},
		{opChange, cuePercent | cueDiff},
		{opShare, cuePercent},
	} {
		if (o.cues == 0 || t.cues&o.cues != 0) && p.pairs(t, o.op) {
			return true
		}
		if t.spent() {
			return false
		}
	}
	return false
}

// pairs tries op on the target: each operand x it may take first, with
// the group of operands y it may take second and the range of values
// where y gives the target. It reports whether a pair does.
func (p *pool) pairs(t *target, o op) bool {
	var conv [2]dec
	switch o {
	case opProd, opQuot:
		fs := p.factors(t)
		for i := range fs {
			x := &fs[i]
			for k, key := range p.keys {
				if !t.byFactor(o, x, key) {
					continue
				}
				lo, hi := t.lo/x.f, t.hi/x.f
				if o == opQuot {
					lo, hi = t.lo*x.f, t.hi*x.f
				}
				if p.try(t, o, x, k, lo, hi, -1, &conv) {
					return true
				}
			}
		}
		return false
	case opPctOf, opLess, opMore:
		if t.key.pct {
			return false
		}
		for k, key := range p.keys {
			if !key.pct {
				continue
			}
			g := p.group(k)
			for i := range g {
				x := &g[i]
				// the share of y the target is, in percent
				f := x.f
				switch o {
				case opLess:
					f = 100 - x.f
				case opMore:
					f = 100 + x.f
				}
				if f <= 0 {
					continue
				}
				for k2, key2 := range p.keys {
					if t.agrees(key2) && p.try(t, o, x, k2, t.lo*100/f, t.hi*100/f, -1, &conv) {
						return true
					}
				}
			}
		}
		return false
	case opConvert:
		for k, key := range p.keys {
			from, to, ok := t.converts(key)
			if !ok {
				continue
			}
			r := from.float() / to.float()
			if conv = ([2]dec{from, to}); p.try(t, o, nil, k, t.lo/r, t.hi/r, -1, &conv) {
				return true
			}
		}
		return false
	}
	for k, key := range p.keys {
		switch o {
		case opSum, opDiff:
			if !t.agrees(key) || o == opDiff && key.pct && t.cues&cuePoints == 0 {
				continue
			}
		case opRatio:
			if t.key.unit != 0 || t.key.period != 0 || t.key.pct {
				return false
			}
		case opChange, opShare:
			if !t.key.pct || t.key.period != 0 {
				return false
			}
			if key.pct {
				continue // of two amounts, not of percents
			}
		}
		g := p.group(k)
		for i := range g {
			x := &g[i]
			var found bool
			switch o {
			case opSum:
				found = p.try(t, o, x, k, t.lo-x.f, t.hi-x.f, i, &conv)
			case opDiff:
				found = p.try(t, o, x, k, x.f-t.hi, x.f-t.lo, i, &conv)
			case opRatio:
				found = p.try(t, o, x, k, t.lo*x.f, t.hi*x.f, i, &conv)
			case opChange:
				found = p.try(t, o, x, k, x.f*(1+t.lo/100), x.f*(1+t.hi/100), i, &conv) ||
					p.try(t, o, x, k, x.f*(1-t.hi/100), x.f*(1-t.lo/100), i, &conv)
			case opShare:
				found = p.try(t, o, x, k, x.f*t.lo/100, x.f*t.hi/100, i, &conv)
			}
			if found {
				return true
			}
			if t.spent() {
				return false
			}
		}
	}
	return false
}

// byFactor reports whether operands of key may be multiplied (opProd) or
// divided (opQuot) by x to give the target: by a count, keeping their
// key; by a quantity of time, a rate by its period (399 kr/month × 3
// months: kr) or an amount by a time (450 kr ÷ 5 days: kr per day).
func (t *target) byFactor(o op, x *operand, key opKey) bool {
	switch {
	case x.count && o == opQuot && perParts[t.key.period][0] != 0:
		// a quotient by a count is per one of what it counts, in the
		// same time: "1 200 kr ÷ fyra personer = 300 kr per person",
		// "9 000 kr i månaden ÷ tre personer = 3 000 kr per person och
		// månad"
		return key.pct == t.key.pct && (t.key.unit == 0 || key.unit == t.key.unit) && key.noun == t.key.noun &&
			key.period == perParts[t.key.period][1]
	case x.count && o == opProd && perParts[key.period][0] != 0 && perParts[key.period][1] != 0:
		// a product by a count of a price per one and a time is the
		// price in that time: "129 kr/month per user × three users =
		// 387 kr a month"
		return key.pct == t.key.pct && (t.key.unit == 0 || key.unit == t.key.unit) && key.noun == t.key.noun &&
			(t.key.period == 0 || t.key.period == perParts[key.period][1])
	case x.count:
		return t.agrees(key)
	case !x.time || key.pct || t.key.unit != 0 && t.key.unit != key.unit:
		return false
	case o == opProd:
		return key.period == x.key.unit && t.key.period == 0
	}
	return key.period == 0 && t.key.period == x.key.unit
}

// converts returns the factor from ÷ to by which operands of key convert
// to the target's unit (key's unit to the target's, in the same period)
// or period (the same unit, per another period).
func (t *target) converts(key opKey) (from, to dec, ok bool) {
	if t.key.unit == 0 && t.key.period == 0 || t.key.pct || key.pct {
		return dec{}, dec{}, false
	}
	switch {
	case t.key.unit != 0 && key.unit != t.key.unit && key.period == t.key.period:
		f, tt, ok := convertible(key.unit, t.key.unit)
		return f.size, tt.size, ok
	case t.key.period != 0 && key.period != t.key.period && (key.unit == t.key.unit || t.key.unit == 0):
		f, tt, ok := convertible(key.period, t.key.period)
		return tt.size, f.size, ok // per f: × the periods' ratio
	}
	return dec{}, dec{}, false
}

// try looks at the operands y of group k whose value lies in [lo, hi],
// but for the one at index skip, and reports whether op on x and y gives
// the target exactly as printed; the first that does is the target's
// derivation.
func (p *pool) try(t *target, o op, x *operand, k int, lo, hi float64, skip int, conv *[2]dec) bool {
	g := p.group(k)
	i, j := between(g, lo, hi)
	if o == opSum {
		i = max(i, skip+1) // each pair once
	}
	for ; i < j; i++ {
		y := &g[i]
		if i == skip || (o == opProd || o == opQuot) && y.src == x.src && y.text == x.text ||
			o == opDiff && i > skip || o == opRatio && y.v == x.v {
			continue
		}
		t.probes++
		n, d, ok := result(o, x, y, conv)
		if !ok || !within(n, d, t.v, t.unit) {
			continue
		}
		// A result that is not exact must be printed with two
		// significant digits at least: "2.2 yards" for 2 metres, not
		// "2 yards".
		exact := within(n, d, t.v, dec{})
		if !exact && (magnitude(t.v) <= t.unit.e || o == opLess || o == opMore) {
			continue // a price less or plus a percent is exact: 1 % off $2.79 is no $2.76
		}
		eq := " = "
		if !exact {
			eq = " ≈ "
		}
		t.formula = formula(o, x, y, conv) + eq + t.nv.Text
		t.operands = []*operand{x, y}
		if o == opConvert {
			t.operands = t.operands[1:]
		}
		return true
	}
	return false
}

// result returns the exact value of op on x and y as n ÷ d.
func result(o op, x, y *operand, conv *[2]dec) (n, d dec, ok bool) {
	d, ok = one, true
	switch o {
	case opSum:
		n, ok = x.v.add(y.v)
	case opDiff:
		n, ok = x.v.sub(y.v)
	case opProd:
		n, ok = y.v.mul(x.v)
	case opQuot, opRatio:
		n, d = y.v, x.v
	case opPctOf:
		n, ok = x.v.mul(y.v)
		d = hundred
	case opLess, opMore:
		f := x.v
		if o == opLess {
			f = f.neg()
		}
		if f, ok = hundred.add(f); ok {
			n, ok = y.v.mul(f)
		}
		d = hundred
	case opChange:
		var diff dec
		if diff, ok = y.v.sub(x.v); ok {
			n, ok = diff.abs().mul(hundred)
		}
		d = x.v
	case opShare:
		n, ok = y.v.mul(hundred)
		d = x.v
	case opConvert:
		n, ok = y.v.mul(conv[0])
		d = conv[1]
	}
	return n, d, ok
}

// formula writes op on x and y with the operands as printed.
func formula(o op, x, y *operand, conv *[2]dec) string {
	if o == opLess || o == opMore {
		x, y = y, x // the amount, then the percent: "399 kr − 20 %"
	}
	switch o {
	case opSum, opMore:
		return x.text + " + " + y.text
	case opDiff, opLess:
		return x.text + " − " + y.text
	case opProd:
		return y.text + " × " + x.text
	case opPctOf:
		return x.text + " × " + y.text
	case opChange:
		return "(" + y.text + " − " + x.text + ") ÷ " + x.text
	case opConvert:
		return y.text + factorText(conv[0], conv[1])
	}
	return y.text + " ÷ " + x.text
}

// spent reports whether the target has used its probes.
func (t *target) spent() bool { return t.probes >= maxProbes }

// agrees reports whether operands of key k may give the target's
// quantity: the same unit and period where the target prints them.
func (t *target) agrees(k opKey) bool {
	return k.pct == t.key.pct && (t.key.unit == 0 || k.unit == t.key.unit) && (t.key.period == 0 || k.period == t.key.period) &&
		k.noun == t.key.noun
}

// factors returns the counts and quantities of time the target may be
// multiplied or divided by: the answer's (first: what the sentence
// counts), then the snippets'.
func (p *pool) factors(t *target) []operand {
	if len(t.counts) == 0 {
		return p.counts
	}
	return append(t.counts[:len(t.counts):len(t.counts)], p.counts...)
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
	i, j := wordAfter(text, end)
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
	if !o.count || o.key.noun == "" || o.key.unit != 0 || n.End >= len(text) || text[n.End] != ' ' {
		return o.text
	}
	i, j := wordAfter(text, n.End)
	if j == i || hasSuffix(n.Text, text[i:j]) {
		return o.text
	}
	return o.text + " " + text[i:j]
}

// cellText is the text of an operand read from a table cell whose column
// gives it a unit or period it does not print (own): with them, by name
// ("399 kr/month" for "399 kr" under "Monthly price").
func cellText(o operand, own attrs) string {
	t := o.text
	if o.key.pct && !hasSuffix(t, "%") {
		t += " %"
	}
	if o.key.unit != 0 && own.unit == 0 {
		t += " " + Unit(o.key.unit).String()
	}
	if o.key.period != 0 && own.period == 0 {
		t += "/" + Unit(o.key.period).String()
	}
	return t
}
