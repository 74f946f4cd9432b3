package warcio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Benchmark files: a real Heritrix crawl (per-record gzip) and its uncompressed
// equivalent size class.
var benchFiles = []string{
	"archivesunleashed+aut/src/test/resources/warc/example.warc.gz",
	"webrecorder+pywb/sample_archive/warcs/iana.warc.gz",
	"chatnoir-eu+chatnoir-resiliparse/tests/data/warcfile.warc",
}

func loadBench(b *testing.B, p string) []byte {
	data, err := os.ReadFile(filepath.Join(shared, p))
	if err != nil {
		b.Skip(err)
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
				r := NewReader(bytes.NewReader(data), p)
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, r)
				}
			}
		})
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
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					raw, err := r.Finish()
					if err != nil {
						b.Fatal(err)
					}
					w.CopyRaw(raw)
					raw.Release()
				}
			}
		})
	}
}
