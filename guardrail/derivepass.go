package guardrail

// deriver derives the ungrounded numbers of one answer (see derive.go):
// the operands of the sources are gathered once, when the first number
// needs them, and the cues of one sentence are read once for all its
// numbers.
type deriver struct {
	sources  []*Source
	pool     *pool
	pooled   bool
	from, to int // the sentence whose cues are below
	cues     []cueAt
}

// deriveAll derives what it can of the ungrounded numbers of the answer
// text, whose verdicts are nvs, and reports whether no number blocks it
// under p then.
func (p Policy) deriveAll(text string, nvs []NumberVerdict, sources []*Source) bool {
	d := deriver{sources: sources, from: -1}
	grounded := true
	for k := range nvs {
		d.derive(text, nvs, k, len(text), len(text), true)
		if p.Blocks(nvs[k].State) {
			grounded = false
		}
	}
	return grounded
}

// derive makes nvs[k], the verdict on a number of text, Derived when it
// is ungrounded and one operation gives it. It reports false when that
// cannot be known yet: the text read so far (up to limit, all of it when
// final) does not show the end of the number's sentence, whose cues and
// counts it needs, or the numbers are not final up to it (up to read).
func (d *deriver) derive(text string, nvs []NumberVerdict, k, read, limit int, final bool) bool {
	nv := &nvs[k]
	if nv.State != Ungrounded || falseStep(text, nvs, k, d.sources) {
		return true // (a printed step that does not hold: see steps.go)
	}
	self, ok := operandOf(&nv.Number, attrsOf(&nv.Number))
	if !ok {
		return true // no plain quantity (a year, a date, a name …)
	}
	from, to, known := sentenceAt(text, nv.Start, nv.End, limit, final)
	if !known || to > read && !final {
		return false
	}
	// The first end of a range, whose scale or unit is printed after
	// the second ("$230–240 million"), or a day of a range of days whose
	// other end is a date ("3–9 mars 2025", "March 3–9"): grounded as
	// what it states.
	for j := k - 1; j <= k+2; j++ {
		var n Number
		ok := false
		if j == k+2 && k+1 < len(nvs) {
			n, ok = rangeStart(text, &nv.Number, &nvs[k+1].Number)
		} else if j >= 0 && j < len(nvs) && j != k {
			n, ok = rangeDay(text, &nv.Number, &nvs[j].Number, j > k)
		}
		if ok {
			was := *nv
			nv.Number = n
			if nv.check(d.sources, attrsOf(&n)); nv.State == Grounded && checkQualifiers(text, nvs[k:k+1], d.sources) {
				return true
			}
			*nv = was
		}
	}
	if f, src, ok := shownFactor(text, nvs, k, from, to, d.sources); ok {
		// "12 × 399 kr = 4 788 kr a year": 12 months in a year
		nv.State, nv.Derivation, nv.Citation = Derived, &Derivation{Formula: f, Operands: []int{int(src)}}, src
		return true
	}
	if from != d.from || to != d.to {
		d.from, d.to, d.cues = from, to, cuesOf(text, from, to)
	}
	cs, about := cuesIn(text, d.cues, nv.Start, nv.End)
	about = about || k > 0 && converted(text, &nvs[k-1].Number, &nv.Number)
	// The numbers are in order: those of the sentence lie around k.
	lo, hi := k, k+1
	for lo > 0 && nvs[lo-1].Start >= from {
		lo--
	}
	for hi < len(nvs) && nvs[hi].End <= to {
		hi++
	}
	if f, ops, ok := yearSpan(text, nvs, k, lo, hi); ok {
		// "1992, two years after it began in 1990"
		nv.State, nv.Derivation, nv.Citation = Derived, &Derivation{Formula: f, Operands: ops}, int32(ops[0])
		return true
	}
	var counts []operand
	for j := lo; j < hi; j++ {
		o := &nvs[j]
		if j == k {
			continue
		}
		if o.Kind == KindPercent {
			cs |= cuePercent // a percent stated beside the number
		}
		if c, ok := operandOf(&o.Number, attrsOf(&o.Number)); ok && (c.count || c.time) {
			if c.count {
				c.key.noun = answerNoun(text, o.End)
			}
			c.src, c.text = -1, countText(text, &o.Number, c)
			counts = append(counts, c)
		}
	}
	t := newTarget(nv, self, answerNoun(text, nv.End), cs, about)
	t.counts = counts
	if !d.pooled {
		d.pool, d.pooled = newPool(d.sources), true
	}
	if d.pool == nil || !d.pool.derive(t) {
		return true
	}
	dv := &Derivation{Formula: t.formula, Operands: []int{}}
	nv.State, nv.Derivation, nv.Citation = Derived, dv, -1
next:
	for _, o := range t.operands {
		if o.src < 0 {
			continue
		}
		for _, src := range dv.Operands {
			if src == o.src {
				continue next // each source once
			}
		}
		if nv.Citation < 0 {
			nv.Citation = int32(o.src)
		}
		dv.Operands = append(dv.Operands, o.src)
	}
	return true
}

// converted reports whether n is printed in parentheses right after prev,
// in another unit of the same family: "5 miles (8 km)", "18 in (460 mm)",
// as a conversion is printed beside what it converts, rounded (it is read
// as after a rounding word).
func converted(text string, prev, n *Number) bool {
	a, b := uint8(prev.Unit), uint8(n.Unit)
	if a == b || int(a) >= len(scales) || int(b) >= len(scales) || scales[a].family == 0 || scales[a].family != scales[b].family {
		return false
	}
	i := prev.End
	if i < n.Start && text[i] == ' ' {
		i++
	}
	return i+1 == n.Start && text[i] == '(' && n.End < len(text) && text[n.End] == ')'
}
