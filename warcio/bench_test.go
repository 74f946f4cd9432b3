package warcio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// Benchmark files: a real Heritrix crawl (per-record gzip) and its uncompressed
// equivalent size class.
var benchFiles = []string{
	"archivesunleashed+aut/src/test/resources/warc/example.warc.gz",
	"webrecorder+pywb/sample_archive/warcs/iana.warc.gz",
	"chatnoir-eu+chatnoir-resiliparse/tests/data/warcfile.warc",
}

func loadBench(b *testing.B, p string) []byte {
	data, err := os.ReadFile(testshared.Path(b, "warcs/"+p))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkRead: records and blocks read, no raw bytes kept. Bytes are file bytes.
func BenchmarkRead(b *testing.B) {
	for _, p := range benchFiles {
		data := loadBench(b, p)
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				readEach(b, NewReader(bytes.NewReader(data), p), func(r *Reader, _ *Record) { io.Copy(io.Discard, r) })
			}
		})
	}
}

// readEach reads every record of r and calls fn on it.
func readEach(b *testing.B, r *Reader, fn func(*Reader, *Record)) {
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		fn(r, rec)
	}
}

// BenchmarkPassThrough: read with raw bytes kept and digests verified, and write
// every record back unchanged (the path of a record warcdedup does not change).
func BenchmarkPassThrough(b *testing.B) {
	for _, p := range benchFiles {
		data := loadBench(b, p)
		gz := data[0] == 0x1f
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), p)
				r.KeepRaw, r.VerifyDigests = true, true
				w := NewWriter(io.Discard, gz)
				readEach(b, r, func(r *Reader, _ *Record) {
					raw, err := r.Finish()
					if err != nil {
						b.Fatal(err)
					}
					w.CopyRaw(raw)
					raw.Release()
				})
			}
		})
	}
}

// BenchmarkGzipDecode: the gzip members of the compressed benchmark files
// decoded and thrown away, no WARC parsing: the floor of reading a .warc.gz in
// Go. Bytes are file bytes.
func BenchmarkGzipDecode(b *testing.B) {
	for _, p := range benchFiles {
		data := loadBench(b, p)
		if data[0] != 0x1f {
			continue
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				zr, err := gzip.NewReader(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, zr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHTTPPayload: WARC parsing plus the HTTP head and payload digest of
// every response record (ReadPayload, keeping nothing): the reading stage of
// warcdedup without the raw copy. Bytes are file bytes.
func BenchmarkHTTPPayload(b *testing.B) {
	for _, p := range benchFiles {
		data := loadBench(b, p)
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				readEach(b, NewReader(bytes.NewReader(data), p), func(r *Reader, rec *Record) {
					if rec.Type() == "response" {
						ReadPayload(r, nil) // non-HTTP responses are skipped
					}
				})
			}
		})
	}
}

// BenchmarkWriteRecord: new records (a revisit's size: a 2 KB header block)
// written as one gzip member each, the output path of a replaced record.
// Bytes are block bytes.
func BenchmarkWriteRecord(b *testing.B) {
	block := bytes.Repeat([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"), 48)
	h := Header{Version: "WARC/1.1"}
	h.Set("WARC-Type", "revisit")
	h.Set("WARC-Target-URI", "http://example.com/a/page.html")
	h.Set("WARC-Date", "2026-11-23T00:00:00Z")
	h.Set("WARC-Record-ID", "<urn:uuid:00000000-0000-5000-8000-000000000000>")
	for _, gz := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "gzip"}[gz], func(b *testing.B) {
			w := NewWriter(io.Discard, gz)
			b.SetBytes(int64(len(block)))
			for b.Loop() {
				if err := w.WriteRecord(&h, block); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
