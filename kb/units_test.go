package kb

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnitOf(t *testing.T) {
	for w, want := range map[string]string{
		"gigs": "GB", "gigabytes": "GB", "gb": "GB", "megs": "MB", "minutes": "minute", "kilos": "kg",
		"dollars": "", "kr": "", "price": "", "storage": "", "g": "",
	} {
		assert.Equal(t, want, unitOf(wordUnit(w)), w)
	}
}

// TestUnitWords: a word that names a unit matches the base's words for the
// same unit (and no other unit's).
func TestUnitWords(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	var exps expansions
	require.True(t, base.idx.unit(&exps, "gigs"))
	has := func(stem string) bool {
		return slices.ContainsFunc(exps, func(e expansion) bool { return e.stem == stem })
	}
	assert.True(t, has("gb"), "%v", exps)
	assert.False(t, has("tb"), "%v", exps)
	exps = nil
	assert.False(t, base.idx.unit(&exps, "kilos"), "the base names no mass")
	r := base.Find("how many gigs do I get on Premium", 3)
	require.NotEmpty(t, r.Hits)
}

func TestCurrencyName(t *testing.T) {
	for w, want := range map[string]bool{
		"dollars": true, "euro": true, "pund": true, "yen": true, "kronor": true,
		"usd": false, "try": false, "pen": false, "price": false, "kr": false, "days": false, "gb": false,
	} {
		assert.Equal(t, want, currencyName(w, wordUnit(w)), w)
	}
}
