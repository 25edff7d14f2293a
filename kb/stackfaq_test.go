package kb

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kljensen/snowball/english"
)

// stackFAQDir is the public StackFAQ benchmark (README of
// /work/shared/retrieval): real people rephrasing the questions of 125
// StackExchange threads. Its texts are CC BY-SA and stay out of the
// repository: the tests read it from ../shared next to the repository and
// skip when it is absent.
const stackFAQDir = "../../shared/retrieval/stackfaq"

// loadStackFAQ loads the benchmark's knowledge base and its development
// queries, or skips.
func loadStackFAQ(t testing.TB, opts ...Option) (*Base, []retrievalCase) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(stackFAQDir, "dev.jsonl")); err != nil {
		t.Skipf("StackFAQ not found (%v)", err)
	}
	base, err := Load(os.DirFS(filepath.Join(stackFAQDir, "kb")), append([]Option{WithPrefix("kb")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return base, loadCases(t, filepath.Join(stackFAQDir, "dev.jsonl"))
}

// The parameters of the benchmark's plain BM25 (not kb's).
const (
	plainK1 = 1.2
	plainB  = 0.75
)

// bm25Plain is the reference the benchmark's README gives figures for:
// BM25 (k1 1.2, b 0.75) over each snippet's text and headings, lower-case
// words, English stop words dropped, no stemming, nothing else.
type bm25Plain struct {
	docs  []*Snippet
	tf    []map[string]float64
	df    map[string]int
	dl    []float64
	avgdl float64
}

func newBM25Plain(docs []*Snippet) *bm25Plain {
	p := &bm25Plain{docs: docs, df: map[string]int{}}
	total := 0.0
	for _, d := range docs {
		tf := map[string]float64{}
		n := 0.0
		tokenize(d.Heading+"\n"+d.Text, func(w string) {
			if !english.IsStopWord(w) {
				tf[w]++
				n++
			}
		})
		for w := range tf {
			p.df[w]++
		}
		p.tf = append(p.tf, tf)
		p.dl = append(p.dl, n)
		total += n
	}
	p.avgdl = total / float64(len(docs))
	return p
}

func (p *bm25Plain) search(q string, k int) []Hit {
	var words []string
	tokenize(q, func(w string) {
		if !english.IsStopWord(w) && !slices.Contains(words, w) {
			words = append(words, w)
		}
	})
	var hits []Hit
	n := float64(len(p.docs))
	for i, d := range p.docs {
		s := 0.0
		for _, w := range words {
			f := p.tf[i][w]
			if f == 0 {
				continue
			}
			df := float64(p.df[w])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			s += idf * f * (plainK1 + 1) / (f + plainK1*(1-plainB+plainB*p.dl[i]/p.avgdl))
		}
		if s > 0 {
			hits = append(hits, Hit{Snippet: d, Score: s})
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return hits[:min(k, len(hits))]
}

// faqScore is recall@3 and MRR@10 over the benchmark's queries.
type faqScore struct {
	n, at3 int
	rr     float64
}

func (s *faqScore) add(c retrievalCase, hits []Hit) {
	s.n++
	for i, h := range hits[:min(10, len(hits))] {
		if slices.ContainsFunc(c.Answers, func(part []string) bool { return answers(h, part) }) {
			if i < 3 {
				s.at3++
			}
			s.rr += 1 / float64(i+1)
			return
		}
	}
}

func (s faqScore) String() string {
	return fmt.Sprintf("recall@3 %.3f  MRR@10 %.3f  (n %d)", float64(s.at3)/float64(s.n), s.rr/float64(s.n), s.n)
}

func (s faqScore) recall3() float64 { return float64(s.at3) / float64(max(s.n, 1)) }

// TestStackFAQ measures kb search on the StackFAQ development queries
// against plain BM25 on the same snippets, and fails when kb falls under
// plain BM25 (as measured here, or the benchmark's reference figure
// stackFAQBM25, whichever is higher) or under recall@3 stackFAQTarget.
func TestStackFAQ(t *testing.T) {
	base, cases := loadStackFAQ(t)
	plain := newBM25Plain(base.Snippets())
	var kb, bm faqScore
	for _, c := range cases {
		kb.add(c, base.Search(c.Query, 10))
		bm.add(c, plain.search(c.Query, 10))
	}
	t.Logf("plain BM25: %s", bm)
	t.Logf("kb:         %s", kb)
	if kb.recall3() < bm.recall3() {
		t.Errorf("kb recall@3 %.3f under plain BM25 %.3f", kb.recall3(), bm.recall3())
	}
	if kb.recall3() < stackFAQBM25 {
		t.Errorf("kb recall@3 %.3f under the reference plain BM25 %.3f", kb.recall3(), stackFAQBM25)
	}
	if kb.recall3() < stackFAQTarget {
		t.Errorf("kb recall@3 %.3f under the target %.2f", kb.recall3(), stackFAQTarget)
	}
}

// stackFAQTarget is the recall@3 kb is held to on the development queries
// (issue 23; README, "Knowledge base"; 0.913 now).
const stackFAQTarget = 0.90

// stackFAQBM25 is plain BM25's recall@3 on the development queries by the
// benchmark's README (k1 1.2, b 0.75, no stemming).
const stackFAQBM25 = 0.837

func stopEn(w string) bool { return english.IsStopWord(w) }

func (p *bm25Plain) searchRe(q string, re interface{ FindAllString(string, int) []string }) []Hit {
	return p.search(strings.Join(re.FindAllString(strings.ToLower(q), -1), " "), 10)
}
