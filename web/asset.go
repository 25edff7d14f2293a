package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// bigAsset is the size above which an asset's brotli encoding is kept on
// disk (see cachedBrotli): at quality 11 the guard (2.7 MB) takes some 10 s
// on one core, 4 times quality 10 and 30 times quality 9, for 12 % fewer
// bytes than 9 — worth it for every download, not on every start.
const bigAsset = 256 << 10

// asset is one served file in each encoding it is served in. Encodings are
// made once per distinct content in the process (see [encode]) and shared
// by every handler that serves the same bytes.
type asset struct {
	body  []byte
	ctype string
	etag  string // of the identity encoding; "-gz" and "-br" mark the others
	enc   *encodings
}

// encodings holds the compressed forms of one content; nil when that
// encoding does not make the content smaller. Never changed once made.
type encodings struct {
	gz, br []byte
}

var (
	encodedMu sync.Mutex
	encoded   = map[[32]byte]*encodings{}
)

// encode returns the encodings of body, compressing it the first time this
// content is seen in the process: gzip at its best level, brotli at quality
// 11 (for a body over bigAsset, made once per content and kept on disk).
func encode(sum [32]byte, body []byte) *encodings {
	encodedMu.Lock()
	defer encodedMu.Unlock()
	if e := encoded[sum]; e != nil {
		return e
	}
	e := &encodings{}
	if gz := gzipBytes(body); len(gz) < len(body) {
		e.gz = gz
	}
	var br []byte
	if len(body) > bigAsset {
		br = cachedBrotli(sum, body, brotliCacheDir)
	} else {
		br = brotliBytes(body, brotli.BestCompression)
	}
	if len(br) < len(body) {
		e.br = br
	}
	encoded[sum] = e
	return e
}

func gzipBytes(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level cannot fail
	zw.Write(body)
	zw.Close()
	return buf.Bytes()
}

func brotliBytes(body []byte, quality int) []byte {
	var buf bytes.Buffer
	bw := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: quality, LGWin: 22})
	bw.Write(body)
	bw.Close()
	return buf.Bytes()
}

func newAsset(body []byte, ctype string) *asset {
	sum := sha256.Sum256(body)
	return &asset{
		body:  body,
		ctype: ctype,
		etag:  `"` + hex.EncodeToString(sum[:16]) + `"`,
		enc:   encode(sum, body),
	}
}

// tag returns the asset's ETag for a content coding ("" for identity).
func (a *asset) tag(coding string) string {
	if coding == "" {
		return a.etag
	}
	short := map[string]string{"gzip": "gz", "br": "br"}[coding]
	return a.etag[:len(a.etag)-1] + "-" + short + `"`
}

func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "no-cache")
	br := a.enc.br
	if a.enc.gz != nil || br != nil {
		h.Set("Vary", "Accept-Encoding")
	}
	coding := negotiate(r.Header.Get("Accept-Encoding"), br != nil, a.enc.gz != nil)
	body := a.body
	switch coding {
	case "br":
		body = br
	case "gzip":
		body = a.enc.gz
	}
	if coding != "" {
		h.Set("Content-Encoding", coding)
	}
	h.Set("ETag", a.tag(coding))
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, a.tag(""), a.tag("gzip"), a.tag("br")) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// negotiate picks the content coding for an Accept-Encoding header among
// those the asset has: the one with the highest q-value (RFC 9110 §12.5.3),
// brotli on a tie (it is smaller), "" (identity) when neither is acceptable.
func negotiate(header string, haveBr, haveGzip bool) string {
	qBr, qGzip := acceptQ(header, "br"), acceptQ(header, "gzip")
	switch {
	case haveBr && qBr > 0 && (!haveGzip || qBr >= qGzip):
		return "br"
	case haveGzip && qGzip > 0:
		return "gzip"
	}
	return ""
}

// acceptQ returns the q-value an Accept-Encoding header gives coding
// (x-gzip counts as gzip): its own entry's, else the "*" entry's, else 0.
func acceptQ(header, coding string) float64 {
	own, star := -1.0, -1.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "x-gzip" {
			name = "gzip"
		}
		if name != coding && name != "*" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f >= 0 && f <= 1 {
					q = f
				}
			}
		}
		if name == coding {
			own = q
		} else {
			star = q
		}
	}
	switch {
	case own >= 0:
		return own
	case star >= 0:
		return star
	}
	return 0
}

// brotliCacheDir is where cachedBrotli keeps the encodings of big assets:
// the user cache directory's groundwire/brotli, or "" when there is none.
var brotliCacheDir = func() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "groundwire", "brotli")
}()

// cachedBrotli returns body at brotli quality 11: read from dir when an
// earlier run kept it there (and it decodes to body), else made and kept
// (written whole, then renamed). Files of other contents not used for a
// week are removed then. Nothing is kept when dir is "" or not writable;
// the encoding is made all the same.
func cachedBrotli(sum [32]byte, body []byte, dir string) []byte {
	if dir == "" {
		return brotliBytes(body, brotli.BestCompression)
	}
	name := filepath.Join(dir, hex.EncodeToString(sum[:])+".br")
	if b, err := os.ReadFile(name); err == nil {
		if un, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b))); err == nil && bytes.Equal(un, body) {
			now := time.Now()
			os.Chtimes(name, now, now) // in use: not pruned
			return b
		}
	}
	br := brotliBytes(body, brotli.BestCompression)
	if os.MkdirAll(dir, 0o755) != nil {
		return br
	}
	if f, err := os.CreateTemp(dir, ".br-*"); err == nil {
		_, werr := f.Write(br)
		if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), name) != nil {
			os.Remove(f.Name())
		}
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && e.Name() != filepath.Base(name) && time.Since(info.ModTime()) > 7*24*time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return br
}
