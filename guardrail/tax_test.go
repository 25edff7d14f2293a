package guardrail

import "testing"

// TestTaxAfter: the words after a price that say whether it includes tax.
func TestTaxAfter(t *testing.T) {
	for text, want := range map[string]uint8{
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
	} {
		ns := Extract(text)
		if got := taxAfter(text, ns[0].End); got != want {
			t.Errorf("%q (%q): tax %d, want %d", text, ns[0].Text, got, want)
		}
	}
}
