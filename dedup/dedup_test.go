package dedup

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/warcio"
)

type rec struct {
	typ, uri, status string
	body             string
	extra            []warcio.Field
	version          string
}

// build writes records as a plain WARC and returns it.
func build(t *testing.T, recs []rec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, false)
	for i, r := range recs {
		v := r.version
		if v == "" {
			v = "WARC/1.1"
		}
		h := &warcio.Header{Version: v, Fields: []warcio.Field{
			{Name: "WARC-Type", Value: r.typ},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:%d>", i)},
			{Name: "WARC-Date", Value: fmt.Sprintf("2026-01-01T00:00:%02dZ", i)},
			{Name: "WARC-Target-URI", Value: r.uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		h.Fields = append(h.Fields, r.extra...)
		block := "HTTP/1.1 " + r.status + "\r\nContent-Type: text/html\r\n\r\n" + r.body
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func readBack(t *testing.T, b []byte) []*warcio.Record {
	t.Helper()
	r := warcio.NewReader(bytes.NewReader(b), "out")
	var out []*warcio.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

func TestExactDecisions(t *testing.T) {
	big := strings.Repeat("<p>the same story</p>\n", 100)
	other := strings.Repeat("<p>another story</p>\n", 100)
	in := build(t, []rec{
		{typ: "response", uri: "http://a.example/1", status: "200 OK", body: big,
			extra: []warcio.Field{{Name: "WARC-Concurrent-To", Value: "<urn:uuid:x>"}, {Name: "WARC-Concurrent-To", Value: "<urn:uuid:y>"}}},
		{typ: "response", uri: "http://a.example/2", status: "200 OK", body: big, // exact duplicate
			extra: []warcio.Field{{Name: "WARC-Concurrent-To", Value: "<urn:uuid:z>"}, {Name: "WARC-Concurrent-To", Value: "<urn:uuid:w>"}}},
		{typ: "response", uri: "http://a.example/3", status: "404 Not Found", body: big}, // not 200
		{typ: "response", uri: "http://a.example/4", status: "200 OK", body: "tiny"},     // under MinSize
		{typ: "response", uri: "http://a.example/5", status: "200 OK", body: "tiny"},     // under MinSize, dup
		{typ: "response", uri: "http://a.example/6", status: "200 OK", body: other},      // unique
		{typ: "response", uri: "http://a.example/7", status: "200 OK", body: big, // truncated: left alone
			extra: []warcio.Field{{Name: "WARC-Truncated", Value: "time"}}},
		{typ: "response", uri: "http://a.example/8", status: "200 OK", body: big, version: "WARC/1.0"},
		{typ: "resource", uri: "http://a.example/9", status: "200 OK", body: big}, // not a response
		{typ: "response", uri: "http://a.example/10", status: "200 OK", body: other, // recorded digest used verbatim
			extra: []warcio.Field{{Name: "WARC-Payload-Digest", Value: warcio.SHA1Digest([]byte(other))}}},
	})
	d := New(DefaultOptions())
	var out bytes.Buffer
	if err := d.Run(bytes.NewReader(in), "in", &out, false); err != nil {
		t.Fatal(err)
	}
	got := readBack(t, out.Bytes())
	if len(got) != 10 {
		t.Fatalf("%d records out, 10 in", len(got))
	}
	wantType := []string{"response", "revisit", "response", "response", "response", "response", "response", "revisit", "resource", "revisit"}
	for i, r := range got {
		if r.Type() != wantType[i] {
			t.Errorf("record %d (%s): %s, want %s", i, r.Header.Get("WARC-Target-URI"), r.Type(), wantType[i])
		}
	}
	v := got[1].Header
	checks := map[string]string{
		"WARC-Refers-To":            "<urn:uuid:0>",
		"WARC-Refers-To-Target-URI": "http://a.example/1",
		"WARC-Refers-To-Date":       "2026-01-01T00:00:00Z",
		"WARC-Target-URI":           "http://a.example/2",
		"WARC-Date":                 "2026-01-01T00:00:01Z",
		"WARC-Profile":              ProfileIdentical11,
		"WARC-Truncated":            "length",
		"WARC-Payload-Digest":       warcio.SHA1Digest([]byte(big)),
	}
	for f, want := range checks {
		if g := v.Get(f); g != want {
			t.Errorf("revisit %s = %q, want %q", f, g, want)
		}
	}
	if c := v.Values("WARC-Concurrent-To"); len(c) != 2 || c[0] != "<urn:uuid:z>" || c[1] != "<urn:uuid:w>" {
		t.Errorf("WARC-Concurrent-To not carried over: %v", c)
	}
	if v.Get("WARC-Record-ID") == "<urn:uuid:1>" || v.Get("WARC-Record-ID") != NewID("<urn:uuid:1>", "revisit") {
		t.Errorf("revisit record ID %q", v.Get("WARC-Record-ID"))
	}
	if got[7].Header.Version != "WARC/1.0" || got[7].Header.Get("WARC-Profile") != ProfileIdentical10 {
		t.Errorf("WARC/1.0 revisit: %s %s", got[7].Header.Version, got[7].Header.Get("WARC-Profile"))
	}
	if g := got[9].Header.Get("WARC-Refers-To"); g != "<urn:uuid:5>" {
		t.Errorf("recorded digest: refers to %s, want <urn:uuid:5>", g)
	}
	s := d.Stats
	if s.Revisits != 3 || s.SkippedNotOK != 1 || s.SkippedSmall != 2 || s.SkippedTruncSeg != 1 {
		t.Errorf("stats %+v", s)
	}
	// Records 1 and 7 repeat big, record 9 repeats other.
	if want := 2*int64(len(big)) + int64(len(other)); s.BytesSaved != want {
		t.Errorf("bytes saved %d, want %d", s.BytesSaved, want)
	}
}

// A crawler that records the same digest for different payloads must not make
// one of them a revisit of the other.
func TestDigestConflict(t *testing.T) {
	a := strings.Repeat("a", 2000)
	b := strings.Repeat("b", 2000)
	same := []warcio.Field{{Name: "WARC-Payload-Digest", Value: "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}
	in := build(t, []rec{
		{typ: "response", uri: "http://a.example/1", status: "200 OK", body: a, extra: same},
		{typ: "response", uri: "http://a.example/2", status: "200 OK", body: b, extra: same},
	})
	d := New(DefaultOptions())
	var out bytes.Buffer
	if err := d.Run(bytes.NewReader(in), "in", &out, false); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) || d.Stats.DigestConflicts != 1 {
		t.Fatalf("conflicting digests: output changed or not counted (%+v)", d.Stats)
	}
}

// The ukwa re-crawl pair: the second crawl's unchanged HTML pages were already
// written as revisits by Heritrix, and its changed pages differ in tokens only
// (near duplicates, not exact). Exact deduplication of both files in one run must
// keep every record and change none that is not an exact duplicate.
func TestRecrawlPairExact(t *testing.T) {
	dir := testshared.Path(t, ukwaRecrawl)
	opts := DefaultOptions()
	opts.Near = NearOff
	d := New(opts)
	for _, f := range ukwaFiles {
		in, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := d.Run(bytes.NewReader(in), f, &out, true); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Errorf("%s changed, but it has no exact duplicate the crawler did not already mark", f)
		}
	}
	if d.Stats.In["revisit"] != 55 || d.Stats.In["response"] != 75 {
		t.Errorf("stats %+v", d.Stats.In)
	}
}
