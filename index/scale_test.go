package index_test

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/synth"
)

// TestIndexScale measures an index of WARCDEDUP_SCALE_PAGES pages (it
// skips without it): bytes on disk a page, the time to load it into a
// Deduper, and the heap a page takes there; with WARCDEDUP_SCALE_DIR the
// index is written there and kept. For example:
//
//	WARCDEDUP_SCALE_PAGES=1000000 go test ./index -run IndexScale -v -timeout 1h
func TestIndexScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WARCDEDUP_SCALE_PAGES"))
	if n <= 0 {
		t.Skip("set WARCDEDUP_SCALE_PAGES to measure an index of that many pages")
	}
	dir := t.TempDir()
	if keep := os.Getenv("WARCDEDUP_SCALE_DIR"); keep != "" {
		dir = keep // kept, for a run of warcdedup --index against it
	}
	opts := dedup.DefaultOptions()
	ix, err := index.Open(dir, index.Analysis(opts.Config))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	w, err := ix.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for rec := range synth.Records(n, 1) {
		if err := w.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	write := time.Since(start)
	ix.Close()
	st := ix.Stats()

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start = time.Now()
	ix, err = index.Open(dir, index.Analysis(opts.Config))
	if err != nil {
		t.Fatal(err)
	}
	d := dedup.New(opts)
	if err := d.SeedFrom(ix.Load); err != nil {
		t.Fatal(err)
	}
	load := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	ix.Close()
	t.Logf("%d pages: %.0f bytes a page on disk; written in %.1f s; loaded and indexed in %.1f s (%.0f pages/s); heap %.0f bytes a page",
		n, float64(st.Bytes)/float64(n), write.Seconds(), load.Seconds(), float64(n)/load.Seconds(),
		float64(after.HeapAlloc-before.HeapAlloc)/float64(n))
	runtime.KeepAlive(d)
	d.Close()
}
