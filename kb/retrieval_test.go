package kb

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// retrievalCase is one line of testdata/retrieval.jsonl: a customer question
// and the file that must be among the top 3 hits, or null when the default
// knowledge base has no answer (then no hit may be returned).
type retrievalCase struct {
	Lang  string  `json:"lang"`
	Query string  `json:"query"`
	File  *string `json:"file"`
}

func loadRetrievalCases(t testing.TB) []retrievalCase {
	return loadCasesFile(t, "../testdata/retrieval.jsonl")
}

func loadCasesFile(t testing.TB, name string) []retrievalCase {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []retrievalCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var c retrievalCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("retrieval.jsonl:%d: %v", n, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestRetrieval measures recall@3 on questions with an answer and accuracy
// on questions without one, and fails below 0.95 on either.
func TestRetrieval(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := loadRetrievalCases(t)
	var answerable, found, none, empty int
	langs := map[string]int{}
	for _, c := range cases {
		langs[c.Lang]++
		hits := base.Search(c.Query, 3)
		if c.File == nil {
			none++
			if len(hits) == 0 {
				empty++
			} else {
				t.Logf("MISS (want none) %q → %s", c.Query, describe(hits))
			}
			continue
		}
		answerable++
		ok := false
		for _, h := range hits {
			ok = ok || h.Snippet.File == *c.File
		}
		if ok {
			found++
		} else {
			t.Logf("MISS (want %s) %q → %s", *c.File, c.Query, describe(hits))
		}
	}
	if len(cases) < 60 || none < 10 || langs["en"] < 30 || langs["sv"] < 30 {
		t.Errorf("test set too small: %d questions (%d en, %d sv), %d without answer", len(cases), langs["en"], langs["sv"], none)
	}
	recall := float64(found) / float64(answerable)
	noAnswer := float64(empty) / float64(none)
	t.Logf("recall@3 = %.3f (%d/%d), no-answer accuracy = %.3f (%d/%d)", recall, found, answerable, noAnswer, empty, none)
	if recall < 0.95 {
		t.Errorf("recall@3 %.3f < 0.95", recall)
	}
	if noAnswer < 0.95 {
		t.Errorf("no-answer accuracy %.3f < 0.95", noAnswer)
	}
}

func describe(hits []Hit) string {
	if len(hits) == 0 {
		return "no hits"
	}
	s := ""
	for i, h := range hits {
		if i > 0 {
			s += " | "
		}
		s += h.Snippet.File + ":" + itoa(h.Snippet.Line) + " " + ftoa(h.Score)
	}
	return s
}
