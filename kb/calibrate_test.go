package kb

import (
	"fmt"
	"os"
	"testing"
)

// evalSets returns recall@3 and off-topic rejection on the development and
// held-out parts of testdata/retrieval.jsonl, and StackFAQ recall@3 (-1
// when the benchmark is absent), for a base loaded with opts.
func evalSets(t *testing.T, opts ...Option) (dev, held retrievalScore, faq float64) {
	t.Helper()
	base, err := Load(DefaultFS(), append([]Option{WithPrefix("kb")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadRetrievalCases(t) {
		if c.Heldout {
			held.add(c, base.Search(c.Query, 3))
		} else {
			dev.add(c, base.Search(c.Query, 3))
		}
	}
	faq = -1
	if _, err := os.Stat(stackFAQDir); err == nil {
		fb, cases := loadStackFAQ(t, opts...)
		var s faqScore
		for _, c := range cases {
			s.add(c, fb.Search(c.Query, 10))
		}
		faq = s.recall3()
	}
	return dev, held, faq
}

// TestLexiconKinds prints, with and without each kind of lexicon
// expansion, recall@3 and rejection on the test set's parts and StackFAQ
// recall@3, and fails when the default kinds do worse on StackFAQ or on
// held-out recall than no lexicon.
func TestLexiconKinds(t *testing.T) {
	type row struct {
		name      string
		dev, held retrievalScore
		faq       float64
	}
	var rows []row
	for _, k := range []struct {
		name  string
		kinds int
	}{{"none", 0}, {"synonyms", LexSynonyms}, {"hypernyms", LexHypernyms}, {"all", LexAll}} {
		dev, held, faq := evalSets(t, WithLexicon(k.kinds))
		rows = append(rows, row{k.name, dev, held, faq})
		t.Logf("%-10s dev r@3 %.3f rej %.3f | held-out r@3 %.3f rej %.3f | StackFAQ r@3 %.3f",
			k.name, dev.recall3(), dev.rejection(), held.recall3(), held.rejection(), faq)
	}
	def := rows[0]
	for _, r := range rows {
		if r.name == defaultLexName() {
			def = r
		}
	}
	if def.faq < rows[0].faq || def.held.recall3() < rows[0].held.recall3() {
		t.Errorf("default lexicon (%s) below none: StackFAQ %.3f < %.3f or held-out %.3f < %.3f", def.name, def.faq, rows[0].faq, def.held.recall3(), rows[0].held.recall3())
	}
}

func defaultLexName() string {
	return map[int]string{0: "none", LexSynonyms: "synonyms", LexHypernyms: "hypernyms", LexAll: "all"}[defaults().lex]
}

// TestCalibrateThresholds (KBCALIBRATE=1) searches a grid of Coverage,
// Unknown and Names thresholds for the one that answers and rejects the
// most development messages of testdata/retrieval.jsonl while StackFAQ
// recall@3 stays at least plain BM25's, and prints it with its held-out
// figures. Names is held to at least 0.3: one name in a longer question
// must not decide.
func TestCalibrateThresholds(t *testing.T) {
	if os.Getenv("KBCALIBRATE") == "" {
		t.Skip("KBCALIBRATE=1 to run")
	}
	best, bestScore := DefaultThresholds(), -1.0
	for cov := 0.0; cov <= 0.41; cov += 0.08 {
		for unk := 0.3; unk <= 0.91; unk += 0.15 {
			for names := 0.3; names <= 0.51; names += 0.2 {
				th := DefaultThresholds()
				th.Coverage, th.Unknown, th.Names = cov, unk, names
				dev, _, faq := evalSets(t, WithThresholds(th))
				if faq >= 0 && faq < stackFAQBM25 {
					continue
				}
				if s := dev.recall3() + dev.rejection(); s > bestScore {
					best, bestScore = th, s
				}
			}
		}
	}
	dev, held, faq := evalSets(t, WithThresholds(best))
	fmt.Printf("best %+v: dev r@3 %.3f rej %.3f | held-out r@3 %.3f rej %.3f | StackFAQ %.3f\n",
		best, dev.recall3(), dev.rejection(), held.recall3(), held.rejection(), faq)
}
