package kb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Embedder turns texts into vectors (dense retrieval): one vector per
// text, in order, all of one length. Implementations do the I/O (an
// embeddings endpoint, a cache on disk); kb only calls them. They must be
// safe for concurrent use.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// DenseOptions configure [NewDense]. The zero value is the defaults.
type DenseOptions struct {
	// Documents embeds the snippets at load (e.g. through a cache on
	// disk); nil: the Embedder given to NewDense.
	Documents Embedder
	// Batch is how many snippets one call of Documents embeds (default 64).
	Batch int
	// Progress is called after each batch with the snippets embedded so
	// far and their number (may be nil).
	Progress func(done, total int)
	// QueryTimeout bounds embedding one message (default 2 s).
	QueryTimeout time.Duration
	// Warn is told each failure to embed a message; the search then
	// answers from the lexical ranking alone (may be nil).
	Warn func(error)
	// Pool is how many of each ranking are fused (default 10).
	Pool int
	// RRFK is the constant of reciprocal rank fusion (default 10).
	RRFK int
	// Weight is what the similarity ranking counts in the fusion, the
	// lexical ranking counting 1 (0: [DefaultDenseWeight]).
	Weight float64
}

// DefaultDenseWeight is the similarity ranking's default weight in the
// fusion: a third of the lexical ranking's. With an embedding model that
// ranks these snippets worse alone than the lexical search does (the
// Universal Sentence Encoder: StackFAQ recall@3 0.73 against 0.91), equal
// weights made search worse than the lexical search alone, a third made it
// better (README, "Dense retrieval"). Raise it for a model that does better.
const DefaultDenseWeight = 0.33

// Dense is a [Base] searched lexically and by the similarity of embedding
// vectors, the two rankings fused by reciprocal rank fusion ([FuseRRF]).
// The similarity ranking holds only snippets in the message's language
// when the base has any (the lexical search ranks the others lower; a
// model that embeds both languages alike would otherwise bring an English
// answer's Swedish twin along).
// The lexical search keeps the last word on whether a message is answered
// at all: a message it finds nothing for (off topic, under the relevance
// floor) gets nothing, since a similarity has no threshold that means
// "nothing relevant" across embedding models. Dense is safe for concurrent
// use.
type Dense struct {
	base  *Base
	emb   Embedder
	vecs  [][]float32     // per snippet, unit length
	langs map[string]bool // the languages of the snippets
	opts  DenseOptions
	mu    sync.Mutex
	query map[string][]float32 // recent messages' vectors
}

// maxCachedQueries bounds Dense's cache of message vectors.
const maxCachedQueries = 1024

// DenseText is what is embedded for a snippet: its heading trail, then
// its text.
func DenseText(s *Snippet) string {
	if s.Heading == "" {
		return s.Text
	}
	return s.Heading + "\n" + s.Text
}

// NewDense embeds every snippet of b ([DenseText]) in batches and returns
// the dense search over b. It fails when the embedder does, or returns
// vectors of different or zero lengths; the caller then searches b alone.
func NewDense(ctx context.Context, b *Base, emb Embedder, opts DenseOptions) (*Dense, error) {
	if opts.Documents == nil {
		opts.Documents = emb
	}
	if opts.Batch <= 0 {
		opts.Batch = 64
	}
	if opts.QueryTimeout <= 0 {
		opts.QueryTimeout = 2 * time.Second
	}
	if opts.Pool <= 0 {
		opts.Pool = 10
	}
	if opts.RRFK <= 0 {
		opts.RRFK = 10
	}
	if opts.Weight <= 0 || math.IsNaN(opts.Weight) || math.IsInf(opts.Weight, 0) {
		opts.Weight = DefaultDenseWeight
	}
	d := &Dense{base: b, emb: emb, opts: opts, vecs: make([][]float32, 0, b.Len()), langs: map[string]bool{}, query: map[string][]float32{}}
	texts := make([]string, b.Len())
	for i, s := range b.Snippets() {
		texts[i] = DenseText(s)
		if s.Lang != "" {
			d.langs[s.Lang] = true
		}
	}
	for start := 0; start < len(texts); start += opts.Batch {
		batch := texts[start:min(start+opts.Batch, len(texts))]
		vs, err := opts.Documents.Embed(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("kb: embedding snippets %d–%d of %d: %w", start+1, start+len(batch), len(texts), err)
		}
		if len(vs) != len(batch) {
			return nil, fmt.Errorf("kb: embedding snippets: %d vectors for %d texts", len(vs), len(batch))
		}
		for _, v := range vs {
			u, err := unit(v)
			if err != nil {
				return nil, fmt.Errorf("kb: embedding snippets: %w", err)
			}
			if len(d.vecs) > 0 && len(u) != len(d.vecs[0]) {
				return nil, fmt.Errorf("kb: embedding snippets: vectors of %d and %d dimensions", len(d.vecs[0]), len(u))
			}
			d.vecs = append(d.vecs, u)
		}
		if opts.Progress != nil {
			opts.Progress(len(d.vecs), len(texts))
		}
	}
	return d, nil
}

// unit returns v scaled to length 1 (cosine similarity is then a dot
// product).
func unit(v []float32) ([]float32, error) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if len(v) == 0 || n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, errors.New("an empty, zero or non-finite vector")
	}
	n = math.Sqrt(n)
	u := make([]float32, len(v))
	for i, x := range v {
		u[i] = float32(float64(x) / n)
	}
	return u, nil
}

// Base returns the knowledge base searched.
func (d *Dense) Base() *Base { return d.base }

// Search returns the k best snippets for query (k <= 0: [DefaultK]), as
// [Dense.Find] does.
func (d *Dense) Search(query string, k int) []Hit { return d.Find(query, k).Hits }

// Find returns the k best snippets for query (k <= 0: [DefaultK]): the
// lexical ranking and the ranking by similarity to the message's vector,
// each up to the pool's size, fused, with the lexical search's confidence
// (a similarity has no "nothing relevant" level that holds across models).
// Nothing when the lexical search finds nothing; the lexical ranking alone
// when the message cannot be embedded (Warn is told).
func (d *Dense) Find(query string, k int) Result {
	if k <= 0 {
		k = DefaultK
	}
	// What is found at all, and how surely, is the lexical search's for k
	// hits, as without dense retrieval (it may differ for a larger pool).
	res := d.base.Find(query, k)
	if len(res.Hits) == 0 {
		return Result{}
	}
	lex := res.Hits
	if d.opts.Pool > k {
		lex = d.base.Search(query, d.opts.Pool)
	}
	qv, err := d.embedQuery(query)
	if err != nil {
		if d.opts.Warn != nil {
			d.opts.Warn(err)
		}
		res.Hits = lex[:min(k, len(lex))]
		return res
	}
	lang := detectLang(query)
	if !d.langs[lang] {
		lang = "" // no snippet in it: every snippet is ranked
	}
	fused := FuseRRF(d.opts.RRFK, Ranking{lex, 1}, Ranking{d.nearest(qv, max(k, d.opts.Pool), lang), d.opts.Weight})
	res.Hits = fused[:min(k, len(fused))]
	return res
}

func (d *Dense) embedQuery(query string) ([]float32, error) {
	d.mu.Lock()
	v, ok := d.query[query]
	d.mu.Unlock()
	if ok {
		return v, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.opts.QueryTimeout)
	defer cancel()
	vs, err := d.emb.Embed(ctx, []string{query})
	if err == nil && len(vs) != 1 {
		err = fmt.Errorf("%d vectors for 1 text", len(vs))
	}
	if err == nil {
		v, err = unit(vs[0])
	}
	if err == nil && len(v) != len(d.vecs[0]) {
		err = fmt.Errorf("a vector of %d dimensions for the message, %d for the snippets", len(v), len(d.vecs[0]))
	}
	if err != nil {
		return nil, fmt.Errorf("kb: embedding the message: %w", err)
	}
	d.mu.Lock()
	if len(d.query) >= maxCachedQueries {
		clear(d.query)
	}
	d.query[query] = v
	d.mu.Unlock()
	return v, nil
}

// nearest returns the n snippets most similar to the unit vector qv, most
// similar first (ties in file order), scored by cosine similarity; only
// snippets in language lang or in none, unless lang is "".
func (d *Dense) nearest(qv []float32, n int, lang string) []Hit {
	hits := make([]Hit, 0, n+1)
	for i, v := range d.vecs {
		if l := d.base.snippets[i].Lang; lang != "" && l != "" && l != lang {
			continue
		}
		var dot float32
		for j, x := range v {
			dot += x * qv[j]
		}
		h := Hit{Snippet: d.base.snippets[i], Score: float64(dot)}
		if len(hits) == n && h.Score <= hits[n-1].Score {
			continue
		}
		at, _ := slices.BinarySearchFunc(hits, h.Score, func(x Hit, s float64) int {
			if x.Score >= s {
				return -1
			}
			return 1
		})
		hits = slices.Insert(hits, at, h)
		if len(hits) > n {
			hits = hits[:n]
		}
	}
	return hits
}

// Ranking is a list of hits, best first, and its weight in [FuseRRF].
type Ranking struct {
	Hits   []Hit
	Weight float64
}

// FuseRRF fuses rankings by weighted reciprocal rank fusion: a snippet
// scores the sum of weight/(c + rank) over the rankings that hold it (rank
// 1 first), and the result is ordered by that score, ties in the order the
// snippets first appear in the rankings (the first ranking first). Each
// snippet appears once.
func FuseRRF(c int, rankings ...Ranking) []Hit {
	score := map[*Snippet]float64{}
	var order []*Snippet
	for _, r := range rankings {
		for i, h := range r.Hits {
			if h.Snippet == nil {
				continue
			}
			if _, ok := score[h.Snippet]; !ok {
				order = append(order, h.Snippet)
			}
			score[h.Snippet] += r.Weight / float64(c+i+1)
		}
	}
	out := make([]Hit, len(order))
	for i, s := range order {
		out[i] = Hit{Snippet: s, Score: score[s]}
	}
	slices.SortStableFunc(out, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}
