package guardrail

import "testing"

// checkWords runs f, which reads a qualifier of a quantity in a text, on
// each text of cases and checks what it reads.
func checkWords(t *testing.T, f func(text string) uint8, cases map[string]uint8) {
	t.Helper()
	for text, want := range cases {
		if got := f(text); got != want {
			t.Errorf("%q: %d, want %d", text, got, want)
		}
	}
}

// TestBoundBefore: the words before a quantity that make it a bound (the
// quantity is the last rune of each text).
func TestBoundBefore(t *testing.T) {
	checkWords(t, func(text string) uint8 { return boundBefore(text, len(text)-1) }, map[string]uint8{
		"up to 6":                boundUpper,
		"Up to 6":                boundUpper,
		"at most 6":              boundUpper,
		"a maximum of 6":         boundUpper,
		"Max. 6":                 boundUpper,
		"no more than 6":         boundUpper,
		"högst 6":                boundUpper,
		"upp till 6":             boundUpper,
		"inte mer än 6":          boundUpper,
		"at least 6":             boundLower,
		"a minimum of 6":         boundLower,
		"min 6":                  boundLower,
		"no fewer than 6":        boundLower,
		"minst 6":                boundLower,
		"som minst 6":            boundLower,
		"inte färre än 6":        boundLower,
		"more than 6":            boundLower,
		"over 6":                 boundOver,
		"fler än 6":              boundLower,
		"below 6":                boundUpper,
		"fewer than 6":           boundUpper,
		"from 6":                 0,
		"to 6":                   0,
		"the minimum. 6":         0,
		"6":                      0,
		"within 6":               0,
		"cost 50 kr less than 6": boundUpper,
		"under 6":                boundUnder,
	})
}

// TestTaxAfter: the words after a price that say whether it includes tax.
func TestTaxAfter(t *testing.T) {
	checkWords(t, func(text string) uint8 { return taxAfter(text, Extract(text)[0].End) }, map[string]uint8{
		"399 kr inkl. moms.":                        taxIncluded,
		"399 kr inklusive moms":                     taxIncluded,
		"399 kr med moms":                           taxIncluded,
		"$20/month, tax included":                   taxIncluded,
		"399 kr/month (VAT included)":               taxIncluded,
		"399 kr including VAT":                      taxIncluded,
		"399 kr exkl. moms.":                        taxExcluded,
		"399 kr + moms":                             taxExcluded,
		"$20/month plus tax":                        taxExcluded,
		"$20/month plus sales tax":                  taxExcluded,
		"399 kr exclusive of VAT":                   taxExcluded,
		"399 kr, VAT not included":                  taxExcluded,
		"399 kr, moms tillkommer":                   taxExcluded,
		"500 kr ex. VAT, monthly fee 99 kr":         taxExcluded,
		"399 kr":                                    0,
		"399 kr. VAT is included.":                  0,
		"399 kr with monthly billing and VAT":       0,
		"399 kr and 20 kr VAT":                      0,
		"399 kr, which is what the tax office says": 0,
	})
}

// TestBoundAfter: the words after a quantity that make it a bound, and
// when a stream must wait for more text to tell.
func TestBoundAfter(t *testing.T) {
	end := func(text string) int { return Extract(text)[0].End }
	checkWords(t, func(text string) uint8 { b, _ := boundAfter(text, end(text)); return b }, map[string]uint8{
		"aged 65 or older.":          boundLower,
		"3 devices or more,":         boundLower,
		"2 GB or less.":              boundUpper,
		"3 or fewer devices":         boundUpper,
		"3 enheter eller fler.":      boundLower,
		"barn 12 år eller yngre.":    boundUpper,
		"500 kr and up.":             boundLower,
		"65 and over.":               boundLower,
		"500 kr och uppåt.":          boundLower,
		"ages 18+ only":              boundLower,
		"20-plus contenders":         boundLower,
		"5+3 is eight":               0,
		"3 devices and more users":   0, // "and more" is no bound
		"3 devices or a phone":       0,
		"3 big devices or more":      0, // two words between
		"399 kr or 4 788 kr a year.": 0,
		"20-plush toys":              0,
		"65 or so.":                  0,
	})
	for _, text := range []string{"65", "65 or", "65 or old", "20-pl", "18+", "3 devices"} {
		if _, pending := boundAfter(text, end(text)); !pending {
			t.Errorf("%q: not pending, but more text could make a bound", text)
		}
	}
	for _, text := range []string{"65.", "65 or older.", "3 devices, or more", "20-plus contenders"} {
		if _, pending := boundAfter(text, end(text)); pending {
			t.Errorf("%q: pending, but no more text can change it", text)
		}
	}
}

// TestPricesTax: the sentences that say all prices include or exclude tax.
func TestPricesTax(t *testing.T) {
	checkWords(t, pricesTax, map[string]uint8{
		"All prices are in Swedish kronor (SEK) and include 25 % VAT.": taxIncluded,
		"Alla priser är i svenska kronor och inklusive 25 % moms.":     taxIncluded,
		"Prices include VAT.":                                             taxIncluded,
		"Priserna är exklusive moms.":                                     taxExcluded,
		"Premium: 399 kr/month. All our prices exclude VAT.":              taxExcluded,
		"Alla priser: moms tillkommer.":                                   taxExcluded,
		"Prices for companies are quoted excluding VAT.":                  0,
		"Business prices exclude VAT.":                                    0,
		"Prices include VAT for consumers and exclude VAT for companies.": 0,
		"All prices include VAT. Prices exclude VAT.":                     0,
		"All prices are in Swedish kronor.":                               0,
		"VAT is included in the Premium price.":                           0,
		"":                                                                0,
	})
}
