package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.warc.gz and the golden output")

const (
	samplePath = "../../testdata/sample.warc.gz"
	goldenPath = "../../testdata/sample.golden.warc.gz"
)

// sampleArticle is text written for this project's sample, so that the sample
// can ship in the repository.
const sampleArticle = `<p>The harbour board voted on Tuesday to rebuild the north pier, which has been
closed to the public since the storm of last winter tore away a third of its deck.</p>
<p>Engineers told the board that the old timber piles could not be saved. The new pier
will stand on concrete piles and is expected to open to walkers and anglers in the
spring of next year, the chair of the board said after the vote.</p>
<p>Local fishermen, who have moored at the south quay while the north pier was closed,
welcomed the decision but asked that the works be done outside the herring season.
The board said it would publish a timetable for the works within a month.</p>
<p>The cost of the rebuild is to be shared between the port's own reserves and a grant
from the regional fund, which was approved in the autumn.</p>`

const otherArticle = `<p>The town library will open on Sundays from next month, after a volunteer
scheme found enough helpers to staff the reading room and the children's corner.</p>
<p>The librarian said the Sunday hours were the most requested change in the survey the
library ran last year, ahead of a longer Thursday evening and a bigger film collection.</p>
<p>Volunteers will be trained in the first weeks of the month. Anyone who would like to
help can leave their name at the front desk or write to the library's office.</p>
<p>The council has agreed to meet the extra heating and lighting costs for a trial of six
months, after which the scheme will be reviewed.</p>`

func page(title, body, stamp string) string {
	return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>` + title + ` - Harbour Gazette</title></head>
<body><div class="nav"><a href="/">Home</a> <a href="/news/">News</a> <a href="/sport/">Sport</a></div>
<h1>` + title + `</h1>
<div class="article">` + body + `</div>
<div class="footer">Page generated ` + stamp + `. Harbour Gazette, 2026.</div>
</body></html>
`
}

func httpBlock(status, ctype, body string) []byte {
	return []byte(fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nServer: sample\r\n\r\n%s", status, ctype, len(body), body))
}

// writeSample builds the sample WARC: a small crawl with one exact duplicate (the
// same article under a tracking URL), one re-capture that differs only in a
// timestamp, a different article, a short robots.txt and a 404 captured twice.
func writeSample(t *testing.T) []byte {
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	n := 0
	rec := func(typ, uri, ctype string, block []byte, extra ...warcio.Field) {
		n++
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: typ},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", n)},
			{Name: "WARC-Date", Value: fmt.Sprintf("2026-11-01T10:%02d:00Z", n)},
		}}
		if uri != "" {
			h.Add("WARC-Target-URI", uri)
		}
		h.Add("Content-Type", ctype)
		h.Fields = append(h.Fields, extra...)
		if err := w.WriteRecord(h, block); err != nil {
			t.Fatal(err)
		}
	}
	rec("warcinfo", "", "application/warc-fields", []byte("software: warcdedup sample\r\nformat: WARC File Format 1.1\r\n"))
	html := "text/html; charset=utf-8"
	pier := page("North pier to be rebuilt", sampleArticle, "2026-11-01 10:02")
	rec("request", "https://gazette.example/news/pier", "application/http; msgtype=request",
		[]byte("GET /news/pier HTTP/1.1\r\nHost: gazette.example\r\n\r\n"))
	rec("response", "https://gazette.example/news/pier", "application/http; msgtype=response", httpBlock("200 OK", html, pier))
	rec("response", "https://gazette.example/news/library", "application/http; msgtype=response",
		httpBlock("200 OK", html, page("Library to open on Sundays", otherArticle, "2026-11-01 10:04")))
	rec("response", "https://gazette.example/robots.txt", "application/http; msgtype=response",
		httpBlock("200 OK", "text/plain", "User-agent: *\nDisallow: /search\n"))
	rec("response", "https://gazette.example/missing", "application/http; msgtype=response",
		httpBlock("404 Not Found", html, strings.Repeat("<p>Not found.</p>\n", 80)))
	rec("response", "https://gazette.example/news/pier?utm_source=feed", "application/http; msgtype=response", httpBlock("200 OK", html, pier))
	rec("response", "https://gazette.example/missing", "application/http; msgtype=response",
		httpBlock("404 Not Found", html, strings.Repeat("<p>Not found.</p>\n", 80)))
	rec("response", "https://gazette.example/news/pier", "application/http; msgtype=response",
		httpBlock("200 OK", html, page("North pier to be rebuilt", sampleArticle, "2026-11-01 10:09")))
	rec("metadata", "https://gazette.example/news/pier", "application/warc-fields", []byte("outlinks: https://gazette.example/news/\r\n"))
	return buf.Bytes()
}

// TestSample keeps the bundled sample and its golden output current: the sample
// is what the README's first command runs on.
func TestSample(t *testing.T) {
	want := writeSample(t)
	if *update {
		if err := os.WriteFile(samplePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date: run go test ./cmd/warcdedup -run TestSample -update", samplePath)
	}
	out := t.TempDir() + "/out.warc.gz"
	var stderr bytes.Buffer
	if code := run([]string{samplePath, out}, nil, nil, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	res, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenPath, res, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res, golden) {
		t.Fatalf("output differs from %s; if the change is meant, run with -update and review the diff", goldenPath)
	}
	st := checkOutputs(t, []string{samplePath}, []string{out})
	warccheck(t, []string{samplePath}, []string{out}, st)
}
