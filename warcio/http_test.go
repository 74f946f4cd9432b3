package warcio

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
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

// Payload.SHA256 is the SHA-256 of the payload as stored, beside Digest (SHA-1)
// of the same bytes: a chunked body is digested with its chunk framing, a
// content-coded one compressed.
func TestPayloadSHA256(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("<p>compressed</p>"))
	zw.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 5000) // past ReadPayload's first 32 KB read
	tests := []struct {
		name, head string
		body       []byte
		decoded    string // what Decode gives, to show the digest is not of it; "" to skip
	}{
		{"plain", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n", []byte("<p>hello</p>"), ""},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", []byte("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), "hello world"},
		{"gzip coded", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n", gz.Bytes(), "<p>compressed</p>"},
		{"LF-only head", "HTTP/1.1 200 OK\nContent-Type: text/plain\n\n", []byte("text\n"), ""},
		{"empty", "HTTP/1.1 204 No Content\r\n\r\n", nil, ""},
		{"large", "HTTP/1.1 200 OK\r\n\r\n", big, ""},
	}
	for _, tc := range tests {
		block := append([]byte(tc.head), tc.body...)
		want := sha256.Sum256(tc.body)
		wantSHA1 := SHA1Digest(tc.body)
		// Read from a plain io.Reader, and from a Reader's record (which
		// tells ReadPayload how much is left).
		var warc bytes.Buffer
		if err := NewWriter(&warc, true).WriteRecord(testHeader(1), block); err != nil {
			t.Fatal(err)
		}
		r := NewReader(&warc, tc.name)
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		for src, in := range map[string]io.Reader{"bytes": bytes.NewReader(block), "record": r} {
			p, err := ReadPayload(in, func(*HTTPResponse) int { return 1 << 20 })
			if err != nil {
				t.Fatalf("%s from %s: %v", tc.name, src, err)
			}
			if p.SHA256 != want {
				t.Errorf("%s from %s: SHA256 %x, want %x (sha256 of the %d stored payload bytes)", tc.name, src, p.SHA256, want, len(tc.body))
			}
			if p.Digest != wantSHA1 || p.Length != int64(len(tc.body)) {
				t.Errorf("%s from %s: Digest %s length %d, want %s %d", tc.name, src, p.Digest, p.Length, wantSHA1, len(tc.body))
			}
			if tc.decoded != "" {
				dec, err := p.Decode(1 << 20)
				if err != nil || string(dec) != tc.decoded {
					t.Errorf("%s: decoded %q, %v", tc.name, dec, err)
				}
				if sha256.Sum256(dec) == p.SHA256 {
					t.Errorf("%s: SHA256 is of the decoded entity, not of the stored bytes", tc.name)
				}
			}
		}
	}
}
