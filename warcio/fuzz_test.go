package warcio

import (
	"bytes"
	"io"
	"os"
	"testing"

	"warcdedup/internal/testshared"
)

// FuzzReader checks that a lenient Reader accounts for every byte of any input:
// writing back the raw bytes of what it returns gives the input again (for plain
// input exactly; gzip input goes through canonical form). A strict Reader must
// return records or a *ParseError, never panic.
func FuzzReader(f *testing.F) {
	// Seeds: files this package's Writer produced, and small real files.
	var buf bytes.Buffer
	w := NewWriter(&buf, false)
	h := &Header{Version: "WARC/1.1", Fields: []Field{{"WARC-Type", "response"},
		{"WARC-Record-ID", "<urn:uuid:1>"}, {"WARC-Date", "2026-01-01T00:00:00Z"},
		{"WARC-Target-URI", "http://a.example/"}, {"Content-Type", "application/http; msgtype=response"}}}
	w.WriteRecord(h, []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hello</p>"))
	w.WriteRecord(h.Clone(), []byte("HTTP/1.1 200\nTransfer-Encoding: chunked\n\n5\r\nhello\r\n0\r\n\r\n"))
	f.Add(buf.Bytes())
	var gz bytes.Buffer
	NewWriter(&gz, true).WriteRecord(h.Clone(), []byte("HTTP/1.1 404 Not Found\r\n\r\n"))
	f.Add(gz.Bytes())
	for _, p := range []string{
		"webrecorder+warcio/test/data/example.warc",
		"webrecorder+warcio/test/data/example-trunc.warc",
		"webrecorder+warcio/test/data/example.arc",
		"webrecorder+pywb/sample_archive/warcs/missing-status-text.warc",
		"richardlehane+webarchive/examples/jhove/valid/valid-warcfile-fields-continuation.warc",
	} {
		if !testshared.Available() {
			break
		}
		if b, err := os.ReadFile(testshared.Path(f, "warcs/"+p)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in), "fuzz")
		r.KeepRaw, r.Lenient, r.VerifyDigests = true, true, true
		var out bytes.Buffer
		w := NewWriter(&out, false)
		gz := len(in) > 1 && in[0] == 0x1f && in[1] == 0x8b
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("lenient reader failed: %v", err)
			}
			if i > len(in)+1 {
				t.Fatal("more records than bytes: the reader does not advance")
			}
			if rec.Kind == KindWARC {
				// Read some of the block as callers do, then HTTP-parse it.
				ReadPayload(io.LimitReader(r, 1<<20), func(*HTTPResponse) int { return 1 << 16 })
			}
			raw, err := r.Finish()
			if err != nil {
				t.Fatalf("lenient finish failed: %v", err)
			}
			w.CopyRaw(raw)
			Validate(rec)
			raw.Release()
		}
		if !gz && !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("lost or changed bytes: %d in, %d out", len(in), out.Len())
		}
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
