package dedup

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

// TestRecordInsideDamage: a lenient run meets a response whose
// Content-Length does not parse, and whose block is a WARC file holding a
// copy of a kept page. The record found by scanning the damaged bytes may
// be part of them: it is carried over as it is, with the damage, not made
// a revisit, so the output is the input byte for byte. A record that
// starts a gzip member of its own after the damage is judged again.
func TestRecordInsideDamage(t *testing.T) {
	page := story(51, 40, 0)
	inner := responsesWARC(t, false, response{id: "<urn:uuid:inner>", uri: "http://inner.example/a", body: page})
	block := "HTTP/1.1 200 OK\r\nContent-Type: application/warc\r\n\r\n" + string(inner)
	damaged := fmt.Sprintf("WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:outer>\r\nWARC-Date: 2026-01-01T00:00:05Z\r\n"+
		"WARC-Target-URI: http://a.example/crawl.warc\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %dx\r\n\r\n%s\r\n\r\n", len(block), block)
	kept := responsesWARC(t, false, response{id: "<urn:uuid:kept>", uri: "http://a.example/page", body: page})
	later := responsesWARC(t, false, response{id: "<urn:uuid:later>", uri: "http://b.example/copy", body: page})
	gz := func(parts ...string) []byte {
		var b bytes.Buffer
		for _, p := range parts {
			w := gzip.NewWriter(&b)
			w.Write([]byte(p))
			w.Close()
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		name      string
		in        []byte
		revisits  int
		identical bool
	}{
		{"plain", []byte(string(kept) + damaged), 0, true},
		{"gzip, the damage in one member", gz(string(kept), damaged), 0, false},
		{"gzip, a record of its own member after it", gz(string(kept), damaged, string(later)), 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := DefaultOptions()
			opts.Lenient = true
			var warned []string
			opts.Warn = func(err error) { warned = append(warned, err.Error()) }
			d := New(opts)
			var out bytes.Buffer
			compress := c.in[0] == 0x1f
			if err := d.Run(bytes.NewReader(c.in), "in.warc", &out, compress); err != nil {
				t.Fatal(err)
			}
			d.Close()
			if n := d.Stats.Revisits + d.Stats.NearRevisits; n != c.revisits {
				t.Errorf("%d revisits, want %d", n, c.revisits)
			}
			if c.identical && !bytes.Equal(out.Bytes(), c.in) {
				t.Error("the output is not the input")
			}
			plain := func(b []byte) []byte {
				if !compress {
					return b
				}
				var all bytes.Buffer
				r, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				all.ReadFrom(r)
				return all.Bytes()
			}
			if c.revisits == 0 && !bytes.Equal(plain(out.Bytes()), plain(c.in)) {
				t.Error("the output's records are not the input's")
			}
			if !strings.Contains(strings.Join(warned, "\n"), "follows damaged bytes") {
				t.Errorf("warnings %q: none for the record inside the damage", warned)
			}
		})
	}
}
