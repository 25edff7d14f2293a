// Command guardrail extracts numbers from text and checks that the numbers of
// an answer are grounded in source snippets (SPEC §3).
//
// Usage:
//
//	guardrail extract [-json] [FILE]
//	guardrail check (-source FILE [-source FILE ...] | -query Q [-kb DIR] [-k N]) [-json] [-strict] [ANSWER_FILE]
//	guardrail batch [-in FILE] [-out FILE] [-workers N] [-max-line BYTES] [-strict]
//	guardrail help [COMMAND]
//	guardrail version
//
// Exit status: 0 success (check: grounded), 1 check: blocked, 2 usage or
// input/output error. See README.md, section CLI, for the formats.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// Exit codes.
const (
	exitOK      = 0 // success; check: the answer is grounded
	exitBlocked = 1 // check: the answer is blocked
	exitError   = 2 // usage error, unreadable input, unwritable output
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand.
type command struct {
	name     string
	synopsis string
	usage    string // full usage text, first line is the synopsis
	run      func(c *command, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

var commands []*command

func init() {
	// Set here rather than in the declaration: help refers to commands.
	commands = []*command{extractCmd, checkCmd, batchCmd, helpCmd, versionCmd}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it parses args (without the program name), runs
// the subcommand and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "guardrail: missing command")
		printUsage(stderr)
		return exitError
	}
	switch args[0] {
	case "-h", "-help", "--help":
		printUsage(stdout)
		return exitOK
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "guardrail: unknown command %q\n", args[0])
		printUsage(stderr)
		return exitError
	}
	return c.run(c, args[1:], stdin, stdout, stderr)
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `guardrail finds the numbers in a text and checks that every number of an
answer is grounded in a source snippet.

Usage:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  guardrail %s\n", c.synopsis)
	}
	fmt.Fprint(w, `
Exit status: 0 success (check: grounded), 1 check: blocked,
2 usage error or unreadable input / unwritable output.

Run "guardrail help COMMAND" or "guardrail COMMAND -h" for details.
`)
}

// newFlagSet returns a silent flag set for c: parseFlags reports errors and
// prints the usage.
func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs. It returns done=true with the exit code
// when the command must stop: -h prints usage on stdout (exit 0); a bad flag
// prints the error and usage on stderr (exit 2).
func parseFlags(c *command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	err := fs.Parse(args)
	if err == nil {
		return 0, false
	}
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(c, fs, stdout)
		return exitOK, true
	}
	return usageError(c, fs, stderr, "%v", err), true
}

// usageError prints msg and the usage of c on stderr and returns exitError.
func usageError(c *command, fs *flag.FlagSet, stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "guardrail %s: %s\n", c.name, fmt.Sprintf(format, a...))
	printCommandUsage(c, fs, stderr)
	return exitError
}

func printCommandUsage(c *command, fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: guardrail %s\n\n%s", c.synopsis, c.usage)
	if fs == nil {
		return
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// errorf prints an error of command name on stderr and returns exitError.
func errorf(stderr io.Writer, name, format string, a ...any) int {
	fmt.Fprintf(stderr, "guardrail %s: %s\n", name, fmt.Sprintf(format, a...))
	return exitError
}

// readInput reads the file named by the single optional positional argument,
// or stdin when there is none or it is "-".
func readInput(args []string, stdin io.Reader) (data []byte, name string, err error) {
	if len(args) == 0 || args[0] == "-" {
		data, err = io.ReadAll(stdin)
		if err != nil {
			return nil, "stdin", fmt.Errorf("reading stdin: %w", err)
		}
		return data, "stdin", nil
	}
	data, err = os.ReadFile(args[0])
	return data, args[0], err
}

var helpCmd = &command{
	name:     "help",
	synopsis: "help [COMMAND]",
	usage:    "Prints the usage of guardrail, or of one command.\n",
	run: func(_ *command, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		if len(args) == 0 {
			printUsage(stdout)
			return exitOK
		}
		c := lookup(args[0])
		if c == nil || len(args) > 1 {
			fmt.Fprintf(stderr, "guardrail help: unknown command %q\n", args[0])
			printUsage(stderr)
			return exitError
		}
		// Run the command with -h so that its flags are listed.
		return c.run(c, []string{"-h"}, nil, stdout, stderr)
	},
}

var versionCmd = &command{
	name:     "version",
	synopsis: "version",
	usage:    "Prints the version of guardrail (the module version, or \"devel\").\n",
	run: func(c *command, args []string, _ io.Reader, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
				printCommandUsage(c, nil, stdout)
				return exitOK
			}
			fmt.Fprintln(stderr, "guardrail version: no arguments expected")
			return exitError
		}
		v := "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		fmt.Fprintf(stdout, "guardrail %s\n", v)
		return exitOK
	},
}
