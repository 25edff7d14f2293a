package guardrail

// Tax: whether a price includes tax, as the words right after it say
// ("399 kr exkl. moms", "$20/month plus tax", "129 kr excl. VAT", "399 kr
// inkl. moms", "VAT included", "moms tillkommer"): within the four words
// after the quantity (before another number or the end of its sentence),
// a word for the tax (VAT, moms, tax) with a word that includes or
// excludes it right before it ("excl.", "ex", "plus", "+", "before",
// "without", "utan"; "incl.", "including", "inkl.", "med", "with",
// "after"; also after "sales" or "of": "plus sales tax", "exclusive of
// VAT") or right after it ("included", "ingår"; "excluded", "extra",
// "tillkommer", "not included"). See qualifiers.go for what it changes.

// Tax kinds.
const (
	taxIncluded uint8 = 1 + iota
	taxExcluded
)

// taxWords are the words for a tax on a price and those that include or
// exclude it.
var taxWords = newWordSet(table(`
	tax = vat moms momsen tax taxes
	in = incl incl. including inclusive inc inc. inkl inkl. inklusive med with after
	ex = excl excl. excluding exclusive ex ex. exkl exkl. exklusive utan plus before without
	in-after = included inkluderad inkluderat ingår
	ex-after = excluded extra tillkommer
	skip = sales of
	not = not inte`))

// taxAfter returns whether the quantity of text that ends at end is
// printed with its tax included or excluded, or 0.
func taxAfter(text string, end int) uint8 {
	tax, _ := taxRead(text, end)
	return tax
}

// taxPending reports whether more text after text could change what
// taxAfter says of the quantity that ends at end (the words it reads run
// to the end of text): a stream waits for them.
func taxPending(text string, end int) bool {
	_, pending := taxRead(text, end)
	return pending
}

// taxRead is taxAfter, and reports whether the words it reads run to the
// end of text.
func taxRead(text string, end int) (uint8, bool) {
	// The spans of the words (a '+' is one), told apart at once from a
	// word for the tax, which most texts after a number do not hold.
	var spans [5][2]int
	n, i, tax, last := 0, end, -1, false
	for n < len(spans) && i < len(text) && !last {
		switch c := text[i]; {
		case c == ' ' || c == ',' || c == '(' || c == ')' || c == ':':
			i++
			continue
		case c == '+':
			spans[n], n, i = [2]int{i, i + 1}, n+1, i+1
			continue
		case !isLetterByte(c):
			n = len(spans) // a digit, the end of the sentence, …
			continue
		}
		j := i
		for j < len(text) && isLetterByte(text[j]) {
			j++
		}
		if tax < 0 && n < 4 && taxNoun(text[i:j]) {
			tax = n
		}
		if j < len(text) && text[j] == '.' {
			j++ // "excl.", "inkl."; or the end of a sentence ("moms.")
			last = !taxAbbreviation(text[i:j])
		}
		spans[n], n, i = [2]int{i, j}, n+1, j
	}
	pending := n < len(spans) && i >= len(text)
	if tax < 0 {
		return 0, pending
	}
	kind := func(k int) string {
		if k < 0 || k >= n {
			return ""
		}
		w := text[spans[k][0]:spans[k][1]]
		if w == "+" {
			return "ex"
		}
		var buf [12]byte
		if len(w) > len(buf) {
			return ""
		}
		return taxWords.value(lowerInto(buf[:0], trimSuffix(w, ".")))
	}
	b := tax - 1
	for kind(b) == "skip" {
		b--
	}
	switch before, after := kind(b), kind(tax+1); {
	case before == "in" || after == "in-after":
		return taxIncluded, false
	case before == "ex" || after == "ex-after":
		return taxExcluded, false
	case after == "not" && kind(tax+2) == "in-after":
		return taxExcluded, false // "VAT not included"
	}
	return 0, pending
}

// taxNoun reports whether w is a word for a tax on a price (VAT, moms,
// tax), in any case.
func taxNoun(w string) bool {
	if len(w) < 3 || len(w) > 6 {
		return false
	}
	switch w[0] | 0x20 {
	case 'v', 'm', 't':
		var buf [6]byte
		return taxWords.value(lowerInto(buf[:0], w)) == "tax"
	}
	return false
}

// taxAbbreviation reports whether w, a word and a '.', is an abbreviation
// of taxWords ("excl.", "inkl.") rather than the end of a sentence.
func taxAbbreviation(w string) bool {
	var buf [8]byte
	if len(w) > len(buf) {
		return false
	}
	v := taxWords.value(lowerInto(buf[:0], w))
	return v == "in" || v == "ex"
}
