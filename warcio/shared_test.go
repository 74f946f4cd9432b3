package warcio

// Tests that use the shared folder (its real WARC and ARC files, and its
// independent checker): a layer on top of the package's own tests, each
// skipped (by internal/testshared) when the folder is absent.

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

type inventoryEntry struct {
	Local       string         `json:"local"`
	Compression string         `json:"compression"`
	Format      string         `json:"format"`
	Members     *int           `json:"gzip_members"`
	Counts      map[string]int `json:"counts"`
	Errors      []string       `json:"errors"`
	Bytes       int64          `json:"bytes"`
}

func inventory(t testing.TB, path string) []inventoryEntry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var inv []inventoryEntry
	if err := json.Unmarshal(b, &inv); err != nil {
		t.Fatal(err)
	}
	return inv
}

// sharedWARC returns the contents and path of a file of the shared WARC folder.
func sharedWARC(t testing.TB, rel string) ([]byte, string) {
	t.Helper()
	path := testshared.Path(t, "warcs/"+rel)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, path
}

// checkerOffsets runs the independent checker and returns the decompressed
// offsets of the records it finds, or nil if it cannot read the file.
func checkerOffsets(t *testing.T, path string) []int64 {
	t.Helper()
	out, err := testshared.Checker(t, "records", path).Output()
	if err != nil {
		return nil
	}
	offs := []int64{}
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
	return offs
}

// TestInventory reads every WARC and ARC file of the shared folder and compares
// the record count with the inventory and the offsets with the independent checker.
func TestInventory(t *testing.T) {
	dir := filepath.Dir(testshared.Measure(t, "warcs/inventory.json"))
	inv := inventory(t, filepath.Join(dir, "inventory.json"))
	n := 0
	for _, e := range inv {
		if e.Local == "" || e.Counts == nil || (e.Format != "warc" && e.Format != "arc") {
			continue
		}
		n++
		t.Run(e.Local, func(t *testing.T) {
			in, path := sharedWARC(t, e.Local)
			recs, err := readAll(t, path, in, false)
			if why, ok := knownDamaged[e.Local]; ok {
				if err == nil {
					t.Fatalf("read cleanly, but %s", why)
				}
				e.Errors = append(e.Errors, why)
			}
			if len(e.Errors) > 0 {
				// Damaged files are the table test's business; here only that a
				// lenient read accounts for every byte.
				lrecs, lerr := readAll(t, path, in, true)
				if lerr != nil {
					t.Fatalf("lenient read failed: %v", lerr)
				}
				checkAccounted(t, in, lrecs)
				return
			}
			if err != nil {
				if errors.Is(err, ErrDigest) {
					t.Logf("block digest mismatch the inventory does not know: %v", err)
					return
				}
				t.Fatalf("read: %v", err)
			}
			checkAccounted(t, in, recs)
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

// TestBrokenShared is the table of real damaged files and the error each must give.
func TestBrokenShared(t *testing.T) {
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
			in, path := sharedWARC(t, tc.file)
			_, err := readAll(t, path, in, false)
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
			recs, err := readAll(t, path, in, true)
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
			checkAccounted(t, in, recs)
		})
	}
}

// TestInvalidConformance: every JHOVE invalid file gives an error, or is readable
// and has a problem Validate names.
func TestInvalidConformance(t *testing.T) {
	dir := testshared.Path(t, "warcs/richardlehane+webarchive/examples/jhove/invalid")
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc"))
	if len(files) < 30 {
		t.Fatalf("%d JHOVE invalid files in %s", len(files), dir)
	}
	for _, path := range files {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := readAll(t, path, in, false)
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

// The three ukwa files hold the same page stored with Content-Encoding br, gzip and
// none: decoded for analysis they must give the same text, while the digest is of
// the stored bytes.
func TestContentEncodings(t *testing.T) {
	texts := map[string]string{}
	for _, enc := range []string{"brotli", "gzip", "none"} {
		path := testshared.Path(t, "warcs/ukwa+webarchive-discovery/warc-indexer/src/test/resources/compression/transfer_compression_"+enc+".warc")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := NewReader(f, path)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Type() != "response" {
				continue
			}
			p, err := ReadPayload(r, func(*HTTPResponse) int { return 1 << 20 })
			if err != nil {
				t.Fatalf("%s: %v", enc, err)
			}
			body, err := p.Decode(1 << 20)
			if err != nil {
				t.Fatalf("%s: decode: %v", enc, err)
			}
			if want := rec.Header.Get("WARC-Payload-Digest"); want != "" && want != p.Digest {
				t.Errorf("%s: computed %s, record says %s", enc, p.Digest, want)
			}
			texts[enc] = string(body)
		}
	}
	if texts["none"] == "" || !strings.Contains(strings.ToLower(texts["none"]), "<html") {
		t.Fatalf("no HTML in the identity-encoded response: %.100q", texts["none"])
	}
	for _, enc := range []string{"brotli", "gzip"} {
		if texts[enc] != texts["none"] {
			t.Errorf("%s decodes to %d bytes, identity has %d", enc, len(texts[enc]), len(texts["none"]))
		}
	}
}

// The independent checker finds the records of testdata's well-formed WARC files
// where the Reader does: the recipes make what they say they make.
func TestTestdataChecker(t *testing.T) {
	for _, name := range []string{"spanning-members.warc.gz", "crlf-member.warc.gz", "empty-member.warc.gz", "whole-file.warc.gz"} {
		path, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		want := checkerOffsets(t, path)
		if want == nil {
			t.Fatalf("%s: the independent checker cannot read it", name)
		}
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := readAll(t, path, in, false)
		if err != nil {
			t.Fatal(err)
		}
		recs = withoutPadding(recs)
		if len(recs) != len(want) {
			t.Fatalf("%s: %d records, the checker finds %d", name, len(recs), len(want))
		}
		for i, rec := range recs {
			if rec.PlainOffset != want[i] {
				t.Errorf("%s: record %d at decompressed offset %d, the checker says %d", name, i, rec.PlainOffset, want[i])
			}
		}
	}
}
