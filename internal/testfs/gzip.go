package testfs

import (
	"bytes"
	"io"
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
