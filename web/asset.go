package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/groundwire/groundwire/web/internal/deflate"
)

// bigAsset is the size above which an asset's encodings are the costly
// ones, made concurrently and kept on disk (see cachedEncoding): brotli at
// quality 11 (the guard, 2.7 MB, takes some 10 s on one core, 4 times
// quality 10 and 30 times quality 9, for 12 % fewer bytes than 9) and gzip
// by [deflate.Gzip] (some 6 s for the guard, 6 % fewer bytes than
// compress/gzip at its best level) — worth it for every download, not on
// every start.
const bigAsset = 256 << 10

// gzipIterations is the number of optimal-parse passes of deflate.Gzip for
// a big asset. On the guard, one core: 658,789 bytes with 1 pass (5.5 s),
// 656,447 with 5 (5.9 s), 655,941 with 15 (6.3 s); the match search and
// the block splitting, done once, take most of the time.
const gzipIterations = 15

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
// content is seen in the process: brotli at quality 11 and gzip, by
// compress/gzip at its best level for a small body, by [deflate.Gzip] for a
// body over bigAsset (both made at once, once per content, and kept on disk).
func encode(sum [32]byte, body []byte) *encodings {
	encodedMu.Lock()
	defer encodedMu.Unlock()
	if e := encoded[sum]; e != nil {
		return e
	}
	e := &encodings{}
	var gz, br []byte
	if len(body) > bigAsset {
		done := make(chan struct{})
		go func() {
			defer close(done)
			gz = cachedEncoding(sum, body, encodedCacheDir, gzipCoding)
		}()
		br = cachedEncoding(sum, body, encodedCacheDir, brotliCoding)
		<-done
	} else {
		gz = gzipBytes(body)
		br = brotliBytes(body, brotli.BestCompression)
	}
	if len(gz) < len(body) {
		e.gz = gz
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

// encodedCacheDir is where cachedEncoding keeps the encodings of big
// assets: the user cache directory's groundwire/encoded, or "" when there
// is none. It holds <sha256 of the content>.br and
// .deflate<version>-i<passes>.gz files. (Before gzip
// was kept too, brotli alone was kept in groundwire/brotli, no longer read.)
var encodedCacheDir = func() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "groundwire", "encoded")
}()

// coding is a content coding of big assets: the extension of its kept
// files, how to make it, and how to decode it to check a kept file.
type coding struct {
	ext    string
	make   func([]byte) []byte
	decode func([]byte) ([]byte, error)
}

var (
	brotliCoding = coding{".br",
		func(b []byte) []byte { return brotliBytes(b, brotli.BestCompression) },
		func(b []byte) ([]byte, error) { return io.ReadAll(brotli.NewReader(bytes.NewReader(b))) }}
	// the file name says the encoder's version and passes: an encoder that
	// encodes differently makes another file
	gzipCoding = coding{fmt.Sprintf(".deflate%d-i%d.gz", deflate.Version, gzipIterations),
		func(b []byte) []byte { return deflate.Gzip(b, gzipIterations) },
		gunzip}
)

// gunzip decodes one gzip member, and nothing after it.
func gunzip(b []byte) ([]byte, error) {
	r := bytes.NewReader(b)
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err == nil && r.Len() > 0 {
		err = errors.New("data after the gzip member")
	}
	return out, err
}

// cachedEncoding returns body in coding c: read from dir when an earlier
// run kept it there (and it decodes to body), else made and kept (written
// whole, then renamed). Files of other contents not used for a week are
// removed then. Nothing is kept when dir is "" or not writable; the
// encoding is made all the same.
func cachedEncoding(sum [32]byte, body []byte, dir string, c coding) []byte {
	if dir == "" {
		return c.make(body)
	}
	name := filepath.Join(dir, hex.EncodeToString(sum[:])+c.ext)
	if b, err := os.ReadFile(name); err == nil {
		if un, err := c.decode(b); err == nil && bytes.Equal(un, body) {
			now := time.Now()
			os.Chtimes(name, now, now) // in use: not pruned
			return b
		}
	}
	enc := c.make(body)
	if os.MkdirAll(dir, 0o755) != nil {
		return enc
	}
	if f, err := os.CreateTemp(dir, ".tmp-*"+c.ext); err == nil {
		_, werr := f.Write(enc)
		if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), name) != nil {
			os.Remove(f.Name())
		}
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if info, err := e.Info(); err == nil && !strings.HasPrefix(e.Name(), hex.EncodeToString(sum[:])) && time.Since(info.ModTime()) > 7*24*time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	return enc
}
