package guardrail

// A span of years is one step of arithmetic the answer shows: "ended in
// 1992, two years after it began in 1990", "from 1921 until his death in
// August 1975, a tenure of 54 years", "i åtta år, 2001–2009". A number of
// whole years (year, decade, century) is derived when it is the
// difference of two years that its own sentence of the answer prints,
// both grounded: a year (1000–2099, with no unit), a date's year, or the
// ends of a range of years. The years are the operands, so they must be
// shown: a span reaching a year that only a snippet prints stays
// ungrounded, as does an age ("54 years old", "aged 54", "54 års ålder"),
// which is no span between the sentence's years. The span must equal the
// difference (a rounding word before it changes nothing: "about 80 years"
// is 80, as derive.go reads a number of two digits), or, after a bound
// ("more than 80 years", "over five decades", "less than 10 years"), the
// difference must lie on the bound's side of it or on it (days in years
// one apart lie from a day to nearly two years apart).

// yearSpan returns the formula and the sources of the operands of
// nvs[k], a number of text whose sentence holds the numbers nvs[lo:hi],
// when it is a span of years (see above).
func yearSpan(text string, nvs []NumberVerdict, k, lo, hi int) (string, []int, bool) {
	nv := &nvs[k]
	// The span, in whole years: a count of years, decades or centuries.
	u := uint8(nv.Unit)
	c := nv.Canonical
	if nv.Kind != KindInteger && nv.Kind != KindWords || nv.Period != 0 || int(u) >= len(scales) || scales[u].family != monthFamily || len(c) > 4 || !isDigits(c) {
		return "", nil, false
	}
	months, ok := scales[u].size.scaled(0)
	if !ok || months%12 != 0 || isAge(text, nv.Start, nv.End) {
		return "", nil, false
	}
	span := int64(digitsValue(c)) * months / 12
	// The years of the sentence, each with the source that grounds it:
	// a year, a date's year, the ends of a range of years.
	var years [8]int64
	var srcs [8]int32
	n := 0
	for j := lo; j < hi && n+2 <= len(years); j++ {
		o := &nvs[j]
		c := o.Canonical
		if j == k || o.State != Grounded || o.Unit != 0 || o.Period != 0 {
			continue
		}
		switch {
		case o.Kind == KindInteger && isYearShaped(c), o.Kind == KindDate && len(c) >= 4 && isYearShaped(c[:4]):
		case o.Kind == KindRange && len(c) == 9 && c[4] == '-' && isYearShaped(c[:4]) && isYearShaped(c[5:]):
			years[n], srcs[n] = int64(digitsValue(c[5:])), o.Citation
			n++
		default:
			continue
		}
		years[n], srcs[n] = int64(digitsValue(c)), o.Citation // (a date's year: the digits before its '-')
		n++
	}
	// The differences that agree with the span.
	least, most := span, span
	switch boundBefore(text, nv.Start) {
	case boundLower, boundOver:
		most = 1 << 62
	case boundUpper, boundUnder:
		least = 1
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if d := years[j] - years[i]; d <= 0 || d < least || d > most {
				continue
			}
			ops := []int{int(srcs[j])}
			if srcs[i] != srcs[j] {
				ops = append(ops, int(srcs[i]))
			}
			return itoa(years[j]) + " − " + itoa(years[i]) + " = " + nv.Text, ops, true
		}
	}
	return "", nil, false
}

// isAge reports whether the number of years at [start,end) of text is an
// age: "54 years old", "a 10-year-old", "aged 54", "54 år gammal", "vid
// 54 års ålder".
func isAge(text string, start, end int) bool {
	if end < len(text) && text[end] == '-' {
		end++
	}
	i, j := wordAfter(text, end)
	var b0 [8]byte
	w0, _ := wordBefore(text, start, b0[:0])
	return ageWords[lowerString(text[i:j])] || string(w0) == "aged"
}

// ageWords are the words after a number of years that make it an age.
var ageWords = wordList("old gammal gamla gammalt ålder åldern")
