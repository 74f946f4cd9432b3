package cdxj

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// testWARC builds a small WARC: warcinfo, a response and its request, a POST
// and its response, a revisit, a resource, a warc-fields metadata record.
func testWARC(gz bool) string {
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, gz)
	n := 0
	rec := func(typ, uri, date, ct string, extra [][2]string, block string) string {
		n++
		id := "<urn:uuid:00000000-0000-0000-0000-00000000000" + string(rune('0'+n)) + ">"
		h := &warcio.Header{Version: "WARC/1.1"}
		h.Add("WARC-Type", typ)
		h.Add("WARC-Record-ID", id)
		h.Add("WARC-Date", date)
		if uri != "" {
			h.Add("WARC-Target-URI", uri)
		}
		h.Add("Content-Type", ct)
		for _, f := range extra {
			h.Add(f[0], f[1])
		}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			panic(err)
		}
		return id
	}
	rec("warcinfo", "", "2024-01-02T03:04:05Z", "application/warc-fields", nil, "software: test\r\n")
	resp := rec("response", "http://www.Example.com/a/?b=2&a=1", "2024-01-02T03:04:05Z", "application/http; msgtype=response",
		[][2]string{{"WARC-Payload-Digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, {"WARC-Identified-Payload-Type", "text/html"}},
		"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>hi</p>")
	rec("request", "http://www.Example.com/a/?b=2&a=1", "2024-01-02T03:04:05Z", "application/http; msgtype=request",
		[][2]string{{"WARC-Concurrent-To", resp}}, "GET /a/?b=2&a=1 HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	post := rec("response", "http://example.com/post", "2024-01-02T03:04:06.5Z", "application/http; msgtype=response", nil,
		"HTTP/1.1 404 Not Found\r\n\r\nnone")
	rec("request", "http://example.com/post", "2024-01-02T03:04:06Z", "application/http; msgtype=request",
		[][2]string{{"WARC-Concurrent-To", post}},
		"POST /post HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 13\r\n\r\nz=1&y=a+b%21\n")
	rec("revisit", "http://www.example.com/a/?a=1&b=2", "2024-02-02T03:04:05Z", "application/http; msgtype=response",
		[][2]string{{"WARC-Payload-Digest", "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, {"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"}},
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")
	rec("resource", "urn:test:é", "2024-01-02T03:04:07Z", "text/plain; charset=utf-8", nil, "hello")
	rec("metadata", "http://example.com/post", "2024-01-02T03:04:08Z", "application/warc-fields", nil, "via: x\r\n")
	return buf.String()
}

func TestIndexGolden(t *testing.T) {
	for _, gz := range []bool{false, true} {
		name := "small.warc"
		if gz {
			name += ".gz"
		}
		var out bytes.Buffer
		if err := Index(strings.NewReader(testWARC(gz)), name, &out); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", name+".cdxj")
		if os.Getenv("CDXJ_UPDATE_GOLDEN") != "" {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(golden, out.Bytes(), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", name, out.String(), want)
		}
	}
}

func TestSortedLikeCSort(t *testing.T) {
	lines, err := Lines(strings.NewReader(testWARC(true)), "x", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i-1] > lines[i] {
			t.Fatalf("line %d before %d out of order", i-1, i)
		}
	}
}

func TestTimestamp(t *testing.T) {
	for in, want := range map[string]string{
		"2013-12-26T10:11:12Z":        "20131226101112",
		"2013-12-26T10:11:12.123456Z": "20131226101112",
		"2019-08-15T01:02Z":           "20190815010200",
		"2008-10-294T10:11:12Z":       "20081029410111",
	} {
		if got := isoDateToTimestamp(in); got != want {
			t.Errorf("isoDateToTimestamp(%q) = %q, want %q", in, got, want)
		}
	}
}
