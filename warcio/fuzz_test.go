package warcio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// readerSeeds are FuzzReader's seeds: files this package's Writer made (plain,
// a member per record, whole-file gzip, a record spanning members, trailers in
// members of their own) and the broken and edge-case files of testdata/.
func readerSeeds(f *testing.F) [][]byte {
	h := testHeader(1)
	chunked := []byte("HTTP/1.1 200\nTransfer-Encoding: chunked\n\n5\r\nhello\r\n0\r\n\r\n")
	plain := cat(record(f, false, 1, textPage(1)), record(f, false, 2, chunked))
	var gz bytes.Buffer
	NewWriter(&gz, true).WriteRecord(h.Clone(), []byte("HTTP/1.1 404 Not Found\r\n\r\n"))
	seeds := [][]byte{
		plain,
		gz.Bytes(),
		writeWARC(f, true, textPage(1), chunked, page(3, 300)),
		gzipMembers(f, plain),
		gzipMembers(f, plain[:len(plain)/2], plain[len(plain)/2:]),
		gzipMembers(f, plain[:len(plain)-4], plain[len(plain)-4:]),
	}
	files, err := filepath.Glob("testdata/*")
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata files: %v", err)
	}
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			continue // testdata/fuzz
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzReader checks that a lenient Reader accounts for every byte of any input:
// the raw bytes of what it returns, written back, give the input again
// (checkAccounted: exactly for plain input and a member per record, after
// decompression otherwise). A strict Reader must return records or a
// *ParseError, never panic.
func FuzzReader(f *testing.F) {
	for _, b := range readerSeeds(f) {
		f.Add(b)
	}
	if testshared.Available() {
		for _, p := range []string{
			"webrecorder+warcio/test/data/example.warc",
			"webrecorder+warcio/test/data/example-trunc.warc",
			"webrecorder+warcio/test/data/example.arc",
			"webrecorder+pywb/sample_archive/warcs/missing-status-text.warc",
			"richardlehane+webarchive/examples/jhove/valid/valid-warcfile-fields-continuation.warc",
		} {
			if b, err := os.ReadFile(testshared.Path(f, "warcs/"+p)); err == nil {
				f.Add(b)
			}
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in), "fuzz")
		// A small spool limit sends the raw bytes of larger inputs through
		// temporary files too.
		r.KeepRaw, r.Lenient, r.VerifyDigests, r.SpoolMemory, r.TempDir = true, true, true, 256, dir
		var recs []*Record
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrRanOn) {
				return // the one damage a lenient Reader fails on
			}
			if err != nil {
				t.Fatalf("lenient reader failed: %v", err)
			}
			if i > len(in)+1 {
				t.Fatal("more records than bytes: the reader does not advance")
			}
			if rec.Kind == KindWARC {
				// A revisit copies these fields: the Writer must take them.
				if err := checkHeader(&rec.Header); err != nil {
					t.Fatalf("the Writer refuses a header the Reader parsed: %v", err)
				}
				// Read some of the block as callers do, then HTTP-parse it.
				ReadPayload(io.LimitReader(r, 1<<20), func(*HTTPResponse) int { return 1 << 16 })
			}
			if _, err := r.Finish(); errors.Is(err, ErrRanOn) {
				return
			} else if err != nil {
				t.Fatalf("lenient finish failed: %v", err)
			}
			Validate(rec)
			recs = append(recs, rec)
		}
		checkAccounted(t, in, recs)
		checkSizeOnly(t, in, recs)
		// Strict mode: any error must be a *ParseError.
		sr := NewReader(bytes.NewReader(in), "fuzz")
		for {
			_, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if _, ok := err.(*ParseError); !ok {
					t.Fatalf("strict error %T %v is not a *ParseError", err, err)
				}
				break
			}
		}
	})
}

// checkSizeOnly reads in again with SizeOnly and checks it gives the records
// recs (read keeping their bytes) with the same raw sizes: a reader that keeps
// only sizes accounts for every byte as one that keeps the bytes does.
func checkSizeOnly(t *testing.T, in []byte, recs []*Record) {
	t.Helper()
	r := NewReader(bytes.NewReader(in), "fuzz")
	r.KeepRaw, r.SizeOnly, r.Lenient, r.VerifyDigests = true, true, true, true
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			if i != len(recs) {
				t.Fatalf("SizeOnly: %d records, keeping the bytes %d", i, len(recs))
			}
			return
		}
		if err != nil {
			t.Fatalf("SizeOnly: lenient reader failed: %v", err)
		}
		if i >= len(recs) {
			t.Fatalf("SizeOnly: more than the %d records read keeping the bytes", len(recs))
		}
		if rec.Kind == KindWARC {
			ReadPayload(io.LimitReader(r, 1<<20), func(*HTTPResponse) int { return 1 << 16 })
		}
		raw, err := r.Finish()
		if err != nil {
			t.Fatalf("SizeOnly: lenient finish failed: %v", err)
		}
		want := recs[i]
		if rec.Kind != want.Kind || rec.Offset != want.Offset || rec.PlainOffset != want.PlainOffset || rec.Size != want.Size {
			t.Fatalf("SizeOnly: record %d is %v at %d/%d size %d, keeping the bytes %v at %d/%d size %d", i,
				rec.Kind, rec.Offset, rec.PlainOffset, rec.Size, want.Kind, want.Offset, want.PlainOffset, want.Size)
		}
		if raw == nil || want.Raw == nil || raw.Size != want.Raw.Size || raw.FileIsMember != want.Raw.FileIsMember {
			t.Fatalf("SizeOnly: record %d's raw %+v, keeping the bytes %+v", i, raw, want.Raw)
		}
		if raw.Plain != nil {
			if _, ok := raw.Plain.Bytes(); ok {
				t.Fatalf("SizeOnly: record %d's bytes were kept", i)
			}
		}
	}
}

// FuzzWriter writes records with fuzzed header fields and blocks to a plain and
// a gzip Writer and reads them back: the Writer must refuse a header its Reader
// would not give back as it is (ErrField, ErrVersion), and otherwise the Reader
// must return the same records, the same blocks, at the offsets the Writer
// reported, with digests that verify.
func FuzzWriter(f *testing.F) {
	f.Add("WARC/1.1", "WARC-Target-URI", "http://a.example/", "X-Note", "", []byte("HTTP/1.1 200 OK\r\n\r\nhi"), uint8(2))
	f.Add("WARC/1.0", "WARC-Concurrent-To", "<urn:uuid:x>", "content-length", "7", []byte{}, uint8(1))
	f.Add("warc/0.18", "X-Folded", "a  b\tc", "WARC-Block-Digest", "sha1:AAAA", []byte("\r\n\r\nWARC/1.0\r\n"), uint8(3))
	f.Add("WARC/1.1", "X Bad", "v", "X-Crlf", "a\r\nb", []byte("x"), uint8(1))
	f.Add("WARC/2.0", "X-Space", " padded ", "Y", "ü\u00a0", []byte("\n"), uint8(0))
	f.Add("WARC/1.1", "X\rCR", "a\rb", "X-Colon", "a: b", []byte("WARC/1.1\r\n"), uint8(1))
	f.Fuzz(func(t *testing.T, version, name1, value1, name2, value2 string, block []byte, n uint8) {
		count := int(n%4) + 1
		for _, gz := range []bool{false, true} {
			var out bytes.Buffer
			w := NewWriter(&out, gz)
			var want []*Header
			var blocks [][]byte
			var offsets []int64
			for i := range count {
				h := testHeader(i + 1)
				h.Version = version
				h.Add(name1, value1)
				h.Add(name2, value2)
				b := block[:len(block)*(i+1)/count]
				off := w.Offset()
				err := w.WriteRecord(h, b)
				if errors.Is(err, ErrField) || errors.Is(err, ErrVersion) {
					if out.Len() != int(off) {
						t.Fatalf("refused record left %d bytes", out.Len()-int(off))
					}
					if readsBack(version, name1, value1, name2, value2) {
						t.Fatalf("refused a header that reads back: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				want, blocks, offsets = append(want, h), append(blocks, b), append(offsets, off)
			}
			if !readsBack(version, name1, value1, name2, value2) {
				t.Fatalf("wrote a header that does not read back: %q %q: %q, %q: %q", version, name1, value1, name2, value2)
			}
			r := NewReader(bytes.NewReader(out.Bytes()), "fuzz")
			r.VerifyDigests = true
			for i := 0; ; i++ {
				rec, err := r.Next()
				if err == io.EOF {
					if i != count {
						t.Fatalf("gzip %v: %d records read, %d written", gz, i, count)
					}
					break
				}
				if err != nil {
					t.Fatalf("gzip %v: record %d: %v", gz, i, err)
				}
				if i >= count {
					t.Fatalf("gzip %v: more records read than the %d written", gz, count)
				}
				if rec.Kind != KindWARC || rec.Offset != offsets[i] {
					t.Fatalf("gzip %v: record %d is %s at %d, written at %d", gz, i, rec.Kind, rec.Offset, offsets[i])
				}
				if rec.Header.Version != want[i].Version || !equalFields(rec.Header.Fields, want[i].Fields) {
					t.Fatalf("gzip %v: record %d header\n%q %q\nwritten\n%q %q", gz, i,
						rec.Header.Version, rec.Header.Fields, want[i].Version, want[i].Fields)
				}
				got, err := io.ReadAll(r)
				if err != nil || !bytes.Equal(got, blocks[i]) {
					t.Fatalf("gzip %v: record %d block %q (%v), written %q", gz, i, got, err, blocks[i])
				}
				if _, err := r.Finish(); err != nil {
					t.Fatalf("gzip %v: record %d: %v", gz, i, err)
				}
				end := int64(out.Len())
				if i+1 < count {
					end = offsets[i+1]
				}
				if !rec.TrailerOK || rec.Size != end-offsets[i] {
					t.Fatalf("gzip %v: record %d: trailer %v, size %d, written %d", gz, i, rec.TrailerOK, rec.Size, end-offsets[i])
				}
			}
		}
	})
}

// readsBack reports whether a header with this version line and these two
// extra fields can be read back as it is: the Reader knows the version, a
// name is non-empty with no space, tab, colon or line feed, and a value has no
// line feed and no white space at either end (the Reader trims it).
func readsBack(version string, fields ...string) bool {
	switch strings.ToUpper(version) {
	case "WARC/0.17", "WARC/0.18", "WARC/1.0", "WARC/1.1":
	default:
		return false
	}
	for i := 0; i < len(fields); i += 2 {
		name, value := fields[i], fields[i+1]
		if name == "" || strings.ContainsAny(name, " \t\n:") || strings.Contains(value, "\n") ||
			strings.TrimSpace(value) != value {
			return false
		}
	}
	return true
}

func equalFields(a, b []Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzHTTP feeds the HTTP parsers: the head parser, chunked decoding and content
// decoding must not panic, and decoding must respect its output limit.
func FuzzHTTP(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.0 302 \r\nLocation: /x\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 200\nContent-Encoding: gzip\n\n\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n\x0b\x02\x80hello\x03"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\n\r\nx\x9c\xcbH\xcd\xc9\xc9\x07\x00\x06,\x02\x15"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadPayload(bytes.NewReader(b), func(*HTTPResponse) int { return 1 << 16 })
		if err != nil {
			return
		}
		if !bytes.HasPrefix(b, p.HTTP.Head) || int64(len(b)-len(p.HTTP.Head)) != p.Length {
			t.Fatalf("head %d + payload %d != %d bytes", len(p.HTTP.Head), p.Length, len(b))
		}
		out, _ := p.Decode(4096)
		if len(out) > 4096 {
			t.Fatalf("decoded %d bytes past the limit", len(out))
		}
	})
}
