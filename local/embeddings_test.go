package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/groundwire/groundwire/lambda"
)

// The -embeddings flags, from the command line and the environment;
// dense retrieval is off by default.
func TestEmbeddingsFlags(t *testing.T) {
	def, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil || def.Embeddings != "" || def.EmbedTimeout != lambda.DefaultEmbeddingsTimeout || def.EmbedWeight != lambda.DefaultEmbeddingsWeight {
		t.Fatalf("defaults: %+v, %v", def, err)
	}
	env := map[string]string{"GROUNDWIRE_EMBEDDINGS": "http://localhost:11434/v1", "GROUNDWIRE_EMBEDDINGS_MODEL": "nomic-embed-text"}
	cfg, err := parseConfig([]string{"-embeddings-timeout", "500ms", "-embeddings-cache", "/tmp/x", "-embeddings-weight", "0.5"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Embeddings != env["GROUNDWIRE_EMBEDDINGS"] || cfg.EmbedModel != "nomic-embed-text" ||
		cfg.EmbedTimeout != 500*time.Millisecond || cfg.EmbedCache != "/tmp/x" || cfg.EmbedWeight != 0.5 {
		t.Errorf("%+v, %v", cfg, err)
	}
	for _, bad := range [][]string{
		{"-embeddings", "http://localhost:11434/v1"}, // no model
		{"-embeddings", "localhost:11434", "-embeddings-model", "m"},
		{"-embeddings-timeout", "0"},
		{"-embeddings-weight", "0"},
		{"-embeddings-weight", "-1"},
		{"-embeddings-weight", "NaN"},
		{"-embeddings-weight", "+Inf"},
	} {
		if _, err := parseConfig(bad, func(string) string { return "" }, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// wire puts dense retrieval in front of the embedded knowledge base, with
// the key from the environment and the vectors in the cache directory; an
// endpoint that is down leaves the server starting with lexical search.
func TestWireEmbeddings(t *testing.T) {
	var requests atomic.Int32
	var down atomic.Bool
	var auth atomic.Value
	auth.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		auth.Store(r.Header.Get("Authorization"))
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			out.Data = append(out.Data, item{i, []float32{float32(len(text)%7) + 1, float32(strings.Count(text, "kr")), 1}})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	env := map[string]string{"GROUNDWIRE_EMBEDDINGS_API_KEY": "emb-key", "OPENAI_API_KEY": "sk-openai"}
	for _, c := range []struct {
		name  string
		down  bool
		dense bool
		log   string
	}{
		{"up", false, true, "dense retrieval on"},
		{"down", true, false, "searching the knowledge base lexically only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			down.Store(c.down)
			cfg := defaultConfig()
			cfg.NoWASM = true
			cfg.Embeddings, cfg.EmbedModel, cfg.EmbedCache = srv.URL+"/v1", "m", t.TempDir()
			logs := &lockedBuffer{}
			d, err := wire(cfg, slog.New(slog.NewTextHandler(logs, nil)), func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			dr, ok := d.Retriever.(*lambda.DenseRetriever)
			if !ok || d.Dense != dr || dr.Dense() != c.dense {
				t.Fatalf("retriever %T, dense %v", d.Retriever, ok && dr.Dense())
			}
			if !strings.Contains(logs.String(), c.log) {
				t.Errorf("log:\n%s", logs)
			}
			if hits := d.Retriever.Search("What does Premium cost?", 3); len(hits) == 0 {
				t.Error("no hits")
			}
			files, _ := filepath.Glob(filepath.Join(cfg.EmbedCache, "embeddings-*.bin"))
			if len(files) != map[bool]int{true: 1, false: 0}[c.dense] {
				t.Errorf("cache files %v", files)
			}
		})
	}
	if auth.Load() != "Bearer emb-key" {
		t.Errorf("Authorization %q", auth.Load())
	}
}

func TestEmbeddingsKey(t *testing.T) {
	for _, c := range []struct{ url, own, base, want string }{
		{"http://localhost:11434/v1", "", "", ""},                                  // Ollama: OpenAI's key stays home
		{"https://api.openai.com/v1", "", "", "sk-openai"},                         // OpenAI's own endpoint
		{"http://localhost:8000/v1", "", "http://localhost:8000/v1/", "sk-openai"}, // the chat model's server
		{"http://localhost:8000/v1", "own", "", "own"},
		{"http://api.openai.com/v1", "", "", ""}, // not over plain http
	} {
		if got := lambda.EmbeddingsKey(c.url, c.own, "sk-openai", c.base); got != c.want {
			t.Errorf("%+v: %q", c, got)
		}
	}
}
