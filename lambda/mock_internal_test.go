package lambda

import (
	"testing"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

// Every snippet of the embedded knowledge base reads as sentences that the
// guard finds grounded in it as they are, not through groundedSentences'
// line-by-line fallback: the markdown is cleaned and table rows are said
// without making or breaking a number.
func TestSnippetSentencesGrounded(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range base.Snippets() {
		sents := snippetSentences(s.Text)
		if len(sents) == 0 {
			t.Errorf("%s:%d: no sentence in %q", s.File, s.Line, s.Text)
		}
		for _, ss := range sents {
			if v := guardrail.Verify(ss.text, []*guardrail.Source{s.Source}); !v.Grounded {
				t.Errorf("%s:%d: %q from %q: %+v", s.File, s.Line, ss.text, s.Text, v)
			}
		}
	}
}
