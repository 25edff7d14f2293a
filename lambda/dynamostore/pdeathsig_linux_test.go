package dynamostore_test

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the child die with the test process, even when that
// one is killed (timeout, panic) before its deferred cleanup runs.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
