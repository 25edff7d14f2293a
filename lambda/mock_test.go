package lambda_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

var pricing = []lambda.Citation{
	{File: "kb/en/pricing.md", Line: 3, Snippet: "## Plans\n- Premium: 399 kr/month.\n- Storage: 10 000 files"},
	{File: "kb/en/pricing.md", Line: 9, Snippet: "1. Basic plan: 99 kr/month"},
}

func collect(t *testing.T, m lambda.Model, p lambda.Prompt) []string {
	t.Helper()
	toks, err := m.Stream(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer toks.Close()
	var out []string
	for {
		tok, err := toks.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tok)
	}
}

func TestMockAnswersFromSnippets(t *testing.T) {
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	for _, c := range []struct {
		lang lambda.Lang
		want string
	}{
		{lambda.English, "Premium: 399 kr/month (source: kb/en/pricing.md)."},
		{lambda.Swedish, "Kunskapsbasen har det här på engelska: Premium: 399 kr/month (källa: kb/en/pricing.md)."},
	} {
		p := lambda.Prompt{Question: "How much is Premium?", Lang: c.lang, Snippets: pricing}
		toks := collect(t, m, p)
		answer := strings.Join(toks, "")
		require.Equal(t, m.Answer(p), answer, "tokens differ from Answer")
		for i, tok := range toks {
			if i > 0 {
				assert.True(t, strings.HasPrefix(tok, " "), "token %q without leading space", tok)
			}
		}
		// the one sentence that answers, not the heading, the storage line or Basic
		assert.Equal(t, c.want, answer)
		assertGrounded(t, answer, pricing)
		assert.Equal(t, c.lang, lambda.DetectLang(answer), "answer %q not in %s", answer, c.lang)
	}
}

func assertGrounded(t *testing.T, answer string, cites []lambda.Citation) {
	t.Helper()
	texts := make([]string, len(cites))
	for i, c := range cites {
		texts[i] = c.Snippet
	}
	v := guardrail.VerifyStrings(answer, texts)
	assert.True(t, v.Grounded, "answer %q is not grounded: %+v", answer, v)
}

// The answer is the best matching sentence wherever it stands, not the
// first one; a table row is said with its headers; a path with a number
// ("2025", "two") is not cited by name (it would be an ungrounded number).
func TestMockPicksTheMatchingSentence(t *testing.T) {
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	table := []lambda.Citation{
		{File: "kb/en/pricing.md", Line: 9, Snippet: "- Basic: 99 kr/month"},
		{File: "kb/en/pricing.md", Line: 18, Snippet: "| Plan | Monthly price | Yearly price |\n|---|---|---|\n| Premium | 399 kr | 3 830 kr |"},
		{File: "kb/en/offers.md", Line: 3, Snippet: "Students get 50 % off Premium. Seniors get 20 % off Basic and Premium.\nPensioners must show an ID."},
	}
	for _, c := range []struct{ q, want string }{
		{"what's the yearly price for premium?", "Premium — monthly price: 399 kr; yearly price: 3 830 kr (source: kb/en/pricing.md)."},
		{"do seniors get a discount", "Seniors get 20 % off Basic and Premium (source: kb/en/offers.md)."},
		{"is there something for students??", "Students get 50 % off Premium (source: kb/en/offers.md)."},
		{"do pensioners need anything", "Pensioners must show an ID (source: kb/en/offers.md)."},
		// nothing in common with the question: the best snippet's first sentence
		{"tell me more", "Basic: 99 kr/month (source: kb/en/pricing.md)."},
	} {
		got := m.Answer(lambda.Prompt{Question: c.q, Lang: lambda.English, Snippets: table})
		assert.Equal(t, c.want, got, c.q)
		assertGrounded(t, got, table)
	}
	for _, file := range []string{"kb/2025/prices.md", "kb/en/two-factor.md"} {
		numbered := []lambda.Citation{{File: file, Line: 1, Snippet: "Premium: 399 kr/month."}}
		got := m.Answer(lambda.Prompt{Question: "premium price", Lang: lambda.English, Snippets: numbered})
		assert.Equal(t, "Premium: 399 kr/month (source: the knowledge base).", got)
		assertGrounded(t, got, numbered)
	}
}

// Customers' questions against the embedded knowledge base, retrieved as
// the handler does (the top 3 in the question's language): the answer has
// the sentence that answers, in the question's language, in one or two
// sentences, and the guard finds every number in the cited snippets. A
// two-part question gets both parts answered.
func TestMockAnswersCustomers(t *testing.T) {
	base, err := kb.Default()
	require.NoError(t, err)
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"hi there! quick question, what does premium cost per month? thanks in advance", []string{"Premium: 399 kr/month"}},
		{"how much is premuim", []string{"399 kr/month"}},
		{"my card payment failed, what happens now?", []string{"retried 3 times over 7 days"}},
		{"how many wrong password attempts before i get locked out", []string{"locked for 15 minutes"}},
		{"is my data encripted", []string{"AES-256"}},
		{"how long is the warranty on the molnlagret box", []string{"Warranty: 2 years"}},
		{"when is planned maintenance done", []string{"between 02:00 and 05:00"}},
		{"How much does Premium cost, and can I pay with Swish?", []string{"kr/month", "Swish"}},
		{"Whats your phone number and when are you open on saturdays?", []string{"+46 8 123 45 67", "10:00–14:00"}},
		{"Vad kostar premium?", []string{"Premium: 399 kr/månad"}},
		{"hej jag undrar vad premium kostar per månad, tack på förhand", []string{"Premium: 399 kr/månad"}},
		{"hur länge sparas gamla versioner av mina filer", []string{"30 dagar"}},
		{"kan jag ångra mitt köp och få pengarna tillbaka?", []string{"inom 14 dagar"}},
		{"vad är påminnelseavgiften", []string{"Påminnelseavgift: 60 kr"}},
		{"Vad kostar Premium och hur många enheter kan jag ha?", []string{"399 kr/månad", "Premium: upp till 10 enheter"}},
		{"hur lång tid tar leveransen till norge? och vad kostar frakten?", []string{"Leverans till Norge tar 3–6 arbetsdagar", "kr"}},
	} {
		t.Run(c.q, func(t *testing.T) {
			lang := lambda.DetectLang(c.q)
			var cites []lambda.Citation
			for _, h := range base.Search(c.q, 6) {
				if h.Snippet.Lang == string(lang) && len(cites) < 3 {
					cites = append(cites, lambda.Citation{File: h.Snippet.File, Line: h.Snippet.Line, Snippet: h.Snippet.Text})
				}
			}
			require.NotEmpty(t, cites)
			toks := collect(t, m, lambda.Prompt{Question: c.q, Lang: lang, Snippets: cites})
			answer := strings.Join(toks, "")
			for _, w := range c.want {
				assert.Contains(t, answer, w)
			}
			assertGrounded(t, answer, cites)
			// one or two sentences, each group from one file cited in
			// the question's language
			marker := map[lambda.Lang]string{lambda.English: "(source: ", lambda.Swedish: "(källa: "}[lang]
			if n := strings.Count(answer, marker); n < 1 || n > 2 || strings.Count(answer, ". ") > 1 {
				t.Errorf("answer %q: %d citations", answer, n)
			}
			cited := false
			for _, cite := range cites {
				cited = cited || strings.Contains(answer, cite.File)
			}
			assert.True(t, cited, "answer %q cites none of %v", answer, cites)
		})
	}
}

// Whatever snippet of the embedded knowledge base is retrieved, whatever is
// asked, what the mock says from it passes the guard: numbers stay as
// written, and joining cells and sentences makes no new number.
func TestMockGroundedOnEverySnippet(t *testing.T) {
	base, err := kb.Default()
	require.NoError(t, err)
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	snips := base.Snippets()
	for i, s := range snips {
		cites := []lambda.Citation{{File: s.File, Line: s.Line, Snippet: s.Text}}
		if i > 0 {
			prev := snips[i-1]
			cites = append(cites, lambda.Citation{File: prev.File, Line: prev.Line, Snippet: prev.Text})
		}
		for _, q := range []string{s.Text, "tell me more", s.Text + " and " + cites[len(cites)-1].Snippet} {
			for _, lang := range []lambda.Lang{lambda.English, lambda.Swedish} {
				answer := m.Answer(lambda.Prompt{Question: q, Lang: lang, Snippets: cites})
				require.NotEqual(t, "", answer)
				assertGrounded(t, answer, cites)
				assert.NotContains(t, answer, "|", "table pipes in %q", answer)
				assert.NotContains(t, answer, "**", "emphasis in %q", answer)
			}
		}
	}
}

func TestMockDeterministic(t *testing.T) {
	p := lambda.Prompt{Question: "How much is Premium?", Lang: lambda.English, Snippets: pricing}
	a := lambda.NewMock(lambda.MockSeed(7)).Answer(p)
	if b := lambda.NewMock(lambda.MockSeed(7)).Answer(p); a != b {
		t.Fatalf("same seed, different answers: %q %q", a, b)
	}
}

func TestMockHallucinates(t *testing.T) {
	srcs := guardrail.NewSources([]string{pricing[0].Snippet, pricing[1].Snippet})
	m := lambda.NewMock()
	p := lambda.Prompt{Question: "Premium price? hallucinate", Lang: lambda.English, Snippets: pricing}
	if v := guardrail.Verify(m.Answer(p), srcs); v.Grounded {
		t.Fatalf("hallucinated answer is grounded: %q", m.Answer(p))
	}
	// no numbers in the snippets: an invented number
	p = lambda.Prompt{Question: "hallucinate", Lang: lambda.Swedish, Snippets: []lambda.Citation{{File: "kb/sv/om.md", Line: 1, Snippet: "Vi finns i Stockholm."}}}
	if v := guardrail.VerifyStrings(m.Answer(p), []string{"Vi finns i Stockholm."}); v.Grounded {
		t.Fatalf("hallucinated answer is grounded: %q", m.Answer(p))
	}
	// a rate of 1 always hallucinates, 0 never
	p = lambda.Prompt{Question: "Premium price?", Lang: lambda.English, Snippets: pricing}
	if v := guardrail.Verify(lambda.NewMock(lambda.MockHallucinationRate(1)).Answer(p), srcs); v.Grounded {
		t.Fatal("rate 1 did not hallucinate")
	}
	if v := guardrail.Verify(lambda.NewMock(lambda.MockHallucinationRate(0)).Answer(p), srcs); !v.Grounded {
		t.Fatal("rate 0 hallucinated")
	}
}

func TestMockSay(t *testing.T) {
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	p := lambda.Prompt{Question: "$say  Exactly  this,\nwith 12 spaces ", Lang: lambda.English, Snippets: pricing}
	if got := strings.Join(collect(t, m, p), ""); got != " Exactly  this,\nwith 12 spaces " {
		t.Fatalf("$say gave %q", got)
	}
}

func TestMockDelaysUseClock(t *testing.T) {
	clock := lambdatest.NewClock(epoch)
	m := lambda.NewMock(lambda.MockClock(clock)) // default 20–80 ms
	toks := collect(t, m, lambda.Prompt{Question: "$say one two three four five", Snippets: pricing})
	d := clock.Now().Sub(epoch)
	if len(toks) != 5 || d < 5*20*time.Millisecond || d > 5*80*time.Millisecond {
		t.Fatalf("%d tokens took %v of clock time", len(toks), d)
	}
}

func TestMockCancel(t *testing.T) {
	m := lambda.NewMock(lambda.MockDelay(time.Hour, time.Hour)) // real clock
	ctx, cancel := context.WithCancel(context.Background())
	toks, _ := m.Stream(ctx, lambda.Prompt{Question: "$say a b", Snippets: pricing})
	defer toks.Close()
	go cancel()
	if _, err := toks.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next after cancel: %v", err)
	}
	toks.Close()
	if _, err := toks.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("Next after Close: %v", err)
	}
}

func TestTokenize(t *testing.T) {
	for _, s := range []string{"", "one", "one two", "  lead and trail  ", "a\nb\tc", "10 000 kr"} {
		toks := lambda.Tokenize(s)
		if strings.Join(toks, "") != s {
			t.Fatalf("Tokenize(%q) = %q", s, toks)
		}
	}
	if got := lambda.Tokenize("Premium costs 399"); len(got) != 3 || got[1] != " costs" {
		t.Fatalf("%q", got)
	}
}

func TestDetectLang(t *testing.T) {
	for text, want := range map[string]lambda.Lang{
		"How much does Premium cost?": lambda.English,
		"Vad kostar Premium?":         lambda.Swedish,
		"Hur mycket är det?":          lambda.Swedish,
		"Premium":                     lambda.English,
		"kan ni ringa mig":            lambda.Swedish,
		"What is the price of Öland?": lambda.Swedish, // å/ä/ö decide
	} {
		if got := lambda.DetectLang(text); got != want {
			t.Errorf("DetectLang(%q) = %s, want %s", text, got, want)
		}
	}
}

// Whatever the question and the snippets, the mock's answer (unless told
// to hallucinate) passes the guard against them, and its tokens give the
// answer back.
func FuzzMockGrounded(f *testing.F) {
	f.Add("What does Premium cost?", "- Premium: 399 kr/month\n- Basic: 99 kr/month", "| Plan | Price |\n| Premium | 3 830 kr |")
	f.Add("hur lång tid tar leveransen? och vad kostar frakten", "Leverans till Norge tar 3–6 arbetsdagar. Frakt: 49 kr.", "## Frakt\n1. Hemleverans: 79 kr")
	f.Add("when? how much, and can I call +46 8 123 45 67", "Open 09:00–17:00 on weekdays. Call +46 8 123 45 67.", "**Price**: `12,5 kr` per 10 GB")
	f.Add("two-factor", "| a | b | c |\n|---|---|---|\n| 1 | | 2 |", "```\ncode 42\n```")
	m := lambda.NewMock(lambda.MockDelay(0, 0))
	f.Fuzz(func(t *testing.T, q, a, b string) {
		if strings.Contains(strings.ToLower(q), lambda.HallucinateTrigger) || strings.HasPrefix(q, "$say ") {
			return
		}
		cites := []lambda.Citation{{File: "kb/en/a.md", Line: 1, Snippet: a}, {File: "kb/sv/b.md", Line: 2, Snippet: b}}
		for _, lang := range []lambda.Lang{lambda.English, lambda.Swedish} {
			p := lambda.Prompt{Question: q, Lang: lang, Snippets: cites}
			answer := m.Answer(p)
			if got := strings.Join(collect(t, m, p), ""); got != answer {
				t.Fatalf("tokens %q, Answer %q", got, answer)
			}
			if v := guardrail.VerifyStrings(answer, []string{a, b}); !v.Grounded {
				t.Fatalf("q %q, snippets %q %q: answer %q is not grounded: %+v", q, a, b, answer, v)
			}
		}
	})
}
