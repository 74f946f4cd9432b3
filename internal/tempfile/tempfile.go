// Package tempfile makes the temporary files a run keeps its spooled
// records, its kept records' references, its report and its sort runs in.
// None of them may outlive the process, however it ends: on Linux they are
// opened with O_TMPFILE, which gives a file no name in the directory at
// any moment; elsewhere, or on a file system that does not support it, a
// named file is created and removed at once, which leaves it behind only
// if the process dies between the two calls.
package tempfile

import (
	"os"
)

// Open returns a new, empty temporary file in dir ("" for the system's
// temporary directory), open for reading and writing, with no name in the
// directory. pattern names the file for the moment it has one (the
// fallback), as os.CreateTemp takes it.
func Open(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if f, err := unnamed(dir, pattern); err == nil {
		return f, nil
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// Unnamed opens a new temporary file with no name in dir ("" for the
// system's temporary directory), or fails (errors.ErrUnsupported where
// the system has no such files): for a caller with a fallback of its own.
func Unnamed(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	return unnamed(dir, pattern)
}

// unnamed opens a file with no name, and remove removes the fallback's
// named file; tests replace them.
var (
	unnamed = openUnnamed
	remove  = os.Remove
)
