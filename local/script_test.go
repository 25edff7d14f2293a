package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the local server's scripts in testdata/script at the
// repository root (local_*.txtar), with `local` as the command.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Files:               []string{"../testdata/script/local_help.txtar"},
		RequireExplicitExec: true,
	})
}
