package lambda

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwire/groundwire/kb"
)

// embeddingsServer is a stand-in OpenAI-compatible embeddings endpoint:
// each text is a bag of its words hashed into 32 dimensions.
type embeddingsServer struct {
	*httptest.Server
	requests atomic.Int32
	texts    atomic.Int32
	mode     atomic.Value // "", "fail" (HTTP 500) or "hang"
	auth     atomic.Value // the Authorization header last seen
}

func newEmbeddingsServer(t *testing.T) *embeddingsServer {
	s := &embeddingsServer{}
	done := make(chan struct{})
	s.mode.Store("")
	s.auth.Store("")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		s.auth.Store(r.Header.Get("Authorization"))
		switch s.mode.Load() {
		case "fail":
			http.Error(w, `{"error":"model not loaded"}`, http.StatusInternalServerError)
			return
		case "hang":
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.texts.Add(int32(len(req.Input)))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i := len(req.Input) - 1; i >= 0; i-- { // in any order: by index
			out.Data = append(out.Data, item{i, hashEmbed(req.Input[i])})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(done) }) // first: a hung request ends
	return s
}

func hashEmbed(text string) []float32 {
	v := make([]float32, 32)
	v[0] = 0.01
	kb.Words(text, func(w string) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%32]++
	})
	return v
}

// syncBuffer is a log sink safe for the server's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func denseRetriever(t *testing.T, srv *embeddingsServer, cache string) (*DenseRetriever, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	d, err := NewDenseRetriever(EmbeddingsConfig{
		URL: srv.URL + "/v1/", Model: "test-embed", APIKey: "sk-test", CacheDir: cache, Timeout: 200 * time.Millisecond,
	}, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	return d, logs
}

func hitKeys(hits []Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Snippet.File+":"+strconv.Itoa(h.Snippet.Line))
	}
	return strings.Join(out, " ")
}

// Loading embeds every snippet in batches, with progress in the log; a
// second load with the same cache directory sends nothing.
func TestDenseRetrieverLoadAndCache(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv := newEmbeddingsServer(t)
	cache := t.TempDir()
	d, logs := denseRetriever(t, srv, cache)
	if err := d.Load(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	batches := (base.Len() + 63) / 64
	if !d.Dense() || int(srv.texts.Load()) != base.Len() || int(srv.requests.Load()) != batches {
		t.Fatalf("dense %v, %d requests for %d texts; want %d for %d", d.Dense(), srv.requests.Load(), srv.texts.Load(), batches, base.Len())
	}
	if srv.auth.Load() != "Bearer sk-test" {
		t.Errorf("Authorization %q", srv.auth.Load())
	}
	if n := strings.Count(logs.String(), "embedding the knowledge base"); n < 2 || n > batches ||
		!strings.Contains(logs.String(), "done=64 of="+strconv.Itoa(base.Len())) ||
		!strings.Contains(logs.String(), "done="+strconv.Itoa(base.Len())+" of="+strconv.Itoa(base.Len())) {
		t.Errorf("%d progress lines for %d batches, want the first and the last:\n%s", n, batches, logs)
	}
	if !strings.Contains(logs.String(), "dense retrieval on") || !strings.Contains(logs.String(), "cached=0") {
		t.Errorf("log:\n%s", logs)
	}
	const q = "What does Premium cost?"
	hits := d.Search(q, 3)
	if len(hits) == 0 || int(srv.requests.Load()) != batches+1 {
		t.Fatalf("search: %v, %d requests", hitKeys(hits), srv.requests.Load())
	}
	// a hit the lexical pool lacks scores at most the similarity
	// ranking's first place: its weight over c + 1
	lex := base.Search(q, 10)
	for _, h := range hits {
		if !strings.Contains(" "+hitKeys(lex)+" ", " "+hitKeys([]Hit{h})+" ") && h.Score > DefaultEmbeddingsWeight/11 {
			t.Errorf("%s scores %v without a lexical rank", hitKeys([]Hit{h}), h.Score)
		}
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache dir holds %d files, want 1", len(entries))
	}

	before := srv.requests.Load()
	d2, logs2 := denseRetriever(t, srv, cache)
	if err := d2.Load(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	if srv.requests.Load() != before || !d2.Dense() {
		t.Errorf("second load: %d requests, dense %v", srv.requests.Load()-before, d2.Dense())
	}
	if !strings.Contains(logs2.String(), "cached="+strconv.Itoa(base.Len())) {
		t.Errorf("second load's log:\n%s", logs2)
	}
	if got := hitKeys(d2.Search(q, 3)); got != hitKeys(hits) {
		t.Errorf("from the cache: %s, from the endpoint: %s", got, hitKeys(hits))
	}
}

// An endpoint down at load: the base is searched lexically, with a warning.
func TestDenseRetrieverDownAtLoad(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv := newEmbeddingsServer(t)
	srv.mode.Store("fail")
	d, logs := denseRetriever(t, srv, "")
	if err := d.Load(t.Context(), base); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("Load: %v", err)
	}
	if d.Dense() {
		t.Error("dense after a failed load")
	}
	for _, q := range []string{"What does Premium cost?", "Vad kostar HBO Max?", "hur säger jag upp"} {
		if got, want := hitKeys(d.Search(q, 3)), hitKeys(base.Search(q, 3)); got != want {
			t.Errorf("%q: %s, want the lexical %s", q, got, want)
		}
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "lexically") {
		t.Errorf("log:\n%s", logs)
	}
}

// An endpoint that fails or hangs on a message: that message gets the
// lexical hits, a warning is logged, and the endpoint is left alone for a
// while (no message waits for it).
func TestDenseRetrieverDownPerQuery(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"fail", "hang"} {
		t.Run(mode, func(t *testing.T) {
			srv := newEmbeddingsServer(t)
			d, logs := denseRetriever(t, srv, "")
			if err := d.Load(t.Context(), base); err != nil {
				t.Fatal(err)
			}
			srv.mode.Store(mode)
			const q = "How do I get my money back?"
			start := time.Now()
			if got, want := hitKeys(d.Search(q, 3)), hitKeys(base.Search(q, 3)); got != want || got == "" {
				t.Errorf("%s, want the lexical %s", got, want)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %v", took)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "searching lexically only for 30s") {
				t.Errorf("log:\n%s", logs)
			}
			n := srv.requests.Load()
			if got, want := hitKeys(d.Search("What does Family cost?", 3)), hitKeys(base.Search("What does Family cost?", 3)); got != want {
				t.Errorf("paused: %s, want %s", got, want)
			}
			if srv.requests.Load() != n {
				t.Error("the endpoint was asked again within the pause")
			}
			// after the pause, it is asked again
			d.queries.mu.Lock()
			d.queries.until = time.Time{}
			d.queries.mu.Unlock()
			srv.mode.Store("")
			d.Search("What does Family cost?", 3)
			if srv.requests.Load() != n+1 {
				t.Errorf("after the pause: %d requests", srv.requests.Load()-n)
			}
		})
	}
}

func TestEmbeddingsConfig(t *testing.T) {
	for _, c := range []struct {
		url, want string
	}{
		{"http://localhost:11434/v1", "http://localhost:11434/v1/embeddings"},
		{"http://localhost:11434/v1/", "http://localhost:11434/v1/embeddings"},
		{"https://api.openai.com/v1/embeddings", "https://api.openai.com/v1/embeddings"},
	} {
		got, err := EmbeddingsConfig{URL: c.url, Model: "m"}.endpoint()
		if err != nil || got != c.want {
			t.Errorf("%s: %s, %v", c.url, got, err)
		}
	}
	for _, bad := range []EmbeddingsConfig{{URL: "localhost:11434", Model: "m"}, {URL: "ftp://x/v1", Model: "m"}, {URL: "http://x/v1"},
		{URL: "http://x/v1", Model: "m", Weight: -1}, {URL: "http://x/v1", Model: "m", Weight: math.Inf(1)}, {URL: "http://x/v1", Model: "m", Weight: math.NaN()}} {
		if _, err := NewDenseRetriever(bad, nil); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// A damaged cache file is an empty cache: everything is embedded again.
func TestEmbeddingsCacheDamaged(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv := newEmbeddingsServer(t)
	cache := t.TempDir()
	d, _ := denseRetriever(t, srv, cache)
	if err := d.Load(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(cache)
	path := cache + "/" + entries[0].Name()
	data, _ := os.ReadFile(path)
	os.WriteFile(path, data[:len(data)/2], 0o644) // cut in the middle of a record
	before := srv.texts.Load()
	d2, _ := denseRetriever(t, srv, cache)
	if err := d2.Load(t.Context(), base); err != nil || !d2.Dense() {
		t.Fatal(err)
	}
	sent := int(srv.texts.Load() - before)
	if sent == 0 || sent >= base.Len() {
		t.Errorf("%d texts sent again; want those past the cut only", sent)
	}
}

// With dense retrieval on, the answer path still gets the lexical search's
// confidence: a message the base answers only in part is "low", not taken
// as "high" because the retriever has no Find of its own.
func TestDenseRetrieverConfidence(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	srv := newEmbeddingsServer(t)
	d, _ := denseRetriever(t, srv, t.TempDir())
	if err := d.Load(t.Context(), base); err != nil {
		t.Fatal(err)
	}
	if !d.Dense() {
		t.Fatal("dense retrieval is off after a good load")
	}
	msgs, err := os.ReadFile("../testdata/retrieval.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[kb.Confidence]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(msgs)), "\n") {
		var m struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Query == "" {
			continue
		}
		want := base.Find(m.Query, 2*3).Confidence
		_, got := search(d, m.Query, 3, English)
		if got != want {
			t.Errorf("%q: confidence %q with dense retrieval, %q from the lexical search", m.Query, got, want)
		}
		seen[want]++
	}
	if seen[kb.ConfidenceLow] == 0 || seen[kb.ConfidenceHigh] == 0 {
		t.Errorf("the messages should hold both levels: %v", seen)
	}
}
