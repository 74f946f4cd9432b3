package warcio

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// A spool that cannot be written (temporary directory missing, or full) is an
// I/O error of the reader's own: it fails the file in strict and lenient mode
// alike, naming the record whose bytes could not be kept, and is never taken
// for damage in the input.
func TestSpoolFailure(t *testing.T) {
	big := page(1, 64<<10)
	plain := writeWARC(t, false, big, textPage(2), textPage(3))
	inputs := []struct {
		name string
		in   []byte
	}{
		{"plain", plain},
		{"member per record", writeWARC(t, true, big, textPage(2), textPage(3))},
		{"whole-file gzip", gzipMembers(t, plain)},
		{"record spanning members", gzipMembers(t, plain[:len(plain)/3], plain[len(plain)/3:])},
	}
	dirs := []struct {
		name  string
		dir   func(t *testing.T) string
		cause error
	}{
		{"nonexistent dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nonexistent") }, fs.ErrNotExist},
		{"full filesystem", tinyFilesystem, syscall.ENOSPC},
	}
	for _, d := range dirs {
		t.Run(d.name, func(t *testing.T) {
			dir := d.dir(t)
			for _, in := range inputs {
				for _, lenient := range []bool{false, true} {
					r := NewReader(bytes.NewReader(in.in), in.name)
					r.KeepRaw, r.Lenient, r.SpoolMemory, r.TempDir = true, lenient, 4096, dir
					recs, err := readRecords(r)
					where := in.name
					if lenient {
						where += ", lenient"
					}
					var pe *ParseError
					if !errors.As(err, &pe) || !errors.Is(err, ErrSpool) || !errors.Is(err, d.cause) {
						t.Errorf("%s: got %d records and error %v, want a *ParseError wrapping ErrSpool and %v",
							where, len(recs), err, d.cause)
						continue
					}
					t.Logf("%s: %v", where, err)
					if pe.File != in.name || pe.Offset != 0 || pe.RecordID != testID(1) {
						t.Errorf("%s: error names %q offset %d record %q, want %q offset 0 record %s",
							where, pe.File, pe.Offset, pe.RecordID, in.name, testID(1))
					}
					if len(recs) != 0 {
						t.Errorf("%s: %d records returned before the failure", where, len(recs))
					}
					if _, again := r.Next(); again != err {
						t.Errorf("%s: Next after the failure gives %v", where, again)
					}
				}
			}
			if d.cause == syscall.ENOSPC {
				if left := dirNames(t, dir); len(left) != 0 {
					t.Errorf("files left in the temporary directory: %v", left)
				}
			}
		})
	}
}

// tinyFilesystem returns a directory on a 32 KB tmpfs, or skips where mounting
// one is not allowed (only root may).
func tinyFilesystem(t *testing.T) string {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=32k"); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// failingReader returns its input up to n bytes, then err.
type failingReader struct {
	r   io.Reader
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

// An error from the input (EIO, a network filesystem that went away) is no
// damage in the file: it fails the file in strict and lenient mode, wrapping
// ErrRead and the input's error, and the records returned before it are whole.
func TestInputReadError(t *testing.T) {
	blocks := [][]byte{page(1, 3000)}
	for i := 2; i <= 12; i++ {
		blocks = append(blocks, textPage(i))
	}
	blocks = append(blocks, page(13, 40<<10), textPage(14))
	plain := writeWARC(t, false, blocks...)
	inputs := []struct {
		name string
		in   []byte
	}{
		{"plain", plain},
		{"member per record", writeWARC(t, true, blocks...)},
		{"whole-file gzip", gzipMembers(t, plain)},
	}
	errConn := errors.New("connection reset by peer")
	for _, in := range inputs {
		clean, err := readAll(t, in.name, in.in, false)
		if err != nil || len(clean) != len(blocks) {
			t.Fatalf("%s: clean read: %d records, %v", in.name, len(clean), err)
		}
		// Cut inside a header, inside a block, at a record's start, and at the
		// last byte.
		cuts := []int64{clean[1].Offset + 20, clean[12].Offset + 3000, clean[5].Offset, int64(len(in.in) - 1)}
		if in.name == "whole-file gzip" {
			cuts = []int64{100, int64(len(in.in) / 2), int64(len(in.in) - 1)}
		}
		for _, cut := range cuts {
			for _, cause := range []error{syscall.EIO, errConn} {
				for _, lenient := range []bool{false, true} {
					r := NewReader(&failingReader{bytes.NewReader(in.in), int(cut), cause}, in.name)
					r.KeepRaw, r.Lenient, r.VerifyDigests = true, lenient, true
					recs, err := readRecords(r)
					where := in.name + " cut at " + strconv.FormatInt(cut, 10) + ", " + cause.Error()
					if lenient {
						where += ", lenient"
					}
					var pe *ParseError
					if !errors.As(err, &pe) || !errors.Is(err, ErrRead) || !errors.Is(err, cause) {
						t.Errorf("%s: got %d records and error %v, want a *ParseError wrapping ErrRead and %v",
							where, len(recs), err, cause)
						continue
					}
					t.Logf("%s: %d records, then %v", where, len(recs), err)
					if pe.File != in.name {
						t.Errorf("%s: error names file %q", where, pe.File)
					}
					if _, again := r.Next(); again != err {
						t.Errorf("%s: Next after the failure gives %v", where, again)
					}
					for i, rec := range recs {
						if rec.Kind != KindWARC || rec.ID() != clean[i].ID() ||
							!bytes.Equal(rawPlain(t, rec.Raw), rawPlain(t, clean[i].Raw)) {
							t.Errorf("%s: record %d (%s, %s) is not the clean read's", where, i, rec.Kind, rec.ID())
						}
					}
					if n := len(recs); n < len(clean) && pe.RecordID != "" && pe.RecordID != clean[n].ID() {
						t.Errorf("%s: error names record %s, the failing record is %s", where, pe.RecordID, clean[n].ID())
					}
				}
			}
		}
	}
}

// rawPlain returns a record's raw bytes as a plain Writer writes them.
func rawPlain(t *testing.T, raw *Raw) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := NewWriter(&b, false).CopyRaw(raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
