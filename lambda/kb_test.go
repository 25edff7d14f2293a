package lambda_test

import (
	"strings"
	"testing"

	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
)

// The price question against the real embedded knowledge base, with the
// mock model, in hold mode: verified, citing the pricing file, 399 grounded.
func TestPriceQuestionDefaultKB(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, file string }{
		{"How much does Premium cost per month?", "pricing.md"},
		{"Vad kostar Premium per månad?", "priser.md"},
	} {
		t.Run(c.text, func(t *testing.T) {
			hs := newHarness(t, func(cfg *lambda.Config) { cfg.Retriever = base })
			hs.connect("c1")
			hs.send("c1", msg("m1", c.text))
			fs := hs.frames("c1")
			if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			resp := last(fs, lambda.TypeResponse)
			if resp.Text != deltas(fs, "m1") || !strings.Contains(resp.Text, "399") {
				t.Fatalf("text %q", resp.Text)
			}
			if !strings.HasSuffix(resp.Citations[0].File, c.file) {
				t.Fatalf("top citation %+v", resp.Citations[0])
			}
			for _, n := range resp.Numbers {
				if !n.Grounded || !strings.Contains(resp.Citations[n.Citation].Snippet, n.Text) {
					t.Fatalf("number %+v vs citations %v", n, resp.Citations)
				}
			}

			// the same question, hallucinated: blocked, nothing ungrounded streamed
			hs.sender.Reset("c1")
			hs.send("c1", msg("m2", c.text+" hallucinate"))
			fs = hs.frames("c1")
			if got, want := withoutStream(fs), "sources:m2 stream_end:m2:blocked response:m2:blocked"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			assertGroundedDeltas(t, fs, "m2")
		})
	}
}

func TestNoReferencesDefaultKB(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.Retriever = base })
	hs.connect("c1")
	hs.send("c1", msg("m1", "What is the airspeed velocity of an unladen swallow?"))
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:no_sources"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
}

// A question is answered from the files of its own language when they have
// something relevant: the knowledge base holds every fact in both.
func TestCitationsInTheMessagesLanguage(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, dir string }{
		{"Ring mig imorgon på +46 70 123 45 67", "kb/sv/"},
		{"Vad är ert telefonnummer?", "kb/sv/"},
		{"What is your phone number?", "kb/en/"},
		{"How much does Premium cost per month?", "kb/en/"},
	} {
		t.Run(c.text, func(t *testing.T) {
			hs := newHarness(t, func(cfg *lambda.Config) { cfg.Retriever = base })
			hs.connect("c1")
			hs.send("c1", msg("m1", c.text))
			src := hs.frames("c1")[0]
			if src.Type != lambda.TypeSources || len(src.Citations) == 0 {
				t.Fatalf("first frame %+v", src)
			}
			for _, cite := range src.Citations {
				if !strings.HasPrefix(cite.File, c.dir) {
					t.Errorf("citation %s:%d, want one from %s", cite.File, cite.Line, c.dir)
				}
			}
		})
	}
}
