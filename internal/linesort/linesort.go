// Package linesort sorts lines as LC_ALL=C sort(1) sorts them, in bounded
// memory: what does not fit a budget goes to sorted runs in a temporary
// directory, merged at the end. warcdedup's outputs that list every record
// or every duplicate of a run (the CDXJ index of its outputs, the report's
// clusters) are sorted so, since such a run may read an archive's thousands
// of files.
package linesort

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/warcdedup/warcdedup/internal/tempfile"
)

// DefaultBudget is the bytes of lines a Sorter holds before it writes
// them to a run file: about 100,000 lines of a CDXJ index.
const DefaultBudget = 32 << 20

// lineOverhead is what holding a line costs besides its bytes: its string
// header in the slice.
const lineOverhead = 16

// maxFanIn bounds the runs a Sorter keeps (and so its open files): when it
// has that many, they are merged into one.
var maxFanIn = 64

// Sorter sorts lines bytewise in bounded memory, as sort(1) does: it holds
// lines up to its budget, then sorts them and writes them to a run file;
// WriteTo or Each merges the runs. Run files have no name in the directory
// (internal/tempfile) and are read through their open descriptors, so that
// no run outlives the process, however it ends.
type Sorter struct {
	dir    string
	budget int
	held   []string
	size   int        // bytes held, with lineOverhead a line
	runs   []*os.File // sorted runs, unlinked
	spills int        // runs written of lines held
	err    error      // sticky: a run that could not be written or read
}

// New returns a Sorter whose runs go to dir ("" for the system's temporary
// directory) once budget bytes of lines are held (0 or less: DefaultBudget).
// Close closes the runs.
func New(dir string, budget int) *Sorter {
	if budget <= 0 {
		budget = DefaultBudget
	}
	return &Sorter{dir: dir, budget: budget}
}

// Add takes a line (without its newline; it may hold none).
func (s *Sorter) Add(line string) error {
	if s.err != nil {
		return s.err
	}
	if strings.IndexByte(line, '\n') >= 0 {
		return errors.New("linesort: a line with a line break cannot be sorted")
	}
	s.held = append(s.held, line)
	s.size += len(line) + lineOverhead
	if s.size >= s.budget {
		s.err = s.spill()
	}
	return s.err
}

// spill writes the lines held, sorted, to a new run; with maxFanIn runs, it
// merges them into one, so that each line is written again a few times at
// most (log base maxFanIn of the runs).
func (s *Sorter) spill() error {
	sort.Strings(s.held)
	f, err := s.writeRun(func(w *bufio.Writer) error {
		for _, l := range s.held {
			w.WriteString(l)
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.runs = append(s.runs, f)
	s.spills++
	clear(s.held)
	s.held, s.size = s.held[:0], 0
	if len(s.runs) < maxFanIn {
		return nil
	}
	runs := s.runs
	f, err = s.writeRun(func(w *bufio.Writer) error {
		return merge(runs, nil, func(l string) error {
			w.WriteString(l)
			return w.WriteByte('\n')
		})
	})
	if err != nil {
		return err
	}
	for _, r := range runs {
		r.Close()
	}
	s.runs = append(s.runs[:0], f)
	return nil
}

// writeRun writes a run with fill to a new unnamed file and returns it
// open.
func (s *Sorter) writeRun(fill func(*bufio.Writer) error) (*os.File, error) {
	f, err := tempfile.Open(s.dir, "warcdedup-sort-*.run")
	if err != nil {
		return nil, fmt.Errorf("linesort: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("linesort: %w", err)
	}
	return f, nil
}

// Each hands every line added to fn, sorted. It is called once, after the
// last Add; an error fn returns stops it and is returned.
func (s *Sorter) Each(fn func(line string) error) error {
	if s.err != nil {
		return s.err
	}
	sort.Strings(s.held)
	err := merge(s.runs, s.held, fn)
	if err != nil {
		s.err = err
	}
	return err
}

// WriteTo writes every line added, sorted, each followed by a newline. It
// is called once, after the last Add, in place of Each.
func (s *Sorter) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	err := s.Each(func(l string) error {
		bw.WriteString(l)
		n += int64(len(l)) + 1
		return bw.WriteByte('\n')
	})
	if err == nil {
		err = bw.Flush()
	}
	return n, err
}

// Close closes the runs, which frees their space, and drops the lines held.
func (s *Sorter) Close() error {
	var err error
	for _, f := range s.runs {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	s.runs, s.held, s.size = nil, nil, 0
	if s.err == nil {
		s.err = errors.New("linesort: the Sorter is closed")
	}
	return err
}

// merge hands the lines of the runs and of held (sorted) to fn, in order.
func merge(runs []*os.File, held []string, fn func(string) error) error {
	var h cursors
	for _, f := range runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("linesort: %w", err)
		}
		c := &cursor{r: bufio.NewReaderSize(f, 64<<10)}
		if err := c.next(); err != nil {
			return err
		}
		if c.ok {
			h = append(h, c)
		}
	}
	if len(held) > 0 {
		h = append(h, &cursor{held: held[1:], line: held[0], ok: true})
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := fn(c.line); err != nil {
			return err
		}
		if err := c.next(); err != nil {
			return err
		}
		if c.ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// cursor reads the lines of a run, or of the lines held.
type cursor struct {
	r    *bufio.Reader
	held []string
	line string
	ok   bool // line holds a line
}

// next reads the next line; ok is false after the last.
func (c *cursor) next() error {
	if c.r == nil {
		c.ok = len(c.held) > 0
		if c.ok {
			c.line, c.held = c.held[0], c.held[1:]
		}
		return nil
	}
	l, err := c.r.ReadString('\n')
	switch {
	case err == io.EOF && l == "":
		c.ok = false
		return nil
	case err == io.EOF:
		return errors.New("linesort: a run ends inside a line")
	case err != nil:
		return fmt.Errorf("linesort: %w", err)
	}
	c.line, c.ok = l[:len(l)-1], true
	return nil
}

// cursors is a heap of cursors by their line.
type cursors []*cursor

func (h cursors) Len() int           { return len(h) }
func (h cursors) Less(i, j int) bool { return h[i].line < h[j].line }
func (h cursors) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursors) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursors) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
