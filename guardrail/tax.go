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

// pricesWords are the words that make a sentence speak of all prices ("All
// prices include VAT", "Alla priser är inklusive moms", "Prices exclude
// VAT"), with the words that include or exclude a tax there.
var pricesWords = newWordSet(table(`
	all = all alla
	prices = prices priser priserna
	be = are is är anges visas shown quoted stated listed given
	in = include includes including incl incl. inclusive inkl inkl. inklusive included ingår
	ex = exclude excludes excluding excl excl. exclusive exkl exkl. exklusive excluded tillkommer`))

// pricesTax returns what a sentence of text that speaks of all prices says
// of their tax (taxIncluded or taxExcluded): a sentence that holds a word
// for the tax (VAT, moms, tax), a word that includes or one that excludes
// it, and either "all prices" ("alla priser") or, as its first words,
// "prices" ("priser", "priserna") and a verb that includes or excludes or
// one of being or stating ("Prices include", "Priserna är", "Priserna
// anges", "Prices shown"; not "Prices for companies"), which may follow
// a label and a colon ("Note: prices exclude VAT"). A sentence that says
// both, or sentences that disagree, say nothing. It reads only texts
// that name a tax, which most texts do not (mentionsTax tells them at
// once).
func pricesTax(text string) uint8 {
	if !mentionsTax(text) {
		return 0 // most texts: one pass over their words' first letters
	}
	var out uint8
	for from := 0; from < len(text); {
		to := from
		for to < len(text) && text[to] != '\n' && !((text[to] == '.' || text[to] == '!' || text[to] == '?') && (to+1 == len(text) || text[to+1] == ' ' || text[to+1] == '\n')) {
			to++
		}
		if t := sentenceTax(text[from:to]); t != 0 {
			if out != 0 && out != t {
				return 0
			}
			out = t
		}
		from = to + 1
	}
	return out
}

// sentenceTax is pricesTax for one sentence.
func sentenceTax(s string) uint8 {
	var tax, all, prices, lead bool // lead: "prices" began the sentence, the next word is to tell
	var in, ex bool
	n := 0
	for i := 0; i < len(s); {
		if !isLetterByte(s[i]) {
			if s[i] == ':' {
				n = 0 // after a label: "Note: prices exclude VAT"
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isLetterByte(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' && j-i <= 4 {
			j++ // "incl.", "exkl."
		}
		w := s[i:j]
		if lead {
			// "Prices include VAT", "Priserna är inklusive moms"; not
			// "Prices for companies …", which speaks of some
			var buf [24]byte
			v := ""
			if len(w) <= 12 {
				v = pricesWords.value(lowerInto(buf[:0], w))
			}
			prices, lead = v == "in" || v == "ex" || v == "be", false
		}
		if taxNoun(trimSuffix(w, ".")) {
			tax = true
		} else if len(w) <= 12 {
			var buf [24]byte
			switch pricesWords.value(lowerInto(buf[:0], w)) {
			case "all":
				all = true
			case "prices":
				prices = prices || all
				lead = !prices && n == 0
			case "in":
				in = true
			case "ex":
				ex = true
			}
		}
		n++
		i = j
	}
	switch {
	case !tax || !prices || in == ex:
		return 0
	case in:
		return taxIncluded
	}
	return taxExcluded
}

// mentionsTax reports whether text holds a word for a tax (see taxNoun).
func mentionsTax(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i] | 0x20; (c == 'v' || c == 'm' || c == 't') && (i == 0 || !isLetterByte(text[i-1])) {
			j := i
			for j < len(text) && isLetterByte(text[j]) {
				j++
			}
			if taxNoun(text[i:j]) {
				return true
			}
		}
	}
	return false
}
