//go:build unix

package main

import (
	"fmt"
	"io"
	"syscall"
)

// raiseFileLimit raises the soft limit of open files to the hard one: each
// connection is a file, here and in the servers started here (they inherit
// it).
func raiseFileLimit(stderr io.Writer) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return
	}
	if l.Cur < l.Max {
		l.Cur = l.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			fmt.Fprintf(stderr, "loadgen: cannot raise the open-file limit: %v\n", err)
			return
		}
	}
	fmt.Fprintf(stderr, "loadgen: open-file limit %d\n", l.Cur)
}
