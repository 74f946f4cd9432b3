package cdxj

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// DefaultSortBudget is the bytes of lines a Sorter holds before it writes
// them to a run file: a CDXJ line is about 300 bytes, so about 100,000 lines.
const DefaultSortBudget = 32 << 20

// lineOverhead is what holding a line costs besides its bytes: its string
// header in the slice.
const lineOverhead = 16

// maxFanIn bounds the run files one merge reads at once (and so the files
// open at once); past it, runs are merged into longer runs first.
var maxFanIn = 64

// Sorter sorts lines as LC_ALL=C sort sorts them (bytewise) in bounded memory,
// as sort(1) does: it holds lines up to its budget, then sorts them and writes
// them to a run file, and WriteTo merges the runs. An index of an archive's
// thousands of files has a line for every capture: holding them all would
// make memory grow with the input.
type Sorter struct {
	dir    string
	budget int
	held   []string
	size   int      // bytes held, with lineOverhead a line
	runs   []string // run files, each sorted
	err    error    // sticky: a run that could not be written
}

// NewSorter returns a Sorter whose runs go to dir ("" for the system's
// temporary directory) once budget bytes of lines are held (0 or less:
// DefaultSortBudget). Close removes the runs.
func NewSorter(dir string, budget int) *Sorter {
	if budget <= 0 {
		budget = DefaultSortBudget
	}
	return &Sorter{dir: dir, budget: budget}
}

// Add takes a line (without its newline; it may hold none).
func (s *Sorter) Add(line string) error {
	if s.err != nil {
		return s.err
	}
	if strings.IndexByte(line, '\n') >= 0 {
		return errors.New("cdxj: a line with a line break cannot be sorted")
	}
	s.held = append(s.held, line)
	s.size += len(line) + lineOverhead
	if s.size >= s.budget {
		s.err = s.spill()
	}
	return s.err
}

// spill writes the lines held, sorted, to a new run.
func (s *Sorter) spill() error {
	sort.Strings(s.held)
	path, err := s.writeRun(func(w *bufio.Writer) error {
		for _, l := range s.held {
			w.WriteString(l)
			w.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.runs = append(s.runs, path)
	clear(s.held)
	s.held, s.size = s.held[:0], 0
	return nil
}

// writeRun writes a run file with fill and returns its path; on an error
// the file is removed.
func (s *Sorter) writeRun(fill func(*bufio.Writer) error) (string, error) {
	f, err := os.CreateTemp(s.dir, "warcdedup-cdxj-*.run")
	if err != nil {
		return "", fmt.Errorf("cdxj: sorting: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("cdxj: sorting: %w", err)
	}
	return f.Name(), nil
}

// WriteTo writes every line added, sorted, each followed by a newline. It
// is called once, after the last Add.
func (s *Sorter) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	sort.Strings(s.held)
	// Runs past the fan-in are merged into longer ones first, the oldest
	// first, so that each line is read again a few times at most.
	for len(s.runs) > maxFanIn {
		group := s.runs[:maxFanIn]
		path, err := s.writeRun(func(bw *bufio.Writer) error {
			_, err := merge(bw, group, nil)
			return err
		})
		if err != nil {
			s.err = err
			return 0, err
		}
		for _, p := range group {
			os.Remove(p)
		}
		s.runs = append(s.runs[maxFanIn:], path)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	n, err := merge(bw, s.runs, s.held)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		s.err = err
	}
	return n, err
}

// Close removes the run files and drops the lines held.
func (s *Sorter) Close() error {
	var err error
	for _, p := range s.runs {
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	s.runs, s.held, s.size = nil, nil, 0
	if s.err == nil {
		s.err = errors.New("cdxj: the Sorter is closed")
	}
	return err
}

// merge writes the lines of the run files and of held (sorted) to w, in
// order.
func merge(w *bufio.Writer, runs []string, held []string) (int64, error) {
	var h cursors
	for _, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			h.close()
			return 0, fmt.Errorf("cdxj: sorting: %w", err)
		}
		c := &cursor{f: f, r: bufio.NewReaderSize(f, 64<<10)}
		if err := c.next(); err != nil {
			f.Close()
			h.close()
			return 0, err
		}
		if c.ok {
			h = append(h, c)
		} else {
			f.Close()
		}
	}
	if len(held) > 0 {
		h = append(h, &cursor{held: held[1:], line: held[0], ok: true})
	}
	defer h.close()
	heap.Init(&h)
	var n int64
	for len(h) > 0 {
		c := h[0]
		w.WriteString(c.line)
		w.WriteByte('\n')
		n += int64(len(c.line)) + 1
		if err := c.next(); err != nil {
			return n, err
		}
		if c.ok {
			heap.Fix(&h, 0)
		} else {
			c.close()
			heap.Pop(&h)
		}
	}
	return n, nil
}

// cursor reads the lines of a run file, or of the lines held.
type cursor struct {
	f    *os.File
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
		return fmt.Errorf("cdxj: sorting: %s ends inside a line", c.f.Name())
	case err != nil:
		return fmt.Errorf("cdxj: sorting: %w", err)
	}
	c.line, c.ok = l[:len(l)-1], true
	return nil
}

func (c *cursor) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
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

func (h cursors) close() {
	for _, c := range h {
		c.close()
	}
}
