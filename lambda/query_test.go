package lambda

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// TestRetrievalQuery: the mock's trigger word is taken out of the query
// wherever it stands and however it is written, and letters whose lower
// case is longer or shorter than they are ("Ⱥ" → "ⱥ", "İ" → "i") before
// it neither cut the text elsewhere nor run past its end (which panicked).
func TestRetrievalQuery(t *testing.T) {
	for in, want := range map[string]string{
		"hallucinate: what does Premium cost?":    "what does Premium cost?",
		"$say HALLUCINATE what does Premium cost": "what does Premium cost",
		"what does Premium cost?":                 "what does Premium cost?",
		"ȺȺȺȺȺȺȺȺȺȺ hallucinate the price":        "ȺȺȺȺȺȺȺȺȺȺ  the price",
		"İİİİ Hallucinate the price":              "İİİİ  the price",
		"\u212a\u212a hallucinat":                 "\u212a\u212a hallucinat",
	} {
		assert.Equal(t, want, retrievalQuery(in), in)
	}
	for _, r := range []string{"Ⱥ", "İ", "\u212a", "ẞ", "Ω"} {
		for n := range 40 {
			in := strings.Repeat(r, n) + " hallucinate x"
			got := retrievalQuery(in)
			assert.True(t, utf8.ValidString(got), "%q → %q", in, got)
			assert.Equal(t, strings.TrimSpace(strings.Repeat(r, n)+"  x"), got, in)
		}
	}
}
