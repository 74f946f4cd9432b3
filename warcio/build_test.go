package warcio

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Builders of test input: WARC files made by the package's own Writer, and the
// ways real files cut them into gzip members.

// testHeader returns the header of a response record numbered n.
func testHeader(n int) *Header {
	return &Header{Version: "WARC/1.1", Fields: []Field{
		{"WARC-Type", "response"},
		{"WARC-Record-ID", testID(n)},
		{"WARC-Date", "2026-01-01T00:00:00Z"},
		{"WARC-Target-URI", fmt.Sprintf("http://a.example/%d", n)},
		{"Content-Type", "application/http; msgtype=response"},
	}}
}

func testID(n int) string { return fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", n) }

// page returns an HTTP response block of about size bytes whose body does not
// compress (so that its gzip member is about as large), the same for the same seed.
func page(seed uint64, size int) []byte {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n"
	b := make([]byte, size)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return append([]byte(head), b...)
}

// textPage returns a small HTML response block.
func textPage(n int) []byte {
	return fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page %d</p>\n", n)
}

// writeWARC writes blocks as response records numbered from 1, plain or one gzip
// member per record.
func writeWARC(t testing.TB, gz bool, blocks ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, gz)
	for i, b := range blocks {
		if err := w.WriteRecord(testHeader(i+1), b); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// gzipMembers compresses each part as a gzip member of its own, the way a file
// is cut into members (parts may split a record anywhere).
func gzipMembers(t testing.TB, parts ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}
