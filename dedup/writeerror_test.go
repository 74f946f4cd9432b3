package dedup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
)

// fullWriter takes n bytes, then fails as a file on a full disk does.
type fullWriter struct{ n int }

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, &fs.PathError{Op: "write", Path: "out.warc", Err: syscall.ENOSPC}
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteErrorSaysWhere: an output that fails (ENOSPC) fails the Run with a
// *WriteError that names the output, the bytes it took, and the input record
// being written when it failed (the one whose bytes filled the write
// buffer), or none when it failed on the last flush; the error still is
// ENOSPC.
func TestWriteErrorSaysWhere(t *testing.T) {
	// Resources of random words, copied as they are: the plain output is
	// the input, byte for byte, and a record's offset in the input is its
	// offset in the output.
	rnd := rand.New(rand.NewPCG(1, 2))
	words := func(n int) string {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "w%x ", rnd.Uint32())
		}
		return b.String()
	}
	input := func(records, size int) []byte {
		recs := make([]rec, records)
		for i := range recs {
			recs[i] = rec{typ: "resource", uri: fmt.Sprintf("http://example.com/%d", i), status: "200 OK", body: words(size / 10)}
		}
		return build(t, recs)
	}
	big, small := input(40, 40_000), input(5, 2_000)
	if len(big) <= writeBuffer || len(small) >= writeBuffer {
		t.Fatalf("inputs of %d and %d bytes: want one over the write buffer (%d) and one under", len(big), len(small), writeBuffer)
	}
	// The record in whose write the first flush fails: the one holding
	// the output's byte at offset writeBuffer, the first past the buffer.
	var filling string
	var fillingAt int64
	for _, r := range readBack(t, big) {
		if r.Offset <= writeBuffer {
			filling, fillingAt = r.ID(), r.Offset
		}
	}
	for _, c := range []struct {
		name     string
		in       []byte
		n        int
		recordAt int64
		id       string
	}{
		{"first bytes", big, 0, fillingAt, filling},
		{"in a record", big, 1000, fillingAt, filling},
		{"half the buffer", big, writeBuffer / 2, fillingAt, filling},
		{"after the last record", small, 5000, -1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := New(DefaultOptions())
			defer d.Close()
			d.SetOutput("out.warc")
			err := d.Run(bytes.NewReader(c.in), "in.warc", &fullWriter{n: c.n}, false)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("got %v, want ENOSPC", err)
			}
			var we *WriteError
			if !errors.As(err, &we) {
				t.Fatalf("got %T %v, want a *WriteError", err, err)
			}
			want := WriteError{Output: "out.warc", Offset: int64(c.n), File: "in.warc", RecordOffset: c.recordAt, RecordID: c.id}
			if we.Output != want.Output || we.Offset != want.Offset || we.File != want.File || we.RecordOffset != want.RecordOffset || we.RecordID != want.RecordID {
				t.Errorf("got %+v, want %+v", *we, want)
			}
			msg := err.Error()
			for _, s := range []string{"out.warc", fmt.Sprintf("at offset %d", c.n), "in.warc", c.id, "no space left on device"} {
				if !strings.Contains(msg, s) {
					t.Errorf("%q lacks %q", msg, s)
				}
			}
		})
	}
}
