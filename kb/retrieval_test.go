package kb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retrievalCase is one line of testdata/retrieval.jsonl: a message written as
// customers write it, its kind (short, natural, chatty, paraphrase, typo,
// compound, two-part, offtopic), and what answers it: one list per part of
// the question, each a list of "file:line" any of which answers that part;
// null when the knowledge base has no answer (then no hit may be returned).
// Held-out cases are the tail of the file: they are scored apart and were
// not used to tune retrieval.
type retrievalCase struct {
	Lang    string     `json:"lang"`
	Kind    string     `json:"kind"`
	Query   string     `json:"query"`
	Answers [][]string `json:"answers"`
	Heldout bool       `json:"heldout"`
	Batch   int        `json:"batch"`  // a held-out message: the batch it was written in (1, 2, …)
	Thread  int        `json:"thread"` // StackFAQ: the thread a query rephrases
}

func loadRetrievalCases(t testing.TB) []retrievalCase {
	return loadCases(t, "../testdata/retrieval.jsonl")
}

// loadCases reads a file in the format of testdata/retrieval.jsonl.
func loadCases(t testing.TB, path string) []retrievalCase {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var cases []retrievalCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var c retrievalCase
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&c), "%s:%d", path, n)
		cases = append(cases, c)
	}
	require.NoError(t, sc.Err())
	return cases
}

// splitLabel splits "kb/en/pricing.md:10" into its file and line.
func splitLabel(label string) (string, int, bool) {
	i := strings.LastIndexByte(label, ':')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(label[i+1:])
	return label[:i], n, err == nil && n > 0
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

// answers reports whether a hit covers one of the labels of a part.
func answers(h Hit, part []string) bool {
	for _, label := range part {
		file, line, _ := splitLabel(label)
		if file == h.Snippet.File && slices.Contains(snippetLines(h.Snippet), line) {
			return true
		}
	}
	return false
}

// retrievalScore accumulates, over answerable messages: recall@1 (the first
// hit answers a part of the message), recall@3 (every part of the message
// is answered by one of the first 3 hits) and MRR (1/rank of the first hit
// answering a part); over off-topic messages, the rejection rate (no hit).
type retrievalScore struct {
	n, at1, at3     int
	rr              float64
	offtopic, empty int
}

func (s *retrievalScore) add(c retrievalCase, hits []Hit) (ok bool) {
	if c.Answers == nil {
		s.offtopic++
		if len(hits) == 0 {
			s.empty++
		}
		return len(hits) == 0
	}
	s.n++
	first := 0 // rank of the first hit answering any part
	all := true
	for _, part := range c.Answers {
		rank := 0
		for i, h := range hits[:min(3, len(hits))] {
			if answers(h, part) {
				rank = i + 1
				break
			}
		}
		if rank == 0 {
			all = false
		} else if first == 0 || rank < first {
			first = rank
		}
	}
	if first == 1 {
		s.at1++
	}
	if first > 0 {
		s.rr += 1 / float64(first)
	}
	if all {
		s.at3++
	}
	return all
}

func (s retrievalScore) recall3() float64   { return float64(s.at3) / float64(max(s.n, 1)) }
func (s retrievalScore) rejection() float64 { return float64(s.empty) / float64(max(s.offtopic, 1)) }

func (s retrievalScore) String() string {
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

// TestRetrievalLabels checks that every label of testdata/retrieval.jsonl
// is a line of a snippet of the default knowledge base in the message's
// language, so that a wrong label cannot pass for a retrieval miss, and that
// the set has the size and mix it claims.
func TestRetrievalLabels(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	covered := map[string]bool{}
	for _, s := range base.Snippets() {
		for _, l := range snippetLines(s) {
			covered[s.File+":"+strconv.Itoa(l)] = true
		}
	}
	cases := loadRetrievalCases(t)
	kinds := map[string]int{}
	langs := map[string]int{}
	heldout, batch := 0, 0
	for i, c := range cases {
		kinds[c.Kind]++
		langs[c.Lang]++
		if c.Heldout {
			heldout++
			assert.True(t, c.Batch == batch || c.Batch == batch+1 && c.Batch > 0, "case %d: held-out batch %d after batch %d (batches are numbered from 1, in order)", i+1, c.Batch, batch)
			batch = c.Batch
		} else {
			assert.Zero(t, heldout, "case %d: held-out cases must be the tail of the file", i+1)
			assert.Zero(t, c.Batch, "case %d: a development case has no batch", i+1)
		}
		assert.Contains(t, []string{"en", "sv"}, c.Lang, "case %d", i+1)
		assert.Contains(t, []string{"short", "natural", "chatty", "paraphrase", "typo", "compound", "two-part", "offtopic"}, c.Kind, "case %d", i+1)
		assert.Equal(t, c.Kind == "offtopic", c.Answers == nil, "case %d (%q): kind %s with answers %v", i+1, c.Query, c.Kind, c.Answers)
		assert.Equal(t, c.Kind == "two-part", len(c.Answers) > 1, "case %d (%q): kind %s with %d parts", i+1, c.Query, c.Kind, len(c.Answers))
		for _, part := range c.Answers {
			assert.NotEmpty(t, part, "case %d", i+1)
			for _, label := range part {
				file, _, ok := splitLabel(label)
				assert.True(t, ok, "case %d: label %q is not file:line", i+1, label)
				assert.True(t, strings.HasPrefix(file, "kb/"+c.Lang+"/"), "case %d: %s is not in the message's language %s", i+1, label, c.Lang)
				assert.True(t, covered[label], "case %d: %s is in no snippet", i+1, label)
			}
		}
	}
	assert.GreaterOrEqual(t, len(cases), 200)
	assert.GreaterOrEqual(t, kinds["offtopic"], 40)
	assert.GreaterOrEqual(t, langs["en"], 80)
	assert.GreaterOrEqual(t, langs["sv"], 80)
	assert.GreaterOrEqual(t, heldout, 30)
	assert.Less(t, heldout, len(cases)/2)
}

// Thresholds of TestRetrieval, over the development part of the set. They
// guard against regressions, a little under what the search does now: the
// development part took 11 answerable messages holding words the base lacks
// (recall@3 0.95 → 0.93), then 180 messages in two batches written blind
// from the base's files by engineers who ran no search (recall@3 0.94 →
// 0.87, rejection 0.82 → 0.74). Issue 23's target stays recall@3 0.95 and
// rejection 0.90.
const (
	minRecall3   = 0.85
	minRejection = 0.72
)

// TestRetrieval searches every message of testdata/retrieval.jsonl for 3
// hits, prints recall@1, recall@3 and MRR per part (dev, held-out, and
// each held-out batch), language and kind, and the off-topic rejection rate, and fails when the
// development part falls under recall@3 0.85 or rejection 0.72. The
// held-out part is reported, not enforced: it measures how retrieval does on
// messages it was not tuned on, and its misses are listed only with
// KBHELDOUT=1, so that reading them is a choice, not a side effect.
func TestRetrieval(t *testing.T) {
	base, err := Default()
	require.NoError(t, err)
	type key struct{ part, lang, kind string }
	scores := map[key]*retrievalScore{}
	get := func(k key) *retrievalScore {
		if scores[k] == nil {
			scores[k] = &retrievalScore{}
		}
		return scores[k]
	}
	for _, c := range loadRetrievalCases(t) {
		part := "dev"
		if c.Heldout {
			part = "heldout"
		}
		hits := base.Search(c.Query, 3)
		ok := true
		keys := []key{{part, c.Lang, c.Kind}, {part, c.Lang, "all"}, {part, "all", "all"}, {"all", "all", "all"}}
		if c.Heldout {
			keys = append(keys, key{fmt.Sprintf("held-%d", c.Batch), "all", "all"})
		}
		for _, k := range keys {
			ok = get(k).add(c, hits)
		}
		if !ok && (!c.Heldout || os.Getenv("KBHELDOUT") != "") {
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
	// The ranking's ceiling: recall with the off-topic rule off, where
	// every message gets whatever matches at all.
	open, err := Load(DefaultFS(), WithPrefix("kb"), WithFloor(0, 0))
	require.NoError(t, err)
	var ceiling [2]retrievalScore
	for _, c := range loadRetrievalCases(t) {
		if c.Answers != nil {
			ceiling[btoi(c.Heldout)].add(c, open.Search(c.Query, 3))
		}
	}
	fmt.Fprintf(&b, "without the off-topic rule (WithFloor(0, 0)): recall@3 dev %.2f, heldout %.2f\n", ceiling[0].recall3(), ceiling[1].recall3())
	t.Log(b.String())
	dev := scores[key{"dev", "all", "all"}]
	require.NotNil(t, dev)
	assert.GreaterOrEqual(t, dev.recall3(), minRecall3, "dev recall@3")
	assert.GreaterOrEqual(t, dev.rejection(), minRejection, "dev off-topic rejection")
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
