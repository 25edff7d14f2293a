package kb

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/groundwire/groundwire/guardrail"
)

// failFS fails to open the files named in fail.
type failFS struct {
	fs.FS
	fail map[string]bool
}

var errLocked = errors.New("permission denied")

func (f failFS) Open(name string) (fs.File, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errLocked}
	}
	return f.FS.Open(name)
}

func files(b *Base) []string {
	var out []string
	for _, s := range b.Snippets() {
		if len(out) == 0 || out[len(out)-1] != s.File {
			out = append(out, s.File)
		}
	}
	return out
}

func TestLoadSkipsAndReports(t *testing.T) {
	fsys := failFS{FS: fstest.MapFS{
		"a.md":          {Data: []byte("# A\n\nalpha line\n")},
		"notes.txt":     {Data: []byte("not markdown\n")},
		"image.png":     {Data: []byte{0x89, 'P', 'N', 'G'}},
		"dir/c.MD":      {Data: []byte("gamma line\n")},
		"dir/bad.md":    {Data: []byte("good line\nbad \xe5 byte\n")},
		"dir/locked.md": {Data: []byte("locked line\n")},
		".git/x.md":     {Data: []byte("hidden line\n")},
		"empty.md":      {Data: nil},
	}, fail: map[string]bool{"dir/locked.md": true}}
	b, err := Load(fsys, WithPrefix("docs"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := files(b), []string{"docs/a.md", "docs/dir/c.MD"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	probs := b.Problems()
	if len(probs) != 2 {
		t.Fatalf("problems = %v, want 2", probs)
	}
	joined := errors.Join(probs...).Error()
	for _, want := range []string{"docs/dir/bad.md", "line 2", "UTF-8", "docs/dir/locked.md", "permission denied"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems %q do not mention %q", joined, want)
		}
	}
	if !errors.Is(errors.Join(probs...), errLocked) {
		t.Errorf("the read error is not wrapped: %v", probs)
	}
}

func TestLoadNothingUsable(t *testing.T) {
	_, err := Load(fstest.MapFS{"a.txt": {Data: []byte("x")}, "b.md": {Data: []byte("\xff\xfe")}})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "b.md") {
		t.Errorf("err = %v, want ErrEmpty naming b.md", err)
	}
	if _, err := LoadDir("testdata-that-does-not-exist"); err == nil {
		t.Error("LoadDir of a missing directory succeeded")
	}
}

func TestLoadDir(t *testing.T) {
	b, err := LoadDir("../testdata/kb")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Problems()) != 0 {
		t.Errorf("problems: %v", b.Problems())
	}
	want := []string{"kb/faq.md", "kb/more/crlf.md", "kb/sv/fragor.md"}
	if got := files(b); !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v (notes.txt skipped, prefix = last element of a non-local dir)", got, want)
	}
	for _, s := range b.Snippets() {
		if strings.Contains(s.Text, "\r") {
			t.Errorf("%s:%d keeps a CR: %q", s.File, s.Line, s.Text)
		}
		if s.File == "kb/sv/fragor.md" && s.Lang != Swedish || s.File == "kb/faq.md" && s.Lang != English {
			t.Errorf("%s: lang %q", s.File, s.Lang)
		}
	}
	b2, err := LoadDir("../testdata/kb", WithPrefix("x/y/"))
	if err != nil || b2.Snippets()[0].File != "x/y/faq.md" {
		t.Errorf("WithPrefix: %v %v", err, b2.Snippets()[0].File)
	}
	hits := b.Search("when does the parcel ship", 1)
	if len(hits) != 1 || hits[0].Snippet.File != "kb/more/crlf.md" || hits[0].Snippet.Line != 3 {
		t.Errorf("hits = %v", describe(hits))
	}
}

// TestSnippetSources checks that every snippet's numbers were extracted
// from its own text, with the same extractor as answers.
func TestSnippetSources(t *testing.T) {
	for _, load := range []func() (*Base, error){Default, func() (*Base, error) { return LoadDir("../testdata/kb") }} {
		b, err := load()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range b.Snippets() {
			if s.Source == nil || s.Source.Text != s.Text {
				t.Fatalf("%s:%d: Source does not hold the snippet's text", s.File, s.Line)
			}
			if want := guardrail.Extract(s.Text); !reflect.DeepEqual(s.Source.Numbers, want) {
				t.Errorf("%s:%d: Source numbers %v, want %v", s.File, s.Line, s.Source.Numbers, want)
			}
			for _, n := range s.Source.Numbers {
				if !s.Source.Grounds(n) {
					t.Errorf("%s:%d: does not ground its own %q", s.File, s.Line, n.Text)
				}
			}
		}
	}
}

func TestDefault(t *testing.T) {
	b, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Problems()) != 0 {
		t.Errorf("problems: %v", b.Problems())
	}
	perLang := map[string]int{}
	for _, f := range files(b) {
		if !strings.HasPrefix(f, "kb/en/") && !strings.HasPrefix(f, "kb/sv/") {
			t.Errorf("file %q not under kb/en or kb/sv", f)
		}
		perLang[f[:5]]++
	}
	if perLang["kb/en"] < 8 || perLang["kb/sv"] < 8 {
		t.Errorf("files per language: %v, want at least 8 each", perLang)
	}
	all := ""
	for _, s := range b.Snippets() {
		all += s.Text + "\n"
		if s.Line < 1 || strings.Count(s.Text, "\n") >= MaxLines {
			t.Errorf("%s:%d: bad snippet %q", s.File, s.Line, s.Text)
		}
	}
	for _, seed := range []string{"Basic: 99 kr/month", "Premium: 399 kr/month", "Premium: 399 kr/månad", "+46 8 123 45 67", "08-123 45 67", "20%", "12,5", "10 000", "1 TB", "2025-12-31", "08:00–17:00"} {
		if !strings.Contains(all, seed) {
			t.Errorf("default knowledge base lacks %q", seed)
		}
	}
	for q, want := range map[string]string{
		"What does Premium cost?": "- Premium: 399 kr/month",
		"Vad kostar premium?":     "- Premium: 399 kr/månad",
	} {
		hits := b.Search(q, 0)
		if len(hits) != DefaultK || hits[0].Snippet.Text != want {
			t.Errorf("Search(%q) = %s, want %q first", q, describe(hits), want)
		}
	}
	if b2, _ := Default(); b2 != b {
		t.Error("Default loads the knowledge base again")
	}
}
