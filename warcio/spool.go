package warcio

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/warcdedup/warcdedup/internal/tempfile"
)

// DefaultSpoolMemory is how many bytes of one record a [Spool] keeps in memory
// before it moves to a temporary file. Most web pages are far smaller; a video
// record is not, and must not cost its size in RAM.
const DefaultSpoolMemory = 1 << 20

// Spool holds a byte sequence that may be large: in memory up to a limit, then in
// a temporary file. It is how a record's exact input bytes wait, with bounded
// memory, until the decision about the record is made.
type Spool struct {
	mem   []byte
	f     *os.File
	n     int64
	limit int
	dir   string
	err   error
	// name is the temporary file's name while it is still linked: only when it
	// could not be removed at creation.
	name string
	// sizeOnly: the spool counts the bytes written and keeps none of them.
	sizeOnly bool
}

// NewSpool returns an empty spool keeping up to limit bytes in memory and the rest
// in a temporary file in dir ("" for the system default) that has no name
// (internal/tempfile), or is named warcdedup-spool-* and unlinked as soon as it
// is created.
func NewSpool(limit int, dir string) *Spool {
	s := &Spool{limit: limit, dir: dir}
	if b, ok := memPool.Get().(*[]byte); ok {
		s.mem = (*b)[:0]
	}
	return s
}

// newSizeSpool returns a spool that only counts what is written to it: Len
// and Truncate work, and the contents read back as an error.
func newSizeSpool() *Spool { return &Spool{sizeOnly: true} }

// errSizeOnly is what reading a size-only spool's contents gives.
var errSizeOnly = errors.New("warcio: the record's bytes were not kept, only their size (Reader.SizeOnly)")

// memPool recycles spool buffers: every record passes through one, and without
// reuse a run allocates its whole input again in garbage (measured: 176 MB of
// allocation to pass through a 2.5 MB file).
var memPool sync.Pool

// Free returns the spool's memory for reuse and removes its temporary file. The
// spool and any slice from Bytes must not be used after.
func (s *Spool) Free() {
	s.Close()
	if cap(s.mem) > 0 && cap(s.mem) <= 4<<20 {
		b := s.mem[:0]
		memPool.Put(&b)
	}
	s.mem = nil
	s.n = 0
}

// Len is the number of bytes written.
func (s *Spool) Len() int64 { return s.n }

// Write appends p. Errors from the temporary file are sticky.
func (s *Spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.sizeOnly {
		s.n += int64(len(p))
		return len(p), nil
	}
	if s.f == nil && len(s.mem)+len(p) <= s.limit {
		s.mem = append(s.mem, p...)
		s.n += int64(len(p))
		return len(p), nil
	}
	if s.f == nil {
		// A file with no name (O_TMPFILE) or, where there are none, one
		// unlinked at once: it lives only as long as its descriptor, and a
		// run that is killed leaves nothing in the temporary directory.
		f, err := unnamedTemp(s.dir, "warcdedup-spool-*")
		if err != nil {
			if f, err = os.CreateTemp(s.dir, "warcdedup-spool-*"); err != nil {
				s.err = err
				return 0, err
			}
			if removeTemp(f.Name()) != nil {
				s.name = f.Name()
			}
		}
		s.f = f
		if _, err := f.Write(s.mem); err != nil {
			s.err = err
			return 0, err
		}
		s.mem = s.mem[:0]
	}
	n, err := s.f.Write(p)
	s.n += int64(n)
	if err != nil {
		s.err = err
	}
	return n, err
}

// Bytes returns the contents when they are held in memory, and false otherwise.
// The slice is valid until the next Write, Truncate or Close.
func (s *Spool) Bytes() ([]byte, bool) {
	if s.f != nil || s.sizeOnly {
		return nil, false
	}
	return s.mem, true
}

// Truncate shortens the spool to n bytes (n <= Len).
func (s *Spool) Truncate(n int64) error {
	if n >= s.n {
		return nil
	}
	s.n = n
	if s.sizeOnly {
		return nil
	}
	if s.f == nil {
		s.mem = s.mem[:n]
		return nil
	}
	if err := s.f.Truncate(n); err != nil {
		return err
	}
	_, err := s.f.Seek(n, io.SeekStart)
	return err
}

// WriteTo copies the contents to w.
func (s *Spool) WriteTo(w io.Writer) (int64, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.sizeOnly {
		return 0, errSizeOnly
	}
	if s.f == nil {
		n, err := w.Write(s.mem)
		return int64(n), err
	}
	return io.Copy(w, io.NewSectionReader(s.f, 0, s.n))
}

// NewReader returns a reader of the contents.
func (s *Spool) NewReader() io.Reader {
	if s.sizeOnly {
		return errReader{errSizeOnly}
	}
	if s.f == nil {
		return &memReader{b: s.mem}
	}
	return io.NewSectionReader(s.f, 0, s.n)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

type memReader struct{ b []byte }

func (m *memReader) Read(p []byte) (int, error) {
	if len(m.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.b)
	m.b = m.b[n:]
	return n, nil
}

// Reset empties the spool for reuse, removing any temporary file.
func (s *Spool) Reset() {
	s.Close()
	s.mem = s.mem[:0]
	s.n = 0
	s.err = nil
}

// Close closes the temporary file, if any, which frees its space.
func (s *Spool) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); err == nil {
			err = rerr
		}
		s.name = ""
	}
	s.f = nil
	return err
}

// removeTemp removes a spool's file name; a variable so that tests can make it
// fail, as it does on systems that cannot remove an open file.
var removeTemp = os.Remove

// unnamedTemp opens a temporary file with no name; tests replace it to take
// the named fallback.
var unnamedTemp = tempfile.Unnamed
