package guardrail

import "regexp"

var simpleNumber = regexp.MustCompile(`\+?\d+(?:[.,]\d+)*%?`)

// Extract returns every number in text, in order of appearance.
func Extract(text string) []Number {
	var out []Number
	for _, m := range simpleNumber.FindAllStringIndex(text, -1) {
		t := text[m[0]:m[1]]
		out = append(out, Number{Text: t, Canonical: t, Kind: KindInteger, Start: m[0], End: m[1]})
	}
	return out
}
