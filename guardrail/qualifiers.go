package guardrail

// Qualifiers: what a text prints beside a quantity that changes what it
// states without changing its value, unit or period: a bound ("up to 6",
// see bounds.go) and whether a price includes tax ("399 kr exkl. moms",
// see tax.go). A quantity with a qualifier is grounded only by a snippet
// quantity of the same value, unit and period whose qualifiers do not
// contradict it: where both print one of a kind, the same one. Only the
// values a snippet prints with a qualifier are looked at, so the check
// costs nothing for the others.

// qualifier is what a text prints beside a quantity: its bound and tax.
type qualifier struct{ bound, tax uint8 }

// qualifierOf returns the qualifier of the quantity n of text.
func qualifierOf(text string, n *Number) qualifier {
	q := qualifier{boundBefore(text, n.Start), taxAfter(text, n.End)}
	if q.bound == boundOver {
		q.bound = boundLower // "over 500 kr"
		if f := scales[n.Unit].family; f == secondFamily || f == monthFamily {
			q.bound = 0 // "over 7 days": during them
		}
	}
	return q
}

// agrees reports whether a snippet's qualifier q may stand with an
// answer's a.
func (q qualifier) agrees(a qualifier) bool {
	return (q.bound == 0 || a.bound == 0 || q.bound == a.bound) && (q.tax == 0 || a.tax == 0 || q.tax == a.tax)
}

// qualifiedNumbers returns the indexes of the numbers of text, nums, that
// it prints with a qualifier.
func qualifiedNumbers(text string, nums []Number) []int32 {
	var out []int32
	for k := range nums {
		if qualifierOf(text, &nums[k]) != (qualifier{}) {
			out = append(out, int32(k))
		}
	}
	return out
}

// checkQualifiers makes ungrounded each grounded number of nvs, numbers
// of text, whose qualifier every snippet quantity of its value and attrs
// contradicts (see above), and reports whether it made none.
func checkQualifiers(text string, nvs []NumberVerdict, sources []*Source) bool {
	qualified := false
	for _, src := range sources {
		qualified = qualified || len(src.qualified) > 0
	}
	if !qualified {
		return true
	}
	ok := true
	for k := range nvs {
		nv := &nvs[k]
		if nv.State != Grounded || !qualifiedValue(sources, nv.Canonical) {
			continue
		}
		q := qualifierOf(text, &nv.Number)
		if q == (qualifier{}) {
			continue
		}
		want, found, agrees := attrsOf(&nv.Number), false, false
		for _, src := range sources {
			for m := range src.Numbers {
				n := &src.Numbers[m]
				if n.Canonical != nv.Canonical || !agreeing([]attrs{attrsOf(n)}, want) {
					continue
				}
				found = true
				agrees = agrees || qualifierOf(src.Text, n).agrees(q)
			}
		}
		if found && !agrees {
			nv.State, nv.Grounded, nv.Citation = Ungrounded, false, -1
			ok = false
		}
	}
	return ok
}

// qualifiedValue reports whether a source prints the value c with a
// qualifier.
func qualifiedValue(sources []*Source, c string) bool {
	for _, src := range sources {
		for _, m := range src.qualified {
			if src.Numbers[m].Canonical == c {
				return true
			}
		}
	}
	return false
}
