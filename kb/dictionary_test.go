package kb

import (
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
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
	for _, l := range []string{wordsEN, wordsSV, usesEN, lemmasEN} {
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

func TestSortedGet(t *testing.T) {
	list := "# header\nb 1\nbb 22\nc\nd 4\n"
	for key, want := range map[string]string{"b": "1", "bb": "22", "c": "", "d": "4"} {
		got, ok := sortedGet(list, key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got, key)
	}
	for _, key := range []string{"", "a", "b 1", "ba", "bbb", "e"} {
		_, ok := sortedGet(list, key)
		assert.False(t, ok, key)
	}
	// every line of the generated table of uses is a stem and a count
	for line := range strings.Lines(usesEN) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		stem, n, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		got, found := sortedGet(usesEN, stem)
		assert.True(t, ok && found && got == n, line)
	}
}

func TestSpecificity(t *testing.T) {
	// common English words count less in the ranking than rare ones, and a
	// word the tagged corpus never uses counts fully
	be, consider, calendar := specificity("be"), specificity("considering"), specificity("calendar")
	assert.Less(t, be, consider)
	assert.Less(t, consider, calendar)
	assert.Less(t, calendar, 1.0)
	assert.InDelta(t, 0.67, be, 0.01)
	assert.Equal(t, 1.0, specificity("chromebook"))
	assert.Equal(t, 1.0, specificity("lagringstillägget"))
	// in a Swedish message every word counts fully
	base, err := Default()
	assert.NoError(t, err)
	assert.Less(t, base.idx.info("make", English).spec, 1.0)
	assert.Equal(t, 1.0, base.idx.info("make", Swedish).spec)
}

// An irregular English form is also stemmed as its base form (WordNet's
// exception lists), and keeps its own stem; Swedish words are not.
func TestIrregularForms(t *testing.T) {
	for form, base := range map[string]string{"sent": "send", "earliest": "early", "children": "child", "found": "find", "left": "leave"} {
		ss := stems(form, English, nil)
		assert.Contains(t, ss, english.Stem(form, true), form)
		assert.Contains(t, ss, english.Stem(base, true), form)
		assert.Contains(t, stems(form, "", nil), english.Stem(base, true), form)
	}
	assert.Equal(t, []string{"send"}, stems("sends", English, nil), "a regular form")
	assert.Equal(t, []string{stemSwedish("men")}, stems("men", Swedish, nil))

	b := mapBase(t, map[string]string{
		"a.md": "# The app\n\nThe app stopped when the phone was locked.\n",
		"b.md": "# The app\n\nThe app froze when the phone was locked.\n",
	})
	hits := where(b.Search("why does the app freeze", 2))
	if assert.NotEmpty(t, hits) {
		assert.Equal(t, "b.md:3", hits[0])
	}
}
