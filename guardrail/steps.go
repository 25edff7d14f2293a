package guardrail

// A step of arithmetic the answer prints must hold. In "3 × 199 kr = 597
// kr" the number after "=" is the value of the two numbers right before
// it and the sign between them (+, −, ×, x, *, ·, ÷ or /). It must be
// that value within half a unit of its last printed digit. A printed step
// that does not hold blocks its result, whatever else grounds it (a
// snippet's 598 kr, or another operation that gives it): the answer shows
// arithmetic that is wrong. A step with "≈" (rounded), with words, a
// parenthesis or a third number in it, or with a number that is no plain
// value (a percent, a date, a time, an ambiguous "1,000") is not checked,
// nor one the snippet that grounds its result prints as it is (the answer
// quotes it).

// checkSteps makes the result of each printed step that does not hold
// ungrounded (see above) and reports whether none does not.
func checkSteps(text string, nvs []NumberVerdict, sources []*Source) bool {
	held := true
	for k := 2; k < len(nvs) && indexByte(text, '=') >= 0; k++ {
		if falseStep(text, nvs, k, sources) {
			unground(&nvs[k])
			held = false
		}
	}
	return held
}

// unground makes nv ungrounded.
func unground(nv *NumberVerdict) {
	nv.State, nv.Grounded, nv.Citation, nv.Derivation = Ungrounded, false, -1, nil
}

// falseStep reports whether nvs[k], a number of text, is the result of a
// step the text prints that does not hold, and that the source its result
// cites does not print as it is (see above).
func falseStep(text string, nvs []NumberVerdict, k int, sources []*Source) bool {
	if k < 2 || trimSpaces(text[nvs[k-1].End:nvs[k].Start]) != "=" {
		return false
	}
	var v [3]float64
	for i := range v {
		n := &nvs[k-2+i]
		d, ok := parseDec(n.Canonical)
		if !ok || n.Kind != KindInteger && n.Kind != KindDecimal && n.Kind != KindGrouped && n.Kind != KindWords {
			return false
		}
		v[i] = d.float()
	}
	// A sign before the first number: a longer step, not checked.
	for i := nvs[k-2].Start - 1; i >= 0 && i >= nvs[k-2].Start-3; i-- {
		if c := text[i]; c != ' ' {
			// (the last bytes of −, × and of ÷ or ·)
			if c == '+' || c == '-' || c == '*' || c == '/' || c == ')' || c == 0x92 || c == 0x97 || c == 0xB7 {
				return false
			}
			break
		}
	}
	x, y := v[0], v[1]
	sign := trimSpaces(text[nvs[k-2].End:nvs[k-1].Start])
	if divide, ok := factorOp(sign); ok {
		if !divide {
			x *= y
		} else if x /= y; y == 0 {
			return false
		}
	} else if sign == "+" {
		x += y
	} else if sign == "-" || sign == "−" {
		x -= y
	} else {
		return false
	}
	half := printedUnit(nvs[k].Text, nvs[k].Canonical).float() / 2
	if abs(x-v[2]) <= half*(1+1e-9)+1e-9 {
		return false
	}
	// quoted from the snippet that grounds its result, wrong or not
	c := int(nvs[k].Citation)
	return c < 0 || c >= len(sources) || sources[c] == nil || !contains(sources[c].Text, text[nvs[k-2].Start:nvs[k].End])
}
