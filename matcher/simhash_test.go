package matcher

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// flip returns fp with d distinct random bits flipped.
func flip(r *rand.Rand, fp []uint64, d int) []uint64 {
	out := slices.Clone(fp)
	for _, b := range r.Perm(64 * len(fp))[:d] {
		out[b/64] ^= 1 << (b % 64)
	}
	return out
}

func hammingDist(a, b []uint64) int {
	d := 0
	for i := range a {
		d += bits.OnesCount64(a[i] ^ b[i])
	}
	return d
}

// index abstracts the two widths for the property test.
type index interface {
	add(id uint32, fp []uint64)
	query(fp []uint64) []Hit
}

type idx64 struct{ *Simhash64 }

func (x idx64) add(id uint32, fp []uint64) { x.Add(id, fp[0]) }
func (x idx64) query(fp []uint64) []Hit    { return x.Query(fp[0], nil) }

type idx384 struct{ *Simhash384 }

func (x idx384) add(id uint32, fp []uint64) { x.Add(id, [6]uint64(fp)) }
func (x idx384) query(fp []uint64) []Hit    { return x.Query([6]uint64(fp), nil) }

// TestSimhashExact: on random fingerprints with planted neighbours at every
// distance from 0 to k+2, queries return exactly what brute force finds.
func TestSimhashExact(t *testing.T) {
	tests := []struct {
		words, k int
	}{
		{1, 0}, {1, 3}, {1, 5}, {1, 6}, {1, 20}, {6, 12}, {6, 3}, {6, 0}, {6, 30}, {6, 37}, {6, 38}, {6, 113},
	}
	for _, tt := range tests {
		r := rand.New(rand.NewPCG(uint64(tt.k), uint64(tt.words)))
		var ix index
		if tt.words == 1 {
			s, err := NewSimhash64(tt.k)
			if err != nil {
				t.Fatal(err)
			}
			ix = idx64{s}
		} else {
			s, err := NewSimhash384(tt.k)
			if err != nil {
				t.Fatal(err)
			}
			ix = idx384{s}
		}
		var stored [][]uint64
		var queries [][]uint64
		for i := range 3000 {
			fp := make([]uint64, tt.words)
			for w := range fp {
				fp[w] = r.Uint64()
			}
			if i%3 == 0 && len(stored) > 0 {
				// A planted neighbour of a stored fingerprint.
				fp = flip(r, stored[r.IntN(len(stored))], r.IntN(tt.k+3))
			}
			if i%2 == 0 {
				queries = append(queries, flip(r, fp, r.IntN(tt.k+3)))
			}
			ix.add(uint32(len(stored)), fp)
			stored = append(stored, fp)
		}
		found := 0
		for _, q := range queries {
			var want []Hit
			for id, fp := range stored {
				if d := hammingDist(q, fp); d <= tt.k {
					want = append(want, Hit{uint32(id), d})
				}
			}
			slices.SortFunc(want, func(a, b Hit) int {
				if a.Dist != b.Dist {
					return a.Dist - b.Dist
				}
				return int(a.ID) - int(b.ID)
			})
			got := ix.query(q)
			if !slices.Equal(got, want) {
				t.Fatalf("words %d k %d: got %v, want %v", tt.words, tt.k, got, want)
			}
			found += len(want)
		}
		if ix, ok := ix.(idx384); ok && ix.h.scan != (tt.k >= 38) {
			t.Errorf("k %d: scan = %v", tt.k, ix.h.scan)
		}
		if found < len(queries)/4 {
			t.Fatalf("words %d k %d: only %d hits for %d queries; test too weak", tt.words, tt.k, found, len(queries))
		}
	}
}

// TestSimhash384AtTwelve: Henzinger's candidate generation (12 pieces of 32
// bits) misses a pair differing in exactly 12 bits, one in each piece, though
// 372 bits agree (C-similar); the 13-piece index finds it.
func TestSimhash384AtTwelve(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	var a [6]uint64
	for i := range a {
		a[i] = r.Uint64()
	}
	b := a
	for p := range 12 { // flip one bit in each 32-bit piece
		bit := 32*p + r.IntN(32)
		b[bit/64] ^= 1 << (bit % 64)
	}
	shared := 0
	for p := range 12 {
		w, sh := p/2, 32*(p%2)
		if uint32(a[w]>>sh) == uint32(b[w]>>sh) {
			shared++
		}
	}
	if d := hammingDist(a[:], b[:]); d != 12 || shared != 0 {
		t.Fatalf("setup: distance %d, %d shared 32-bit pieces", d, shared)
	}
	s, _ := NewSimhash384(DefaultK384)
	s.Add(1, a)
	if got := s.Query(b, nil); !slices.Equal(got, []Hit{{1, 12}}) {
		t.Fatalf("pair at distance 12: got %v", got)
	}
	c := b
	c[5] ^= 1 << 63 // 13 bits: not C-similar
	if c == a || hammingDist(a[:], c[:]) != 13 {
		t.Fatal("setup")
	}
	if got := s.Query(c, nil); len(got) != 0 {
		t.Fatalf("pair at distance 13 found: %v", got)
	}
}

func TestSimhashRadius(t *testing.T) {
	for _, k := range []int{-1, 64} {
		if _, err := NewSimhash64(k); err == nil {
			t.Errorf("NewSimhash64(%d) accepted", k)
		}
	}
	for _, k := range []int{-1, 384} {
		if _, err := NewSimhash384(k); err == nil {
			t.Errorf("NewSimhash384(%d) accepted", k)
		}
	}
	if _, err := NewSimhash384(383); err != nil {
		t.Error(err)
	}
}

// heapBytes is the live heap after a full collection.
func heapBytes() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSimhashMemory measures bytes per stored fingerprint (the figures quoted
// in the type docs) with the bucket tables full (n = 2^20) and just after they
// doubled (n = 2^20 + 1), and fails if they grow past a budget.
func TestSimhashMemory(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	r := rand.New(rand.NewPCG(1, 1))
	fp6 := func() [6]uint64 {
		return [6]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	}
	var full, grown [2]float64
	before := heapBytes()
	s64, _ := NewSimhash64(DefaultK64)
	for i := range n {
		s64.Add(uint32(i), r.Uint64())
	}
	full[0] = float64(heapBytes()-before) / float64(n)
	s64.Add(uint32(n), r.Uint64())
	grown[0] = float64(heapBytes()-before) / float64(n+1)
	runtime.KeepAlive(s64)
	s64 = nil

	before = heapBytes()
	s384, _ := NewSimhash384(DefaultK384)
	for i := range n {
		s384.Add(uint32(i), fp6())
	}
	full[1] = float64(heapBytes()-before) / float64(n)
	s384.Add(uint32(n), fp6())
	grown[1] = float64(heapBytes()-before) / float64(n+1)
	runtime.KeepAlive(s384)

	t.Logf("%d fingerprints, bytes each: 64-bit k=3 %.0f-%.0f; 384-bit k=12 %.0f-%.0f",
		n, full[0], grown[0], full[1], grown[1])
	if grown[0] > 80 || grown[1] > 260 {
		t.Errorf("memory per fingerprint over budget: %.0f, %.0f", grown[0], grown[1])
	}
}
