package warcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
		// Size is the raw bytes' length, but for newlines before the record,
		// which its raw bytes keep and its Offset does not count.
		extra := rec.Raw.Size - rec.Size
		if rec.Raw.File == nil && extra > 0 {
			lead := make([]byte, extra)
			if _, err := io.ReadFull(rec.Raw.Plain.NewReader(), lead); err == nil && isBlank(lead) {
				extra = 0
			}
		}
		if extra != 0 {
			t.Errorf("%s record at %d: Size %d, its raw bytes %d", rec.Kind, rec.Offset, rec.Size, rec.Raw.Size)
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
	if a, b := gunzipLenient(in), gunzipLenient(out.Bytes()); !bytes.Equal(a, b) {
		t.Fatalf("pass-through differs from input after decompression (%d bytes vs %d)", len(b), len(a))
	}
}

// gunzipLenient decompresses every gzip member of b it can: a member's bytes up
// to its damage, then on from the next gzip header after what the decompressor
// consumed, skipping bytes that are no member. Applied to an input and to what
// its records were written back as, it gives the same bytes when nothing was
// lost or repeated, damaged members and regions included (they are copied as
// stored, from where decompression stopped).
func gunzipLenient(b []byte) []byte {
	magic := []byte{0x1f, 0x8b, 0x08}
	var out bytes.Buffer
	var zr gzip.Reader
	for pos := 0; pos < len(b); {
		i := bytes.Index(b[pos:], magic)
		if i < 0 {
			break
		}
		pos += i
		// A bytes.Reader is read a byte at a time by the decompressor, so
		// what it has left is exactly what the member did not consume.
		r := bytes.NewReader(b[pos:])
		err := zr.Reset(r)
		if err == nil {
			zr.Multistream(false)
			_, err = io.Copy(&out, &zr)
		}
		next := len(b) - r.Len()
		if err != nil && next <= pos {
			next = pos + 1
		}
		pos = next
	}
	return out.Bytes()
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

// kinds spells what a lenient read returned, a letter a record: W a WARC record,
// E a WARC record whose Err is set (its digest), A an ARC record, D damaged
// bytes, P padding.
func kinds(recs []*Record) string {
	var b strings.Builder
	for _, r := range recs {
		switch {
		case r.Kind == KindWARC && r.Err != nil:
			b.WriteByte('E')
		case r.Kind == KindWARC:
			b.WriteByte('W')
		case r.Kind == KindARC:
			b.WriteByte('A')
		case r.Kind == KindDamaged:
			b.WriteByte('D')
		case r.Kind == KindPadding:
			b.WriteByte('P')
		}
	}
	return b.String()
}

// TestReadTestdata is the table of the broken and edge-case files of testdata/
// (see testdataRecipes): the error a strict Reader must stop with (nil: none),
// where, and what a lenient Reader returns instead. Either way the records'
// raw bytes must give the input back (checkAccounted).
func TestReadTestdata(t *testing.T) {
	id2 := testID(2)
	tests := []struct {
		file   string
		err    error
		offset int64  // file offset the error names
		id     string // record the error names
		kinds  string // lenient read
	}{
		{"truncated-member.warc.gz", ErrGzip, 269, "", "WD"},
		{"truncated-block.warc", ErrTruncated, 358, id2, "WD"},
		{"bad-content-length.warc", ErrLength, 358, id2, "WDW"},
		{"no-blank-line.warc", ErrHeader, 358, id2, "WDW"},
		{"junk-between-records.warc", ErrNoMagic, 358, "", "WDW"},
		{"header-too-long.warc.gz", ErrHeaderTooLong, 269, "", "WDW"},
		{"bad-digest.warc", ErrDigest, 358, id2, "WEW"},
		{"spanning-members.warc.gz", nil, 0, "", "WWW"},
		{"crlf-member.warc.gz", nil, 0, "", "WPWP"},
		{"empty-member.warc.gz", nil, 0, "", "WPWP"},
		{"whole-file.warc.gz", nil, 0, "", "WWW"},
		{"example.arc", nil, 0, "", "AAA"},
		{"lf-only.warc", nil, 0, "", "WW"},
	}
	if len(tests) != len(testdataRecipes) {
		t.Errorf("%d files in the table, %d recipes", len(tests), len(testdataRecipes))
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := readAll(t, path, in, false)
			switch {
			case tc.err == nil && err != nil:
				t.Errorf("strict: %v", err)
			case tc.err == nil:
				if got := kinds(recs); got != tc.kinds {
					t.Errorf("strict read returned %s, want %s", got, tc.kinds)
				}
				checkAccounted(t, in, recs)
			default:
				var pe *ParseError
				if !errors.As(err, &pe) || !errors.Is(err, tc.err) {
					t.Fatalf("strict: got %v, want a *ParseError wrapping %v", err, tc.err)
				}
				if pe.Offset != tc.offset || pe.RecordID != tc.id {
					t.Errorf("error names offset %d record %q, want %d %q", pe.Offset, pe.RecordID, tc.offset, tc.id)
				}
				if want := fmt.Sprintf("%s: offset %d", path, tc.offset); !strings.HasPrefix(err.Error(), want) {
					t.Errorf("message %q does not start with %q", err, want)
				}
			}
			lrecs, err := readAll(t, path, in, true)
			if err != nil {
				t.Fatalf("lenient: %v", err)
			}
			if got := kinds(lrecs); got != tc.kinds {
				t.Errorf("lenient read returned %s, want %s", got, tc.kinds)
			}
			checkAccounted(t, in, lrecs)
		})
	}
}

// A gzip member that holds only newlines (a record's trailer in a member of its
// own) is part of the file: copied to plain output it gives its newlines, to gzip
// output the member as it was.
func TestCopyRawNewlineMember(t *testing.T) {
	r1, r2 := record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2))
	inputs := map[string][][]byte{
		"whole trailer":         {r1[:len(r1)-4], r1[len(r1)-4:], r2[:len(r2)-4], r2[len(r2)-4:]},
		"last CR LF":            {r1[:len(r1)-2], r1[len(r1)-2:], r2[:len(r2)-2], r2[len(r2)-2:]},
		"trailer before record": {r1[:len(r1)-4], cat(r1[len(r1)-4:], r2)},
		"newlines only":         {[]byte("\r\n"), []byte("\n\n")},
	}
	for name, parts := range inputs {
		in := gzipMembers(t, parts...)
		recs, err := readAll(t, name, in, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var plain, gz bytes.Buffer
		pw, gw := NewWriter(&plain, false), NewWriter(&gz, true)
		for _, rec := range recs {
			if err := pw.CopyRaw(rec.Raw); err != nil {
				t.Fatal(err)
			}
			if err := gw.CopyRaw(rec.Raw); err != nil {
				t.Fatal(err)
			}
		}
		if want := cat(parts...); !bytes.Equal(plain.Bytes(), want) {
			t.Errorf("%s: plain output has %d bytes, the decompressed input %d", name, plain.Len(), len(want))
		}
		if !bytes.Equal(gz.Bytes(), in) {
			t.Errorf("%s: gzip output (%d bytes) is not the input (%d bytes)", name, gz.Len(), len(in))
		}
	}
}

// A member shared by several records and cut short (gzip file.warc, then the
// copy broke off) keeps, in lenient mode, every byte that decompresses: what
// the records before the cut hold, then what was decompressed of the cut
// record, then the stored bytes the decompressor did not reach. Cut inside its
// first record, the member is one damaged record, copied as stored.
func TestTruncatedSharedMember(t *testing.T) {
	h := testHeader(3)
	for range 40 {
		h.Add("X-Padding", "a header line of the third record, which the cut falls in")
	}
	var r3 bytes.Buffer
	if err := NewWriter(&r3, false).WriteRecord(h, page(3, 2000)); err != nil {
		t.Fatal(err)
	}
	r12 := cat(record(t, false, 1, textPage(1)), record(t, false, 2, textPage(2)))
	plain := cat(r12, r3.Bytes())
	whole := gzipMembers(t, plain)
	inHeader := 0
	for cut := 20; cut < len(whole); cut += 7 {
		in := whole[:cut]
		decoded := gunzipAll(t, in) // what decompresses before the cut
		if len(decoded) > len(r12) && !bytes.Contains(decoded[len(r12):], []byte("\r\n\r\n")) {
			inHeader++
		}
		recs, err := readAll(t, "cut", in, true)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		w := NewWriter(&out, false)
		for _, rec := range recs {
			if err := w.CopyRaw(rec.Raw); err != nil {
				t.Fatal(err)
			}
		}
		if recs[0].Kind == KindDamaged {
			// Cut inside the first record: nothing of the member was
			// returned, and the member is copied as stored.
			if !bytes.Equal(out.Bytes(), in) {
				t.Errorf("cut at %d: %s; output is not the input as stored", cut, kinds(recs))
			}
			continue
		}
		if !bytes.HasPrefix(out.Bytes(), decoded) {
			t.Errorf("cut at %d: %s; plain output (%d bytes) does not begin with the %d bytes that decompress",
				cut, kinds(recs), out.Len(), len(decoded))
		}
	}
	if inHeader == 0 {
		t.Error("no cut fell in the third record's header")
	}
}

// TestCutMemberRunsOn: a gzip member cut short in the middle of a file
// (here its last 20 bytes gone) decompresses on into the members after it:
// one of its records is completed from their bytes (its block digest then
// fails), garbage follows, and their records never come out. A lenient
// Reader cannot keep those bytes as stored once it has returned records
// of the member: it fails, naming the member, rather than carry over a
// file that has lost them. Strictly, the file fails as ever. The same
// file without the cut reads whole.
func TestCutMemberRunsOn(t *testing.T) {
	r := func(n int) []byte { return record(t, true, n, textPage(n)) }
	cut := r(3)
	cut = cut[:len(cut)-20]
	for _, tc := range []struct {
		name    string
		in      []byte
		lenient bool
		fails   bool
	}{
		{"a member cut short before others, lenient", cat(r(1), r(2), cut, r(4), r(5)), true, true},
		{"a member cut short before others, strict", cat(r(1), r(2), cut, r(4), r(5)), false, true},
		{"no cut", cat(r(1), r(2), r(3), r(4), r(5)), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := readAll(t, "in", tc.in, tc.lenient)
			switch {
			case !tc.fails && err != nil:
				t.Fatalf("%v", err)
			case !tc.fails && len(recs) != 5:
				t.Errorf("%d records, want 5", len(recs))
			case tc.fails && err == nil:
				t.Errorf("read as %s, want a failure", kinds(recs))
			case tc.fails && tc.lenient && !errors.Is(err, ErrRanOn):
				t.Errorf("lenient: %v", err)
			}
		})
	}
}
