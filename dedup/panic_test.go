package dedup

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/warcio"
)

// panickingReader returns the first n bytes of b, then panics.
type panickingReader struct {
	b []byte
	n int
}

func (r *panickingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		panic("the input device exploded")
	}
	k := copy(p, r.b[:min(r.n, len(r.b))])
	r.b, r.n = r.b[k:], r.n-k
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// runWithin runs f and fails the test if it does not return in time: a
// pipeline that deadlocks after a panic would hang the test run instead.
func runWithin(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after a panic: deadlock")
		return nil
	}
}

// settledGoroutines waits for the goroutines of a finished Run to exit and
// returns how many are left.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 200 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// TestPanic: a panic in an analysis worker, in the decision loop or in the
// reading goroutine fails the Run with a *PanicError naming the file, the
// record's offset and ID and the panic's value, after the pipeline has shut
// down: Run returns, with any number of workers, and leaves no goroutine
// behind. After a worker's or the reader's panic, which touch no shared
// state, the Deduper goes on with the next file as if the failed one had not
// been given; after a panic in the decision loop, which may have left the
// indexes half updated, every later Run fails.
func TestPanic(t *testing.T) {
	var pages []response
	for i := range 60 {
		pages = append(pages, response{id: fmt.Sprintf("<urn:uuid:p%d>", i), uri: fmt.Sprintf("http://a.example/%d", i), body: story(uint64(i), 30, 0)})
	}
	const boomAt = 37
	boomURI := pages[boomAt].uri
	in := responsesWARC(t, false, pages...)
	// The boom record's offset, as an independent reader sees it.
	var boomOffset int64 = -1
	r := warcio.NewReader(bytes.NewReader(in), "in")
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.Header.Get("WARC-Target-URI") == boomURI {
			boomOffset = rec.Offset
		}
	}
	next := responsesWARC(t, false, response{id: "<urn:uuid:n>", uri: "http://n.example/", body: story(99, 30, 0)},
		response{id: "<urn:uuid:n2>", uri: "http://n.example/copy", body: story(99, 30, 0)})
	boom := func(it *item) {
		if it.rec.Header.Get("WARC-Target-URI") == boomURI {
			panic(errors.New("boom"))
		}
	}
	for _, tc := range []struct {
		name     string
		analyze  bool // the hook is in the analysis, else in the decision loop
		reader   bool // the input's Read panics
		broken   bool // later Runs fail
		offset   int64
		recordID string
		value    string
	}{
		{name: "analysis", analyze: true, offset: boomOffset, recordID: pages[boomAt].id, value: "boom"},
		{name: "decision", broken: true, offset: boomOffset, recordID: pages[boomAt].id, value: "boom"},
		{name: "reader", reader: true, offset: boomOffset, recordID: pages[boomAt].id, value: "the input device exploded"},
	} {
		for _, workers := range []int{1, 4} {
			name := fmt.Sprintf("%s, %d workers", tc.name, workers)
			opts := DefaultOptions()
			opts.Workers = workers
			d := New(opts)
			before := runtime.NumGoroutine()
			var src io.Reader = bytes.NewReader(in)
			switch {
			case tc.reader:
				// Read panics inside the boom record's block.
				src = &panickingReader{b: in, n: int(boomOffset) + 300}
			case tc.analyze:
				testAnalyzeHook = boom
			default:
				testDecideHook = boom
			}
			err := runWithin(t, func() error { return d.Run(src, "in.warc", io.Discard, false) })
			testAnalyzeHook, testDecideHook = nil, nil
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: Run returned %v, want a *PanicError", name, err)
			}
			if pe.File != "in.warc" || pe.Offset != tc.offset || pe.RecordID != tc.recordID || fmt.Sprint(pe.Value) != tc.value || len(pe.Stack) == 0 {
				t.Errorf("%s: %+v", name, pe)
			}
			for _, s := range []string{"in.warc", fmt.Sprint(tc.offset), tc.recordID, tc.value} {
				if !strings.Contains(pe.Error(), s) {
					t.Errorf("%s: the message %q does not name %s", name, pe.Error(), s)
				}
			}
			if n := settledGoroutines(before); n > before {
				t.Errorf("%s: %d goroutines after Run, %d before", name, n, before)
			}
			if d.Stats.In != nil || d.Stats.BytesIn != 0 {
				t.Errorf("%s: the failed file's Stats were not withdrawn: %+v", name, d.Stats)
			}
			err = runWithin(t, func() error { return d.Run(bytes.NewReader(next), "next.warc", io.Discard, false) })
			switch {
			case tc.broken && !errors.As(err, &pe):
				t.Errorf("%s: the next Run returned %v, want the panic's error", name, err)
			case !tc.broken && (err != nil || d.Stats.Revisits != 1 || d.Stats.In["response"] != 2):
				t.Errorf("%s: the next Run: %v, %+v", name, err, d.Stats)
			}
		}
	}
}
