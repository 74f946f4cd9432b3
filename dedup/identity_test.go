package dedup

import (
	"bytes"
	"crypto/sha1"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// response is a 200 response record with the given ID, URI, payload content
// type and body, and extra WARC fields.
type response struct {
	id, uri, ctype, body string
	extra                []warcio.Field
}

// responsesWARC writes the responses as one WARC, plain or gzip-compressed.
func responsesWARC(t testing.TB, compress bool, rs ...response) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, compress)
	for i, r := range rs {
		ct := r.ctype
		if ct == "" {
			ct = "text/html"
		}
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: r.id},
			{Name: "WARC-Date", Value: "2026-01-01T00:00:0" + string(rune('0'+i%10)) + "Z"},
			{Name: "WARC-Target-URI", Value: r.uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		h.Fields = append(h.Fields, r.extra...)
		block := "HTTP/1.1 200 OK\r\nContent-Type: " + ct + "\r\n\r\n" + r.body
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestSHA1Collision: the SHAttered PDFs (Stevens et al., CRYPTO 2017) share a
// SHA-1 whatever common suffix follows their 320-byte prefixes. Two responses
// carrying them are both kept, byte for byte, and counted as a digest
// conflict, whether the crawler recorded their (equal) SHA-1 or not.
func TestSHA1Collision(t *testing.T) {
	p1, err := os.ReadFile("testdata/shattered-1.bin")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := os.ReadFile("testdata/shattered-2.bin")
	if err != nil {
		t.Fatal(err)
	}
	suffix := strings.Repeat("%%EOF common tail of both documents\n", 120) // over MinSize
	a, b := string(p1)+suffix, string(p2)+suffix
	if a == b || sha1.Sum([]byte(a)) != sha1.Sum([]byte(b)) {
		t.Fatal("testdata: the prefixes are not a SHA-1 collision")
	}
	recorded := []warcio.Field{{Name: "WARC-Payload-Digest", Value: warcio.SHA1Digest([]byte(a))}}
	for _, tc := range []struct {
		name  string
		extra []warcio.Field
	}{
		{"recorded digest", recorded},
		{"no recorded digest", nil},
	} {
		in := responsesWARC(t, false,
			response{id: "<urn:uuid:pdf-1>", uri: "http://a.example/shattered-1.pdf", ctype: "application/pdf", body: a, extra: tc.extra},
			response{id: "<urn:uuid:pdf-2>", uri: "http://b.example/shattered-2.pdf", ctype: "application/pdf", body: b, extra: tc.extra})
		d := New(DefaultOptions())
		var out bytes.Buffer
		if err := d.Run(bytes.NewReader(in), "in", &out, false); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Errorf("%s: output differs from the input: a colliding payload was replaced", tc.name)
		}
		if d.Stats.DigestConflicts != 1 || d.Stats.Revisits != 0 {
			t.Errorf("%s: %d digest conflicts, %d revisits; want 1 and 0", tc.name, d.Stats.DigestConflicts, d.Stats.Revisits)
		}
	}
	// A true copy of the first is still a duplicate, and its revisit carries
	// the recorded digest verbatim.
	in := responsesWARC(t, false,
		response{id: "<urn:uuid:pdf-1>", uri: "http://a.example/shattered-1.pdf", ctype: "application/pdf", body: a, extra: recorded},
		response{id: "<urn:uuid:pdf-3>", uri: "http://c.example/copy.pdf", ctype: "application/pdf", body: a, extra: recorded})
	d := New(DefaultOptions())
	var out bytes.Buffer
	if err := d.Run(bytes.NewReader(in), "in", &out, false); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, out.Bytes())
	if len(got) != 2 || got[1].Type() != "revisit" || got[1].Header.Get("WARC-Payload-Digest") != recorded[0].Value ||
		got[1].Header.Get("WARC-Refers-To") != "<urn:uuid:pdf-1>" {
		t.Errorf("a true copy is not a revisit of the first: %+v", d.Stats)
	}
}

// TestUnwritableHeader: a response whose header holds a field that cannot be
// written back as it is (a bare CR inside a value, which the reader keeps:
// found by FuzzRun) is neither replaced nor kept as the copy later
// duplicates refer to, since its revisit, or theirs, would carry the field.
// Both orders give the input back unchanged.
func TestUnwritableHeader(t *testing.T) {
	body := strings.Repeat("<p>the same payload</p>\n", 60)
	record := func(id, uri string) string {
		block := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body
		return "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: " + id + "\r\nWARC-Date: 2026-01-01T00:00:00Z\r\n" +
			"WARC-Target-URI: " + uri + "\r\nContent-Type: application/http; msgtype=response\r\n" +
			"Content-Length: " + strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
	}
	good, bad := record("<urn:uuid:good>", "http://a.example/"), record("<urn:uuid:bad>", "http://b.example/\r0")
	for _, tc := range []struct{ name, in string }{
		{"the duplicate's header", good + bad},
		{"the first copy's header", bad + good},
	} {
		d := New(DefaultOptions())
		var out bytes.Buffer
		if err := d.Run(strings.NewReader(tc.in), "in", &out, false); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.String() != tc.in || d.Stats.Revisits != 0 {
			t.Errorf("%s: output changed (%d revisits)", tc.name, d.Stats.Revisits)
		}
	}
}
