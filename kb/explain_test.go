package kb

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestExplainRetrieval prints, with KBDEBUG=1, how each message of the test
// set is read and ranked: its parts, each word (known to the knowledge base,
// salient or neither) and the hits (a tool for working on the ranking).
// KBDEBUG=word limits it to the messages holding word; held-out messages
// are left out unless KBHELDOUT=1.
func TestExplainRetrieval(t *testing.T) {
	f := os.Getenv("KBDEBUG")
	if f == "" {
		t.Skip()
	}
	base, _ := Default()
	ix := base.idx
	for _, c := range loadRetrievalCases(t) {
		if c.Heldout && os.Getenv("KBHELDOUT") == "" {
			continue
		}
		if f != "1" && !strings.Contains(strings.ToLower(c.Query), strings.ToLower(f)) {
			continue
		}
		fmt.Printf("\n%q want %v\n", c.Query, c.Answers)
		lang := detectLang(c.Query)
		names := contextNames(c.Query)
		for _, p := range splitMessage(c.Query) {
			fmt.Printf("  part question=%v %q\n", p.question, p.clauses)
			for _, cl := range p.clauses {
				tokenizeOrig(cl, func(tok, orig string) {
					if stopWord(tok) || conversationWords[tok] {
						return
					}
					w := ix.info(tok, lang)
					fmt.Printf("     %s exact=%v known=%v salient=%v parts=%s+%s %v\n", tok, w.exact, w.known, !w.known && isSalient(tok, orig, names, w.filler), w.left, w.right, w.exps)
				})
			}
		}
		hs, score := base.search(c.Query, 5, base.opts.floor)
		fmt.Printf("   SCORE %.2f\n", score)
		for _, h := range hs {
			fmt.Printf("   %.2f share=%.2f %s:%d %q\n", h.Score, h.share, h.Snippet.File, h.Snippet.Line, h.Snippet.Text)
		}
	}
}
