package lambda

import "github.com/groundwire/groundwire/guardrail"

// Snippet is one retrieved snippet: 1–3 lines of a markdown file. It has the
// shape of kb.Snippet (and becomes an alias of it once package kb lands).
type Snippet struct {
	File   string // like "kb/pricing.md"
	Line   int    // 1-based
	Text   string
	Source *guardrail.Source // Text with its numbers extracted; may be nil
}

// Hit is one search result (the shape of kb.Hit).
type Hit struct {
	Snippet *Snippet
	Score   float64
}

// Retriever searches the knowledge base. It must be safe for concurrent use.
// Search returns at most k hits, best first, and none when nothing is
// relevant.
type Retriever interface {
	Search(query string, k int) []Hit
}

// citations turns hits into the client's citations and the verification
// sources, in the same order.
func citations(hits []Hit) ([]Citation, []*guardrail.Source) {
	cites := make([]Citation, 0, len(hits))
	srcs := make([]*guardrail.Source, 0, len(hits))
	for _, h := range hits {
		if h.Snippet == nil {
			continue
		}
		s := h.Snippet
		cites = append(cites, Citation{File: s.File, Line: s.Line, Snippet: s.Text})
		src := s.Source
		if src == nil {
			src = guardrail.NewSource(s.Text)
		}
		srcs = append(srcs, src)
	}
	return cites, srcs
}
