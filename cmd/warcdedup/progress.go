package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// progress shows, on a terminal, one line that says how far a run is: the
// current file, megabytes read of the inputs' total, the rate and the time
// left. Nothing is shown when standard error is not a terminal (a log
// file, a pipe, a batch system), with -q, or with --log-format json.
type progress struct {
	w       io.Writer
	total   int64        // bytes of all inputs (0: unknown, as for standard input)
	records func() int64 // records decided so far
	read    atomic.Int64
	file    atomic.Value // string: the file being read
	start   time.Time
	stop    chan struct{}
	done    sync.WaitGroup
}

// isTerminal says whether w is a character device: a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// startProgress starts the line's updates, four a second; nil when there is
// no terminal to show it on.
func startProgress(w io.Writer, inputs []string, records func() int64) *progress {
	if !isTerminal(w) {
		return nil
	}
	p := &progress{w: w, records: records, start: time.Now(), stop: make(chan struct{})}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && fi.Mode().IsRegular() {
			p.total += fi.Size()
		}
	}
	p.file.Store("")
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		p.show() // at once: a short run shows its line too
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\033[K") // clear the line for the summary
				return
			case <-t.C:
				p.show()
			}
		}
	}()
	return p
}

func (p *progress) show() {
	read := p.read.Load()
	el := time.Since(p.start).Seconds()
	rate := float64(read) / 1e6 / max(el, 1e-9)
	line := fmt.Sprintf("%s  %d records  %.1f MB", filepath.Base(p.file.Load().(string)), p.records(), float64(read)/1e6)
	if p.total > 0 {
		line += fmt.Sprintf(" of %.1f MB", float64(p.total)/1e6)
	}
	line += fmt.Sprintf("  %.1f MB/s", rate)
	if p.total > 0 && read > 0 && read < p.total {
		left := time.Duration(float64(p.total-read) / float64(read) * el * float64(time.Second))
		line += fmt.Sprintf("  ETA %s", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

// reader counts the bytes read from an input file, named name.
func (p *progress) reader(r io.Reader, name string) io.Reader {
	if p == nil {
		return r
	}
	p.file.Store(name)
	return &countingReader{r: r, n: &p.read}
}

// end stops the line and clears it.
func (p *progress) end() {
	if p == nil {
		return
	}
	close(p.stop)
	p.done.Wait()
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}
