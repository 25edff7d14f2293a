// The CLI tests do not run under js/wasm: testscript executes the test
// binary as the guardrail command, and js has no processes.

//go:build !js

package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"guardrail": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

var update = flag.Bool("update", false, "rewrite the expected output inside the scripts (review the diff)")

// TestScripts runs the scripts in testdata/script at the repository root:
// extract_*.txtar, check_*.txtar, batch_*.txtar, each with its expected
// output inside the archive.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "../../../testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
	})
}

// TestCitedNameEscaped: a format control in a snippet's file name (a bidi
// override would show "199 kr" as "rk 991" beside it) is written as \uXXXX
// in check's text output, as extract writes it.
func TestCitedNameEscaped(t *testing.T) {
	c := cited{File: "kb/\u202eprices.md", Line: 3}
	if got, want := c.name(), `kb/\u202Eprices.md:3`; got != want {
		t.Errorf("name() = %q, want %q", got, want)
	}
	if got, want := (cited{File: "a\tb.md"}).name(), `a\tb.md`; got != want {
		t.Errorf("name() = %q, want %q", got, want)
	}
}
