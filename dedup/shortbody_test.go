package dedup

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// chunks writes s in chunked transfer coding, in chunks of 700 bytes,
// followed by end (the last chunk and the trailer section, or less).
func chunks(s, end string) string {
	var b strings.Builder
	for len(s) > 0 {
		n := min(len(s), 700)
		fmt.Fprintf(&b, "%x\r\n%s\r\n", n, s[:n])
		s = s[n:]
	}
	return b.String() + end
}

// TestShortBody: a capture cut off in transfer, its body shorter than its
// HTTP Content-Length or its chunks ending before the last one, is never the
// kept copy of a complete capture, nor replaced by one: both are kept whole.
// A complete chunked body, with or without trailer fields, is judged as any
// other, and so is a Content-Length body under Transfer-Encoding: identity
// that has all its bytes. The map, judge and apply steps class every record
// as one machine does, and write the same output.
func TestShortBody(t *testing.T) {
	full := story(11, 60, 0)
	cut := full[:len(full)*9/10]
	later := story(11, 60, 1)
	clOf := func(s string) string { return strconv.Itoa(len(s)) }
	whole := chunks(full, "0\r\n\r\n")
	cutChunks := whole[:len(whole)-300]
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
		{"chunked, stored decoded: the length is the chunks'", capture{full, clOf(cut), "chunked"}, capture{later, "", "chunked"}, 1, 0},
		{"chunked, cut before the last chunk, then complete", capture{cutChunks, "", "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 0, 1},
		{"chunked, complete, then cut", capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, capture{cutChunks, "", "chunked"}, 0, 1},
		{"chunked, cut between chunks", capture{chunks(full[:len(full)-40], ""), "", "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 0, 1},
		{"chunked, cut in a size line", capture{whole[:strings.Index(whole, "\r\n2bc\r\n")+3], "", "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 0, 1},
		{"chunked, a Content-Length does not count", capture{cutChunks, clOf(cutChunks), "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 0, 1},
		{"gzip, chunked: cut", capture{cutChunks, "", "gzip, chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "gzip, chunked"}, 0, 1},
		{"chunked, both complete", capture{whole, "", "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 1, 0},
		{"chunked, no blank line after the last chunk", capture{chunks(full, "0\r\n"), "", "chunked"}, capture{chunks(later, "0\r\n"), "", "Chunked"}, 1, 0},
		{"chunked, with trailer fields", capture{chunks(full, "0;x=1\r\nExpires: never\r\nX-Sum: 1\r\n\r\n"), "", "chunked"}, capture{chunks(later, "0\r\nExpires: never\r\n\r\n"), "", "chunked"}, 1, 0},
		{"chunked, LF alone", capture{strings.ReplaceAll(whole, "\r\n", "\n"), "", "chunked"}, capture{chunks(later, "0\r\n\r\n"), "", "chunked"}, 1, 0},
		{"identity, cut, then complete", capture{cut, clOf(full), "identity"}, capture{later, clOf(later), "identity"}, 0, 1},
		{"identity, complete, then cut", capture{later, clOf(later), "Identity"}, capture{cut, clOf(full), "identity"}, 0, 1},
		{"identity, both complete", capture{full, clOf(full), "identity"}, capture{later, clOf(later), "identity"}, 1, 0},
		// Not a page this reads (transfer codings other than chunked are
		// not decoded), and no length to go by: neither cut nor replaced.
		{"another transfer coding", capture{cut, clOf(full), "gzip"}, capture{later, clOf(later), "gzip"}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var blocks [2]string
			for i, c := range []capture{tc.first, tc.second} {
				head := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
				if c.contentLength != "" {
					head += "Content-Length: " + c.contentLength + "\r\n"
				}
				if c.transfer != "" {
					head += "Transfer-Encoding: " + c.transfer + "\r\n"
				}
				blocks[i] = head + "\r\n" + c.body
			}
			in := capturesOfStory(t, blocks)
			opts := DefaultOptions()
			names, files := []string{"in.warc"}, [][]byte{in.Bytes()}
			outs, st, _ := oneMachine(t, opts, names, files, false)
			out := outs[0]
			if r := st.Out["revisit"]; r != tc.revisits || st.SkippedTruncSeg != tc.truncated {
				t.Errorf("revisits %d, truncated %d; want %d, %d", r, st.SkippedTruncSeg, tc.revisits, tc.truncated)
			}
			if tc.revisits == 0 && !bytes.Equal(out, in.Bytes()) {
				t.Error("output differs from input with no revisit")
			}
			souts, sst, _ := throughStages(t, opts, names, files, false)
			if !bytes.Equal(souts[0], out) {
				t.Error("the map, judge and apply steps wrote another output than one machine")
			}
			if sst.SkippedTruncSeg != st.SkippedTruncSeg || sst.Out["revisit"] != st.Out["revisit"] {
				t.Errorf("the steps counted %d truncated, %d revisits; one machine %d, %d",
					sst.SkippedTruncSeg, sst.Out["revisit"], st.SkippedTruncSeg, st.Out["revisit"])
			}
		})
	}
}

// TestEncodingCut: a page whose Content-Encoding stream (gzip, deflate)
// stops before its end, with no Content-Length or transfer coding to tell,
// was cut off in transfer: never a kept copy, never replaced, on one
// machine and through the steps. Complete streams are near duplicates as
// before.
func TestEncodingCut(t *testing.T) {
	full, later := story(12, 60, 0), story(12, 60, 1)
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	df := func(s string) string {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	cut := func(s string) string { return s[:len(s)*9/10] }
	type capture struct{ body, encoding string }
	for _, tc := range []struct {
		name          string
		first, second capture
		revisits      int
		truncated     int
	}{
		{"gzip, cut, then complete", capture{cut(gz(full)), "gzip"}, capture{gz(later), "gzip"}, 0, 1},
		{"gzip, complete, then cut", capture{gz(later), "gzip"}, capture{cut(gz(full)), "gzip"}, 0, 1},
		{"deflate, cut, then complete", capture{cut(df(full)), "deflate"}, capture{df(later), "deflate"}, 0, 1},
		{"gzip, both complete", capture{gz(full), "gzip"}, capture{gz(later), "gzip"}, 1, 0},
		// Bytes after a whole member (a server's padding) or a second
		// member: complete.
		{"gzip, padded", capture{gz(full) + "\n\x00pad", "gzip"}, capture{gz(later) + "\n", "gzip"}, 1, 0},
		{"gzip, two members", capture{gz(full[:len(full)/2]) + gz(full[len(full)/2:]), "gzip"}, capture{gz(later), "gzip"}, 1, 0},
		// A second member that starts and stops short: cut.
		{"gzip, cut in its second member", capture{gz(full[:len(full)*9/10]) + cut(gz(full[len(full)*9/10:])), "gzip"}, capture{gz(later), "gzip"}, 0, 1},
		{"gzip, cut in its second member's header", capture{gz(full[:len(full)*9/10]) + gz(full[len(full)*9/10:])[:5], "gzip"}, capture{gz(later), "gzip"}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var blocks [2]string
			for i, c := range []capture{tc.first, tc.second} {
				blocks[i] = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " + c.encoding + "\r\nConnection: close\r\n\r\n" + c.body
			}
			in := capturesOfStory(t, blocks)
			opts := DefaultOptions()
			names, files := []string{"in.warc"}, [][]byte{in.Bytes()}
			outs, st, _ := oneMachine(t, opts, names, files, false)
			if r := st.Out["revisit"]; r != tc.revisits || st.SkippedTruncSeg != tc.truncated {
				t.Errorf("revisits %d, truncated %d; want %d, %d", r, st.SkippedTruncSeg, tc.revisits, tc.truncated)
			}
			souts, sst, _ := throughStages(t, opts, names, files, false)
			if !bytes.Equal(souts[0], outs[0]) || sst.SkippedTruncSeg != st.SkippedTruncSeg {
				t.Error("the map, judge and apply steps decided otherwise than one machine")
			}
		})
	}
}

// capturesOfStory writes two responses of one URL, a day apart, with the
// HTTP blocks given, as one plain WARC.
func capturesOfStory(t *testing.T, blocks [2]string) *bytes.Buffer {
	t.Helper()
	var in bytes.Buffer
	w := warcio.NewWriter(&in, false)
	for i, b := range blocks {
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:cut-" + strconv.Itoa(i) + ">"},
			{Name: "WARC-Date", Value: "2026-01-0" + strconv.Itoa(i+1) + "T00:00:00Z"},
			{Name: "WARC-Target-URI", Value: "http://news.example/story"},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if err := w.WriteRecord(h, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	return &in
}

// TestAnalysedInPart: two captures of a page longer than the analysis cap
// (maxAnalysed), alike in their first 4.5 MB and not in the rest, are
// both kept: the page of the first 4 MiB cannot tell what a near revisit
// would throw away.
func TestAnalysedInPart(t *testing.T) {
	if testing.Short() {
		t.Skip("two 5 MB pages")
	}
	var common strings.Builder
	for i := 0; common.Len() < 4_500_000; i++ {
		fmt.Fprintf(&common, "<p>Paragraph %d of the long report says the committee met on day %d and agreed on the next step.</p>\n", i, i%97)
	}
	tail := func(v int) string {
		var b strings.Builder
		for i := 0; b.Len() < 300_000; i++ {
			fmt.Fprintf(&b, "<p>Annex %d, part %d: the figures of this edition differ from those of the other one.</p>\n", v, i)
		}
		return b.String()
	}
	var blocks [2]string
	for i := range blocks {
		body := "<html><body><article>" + common.String() + tail(i) + "</article></body></html>"
		blocks[i] = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	in := capturesOfStory(t, blocks)
	outs, st, _ := oneMachine(t, DefaultOptions(), []string{"in.warc"}, [][]byte{in.Bytes()}, false)
	if r := st.Out["revisit"]; r != 0 {
		t.Errorf("%d revisits, want both captures kept", r)
	}
	if !bytes.Equal(outs[0], in.Bytes()) {
		t.Error("the output is not the input")
	}
}
