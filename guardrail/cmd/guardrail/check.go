package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/groundwire/groundwire/guardrail"
)

var checkCmd = &command{
	name:     "check",
	synopsis: "check -source FILE [-source FILE ...] [-json] [ANSWER_FILE]",
	usage: `Verifies the answer in ANSWER_FILE (or stdin when it is absent or "-")
against the source snippets: each -source FILE is one snippet, its whole text.
Every number of the answer must have the canonical form of a number in at
least one snippet; otherwise the answer is blocked.

Prints the verdict, "grounded" or "blocked", then one line per number of the
answer, in order:

  STATUS<TAB>TEXT<TAB>CANONICAL<TAB>SOURCE

STATUS is "grounded" or "NOT GROUNDED"; SOURCE is the first -source FILE that
grounds the number, or "-". TEXT is escaped as in "guardrail extract".

With -json the output is one JSON object:
  {"verdict":"grounded"|"blocked","grounded":bool,
   "sources":[{"file":…},…],
   "numbers":[{"text","canonical","kind","unit","start","end","grounded","citation"},…]}
where "citation" is the index in "sources" of the grounding snippet, or -1.

Exit status: 0 grounded, 1 blocked, 2 usage error or unreadable file.
`,
	run: runCheck,
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// checkOptions are the parsed flags of check. Sources come from files today;
// the knowledge-base flags (-query, -kb) add a second way to get them, see
// loadSources.
type checkOptions struct {
	sources stringList
	json    bool
}

// cited is one snippet the answer is verified against.
type cited struct {
	File   string `json:"file"`           // the -source path, or the kb file
	Line   int    `json:"line,omitempty"` // kb snippets: 1-based first line
	source *guardrail.Source
}

// name is how the snippet is shown in the text output.
func (s cited) name() string {
	if s.Line > 0 {
		return s.File + ":" + strconv.Itoa(s.Line)
	}
	return s.File
}

func runCheck(c *command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var opt checkOptions
	fs := newFlagSet(c)
	fs.Var(&opt.sources, "source", "a snippet `FILE` (repeatable; at least one)")
	fs.BoolVar(&opt.json, "json", false, "print the verdict as one JSON object")
	if code, done := parseFlags(c, fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 1 {
		return usageError(c, fs, stderr, "at most one ANSWER_FILE (flags go before ANSWER_FILE)")
	}
	if len(opt.sources) == 0 {
		return usageError(c, fs, stderr, "no -source given")
	}
	sources, err := loadSources(opt)
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
	v := guardrail.Verify(string(answer), srcs)

	w := bufio.NewWriter(stdout)
	if opt.json {
		err = writeCheckJSON(w, v, sources)
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
func loadSources(opt checkOptions) ([]cited, error) {
	out := make([]cited, 0, len(opt.sources))
	for _, path := range opt.sources {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		out = append(out, cited{File: path, source: guardrail.NewSource(string(data))})
	}
	return out, nil
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
		if n.Grounded {
			status, src = "grounded", sources[n.Citation].name()
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", status, escapeField(n.Text), escapeField(n.Canonical), escapeField(src))
	}
}

func writeCheckJSON(w io.Writer, v guardrail.Verdict, sources []cited) error {
	numbers := v.Numbers
	if numbers == nil {
		numbers = []guardrail.NumberVerdict{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Verdict  string                    `json:"verdict"`
		Grounded bool                      `json:"grounded"`
		Sources  []cited                   `json:"sources"`
		Numbers  []guardrail.NumberVerdict `json:"numbers"`
	}{verdictWord(v.Grounded), v.Grounded, sources, numbers})
}
