package kb

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReloader(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "Refunds take 5 days.\n")
	r, err := NewReloader(dir, WithPrefix("kb"))
	if err != nil {
		t.Fatal(err)
	}
	if hits := r.Search("shipping parcel", 3); len(hits) != 0 {
		t.Fatalf("hits before the file exists: %v", where(hits))
	}
	if changed, err := r.ReloadIfChanged(); changed || err != nil {
		t.Fatalf("unchanged directory reloaded: %v %v", changed, err)
	}
	write("b.md", "The parcel ships in 2 days.\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reloaded := make(chan *Base, 1)
	go r.Watch(ctx, 10*time.Millisecond, func(b *Base, err error) {
		if err == nil {
			select {
			case reloaded <- b:
			default:
			}
		}
	})
	select {
	case <-reloaded:
	case <-time.After(5 * time.Second):
		t.Fatal("no reload after a file was added")
	}
	cancel()
	if hits := r.Search("shipping parcel", 3); len(hits) != 1 || hits[0].Snippet.File != "kb/b.md" {
		t.Errorf("after reload: %v", where(hits))
	}
	// A reload that fails keeps the current base.
	os.Remove(filepath.Join(dir, "a.md"))
	os.Remove(filepath.Join(dir, "b.md"))
	if err := r.Reload(); err == nil {
		t.Error("reload of an empty directory succeeded")
	}
	if r.Base().Len() != 2 {
		t.Errorf("base after a failed reload has %d snippets", r.Base().Len())
	}
}
