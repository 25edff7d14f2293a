//go:build !linux

package dynamostore_test

import "os/exec"

func dieWithParent(cmd *exec.Cmd) {}
