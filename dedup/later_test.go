package dedup

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
)

// recrawl returns two crawls of n story pages as WARC files: the second
// holds the first's payloads again at the same URLs, and one
// page whose story changed in two sentences (a near duplicate).
func recrawl(t *testing.T, n int) (first, second []byte) {
	t.Helper()
	var a, b []response
	for i := range n {
		u := fmt.Sprintf("http://news.example/story/%d", i)
		body := story(uint64(100+i), 40, 0)
		a = append(a, response{id: fmt.Sprintf("<urn:uuid:a-%d>", i), uri: u, ctype: "text/html", body: body})
		if i == n-1 {
			body = story(uint64(100+i), 40, 2)
		}
		b = append(b, response{id: fmt.Sprintf("<urn:uuid:b-%d>", i), uri: u, ctype: "text/html", body: body})
	}
	return responsesWARC(t, false, a...), responsesWARC(t, false, b...)
}

// TestExactCopyNotAnalysed: in a run over two crawls, the pages of the second
// whose payload was kept from the first are not analysed (their analysis is
// most of a page's cost, and an exact duplicate's page is never compared),
// and the run writes what it writes when every page is analysed.
func TestExactCopyNotAnalysed(t *testing.T) {
	const n = 8
	first, second := recrawl(t, n)
	run := func() (outs [2][]byte, analysed int64, st Stats) {
		var count atomic.Int64
		testAnalyzeHook = func(*item) { count.Add(1) }
		defer func() { testAnalyzeHook = nil }()
		d := New(DefaultOptions())
		for i, in := range [][]byte{first, second} {
			var out bytes.Buffer
			if err := d.Run(bytes.NewReader(in), fmt.Sprintf("crawl-%d.warc", i), &out, false); err != nil {
				t.Fatal(err)
			}
			outs[i] = out.Bytes()
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return outs, count.Load(), d.Stats
	}
	outs, analysed, st := run()
	if st.Revisits != n-1 || st.NearRevisits != 1 {
		t.Fatalf("%d exact and %d near revisits, want %d and 1", st.Revisits, st.NearRevisits, n-1)
	}
	// The first crawl's pages and the changed page: n+1 analyses.
	if analysed != n+1 {
		t.Errorf("%d pages analysed, want %d: the second crawl's exact copies were analysed", analysed, n+1)
	}
	// Every page analysed: the same output.
	testExactCopy = func(*item) bool { return false }
	all, analysedAll, _ := run()
	testExactCopy = nil
	if analysedAll != 2*n {
		t.Errorf("with the hint off, %d pages analysed, want %d", analysedAll, 2*n)
	}
	for i := range outs {
		if !bytes.Equal(outs[i], all[i]) {
			t.Errorf("crawl %d: the output differs from the run that analysed every page", i)
		}
	}
}

// TestExactCopyWrongHint: a page whose analysis was left to the decision
// loop on a wrong hint (no capture with its digest was kept) is analysed
// there, and the run writes what it writes otherwise.
func TestExactCopyWrongHint(t *testing.T) {
	first, second := recrawl(t, 6)
	in := append(append([]byte(nil), first...), second...)
	run := func(hint func(*item) bool) ([]byte, Stats) {
		testExactCopy = hint
		defer func() { testExactCopy = nil }()
		d := New(DefaultOptions())
		var out bytes.Buffer
		if err := d.Run(bytes.NewReader(in), "crawls.warc", &out, false); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes(), d.Stats
	}
	want, wst := run(func(*item) bool { return false })
	got, gst := run(func(*item) bool { return true })
	if !bytes.Equal(got, want) {
		t.Error("every page left to the decision loop: the output differs")
	}
	if gst.NearRevisits != 1 || gst.NearRevisits != wst.NearRevisits || gst.Revisits != wst.Revisits {
		t.Errorf("stats %+v, want those of the run that analysed in workers: %+v", gst, wst)
	}
}
