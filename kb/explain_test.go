package kb

import (
	"fmt"
	"os"
	"testing"
)

// TestExplainRetrieval prints, with KBDEBUG=1, how each question of the test
// set is understood and ranked (a tool for working on the ranking).
func TestExplainRetrieval(t *testing.T) {
	if os.Getenv("KBDEBUG") == "" {
		t.Skip()
	}
	base, _ := Default()
	ix := base.idx
	cases := loadRetrievalCases(t)
	if f := os.Getenv("KBDEBUG"); f != "1" {
		cases = loadCasesFile(t, f)
	}
	for _, c := range cases {
		want := "NONE"
		if c.File != nil {
			want = *c.File
		}
		fmt.Printf("\n%q want %s\n", c.Query, want)
		var words []string
		tokenize(c.Query, func(tok string) {
			if !stopWord(tok) {
				words = append(words, tok)
			}
		})
		for _, w := range words {
			exps, exact := ix.expand(w, detectLang(c.Query))
			fmt.Printf("   %s exact=%v %v\n", w, exact, exps)
		}
		hs, known := base.search(c.Query, 5, floor{})
		fmt.Printf("   KNOWN %.2f\n", known)
		for _, h := range hs {
			fmt.Printf("   %.2f share=%.2f %s:%d %q\n", h.Score, h.share, h.Snippet.File, h.Snippet.Line, h.Snippet.Text)
		}
	}
}
