package guardrail

import "testing"

// TestBoundBefore: the words before a quantity that make it a bound.
func TestBoundBefore(t *testing.T) {
	for text, want := range map[string]uint8{
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
		"under 6":                0,
	} {
		if got := boundBefore(text, len(text)-1); got != want {
			t.Errorf("%q: bound %d, want %d", text, got, want)
		}
	}
}
