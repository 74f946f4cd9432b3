package index_test

import (
	"testing"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/synth"
)

// BenchmarkLoad reads a 100,000-record segment (internal/synth) back, without
// building a run's indexes from it: the store's own share of loading.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	an := index.Analysis(dedup.DefaultOptions().Config)
	ix, err := index.Open(dir, an)
	if err != nil {
		b.Fatal(err)
	}
	w, _ := ix.NewWriter(nil)
	n := 100000
	for rec := range synth.Records(n, 1) {
		w.Add(rec)
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(ix.Stats().Bytes)
	ix.Close()
	b.ResetTimer()
	for b.Loop() {
		ix, err := index.Open(dir, an)
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		if err := ix.Load(func(*index.Record) error { got++; return nil }); err != nil || got != n {
			b.Fatal(err, got)
		}
		ix.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
