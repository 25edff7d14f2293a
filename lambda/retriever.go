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

// Sentence is one sentence of a snippet with its words (kb.Sentence).
type Sentence = kb.Sentence

// Retriever searches the knowledge base; *kb.Base and *kb.Reloader satisfy
// it. It must be safe for concurrent use.
// Search returns at most k hits, best first, and none when nothing is
// relevant.
type Retriever interface {
	Search(query string, k int) []Hit
}

// Confidence is how sure retrieval is of its hits (kb.Confidence): "high",
// "low", or "" when nothing was found.
type Confidence = kb.Confidence

// finder is a Retriever that says how sure it is of its hits (*kb.Base,
// *kb.Reloader); with any other, hits are taken with high confidence.
type finder interface {
	Find(query string, k int) kb.Result
}

// search retrieves the top k snippets for query, in the answer's language
// when it can: with a knowledge base written in both English and Swedish, a
// Swedish question is answered from the Swedish files when they have
// anything relevant, and from the others only when they have nothing.
// Snippets of unknown language count as the answer's.
func search(r Retriever, query string, k int, lang Lang) ([]Hit, Confidence) {
	var hits []Hit
	conf := kb.ConfidenceHigh
	if f, ok := r.(finder); ok {
		res := f.Find(query, 2*k)
		hits, conf = res.Hits, res.Confidence
	} else {
		hits = r.Search(query, 2*k)
	}
	if len(hits) == 0 {
		return nil, kb.ConfidenceNone
	}
	same := make([]Hit, 0, k)
	for _, h := range hits {
		if h.Snippet != nil && (h.Snippet.Lang == "" || h.Snippet.Lang == string(lang)) && len(same) < k {
			same = append(same, h)
		}
	}
	if len(same) > 0 {
		return same, conf
	}
	return hits[:min(k, len(hits))], conf
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

// sentences returns the analysed sentences of the hits' snippets, in the
// order of citations; nil when a snippet was not analysed by kb.Load (a
// retriever of its own making).
func sentences(hits []Hit) [][]Sentence {
	out := make([][]Sentence, 0, len(hits))
	for _, h := range hits {
		if h.Snippet == nil {
			continue
		}
		if h.Snippet.Sentences == nil {
			return nil
		}
		out = append(out, h.Snippet.Sentences)
	}
	return out
}

// analysed returns the sentences of each snippet of p: as the knowledge
// base analysed them at load, or analysed here (for the
// mock) when it did not.
func analysed(p Prompt) [][]Sentence {
	if len(p.Sentences) == len(p.Snippets) {
		return p.Sentences
	}
	out := make([][]Sentence, len(p.Snippets))
	for i, c := range p.Snippets {
		out[i] = kb.SentencesOf(c.Snippet)
	}
	return out
}

var (
	_ Retriever = (*kb.Base)(nil)
	_ Retriever = (*kb.Reloader)(nil)
)
