//go:build !linux

package main

import (
	"os"
	"testing"
)

// pipeUnread needs the bytes left in a pipe (FIONREAD), which the tests ask
// of Linux only.
func pipeUnread(t *testing.T, _ *os.File) int {
	t.Helper()
	t.Skip("the bytes left in a pipe are read on Linux only")
	return 0
}

// shrinkPipe needs F_SETPIPE_SZ, which is Linux's.
func shrinkPipe(t *testing.T, _ *os.File) int {
	t.Helper()
	t.Skip("a pipe's size is set on Linux only")
	return 0
}
