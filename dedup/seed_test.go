package dedup

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/testshared"
)

// throughIndex runs the days one Deduper each, as runs a day apart would:
// each run is seeded from the index the runs before it added to. It returns
// each day's output and the last run's Stats.
func throughIndex(t *testing.T, opts Options, days ...[]byte) ([][]byte, Stats) {
	t.Helper()
	dir := t.TempDir()
	var outs [][]byte
	var st Stats
	for i, in := range days {
		ix, err := index.Open(dir, index.Analysis(opts.Config))
		if err != nil {
			t.Fatal(err)
		}
		d := New(opts)
		if err := d.SeedFrom(ix.Load); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		name := "day" + string(rune('1'+i))
		d.SetOutput(name + ".out")
		if err := d.Run(bytes.NewReader(in), name, &out, false); err != nil {
			t.Fatal(err)
		}
		w, err := ix.NewWriter([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Kept(w.Add); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		ix.Close()
		outs = append(outs, out.Bytes())
		st = d.Stats
	}
	return outs, st
}

// oneRun runs the days through one Deduper.
func oneRun(t *testing.T, opts Options, days ...[]byte) ([][]byte, Stats) {
	t.Helper()
	d := New(opts)
	var outs [][]byte
	for i, in := range days {
		var out bytes.Buffer
		if err := d.Run(bytes.NewReader(in), "day"+string(rune('1'+i)), &out, false); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out.Bytes())
	}
	return outs, d.Stats
}

// TestSeedEqualsOneRun: a day's crawl processed alone against the index of
// the days before gives the output one run over all of them gives, with
// either method: exact and near revisits of the earlier days' records.
func TestSeedEqualsOneRun(t *testing.T) {
	day1 := responsesWARC(t, false,
		response{id: "<urn:uuid:d1-a>", uri: "http://news.example/a", body: story(1, 40, 0)},
		response{id: "<urn:uuid:d1-b>", uri: "http://news.example/b", body: story(2, 40, 0)},
		response{id: "<urn:uuid:d1-logo>", uri: "http://news.example/logo", ctype: "image/png", body: strings.Repeat("png", 600)})
	day2 := bytes.ReplaceAll(responsesWARC(t, false,
		response{id: "<urn:uuid:d2-copy>", uri: "http://copy.example/a", body: story(1, 40, 1)},
		response{id: "<urn:uuid:d2-logo>", uri: "http://news.example/logo", ctype: "image/png", body: strings.Repeat("png", 600)},
		response{id: "<urn:uuid:d2-c>", uri: "http://news.example/c", body: story(3, 40, 0)}),
		[]byte("2026-01-01T"), []byte("2026-01-02T"))
	day3 := bytes.ReplaceAll(responsesWARC(t, false,
		response{id: "<urn:uuid:d3-c>", uri: "http://news.example/c", body: story(3, 40, 2)}),
		[]byte("2026-01-01T"), []byte("2026-01-03T"))
	for _, m := range []Method{MethodSpotSigs, MethodHenzinger} {
		opts := DefaultOptions()
		opts.Method = m
		want, wst := oneRun(t, opts, day1, day2, day3)
		got, gst := throughIndex(t, opts, day1, day2, day3)
		if wst.Revisits != 1 || wst.NearRevisits < 1 || m == MethodSpotSigs && wst.NearRevisits != 2 {
			t.Fatalf("method %d: one run: %d exact and %d near revisits, want 1 and 2 (1 for Henzinger's, which misses day 3's edit)", m, wst.Revisits, wst.NearRevisits)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("method %d: day %d through the index differs from one run", m, i+1)
			}
		}
		if gst.Seeded != 4 {
			t.Errorf("method %d: day 3 seeded with %d records, want the 4 kept before", m, gst.Seeded)
		}
	}
}

// TestNeverRevisitOfLater: a capture is kept whole when the only copy kept
// before it was captured later.
func TestNeverRevisitOfLater(t *testing.T) {
	later := bytes.ReplaceAll(responsesWARC(t, false,
		response{id: "<urn:uuid:late>", uri: "http://news.example/a", body: story(1, 40, 0)},
		response{id: "<urn:uuid:late-logo>", uri: "http://news.example/logo", ctype: "image/png", body: strings.Repeat("png", 600)}),
		[]byte("2026-01-01T"), []byte("2026-02-01T"))
	earlier := responsesWARC(t, false,
		response{id: "<urn:uuid:early>", uri: "http://news.example/a", body: story(1, 40, 1)},
		response{id: "<urn:uuid:early-logo>", uri: "http://news.example/logo", ctype: "image/png", body: strings.Repeat("png", 600)})
	outs, st := oneRun(t, DefaultOptions(), later, earlier)
	if st.Revisits != 0 || st.NearRevisits != 0 || st.LaterKept != 2 || !bytes.Equal(outs[1], earlier) {
		t.Errorf("%+v: the earlier captures must be kept whole", st)
	}
}

// TestRecrawlThroughIndex: the ukwa re-crawl pair processed one file a day,
// the second against the first's index, gives the revisits one run over
// both files gives.
func TestRecrawlThroughIndex(t *testing.T) {
	dir := testshared.Path(t, ukwaRecrawl)
	var days [][]byte
	for _, f := range ukwaFiles {
		in, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		days = append(days, in)
	}
	opts := DefaultOptions()
	want, wst := oneRun(t, opts, days...)
	got, gst := throughIndex(t, opts, days...)
	if wst.NearRevisits == 0 || gst.NearRevisits != wst.NearRevisits || gst.Revisits != wst.Revisits {
		t.Errorf("through the index: %d exact and %d near revisits; one run: %d and %d", gst.Revisits, gst.NearRevisits, wst.Revisits, wst.NearRevisits)
	}
	if !bytes.Equal(got[1], want[1]) {
		t.Error("the second day's output differs from one run's")
	}
}

// TestSameFileAgainstItsIndex: a file processed again against the index its
// first run added to keeps every record whole: a record is never a revisit
// of itself (which would point at a record no longer there once the first
// output is overwritten).
func TestSameFileAgainstItsIndex(t *testing.T) {
	day := responsesWARC(t, false,
		response{id: "<urn:uuid:a>", uri: "http://news.example/a", body: story(1, 40, 0)},
		response{id: "<urn:uuid:logo>", uri: "http://news.example/logo", ctype: "image/png", body: strings.Repeat("png", 600)})
	outs, st := throughIndex(t, DefaultOptions(), day, day)
	if !bytes.Equal(outs[1], day) || st.Revisits != 0 || st.NearRevisits != 0 || st.AlreadyKept != 2 {
		t.Errorf("%+v: the second run over the same file must keep it whole", st)
	}
}
