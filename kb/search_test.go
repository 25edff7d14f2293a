package kb

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"testing/fstest"
)

func mapBase(t testing.TB, files map[string]string, opts ...Option) *Base {
	t.Helper()
	m := fstest.MapFS{}
	for name, text := range files {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	b, err := Load(m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func where(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d", h.Snippet.File, h.Snippet.Line))
	}
	return out
}

func TestSearchTiesDeterministic(t *testing.T) {
	same := "The refund arrives within 5 days.\n\nThe refund arrives within 5 days.\n\nUnrelated words about storage.\n"
	b := mapBase(t, map[string]string{"b.md": same, "a.md": same, "c/z.md": same})
	want := []string{"a.md:1", "a.md:3", "b.md:1", "b.md:3", "c/z.md:1"}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				hits := b.Search("when does my refund arrive", 5)
				if got := where(hits); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("order = %v, want %v", got, want)
					return
				}
				for _, h := range hits[1:] {
					if h.Score != hits[0].Score {
						t.Errorf("equal snippets scored %v and %v", hits[0].Score, h.Score)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestSearchFloor(t *testing.T) {
	b, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"What is the capital of France?", "Hur bakar man bröd?", "", "   ", "the and of", "?!", "och i på"} {
		if hits := b.Search(q, 3); len(hits) != 0 {
			t.Errorf("Search(%q) = %v, want nothing", q, where(hits))
		}
	}
	// Half a question about pizza is no question about the knowledge base...
	if hits := b.Search("how much does a pizza cost", 3); len(hits) != 0 {
		t.Errorf("pizza: %v", where(hits))
	}
	// ...unless the floor is off.
	nf, err := Load(DefaultFS(), WithPrefix("kb"), WithFloor(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if hits := nf.Search("how much does a pizza cost", 3); len(hits) != 3 {
		t.Errorf("no floor: %v", where(hits))
	}
}

func TestSearchK(t *testing.T) {
	b, _ := Default()
	for k, want := range map[int]int{-1: DefaultK, 0: DefaultK, 1: 1, 5: 5} {
		if hits := b.Search("premium price", k); len(hits) != want {
			t.Errorf("k=%d: %d hits, want %d", k, len(hits), want)
		}
	}
	hits := b.Search("premium price", 50)
	for i := 1; i < len(hits); i++ {
		if better(hits[i], hits[i-1]) {
			t.Errorf("hits out of order at %d: %v", i, where(hits))
		}
	}
}

func TestSearchWords(t *testing.T) {
	b := mapBase(t, map[string]string{
		"sv/a.md": "Kön till kundtjänst är kort.\n\nKon står i hagen.\n\nPriset är 99 kr per månad.\n\nVi har öppettider vardagar.\n",
		"en/b.md": "Refunds are paid within 10 days.\n\n## Two-factor login\n\nUse an app.\n\nThe e-mail address is on the invoice.\n",
	})
	for q, want := range map[string]string{
		"KÖN":                    "sv/a.md:1", // case folded, ö kept: not "kon"
		"kon":                    "sv/a.md:3",
		"månaden":                "sv/a.md:5", // Swedish stemming
		"when am I refunded":     "en/b.md:1", // English stemming
		"refnds":                 "en/b.md:1", // a spelling mistake
		"when are you open":      "",          // "open" is not "öppettider" in English
		"öppet":                  "sv/a.md:7", // start of a compound
		"two-factor":             "en/b.md:5", // heading context
		"twofactor":              "en/b.md:5", // hyphenated word joined
		"email":                  "en/b.md:7",
		"what is the 99 for":     "sv/a.md:5", // numbers are words too
		"capital of France 2025": "",
	} {
		hits := b.Search(q, 1)
		got := ""
		if len(hits) > 0 {
			got = where(hits)[0]
		}
		if got != want {
			t.Errorf("Search(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestSearchPrefersQueryLanguage(t *testing.T) {
	b, _ := Default()
	for q, lang := range map[string]string{"premium": "", "Vad kostar premium?": Swedish, "What does premium cost?": English} {
		hits := b.Search(q, 3)
		if len(hits) == 0 {
			t.Fatalf("%q: no hits", q)
		}
		for _, h := range hits {
			if lang != "" && h.Snippet.Lang != lang {
				t.Errorf("%q: hit in %s: %s:%d", q, h.Snippet.Lang, h.Snippet.File, h.Snippet.Line)
			}
		}
	}
}

func TestOSA(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		max  int
		want int
	}{{"premium", "premuim", 2, 1}, {"cancel", "cancle", 1, 1}, {"abonnemang", "abbonemang", 2, 2}, {"bröd", "bord", 2, 2}, {"abc", "xyz", 1, 2}, {"same", "same", 0, 0}} {
		if got := osa(tc.a, tc.b, tc.max); got != tc.want {
			t.Errorf("osa(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.max, got, tc.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	var got []string
	tokenize("Åsa's E-post: 10 000 kr, 12,5 % — ÖPPET/2FA x", func(tok string) { got = append(got, tok) })
	want := "[åsa post epost 10 000 kr 12 5 öppet 2fa]"
	if fmt.Sprint(got) != want {
		t.Errorf("tokens = %v, want %s", got, want)
	}
	for text, want := range map[string]string{"Vad kostar det och hur länge?": Swedish, "What does it cost and how long?": English, "Premium 399": "", "Öppet": Swedish} {
		if got := detectLang(text); got != want {
			t.Errorf("detectLang(%q) = %q, want %q", text, got, want)
		}
	}
	for path, want := range map[string]string{"kb/sv/a.md": Swedish, "en/x/y.md": English, "faq.sv.md": Swedish, "docs/a.md": "", "sven/a.md": ""} {
		if got := pathLang(path); got != want {
			t.Errorf("pathLang(%q) = %q, want %q", path, got, want)
		}
	}
}

// Search answers the same from the expansion cache as without it: every
// question of the retrieval set, asked twice, gets the same hits.
func TestSearchCached(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := loadRetrievalCases(t)
	for _, q := range cases {
		first := base.Search(q.Query, 3)
		if again := base.Search(q.Query, 3); !reflect.DeepEqual(first, again) {
			t.Errorf("%q: first %v, then %v", q.Query, first, again)
		}
	}
	fresh, err := Load(DefaultFS(), WithPrefix("kb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range cases {
		a, b := fresh.Search(q.Query, 3), base.Search(q.Query, 3) // fresh: nothing cached yet
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits cached, %d fresh", q.Query, len(b), len(a))
		}
		for i := range a {
			if a[i].Snippet.File != b[i].Snippet.File || a[i].Snippet.Line != b[i].Snippet.Line || a[i].Score != b[i].Score {
				t.Errorf("%q hit %d: fresh %s:%d %.4f, cached %s:%d %.4f", q.Query, i,
					a[i].Snippet.File, a[i].Snippet.Line, a[i].Score, b[i].Snippet.File, b[i].Snippet.Line, b[i].Score)
			}
		}
	}
}
