package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/warcdedup/warcdedup/cdxj"
	"github.com/warcdedup/warcdedup/internal/linesort"
)

// cdxjSortBudget is the bytes of index lines held before they are sorted
// into a run in the temporary directory (linesort); 0 is the package's
// default. Tests make it small.
var cdxjSortBudget = 0

// writeCDXJ writes --cdxj: the index a replay tool would build of the
// outputs written (pywb's CDXJ, sorted), each named by its base name as
// pywb names files in a collection's archive directory. Outputs that are
// not files (standard output, a pipe) cannot be read back and are left out
// with a warning. The lines are sorted in bounded memory, in runs in tmp
// ("" for the system's temporary directory): a run over an archive's
// thousands of files has a line for each of their records.
func writeCDXJ(o *output, reg *registry, stdout io.Writer, outputs []*output, tmp string, warn func(string)) error {
	s := linesort.New(tmp, cdxjSortBudget)
	defer s.Close()
	for _, out := range outputs {
		if out.kind != outFile {
			warn(fmt.Sprintf("--cdxj: %s is not a file and is not indexed", out.name))
			continue
		}
		f, err := os.Open(out.path)
		if err != nil {
			return fmt.Errorf("--cdxj: %w", err)
		}
		err = cdxj.Each(f, filepath.Base(out.name), cdxj.Options{TempDir: tmp}, s.Add)
		f.Close()
		if err != nil {
			return fmt.Errorf("--cdxj: indexing %s: %w", out.name, err)
		}
	}
	w, err := o.create(reg, stdout, 0o644)
	if err != nil {
		return fmt.Errorf("--cdxj: %w", err)
	}
	if _, err := s.WriteTo(w); err != nil {
		w.abort()
		return fmt.Errorf("--cdxj: %w", err)
	}
	return w.finish()
}
