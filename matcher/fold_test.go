package matcher

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/warcdedup/warcdedup/features"
)

// realBags makes n bags of real size (30-130 distinct signatures, 64-bit
// keys): half of them fresh draws from a 20,000-key vocabulary, half
// mutations of an earlier bag (a few signatures replaced, counts moved), so
// that many pairs are near and some are at the threshold.
func realBags(r *rand.Rand, n int) []features.Bag {
	vocab := make([]uint64, 20_000)
	for i := range vocab {
		vocab[i] = r.Uint64()
	}
	bags := make([]features.Bag, 0, n)
	var keys []uint64
	for i := range n {
		keys = keys[:0]
		if i > 0 && r.IntN(2) == 0 {
			for _, e := range bags[r.IntN(len(bags))] {
				for range e.N {
					keys = append(keys, e.Key)
				}
			}
			for range 1 + r.IntN(8) {
				keys[r.IntN(len(keys))] = vocab[r.IntN(len(vocab))]
			}
		} else {
			for range 30 + r.IntN(100) {
				keys = append(keys, vocab[r.IntN(len(vocab))])
			}
		}
		bags = append(bags, bagOfKeys(keys))
	}
	return bags
}

// TestFold32Exact: an index of folded bags answers every query exactly as
// brute force does on the original 64-bit bags, for real-size bags; full
// matching too. (A false collision would make this fail with probability
// about 1e-6 a pair; none occurs for these seeds.)
func TestFold32Exact(t *testing.T) {
	for _, tau := range []string{"0.5", "0.8"} {
		r := rand.New(rand.NewPCG(21, 21))
		bags := realBags(r, 300)
		folded := make([]features.Bag, len(bags))
		for i, b := range bags {
			folded[i] = Fold32(nil, b)
			if len(folded[i]) != len(b) || folded[i].Len() != b.Len() {
				t.Fatalf("bag %d: folding merged keys", i)
			}
		}
		s, _ := NewSpotSigs(mustTau(t, tau))
		var want []Pair
		pairs := 0
		for i, q := range bags {
			var wantIDs []uint32
			for j := range i {
				if bruteMatch(bags[j], q, tau) {
					wantIDs = append(wantIDs, uint32(j))
					f, _ := bruteSim(bags[j], q).Float64()
					want = append(want, Pair{A: uint32(j), B: uint32(i), Sim: f})
				}
			}
			pairs += len(wantIDs)
			var got []uint32
			for _, c := range s.MatchAll(folded[i], nil) {
				got = append(got, c.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, wantIDs) {
				t.Fatalf("tau %s doc %d: got %v want %v", tau, i, got, wantIDs)
			}
			s.Add(uint32(i), folded[i])
		}
		if s.wide {
			t.Fatal("folded index holds 64-bit keys")
		}
		if pairs < 50 {
			t.Fatalf("tau %s: only %d matching pairs", tau, pairs)
		}
		slices.SortFunc(want, func(p, q Pair) int {
			if p.A != q.A {
				return int(int64(p.A) - int64(q.A))
			}
			return int(int64(p.B) - int64(q.B))
		})
		got, _, err := AllPairs(mustTau(t, tau), folded)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("tau %s: AllPairs on folded bags: %d pairs, want %d", tau, len(got), len(want))
		}
		t.Logf("tau %s: %d matching pairs", tau, pairs)
	}
}

// TestFold32Collision: keys that fold together become one entry with the
// counts summed, and the result is a sorted bag.
func TestFold32Collision(t *testing.T) {
	seen := map[uint32]uint64{}
	var a, b uint64
	for k := uint64(1); ; k++ {
		f := fold32(k << 20)
		if o, ok := seen[f]; ok {
			a, b = o, k<<20
			break
		}
		seen[f] = k << 20
	}
	in := features.Bag{{Key: 3, N: 1}, {Key: a, N: 2}, {Key: b, N: 3}, {Key: 1 << 62, N: 1}}
	out := Fold32(nil, in)
	if len(out) != 3 || out.Len() != 7 {
		t.Fatalf("Fold32(%v) = %v", in, out)
	}
	for i := 1; i < len(out); i++ {
		if out[i-1].Key >= out[i].Key {
			t.Fatalf("not sorted: %v", out)
		}
	}
	for _, e := range out {
		if e.Key == uint64(fold32(a)) && e.N != 5 {
			t.Fatalf("merged entry %v, want count 5", e)
		}
	}
	// In place.
	if got := Fold32(in[:0], slices.Clone(in)); len(got) != 3 {
		t.Fatalf("in place: %v", got)
	}
}

// TestWiden: an index switches to 64-bit keys when the first wide key
// arrives, and answers as before.
func TestWiden(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	bags := randomBags(r, 400, 30)
	s, _ := NewSpotSigs(0.7)
	for i, b := range bags[:200] {
		s.Add(uint32(i), b)
	}
	if s.wide {
		t.Fatal("wide with small keys")
	}
	before := make([][]Candidate, 0, 200)
	for _, q := range bags[200:] {
		before = append(before, s.MatchAll(q, nil))
	}
	s.Add(9999, features.Bag{{Key: 5, N: 300}, {Key: 1 << 40, N: 2}})
	if !s.wide {
		t.Fatal("not wide after a 40-bit key")
	}
	checkIndex(t, s)
	for i, q := range bags[200:] {
		if got := s.MatchAll(q, nil); !slices.Equal(got, before[i]) {
			t.Fatalf("query %d: %v after widening, %v before", i, got, before[i])
		}
	}
	if got := s.AppendBag(nil, s.Len()-1); !slices.Equal(got, features.Bag{{Key: 5, N: 300}, {Key: 1 << 40, N: 2}}) {
		t.Fatalf("AppendBag: %v", got)
	}
}

// TestHugeFirstBag: a first bag of more than 2^20 signatures starts the
// table with 4-byte slots.
func TestHugeFirstBag(t *testing.T) {
	b := make(features.Bag, 1<<20+5)
	for i := range b {
		b[i] = features.Entry{Key: uint64(i) * 3, N: 1}
	}
	s, _ := NewSpotSigs(0.9)
	s.Add(1, b)
	s.Add(2, b[:100])
	s.sync()
	if s.sw != 4 {
		t.Fatalf("slot width %d", s.sw)
	}
	checkIndex(t, s)
	if c, ok := s.Match(b, BestGuess); !ok || c.ID != 1 || c.Sim != 1 {
		t.Fatalf("huge bag does not find itself: %v %v", c, ok)
	}
}
