package warcio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// shared is the folder of real WARC files every developer and CI run has.
const shared = "../../shared/warcs"

type inventoryEntry struct {
	Local       string         `json:"local"`
	Compression string         `json:"compression"`
	Format      string         `json:"format"`
	Members     *int           `json:"gzip_members"`
	Counts      map[string]int `json:"counts"`
	Errors      []string       `json:"errors"`
	Bytes       int64          `json:"bytes"`
}

func inventory(t testing.TB) []inventoryEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shared, "inventory.json"))
	if err != nil {
		t.Skipf("shared WARCs not available: %v", err)
	}
	var inv []inventoryEntry
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// readAll reads a file with the given policy and returns its records (with raw
// bytes) and the first error.
func readAll(t testing.TB, path string, lenient bool) ([]*Record, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f, path)
	r.KeepRaw, r.Lenient, r.VerifyDigests = true, lenient, true
	var recs []*Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		if _, err := io.Copy(io.Discard, r); err != nil && !lenient {
			return recs, err
		}
		if _, err := r.Finish(); err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// checkerOffsets runs the independent checker and returns the decompressed
// offsets of the records it finds, or nil if it cannot read the file.
func checkerOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	out, err := exec.Command("python3", "../../shared/tools/warccheck.py", "records", path).Output()
	if err != nil {
		return nil
	}
	var offs []int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.Fields(line)[0], 10, 64)
		if err != nil {
			t.Fatalf("checker output %q", line)
		}
		offs = append(offs, n)
	}
	if offs == nil {
		offs = []int64{}
	}
	return offs
}

// TestInventory reads every WARC and ARC file in ../shared/warcs and compares the
// record count with the inventory and the offsets with the independent checker.
func TestInventory(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed for the independent checker")
	}
	inv := inventory(t)
	n := 0
	for _, e := range inv {
		if e.Local == "" || e.Counts == nil || (e.Format != "warc" && e.Format != "arc") {
			continue
		}
		n++
		path := filepath.Join(shared, e.Local)
		t.Run(e.Local, func(t *testing.T) {
			recs, err := readAll(t, path, false)
			if why, ok := knownDamaged[e.Local]; ok {
				if err == nil {
					t.Fatalf("read cleanly, but %s", why)
				}
				e.Errors = append(e.Errors, why)
			}
			if len(e.Errors) > 0 {
				// Damaged files are the table test's business; here only that a
				// lenient read accounts for every byte.
				lrecs, lerr := readAll(t, path, true)
				if lerr != nil {
					t.Fatalf("lenient read failed: %v", lerr)
				}
				checkAccounted(t, path, lrecs)
				return
			}
			if err != nil {
				var pe *ParseError
				if errors.As(err, &pe) && errors.Is(err, ErrDigest) {
					t.Logf("block digest mismatch the inventory does not know: %v", err)
					return
				}
				t.Fatalf("read: %v", err)
			}
			checkAccounted(t, path, recs)
			recs = withoutPadding(recs)
			if got, want := len(recs), e.Counts["records"]; got != want {
				t.Errorf("%d records, inventory says %d", got, want)
			}
			if e.Format == "warc" {
				want := checkerOffsets(t, path)
				if want == nil {
					t.Fatalf("independent checker cannot read a file the inventory calls clean")
				}
				if len(want) != len(recs) {
					t.Fatalf("%d records, checker finds %d", len(recs), len(want))
				}
				for i, rec := range recs {
					if rec.PlainOffset != want[i] {
						t.Errorf("record %d at decompressed offset %d, checker says %d", i, rec.PlainOffset, want[i])
					}
				}
			}
		})
	}
	if n < 70 {
		t.Fatalf("only %d inventory files were read", n)
	}
}

// knownDamaged are files the inventory's parser read without complaint that are
// damaged all the same, with the reason (checked by hand).
var knownDamaged = map[string]string{
	"webrecorder+warcio/test/data/example-space-in-url.arc": "the second record's declared length (1591) runs 12 bytes past the end of the file",
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
func checkAccounted(t *testing.T, path string, recs []*Record) {
	t.Helper()
	in, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
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

// TestBroken is the table of real damaged files and the error each must give.
func TestBroken(t *testing.T) {
	tests := []struct {
		file   string
		err    error
		offset int64 // file offset the error names
		id     string
	}{
		{"chatnoir-eu+chatnoir-resiliparse/tests/data/clipped.warc.gz", ErrGzip, 0, ""},
		{"internetarchive+gowarc/testdata/warcs/corrupted-mid-record.warc.gz.open", ErrGzip, 1219, ""},
		{"internetarchive+gowarc/testdata/warcs/corrupted-trailing-bytes.warc.gz.open", ErrGzip, 2362, ""},
		{"webrecorder+warcio/test/data/example-trunc.warc", ErrDigest, 1197, "<urn:uuid:a9c51e3e-0221-11e7-bf66-0242ac120005>"},
		{"webrecorder+pywb/sample_archive/warcs/example.warc", ErrNoMagic, 4764, ""},
		{"webrecorder+warcio/test/data/example-wrong-chunks.warc.gz", ErrDigest, 0, "<urn:uuid:80d63307-60af-43e0-903f-574b2f432b7e>"},
		{"webrecorder+warcio/test/data/example-bad-non-chunked.warc.gz", ErrDigest, 0, "<urn:uuid:e6e395ca-0221-11e7-a18d-0242ac120005>"},
		{"webrecorder+warcio/test/data/bad.arc", ErrHeader, 0, ""},
		{"webrecorder+warcio/test/data/example-space-in-url.arc", ErrTruncated, 151, ""},
		{"archivesunleashed+aut/src/test/resources/arc/badexample.arc.gz", ErrHeader, 0, ""},
		{"richardlehane+webarchive/examples/jhove/invalid/invalid-warcheaderversion-16.warc", ErrNoMagic, 0, ""},
		{"richardlehane+webarchive/examples/jhove/invalid/invalid-warcfile-fields-missing.warc", ErrLength, 0, ""},
		{"richardlehane+webarchive/examples/jhove/invalid/invalid-warcheaderversion-1.warc", ErrHeader, 0, ""},
		{"richardlehane+webarchive/examples/jhove/invalid/invalid-warcrecord-3.warc", ErrNoMagic, 2142, ""},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			path := filepath.Join(shared, tc.file)
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			_, err := readAll(t, path, false)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("got %v, want %v", err, tc.err)
			}
			if pe.Offset != tc.offset {
				t.Errorf("offset %d, want %d (%v)", pe.Offset, tc.offset, err)
			}
			if pe.RecordID != tc.id {
				t.Errorf("record %q, want %q", pe.RecordID, tc.id)
			}
			if !strings.HasPrefix(err.Error(), path+": offset ") {
				t.Errorf("message does not start with the file and offset: %q", err)
			}
			recs, err := readAll(t, path, true)
			if err != nil {
				t.Fatalf("lenient: %v", err)
			}
			damaged := 0
			for _, r := range recs {
				if r.Err != nil {
					damaged++
				}
			}
			if damaged == 0 {
				t.Errorf("lenient read reports no damage")
			}
			checkAccounted(t, path, recs)
		})
	}
}

// TestInvalidConformance: every JHOVE invalid file gives an error, or is readable
// and has a problem Validate names.
func TestInvalidConformance(t *testing.T) {
	dir := filepath.Join(shared, "richardlehane+webarchive/examples/jhove/invalid")
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc"))
	if len(files) == 0 {
		t.Skip("no JHOVE files")
	}
	for _, path := range files {
		recs, err := readAll(t, path, false)
		if err != nil {
			continue
		}
		problems := 0
		for _, r := range recs {
			problems += len(Validate(r))
		}
		if len(withoutPadding(recs)) == 0 {
			continue // a file without records: the CLI reports that
		}
		if problems == 0 {
			t.Errorf("%s: read cleanly, and Validate finds nothing", filepath.Base(path))
		}
	}
}
