package dedup

import (
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/warcio"
)

// A capture of a crawl that deduplicates as it crawls, for the tests of
// input revisits: a response, or a revisit naming an earlier response by
// URI and payload digest.
type capture struct {
	typ, id, uri, date string
	body               string // response: the payload
	digest, refersTo   string // revisit: the payload digest and the URI it names
	profile            string // revisit: "" for identical-payload-digest (WARC 1.1)
	label              string // response: the digest's algorithm as spelled, "" for "sha1"
}

func sha1Digest(body string) string {
	sum := sha1.Sum([]byte(body))
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

func capturesWARC(t testing.TB, cs ...capture) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	for _, c := range cs {
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: c.typ},
			{Name: "WARC-Record-ID", Value: c.id},
			{Name: "WARC-Date", Value: c.date},
			{Name: "WARC-Target-URI", Value: c.uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		ct := "text/html"
		if strings.HasSuffix(c.uri, ".pdf") {
			ct = "application/pdf"
		}
		block := "HTTP/1.1 200 OK\r\nContent-Type: " + ct + "\r\n\r\n"
		if c.typ == "response" {
			block += c.body
			dg := sha1Digest(c.body)
			if c.label != "" {
				dg = c.label + strings.TrimPrefix(dg, "sha1")
			}
			h.Set("WARC-Payload-Digest", dg)
		} else {
			profile := c.profile
			if profile == "" {
				profile = ProfileIdentical11
			}
			h.Set("WARC-Profile", profile)
			h.Set("WARC-Payload-Digest", c.digest)
			h.Set("WARC-Refers-To-Target-URI", c.refersTo)
		}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// brokenCase is a run over two crawls: the first holds the responses, the
// second a deduplicating crawler's revisits of them. broken are the IDs of
// the revisits that name a response the run replaced with none like it
// left.
func brokenCase(t testing.TB) (names []string, files [][]byte, broken []string) {
	page, recapture := story(31, 60, 0), story(31, 60, 2)
	pdf := strings.Repeat("%PDF-1.7 a report of the year, page after page\n", 20)
	css := strings.Repeat("body { margin: 0 } .story { font: 1em serif }\n", 20)
	d1, d2 := "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"
	crawl1 := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:k>", uri: "http://news.example/a", date: d1, body: page},
		capture{typ: "response", id: "<urn:uuid:p1>", uri: "http://cdn.example/report.pdf", date: d1, body: pdf},
		capture{typ: "response", id: "<urn:uuid:c1>", uri: "http://news.example/site.css", date: d1, body: css},
		// A re-capture of the page with two sentences changed: a near
		// revisit of the first.
		capture{typ: "response", id: "<urn:uuid:r>", uri: "http://news.example/a", date: d2, body: recapture},
		// The report at a mirror: an exact revisit of the cdn's capture.
		capture{typ: "response", id: "<urn:uuid:p2>", uri: "http://mirror.example/report.pdf", date: d2, body: pdf},
		// The style sheet again at its URI: an exact revisit of a capture
		// of the same URI, which resolves a revisit naming either.
		capture{typ: "response", id: "<urn:uuid:c2>", uri: "http://news.example/site.css", date: d2, body: css},
	)
	d3 := "2026-02-01T00:00:00Z"
	rv := func(id, uri, body, profile string) capture {
		return capture{typ: "revisit", id: id, uri: uri, date: d3, digest: sha1Digest(body), refersTo: uri, profile: profile}
	}
	crawl2 := capturesWARC(t,
		rv("<urn:uuid:v-recapture>", "http://news.example/a", recapture, ""),        // broken: replaced by a near revisit
		rv("<urn:uuid:v-mirror>", "http://mirror.example/report.pdf", pdf, ""),      // broken: replaced across URIs
		rv("<urn:uuid:v-cdn>", "http://cdn.example/report.pdf", pdf, ""),            // the kept capture
		rv("<urn:uuid:v-css>", "http://news.example/site.css", css, ""),             // a capture of its URI stays
		rv("<urn:uuid:v-page>", "http://news.example/a", page, ""),                  // the kept page
		rv("<urn:uuid:v-elsewhere>", "http://other.example/", "not in the run", ""), // an earlier crawl's
		// Another profile with a payload digest: resolved by it all the
		// same (pywb), so broken.
		rv("<urn:uuid:v-notmod>", "http://news.example/a", recapture,
			"http://netpreserve.org/warc/1.1/revisit/server-not-modified"),
		rv("<urn:uuid:v-recapture-1.0>", "http://news.example/a", recapture, ProfileIdentical10), // broken
		// As a replay index keys them (SURT, digest without "sha1:"): the
		// mirror's capture under "www." and a bare digest is broken; the
		// cdn's kept one under https is not.
		capture{typ: "revisit", id: "<urn:uuid:v-mirror-www>", uri: "http://WWW.mirror.example/report.pdf", date: d3,
			digest: strings.TrimPrefix(sha1Digest(pdf), "sha1:"), refersTo: "http://WWW.mirror.example/report.pdf"},
		rv("<urn:uuid:v-cdn-https>", "https://cdn.example/report.pdf", pdf, ""),
		// The algorithm spelled in capitals: the same digest.
		capture{typ: "revisit", id: "<urn:uuid:v-mirror-SHA1>", uri: "http://mirror.example/report.pdf", date: d3,
			digest: "SHA1:" + strings.TrimPrefix(sha1Digest(pdf), "sha1:"), refersTo: "http://mirror.example/report.pdf"},
		capture{typ: "revisit", id: "<urn:uuid:v-cdn-SHA1>", uri: "http://cdn.example/report.pdf", date: d3,
			digest: "SHA1:" + strings.TrimPrefix(sha1Digest(pdf), "sha1:"), refersTo: "http://cdn.example/report.pdf"},
	)
	return []string{"crawl1.warc.gz", "crawl2.warc.gz"}, [][]byte{crawl1, crawl2},
		[]string{"<urn:uuid:v-recapture>", "<urn:uuid:v-mirror>", "<urn:uuid:v-notmod>", "<urn:uuid:v-recapture-1.0>", "<urn:uuid:v-mirror-www>", "<urn:uuid:v-mirror-SHA1>"}
}

type brokenRec struct {
	file        string
	offset      int64
	id, uri, dg string
}

// TestBrokenRevisits: an input revisit that names a response the run
// replaced (near, or by a capture at another URI), with no response of its
// URI and payload left (as a replay index keys them), is told to the caller with its file, stored offset
// and ID, and counted; it passes through unchanged, as every record but a
// response does. The same holds through the one-task reduce (Judge) and
// the partitioned rounds. With --near=annotate the near duplicate stays,
// and so does the revisit naming it.
func TestBrokenRevisits(t *testing.T) {
	names0, files0, want := brokenCase(t)
	for _, c := range []struct{ annotate, revisitsFirst bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		annotate := c.annotate
		// Read before the responses they name (a writer pool's files in
		// name order), the revisits are told all the same.
		names, files, rev := names0, files0, 1
		if c.revisitsFirst {
			names, files, rev = []string{names0[1], names0[0]}, [][]byte{files0[1], files0[0]}, 0
		}
		opts := DefaultOptions()
		wantIDs := want
		if annotate {
			opts.Near = NearAnnotate
			wantIDs = []string{"<urn:uuid:v-mirror>", "<urn:uuid:v-mirror-www>", "<urn:uuid:v-mirror-SHA1>"}
		}
		var got []brokenRec
		opts.BrokenRevisit = func(file string, offset int64, id, uri, digest string) {
			got = append(got, brokenRec{file, offset, id, uri, digest})
		}
		d := New(opts)
		for i, in := range files {
			var out bytes.Buffer
			if err := d.Run(bytes.NewReader(in), names[i], &out, true); err != nil {
				t.Fatal(err)
			}
			if i == rev && !bytes.Equal(out.Bytes(), in) {
				t.Errorf("%+v: the revisits' file changed", c)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		checkBroken(t, fmt.Sprintf("one machine %+v", c), files[rev], got, wantIDs)
		if d.Stats.BrokenRevisits != len(wantIDs) {
			t.Errorf("one machine %+v: Stats.BrokenRevisits %d, want %d", c, d.Stats.BrokenRevisits, len(wantIDs))
		}
		if d.Stats.NearRevisits+d.Stats.Revisits != 3-btoi(annotate) {
			t.Errorf("%+v: %d near and %d exact revisits: the case no longer replaces what it should", c, d.Stats.NearRevisits, d.Stats.Revisits)
		}

		// Judge, the one-task reduce, over the Facts Map makes.
		got = got[:0]
		j := New(opts)
		for i, in := range files {
			m := New(opts)
			var facts []*Fact
			if err := m.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
				b, err := f.AppendBinary(nil)
				if err != nil {
					return err
				}
				g := new(Fact)
				facts = append(facts, g)
				return g.UnmarshalBinary(b)
			}); err != nil {
				t.Fatal(err)
			}
			m.Close()
			for _, f := range facts {
				if _, err := j.Judge(names[i], f); err != nil {
					t.Fatal(err)
				}
			}
		}
		j.Close()
		checkBroken(t, fmt.Sprintf("judge %+v", c), files[rev], got, wantIDs)

		// The partitioned rounds.
		got = got[:0]
		if n := roundsBroken(t, opts, names, files); n != len(wantIDs) {
			t.Errorf("rounds %+v: BrokenRevisits %d, want %d", c, n, len(wantIDs))
		}
		// The rounds tell a revisit read before what it names at the end.
		slices.SortStableFunc(got, func(a, b brokenRec) int { return cmp.Compare(a.offset, b.offset) })
		checkBroken(t, fmt.Sprintf("rounds %+v", c), files[rev], got, wantIDs)
	}
}

// roundsBroken runs the files through map and the partitioned rounds,
// with opts (its BrokenRevisit told by the resolve round), and returns
// the resolve round's count of broken input revisits.
func roundsBroken(t *testing.T, opts Options, names []string, files [][]byte) int {
	t.Helper()
	var lines []Line
	add := func(l Line) error { lines = append(lines, l); return nil }
	for i, in := range files {
		m := New(opts)
		fk := FileKey(time.Time{}, false, uint64(i))
		if err := m.Map(bytes.NewReader(in), names[i], func(f *Fact) error {
			return RoundFacts(RecordKey(fk, f.Offset), cloneFact(f), add)
		}); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if err := NameLine(fk, names[i], add); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, name := range RoundNames {
		r, err := NewRound(name, opts)
		if err != nil {
			t.Fatal(err)
		}
		r.BrokenRevisit = opts.BrokenRevisit
		sortLines(lines)
		var next []Line
		if err := r.Groups(lines, func(l Line) error { next = append(next, l); return nil }); err != nil {
			t.Fatal(err)
		}
		lines = next
		n = r.BrokenRevisits
	}
	return n
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkBroken checks the revisits told against the IDs wanted, and each
// one's file, stored offset, URI and digest against the revisits' file.
func checkBroken(t *testing.T, how string, revisits []byte, got []brokenRec, want []string) {
	t.Helper()
	var ids []string
	for _, b := range got {
		ids = append(ids, b.id)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("%s: revisits told %q, want %q", how, ids, want)
		return
	}
	at := map[string]*warcio.Record{}
	r := warcio.NewReader(bytes.NewReader(revisits), "crawl2.warc.gz")
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		at[rec.ID()] = rec
		if _, err := r.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range got {
		rec := at[b.id]
		if rec == nil || b.file != "crawl2.warc.gz" || b.offset != rec.Offset ||
			b.uri != rec.Header.Get("WARC-Refers-To-Target-URI") || b.dg != rec.Header.Get("WARC-Payload-Digest") {
			t.Errorf("%s: told %+v; the record is at offset %v", how, b, func() any {
				if rec == nil {
					return "(none)"
				}
				return strconv.FormatInt(rec.Offset, 10)
			}())
		}
	}
}

// TestRoundsRefuseRepeatedFacts: the facts of a file given twice to the
// rounds (a map task's output taken twice) are refused at the first round,
// instead of making each record a revisit of itself.
func TestRoundsRefuseRepeatedFacts(t *testing.T) {
	names, files, _ := brokenCase(t)
	var lines []Line
	fk := FileKey(time.Time{}, false, 0)
	m := New(DefaultOptions())
	if err := m.Map(bytes.NewReader(files[0]), names[0], func(f *Fact) error {
		return RoundFacts(RecordKey(fk, f.Offset), cloneFact(f), func(l Line) error { lines = append(lines, l, l); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	sortLines(lines)
	r, err := NewRound("exact", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	err = r.Groups(lines, func(Line) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("exact round over every line twice: %v, want a refusal", err)
	}
}

// TestBrokenRevisitsAcrossRuns: the captures a run replaced go into an
// index with its kept records (Kept), and a later run seeded from it finds
// the next crawl's revisits of them as one run over both crawls does.
// A kept record of the same URI and digest in a later run's segment drops
// the capture again.
func TestBrokenRevisitsAcrossRuns(t *testing.T) {
	names, files, want := brokenCase(t)
	opts := DefaultOptions()
	first := New(opts)
	if err := first.Run(bytes.NewReader(files[0]), names[0], io.Discard, true); err != nil {
		t.Fatal(err)
	}
	var seg []*index.Record
	if err := first.Kept(func(r *index.Record) error { seg = append(seg, r); return nil }); err != nil {
		t.Fatal(err)
	}
	first.Close()
	gone := 0
	for _, r := range seg {
		if r.Gone {
			gone++
		}
	}
	if gone != 2 {
		t.Errorf("%d replaced captures kept for the index, want 2 (the near re-capture, the mirror's copy)", gone)
	}
	second := func(extra ...*index.Record) []string {
		var got []string
		o := opts
		o.BrokenRevisit = func(file string, offset int64, id, uri, digest string) { got = append(got, id) }
		d := New(o)
		if err := d.SeedFrom(func(fn func(*index.Record) error) error {
			for _, r := range append(slices.Clone(seg), extra...) {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := d.Run(bytes.NewReader(files[1]), names[1], io.Discard, true); err != nil {
			t.Fatal(err)
		}
		// The revisits are told at Close, once every response is judged.
		if len(got) != 0 {
			t.Errorf("revisits told before Close: %q", got)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := second(); !slices.Equal(got, want) {
		t.Errorf("revisits told in the later run: %q, want %q", got, want)
	}
	// A later segment keeps a response of the mirror's URI and payload.
	mirror := &index.Record{ID: "<urn:uuid:p3>", URI: "http://mirror.example/report.pdf", Date: "2026-01-03T00:00:00Z",
		Digest: sha1Digest(strings.Repeat("%PDF-1.7 a report of the year, page after page\n", 20))}
	if got := second(mirror); slices.Contains(got, "<urn:uuid:v-mirror>") || len(got) != len(want)-3 {
		t.Errorf("with the mirror's capture kept later: told %q", got)
	}
}

// TestRevisitResolvedLater: a revisit whose original was replaced across
// URIs is not broken if a capture of its URI and payload is kept whole
// (captured earlier than the kept copy), whether that capture is read
// after the replacement (a later file) or before it: whether it is broken
// is told once every response is judged, the same in one run and in the
// partitioned rounds.
func TestRevisitResolvedLater(t *testing.T) {
	pdf := strings.Repeat("%PDF-1.7 a report of the year, page after page\n", 20)
	crawl := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:k>", uri: "http://cdn.example/r.pdf", date: "2026-01-02T00:00:00Z", body: pdf},
		capture{typ: "response", id: "<urn:uuid:r>", uri: "http://mirror.example/r.pdf", date: "2026-01-03T00:00:00Z", body: pdf},
		capture{typ: "revisit", id: "<urn:uuid:v>", uri: "http://mirror.example/r.pdf", date: "2026-01-04T00:00:00Z",
			digest: sha1Digest(pdf), refersTo: "http://mirror.example/r.pdf"},
	)
	// An older capture of the mirror's copy, in a file read later: kept,
	// as it was captured before the kept copy.
	older := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:r0>", uri: "http://mirror.example/r.pdf", date: "2026-01-01T00:00:00Z", body: pdf},
	)
	// The capture kept whole read before the one replaced: a file whose
	// first capture of the mirror's URI is older than the kept copy, and
	// its second, newer, a revisit of it across URIs.
	both := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:r0>", uri: "http://mirror.example/r.pdf", date: "2026-01-01T00:00:00Z", body: pdf},
		capture{typ: "response", id: "<urn:uuid:r>", uri: "http://mirror.example/r.pdf", date: "2026-01-03T00:00:00Z", body: pdf},
		capture{typ: "revisit", id: "<urn:uuid:v>", uri: "http://mirror.example/r.pdf", date: "2026-01-04T00:00:00Z",
			digest: sha1Digest(pdf), refersTo: "http://mirror.example/r.pdf"},
	)
	kept := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:k>", uri: "http://cdn.example/r.pdf", date: "2026-01-02T00:00:00Z", body: pdf},
	)
	for _, c := range []struct {
		files [][]byte
		want  int
	}{{[][]byte{crawl}, 1}, {[][]byte{crawl, older}, 0}, {[][]byte{kept, both}, 0}} {
		names := []string{"crawl.warc.gz", "older.warc.gz"}[:len(c.files)]
		var told []string
		opts := DefaultOptions()
		opts.BrokenRevisit = func(file string, offset int64, id, uri, digest string) { told = append(told, id) }
		d := New(opts)
		for i, in := range c.files {
			if err := d.Run(bytes.NewReader(in), names[i], io.Discard, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if len(told) != c.want || d.Stats.BrokenRevisits != c.want || d.Stats.Revisits != 1 {
			t.Errorf("one run over %d files: told %q (%d counted), %d exact revisits; want %d told, 1 revisit",
				len(c.files), told, d.Stats.BrokenRevisits, d.Stats.Revisits, c.want)
		}

		told = told[:0]
		roundsBroken(t, opts, names, c.files)
		if len(told) != c.want {
			t.Errorf("the rounds over %d files: told %q, want %d", len(c.files), told, c.want)
		}
	}
}

// TestWithdrawnRevisits: the revisits of a Run withdrawn (its output not
// kept) are not told at Close; a later Run's are.
func TestWithdrawnRevisits(t *testing.T) {
	names, files, want := brokenCase(t)
	var told []string
	opts := DefaultOptions()
	opts.BrokenRevisit = func(file string, offset int64, id, uri, digest string) { told = append(told, id) }
	d := New(opts)
	for i, in := range files {
		if err := d.Run(bytes.NewReader(in), names[i], io.Discard, true); err != nil {
			t.Fatal(err)
		}
	}
	d.Withdraw()
	// The revisits' file again, its output kept this time.
	if err := d.Run(bytes.NewReader(files[1]), "again.warc.gz", io.Discard, true); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(told, want) || d.Stats.BrokenRevisits != len(want) {
		t.Errorf("told %q (%d counted), want %q", told, d.Stats.BrokenRevisits, want)
	}
}

// TestStayedAcrossRuns: a capture kept whole beside its payload's kept
// record (captured before it) goes to the index, and resolves a later
// run's revisit of its URI and payload, though that run replaces another
// capture there across URIs.
func TestStayedAcrossRuns(t *testing.T) {
	pdf := strings.Repeat("%PDF-1.7 a report of the year, page after page\n", 20)
	first := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:k>", uri: "http://cdn.example/r.pdf", date: "2026-01-02T00:00:00Z", body: pdf},
		capture{typ: "response", id: "<urn:uuid:r0>", uri: "http://mirror.example/r.pdf", date: "2026-01-01T00:00:00Z", body: pdf},
	)
	second := capturesWARC(t,
		capture{typ: "response", id: "<urn:uuid:r>", uri: "http://mirror.example/r.pdf", date: "2026-01-03T00:00:00Z", body: pdf},
		capture{typ: "revisit", id: "<urn:uuid:v>", uri: "http://mirror.example/r.pdf", date: "2026-01-04T00:00:00Z",
			digest: sha1Digest(pdf), refersTo: "http://mirror.example/r.pdf"},
	)
	d := New(DefaultOptions())
	d.SetOutput("first.warc.gz")
	if err := d.Run(bytes.NewReader(first), "first.warc.gz", io.Discard, true); err != nil {
		t.Fatal(err)
	}
	var seg []*index.Record
	if err := d.Kept(func(r *index.Record) error { c := *r; seg = append(seg, &c); return nil }); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if len(seg) != 2 || seg[0].ID != "<urn:uuid:k>" || !seg[1].Stays || seg[1].ID != "<urn:uuid:r0>" || seg[1].File != "first.warc.gz" || seg[1].Offset <= 0 {
		t.Fatalf("the first run's records for the index: %+v", seg)
	}
	// Through the index's binary form, as a later run reads it.
	for i, r := range seg {
		b, err := index.AppendRecord(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if seg[i], err = index.DecodeRecord(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, bulk := range []bool{false, true} {
		var told []string
		opts := DefaultOptions()
		opts.BrokenRevisit = func(file string, offset int64, id, uri, digest string) { told = append(told, id) }
		d := New(opts)
		if bulk {
			if err := d.SeedFrom(func(fn func(*index.Record) error) error {
				for _, r := range seg {
					if err := fn(r); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, r := range seg {
				if err := d.Seed(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := d.Run(bytes.NewReader(second), "second.warc.gz", io.Discard, true); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if d.Stats.Revisits != 1 || len(told) != 0 {
			t.Errorf("seeded in bulk %v: %d exact revisits, told %q; want the mirror's new capture replaced and no revisit told", bulk, d.Stats.Revisits, told)
		}
	}
	// The first crawl again, against its own index: the capture kept whole
	// is not added to the index a second time.
	again := New(DefaultOptions())
	for _, r := range seg {
		if err := again.Seed(r); err != nil {
			t.Fatal(err)
		}
	}
	again.SetOutput("first.warc.gz")
	if err := again.Run(bytes.NewReader(first), "first.warc.gz", io.Discard, true); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := again.Kept(func(r *index.Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	again.Close()
	if n != 0 {
		t.Errorf("the same crawl again adds %d records to the index, want none", n)
	}
}
