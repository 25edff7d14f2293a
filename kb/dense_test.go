package kb

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

// conceptEmbedder is a stand-in embedding model: one dimension per concept
// of a small table (words meaning the same share one), every other word
// hashed into 16 dimensions of its own.
type conceptEmbedder struct {
	fail  atomic.Bool
	calls atomic.Int32
}

var testConcepts = map[string]int{
	"money": 0, "back": 0, "refund": 0, "refunds": 0, "reimbursed": 0, "cancelling": 0,
	"compensated": 0, "premium": 1, "plan": 1,
}

func embedConcepts(text string) []float32 {
	v := make([]float32, 2+16)
	v[17] = 0.01 // never a zero vector
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
		if stopWord(w) {
			continue
		}
		if c, ok := testConcepts[w]; ok {
			v[c]++
			continue
		}
		h := 0
		for _, r := range w {
			h = h*31 + int(r)
		}
		v[2+(h%16+16)%16]++
	}
	return v
}

func (e *conceptEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	if e.fail.Load() {
		return nil, errors.New("connection refused")
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = embedConcepts(t)
	}
	return out, nil
}

func denseBase(t *testing.T, opts ...Option) *Base {
	t.Helper()
	b, err := Load(fstest.MapFS{
		"en/plans.md":   {Data: []byte("# Plans\n\nThe Premium plan costs 99 kr a month with priority support, family sharing, offline files and version history on every device.\n")},
		"en/refunds.md": {Data: []byte("# Refunds\n\nYou get your money back within 14 days of cancelling the Premium plan.\n")},
		"en/policy.md":  {Data: []byte("# Refund policy\n\nRefunds: money back, a refund.\n")},
		"en/storage.md": {Data: []byte("# Storage\n\nEvery account has 5 GB of storage for photos and documents.\n")},
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFuseRRF(t *testing.T) {
	s := func(name string) *Snippet { return &Snippet{File: name} }
	a, b, c, d := s("a"), s("b"), s("c"), s("d")
	hits := func(ss ...*Snippet) []Hit {
		var out []Hit
		for _, x := range ss {
			out = append(out, Hit{Snippet: x})
		}
		return out
	}
	// a 1/61; b 1/62+1/62 = 0.032258; c 1/63+1/61 = 0.032266; d 1/63
	got := FuseRRF(60, Ranking{hits(a, b, c), 1}, Ranking{hits(c, b, d), 1})
	var order []string
	for _, h := range got {
		order = append(order, h.Snippet.File)
	}
	if strings.Join(order, " ") != "c b a d" {
		t.Errorf("fused order %v, want c b a d", order)
	}
	if want := 1.0/63 + 1.0/61; got[0].Score != want {
		t.Errorf("c scores %v, want %v", got[0].Score, want)
	}
	// ties keep the order of first appearance
	got = FuseRRF(60, Ranking{hits(a, b), 1}, Ranking{hits(b, a), 1})
	if got[0].Snippet != a || got[1].Snippet != b {
		t.Errorf("tie: %v, %v", got[0].Snippet.File, got[1].Snippet.File)
	}
	// weighted: a 1/11 + 0.5/12 = 0.1326; b 1/12 + 0.5/11 = 0.1288; the
	// second ranking's first place does not outweigh the first's
	got = FuseRRF(10, Ranking{hits(a, b), 1}, Ranking{hits(b, a), 0.5})
	if got[0].Snippet != a || got[0].Score != 1.0/11+0.5/12 || got[1].Score != 1.0/12+0.5/11 {
		t.Errorf("weighted: %v %v, %v %v", got[0].Snippet.File, got[0].Score, got[1].Snippet.File, got[1].Score)
	}
	// a ranking that counts nothing changes nothing
	got = FuseRRF(10, Ranking{hits(a, b), 1}, Ranking{hits(d, c, b), 0})
	if order := hitFiles(got); order != "a b d c" {
		t.Errorf("weight 0: %v", order)
	}
}

// The stand-in model reads "compensated" as "money back". The lexical
// ranking (its relevance floor off, so that it does not put the unknown
// word off topic) finds "Premium" and "device" in the plans snippet,
// "Premium" in the refunds snippet; the dense ranking is refunds, policy,
// plans. Fused with equal weights and c = 60, refunds scores 1/62 + 1/61
// and plans 1/61 + 1/63: refunds first; the policy snippet, which only the
// dense ranking has, third (1/62). With the default weight and c (a third,
// 10), plans keeps its lexical first place (1/11 + 0.33/13 against
// 1/12 + 0.33/11), and refunds is second: the similarity moves an answer up only
// where the lexical search is nearly undecided.
func TestDenseFusionChangesRanking(t *testing.T) {
	b := denseBase(t, WithFloor(0, 0))
	const q = "Will I be compensated for Premium on my device?"
	lex := b.Search(q, 3)
	if hitFiles(lex) != "en/plans.md en/refunds.md" {
		t.Fatalf("the constructed case wants the lexical ranking plans, refunds: %v", hitFiles(lex))
	}
	emb := &conceptEmbedder{}
	var progress []int
	d, err := NewDense(context.Background(), b, emb, DenseOptions{Batch: 2, RRFK: 60, Weight: 1, Progress: func(done, total int) {
		progress = append(progress, done, total)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if itoa(len(progress)) != "4" || progress[0] != 2 || progress[1] != 4 || progress[2] != 4 {
		t.Errorf("progress %v, want 2 of 4 then 4 of 4", progress)
	}
	if got := hitFiles(d.nearest(mustEmbed(t, d, q), 4, "")); got != "en/refunds.md en/policy.md en/plans.md en/storage.md" {
		t.Fatalf("the constructed case wants the dense ranking refunds, policy, plans, storage: %v", got)
	}
	if got := hitFiles(d.Search(q, 3)); got != "en/refunds.md en/plans.md en/policy.md" {
		t.Errorf("fused ranking %v, want refunds, plans, policy", got)
	}
	d, err = NewDense(context.Background(), b, emb, DenseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitFiles(d.Search(q, 3)); got != "en/plans.md en/refunds.md en/policy.md" {
		t.Errorf("fused ranking with the default weight %v, want plans, refunds, policy", got)
	}
	// With the relevance floor on, a message the lexical search finds
	// nothing for stays unanswered, however similar some snippet is.
	d, err = NewDense(context.Background(), denseBase(t), emb, DenseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Search("Will Netflix be compensated?", 3); len(got) != 0 {
		t.Errorf("off topic: %v", hitFiles(got))
	}
}

// A model that embeds a snippet and its translation alike ranks both; the
// similarity ranking keeps to the message's language, so that an English
// question does not get the Swedish twin of its answer among its first
// hits. A message in a language the base lacks is ranked against every
// snippet.
func TestDenseKeepsToTheMessagesLanguage(t *testing.T) {
	b, err := Load(fstest.MapFS{
		"en/refunds.md": {Data: []byte("# Refunds\n\nYou get your money back within 14 days of cancelling.\n")},
		"en/plans.md":   {Data: []byte("# Plans\n\nThe Premium plan costs 99 kr a month.\n")},
		"en/storage.md": {Data: []byte("# Storage\n\nEvery account has 5 GB of storage.\n")},
		"sv/refunds.md": {Data: []byte("# Återbetalning\n\nDu får pengarna tillbaka inom 14 dagar efter uppsägningen.\n")},
	}, WithFloor(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// the stand-in: one dimension for refunds in either language, one for
	// everything else
	twin := embedFunc(func(texts []string) [][]float32 {
		out := make([][]float32, len(texts))
		for i, text := range texts {
			low := strings.ToLower(text)
			if strings.Contains(low, "money back") || strings.Contains(low, "pengarna tillbaka") || strings.Contains(low, "refund") {
				out[i] = []float32{1, 0.01}
			} else {
				out[i] = []float32{0.01, 1}
			}
		}
		return out
	})
	d, err := NewDense(context.Background(), b, twin, DenseOptions{Weight: 1})
	if err != nil {
		t.Fatal(err)
	}
	const q = "Can I get my money back after cancelling the Premium plan?"
	if got := hitFiles(d.nearest(mustEmbed(t, d, q), 4, "")); !strings.HasPrefix(got, "en/refunds.md sv/refunds.md") && !strings.HasPrefix(got, "sv/refunds.md en/refunds.md") {
		t.Fatalf("the constructed case wants both refunds snippets most similar: %v", got)
	}
	got := d.Search(q, 3)
	if files := hitFiles(got); strings.Contains(files, "sv/") || !strings.HasPrefix(files, "en/refunds.md") {
		t.Errorf("English message: %v, want the English refunds snippet first and no Swedish one", files)
	}
	// a base in Swedish only: an English message is still ranked by
	// similarity
	sv, err := Load(fstest.MapFS{
		"sv/refunds.md": {Data: []byte("# Återbetalning\n\nDu får pengarna tillbaka inom 14 dagar.\n")},
		"sv/plans.md":   {Data: []byte("# Premium\n\nPremium kostar 99 kr i månaden.\n")},
	}, WithFloor(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	d, err = NewDense(context.Background(), sv, twin, DenseOptions{Weight: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitFiles(d.nearest(mustEmbed(t, d, q), 2, "")); got != "sv/refunds.md sv/plans.md" {
		t.Fatalf("similarity: %v", got)
	}
	const en = "Can I get a refund of the Premium plan?"
	if lex := hitFiles(sv.Search(en, 2)); lex != "sv/plans.md" {
		t.Fatalf("the constructed case wants the lexical ranking plans alone: %v", lex)
	}
	if got := hitFiles(d.Search(en, 2)); got != "sv/plans.md sv/refunds.md" {
		t.Errorf("English message, Swedish base: %v, want plans, then refunds by similarity", got)
	}
}

func TestDenseQueryFailure(t *testing.T) {
	b := denseBase(t)
	emb := &conceptEmbedder{}
	var warned []error
	d, err := NewDense(context.Background(), b, emb, DenseOptions{Warn: func(err error) { warned = append(warned, err) }})
	if err != nil {
		t.Fatal(err)
	}
	emb.fail.Store(true)
	const q = "Can I have a refund on the Premium plan?"
	got, lex := d.Search(q, 3), b.Search(q, 3)
	if hitFiles(got) != hitFiles(lex) {
		t.Errorf("endpoint down: %v, want the lexical %v", hitFiles(got), hitFiles(lex))
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "connection refused") {
		t.Errorf("warnings %v", warned)
	}
	// Once embedded, a message's vector is remembered.
	emb.fail.Store(false)
	d.Search(q, 3)
	calls := emb.calls.Load()
	d.Search(q, 3)
	if emb.calls.Load() != calls {
		t.Error("the same message was embedded twice")
	}
}

func TestDenseLoadFailure(t *testing.T) {
	emb := &conceptEmbedder{}
	emb.fail.Store(true)
	if _, err := NewDense(context.Background(), denseBase(t), emb, DenseOptions{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v", err)
	}
	bad := embedFunc(func(texts []string) [][]float32 {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = make([]float32, 3+i) // lengths differ
			out[i][0] = 1
		}
		return out
	})
	if _, err := NewDense(context.Background(), denseBase(t), bad, DenseOptions{}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("vectors of different lengths: err = %v", err)
	}
	zero := embedFunc(func(texts []string) [][]float32 { return make([][]float32, len(texts)) })
	if _, err := NewDense(context.Background(), denseBase(t), zero, DenseOptions{}); err == nil {
		t.Error("empty vectors accepted")
	}
}

func mustEmbed(t *testing.T, d *Dense, q string) []float32 {
	t.Helper()
	v, err := d.embedQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

type embedFunc func([]string) [][]float32

func (f embedFunc) Embed(_ context.Context, texts []string) ([][]float32, error) {
	return f(texts), nil
}

func hitFiles(hits []Hit) string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Snippet.File)
	}
	return strings.Join(out, " ")
}
