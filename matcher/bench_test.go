package matcher

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/features"
)

// synth generates synthetic SpotSigs bags: 50-300 signature occurrences a
// page drawn from a Zipf-like vocabulary (rank r has probability ~ r^-s), plus
// a share of page-specific signatures that no other page has. Real spot
// signatures are chains of content words (the:south:carolina), most of which
// occur on one page or on its near duplicates only; the vocabulary grows with
// the collection. A fixed 1M-key vocabulary with no unique share is the worst
// case for an inverted index: every key's list grows linearly with the index.
// One page in ten is a near duplicate of an earlier page (5% of its
// signature occurrences replaced). With fold, next returns its bags folded
// to 32-bit keys by Fold32, as dedup indexes them.
type synth struct {
	r      *rand.Rand
	zipf   *rand.Zipf
	unique float64 // share of page-specific signature occurrences
	recent []features.Bag
	n      int
	keys   []uint64
	fold   bool
}

func newSynth(seed uint64, unique float64) *synth {
	r := rand.New(rand.NewPCG(seed, seed))
	return &synth{r: r, zipf: rand.NewZipf(r, 1.1, 1, 1<<20-1), unique: unique}
}

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

func (g *synth) next() features.Bag {
	g.n++
	keys := g.keys[:0]
	if len(g.recent) > 0 && g.r.IntN(10) == 0 {
		src := g.recent[g.r.IntN(len(g.recent))]
		for _, e := range src {
			for range e.N {
				keys = append(keys, e.Key)
			}
		}
		for range len(keys) / 20 {
			keys[g.r.IntN(len(keys))] = g.draw()
		}
	} else {
		for range 50 + g.r.IntN(251) {
			keys = append(keys, g.draw())
		}
	}
	g.keys = keys
	b := features.BagOf(keys)
	// Near duplicates are planted against a window of recent pages.
	if len(g.recent) < 5000 {
		g.recent = append(g.recent, b)
	} else {
		g.recent[g.r.IntN(len(g.recent))] = b
	}
	if g.fold {
		return Fold32(nil, b)
	}
	return b
}

func (g *synth) draw() uint64 {
	if g.r.Float64() < g.unique {
		return g.r.Uint64() | 1<<63 // page-specific
	}
	return mix(g.zipf.Uint64()) &^ (1 << 63)
}

// spotBench is an index grown across sub-benchmarks (10k, then 100k, then 1M)
// so that each size is built once.
type spotBench struct {
	s        *SpotSigs
	g        *synth
	heap0    uint64
	buildDur time.Duration
}

var spotBenches = map[string]*spotBench{}

func (sb *spotBench) grow(n int) {
	t0 := time.Now()
	for sb.s.Len() < n {
		// Incremental matching: only unique pages are indexed.
		sb.s.Observe(uint32(sb.g.n), sb.g.next(), BestGuess)
	}
	sb.buildDur += time.Since(t0)
}

// BenchmarkSpotSigsIncremental measures Observe (match, then index if unique)
// on an index of 10k, 100k and 1M synthetic pages at tau = 0.8, for a
// realistic vocabulary (half the occurrences page-specific) and for the pure
// fixed Zipf vocabulary. The realistic pages are folded to 32-bit keys
// (Fold32), as dedup indexes them; the Zipf ones keep 64-bit keys, so both
// arena widths are measured. Reported: docs/s, Jaccard computations a page,
// heap bytes per indexed page (heapB: the live heap the index adds, over its
// pages), the index's parts from slice capacities (arenaB: keys and counts
// other than 1; slotB, listB, docB), and idxB = heapB - arenaB, the heap beyond
// the signatures themselves, slack included.
//
//	go test -run X -bench SpotSigsIncremental -benchtime 20000x ./matcher/
func BenchmarkSpotSigsIncremental(b *testing.B) {
	for _, voc := range []struct {
		name   string
		unique float64
		fold   bool
	}{{"realistic", 0.5, true}, {"zipf1M", 0, false}} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/N=%d", voc.name, n), func(b *testing.B) {
				sb := spotBenches[voc.name]
				if sb == nil {
					// Free the other vocabulary's index first.
					clear(spotBenches)
					h := heapBytes()
					s, _ := NewSpotSigs(0.8)
					sb = &spotBench{s: s, g: newSynth(1, voc.unique), heap0: h}
					sb.g.fold = voc.fold
					spotBenches[voc.name] = sb
				}
				sb.grow(n)
				// The generator's window of recent pages is on the heap too.
				gen := 8 * cap(sb.g.keys)
				for _, r := range sb.g.recent {
					gen += 16 * cap(r)
				}
				heap := heapBytes() - sb.heap0 - uint64(gen)
				perPage := float64(heap) / float64(sb.s.Len())
				ar, sl, li, dc := sb.s.footprint()
				n := float64(sb.s.Len())
				sigs := float64(sb.s.arenaLen()) / n
				queries := make([]features.Bag, b.N)
				for i := range queries {
					queries[i] = sb.g.next()
				}
				c0 := sb.s.Comparisons()
				b.ResetTimer()
				t0 := time.Now()
				for i, q := range queries {
					sb.s.Observe(uint32(sb.g.n+i), q, BestGuess)
				}
				el := time.Since(t0)
				b.StopTimer()
				b.ReportMetric(float64(b.N)/el.Seconds(), "docs/s")
				b.ReportMetric(float64(sb.s.Comparisons()-c0)/float64(b.N), "jaccards/doc")
				b.ReportMetric(perPage, "heapB/page")
				b.ReportMetric(perPage-float64(ar)/n, "idxB/page")
				b.ReportMetric(float64(ar)/n, "arenaB/page")
				b.ReportMetric(float64(sb.s.Len())/sb.buildDur.Seconds(), "build-docs/s")
				b.ReportMetric(float64(sl)/n, "slotB/page")
				b.ReportMetric(float64(li)/n, "listB/page")
				b.ReportMetric(float64(dc)/n, "docB/page")
				b.ReportMetric(sigs, "sigs/page")
			})
		}
	}
}

// BenchmarkAllPairs is full matching over 20k synthetic pages.
func BenchmarkAllPairs(b *testing.B) {
	g := newSynth(2, 0.5)
	bags := make([]features.Bag, 20_000)
	for i := range bags {
		bags[i] = g.next()
	}
	b.ResetTimer()
	for range b.N {
		pairs, cmp, err := AllPairs(0.8, bags)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(pairs)), "pairs")
		b.ReportMetric(float64(cmp)/float64(len(bags)), "jaccards/doc")
	}
	b.ReportMetric(float64(len(bags))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

var simBenches = map[string]*Simhash384{}

// BenchmarkSimhash384 measures queries on an index of 10k, 100k and 1M
// random 384-bit fingerprints (k = 12), one query in ten having a planted
// neighbour at distance 0-12. Adds are timed separately (build-docs/s,
// amortised over the whole build: a timed window of adds would mostly measure
// whichever table doubling falls into it).
//
//	go test -run X -bench Simhash -benchtime 100000x ./matcher/
func BenchmarkSimhash384(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 4))
	rnd := func() [6]uint64 {
		return [6]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	}
	var build time.Duration
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s := simBenches["s"]
			if s == nil {
				s, _ = NewSimhash384(DefaultK384)
				simBenches["s"] = s
			}
			t0 := time.Now()
			for s.Len() < n {
				s.Add(uint32(s.Len()), rnd())
			}
			build += time.Since(t0)
			qs := make([][6]uint64, b.N)
			for i := range qs {
				qs[i] = rnd()
				if i%10 == 0 {
					j := r.IntN(s.Len())
					qs[i] = [6]uint64(s.h.fps[j*6 : j*6+6])
					for range r.IntN(13) {
						bit := r.IntN(384)
						qs[i][bit/64] ^= 1 << (bit % 64)
					}
				}
			}
			var hits []Hit
			found := 0
			b.ResetTimer()
			t0 = time.Now()
			for _, q := range qs {
				hits = s.Query(q, hits[:0])
				found += len(hits)
			}
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "queries/s")
			b.ReportMetric(float64(s.Len())/build.Seconds(), "build-docs/s")
			if found < b.N/10 {
				b.Fatalf("%d hits for %d queries", found, b.N)
			}
		})
	}
}

// BenchmarkSimhash64 is BenchmarkSimhash384 for 64-bit fingerprints, k = 3.
// With k+1 = 4 pieces of 16 bits, a query meets about 4*N/65536 random
// fingerprints besides its true neighbours: 61 at N = 1M.
func BenchmarkSimhash64(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	s, _ := NewSimhash64(DefaultK64)
	var build time.Duration
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			t0 := time.Now()
			for s.Len() < n {
				s.Add(uint32(s.Len()), r.Uint64())
			}
			build += time.Since(t0)
			qs := make([]uint64, b.N)
			for i := range qs {
				qs[i] = r.Uint64()
				if i%10 == 0 {
					qs[i] = s.h.fps[r.IntN(s.Len())] ^ 1<<r.IntN(64)
				}
			}
			var hits []Hit
			found := 0
			b.ResetTimer()
			t0 = time.Now()
			for _, q := range qs {
				hits = s.Query(q, hits[:0])
				found += len(hits)
			}
			b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "queries/s")
			b.ReportMetric(float64(s.Len())/build.Seconds(), "build-docs/s")
			if found < b.N/10 {
				b.Fatalf("%d hits for %d queries", found, b.N)
			}
		})
	}
}

// BenchmarkSimhash384Wide is a 384-bit index with a radius too wide for
// pieces (k = 113, the median distance features measured between cross-site
// copies of one story under the spot-signature simhash): a scan of all
// fingerprints.
func BenchmarkSimhash384Wide(b *testing.B) {
	r := rand.New(rand.NewPCG(6, 6))
	s, _ := NewSimhash384(113)
	for s.Len() < 100_000 {
		s.Add(uint32(s.Len()), [6]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()})
	}
	q := [6]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	var hits []Hit
	b.ResetTimer()
	for range b.N {
		hits = s.Query(q, hits[:0])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.Len()), "ns/fingerprint")
}

// scalePages generates bags shaped as index/scale_test.go's synthetic pages:
// 40 to 160 signature occurrences drawn from a Zipf vocabulary of 2^24
// signatures, folded to 32-bit keys, as a seeded run loads them.
func scalePages(seed uint64) func(dst []features.Bag) {
	r := rand.New(rand.NewPCG(seed, 1))
	z := rand.NewZipf(r, 1.1, 4, 1<<24-1)
	keys := make([]uint64, 0, 200)
	return func(dst []features.Bag) {
		for i := range dst {
			keys = keys[:0]
			for range 40 + r.IntN(121) {
				keys = append(keys, z.Uint64()*2654435761%(1<<32))
			}
			dst[i] = features.BagOf(slices.Clone(keys))
		}
	}
}

// BenchmarkAddMany measures the load of a seeded run: N pages added one
// after the other with no query between them (near.Index.Add on every page
// an index of earlier runs holds), then one query, which pays for whatever
// Add deferred. Pages are generated 10,000 at a time outside the timer.
// Reported: pages/s over the adds and the first query, the first query's
// time (settle-s), heap and footprint bytes a signature after the adds.
//
//	go test -run X -bench AddMany -benchtime 1x ./matcher/
func BenchmarkAddMany(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for range b.N {
				gen := scalePages(1)
				chunk := make([]features.Bag, 10_000)
				h0 := heapBytes()
				s, _ := NewSpotSigs(0.8)
				var add time.Duration
				for s.Len() < n {
					gen(chunk[:min(len(chunk), n-s.Len())])
					t0 := time.Now()
					for _, bag := range chunk[:min(len(chunk), n-s.Len())] {
						s.Add(uint32(s.Len()), bag)
					}
					add += time.Since(t0)
				}
				heap := heapBytes() - h0 - uint64(16*len(chunk)*cap(chunk[0]))
				q := slices.Clone(chunk[0])
				t0 := time.Now()
				if len(s.MatchAll(q, nil)) == 0 {
					b.Fatal("a page indexed does not match itself")
				}
				settle := time.Since(t0)
				sigs := float64(s.arenaLen())
				ar, sl, li, dc := s.footprint()
				b.ReportMetric(float64(n)/(add+settle).Seconds(), "pages/s")
				b.ReportMetric(settle.Seconds(), "settle-s")
				b.ReportMetric(float64(heap)/sigs, "heapB/sig")
				b.ReportMetric(float64(ar+sl+li+dc)/sigs, "B/sig")
				b.ReportMetric(float64(ar)/sigs, "arenaB/sig")
				b.ReportMetric(float64(sl)/sigs, "slotB/sig")
				b.ReportMetric(float64(li)/sigs, "listB/sig")
				b.ReportMetric(sigs/float64(n), "sigs/page")
			}
		})
	}
}
