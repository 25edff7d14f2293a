package kb

import (
	"slices"
	"testing"
)

// Two answers of one question (two files under the same heading) do not
// both come before a third file's answer to another question that scores
// nearly as well; two snippets of one file's section keep their order.
func TestSearchDuplicateAnswers(t *testing.T) {
	q := "# How do I export my contacts?\n\n"
	files := map[string]string{
		"a1.md": q + "A: Export the contacts from the contacts page: export, then save.\n",
		"a2.md": q + "A: Export contacts from the contacts page.\n",
		"b.md":  "# Export a calendar\n\nA: Export the calendar and its contacts from the calendar page.\n",
	}
	b := mapBase(t, files)
	hits := b.Search("export contacts", 3)
	if got, want := where(hits), []string{"a1.md:3", "b.md:3", "a2.md:3"}; !slices.Equal(got, want) {
		t.Errorf("hits %v, want %v", got, want)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hit %d scores %v, more than the hit before it (%v)", i+1, hits[i].Score, hits[i-1].Score)
		}
	}
	// with the same words in a heading of its own (no question mark), the
	// second answer scores above b.md's: the shared heading moved it down
	files["a2.md"] = "# How do I export my contacts\n\n" + files["a2.md"][len(q):]
	if got, want := where(mapBase(t, files).Search("export contacts", 3)), []string{"a1.md:3", "a2.md:3", "b.md:3"}; !slices.Equal(got, want) {
		t.Errorf("without duplicates: hits %v, want %v", got, want)
	}

	// one file's section: its snippets keep their order
	one := mapBase(t, map[string]string{
		"a.md": q + "Export the contacts from the contacts page.\n\nExport contacts, then save the contacts file.\n",
		"b.md": files["b.md"],
	})
	if got, want := where(one.Search("export contacts", 3)), []string{"a.md:3", "a.md:5", "b.md:3"}; !slices.Equal(got, want) {
		t.Errorf("one file: hits %v, want %v", got, want)
	}
}
