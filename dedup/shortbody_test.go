package dedup

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// TestShortBody: a capture whose body is shorter than its HTTP
// Content-Length was cut off in transfer. It is never the kept copy of a
// complete capture, nor replaced by one; with the right Content-Length the
// same two captures are near duplicates (the test's control).
func TestShortBody(t *testing.T) {
	full := story(11, 60, 0)
	cut := full[:len(full)*9/10]
	later := story(11, 60, 1)
	clOf := func(s string) string { return strconv.Itoa(len(s)) }
	type capture struct{ body, contentLength, transfer string }
	for _, tc := range []struct {
		name          string
		first, second capture
		revisits      int
		truncated     int
	}{
		{"a cut capture, then a complete one", capture{cut, clOf(full), ""}, capture{later, clOf(later), ""}, 0, 1},
		{"a complete capture, then a cut one", capture{later, clOf(later), ""}, capture{cut, clOf(full), ""}, 0, 1},
		{"both complete", capture{full, clOf(full), ""}, capture{later, clOf(later), ""}, 1, 0},
		{"no Content-Length", capture{full, "", ""}, capture{later, "", ""}, 1, 0},
		{"a body longer than its Content-Length", capture{full, clOf(cut), ""}, capture{later, clOf(later), ""}, 1, 0},
		{"chunked: the length is the chunks'", capture{full, clOf(cut), "chunked"}, capture{later, "", "chunked"}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in bytes.Buffer
			w := warcio.NewWriter(&in, false)
			for i, c := range []capture{tc.first, tc.second} {
				h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
					{Name: "WARC-Type", Value: "response"},
					{Name: "WARC-Record-ID", Value: "<urn:uuid:cut-" + strconv.Itoa(i) + ">"},
					{Name: "WARC-Date", Value: "2026-01-0" + strconv.Itoa(i+1) + "T00:00:00Z"},
					{Name: "WARC-Target-URI", Value: "http://news.example/story"},
					{Name: "Content-Type", Value: "application/http; msgtype=response"},
				}}
				head := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
				if c.contentLength != "" {
					head += "Content-Length: " + c.contentLength + "\r\n"
				}
				if c.transfer != "" {
					head += "Transfer-Encoding: " + c.transfer + "\r\n"
				}
				if err := w.WriteRecord(h, []byte(head+"\r\n"+c.body)); err != nil {
					t.Fatal(err)
				}
			}
			d := New(DefaultOptions())
			var out bytes.Buffer
			if err := d.Run(bytes.NewReader(in.Bytes()), "in", &out, false); err != nil {
				t.Fatal(err)
			}
			if r := d.Stats.Out["revisit"]; r != tc.revisits || d.Stats.SkippedTruncSeg != tc.truncated {
				t.Errorf("revisits %d, truncated %d; want %d, %d", r, d.Stats.SkippedTruncSeg, tc.revisits, tc.truncated)
			}
			if tc.revisits == 0 && !bytes.Equal(out.Bytes(), in.Bytes()) {
				t.Error("output differs from input with no revisit")
			}
		})
	}
}
