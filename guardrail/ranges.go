package guardrail

// A range prints its scale, unit, percent or period once, after its second
// end: "$230–240 million" is $230 million to $240 million, "5 to 6 million
// euros" 5 million euros to 6 million, "10–15 percent" 10 % to 15 %, "8
// to 10 a.m." 8 a.m. to 10 a.m., "från 109 kr till 129 kr per månad" 109 kr
// per månad to 129 kr per månad. Its first end, printed bare (or with the
// second's unit and no period), states that quantity: in an answer it is
// grounded as that quantity (see deriver.derive), and in a snippet it is
// indexed as that quantity and nothing else (see NewSource) and is an
// operand as that quantity (see Source.operands). A range runs upwards,
// so a first end above the second takes no scale ("from 500 to 6 million"
// keeps 500); a unit alone it takes in any order ("kept for 12 and 6
// months": 12 months).

// rangeStart returns the quantity the first end a of a range a–b states:
// where a prints nothing after its digits and b something, a's text (with
// b's currency before the digits when a has none) and what follows b's
// digits, read as one quantity, at a's place in text; where a prints b's
// unit after its digits and b a period too, a with b's period ("från 109
// kr till 129 kr per månad"); or, where a prints a scale word and no unit
// and b a scale word and a unit,
// a's text and b's unit ("5 million to 6 million euros"). ok is false
// where a and b are not both plain numbers, the text between them joins no
// range (see rangeBetween), b prints nothing after its digits, or b's
// scale would take a's value above b's (a unit alone is shared in any
// order: "12 and 6 months").
func rangeStart(text string, a, b *Number) (n Number, ok bool) {
	if !plain(a.Kind) || !plain(b.Kind) && b.Kind != KindPercent && b.Kind != KindTime || a.Period != 0 || a.End > b.Start || b.End > len(text) ||
		!rangeBetween(text[a.End:b.Start]) {
		return Number{}, false
	}
	bt := text[b.Start:b.End]
	i := 0 // b's digits are [i,j)
	for i < len(bt) && !isDigit(rune(bt[i])) {
		i++
	}
	j := i
	for j < len(bt) && (isDigit(rune(bt[j])) || (bt[j] == '.' || bt[j] == ',' || bt[j] == ' ') && j+1 < len(bt) && isDigit(rune(bt[j+1]))) {
		j++
	}
	if i == len(bt) || j == len(bt) {
		return Number{}, false // nothing after b's digits
	}
	at, after := text[a.Start:a.End], bt[j:]
	if !isDigit(rune(at[len(at)-1])) {
		if a.Unit != 0 && a.Unit == b.Unit && b.Period != 0 {
			// a prints b's unit, b a period too: a takes it ("från
			// 109 kr till 129 kr per månad")
			n = *a
			n.Period = b.Period
			return n, true
		}
		// a prints its scale but no unit, b both: a takes b's unit
		// ("5 million and 6 million euros")
		if a.Unit != 0 || !scaleWords.has([]byte(lowerString(lastWord(at+" ")))) {
			return Number{}, false
		}
		w := firstWord(after)
		if !scaleWords.has([]byte(lowerString(w))) || len(after) == 1+len(w) {
			return Number{}, false
		}
		after = after[1+len(w):]
	}
	if i > 0 && isDigit(rune(at[0])) {
		at = bt[:i] + at // "5–$6 million"
	}
	ns := Extract(at + after)
	if len(ns) != 1 || ns[0].Start != 0 || ns[0].End != len(at)+len(after) || !plain(ns[0].Kind) && ns[0].Kind != KindPercent && ns[0].Kind != KindTime {
		return Number{}, false
	}
	if ns[0].Kind == KindTime || b.Kind == KindTime {
		// "8 to 10 a.m.": both times, the first the earlier
		if ns[0].Kind != b.Kind || ns[0].Canonical > b.Canonical {
			return Number{}, false
		}
		n = ns[0]
		n.Text, n.Start, n.End = a.Text, a.Start, a.End
		return n, true
	}
	// A scale is shared upwards only: a's value scaled is at most b's. A
	// unit alone is shared either way ("12 and 6 months").
	if ns[0].Canonical != a.Canonical && trimSuffix(ns[0].Canonical, "%") != a.Canonical {
		x, ok1 := parseDec(trimSuffix(ns[0].Canonical, "%"))
		y, ok2 := parseDec(trimSuffix(b.Canonical, "%"))
		if !ok1 || !ok2 || x.cmp(y) > 0 {
			return Number{}, false
		}
	}
	n = ns[0]
	n.Text, n.Start, n.End = a.Text, a.Start, a.End
	return n, true
}

// rangeStarts returns the quantities the first ends of the ranges among
// nums, the numbers of text in order, state (see rangeStart).
func rangeStarts(text string, nums []Number) []Number {
	var out []Number
	for k := 0; k+1 < len(nums); k++ {
		if n, ok := rangeStart(text, &nums[k], &nums[k+1]); ok {
			out = append(out, n)
		}
	}
	return out
}

// rangeDay returns the date that a day number of a range of days states
// where the range's other end is a date that prints the month: the first
// day before a date printed day first ("3–9 mars 2025": 3 mars 2025, "24
// and 25 December": 24 December), or the second day after one printed
// month first ("March 3–9": March 9, "December 24 and 31"); of the
// date's month and year, the day the digits say. A range runs upwards:
// the first day is before the date's, the second after it.
func rangeDay(text string, day, date *Number, first bool) (n Number, ok bool) {
	lo, hi := date, day
	if first {
		lo, hi = day, date
	}
	if day.Kind != KindInteger || len(day.Canonical) > 2 || date.Kind != KindDate || lo.End > hi.Start || hi.End > len(text) ||
		!rangeBetween(text[lo.End:hi.Start]) || isDigit(rune(date.Text[0])) != first {
		return Number{}, false
	}
	y, md := dateParts(date.Canonical)
	d := digitsValue(day.Canonical)
	if len(md) != len("12-31") || d < 1 || d > 31 || (d < digitsValue(md[3:])) != first || d == digitsValue(md[3:]) {
		return Number{}, false
	}
	n = *day
	n.Kind, n.Canonical = KindDate, "--"+md[:2]+"-"+pad2(d)
	if y != "" {
		n.Canonical = y + n.Canonical[1:]
	}
	return n, true
}
