package tempfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpen: a temporary file reads back what was written and has no name in
// its directory while it is open, with O_TMPFILE and with the named fallback;
// a fallback file that cannot be removed is an error and is not left; a
// directory that does not exist is an error.
func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fallback bool
	}{{"unnamed", false}, {"fallback", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fallback {
				defer func(u func(string, string) (*os.File, error)) { unnamed = u }(unnamed)
				unnamed = func(string, string) (*os.File, error) { return nil, errors.ErrUnsupported }
			}
			dir := t.TempDir()
			if !tc.fallback {
				f, err := Unnamed(dir, "warcdedup-test-*")
				if err != nil {
					t.Skipf("no unnamed temporary files here: %v", err)
				}
				f.Close()
			}
			f, err := Open(dir, "warcdedup-test-*")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("spooled bytes"); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Errorf("the directory holds %v while the file is open", left)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(f); err != nil || string(b) != "spooled bytes" {
				t.Errorf("read back %q, %v", b, err)
			}
		})
	}
	t.Run("removal refused", func(t *testing.T) {
		defer func(u func(string, string) (*os.File, error), r func(string) error) { unnamed, remove = u, r }(unnamed, remove)
		unnamed = func(string, string) (*os.File, error) { return nil, errors.ErrUnsupported }
		remove = func(string) error { return errors.New("refused") }
		dir := t.TempDir()
		if f, err := Open(dir, "warcdedup-test-*"); err == nil {
			f.Close()
			t.Error("Open succeeded although the file could not be unlinked")
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("left: %v", left)
		}
	})
	if _, err := Open(filepath.Join(t.TempDir(), "none"), "warcdedup-test-*"); err == nil {
		t.Error("Open in a directory that does not exist succeeded")
	}
}
