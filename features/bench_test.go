package features

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. The benchmark machine is shared,
// so wall-clock MB/s varies with other load; MB per CPU-second ("cpu-MB/s") is the
// per-core figure, GC work on other threads included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchPages is a fixed sample of 200 corpus pages: every k-th page over all
// datasets, so that charsets, sizes and languages are mixed as in the corpus.
func benchPages(b *testing.B) ([]*corpusPage, int64) {
	pages := loadCorpus(b)
	step := max(1, len(pages)/200)
	var out []*corpusPage
	var n int64
	for i := 0; i < len(pages) && len(out) < 200; i += step {
		out = append(out, pages[i])
		n += int64(len(pages[i].body))
	}
	return out, n
}

func benchFamilies(b *testing.B, f Family) {
	cfg := DefaultConfig()
	cfg.Families = f
	benchConfig(b, cfg)
}

// BenchmarkMainText: spot signatures of the main text and bigrams of pages
// with few of them, as package dedup extracts them for every page.
func BenchmarkMainText(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Families = FamSpotSigs
	cfg.MainText = true
	cfg.MinSpots = 3
	cfg.BigramsBelow = 6
	benchConfig(b, cfg)
}

func benchConfig(b *testing.B, cfg Config) {
	pages, total := benchPages(b)
	e, err := NewExtractor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	c0, n := cpuTime(), 0
	for b.Loop() {
		for _, p := range pages {
			e.Extract(p.body, "", p.URL)
		}
		n++
	}
	if cpu := cpuTime() - c0; cpu > 0 {
		b.ReportMetric(float64(total)*float64(n)/1e6/cpu.Seconds(), "cpu-MB/s")
	}
}

// BenchmarkDecodeTokenize: charset, tokenizer, normalization and the term/word
// scan, no feature family. The other benchmarks include this work.
func BenchmarkDecodeTokenize(b *testing.B) { benchFamilies(b, 0) }
func BenchmarkSpotSigs(b *testing.B)       { benchFamilies(b, FamSpotSigs) }
func BenchmarkSimhash(b *testing.B)        { benchFamilies(b, FamSimhash) }
func BenchmarkSpotSimhash(b *testing.B)    { benchFamilies(b, FamSpotSimhash) }
func BenchmarkTextSimhash(b *testing.B)    { benchFamilies(b, FamTextSimhash) }
func BenchmarkAF(b *testing.B)             { benchFamilies(b, FamAF) }
func BenchmarkShingles(b *testing.B)       { benchFamilies(b, FamShingles) }
func BenchmarkQGrams(b *testing.B)         { benchFamilies(b, FamQGrams) }

// BenchmarkDefault is DefaultConfig: SpotSigs + simhash + spot simhash.
func BenchmarkDefault(b *testing.B) { benchFamilies(b, DefaultConfig().Families) }

// BenchmarkAll computes every family in one pass.
func BenchmarkAll(b *testing.B) { benchFamilies(b, allFamilies().Families|FamTextSimhash) }
