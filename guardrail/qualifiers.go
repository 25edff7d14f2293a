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
	if q.bound == 0 {
		q.bound, _ = boundAfter(text, n.End) // "65 or older", "20+"
	}
	if q.bound == boundOver || q.bound == boundUnder {
		if f := scales[n.Unit].family; f == secondFamily || f == monthFamily {
			q.bound = 0 // "over 7 days", "under 30 dagar": during them
		} else if q.bound == boundOver {
			q.bound = boundLower // "over 500 kr"
		} else {
			q.bound = boundUpper // "under 500 kr"
		}
	}
	return q
}

// agrees reports whether a snippet's qualifier q may stand with an
// answer's a.
func (q qualifier) agrees(a qualifier) bool {
	return (q.bound == 0 || a.bound == 0 || q.bound == a.bound) && (q.tax == 0 || a.tax == 0 || q.tax == a.tax)
}

// qualifiedNumber is a number of a snippet, by index into its Numbers,
// printed with the qualifier q.
type qualifiedNumber struct {
	k int32
	q qualifier
}

// qualifiedNumbers returns the numbers of text, nums, that it prints with
// a qualifier: its own words', or else its table column's (quals, from
// bindCells; nil outside tables).
func qualifiedNumbers(text string, nums []Number, quals []qualifier) []qualifiedNumber {
	var out []qualifiedNumber
	for k := range nums {
		q := qualifierOf(text, &nums[k])
		if quals != nil {
			if q.bound == 0 {
				q.bound = quals[k].bound
			}
			if q.tax == 0 {
				q.tax = quals[k].tax
			}
		}
		if q != (qualifier{}) {
			out = append(out, qualifiedNumber{int32(k), q})
		}
	}
	return out
}

// headerQualifier returns what a table's header cell h, lower-cased, says
// of its numbers' bound and tax: a bound word first ("max users",
// "minimum seats", "högst"; not "min", which may be minutes), and the tax
// as the words after a price say it ("price excl. vat", "pris inkl.
// moms").
func headerQualifier(h string) qualifier {
	var q qualifier
	i := 0
	for i < len(h) && h[i] == ' ' {
		i++
	}
	j := i
	for j < len(h) && (isLetterByte(h[j]) || h[j] == '.') {
		j++
	}
	if w := h[i:j]; w != "min" && w != "min." { // (minutes too, see readHeader)
		q.bound = boundWord(w)
	}
	q.tax = taxAfter(h, 0)
	return q
}

// checkQualifiers makes ungrounded each grounded number of nvs, numbers
// of text, whose qualifier every snippet quantity of its value and attrs
// contradicts (see above), and reports whether it made none. A price of a
// snippet that says nothing of its tax takes what a cited snippet says of
// all prices' ("All prices include VAT"; see pricesTax).
func checkQualifiers(text string, nvs []NumberVerdict, sources []*Source) bool {
	qualified := false
	for _, src := range sources {
		qualified = qualified || len(src.qualified) > 0
	}
	var all uint8 // what the sources say of all prices' tax, once asked
	allRead := false
	allTax := func() uint8 {
		if !allRead {
			all, allRead = pricesTaxOf(sources), true
		}
		return all
	}
	ok := true
	for k := range nvs {
		nv := &nvs[k]
		if nv.State != Grounded {
			continue
		}
		var q qualifier
		switch {
		case qualified && qualifiedValue(sources, nv.Canonical):
			q = qualifierOf(text, &nv.Number)
		case nv.Unit.Currency():
			// A price that says its tax, against a snippet that says
			// all prices' ("All prices include VAT"): read only then.
			if q.tax = taxAfter(text, nv.End); q.tax == 0 || allTax() == 0 {
				continue
			}
		}
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
				sq := src.qualifierAt(m)
				if sq.tax == 0 && n.Unit.Currency() {
					sq.tax = allTax() // "All prices include VAT"
				}
				agrees = agrees || sq.agrees(q)
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
			if src.Numbers[m.k].Canonical == c {
				return true
			}
		}
	}
	return false
}

// qualifierAt returns the qualifier of the snippet's number k.
func (s *Source) qualifierAt(k int) qualifier {
	for _, m := range s.qualified {
		if int(m.k) == k {
			return m.q
		}
	}
	return qualifier{}
}

// qualifierPending reports whether more text after text could change the
// qualifier of the quantity that ends at end: the words that may say its
// tax or bound run to the end of text (a stream waits for them).
func qualifierPending(text string, end int) bool {
	_, pending := boundAfter(text, end)
	return pending || taxPending(text, end)
}

// pricesTaxOf returns what the sources say of all prices' tax (see
// pricesTax), or 0 when none says or they disagree.
func pricesTaxOf(sources []*Source) uint8 {
	var out uint8
	for _, src := range sources {
		if t := src.pricesTax(); t != 0 {
			if out != 0 && out != t {
				return 0
			}
			out = t
		}
	}
	return out
}

// taxedValue reports whether a stream must wait for the words after a
// grounded number of unit u and value c before it is settled: a snippet
// prints c with a qualifier, or says all prices' tax and u is a currency.
func taxedValue(sources []*Source, c string, u Unit) bool {
	return qualifiedValue(sources, c) || u.Currency() && pricesTaxOf(sources) != 0
}

// pricesTax returns what a sentence of the snippet says of all prices' tax
// (see the function pricesTax), read when first asked for.
func (s *Source) pricesTax() uint8 {
	v := s.allTax.Load()
	if v == 0 {
		v = uint32(pricesTax(s.Text)) + 1
		s.allTax.Store(v)
	}
	return uint8(v - 1)
}
