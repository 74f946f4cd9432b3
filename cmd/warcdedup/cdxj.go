package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/warcdedup/warcdedup/cdxj"
)

// writeCDXJ writes --cdxj: the index a replay tool would build of the
// outputs written (pywb's CDXJ, sorted), each named by its base name as
// pywb names files in a collection's archive directory. Outputs that are
// not files (standard output, a pipe) cannot be read back and are left out
// with a warning.
func writeCDXJ(o *output, reg *registry, stdout io.Writer, outputs []*output, warn func(string)) error {
	var lines []string
	for _, out := range outputs {
		if out.kind != outFile {
			warn(fmt.Sprintf("--cdxj: %s is not a file and is not indexed", out.name))
			continue
		}
		f, err := os.Open(out.path)
		if err != nil {
			return fmt.Errorf("--cdxj: %w", err)
		}
		ls, err := cdxj.Lines(f, filepath.Base(out.name), cdxj.Options{})
		f.Close()
		if err != nil {
			return fmt.Errorf("--cdxj: indexing %s: %w", out.name, err)
		}
		lines = append(lines, ls...)
	}
	slices.Sort(lines)
	w, err := o.create(reg, stdout, 0o644)
	if err != nil {
		return fmt.Errorf("--cdxj: %w", err)
	}
	for _, l := range lines {
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			w.abort()
			return fmt.Errorf("--cdxj: %w", err)
		}
	}
	return w.finish()
}
