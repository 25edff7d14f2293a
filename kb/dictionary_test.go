package kb

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSortedHas(t *testing.T) {
	list := "# header\n# more\nb\nbb\nc\nd\nee\n"
	for _, w := range []string{"b", "bb", "c", "d", "ee"} {
		assert.True(t, sortedHas(list, w), w)
	}
	for _, w := range []string{"", "a", "ba", "bbb", "e", "f", "# header"} {
		assert.False(t, sortedHas(list, w), w)
	}
	assert.False(t, sortedHas("a\nb", "b"), "no final line break")
	// the generated lists are sorted and end in a line break
	for _, l := range []string{wordsEN, wordsSV} {
		var prev string
		for line := range strings.Lines(l) {
			if strings.HasPrefix(line, "#") {
				continue
			}
			assert.Less(t, prev, line)
			prev = line
		}
		assert.True(t, strings.HasSuffix(l, "\n"))
	}
}

func TestInDictionary(t *testing.T) {
	for w, want := range map[string]bool{
		"snow": true, "food": true, "dinner": true, "bil": true, "däck": true,
		"mutch": false, "premum": false, "chromebook": false,
	} {
		assert.Equal(t, want, inDictionary(w), w)
	}
}
