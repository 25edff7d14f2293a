package guardrail

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// streamAll feeds text to a guard in the given pieces and returns the
// released text, whether Feed ever reported a block, and the verdict.
func streamAll(sources []*Source, pieces []string) (string, bool, Verdict) {
	g := NewStreamGuard(sources)
	var out strings.Builder
	sawBlock := false
	for _, p := range pieces {
		safe, ok := g.Feed(p)
		out.WriteString(safe)
		if !ok {
			sawBlock = true
		}
	}
	safe, v := g.Close()
	out.WriteString(safe)
	return out.String(), sawBlock, v
}

// wantReleased is what a guard must release for the whole text.
func wantReleased(text string, v Verdict) string {
	if first, ok := v.FirstUngrounded(); ok {
		return text[:first.Start]
	}
	return text
}

// splitAt cuts text at byte positions (possibly inside a rune).
func splitRandom(r *rand.Rand, text string) []string {
	var pieces []string
	for len(text) > 0 {
		n := 1 + r.IntN(min(len(text), 12))
		pieces = append(pieces, text[:n])
		text = text[n:]
	}
	return pieces
}

var streamSources = NewSources([]string{
	"Premium: 399 kr/månad. Basic: 99 kr/månad.",
	"Ring +46 8 123 45 67 eller 08-123 45 67, 08:00–17:00.",
	"Rabatt 20%, moms 12,5 %, 10 000 filer, 1 TB, till 2025-12-31.",
	"Upp till tjugofem användare, two thousand files, 1,000 licenser, 181,674,817 rader.",
})

// fragments from which answers are generated: prose, numbers of every
// kind, grounded and not, and pieces that look like the start of one.
var fragments = []string{
	"Premium", " costs", " kostar", " 399", " kr", "/månad", ".", ",", " ", "  ", "\n", "\n1. ", "\n- ",
	" 99", " 98", " 12,5", " 12.5", " 12,50", " %", "%", " 20", " 21", "20 %", " 10 000", " 10\u00a0000",
	" 10000", " 1 TB", "1TB", " 2025-12-31", " 2025/12/31", " 2025-12-30", " +46 8 123 45 67",
	" +46-8-123-45-67", " 08-123 45 67", " 070-123 45 67", " 08:00", "–17:00", " 14:30", " 1,000",
	" 1.000", " 1000", " 181,674,817", " A380", " COVID-19", " twenty", "-five", " tjugofem",
	" tjugo", " fem", " two", " thousand", " hundred", " and", " one", " a", " ninety-nine",
	" −5", " -", "+", " ９９", " ٣٩٩", " 3\u200b99", " .5", " 0,5", " x", " och", " användare",
	" procent", " percent", "3 4 5", "1-2", " é", "\u00e5", "\xff", "\xe2\x82",
	"-first", " hundredth", "första", " mid", "-2016", "s",
}

func genAnswer(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(14); n >= 0; n-- {
		b.WriteString(fragments[r.IntN(len(fragments))])
	}
	return b.String()
}

// TestStreamGuardAnySplit is the property of SPEC §4: feeding the same text
// in any split gives the same released text and verdict as the whole.
func TestStreamGuardAnySplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 4000; i++ {
		text := genAnswer(r)
		whole := Verify(text, streamSources)
		want := wantReleased(text, whole)
		for _, pieces := range [][]string{{text}, splitRandom(r, text), strings.SplitAfter(text, "")} {
			got, sawBlock, v := streamAll(streamSources, pieces)
			if got != want {
				t.Fatalf("text %q split %q:\nreleased %q\n    want %q", text, pieces, got, want)
			}
			if !reflect.DeepEqual(v, whole) && !(len(v.Numbers) == 0 && len(whole.Numbers) == 0 && v.Grounded == whole.Grounded) {
				t.Fatalf("text %q split %q:\nverdict %+v\n   want %+v", text, pieces, v, whole)
			}
			if sawBlock && whole.Grounded {
				t.Fatalf("text %q: Feed reported a block on a grounded answer", text)
			}
		}
	}
}

func TestStreamGuardReleasesProseAtOnce(t *testing.T) {
	g := NewStreamGuard(streamSources)
	steps := []struct{ feed, want string }{
		{"Premium costs ", "Premium costs "},
		{"3", ""},     // may become 399
		{"99", ""},    // may become 399.5, 399 %, 399 000
		{" kr", ""},   // may still become "399 kr per year"
		{" per ", ""}, // the period is not known yet
		{"month.\n", "399 kr per month.\n"},
		{"Call +46 8", "Call "}, // a phone number may grow
		{" 123 45 67 now", "+46 8 123 45 67 "},
	}
	for _, s := range steps {
		got, ok := g.Feed(s.feed)
		if !ok || got != s.want {
			t.Fatalf("Feed(%q) = %q, %v; want %q", s.feed, got, ok, s.want)
		}
	}
	rest, v := g.Close()
	if rest != "now" || !v.Grounded || len(v.Numbers) != 2 {
		t.Fatalf("Close = %q, %+v", rest, v)
	}
}

func TestStreamGuardBlocks(t *testing.T) {
	g := NewStreamGuard(streamSources)
	out, _ := g.Feed("Premium costs 3")
	if out != "Premium costs " {
		t.Fatalf("got %q", out)
	}
	if out, ok := g.Feed("77 kr per month"); !ok || out != "" {
		t.Fatalf("Feed = %q, %v; want the quantity held (it may still grow)", out, ok)
	}
	if out, ok := g.Feed("."); !ok || out != "" {
		t.Fatalf("Feed = %q, %v; want the quantity held (the sentence may still say it computes)", out, ok)
	}
	if out, ok := g.Feed(" Then"); ok || out != "" {
		t.Fatalf("Feed = %q, %v; want a block", out, ok)
	}
	b, ok := g.Blocked()
	if !ok || b.Text != "377 kr per month" || b.Grounded || b.State != Ungrounded {
		t.Fatalf("Blocked = %+v, %v", b, ok)
	}
	if out, ok := g.Feed(" and 399 kr"); ok || out != "" {
		t.Fatalf("after a block nothing is released: %q, %v", out, ok)
	}
	out, v := g.Close()
	if out != "" || v.Grounded || len(v.Numbers) != 2 {
		t.Fatalf("Close = %q, %+v", out, v)
	}
	if _, again := g.Close(); again.Grounded {
		t.Fatal("second Close must keep the verdict")
	}
}

func TestStreamGuardHoldsTwentyFive(t *testing.T) {
	src := NewSources([]string{"Upp till 25 användare."})
	g := NewStreamGuard(src)
	if out, ok := g.Feed("up to twenty"); out != "up to " || !ok {
		t.Fatalf("got %q %v", out, ok)
	}
	if out, ok := g.Feed("-five users"); out != "" || !ok {
		t.Fatalf("got %q %v", out, ok)
	}
	if out, ok := g.Feed("."); out != "twenty-five users" || !ok { // "." may start ".5"
		t.Fatalf("got %q %v", out, ok)
	}
}
