package lambda_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/lambdatest"
)

func TestPriceQuestionSwedish(t *testing.T) {
	for _, c := range []struct{ name, frame, want string }{
		{"detected", `{"type":"message","id":"m1","text":"Vad kostar Premium?"}`, "399"},
		{"lang field", `{"type":"message","id":"m1","text":"Premium price?","lang":"sv"}`, "399"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t)
			hs.connect("c1")
			hs.send("c1", c.frame)
			fs := hs.frames("c1")
			if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:verified"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			resp := last(fs, lambda.TypeResponse)
			if !strings.Contains(resp.Text, c.want) || resp.Text != deltas(fs, "m1") {
				t.Fatalf("text %q deltas %q", resp.Text, deltas(fs, "m1"))
			}
			if lambda.DetectLang(resp.Text) != lambda.Swedish {
				t.Fatalf("answer not Swedish: %q", resp.Text)
			}
		})
	}
}

func TestCitationsAndNumberIndexes(t *testing.T) {
	hs := newHarness(t)
	hs.connect("c1")
	hs.send("c1", msg("m1", "$say Basic plan is 99 kr/month and Premium 399 kr/month."))
	fs := hs.frames("c1")
	src := fs[0]
	resp := last(fs, lambda.TypeResponse)
	if resp.Status != lambda.StatusVerified {
		t.Fatalf("status %s: %+v", resp.Status, resp)
	}
	if len(src.Citations) != len(resp.Citations) {
		t.Fatalf("sources %v, citations %v", src.Citations, resp.Citations)
	}
	for i := range src.Citations {
		if src.Citations[i] != resp.Citations[i] {
			t.Fatalf("citation %d differs: %v vs %v", i, src.Citations[i], resp.Citations[i])
		}
	}
	for _, n := range resp.Numbers {
		if n.Citation < 0 || n.Citation >= len(resp.Citations) || !strings.Contains(resp.Citations[n.Citation].Snippet, n.Text) {
			t.Fatalf("number %+v does not index a citation holding it: %v", n, resp.Citations)
		}
	}
	if resp.Text != "Basic plan is 99 kr/month and Premium 399 kr/month." {
		t.Fatalf("$say text %q", resp.Text)
	}
}

func TestNoReferences(t *testing.T) {
	for _, c := range []struct{ text, lang, want string }{
		{"What is the weather like on Mars?", "", "I couldn't find any references to this in the knowledge base."},
		{"Hur är vädret på Mars?", "", "Jag hittar inget stöd i kunskapsbasen."},
		{"Weather on Mars?", "sv", "Jag hittar inget stöd i kunskapsbasen."},
	} {
		t.Run(c.text, func(t *testing.T) {
			model := &countingModel{Model: lambda.NewMock(lambda.MockDelay(0, 0))}
			hs := newHarness(t, func(cfg *lambda.Config) { cfg.Model = model })
			hs.connect("c1")
			hs.send("c1", msgLang("m1", c.text, c.lang))
			fs := hs.frames("c1")
			if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:done response:m1:no_sources"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			if fs[0].Citations == nil || len(fs[0].Citations) != 0 {
				t.Fatalf("sources citations %#v, want []", fs[0].Citations)
			}
			if !strings.Contains(string(hs.sender.Raw("c1")[0]), `"citations":[]`) {
				t.Fatalf("sources frame %s", hs.sender.Raw("c1")[0])
			}
			resp := last(fs, lambda.TypeResponse)
			if resp.Text != c.want || deltas(fs, "m1") != c.want {
				t.Fatalf("text %q deltas %q, want %q", resp.Text, deltas(fs, "m1"), c.want)
			}
			if len(resp.Numbers) != 0 || len(resp.Citations) != 0 || resp.Error != "" {
				t.Fatalf("response %+v", resp)
			}
			if model.count() != 0 {
				t.Fatalf("model called %d times", model.count())
			}
		})
	}
}

func TestBlocked(t *testing.T) {
	for _, c := range []struct {
		name, text, lang, blocked, errLine, bad string
	}{
		{"say en", "$say Premium costs 499 kr/month.", "", "I cannot verify that.", "Verification failed: Number mismatch", "499"},
		{"say sv", "$say Premium kostar 499 kr/månad.", "", "Jag kan inte verifiera det.", "Verifieringen misslyckades: siffrorna stämmer inte", "499"},
		{"hallucinate", "How much does Premium cost? hallucinate", "", "I cannot verify that.", "Verification failed: Number mismatch", ""},
		{"hallucinate sv", "Vad kostar Premium? hallucinate", "sv", "Jag kan inte verifiera det.", "Verifieringen misslyckades: siffrorna stämmer inte", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			hs := newHarness(t)
			hs.connect("c1")
			hs.send("c1", msgLang("m1", c.text, c.lang))
			fs := hs.frames("c1")
			if got, want := withoutStream(fs), "sources:m1 stream_end:m1:blocked response:m1:blocked"; got != want {
				t.Fatalf("frames: %s\nwant %s", got, want)
			}
			resp := last(fs, lambda.TypeResponse)
			if resp.Text != c.blocked || resp.Error != c.errLine {
				t.Fatalf("response %q / %q", resp.Text, resp.Error)
			}
			if len(resp.Citations) == 0 || len(resp.Citations) != len(fs[0].Citations) {
				t.Fatalf("blocked response citations %v (sources %v)", resp.Citations, fs[0].Citations)
			}
			ungrounded := 0
			for _, n := range resp.Numbers {
				if !n.Grounded {
					if n.Citation != -1 || n.Text != "" || n.Canonical != "" {
						t.Fatalf("ungrounded number not withheld: %+v", n)
					}
					ungrounded++
				}
			}
			if ungrounded == 0 {
				t.Fatalf("no ungrounded number in %+v", resp.Numbers)
			}
			// hold mode: nothing ungrounded reached the client, in any frame
			assertGroundedDeltas(t, fs, "m1")
			if all, _ := json.Marshal(fs); c.bad != "" && strings.Contains(string(all), c.bad) {
				t.Fatalf("%q reached the client: %s", c.bad, all)
			}
		})
	}
}

func TestAfterMode(t *testing.T) {
	hs := newHarness(t, func(cfg *lambda.Config) { cfg.Mode = lambda.ModeAfter })
	hs.connect("c1")
	hs.send("c1", msg("m1", "$say Premium costs 499 kr/month."))
	fs := hs.frames("c1")
	if got, want := hs.summary("c1"), "sources:m1 stream:m1 stream_end:m1:blocked response:m1:blocked"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if d := deltas(fs, "m1"); d != "Premium costs 499 kr/month." {
		t.Fatalf("after mode streams everything: %q", d)
	}
	if resp := last(fs, lambda.TypeResponse); resp.Text != "I cannot verify that." {
		t.Fatalf("blocked text %q", resp.Text)
	}

	hs.sender.Reset("c1")
	hs.send("c1", msg("m2", "$say Premium costs 399 kr/month."))
	fs = hs.frames("c1")
	if got, want := hs.summary("c1"), "sources:m2 stream:m2 stream_end:m2:done response:m2:verified"; got != want {
		t.Fatalf("frames: %s\nwant %s", got, want)
	}
	if len(fs) != 1+4+2 { // one stream frame per word token
		t.Fatalf("want one stream frame per token, got %d frames", len(fs))
	}
	if resp := last(fs, lambda.TypeResponse); resp.Text != "Premium costs 399 kr/month." {
		t.Fatalf("text %q", resp.Text)
	}
}

func TestModelErrors(t *testing.T) {
	t.Run("at start", func(t *testing.T) {
		hs := newHarness(t, func(cfg *lambda.Config) { cfg.Model = failingModel{atStart: true} })
		hs.connect("c1")
		hs.send("c1", msg("m1", "How much does Premium cost?"))
		fs := hs.frames("c1")
		if got, want := hs.summary("c1"), "sources:m1 error:m1:internal"; got != want {
			t.Fatalf("frames: %s\nwant %s", got, want)
		}
		if e := last(fs, lambda.TypeError); e.Message != "Internal error." {
			t.Fatalf("message %q", e.Message)
		}
		// the connection stays usable
		hs.sender.Reset("c1")
		hs.send("c1", cancel(""))
		if got := hs.summary("c1"); got != "" {
			t.Fatalf("answer record left behind: cancel sent %s", got)
		}
	})
	t.Run("mid-stream", func(t *testing.T) {
		hs := newHarness(t, func(cfg *lambda.Config) {
			cfg.Model = failingModel{}
			cfg.Mode = lambda.ModeAfter
		})
		hs.connect("c1")
		hs.send("c1", msg("m1", "How much does Premium cost?"))
		if got, want := hs.summary("c1"), "sources:m1 stream:m1 error:m1:internal"; got != want {
			t.Fatalf("frames: %s\nwant %s", got, want)
		}
	})
}

// assertGroundedDeltas checks that every number streamed for id is grounded
// in the citations of its sources frame.
func assertGroundedDeltas(t *testing.T, fs []lambdatest.Frame, id string) {
	t.Helper()
	var snippets []string
	for _, f := range fs {
		if f.Type == lambda.TypeSources && f.ID == id {
			for _, c := range f.Citations {
				snippets = append(snippets, c.Snippet)
			}
		}
	}
	d := deltas(fs, id)
	if v := guardrail.VerifyStrings(d, snippets); !v.Grounded {
		first, _ := v.FirstUngrounded()
		t.Fatalf("ungrounded %q streamed: %q", first.Text, d)
	}
}

// TestConfidence: the sources frame carries retrieval's confidence (absent
// with no sources), and an answer from snippets found with low confidence
// begins by saying they may help.
func TestConfidence(t *testing.T) {
	base, err := kb.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, conf, prefix string }{
		{"How much does Premium cost per month?", `"confidence":"high"`, ""},
		{"My files vanished after I deleted them by mistake, can you help?", `"confidence":"low"`, "This may help: "},
		{"What is the weather like on Mars?", "", ""},
	} {
		t.Run(c.text, func(t *testing.T) {
			hs := newHarness(t, func(cfg *lambda.Config) { cfg.Retriever = base })
			hs.connect("c1")
			hs.send("c1", msgLang("m1", c.text, ""))
			raw := string(hs.sender.Raw("c1")[0])
			if c.conf == "" && strings.Contains(raw, "confidence") || !strings.Contains(raw, c.conf) {
				t.Fatalf("sources frame %s, want %s", raw, c.conf)
			}
			fs := hs.frames("c1")
			resp := last(fs, lambda.TypeResponse)
			if c.prefix != "" && !strings.HasPrefix(resp.Text, c.prefix) || c.prefix == "" && strings.HasPrefix(resp.Text, "This may help") {
				t.Fatalf("response %q, want it to begin with %q", resp.Text, c.prefix)
			}
			if resp.Status == lambda.StatusVerified && deltas(fs, "m1") != resp.Text {
				t.Fatalf("deltas %q, response %q", deltas(fs, "m1"), resp.Text)
			}
		})
	}
}

// TestFormatControlsRemoved: a bidi override in the model's text (which
// would show a verified "399" as "993") is removed before the guard, so
// that what streams, what is verified and the response's text are the
// same, in hold and in after mode (issue 27).
func TestFormatControlsRemoved(t *testing.T) {
	for _, mode := range []lambda.Mode{lambda.ModeHold, lambda.ModeAfter} {
		for _, say := range []string{"Premium costs \u202e399\u202c kr/month.", "Premium costs 3\u202e99\u2066 kr/month\u200f."} {
			hs := newHarness(t, func(cfg *lambda.Config) { cfg.Mode = mode })
			hs.connect("c1")
			hs.send("c1", msg("m1", "$say "+say))
			fs := hs.frames("c1")
			if got, want := withoutStream(fs), "sources:m1 stream_end:m1:done response:m1:verified"; got != want {
				t.Fatalf("%v %q: frames %s, want %s", mode, say, got, want)
			}
			const want = "Premium costs 399 kr/month."
			if d := deltas(fs, "m1"); d != want {
				t.Errorf("%v %q: streamed %q, want %q", mode, say, d, want)
			}
			resp := last(fs, lambda.TypeResponse)
			if resp.Text != want || len(resp.Numbers) != 1 || resp.Numbers[0].Text != "399 kr/month" {
				t.Errorf("%v %q: response %q %+v", mode, say, resp.Text, resp.Numbers)
			}
			if all, _ := json.Marshal(fs); strings.ContainsAny(string(all), "\u202e\u2066\u200f") || strings.Contains(string(all), `\u202e`) {
				t.Errorf("%v %q: a control reached the client: %s", mode, say, all)
			}
		}
	}
}
