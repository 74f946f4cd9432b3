package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// ncResponse is a response of a test WARC: its status, and whether it
// departs from the standard by a field that may not repeat.
type ncResponse struct {
	status  string
	payload string
	bad     bool
}

// writePlainWARC writes the responses as an uncompressed WARC file, less
// the CR LF CR LF after the last block when cut.
func writePlainWARC(t *testing.T, path string, recs []ncResponse, cut bool) {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, false)
	for i, r := range recs {
		body := strings.Repeat("<p>payload "+r.payload+"</p>\n", 100)
		block := fmt.Sprintf("HTTP/1.1 %s\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", r.status, len(body), body)
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:" + uuid(i+1) + ">"},
			{Name: "WARC-Date", Value: fmt.Sprintf("2026-11-01T10:%02d:00Z", i)},
			{Name: "WARC-Target-URI", Value: fmt.Sprintf("http://a.example/%d", i)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if r.bad {
			h.Fields = append(h.Fields, warcio.Field{Name: "WARC-Warcinfo-ID", Value: "<urn:uuid:a>"},
				warcio.Field{Name: "WARC-Warcinfo-ID", Value: "<urn:uuid:b>"})
		}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	b := buf.Bytes()
	if cut {
		b = bytes.TrimSuffix(b, []byte("\r\n\r\n"))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNonconformingSaysWhatHappened: the warning about a nonconforming
// record and the summary say what became of it: copied as it is, or, a
// duplicate, replaced by a revisit record. They are counted apart.
func TestNonconformingSaysWhatHappened(t *testing.T) {
	const (
		copiedWarn   = "record does not conform to the WARC standard; copied as it is ("
		replacedWarn = "record does not conform to the WARC standard; a duplicate, replaced by a revisit record ("
		copiedSum    = "records not conforming to the standard (copied as they are): %d\n"
		replacedSum  = "records not conforming to the standard, duplicates replaced by revisit records: %d\n"
	)
	ok := "200 OK"
	for _, tc := range []struct {
		name             string
		recs             []ncResponse
		cut              bool // the last block lacks the CR LF CR LF after it
		copied, replaced int
		revisits         int
	}{
		{name: "duplicate without the end of block", recs: []ncResponse{{ok, "A", false}, {ok, "A", false}}, cut: true, replaced: 1, revisits: 1},
		{name: "duplicate with a repeated field", recs: []ncResponse{{ok, "A", false}, {ok, "A", true}}, replaced: 1, revisits: 1},
		{name: "kept record", recs: []ncResponse{{ok, "A", true}, {ok, "A", false}}, copied: 1, revisits: 1},
		{name: "both", recs: []ncResponse{{ok, "A", true}, {ok, "A", true}}, copied: 1, replaced: 1, revisits: 1},
		{name: "not a duplicate", recs: []ncResponse{{ok, "A", false}, {ok, "B", false}}, cut: true, copied: 1},
		{name: "not 200", recs: []ncResponse{{ok, "A", false}, {"404 Not Found", "A", true}}, copied: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.warc"), filepath.Join(dir, "out.warc")
			writePlainWARC(t, in, tc.recs, tc.cut)
			code, msg := runCLI(t, in, out)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, msg)
			}
			if got := bytes.Count(mustRead(t, out), []byte("WARC-Type: revisit\r\n")); got != tc.revisits {
				t.Fatalf("%d revisits, want %d", got, tc.revisits)
			}
			if n := strings.Count(msg, copiedWarn); n != tc.copied {
				t.Errorf("%d warnings %q, want %d:\n%s", n, copiedWarn, tc.copied, msg)
			}
			if n := strings.Count(msg, replacedWarn); n != tc.replaced {
				t.Errorf("%d warnings %q, want %d:\n%s", n, replacedWarn, tc.replaced, msg)
			}
			for _, l := range []struct {
				format string
				n      int
			}{{copiedSum, tc.copied}, {replacedSum, tc.replaced}} {
				line := fmt.Sprintf(l.format, l.n)
				has := strings.Contains(msg, strings.SplitN(l.format, ":", 2)[0]+":")
				if l.n > 0 && !strings.Contains(msg, line) || l.n == 0 && has {
					t.Errorf("the summary does not say %q (nor the line for none):\n%s", line, msg)
				}
			}
		})
	}
}
