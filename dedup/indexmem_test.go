package dedup

import (
	"bytes"
	"io"
	"runtime"
	"testing"
)

// BenchmarkIndexMemory measures what the Deduper keeps per indexed page, on
// 1,500 real pages: the live heap after a run, less the heap before, over the
// pages indexed for near duplicates (reported as heap-B/page).
func BenchmarkIndexMemory(b *testing.B) {
	ps := corpusPages(b, 1500)
	in := pagesWARCb(b, ps)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d := New(DefaultOptions())
		if err := d.Run(bytes.NewReader(in), "pages", io.Discard, false); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.GC() // twice: buffers parked in sync.Pools are dropped on the second
		runtime.ReadMemStats(&after)
		kept := len(d.near.docs)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(kept), "heap-B/page")
		b.ReportMetric(float64(kept), "pages-indexed")
		runtime.KeepAlive(d)
	}
	runtime.KeepAlive(in)
}
