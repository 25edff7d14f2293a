package kb

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Reloader serves a knowledge base loaded from a directory and re-reads it
// on demand or when its files change, without a restart. Searches in flight
// keep the base they started with; a reload that fails keeps the previous
// base. It is safe for concurrent use.
type Reloader struct {
	dir  string
	opts []Option
	cur  atomic.Pointer[Base]
	mu   sync.Mutex // serialises reloads
	sig  string     // fingerprint of the files the current base was loaded from
}

// NewReloader loads dir (see [LoadDir]).
func NewReloader(dir string, opts ...Option) (*Reloader, error) {
	r := &Reloader{dir: dir, opts: opts}
	if err := r.Reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// Base returns the current knowledge base.
func (r *Reloader) Base() *Base { return r.cur.Load() }

// Search searches the current knowledge base.
func (r *Reloader) Search(query string, k int) []Hit { return r.Base().Search(query, k) }

// Find is [Base.Find] on the current base.
func (r *Reloader) Find(query string, k int) Result { return r.Base().Find(query, k) }

// Reload re-reads the directory. On error the current base stays.
func (r *Reloader) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reload(r.fingerprint())
}

func (r *Reloader) reload(sig string) error {
	b, err := LoadDir(r.dir, r.opts...)
	if err != nil {
		return err
	}
	r.cur.Store(b)
	r.sig = sig
	return nil
}

// ReloadIfChanged reloads when a markdown file was added, removed or
// modified (name, size or modification time) since the last load.
func (r *Reloader) ReloadIfChanged() (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sig := r.fingerprint()
	if sig == r.sig {
		return false, nil
	}
	return true, r.reload(sig)
}

// Watch calls ReloadIfChanged every interval until ctx is done, reporting
// each reload (and each failed one) to report, which may be nil.
func (r *Reloader) Watch(ctx context.Context, every time.Duration, report func(*Base, error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if changed, err := r.ReloadIfChanged(); changed && report != nil {
				report(r.Base(), err)
			}
		}
	}
}

func (r *Reloader) fingerprint() string {
	var sig []byte
	fs.WalkDir(os.DirFS(r.dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isMarkdown(p) {
			return nil
		}
		if info, err := d.Info(); err == nil {
			sig = fmt.Appendf(sig, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return string(sig)
}
