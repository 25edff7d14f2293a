package kb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// customerCase is one line of testdata/customers.jsonl: a message written as
// customers write it, its kind (short, natural, chatty, paraphrase, typo,
// compound, two-part, offtopic), and the file lines that answer it (nil when
// the knowledge base has no answer). Heldout cases are the last part of the
// file; they are scored but must not be used to tune retrieval.
type customerCase struct {
	Lang    string        `json:"lang"`
	Kind    string        `json:"kind"`
	Query   string        `json:"query"`
	Answers []answerLines `json:"answers"`
	Heldout bool          `json:"heldout"`
}

type answerLines struct {
	File  string `json:"file"`
	Lines []int  `json:"lines"`
}

func loadCustomerCases(t testing.TB) []customerCase {
	f, err := os.Open("../testdata/customers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []customerCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var c customerCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Fatalf("customers.jsonl:%d: %v", n, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// snippetLines reports the file lines a snippet covers: its line for a table
// row (Text then holds the header row too), otherwise one per line of Text.
func snippetLines(s *Snippet) []int {
	if strings.HasPrefix(s.Text, "|") {
		return []int{s.Line}
	}
	n := strings.Count(s.Text, "\n") + 1
	lines := make([]int, n)
	for i := range lines {
		lines[i] = s.Line + i
	}
	return lines
}

// answers reports whether a hit covers one of the labelled lines.
func answers(h Hit, want []answerLines) bool {
	for _, a := range want {
		if a.File != h.Snippet.File {
			continue
		}
		for _, l := range snippetLines(h.Snippet) {
			for _, w := range a.Lines {
				if l == w {
					return true
				}
			}
		}
	}
	return false
}

// customerScore accumulates recall@1, recall@3 and MRR over answerable
// messages, and the rejection rate (no hit at all) over off-topic ones.
type customerScore struct {
	n, at1, at3     int
	rr              float64
	offtopic, empty int
}

func (s *customerScore) add(c customerCase, hits []Hit) {
	if c.Answers == nil {
		s.offtopic++
		if len(hits) == 0 {
			s.empty++
		}
		return
	}
	s.n++
	for i, h := range hits {
		if answers(h, c.Answers) {
			if i == 0 {
				s.at1++
			}
			if i < 3 {
				s.at3++
			}
			s.rr += 1 / float64(i+1)
			return
		}
	}
}

func (s customerScore) String() string {
	cell := func(num, den int) string {
		if den == 0 {
			return "    -"
		}
		return fmt.Sprintf("%5.2f", float64(num)/float64(den))
	}
	mrr := "    -"
	if s.n > 0 {
		mrr = fmt.Sprintf("%5.2f", s.rr/float64(s.n))
	}
	return fmt.Sprintf("%3d %s %s %s | %3d %s", s.n, cell(s.at1, s.n), cell(s.at3, s.n), mrr, s.offtopic, cell(s.empty, s.offtopic))
}

// TestCustomerLabels checks that every labelled line of testdata/customers.jsonl
// exists in the default knowledge base, so that a wrong label cannot pass
// for a retrieval miss, and that the set has the kinds and size it claims.
func TestCustomerLabels(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]map[int]bool{}
	for _, s := range base.Snippets() {
		if covered[s.File] == nil {
			covered[s.File] = map[int]bool{}
		}
		for _, l := range snippetLines(s) {
			covered[s.File][l] = true
		}
	}
	cases := loadCustomerCases(t)
	kinds := map[string]int{}
	heldout, off := 0, 0
	for i, c := range cases {
		kinds[c.Kind]++
		if c.Heldout {
			heldout++
		} else if heldout > 0 {
			t.Errorf("case %d: held-out cases must be the last part of the file", i+1)
		}
		if c.Lang != "en" && c.Lang != "sv" {
			t.Errorf("case %d: lang %q", i+1, c.Lang)
		}
		if (c.Kind == "offtopic") != (c.Answers == nil) {
			t.Errorf("case %d (%q): kind %s with answers %v", i+1, c.Query, c.Kind, c.Answers)
		}
		for _, a := range c.Answers {
			if !strings.HasPrefix(a.File, "kb/"+c.Lang+"/") {
				t.Errorf("case %d: answer %s is not in the message's language %s", i+1, a.File, c.Lang)
			}
			if len(a.Lines) == 0 {
				t.Errorf("case %d: answer %s has no lines", i+1, a.File)
			}
			for _, l := range a.Lines {
				if !covered[a.File][l] {
					t.Errorf("case %d: %s:%d is in no snippet", i+1, a.File, l)
				}
			}
		}
	}
	if off = kinds["offtopic"]; off < 20 || heldout == 0 || heldout == len(cases) {
		t.Errorf("%d cases, %d off-topic, %d held out", len(cases), off, heldout)
	}
}

// TestCustomerRetrieval prints recall@1, recall@3 and MRR per kind and
// language, and the off-topic rejection rate, for the development part and
// the held-out part of testdata/customers.jsonl separately.
//
// It does not yet enforce the thresholds of issue 12 (recall@3 0.97,
// rejection 0.95): the figures are the baseline of the retrieval before that
// issue's work.
func TestCustomerRetrieval(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ part, lang, kind string }
	scores := map[key]*customerScore{}
	get := func(k key) *customerScore {
		if scores[k] == nil {
			scores[k] = &customerScore{}
		}
		return scores[k]
	}
	for _, c := range loadCustomerCases(t) {
		part := "dev"
		if c.Heldout {
			part = "heldout"
		}
		hits := base.Search(c.Query, 3)
		for _, k := range []key{{part, c.Lang, c.Kind}, {part, c.Lang, "all"}, {part, "all", "all"}} {
			get(k).add(c, hits)
		}
		if c.Answers != nil && !func() bool {
			for _, h := range hits {
				if answers(h, c.Answers) {
					return true
				}
			}
			return false
		}() || c.Answers == nil && len(hits) > 0 {
			t.Logf("MISS [%s %s %s] %q → %s", part, c.Lang, c.Kind, c.Query, describe(hits))
		}
	}
	keys := make([]key, 0, len(scores))
	for k := range scores {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.part != b.part {
			return a.part < b.part
		}
		if a.lang != b.lang {
			return a.lang < b.lang
		}
		return a.kind < b.kind
	})
	var b strings.Builder
	b.WriteString("\npart    lang kind         n    r@1   r@3   MRR | off  rejected\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%-7s %-4s %-10s %s\n", k.part, k.lang, k.kind, scores[k])
	}
	t.Log(b.String())
}
