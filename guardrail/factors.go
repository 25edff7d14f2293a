package guardrail

// A shown step of arithmetic prints its factor: "12 × 399 kr = 4 788 kr a
// year", "4 788 kr ÷ 12 = 399 kr a month". The result is derived (see
// derive.go); the factor, a whole number no snippet states, is derived too
// when it is the number of one period in the other: of the operand's
// period (as printed, or as the snippet that grounds the operand prints
// it: "399 kr/month", a table cell's column too) in the result's ("a
// year", or as the same value prints it elsewhere in the sentence: "6 588
// kr på ett år, eftersom 12 × 549 kr = 6 588 kr"), the result printed
// after "=" in the same sentence. Any other factor ("10 × 399 kr = 3 990
// kr a year") stays ungrounded.

// factorOp reports whether sign is the sign of a shown multiplication or
// division (ok), and whether it divides.
func factorOp(sign string) (divide, ok bool) {
	switch sign {
	case "×", "x", "X", "*", "·":
		return false, true
	case "÷", "/":
		return true, true
	}
	return false, false
}

// shownFactor returns the formula of nvs[k], a number of text whose
// sentence is [from,to), when it is the factor of a shown step (see
// above), and the index of the source that grounds its operand.
func shownFactor(text string, nvs []NumberVerdict, k, from, to int, sources []*Source) (string, int32, bool) {
	nv := &nvs[k]
	if nv.Kind != KindInteger || nv.Unit != 0 || nv.Period != 0 || len(nv.Canonical) > 4 {
		return "", 0, false
	}
	// The operand: the number the sign joins to it, on either side.
	o, divide := -1, false
	if k+1 < len(nvs) && nvs[k+1].Start < to {
		if d, ok := factorOp(trimSpaces(text[nv.End:nvs[k+1].Start])); ok && !d {
			o = k + 1 // "12 × 399 kr"
		}
	}
	if o < 0 && k > 0 && nvs[k-1].Start >= from {
		if d, ok := factorOp(trimSpaces(text[nvs[k-1].End:nv.Start])); ok {
			o, divide = k-1, d // "399 kr × 12", "4 788 kr ÷ 12"
		}
	}
	if o < 0 || nvs[o].State != Grounded {
		return "", 0, false
	}
	op := &nvs[o]
	// The result: the number after "=" that follows the step.
	last := max(k, o)
	r := last + 1
	if r >= len(nvs) || nvs[r].Start >= to {
		return "", 0, false
	}
	if between := trimSpaces(text[nvs[last].End:nvs[r].Start]); between != "=" && between != "≈" {
		return "", 0, false
	}
	rp := uint8(nvs[r].Period)
	for j := range nvs {
		// a result with no period takes the one the same value prints
		// in the sentence: "6 588 kr på ett år, eftersom 12 × 549 kr =
		// 6 588 kr"
		if rp != 0 || nvs[j].Start >= to {
			break
		}
		if o := &nvs[j]; o.Start >= from && o.Canonical == nvs[r].Canonical && o.Unit == nvs[r].Unit {
			rp = uint8(o.Period)
		}
	}
	p := uint8(op.Period)
	if p == 0 && op.Citation >= 0 && int(op.Citation) < len(sources) && sources[op.Citation] != nil {
		// the operand's period as the snippet that grounds it prints it
		// (a table cell's, its column's: "Pris per månad")
		v, _ := parseDec(op.Canonical)
		for _, o := range sources[op.Citation].operands() {
			if o.key.period != 0 && o.v.cmp(v) == 0 && (op.Unit == 0 || o.key.unit == uint8(op.Unit)) {
				p = o.key.period
				break
			}
		}
	}
	if p == 0 || rp == 0 {
		return "", 0, false
	}
	a, b, ok := convertible(p, rp)
	if !ok {
		return "", 0, false
	}
	// × from the shorter period to the longer, ÷ the other way
	long, short := b.size, a.size
	if divide {
		long, short = a.size, b.size
	}
	f, ok := quo(long, short)
	v, ok2 := parseDec(nv.Canonical)
	if !ok || !ok2 || f.cmp(v) != 0 {
		return "", 0, false
	}
	lp, sp := names[rp], names[p]
	if divide {
		lp, sp = sp, lp
	}
	return "1 " + lp + " = " + nv.Text + " " + sp + "s", op.Citation, true
}
