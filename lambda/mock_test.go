package lambda_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/groundwire/groundwire/guardrail"
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
	for _, lang := range []lambda.Lang{lambda.English, lambda.Swedish} {
		p := lambda.Prompt{Question: "How much is Premium?", Lang: lang, Snippets: pricing}
		toks := collect(t, m, p)
		answer := strings.Join(toks, "")
		if answer != m.Answer(p) {
			t.Fatalf("tokens %q differ from Answer %q", answer, m.Answer(p))
		}
		for i, tok := range toks {
			if i > 0 && !strings.HasPrefix(tok, " ") {
				t.Fatalf("token %q without leading space", tok)
			}
		}
		v := guardrail.Verify(answer, guardrail.NewSources([]string{pricing[0].Snippet, pricing[1].Snippet}))
		if !v.Grounded || !strings.Contains(answer, "399 kr/month") || !strings.Contains(answer, "10 000") {
			t.Fatalf("%s answer %q: %+v", lang, answer, v)
		}
		if strings.Contains(answer, "#") || strings.Contains(answer, "1. Basic") {
			t.Fatalf("markdown left in %q", answer)
		}
		if lambda.DetectLang(answer) != lang {
			t.Fatalf("answer %q not in %s", answer, lang)
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
