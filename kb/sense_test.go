package kb

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOtherNouns pins which neighbouring words are read as a two-word noun
// of English the base does not hold.
func TestOtherNouns(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	for _, c := range []struct {
		msg, lang string
		want      []string
	}{
		{"how do I file my tax return", English, []string{"return", "tax"}},
		{"what time does the post office close on saturdays", English, []string{"office", "post"}},
		{"is customer service open on christmas eve", English, nil}, // the base writes "Christmas Eve"
		{"what's your phone number", English, nil},                  // and "phone number"
		{"what does the premium plan cost", English, nil},           // no noun of WordNet
		{"vad kostar en tax return", Swedish, nil},                  // English only
	} {
		var toks []string
		tokenize(c.msg, func(w string) { toks = append(toks, w) })
		got := slices.Sorted(maps.Keys(base.idx.otherNouns(toks, c.lang)))
		assert.Equal(t, c.want, got, c.msg)
	}
	// the generated list is sorted and ends in a line break
	var prev string
	for line := range strings.Lines(nounsEN) {
		if !strings.HasPrefix(line, "#") {
			assert.Less(t, prev, line)
			prev = line
		}
	}
	assert.True(t, strings.HasSuffix(nounsEN, "\n"))
	for _, q := range []string{
		"how do I file my tax return",
		"what time does the post office close on saturdays",
	} {
		assert.Empty(t, where(base.Search(q, 3)), q)
	}
	for _, q := range []string{
		"what time do you close on saturdays",
		"is customer service open on christmas eve",
		"Is tax included in the price?",
	} {
		assert.NotEmpty(t, base.Search(q, 3), q)
	}
}
