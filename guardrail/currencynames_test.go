package guardrail

import (
	"strings"
	"testing"
)

func TestQualifiedCurrencies(t *testing.T) {
	for _, c := range []struct{ text, unit string }{
		{"It costs 5 Canadian dollars.", "CAD"},
		{"It costs 5 canadian dollars.", "CAD"},
		{"It costs 5 Hong Kong dollars.", "HKD"},
		{"It costs 5 New Zealand dollars a month.", "NZD"},
		{"It costs 5 US dollars.", "USD"},
		{"It costs 5 U.S. dollars.", "USD"},
		{"It costs 5 Danish kroner.", "DKK"},
		{"It costs 5 Danish krone.", "DKK"},
		{"Det kostar 5 danska kronor.", "DKK"},
		{"Det kostar 5 norska kronor.", "NOK"},
		{"Det kostar 5 svenska kronor.", "SEK"},
		{"It costs 5 Swedish kronor.", "SEK"},
		{"It costs 5 Swiss francs.", "CHF"},
		{"It costs 5 Mexican pesos.", "MXN"},
		{"It costs 5 million Canadian dollars.", "CAD"},
		{"It costs 5 Jamaican dollars.", "¤"},         // no row: a currency of its own
		{"Det kostar 5 färöiska kronor.", "¤"},        // a Swedish adjective of a country
		{"It costs 5 pesos.", "peso"},                 // which peso is not said
		{"We have 5 Premium users.", ""},              // no currency after the word
		{"It costs 5 Premium $ a month.", ""},         // a symbol is no currency's name
		{"We have 5 companies in Danish kroner.", ""}, // more than two words before it
	} {
		nums := Extract(c.text)
		if len(nums) == 0 {
			t.Errorf("%q: no number", c.text)
			continue
		}
		if got := nums[0].Unit.String(); got != c.unit {
			t.Errorf("%q: unit %q, want %q", c.text, got, c.unit)
		}
	}
}

// TestQualifiedCurrencyHeld checks that hold mode does not release a
// number while the words after it may still make it another currency's.
func TestQualifiedCurrencyHeld(t *testing.T) {
	g := NewStreamGuard(NewSources([]string{"The app costs $5."}))
	var out strings.Builder
	for _, piece := range []string{"The app costs 5 ", "Cana", "dian ", "doll", "ars."} {
		safe, _ := g.Feed(piece)
		out.WriteString(safe)
	}
	safe, v := g.Close()
	out.WriteString(safe)
	if v.Grounded || strings.Contains(out.String(), "5") {
		t.Fatalf("5 Canadian dollars passed for $5: released %q, grounded %v", out.String(), v.Grounded)
	}
}

func TestQualifiedSpecCodes(t *testing.T) {
	for k, v := range qualifiedNames.words {
		unit := nameCode(k[strings.LastIndexByte(k, ' ')+1:]) // "new zealand USD": USD
		c := nameCode(v)
		switch {
		case unit == 0 || c == 0 || c == unknownCurrency || unit == unknownCurrency:
			t.Errorf("%q names %q: no unit", k, v)
		case unit <= lastCurrency && (c > lastCurrency || len(v) != 3):
			t.Errorf("%q names %q: a currency word names no ISO 4217 code of currencySpec", k, v)
		}
	}
}

func TestQualifiedCurrencyForms(t *testing.T) {
	for text, unit := range map[string]string{
		"5 Danish kronor": "DKK", "5 Danish kroner": "DKK", "5 danska kronor": "DKK",
		"5 Norwegian kroner": "NOK", "5 Icelandic kronor": "ISK", "5 Swedish krona": "SEK",
		"5 working days": "workday", "5 business days": "workday", "inom 2 arbetsdagar": "workday",
		"5 calendar days": "day", "5 cents": "cent", "5 pence": "penny", "5 more days": "",
	} {
		if n := Extract(text); len(n) != 1 || n[0].Unit.String() != unit {
			t.Errorf("%q: %+v, want one number in %s", text, n, unit)
		}
	}
}
