package lambda

import (
	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

// Snippet is one retrieved snippet: 1–3 lines of a markdown file, with its
// path, line and numbers (kb.Snippet).
type Snippet = kb.Snippet

// Hit is one search result (kb.Hit).
type Hit = kb.Hit

// Retriever searches the knowledge base; *kb.Base and *kb.Reloader satisfy
// it. It must be safe for concurrent use.
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

var (
	_ Retriever = (*kb.Base)(nil)
	_ Retriever = (*kb.Reloader)(nil)
)
