package dedup

import (
	"bytes"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// TestDuplicateRecordIDs: records that repeat an earlier record's
// WARC-Record-ID, in one file or across files, are counted and told to the
// DuplicateID callback; when such records become revisits or get an
// annotation, the IDs derived for them differ, so that no two output records
// share one, and the first occurrence keeps the ID it always had.
func TestDuplicateRecordIDs(t *testing.T) {
	page := story(1, 100, 0)
	x := response{id: "<urn:uuid:x>", uri: "http://a.example/x", body: page}
	dup := func(uri, body string) response { return response{id: "<urn:uuid:same>", uri: uri, body: body} }
	type file struct {
		name string
		in   []byte
	}
	for _, tc := range []struct {
		name    string
		near    NearMode
		files   []file
		repeats int // records whose ID repeats an earlier one
		derived int // records made by the pipeline (revisits, annotations)
	}{
		{"exact, one file", NearRevisit, []file{{"f1", responsesWARC(t, false, x,
			dup("http://b.example/1", page), dup("http://c.example/2", page))}}, 1, 2},
		{"exact, two files", NearRevisit, []file{
			{"f1", responsesWARC(t, false, x, dup("http://b.example/1", page))},
			{"f2", responsesWARC(t, true, dup("http://c.example/2", page))}}, 1, 2},
		{"near revisits", NearRevisit, []file{{"f1", responsesWARC(t, false, x,
			dup("http://b.example/1", story(1, 100, 1)), dup("http://c.example/2", story(1, 100, 2)))}}, 1, 2},
		{"annotations", NearAnnotate, []file{{"f1", responsesWARC(t, false, x,
			dup("http://b.example/1", story(1, 100, 1)), dup("http://c.example/2", story(1, 100, 2)))}}, 1, 2},
		// One file given three times under one name: its offsets repeat too,
		// and the number of the repeat tells the copies apart.
		{"one file thrice", NearRevisit, []file{
			{"f", responsesWARC(t, false, x, dup("http://b.example/1", page))},
			{"f", responsesWARC(t, false, x, dup("http://b.example/1", page))},
			{"f", responsesWARC(t, false, x, dup("http://b.example/1", page))}}, 4, 5},
	} {
		opts := DefaultOptions()
		opts.Near = tc.near
		var told []string
		opts.DuplicateID = func(file string, rec *warcio.Record) { told = append(told, file+" "+rec.ID()) }
		d := New(opts)
		var recs []*warcio.Record
		for _, f := range tc.files {
			var out bytes.Buffer
			if err := d.Run(bytes.NewReader(f.in), f.name, &out, false); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, readBack(t, out.Bytes())...)
		}
		if d.Stats.DuplicateIDs != tc.repeats || len(told) != tc.repeats {
			t.Errorf("%s: %d repeats counted, told %v; want %d", tc.name, d.Stats.DuplicateIDs, told, tc.repeats)
		}
		ids := map[string]int{}
		derived := 0
		firstRevisit := ""
		for _, r := range recs {
			ids[r.ID()]++
			if r.Type() == "revisit" || r.Type() == "metadata" {
				derived++
				if firstRevisit == "" {
					firstRevisit = r.ID()
				}
			}
		}
		if derived != tc.derived {
			t.Fatalf("%s: %d revisits and annotations, want %d: the test's pages are not what it needs", tc.name, derived, tc.derived)
		}
		for _, r := range recs {
			// Kept records are copied byte for byte, with the input's IDs;
			// the ones the pipeline makes must be unique.
			if (r.Type() == "revisit" || r.Type() == "metadata") && ids[r.ID()] != 1 {
				t.Errorf("%s: %d output records have the ID %s", tc.name, ids[r.ID()], r.ID())
			}
		}
		what := "revisit"
		if tc.near == NearAnnotate {
			what = "near-duplicate-annotation"
		}
		if want := NewID("<urn:uuid:same>", what); firstRevisit != want {
			t.Errorf("%s: the first occurrence's %s has the ID %s, want %s as before", tc.name, what, firstRevisit, want)
		}
	}
}

// TestSameOutputAnyWorkers: the output, derived IDs included, is the same
// bytes for any number of workers.
func TestSameOutputAnyWorkers(t *testing.T) {
	in := responsesWARC(t, true,
		response{id: "<urn:uuid:x>", uri: "http://a.example/x", body: story(1, 100, 0)},
		response{id: "<urn:uuid:same>", uri: "http://b.example/1", body: story(1, 100, 1)},
		response{id: "<urn:uuid:same>", uri: "http://b.example/2", body: story(1, 100, 0)},
		response{id: "<urn:uuid:y>", uri: "http://a.example/y", body: story(2, 100, 0)},
		response{id: "<urn:uuid:same>", uri: "http://b.example/3", body: story(2, 100, 2)})
	var first []byte
	for _, workers := range []int{1, 2, 5} {
		opts := DefaultOptions()
		opts.Workers = workers
		d := New(opts)
		var out bytes.Buffer
		for _, name := range []string{"f1", "f2"} {
			if err := d.Run(bytes.NewReader(in), name, &out, true); err != nil {
				t.Fatal(err)
			}
		}
		if d.Stats.NearRevisits == 0 || d.Stats.DuplicateIDs == 0 {
			t.Fatalf("no near revisit or repeated ID: %+v", d.Stats)
		}
		if first == nil {
			first = out.Bytes()
		} else if !bytes.Equal(out.Bytes(), first) {
			t.Errorf("workers %d: output differs from workers 1", workers)
		}
	}
}
