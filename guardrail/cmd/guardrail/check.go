package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/groundwire/groundwire/guardrail"
	"github.com/groundwire/groundwire/kb"
)

var checkCmd = &command{
	name:     "check",
	synopsis: "check (-source FILE [-source FILE ...] | -query Q [-kb DIR] [-k N]) [-json] [-strict] [ANSWER_FILE]",
	usage: `Verifies the answer in ANSWER_FILE (or stdin when it is absent or "-")
against source snippets. Every number of the answer is read as a quantity
(value after scale, unit or currency, period; or a date, time, range of
years, quarter, ordinal, phone number, name with digits such as A380) and
must be stated by at least one snippet: the same value, and where both print
a unit, a period, a bound ("up to", "at least") or whether tax is included
("exkl. moms"), the same one. A small count written as a word ("two
companies") that no snippet states or contradicts is "unverified": it blocks
only with -strict; so is a name whose letters a snippet names alone
("COVID-19" against "COVID"). A number no snippet states that one shown
operation over the snippets' quantities gives, where its sentence says it
computes ("4 788 kr a year" from "399 kr/month"; "150 kr more than" from 549
kr and 399 kr), is "derived": it blocks only with -strict too.
Otherwise the answer is blocked.

The snippets are either files, each -source FILE one snippet (its whole text),
or the top -k hits of searching the knowledge base for the query Q: the
embedded default base, or the markdown files under -kb DIR. A query that finds
nothing leaves no snippet: an answer with numbers is then blocked.

Prints the verdict, "grounded" or "blocked", then one line per number of the
answer, in order:

  STATUS<TAB>TEXT<TAB>CANONICAL<TAB>SOURCE[<TAB>FORMULA]

STATUS is "grounded", "derived", "unverified" or "NOT GROUNDED"; SOURCE is the
first snippet that grounds the number (of a derived one: that of its first
operand), -source FILE or kb FILE:LINE, or "-"; FORMULA, on a derived
number's line only, is its arithmetic ("399 kr/month × 12 = 4 788 kr a
year"). TEXT and FORMULA are escaped as in "guardrail extract".

With -json the output is one JSON object:
  {"verdict":"grounded"|"blocked","grounded":bool,
   "sources":[{"file":…},…],     (-query: {"file":…,"line":…,"snippet":…})
   "confidence":"high"|"low",    (-query, when something was found)
   "numbers":[{"text","canonical","kind","unit","period","start","end","state","grounded","citation",
               "formula","operands"},…]}
where "citation" is the index in "sources" of the grounding snippet, or -1;
a derived number adds "formula" and "operands", the indexes in "sources" of
its operands' snippets.

Exit status: 0 grounded, 1 blocked, 2 usage error, unreadable file or
knowledge base.
`,
	run: runCheck,
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// checkOptions are the parsed flags of check. The snippets come from
// -source files or from a knowledge-base query, see loadSources.
type checkOptions struct {
	sources stringList
	query   string
	kbDir   string
	k       int
	json    bool
	strict  bool
}

// cited is one snippet the answer is verified against.
type cited struct {
	File    string `json:"file"`              // the -source path, or the kb file
	Line    int    `json:"line,omitempty"`    // kb snippets: 1-based first line
	Snippet string `json:"snippet,omitempty"` // kb snippets: the text
	source  *guardrail.Source
}

// name is how the snippet is shown in the text output: its file escaped as
// a field is (escapeField), so that a bidi control in a file name cannot
// show the line in another order than it was written.
func (s cited) name() string {
	if s.Line > 0 {
		return escapeField(s.File) + ":" + strconv.Itoa(s.Line)
	}
	return escapeField(s.File)
}

func runCheck(c *command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opt checkOptions
	fs := newFlagSet(c)
	fs.Var(&opt.sources, "source", "a snippet `FILE` (repeatable; at least one)")
	fs.StringVar(&opt.query, "query", "", "search the knowledge base for `Q` and use the top hits as snippets")
	fs.StringVar(&opt.kbDir, "kb", "", "with -query: the knowledge base is the markdown files under `DIR` (default: the embedded one)")
	fs.IntVar(&opt.k, "k", 0, "with -query: use the top `N` hits (0: the kb default, 3)")
	fs.BoolVar(&opt.json, "json", false, "print the verdict as one JSON object")
	fs.BoolVar(&opt.strict, "strict", false, "strict policy: unverified numbers (small counts in words) and derived ones block too")
	if code, done := parseFlags(c, fs, args, stdout, stderr); done {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fs.NArg() > 1:
		return usageError(c, fs, stderr, "at most one ANSWER_FILE (flags go before ANSWER_FILE)")
	case len(opt.sources) > 0 && set["query"]:
		return usageError(c, fs, stderr, "-source and -query exclude each other")
	case len(opt.sources) == 0 && !set["query"]:
		return usageError(c, fs, stderr, "no -source or -query given")
	case set["query"] && strings.TrimSpace(opt.query) == "":
		return usageError(c, fs, stderr, "empty -query")
	case !set["query"] && (set["kb"] || set["k"]):
		return usageError(c, fs, stderr, "-kb and -k go with -query")
	case opt.k < 0:
		return usageError(c, fs, stderr, "-k must be >= 0")
	}
	sources, confidence, err := loadSources(opt, stderr)
	if err != nil {
		return errorf(stderr, c.name, "%v", err)
	}
	answer, _, err := readInput(fs.Args(), stdin)
	if err != nil {
		return errorf(stderr, c.name, "%v", err)
	}

	srcs := make([]*guardrail.Source, len(sources))
	for i, s := range sources {
		srcs[i] = s.source
	}
	v := policyOf(opt.strict).Verify(string(answer), srcs)

	w := bufio.NewWriter(stdout)
	if opt.json {
		err = writeCheckJSON(w, v, sources, confidence)
	} else {
		writeCheckText(w, v, sources)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return errorf(stderr, c.name, "writing output: %v", err)
	}
	if !v.Grounded {
		return exitBlocked
	}
	return exitOK
}

// loadSources returns the snippets named by the options, in order.
// Knowledge-base problems that do not stop the search (a bad file among good
// ones) are reported on stderr.
func loadSources(opt checkOptions, stderr io.Writer) ([]cited, string, error) {
	if opt.query != "" {
		return searchKB(opt, stderr)
	}
	out := make([]cited, 0, len(opt.sources))
	for _, path := range opt.sources {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, "", err
		}
		out = append(out, cited{File: path, source: guardrail.NewSource(string(data))})
	}
	return out, "", nil
}

// searchKB returns the top hits of the query in the knowledge base.
func searchKB(opt checkOptions, stderr io.Writer) ([]cited, string, error) {
	var base *kb.Base
	var err error
	if opt.kbDir != "" {
		base, err = kb.LoadDir(opt.kbDir)
	} else {
		base, err = kb.Default()
	}
	if err != nil {
		return nil, "", err
	}
	for _, p := range base.Problems() {
		fmt.Fprintf(stderr, "guardrail check: warning: %v\n", p)
	}
	res := base.Find(opt.query, opt.k)
	hits := res.Hits
	if len(hits) == 0 {
		fmt.Fprintln(stderr, "guardrail check: no snippet found for the query")
	}
	out := make([]cited, len(hits))
	for i, h := range hits {
		out[i] = cited{File: h.Snippet.File, Line: h.Snippet.Line, Snippet: h.Snippet.Text, source: h.Snippet.Source}
	}
	return out, string(res.Confidence), nil
}

// policyOf is the policy the -strict flag asks for.
func policyOf(strict bool) guardrail.Policy {
	if strict {
		return guardrail.Strict
	}
	return guardrail.Default
}

func verdictWord(grounded bool) string {
	if grounded {
		return "grounded"
	}
	return "blocked"
}

func writeCheckText(w *bufio.Writer, v guardrail.Verdict, sources []cited) {
	w.WriteString(verdictWord(v.Grounded))
	w.WriteByte('\n')
	for _, n := range v.Numbers {
		status, src := "NOT GROUNDED", "-"
		switch n.State {
		case guardrail.Grounded:
			status, src = "grounded", sources[n.Citation].name()
		case guardrail.Unverified:
			status = "unverified"
		case guardrail.Derived:
			status, src = "derived", sources[n.Citation].name()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s", status, escapeField(n.Text), escapeField(n.Canonical), escapeField(src))
		if n.Derivation != nil {
			fmt.Fprintf(w, "\t%s", escapeField(n.Formula))
		}
		w.WriteByte('\n')
	}
}

func writeCheckJSON(w io.Writer, v guardrail.Verdict, sources []cited, confidence string) error {
	numbers := v.Numbers
	if numbers == nil {
		numbers = []guardrail.NumberVerdict{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Verdict    string                    `json:"verdict"`
		Grounded   bool                      `json:"grounded"`
		Sources    []cited                   `json:"sources"`
		Confidence string                    `json:"confidence,omitempty"`
		Numbers    []guardrail.NumberVerdict `json:"numbers"`
	}{verdictWord(v.Grounded), v.Grounded, sources, confidence, numbers})
}
