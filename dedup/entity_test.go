package dedup

import (
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

func TestNearHead(t *testing.T) {
	dup := &warcio.HTTPResponse{Head: []byte("HTTP/1.1 200 OK\nDate: Mon\nContent-Type: text/html; charset=iso-8859-1\nX-Long: a\n  folded\nContent-Length: 900\nTransfer-Encoding: chunked\nSet-Cookie: s=1\n\n")}
	kept := "Content-Type: text/html; charset=utf-8\r\nContent-Length: 1234\r\n"
	got := string(nearHead(dup, kept))
	want := "HTTP/1.1 200 OK\r\nDate: Mon\r\nX-Long: a\r\n  folded\r\nSet-Cookie: s=1\r\n" + kept + "\r\n"
	if got != want {
		t.Errorf("nearHead\n got %q\nwant %q", got, want)
	}
	if got := string(nearHead(dup, "")); got != string(dup.CRLFHead()) {
		t.Errorf("with no kept fields known: %q", got)
	}
	resp := &warcio.HTTPResponse{Fields: []warcio.Field{{Name: "Date", Value: "Mon"}, {Name: "content-type", Value: "text/html"},
		{Name: "Content-Length", Value: "12"}, {Name: "ETag", Value: `"x"`}}}
	if got := entityOf(resp); got != "content-type: text/html\r\nContent-Length: 12\r\nETag: \"x\"\r\n" {
		t.Errorf("entityOf: %q", got)
	}
}

// TestNearRevisitReplays: a near revisit's HTTP head has the kept
// response's Content-Type (a replay serves the kept body under it) and keeps
// the duplicate's own in WARC-Dedup-Own-Content-Type; an exact revisit's
// head is the duplicate's, which is the kept one's.
func TestNearRevisitReplays(t *testing.T) {
	in := responsesWARC(t, false,
		response{id: "<urn:uuid:k>", uri: "http://news.example/a", ctype: "text/html; charset=utf-8", body: story(1, 40, 0)},
		response{id: "<urn:uuid:n>", uri: "http://copy.example/a", ctype: "text/html; charset=iso-8859-1", body: story(1, 40, 1)})
	d := New(DefaultOptions())
	var out strings.Builder
	if err := d.Run(strings.NewReader(string(in)), "in", &out, false); err != nil {
		t.Fatal(err)
	}
	recs := readBack(t, []byte(out.String()))
	rv := recs[1]
	if rv.Type() != "revisit" {
		t.Fatalf("no near revisit: %+v", d.Stats)
	}
	o := out.String()
	i := strings.Index(o, "WARC-Type: revisit")
	j := strings.Index(o[i:], "\r\n\r\n")
	k := strings.Index(o[i+j+4:], "\r\n\r\n")
	block := o[i+j+4 : i+j+4+k+4]
	if !strings.Contains(block, "Content-Type: text/html; charset=utf-8\r\n") || strings.Contains(block, "iso-8859-1") {
		t.Errorf("revisit head %q: want the kept page's Content-Type only", block)
	}
	if got := rv.Header.Get(FieldOwnPrefix + "Content-Type"); got != "text/html; charset=iso-8859-1" {
		t.Errorf("%sContent-Type = %q", FieldOwnPrefix, got)
	}
}
