package lambda

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/groundwire/groundwire/kb"
)

// DenseRetriever searches a knowledge base lexically and, while the
// embeddings endpoint answers, by the similarity of embedding vectors too,
// the two rankings fused (kb.Dense). The endpoint failing never fails a
// search: at load, the base is searched lexically from then on; for a
// message, that message is searched lexically, and so is every message for
// the next 30 seconds (no message waits for an endpoint known to be down);
// each with a warning logged. It is safe for concurrent use.
type DenseRetriever struct {
	cfg     EmbeddingsConfig
	log     *slog.Logger
	queries *breaker    // the endpoint, for messages
	docs    *diskCache  // the endpoint through the cache, for snippets (nil: no cache)
	http    kb.Embedder // the endpoint with the timeout of a batch
	cur     atomic.Pointer[denseState]
	mu      sync.Mutex // serialises Load
}

type denseState struct {
	base  *kb.Base
	dense *kb.Dense // nil: lexical search only
}

// queryPause is how long messages are searched lexically after the
// endpoint failed one.
const queryPause = 30 * time.Second

// progressEvery spaces the progress lines of a load (the first batch and
// the last are always logged).
const progressEvery = 2 * time.Second

// errPaused is what the breaker says while the endpoint is left alone.
var errPaused = errors.New("embeddings endpoint failed recently; not asked")

// NewDenseRetriever returns a retriever with nothing loaded: call Load.
func NewDenseRetriever(cfg EmbeddingsConfig, log *slog.Logger) (*DenseRetriever, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultEmbeddingsTimeout
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e, err := newHTTPEmbedder(cfg)
	if err != nil {
		return nil, err
	}
	d := &DenseRetriever{cfg: cfg, log: log, queries: &breaker{inner: e, pause: queryPause}}
	d.http = timeoutEmbedder{e, 30 * cfg.Timeout}
	if cfg.CacheDir != "" {
		d.docs = newDiskCache(d.http, cfg, e.url, func(err error) {
			log.Warn("embeddings: cannot write the cache; vectors are kept in memory", "err", err.Error())
		})
	}
	return d, nil
}

// Load makes base the knowledge base searched, embedding its snippets
// (those in the cache are not sent) with a progress line in the log after
// the first batch, every 2 seconds, and at the end. When that fails, base is searched lexically (a warning is logged)
// and the error is returned. Searches keep the base they started with.
func (d *DenseRetriever) Load(ctx context.Context, base *kb.Base) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	start := time.Now()
	var docs kb.Embedder = d.http
	hits0 := 0
	if d.docs != nil {
		docs = d.docs
		hits0 = d.docs.hitCount()
	}
	var last time.Time
	dense, err := kb.NewDense(ctx, base, d.queries, kb.DenseOptions{
		Documents:    docs,
		Batch:        d.cfg.Batch,
		Weight:       d.cfg.Weight,
		QueryTimeout: d.cfg.Timeout,
		Progress: func(done, total int) {
			if now := time.Now(); done == total || now.Sub(last) >= progressEvery {
				last = now
				d.log.Info("embeddings: embedding the knowledge base", "done", done, "of", total)
			}
		},
		Warn: d.warn,
	})
	if err != nil {
		d.cur.Store(&denseState{base: base})
		d.log.Warn("embeddings: the endpoint failed; searching the knowledge base lexically only", "err", err.Error(), "url", d.cfg.URL)
		return err
	}
	cached := 0
	if d.docs != nil {
		cached = d.docs.hitCount() - hits0
	}
	d.cur.Store(&denseState{base: base, dense: dense})
	d.log.Info("embeddings: dense retrieval on", "snippets", base.Len(), "cached", cached, "model", d.cfg.Model, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

func (d *DenseRetriever) warn(err error) {
	if errors.Is(err, errPaused) {
		d.log.Debug("embeddings: searching lexically", "err", err.Error())
		return
	}
	d.log.Warn(fmt.Sprintf("embeddings: the endpoint failed; searching lexically only for %v", queryPause), "err", err.Error(), "url", d.cfg.URL)
}

// Dense reports whether the current base is searched densely too.
func (d *DenseRetriever) Dense() bool {
	st := d.cur.Load()
	return st != nil && st.dense != nil
}

// Search implements [Retriever].
func (d *DenseRetriever) Search(query string, k int) []Hit {
	st := d.cur.Load()
	switch {
	case st == nil:
		return nil
	case st.dense != nil:
		return st.dense.Search(query, k)
	}
	return st.base.Search(query, k)
}

// Find implements finder: the hits of Search with the lexical search's
// confidence.
func (d *DenseRetriever) Find(query string, k int) kb.Result {
	st := d.cur.Load()
	switch {
	case st == nil:
		return kb.Result{}
	case st.dense != nil:
		return st.dense.Find(query, k)
	}
	return st.base.Find(query, k)
}

var (
	_ Retriever = (*DenseRetriever)(nil)
	_ finder    = (*DenseRetriever)(nil)
)

// timeoutEmbedder bounds each call of its inner embedder.
type timeoutEmbedder struct {
	inner kb.Embedder
	d     time.Duration
}

func (t timeoutEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, t.d)
	defer cancel()
	return t.inner.Embed(ctx, texts)
}

// breaker leaves the endpoint alone for a pause after it failed.
type breaker struct {
	inner kb.Embedder
	pause time.Duration
	mu    sync.Mutex
	until time.Time
}

func (b *breaker) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	b.mu.Lock()
	paused := time.Now().Before(b.until)
	b.mu.Unlock()
	if paused {
		return nil, errPaused
	}
	vs, err := b.inner.Embed(ctx, texts)
	if err != nil {
		b.mu.Lock()
		b.until = time.Now().Add(b.pause)
		b.mu.Unlock()
	}
	return vs, err
}
