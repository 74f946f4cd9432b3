package warcio

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// readAll reads in (named name in errors) with raw bytes kept and digests
// verified, and returns its records and the first error.
func readAll(t testing.TB, name string, in []byte, lenient bool) ([]*Record, error) {
	t.Helper()
	r := NewReader(bytes.NewReader(in), name)
	r.KeepRaw, r.Lenient, r.VerifyDigests = true, lenient, true
	return readRecords(r)
}

// readRecords reads every record of r, its block and its raw bytes, and returns
// them with the first error.
func readRecords(r *Reader) ([]*Record, error) {
	var recs []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		if _, err := io.Copy(io.Discard, r); err != nil && !r.Lenient {
			return recs, err
		}
		if _, err := r.Finish(); err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

func withoutPadding(recs []*Record) []*Record {
	var out []*Record
	for _, r := range recs {
		if r.Kind != KindPadding {
			out = append(out, r)
		}
	}
	return out
}

// checkAccounted checks that the records' raw bytes, written back with a Writer of
// the input's compression, reproduce the input: byte for byte for plain input and
// for per-record gzip, and after decompression for gzip members shared by records.
func checkAccounted(t *testing.T, in []byte, recs []*Record) {
	t.Helper()
	gz := len(in) > 2 && in[0] == 0x1f && in[1] == 0x8b
	var out, plainOut bytes.Buffer
	w := NewWriter(&out, gz)
	pw := NewWriter(&plainOut, false)
	shared, damaged := false, false
	for _, rec := range recs {
		if rec.Raw == nil {
			t.Fatalf("record at %d has no raw bytes", rec.Offset)
		}
		if rec.Raw.File != nil && rec.Kind != KindDamaged {
			// Offset and Size address the record's own member in the file.
			if rec.Size != rec.Raw.File.Len() || rec.Offset+rec.Size > int64(len(in)) {
				t.Fatalf("record at %d: size %d, member has %d bytes", rec.Offset, rec.Size, rec.Raw.File.Len())
			}
			b, _ := rec.Raw.File.Bytes()
			if b != nil && !bytes.Equal(in[rec.Offset:rec.Offset+rec.Size], b) {
				t.Fatalf("record at %d: file bytes at offset and size are not its member", rec.Offset)
			}
		}
		if gz && rec.Raw.File == nil {
			shared = true
		}
		if err := w.CopyRaw(rec.Raw); err != nil {
			t.Fatal(err)
		}
		if err := pw.CopyRaw(rec.Raw); err != nil {
			t.Fatal(err)
		}
		damaged = damaged || rec.Kind == KindDamaged
		rec.Raw.Release()
	}
	if gz && !damaged && !bytes.Equal(plainOut.Bytes(), gunzipAll(t, in)) {
		t.Fatalf("written uncompressed, the records are not the decompressed input")
	}
	if !gz || !shared {
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("pass-through differs from input (%d bytes vs %d)", out.Len(), len(in))
		}
		return
	}
	if a, b := gunzipAll(t, in), gunzipAll(t, out.Bytes()); !bytes.Equal(a, b) {
		t.Fatalf("pass-through differs from input after decompression (%d bytes vs %d)", len(b), len(a))
	}
}

func gunzipAll(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(zr) // damaged tails are compared as far as they decompress
	return out
}
