// Package testfs holds file helpers for tests: a directory's contents as a
// map, so that a test can check that a command left a directory as it
// found it (no file removed, changed or added), and a file's content as a
// reader sees it (Plain: gzip members decompressed), and the check that
// such content is WARC records and nothing else (Framed).
package testfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Files returns every file and directory under dir by its path relative to
// dir: a file's content, or "dir" for a directory; nil if dir does not
// exist.
func Files(t testing.TB, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			files[rel] = "dir"
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
