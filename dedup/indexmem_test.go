package dedup

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkIndexMemory measures what the Deduper keeps per indexed page: the
// live heap after a run, less the heap before, over the pages indexed for
// near duplicates (reported as heap-B/page, with the mean number of distinct
// spot signatures of an indexed page). It runs on 1,500 real corpus pages,
// or, with WARCDEDUP_INDEXMEM_DIR set, on every *.warc.gz in that directory
// (for example the 1 GB set of `dedupbench gen -scale 17`).
func BenchmarkIndexMemory(b *testing.B) {
	var run func(d *Deduper) error
	if dir := os.Getenv("WARCDEDUP_INDEXMEM_DIR"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
		if len(files) == 0 {
			b.Fatalf("no *.warc.gz in %s", dir)
		}
		run = func(d *Deduper) error {
			for _, fn := range files {
				f, err := os.Open(fn)
				if err != nil {
					return err
				}
				err = d.Run(bufio.NewReader(f), fn, io.Discard, false)
				f.Close()
				if err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		in := pagesWARCb(b, corpusPages(b, 1500))
		run = func(d *Deduper) error { return d.Run(bytes.NewReader(in), "pages", io.Discard, false) }
	}
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d := New(DefaultOptions())
		if err := run(d); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.GC() // twice: buffers parked in sync.Pools are dropped on the second
		runtime.ReadMemStats(&after)
		kept := d.near.Len()
		spotPages, sigs := d.near.SpotSignatures()
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(kept), "heap-B/page")
		b.ReportMetric(float64(kept), "pages-indexed")
		b.ReportMetric(float64(sigs)/float64(max(spotPages, 1)), "sigs/page")
		runtime.KeepAlive(d)
	}
}
