package index_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
)

// synthPages makes n kept records with near-duplicate pages shaped as real
// ones: 40 to 160 spot signatures (median near the 78 measured on 1,439
// real pages, matcher's package doc) drawn from a Zipf vocabulary of 2^24
// folded signatures, over 10,000 sites.
func synthPages(n int, seed uint64) func(yield func(*index.Record) bool) {
	return func(yield func(*index.Record) bool) {
		r := rand.New(rand.NewPCG(seed, 1))
		z := rand.NewZipf(r, 1.1, 4, 1<<24-1)
		keys := make([]uint64, 0, 200)
		for i := range n {
			keys = keys[:0]
			for range 40 + r.IntN(121) {
				keys = append(keys, z.Uint64()*2654435761%(1<<32))
			}
			site := fmt.Sprintf("site%05d.example", r.IntN(10000))
			uri := fmt.Sprintf("http://%s/story/%d", site, i)
			rec := &index.Record{ID: fmt.Sprintf("<urn:uuid:%08x-0000-5000-8000-%012x>", i, i), URI: uri,
				Date: "2025-06-01T12:00:00Z", Digest: fmt.Sprintf("sha1:%032X", i), File: "crawl-00001.warc.gz", Offset: int64(i) * 20000,
				Page: &near.Page{Site: site, URL: near.URLKey(uri), Spots: features.BagOf(keys)}}
			rec.Computed = rec.Digest
			if !yield(rec) {
				return
			}
		}
	}
}

// TestIndexScale measures an index of WARCDEDUP_SCALE_PAGES pages (it
// skips without it): bytes on disk a page, the time to load it into a
// Deduper, and the heap a page takes there. For example:
//
//	WARCDEDUP_SCALE_PAGES=1000000 go test ./index -run IndexScale -v -timeout 1h
func TestIndexScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WARCDEDUP_SCALE_PAGES"))
	if n <= 0 {
		t.Skip("set WARCDEDUP_SCALE_PAGES to measure an index of that many pages")
	}
	dir := t.TempDir()
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
	for rec := range synthPages(n, 1) {
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
	if err := ix.Load(d.Seed); err != nil {
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
