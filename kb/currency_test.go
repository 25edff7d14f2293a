package kb

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCurrencyName(t *testing.T) {
	for w, want := range map[string]bool{
		"dollars": true, "euro": true, "pund": true, "yen": true, "kronor": true,
		"usd": false, "try": false, "pen": false, "price": false, "kr": false, "days": false, "gb": false,
	} {
		assert.Equal(t, want, currencyName(w), w)
	}
}
