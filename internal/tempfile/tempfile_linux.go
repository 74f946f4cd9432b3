package tempfile

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openUnnamed opens an unnamed file in dir (open(2), O_TMPFILE: Linux 3.11
// and later, on most local file systems). Its name, for messages, is the
// directory and the pattern.
func openUnnamed(dir, pattern string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, pattern)), nil
}
