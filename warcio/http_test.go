package warcio

import (
	"bytes"
	"errors"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func TestParseHTTPResponse(t *testing.T) {
	tests := []struct {
		in     string
		code   int
		reason string
		ctype  string
		err    error
	}{
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\nbody", 200, "OK", "text/html", nil},
		{"HTTP/1.0 302 \r\nLocation: /x\r\n\r\n", 302, "", "", nil},                  // pywb missing-status-text
		{"HTTP/1.1 200\nContent-Type: text/plain\n\n", 200, "", "text/plain", nil},   // LF only, no reason
		{"HTTP/1.1 404 Not Found\r\nX: a\r\n  b\r\n\r\n", 404, "Not Found", "", nil}, // folded header
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n", 0, "", "", ErrHTTP},       // no end of head
		{"ICY 200 OK\r\n\r\n", 0, "", "", ErrHTTP},                                   // not HTTP
		{"HTTP/1.1 abc OK\r\n\r\n", 0, "", "", ErrHTTP},                              // bad code
		{"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", 0, "", "", ErrHTTP},             // bad header line
	}
	for _, tc := range tests {
		h, err := ParseHTTPResponse([]byte(tc.in))
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: got %v, want %v", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if h.StatusCode != tc.code || h.Reason != tc.reason || h.Get("content-type") != tc.ctype {
			t.Errorf("%q: got %d %q %q", tc.in, h.StatusCode, h.Reason, h.Get("content-type"))
		}
		if !bytes.HasPrefix([]byte(tc.in), h.Head) || !bytes.HasSuffix(h.Head, []byte("\n")) {
			t.Errorf("%q: head %q is not the stored prefix through the blank line", tc.in, h.Head)
		}
	}
}

func TestDechunk(t *testing.T) {
	tests := []struct {
		in, want string
		complete bool
		err      bool
	}{
		{"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world", true, false},
		{"5;ext=1\r\nhello\r\n0\r\n\r\n", "hello", true, false},
		{"5\nhello\n0\n\n", "hello", true, false},
		{"5\r\nhello\r\n", "hello", true, false}, // no last chunk: what came is kept
		{"a\r\nhello", "hello", false, false},    // cut inside a chunk
		{"zz\r\nhello\r\n", "", true, true},
		{"10\r\nhello\r\n0\r\n\r\n", "", true, true},
	}
	for _, tc := range tests {
		got, err := dechunk([]byte(tc.in), tc.complete)
		if (err != nil) != tc.err {
			t.Errorf("%q: err %v", tc.in, err)
			continue
		}
		if !tc.err && string(got) != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A compression bomb is decoded only up to the limit.
func TestDecodeLimit(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Repeat([]byte("a"), 50<<20))
	zw.Close()
	p := &Payload{HTTP: &HTTPResponse{Fields: []Field{{"Content-Encoding", "gzip"}}}, Body: z.Bytes()}
	out, err := p.Decode(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1<<20 {
		t.Fatalf("decoded %d bytes, limit is %d", len(out), 1<<20)
	}
}
