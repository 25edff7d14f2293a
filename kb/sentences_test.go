package kb

import (
	"testing"

	"github.com/groundwire/groundwire/guardrail"
)

// Every snippet of the embedded knowledge base reads as sentences that the
// guard finds grounded in it as they are, not through groundedSentences'
// line-by-line fallback: the markdown is cleaned and table rows are said
// without making or breaking a number. Load keeps them all.
func TestSnippetSentencesGrounded(t *testing.T) {
	base, err := Default()
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
		if len(s.Sentences) != len(sents) {
			t.Errorf("%s:%d: Load kept %d sentences of %d", s.File, s.Line, len(s.Sentences), len(sents))
		}
	}
}

// SentencesOf (what Load stores on each snippet): each sentence with its
// words and their stems, a table row's header words at half weight.
func TestSentencesOf(t *testing.T) {
	got := SentencesOf("| Plan | Monthly price |\n|---|---|\n| Premium | 399 kr |")
	if len(got) != 1 {
		t.Fatalf("got %d sentences, want 1: %+v", len(got), got)
	}
	s := got[0]
	if s.Text != "Premium — monthly price: 399 kr" || s.Weak || !s.Digit {
		t.Errorf("sentence = %+v", s)
	}
	for term, w := range map[string]float64{"premium": 1, "399": 1, "kr": 1, "monthly": 0.5, "month": 0.5, "plan": 0.5, "price": 0.5} {
		if s.Weight(term) != w {
			t.Errorf("Weight(%q) = %v, want %v", term, s.Weight(term), w)
		}
	}
	if lead := SentencesOf("What each plan costs:"); len(lead) != 1 || !lead[0].Weak {
		t.Errorf("a lead-in is weak: %+v", lead)
	}
	// Joining the lines would make a new number ("1" + "000 kr"): the
	// lines are taken one by one.
	text := "Storage above the plan costs 1\n000 kr a year extra"
	split := SentencesOf(text)
	if len(split) != 2 {
		t.Errorf("got %d sentences, want the 2 lines: %+v", len(split), split)
	}
	for _, s := range split {
		if v := guardrail.Verify(s.Text, []*guardrail.Source{guardrail.NewSource(text)}); !v.Grounded {
			t.Errorf("%q is not grounded in its snippet", s.Text)
		}
	}
}
