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
