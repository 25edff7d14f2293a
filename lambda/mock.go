package lambda

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb/memo"
)

// Mock is the deterministic mock model (SPEC §8). It answers the question
// with the one or two sentences of the snippets that match it best (see
// pickSentences), numbers exactly as written, each followed by its file
// ("(source: kb/en/pricing.md)", "(källa: …)"), in the prompt's language,
// and streams word tokens (each with its leading space) with a seeded
// delay per token. The same seed and question always give the same answer
// and delays.
//
//   - A question starting with "$say " is answered with exactly the rest.
//   - The word "hallucinate" in the question, or the hallucination rate
//     (seeded), makes it change the numbers it says (or add one when the
//     answer has none), so the guard has something to block.
//
// A Mock is safe for concurrent use.
type Mock struct {
	seed     uint64
	minDelay time.Duration
	maxDelay time.Duration
	rate     float64
	clock    Clock
	words    *wordCache
	files    *fileCache
}

// MockOption configures a Mock.
type MockOption func(*Mock)

// MockSeed sets the seed (default 1).
func MockSeed(seed uint64) MockOption { return func(m *Mock) { m.seed = seed } }

// MockDelay sets the delay before each token, uniformly in [lo, hi]
// (default 20–80 ms; 0, 0 for tests and load).
func MockDelay(lo, hi time.Duration) MockOption {
	return func(m *Mock) { m.minDelay, m.maxDelay = max0(lo), max0(max(lo, hi)) }
}

// MockHallucinationRate sets the probability (0–1) that an answer has its
// numbers changed without being asked to (default 0).
func MockHallucinationRate(p float64) MockOption { return func(m *Mock) { m.rate = p } }

// MockClock sets the clock the token delays sleep on (default SystemClock).
func MockClock(c Clock) MockOption { return func(m *Mock) { m.clock = c } }

func max0(d time.Duration) time.Duration { return max(d, 0) }

// NewMock returns a mock model.
func NewMock(opts ...MockOption) *Mock {
	m := &Mock{seed: 1, minDelay: 20 * time.Millisecond, maxDelay: 80 * time.Millisecond, clock: SystemClock{}, words: &wordCache{}, files: &fileCache{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

var _ Model = (*Mock)(nil)

// Stream implements [Model].
func (m *Mock) Stream(ctx context.Context, p Prompt) (Tokens, error) {
	t := &mockTokens{ctx: ctx, m: m, pcg: m.pcg(p)}
	t.rng = *rand.New(&t.pcg) // the generator and its source in t: no allocation of their own
	t.toks = Tokenize(m.compose(p, &t.rng))
	return t, nil
}

// Answer returns the whole answer Stream would give for p.
func (m *Mock) Answer(p Prompt) string {
	pcg := m.pcg(p)
	return m.compose(p, rand.New(&pcg))
}

// pcg is the source of p's random numbers: seeded with the seed and the
// question's 64-bit FNV-1a hash.
func (m *Mock) pcg(p Prompt) rand.PCG {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(p.Question); i++ {
		h ^= uint64(p.Question[i])
		h *= prime64
	}
	return *rand.NewPCG(m.seed, h)
}

type mockTokens struct {
	ctx    context.Context
	m      *Mock
	pcg    rand.PCG
	rng    rand.Rand // reads pcg
	toks   []string
	closed bool
}

func (t *mockTokens) Next() (string, error) {
	if t.closed || len(t.toks) == 0 {
		return "", io.EOF
	}
	if err := t.ctx.Err(); err != nil {
		return "", err
	}
	d := t.m.minDelay
	if span := t.m.maxDelay - t.m.minDelay; span > 0 {
		d += time.Duration(t.rng.Int64N(int64(span) + 1))
	}
	if d > 0 {
		if err := t.m.clock.Sleep(t.ctx, d); err != nil {
			return "", err
		}
	}
	tok := t.toks[0]
	t.toks = t.toks[1:]
	return tok, nil
}

func (t *mockTokens) Close() error {
	t.closed = true
	return nil
}

// Tokenize splits text into word tokens, each with its leading whitespace;
// concatenated they give text back exactly.
func Tokenize(text string) []string {
	toks := make([]string, 0, strings.Count(text, " ")+1) // about one token a space
	start, inWord := 0, false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if space && inWord {
			toks = append(toks, text[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(text) {
		toks = append(toks, text[start:])
	}
	return toks
}

var phrases = map[Lang]struct {
	source  string // cites a file: "(source: kb/en/pricing.md)"
	anon    string // cites a file whose path has a number, or none
	foreign string // leads sentences from files in the other language
	none    string
	invent  string
}{
	English: {
		source:  "(source: %s)",
		anon:    "(source: the knowledge base)",
		foreign: "The knowledge base has this in Swedish:",
		none:    "I don't know.",
		invent:  "That is %d%% cheaper than last year.",
	},
	Swedish: {
		source:  "(källa: %s)",
		anon:    "(källa: kunskapsbasen)",
		foreign: "Kunskapsbasen har det här på engelska:",
		none:    "Jag vet inte.",
		invent:  "Det är %d %% billigare än förra året.",
	},
}

func (m *Mock) compose(p Prompt, rng *rand.Rand) string {
	if strings.HasPrefix(p.Question, sayPrefix) {
		return p.Question[len(sayPrefix):]
	}
	lang := p.Lang
	if _, ok := phrases[lang]; !ok {
		lang = English
	}
	sc := pickScratches.Get().(*pickScratch)
	defer sc.release()
	picked := pickSentences(retrievalQuery(p.Question), analysed(p), m.words, sc)
	if len(picked) == 0 {
		return phrases[lang].none
	}
	answer := render(picked, p.Snippets, lang, m.files)
	if strings.Contains(strings.ToLower(p.Question), HallucinateTrigger) || rng.Float64() < m.rate {
		texts := make([]string, len(p.Snippets))
		for i, s := range p.Snippets {
			texts[i] = s.Snippet
		}
		answer = hallucinate(answer, guardrail.NewSources(texts), phrases[lang].invent, rng)
	}
	return answer
}

// render joins the picked sentences, each group of sentences from one file
// followed by that file's citation; sentences from files in the other
// language get a lead saying so.
func render(picked []*sentence, snippets []Citation, lang Lang, files *fileCache) string {
	ph := phrases[lang]
	var b strings.Builder
	foreign := true
	for _, s := range picked {
		if l := files.get(snippets[s.cite].File, lang).lang; l == "" || l == lang {
			foreign = false
		}
	}
	if foreign {
		b.WriteString(ph.foreign)
	}
	for i, s := range picked {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		text := strings.TrimRight(s.Text, ".:;, ")
		file := snippets[s.cite].File
		if i+1 < len(picked) && snippets[picked[i+1].cite].File == file {
			b.WriteString(text + ".")
			continue
		}
		b.WriteString(text + " " + files.get(file, lang).cite + ".")
	}
	return b.String()
}

// citeFile is the citation of file in lang's phrasing.
func citeFile(file string, lang Lang) string {
	if file == "" || len(guardrail.Extract(file)) > 0 {
		return phrases[lang].anon // a number in the path would be an ungrounded one
	}
	return fmt.Sprintf(phrases[lang].source, file)
}

// fileCache remembers what render makes of a cited file in a language:
// the language the file is in and its citation (a number search and a
// format for every sentence said, otherwise). It is bounded as wordCache
// is; entries are read only.
type fileCache struct {
	mu sync.Mutex
	m  map[fileKey]fileInfo
}

type fileKey struct {
	file string
	lang Lang
}

type fileInfo struct {
	lang Lang   // fileLang(file)
	cite string // citeFile(file, lang)
}

// get returns file's info in lang, from the cache when it has it (a nil
// cache has nothing).
func (c *fileCache) get(file string, lang Lang) fileInfo {
	info := func() fileInfo { return fileInfo{fileLang(file), citeFile(file, lang)} }
	if c == nil {
		return info()
	}
	return memo.Get(&c.mu, &c.m, maxCachedWords, fileKey{file, lang}, info)
}

// fileLang is the language a knowledge base path declares (an en/ or sv/
// directory, or a .en.md / .sv.md name), or "".
func fileLang(file string) Lang {
	lower := strings.ToLower(file)
	for _, l := range []Lang{English, Swedish} {
		if strings.HasSuffix(lower, "."+string(l)+".md") || strings.HasPrefix(lower, string(l)+"/") ||
			strings.Contains(lower, "/"+string(l)+"/") {
			return l
		}
	}
	return ""
}

// HallucinateTrigger in a question makes the mock change the numbers it
// says (SPEC §8). The handler leaves it out of the retrieval query.
const HallucinateTrigger = "hallucinate"

// hallucinate changes the last digit of every number in answer so that no
// snippet grounds it; an answer without numbers gets an invented one.
func hallucinate(answer string, srcs []*guardrail.Source, invent string, rng *rand.Rand) string {
	changed := false
	nums := guardrail.Extract(answer)
	for i := len(nums) - 1; i >= 0; i-- {
		n := nums[i]
		last := strings.LastIndexAny(n.Text, "0123456789")
		if last < 0 {
			continue
		}
		for try := 0; try < 8; try++ {
			d := int(n.Text[last]-'0'+1+byte(rng.IntN(8))) % 10
			t := n.Text[:last] + string(rune('0'+d)) + n.Text[last+1:]
			if ex := guardrail.Extract(t); len(ex) == 1 && !guardrail.Check(ex[0], srcs).Grounded {
				answer = answer[:n.Start] + t + answer[n.End:]
				changed = true
				break
			}
		}
	}
	if changed {
		return answer
	}
	for try := 0; try < 16; try++ {
		s := fmt.Sprintf(invent, 11+rng.IntN(80))
		v := guardrail.Verify(s, srcs)
		if !v.Grounded {
			return answer + " " + s
		}
	}
	return answer
}
