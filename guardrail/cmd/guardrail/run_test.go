//go:build !js

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/groundwire/groundwire/guardrail"
)

// The scripts compare output; this pins the exit codes, which testscript's
// "! exec" does not tell apart.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	src := write("src.txt", "Premium costs 399 a month.")
	good := write("good.txt", "It costs 399.")
	bad := write("bad.txt", "It costs 499.")
	missing := filepath.Join(dir, "missing.txt")
	jsonl := write("in.jsonl", `{"id":"a","answer":"499.","sources":["399"]}`+"\n"+"garbage\n")

	for _, tc := range []struct {
		args  []string
		stdin string
		want  int
	}{
		{nil, "", exitError},
		{[]string{"nope"}, "", exitError},
		{[]string{"-h"}, "", exitOK},
		{[]string{"help"}, "", exitOK},
		{[]string{"help", "check"}, "", exitOK},
		{[]string{"help", "nope"}, "", exitError},
		{[]string{"version"}, "", exitOK},
		{[]string{"version", "x"}, "", exitError},

		{[]string{"extract", good}, "", exitOK},
		{[]string{"extract"}, "", exitOK},
		{[]string{"extract", missing}, "", exitError},
		{[]string{"extract", "-nope"}, "", exitError},
		{[]string{"extract", good, good}, "", exitError},

		{[]string{"check", "-source", src, good}, "", exitOK},
		{[]string{"check", "-source", src, bad}, "", exitBlocked},
		{[]string{"check", "-json", "-source", src, bad}, "", exitBlocked},
		{[]string{"check", "-source", src}, "No numbers.", exitOK},
		{[]string{"check", "-source", src}, "It is 1.", exitBlocked},
		{[]string{"check", good}, "", exitError},
		{[]string{"check", "-source", missing, good}, "", exitError},
		{[]string{"check", "-source", src, missing}, "", exitError},
		{[]string{"check", "-source", src, dir}, "", exitError},
		{[]string{"check", "-h"}, "", exitOK},
		{[]string{"check", "-query", "How much does Premium cost per month?"}, "Premium costs 399 kr.", exitOK},
		{[]string{"check", "-query", "Vad kostar Premium per månad?"}, "Premium kostar 349 kr.", exitBlocked},
		{[]string{"check", "-query", "Premium?", "-source", src}, "", exitError},
		{[]string{"check", "-kb", dir}, "", exitError},
		{[]string{"check", "-query", "Premium?", "-k", "-1"}, "", exitError},
		{[]string{"check", "-query", "Premium?", "-kb", missing}, "", exitError},

		{[]string{"batch", "-in", jsonl, "-out", filepath.Join(dir, "out.jsonl")}, "", exitOK},
		{[]string{"batch"}, "", exitOK},
		{[]string{"batch", "-in", missing}, "", exitError},
		{[]string{"batch", "-out", filepath.Join(missing, "x")}, "", exitError},
		{[]string{"batch", "-workers", "-2"}, "", exitError},
		{[]string{"batch", jsonl}, "", exitError},
	} {
		var stdout, stderr bytes.Buffer
		got := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
		if got != tc.want {
			t.Errorf("run(%q) = %d, want %d\nstdout: %s\nstderr: %s", tc.args, got, tc.want, stdout.String(), stderr.String())
		}
		if got == exitError && stderr.Len() == 0 {
			t.Errorf("run(%q): exit %d and nothing on stderr", tc.args, got)
		}
		if got != exitError && stderr.Len() != 0 {
			t.Errorf("run(%q): exit %d with stderr %q", tc.args, got, stderr.String())
		}
	}
}

func TestFormatNumberEscapes(t *testing.T) {
	sek, _ := guardrail.ParseUnit("SEK")
	month, _ := guardrail.ParseUnit("month")
	n := guardrail.Number{Text: "1\t0\\0\n", Canonical: "100", Kind: guardrail.KindGrouped, Unit: sek, Period: month, Start: 3, End: 9}
	got := formatNumber(n)
	want := "grouped\t1\\t0\\\\0\\n\t100\t3-9\tSEK/month\n"
	if got != want {
		t.Errorf("formatNumber = %q, want %q", got, want)
	}
	u := guardrail.Number{Text: "\u202e399", Canonical: "\u202e", Kind: guardrail.KindUnreadable, Start: 0, End: 6}
	if got, want := formatNumber(u), "unreadable\t\\u202E399\t\\u202E\t0-6\n"; got != want {
		t.Errorf("formatNumber = %q, want %q", got, want)
	}
	n.Unit, n.Period = 0, 0
	if got := formatNumber(n); strings.Count(got, "\t") != 3 || strings.Count(got, "\n") != 1 {
		t.Errorf("formatNumber without unit = %q: want 4 fields on one line", got)
	}
}

// TestExtractUsageNamesEveryKind keeps the kinds listed in "guardrail
// extract -h" those the package has.
func TestExtractUsageNamesEveryKind(t *testing.T) {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(extractCmd.usage, func(r rune) bool { return r == ' ' || r == '\n' || r == ',' || r == ';' }) {
		words[w] = true
	}
	for k := guardrail.Kind(1); !strings.HasPrefix(k.String(), "kind"); k++ { // String names an unknown kind "kindN"
		if !words[k.String()] {
			t.Errorf("extract usage does not name kind %q", k)
		}
	}
}

// TestCheckQueryConfidence: check -query -json reports the search's
// confidence, and none when nothing was found.
func TestCheckQueryConfidence(t *testing.T) {
	for q, want := range map[string]string{
		"How much does Premium cost per month?":                            `"confidence":"high"`,
		"My files vanished after I deleted them by mistake, can you help?": `"confidence":"low"`,
		"What does YouTube Premium cost?":                                  "",
	} {
		var stdout, stderr strings.Builder
		run([]string{"check", "-json", "-query", q}, strings.NewReader("Fine."), &stdout, &stderr)
		if want == "" {
			if strings.Contains(stdout.String(), `"confidence"`) {
				t.Errorf("%q: %s", q, stdout.String())
			}
		} else if !strings.Contains(stdout.String(), want) {
			t.Errorf("%q: want %s in %s", q, want, stdout.String())
		}
	}
}
