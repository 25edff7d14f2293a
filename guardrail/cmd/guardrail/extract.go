package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/groundwire/groundwire/guardrail"
)

var extractCmd = &command{
	name:     "extract",
	synopsis: "extract [-json] [FILE]",
	usage: `Prints every number of FILE (or of stdin when FILE is absent or "-"),
in order of appearance, one a line:

  KIND<TAB>TEXT<TAB>CANONICAL<TAB>START-END[<TAB>UNIT[/PERIOD]]

KIND is integer, decimal, grouped, percent, date, time, phone, words,
ordinal, quarter, range (of years), ambiguous, name (letters and digits:
A380, COVID-19, compared as written) or unreadable (numerals
the guard has no reading for, character references such as &#52;, and
bidi and other format controls: a run blocks unless a snippet has the
same run, a format control always); TEXT is the number as written; CANONICAL the form the rule
compares; START-END the byte offsets of TEXT in the input (END exclusive);
UNIT, present only when a unit or a period is printed with the number, is the
normalised unit ("SEK" for kr, kronor and :-; "TB"; "day"), PERIOD what it is
per ("month" for /mån, per month, a month).
In TEXT and UNIT a backslash, tab, newline and carriage return are written
\\, \t, \n and \r, so that every number is one line of exactly 4 or 5 fields,
and a format control (U+202E, …) as \u202E, so that none reorders the line.

With -json each line is instead the JSON of the number:
  {"text":…,"canonical":…,"kind":…,"unit":…,"period":…,"start":…,"end":…}
("unit" and "period" omitted when there is none).

Empty input, or input without numbers, prints nothing. Exit status 0, or 2
when the input cannot be read.
`,
	run: runExtract,
}

func runExtract(c *command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet(c)
	asJSON := fs.Bool("json", false, "print one JSON object a line")
	if code, done := parseFlags(c, fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 1 {
		return usageError(c, fs, stderr, "at most one FILE (flags go before FILE)")
	}
	data, _, err := readInput(fs.Args(), stdin)
	if err != nil {
		return errorf(stderr, c.name, "%v", err)
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, n := range guardrail.Extract(string(data)) {
		if *asJSON {
			err = enc.Encode(n)
		} else {
			_, err = io.WriteString(w, formatNumber(n))
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return errorf(stderr, c.name, "writing output: %v", err)
	}
	return exitOK
}

// formatNumber is one line of extract's text output, newline included.
func formatNumber(n guardrail.Number) string {
	var b strings.Builder
	b.WriteString(n.Kind.String())
	b.WriteByte('\t')
	b.WriteString(escapeField(n.Text))
	b.WriteByte('\t')
	b.WriteString(escapeField(n.Canonical))
	b.WriteByte('\t')
	b.WriteString(strconv.Itoa(n.Start))
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(n.End))
	if n.Unit != 0 || n.Period != 0 {
		b.WriteByte('\t')
		b.WriteString(n.Unit.String()) // (a unit's name needs no escape)
		if n.Period != 0 {
			b.WriteString("/" + n.Period.String())
		}
	}
	b.WriteByte('\n')
	return b.String()
}

var fieldEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// escapeField makes s safe as one field of a tab-separated line, shown
// as it is stored: a format character (Cf: a bidi control would show the
// line in another order) is written as \uXXXX.
func escapeField(s string) string {
	if strings.ContainsAny(s, "\\\t\n\r") {
		s = fieldEscaper.Replace(s)
	}
	if strings.IndexFunc(s, isFormat) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isFormat(r) {
			fmt.Fprintf(&b, "\\u%04X", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }
