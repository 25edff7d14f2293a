package lambda

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/groundwire/groundwire/kb"
)

// EmbeddingsConfig configures dense retrieval through an OpenAI-compatible
// embeddings endpoint (POST {"model", "input": [texts]} → {"data":
// [{"index", "embedding"}]}: OpenAI, Ollama, llama.cpp's server, vLLM,
// text-embeddings-inference). The mains read it from their flags and the
// environment; the package never does.
type EmbeddingsConfig struct {
	// URL of the API ("http://localhost:11434/v1") or of its embeddings
	// endpoint (".../v1/embeddings"). Required.
	URL string
	// Model name (required), e.g. "bge-m3".
	Model  string
	APIKey string // sent as a bearer token when set
	// CacheDir holds the snippets' vectors by content hash, so that a
	// restart embeds only what changed; "" keeps none on disk.
	CacheDir string
	// Timeout bounds embedding one message (default 2 s); a batch of
	// snippets at load gets 30 times as long.
	Timeout time.Duration
	// Batch is how many snippets one request embeds (default 64).
	Batch int
	// Weight is what the similarity ranking counts in the fusion with the
	// lexical one, which counts 1 (0: DefaultEmbeddingsWeight).
	Weight float64
	// HTTPClient to use (default: one without a timeout of its own).
	HTTPClient *http.Client
}

// EmbeddingsKey is the key to send to the embeddings endpoint at
// embeddingsURL: own when set, else the OpenAI model's key (openAIKey)
// when the endpoint is on the host that key is for (openAIBaseURL's, or
// OpenAI's when that is empty), else none: a key is never sent to a host
// it is not for.
func EmbeddingsKey(embeddingsURL, own, openAIKey, openAIBaseURL string) string {
	if own != "" {
		return own
	}
	if openAIBaseURL == "" {
		openAIBaseURL = "https://api.openai.com/v1/"
	}
	e, err1 := url.Parse(embeddingsURL)
	o, err2 := url.Parse(openAIBaseURL)
	if err1 != nil || err2 != nil || e.Host == "" || !strings.EqualFold(e.Host, o.Host) || e.Scheme != o.Scheme {
		return ""
	}
	return openAIKey
}

// DefaultEmbeddingsTimeout bounds embedding one message.
const DefaultEmbeddingsTimeout = 2 * time.Second

// DefaultEmbeddingsWeight is what the similarity ranking counts in the
// fusion, the lexical ranking counting 1.
const DefaultEmbeddingsWeight = kb.DefaultDenseWeight

// endpoint returns the embeddings endpoint of cfg.URL.
func (c EmbeddingsConfig) endpoint() (string, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("embeddings: want an http(s) URL of an OpenAI-compatible API, not %q", c.URL)
	}
	if !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/embeddings") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/embeddings"
	}
	return u.String(), nil
}

// Validate reports what is wrong with cfg.
func (c EmbeddingsConfig) Validate() error {
	if _, err := c.endpoint(); err != nil {
		return err
	}
	if c.Model == "" {
		return errors.New("embeddings: a model name is required")
	}
	if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
		return fmt.Errorf("embeddings: the weight must be a positive number, not %v", c.Weight)
	}
	return nil
}

// httpEmbedder is a kb.Embedder calling the endpoint.
type httpEmbedder struct {
	url, model, key string
	client          *http.Client
}

func newHTTPEmbedder(cfg EmbeddingsConfig) (*httpEmbedder, error) {
	u, err := cfg.endpoint()
	if err != nil {
		return nil, err
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	return &httpEmbedder{url: u, model: cfg.Model, key: cfg.APIKey, client: client}, nil
}

// maxEmbeddingsResponse bounds a response (64 texts × 4,096 dimensions as
// JSON fit well within it).
const maxEmbeddingsResponse = 64 << 20

// Embed implements kb.Embedder.
func (e *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}{e.model, texts, "float"})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if e.key != "" {
		req.Header.Set("Authorization", "Bearer "+e.key)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbeddingsResponse))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s: %s", e.url, resp.Status, snippetOf(data))
	}
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: not an embeddings response: %v", e.url, err)
	}
	if len(out.Data) != len(texts) {
		return nil, fmt.Errorf("%s: %d vectors for %d texts", e.url, len(out.Data), len(texts))
	}
	vecs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("%s: a vector with index %d for %d texts", e.url, d.Index, len(texts))
		}
		vecs[d.Index] = d.Embedding
	}
	return vecs, nil
}

// snippetOf is the start of an error body, on one line.
func snippetOf(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// diskCache is a kb.Embedder that keeps the vectors of the texts it
// embedded in one file per endpoint and model, by the SHA-256 of the
// model's name and the text, and asks its inner embedder only for the
// others. The file is read at the first call and rewritten whole (through
// a temporary file and a rename) after each call that embedded anything.
type diskCache struct {
	inner kb.Embedder
	model string
	path  string
	warn  func(error) // told when the file cannot be written
	mu    sync.Mutex
	vecs  map[[32]byte][]float32 // nil until read
	hits  int                    // texts served from the cache
}

func (c *diskCache) hitCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

func newDiskCache(inner kb.Embedder, cfg EmbeddingsConfig, endpoint string, warn func(error)) *diskCache {
	id := sha256.Sum256([]byte(endpoint + "\x00" + cfg.Model))
	return &diskCache{inner: inner, model: cfg.Model, warn: warn, path: filepath.Join(cfg.CacheDir, "embeddings-"+hex.EncodeToString(id[:8])+".bin")}
}

func (c *diskCache) key(text string) [32]byte {
	return sha256.Sum256([]byte(c.model + "\x00" + text))
}

// Embed implements kb.Embedder.
func (c *diskCache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.vecs == nil {
		c.vecs = readVectors(c.path)
	}
	out := make([][]float32, len(texts))
	var missing []string
	var at []int
	for i, t := range texts {
		if v, ok := c.vecs[c.key(t)]; ok {
			out[i] = v
			c.hits++
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	vs, err := c.inner.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(missing) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vs), len(missing))
	}
	for j, v := range vs {
		out[at[j]] = v
		c.vecs[c.key(missing[j])] = v
	}
	if err := writeVectors(c.path, c.vecs); err != nil && c.warn != nil {
		c.warn(fmt.Errorf("embeddings cache: %w", err)) // the vectors are good
	}
	return out, nil
}

// The cache file: a magic line, then records of a 32-byte key, a uint32
// dimension count and that many float32s, little-endian.
const cacheMagic = "groundwire embeddings v1\n"

// readVectors reads a cache file; a missing or damaged file (or the
// damaged rest of one) is an empty cache, rebuilt by the next write.
func readVectors(path string) map[[32]byte][]float32 {
	vecs := map[[32]byte][]float32{}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte(cacheMagic)) {
		return vecs
	}
	data = data[len(cacheMagic):]
	for len(data) >= 36 {
		var k [32]byte
		copy(k[:], data)
		n := int(binary.LittleEndian.Uint32(data[32:]))
		if n == 0 || n > (len(data)-36)/4 {
			break
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[36+4*i:]))
		}
		vecs[k] = v
		data = data[36+4*n:]
	}
	return vecs
}

func writeVectors(path string, vecs map[[32]byte][]float32) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	buf := []byte(cacheMagic)
	for k, v := range vecs {
		buf = append(buf, k[:]...)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
		for _, x := range v {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".embeddings-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
