package warcio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/tempfile"
)

// A spool past its memory limit goes to a temporary file with no name (or
// one unlinked at once), so that a killed run leaves nothing behind; its contents stay readable
// through the open descriptor.
func TestSpoolTempFileUnlinked(t *testing.T) {
	dir := t.TempDir()
	s := NewSpool(16, dir)
	want := bytes.Repeat([]byte("0123456789"), 100)
	if _, err := s.Write(want[:10]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(want[10:]); err != nil {
		t.Fatal(err)
	}
	if _, inMem := s.Bytes(); inMem {
		t.Fatal("1000 bytes past a 16-byte limit are still in memory")
	}
	if left := dirNames(t, dir); len(left) != 0 {
		t.Errorf("temporary file still named in the directory while in use: %v", left)
	}
	if runtime.GOOS == "linux" {
		// The descriptor's link names the file it was created as.
		target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(s.f.Fd())))
		if err != nil {
			t.Fatal(err)
		}
		// An O_TMPFILE file is "#inode (deleted)"; the fallback's, the name
		// it was created as.
		if base := filepath.Base(target); !strings.HasPrefix(base, "#") && !strings.HasPrefix(base, "warcdedup-spool-") || !strings.HasSuffix(base, " (deleted)") {
			t.Errorf("spool file is %q, want an unnamed or deleted warcdedup-spool-* file", target)
		}
	}
	var got bytes.Buffer
	if _, err := s.WriteTo(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read back %d bytes, wrote %d", got.Len(), len(want))
	}
	if err := s.Truncate(500); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(s.NewReader())
	if err != nil || !bytes.Equal(b, want[:500]) {
		t.Fatalf("after Truncate(500): %d bytes, %v", len(b), err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// Where the name cannot be removed at creation, it is removed at Close.
func TestSpoolTempFileRemovedAtClose(t *testing.T) {
	dir := t.TempDir()
	removeTemp = func(string) error { return errors.New("removal refused") }
	unnamedTemp = func(string, string) (*os.File, error) { return nil, errors.ErrUnsupported }
	defer func() { removeTemp, unnamedTemp = os.Remove, tempfile.Unnamed }()
	s := NewSpool(0, dir)
	if _, err := s.Write([]byte("spilled")); err != nil {
		t.Fatal(err)
	}
	left := dirNames(t, dir)
	if len(left) != 1 || !strings.HasPrefix(left[0], "warcdedup-spool-") {
		t.Fatalf("directory holds %v, want the one spool file", left)
	}
	removeTemp = os.Remove
	s.Free()
	if left := dirNames(t, dir); len(left) != 0 {
		t.Errorf("left after Free: %v", left)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
