package warcio

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

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

// TestChunkedCut: ReadPayload tells a chunked body that ends before its last
// chunk, as a capture cut off in transfer does, from a whole one (with or
// without trailer fields or the blank line that ends them), whatever the
// pieces the body is read in. A body whose framing does not parse (stored
// decoded under the field) is not said to be cut, nor is a body in no
// chunked coding.
func TestChunkedCut(t *testing.T) {
	big := func(end string) string {
		var b strings.Builder
		for i := range 3 {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", 20000, strings.Repeat(string(rune('a'+i)), 20000))
		}
		return b.String() + end
	}
	chunked := "Transfer-Encoding: chunked\r\n"
	for _, tc := range []struct {
		name, fields, body string
		cut                bool
	}{
		{"whole", chunked, "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", false},
		{"no blank line after the last chunk", chunked, "5\r\nhello\r\n0\r\n", false},
		{"trailer fields", chunked, "5\r\nhello\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n", false},
		{"trailer fields cut", chunked, "5\r\nhello\r\n0\r\nExpires: ne", false},
		{"extensions", chunked, "5;a=b\r\nhello\r\n0 ; c\r\n\r\n", false},
		{"LF alone", chunked, "5\nhello\n0\n\n", false},
		{"white space and upper case", chunked, " A \r\n0123456789\r\n00\r\n\r\n", false},
		{"field in other case and list", "transfer-encoding: gzip, Chunked\r\n", "5\r\nhello\r\n0\r\n\r\n", false},
		{"large, whole", chunked, big("0\r\n\r\n"), false},
		{"cut inside a chunk", chunked, "a\r\nhello", true},
		{"cut after a chunk's data", chunked, "5\r\nhello", true},
		{"cut after the CR", chunked, "5\r\nhello\r", true},
		{"cut after a chunk", chunked, "5\r\nhello\r\n", true},
		{"cut in a size line", chunked, "5\r\nhello\r\n1", true},
		{"cut in an extension", chunked, "5\r\nhello\r\n6;x=", true},
		// "0" may be the start of "0a": the line's end tells.
		{"cut after a size of 0 with no line end", chunked, "5\r\nhello\r\n0", true},
		{"cut in the chunk size line", chunked, "5\r", true},
		{"large, cut", chunked, big("")[:50000], true},
		{"large, cut after its chunks", chunked, big(""), true},
		{"gzip, chunked, cut", "Transfer-Encoding: gzip, chunked\r\n", "5\r\nhello\r\n", true},
		{"stored decoded", chunked, "<html><p>hello</p></html>", false},
		{"a blank line between chunks", chunked, "5\r\nhello\r\n\r\n5\r\nhello\r\n", false},
		{"garbage after a chunk", chunked, "5\r\nhello\r\nzz\r\n", false},
		{"size too large", chunked, "fffffffffffffffffff\r\nhello", false},
		{"empty", chunked, "", false},
		{"not chunked", "Content-Length: 10\r\n", "5\r\nhello", false},
		{"identity", "Transfer-Encoding: identity\r\n", "5\r\nhello", false},
	} {
		block := "HTTP/1.1 200 OK\r\n" + tc.fields + "\r\n" + tc.body
		for src, r := range map[string]io.Reader{
			"whole":       strings.NewReader(block),
			"byte a read": iotest.OneByteReader(strings.NewReader(block)),
			"half a read": iotest.HalfReader(strings.NewReader(block)),
		} {
			p, err := ReadPayload(r, func(*HTTPResponse) int { return 16 })
			if err != nil {
				t.Fatalf("%s, %s: %v", tc.name, src, err)
			}
			if p.ChunkedCut != tc.cut {
				t.Errorf("%s, read %s: ChunkedCut %v, want %v", tc.name, src, p.ChunkedCut, tc.cut)
			}
		}
	}
}
