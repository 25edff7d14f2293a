package kb

// Confidence is how sure a search is that its hits answer the message.
type Confidence string

// The confidence levels of a [Result].
const (
	// ConfidenceNone: nothing found (no hits).
	ConfidenceNone Confidence = ""
	// ConfidenceLow: hits that may answer the message; some of what it
	// asks about is not in them.
	ConfidenceLow Confidence = "low"
	// ConfidenceHigh: hits that cover what the message asks about.
	ConfidenceHigh Confidence = "high"
)

// Result is what [Base.Find] returns: the hits, best first, and how sure
// the search is of them. No hits and ConfidenceNone go together.
type Result struct {
	Hits       []Hit
	Confidence Confidence
	// Coverage is the share (0–1) of the weight of the message's best
	// answered part that its best hit covers (see the package
	// documentation); Unknown the share of that part's weight held by
	// words the knowledge base does not know.
	Coverage, Unknown float64
}

// verdict is what decides a part's confidence: the share of its weight
// that its best hit covers, and the share held by words the knowledge base
// does not know.
type verdict struct{ share, unknown, names float64 }

// better reports a verdict that speaks for its part more than w does.
func (v verdict) better(w verdict) bool {
	return v.share-v.unknown > w.share-w.unknown
}

// answers reports whether a part with verdict v is answered at all: its
// best hit covers at least fl.query of its weight, and words the knowledge
// base does not know (names included) hold less than fl.unknown of it,
// names alone less than fl.names.
func (fl floor) answers(v verdict) bool {
	return v.share >= fl.query && v.unknown < fl.unknown && v.names < fl.names
}

// confidence returns the confidence of an answered verdict.
func (fl floor) confidence(v verdict) Confidence {
	if v.share >= fl.high && v.unknown < fl.highUnknown {
		return ConfidenceHigh
	}
	return ConfidenceLow
}

// Find is [Base.Search] with the search's confidence.
func (b *Base) Find(query string, k int) Result {
	if k <= 0 {
		k = DefaultK
	}
	ranked, v := b.search(query, k, b.opts.floor)
	if len(ranked) == 0 {
		return Result{}
	}
	r := Result{Hits: make([]Hit, len(ranked)), Confidence: b.opts.floor.confidence(v), Coverage: v.share, Unknown: v.unknown}
	for i, h := range ranked {
		r.Hits[i] = h.Hit
	}
	return r
}
