package lambda

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/groundwire/groundwire/guardrail"
)

// Mock is the deterministic mock model (SPEC §8). It answers from the
// snippets, in the prompt's language, reusing their numbers exactly as
// written, and streams word tokens (each with its leading space) with a
// seeded delay per token. The same seed and question always give the same
// answer and delays.
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
	m := &Mock{seed: 1, minDelay: 20 * time.Millisecond, maxDelay: 80 * time.Millisecond, clock: SystemClock{}}
	for _, o := range opts {
		o(m)
	}
	return m
}

var _ Model = (*Mock)(nil)

// Stream implements [Model].
func (m *Mock) Stream(ctx context.Context, p Prompt) (Tokens, error) {
	rng := m.rng(p)
	return &mockTokens{ctx: ctx, m: m, rng: rng, toks: Tokenize(m.compose(p, rng))}, nil
}

// Answer returns the whole answer Stream would give for p.
func (m *Mock) Answer(p Prompt) string { return m.compose(p, m.rng(p)) }

func (m *Mock) rng(p Prompt) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(p.Question))
	return rand.New(rand.NewPCG(m.seed, h.Sum64()))
}

type mockTokens struct {
	ctx    context.Context
	m      *Mock
	rng    *rand.Rand
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
	var toks []string
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
	first, next []string
	anon        string
	none        string
	invent      string
}{
	English: {
		first:  []string{"According to %s: %s", "%s says: %s", "From %s: %s"},
		next:   []string{"%s also says: %s", "See also %s: %s"},
		anon:   "According to the knowledge base: %s",
		none:   "I don't know.",
		invent: "That is %d%% cheaper than last year.",
	},
	Swedish: {
		first:  []string{"Enligt %s: %s", "I %s står det: %s", "Från %s: %s"},
		next:   []string{"%s säger också: %s", "Se även %s: %s"},
		anon:   "Enligt kunskapsbasen: %s",
		none:   "Jag vet inte.",
		invent: "Det är %d %% billigare än förra året.",
	},
}

func (m *Mock) compose(p Prompt, rng *rand.Rand) string {
	if strings.HasPrefix(p.Question, sayPrefix) {
		return p.Question[len(sayPrefix):]
	}
	ph, ok := phrases[p.Lang]
	if !ok {
		ph = phrases[English]
	}
	if len(p.Snippets) == 0 {
		return ph.none
	}
	var parts []string
	for i, s := range p.Snippets[:min(2, len(p.Snippets))] {
		body := cleanSnippet(s.Snippet)
		if body == "" {
			continue
		}
		switch {
		case strings.ContainsAny(s.File, "0123456789"):
			// a path with digits would be an ungrounded number
			parts = append(parts, fmt.Sprintf(ph.anon, body))
		case i == 0:
			parts = append(parts, fmt.Sprintf(ph.first[rng.IntN(len(ph.first))], s.File, body))
		default:
			parts = append(parts, fmt.Sprintf(ph.next[rng.IntN(len(ph.next))], s.File, body))
		}
	}
	if len(parts) == 0 {
		return ph.none
	}
	answer := strings.Join(parts, " ")
	if strings.Contains(strings.ToLower(p.Question), HallucinateTrigger) || rng.Float64() < m.rate {
		texts := make([]string, len(p.Snippets))
		for i, s := range p.Snippets {
			texts[i] = s.Snippet
		}
		answer = hallucinate(answer, guardrail.NewSources(texts), ph.invent, rng)
	}
	return answer
}

// HallucinateTrigger in a question makes the mock change the numbers it
// says (SPEC §8). The handler leaves it out of the retrieval query.
const HallucinateTrigger = "hallucinate"

var (
	listMarker = regexp.MustCompile(`^(?:#+\s*|[-*+>]\s+|[0-9]+[.)]\s+)+`)
	emphasis   = strings.NewReplacer("**", "", "__", "", "`", "")
)

// cleanSnippet turns 1–3 markdown lines into running text: markers
// (headings, bullets, ordered-list numbers, table pipes, emphasis) go,
// numbers stay exactly as written, each line ends a sentence.
func cleanSnippet(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(emphasis.Replace(line))
		line = strings.TrimSpace(listMarker.ReplaceAllString(line, ""))
		if strings.HasPrefix(line, "|") {
			if strings.Trim(line, "|-: ") == "" {
				continue // table rule
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			line = strings.Join(cells, ", ")
		}
		if line == "" {
			continue
		}
		if !strings.ContainsAny(line[len(line)-1:], ".!?:") {
			line += "."
		}
		out = append(out, line)
	}
	return strings.Join(out, " ")
}

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
