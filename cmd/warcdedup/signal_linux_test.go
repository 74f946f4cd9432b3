package main

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// pipeUnread is the number of bytes written to the pipe whose reading end
// is r and not yet read.
func pipeUnread(t *testing.T, r *os.File) int {
	t.Helper()
	n, err := unix.IoctlGetInt(int(r.Fd()), unix.TIOCINQ)
	if err != nil {
		t.Fatalf("bytes left in the pipe: %v", err)
	}
	return n
}

// shrinkPipe makes the pipe whose reading end is r hold as few bytes as
// Linux allows, and returns how many: a writer blocks once they are
// unread.
func shrinkPipe(t *testing.T, r *os.File) int {
	t.Helper()
	n, err := unix.FcntlInt(r.Fd(), unix.F_SETPIPE_SZ, 4096)
	if err != nil {
		t.Fatalf("shrinking the pipe: %v", err)
	}
	return n
}
