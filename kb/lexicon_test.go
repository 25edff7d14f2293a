package kb

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// referenceLexicon reads a lexicon table the plain way: a map from a stem
// to the lists of stems of its groups, in the table's order.
func referenceLexicon(text string) (syn, hyper map[string][]string) {
	syn, hyper = map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if len(line) < 2 || line[0] == '#' {
			continue
		}
		switch line[0] {
		case '=':
			words := strings.Split(line[1:], "|")
			var targets []string
			for _, w := range words {
				targets = append(targets, strings.TrimPrefix(w, "-"))
			}
			for _, w := range words {
				if !strings.HasPrefix(w, "-") {
					syn[w] = append(syn[w], targets...)
				}
			}
		case '^':
			srcs, hyps, ok := strings.Cut(line[1:], ">")
			if !ok {
				continue
			}
			for _, w := range strings.Split(srcs, "|") {
				hyper[w] = append(hyper[w], strings.Split(hyps, "|")...)
			}
		}
	}
	return syn, hyper
}

func lexTargets(l *lexicon, m map[string]lexChain, stem string) []string {
	var out []string
	l.each(m, stem, func(t string) { out = append(out, t) })
	return out
}

func TestParseLexiconFormat(t *testing.T) {
	l := parseLexicon("# comment\n=car|-auto|automobil\n^car|truck>vehicl|motor_vehicl\n^broken line\n=car|wagon\n")
	require.Equal(t, []string{"car", "auto", "automobil", "car", "wagon"}, lexTargets(l, l.syn, "car"))
	require.Equal(t, []string{"car", "auto", "automobil"}, lexTargets(l, l.syn, "automobil"))
	require.Empty(t, lexTargets(l, l.syn, "auto"), `"-auto" is a target, not a source`)
	require.Equal(t, []string{"vehicl", "motor_vehicl"}, lexTargets(l, l.hyper, "truck"))
	require.Empty(t, lexTargets(l, l.hyper, "vehicl"))
	require.Empty(t, lexTargets(l, l.syn, "broken"))
}

// TestParseLexiconTables checks the embedded tables read as the plain reading
// of their format reads them, stem by stem.
func TestParseLexiconTables(t *testing.T) {
	for name, text := range map[string]string{"en": lexiconEN, "sv": lexiconSV} {
		l := parseLexicon(text)
		syn, hyper := referenceLexicon(text)
		require.Len(t, l.syn, len(syn), name)
		require.Len(t, l.hyper, len(hyper), name)
		for kind, ref := range map[string]map[string][]string{"synonyms": syn, "hypernyms": hyper} {
			m := l.syn
			if kind == "hypernyms" {
				m = l.hyper
			}
			for stem, want := range ref {
				if got := lexTargets(l, m, stem); !slices.Equal(got, want) {
					t.Fatalf("%s %s of %q: got %q, want %q", name, kind, stem, got, want)
				}
			}
		}
	}
}
