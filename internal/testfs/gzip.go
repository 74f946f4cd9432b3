package testfs

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Plain is a file's bytes as a reader of its content sees them: gzip
// members decompressed (a .warc.gz, all its members in turn), other bytes
// as they are.
func Plain(t testing.TB, b []byte) []byte {
	t.Helper()
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Framed checks that b, a decompressed WARC stream, is records and nothing
// else (but blank lines the file starts with, and between records if blank),
// each block followed by CR LF CR LF, exactly unless blank, and returns how
// many there are. name names b in its messages.
func Framed(t testing.TB, name string, b []byte, blank bool) int {
	t.Helper()
	n := 0
	for p := len(b) - len(bytes.TrimLeft(b, "\r\n")); p < len(b); n++ {
		if !bytes.HasPrefix(b[p:], []byte("WARC/1.")) {
			t.Fatalf("%s: record %d at %d: %q, not a record's first line", name, n, p, b[p:min(len(b), p+16)])
		}
		end := bytes.Index(b[p:], []byte("\r\n\r\n"))
		if end < 0 {
			t.Fatalf("%s: record %d at %d: no end of header", name, n, p)
		}
		head := b[p : p+end+2]
		i := bytes.Index(head, []byte("\r\nContent-Length: "))
		if i < 0 {
			t.Fatalf("%s: record %d at %d: no Content-Length", name, n, p)
		}
		v := head[i+len("\r\nContent-Length: "):]
		cl, err := strconv.Atoi(string(v[:bytes.IndexByte(v, '\r')]))
		if err != nil {
			t.Fatal(err)
		}
		p += end + 4 + cl
		if !bytes.HasPrefix(b[p:], []byte("\r\n\r\n")) {
			t.Fatalf("%s: record %d: its block is followed by %q, not CR LF CR LF", name, n, b[p:min(len(b), p+8)])
		}
		p += 4
		if blank {
			p = len(b) - len(bytes.TrimLeft(b[p:], "\r\n"))
		}
	}
	return n
}
