package matcher

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/warcdedup/warcdedup/features"
)

// bag builds a features.Bag from key:count pairs.
func bag(kv ...uint32) features.Bag {
	var b features.Bag
	for i := 0; i < len(kv); i += 2 {
		b = append(b, features.Entry{Key: uint64(kv[i]), N: kv[i+1]})
	}
	slices.SortFunc(b, func(x, y features.Entry) int { return int(int64(x.Key) - int64(y.Key)) })
	return b
}

// bruteSim is an independent multi-set Jaccard: maps and big.Rat, no shared code
// with the matcher.
func bruteSim(a, b features.Bag) *big.Rat {
	ca, cb := map[uint64]int64{}, map[uint64]int64{}
	for _, e := range a {
		ca[e.Key] += int64(e.N)
	}
	for _, e := range b {
		cb[e.Key] += int64(e.N)
	}
	var inter, union int64
	for k, x := range ca {
		y := cb[k]
		inter += min(x, y)
		union += max(x, y)
	}
	for k, y := range cb {
		if _, ok := ca[k]; !ok {
			union += y
		}
	}
	if union == 0 {
		return new(big.Rat)
	}
	return big.NewRat(inter, union)
}

func bruteMatch(a, b features.Bag, tau string) bool {
	t, _ := new(big.Rat).SetString(tau)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	return bruteSim(a, b).Cmp(t) >= 0
}

// randomBags makes n bags over a small vocabulary so that shared signatures,
// equal lengths and similarities exactly at the threshold are common: about
// half are mutations of an earlier bag (a count moved by one, a key added or
// dropped), like near duplicates.
func randomBags(r *rand.Rand, n, vocab int) []features.Bag {
	bags := make([]features.Bag, 0, n)
	for i := range n {
		var m map[uint64]uint32
		if i > 0 && r.IntN(2) == 0 {
			m = map[uint64]uint32{}
			for _, e := range bags[r.IntN(len(bags))] {
				m[e.Key] = e.N
			}
			for range 1 + r.IntN(3) {
				k := uint64(r.IntN(vocab))
				switch r.IntN(3) {
				case 0:
					m[k]++
				case 1:
					if m[k] > 0 {
						m[k]--
					}
				default:
					delete(m, k)
				}
			}
		} else {
			m = map[uint64]uint32{}
			for range 1 + r.IntN(12) {
				m[uint64(r.IntN(vocab))] += uint32(1 + r.IntN(4))
			}
		}
		var keys []uint64
		for k, c := range m {
			for range c {
				keys = append(keys, k)
			}
		}
		bags = append(bags, features.BagOf(keys))
	}
	return bags
}

var taus = []string{"0.5", "0.7", "0.8", "0.9", "1"}

func mustTau(t testing.TB, s string) float64 {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// seeds is how many random draws TestAllPairsExact checks: fewer with -short,
// which still checks every threshold.
func seeds(full uint64) uint64 {
	if testing.Short() {
		return max(full/5, 2)
	}
	return full
}

// TestAllPairsExact: full matching returns exactly the pairs brute force finds.
func TestAllPairsExact(t *testing.T) {
	for _, tau := range taus {
		for seed := range seeds(20) {
			r := rand.New(rand.NewPCG(seed, 1))
			bags := randomBags(r, 150+r.IntN(150), 10+r.IntN(40))
			got, _, err := AllPairs(mustTau(t, tau), bags)
			if err != nil {
				t.Fatal(err)
			}
			var want []Pair
			for i := range bags {
				for j := i + 1; j < len(bags); j++ {
					if bruteMatch(bags[i], bags[j], tau) {
						f, _ := bruteSim(bags[i], bags[j]).Float64()
						want = append(want, Pair{A: uint32(i), B: uint32(j), Sim: f})
					}
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("tau %s seed %d: got %d pairs, want %d\ngot  %v\nwant %v", tau, seed, len(got), len(want), got, want)
			}
		}
	}
}

// TestMatchExact: every query, shorter or longer than the indexed documents,
// finds exactly the brute-force set; Best Guess is its maximum with ties to
// the smallest id; First Guess returns a member of it.
func TestMatchExact(t *testing.T) {
	seeds := uint64(10)
	if testing.Short() {
		seeds = 4 // each seed is 400 queries against the brute force
	}
	for _, tau := range taus {
		var pairs, exact int
		for seed := range seeds {
			r := rand.New(rand.NewPCG(seed, 2))
			bags := randomBags(r, 400, 10+r.IntN(40))
			s, err := NewSpotSigs(mustTau(t, tau))
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range bags {
				id := uint32(1000 + i)
				var want []uint32
				var best *big.Rat
				var bestID uint32
				for j := range i {
					if !bruteMatch(bags[j], q, tau) {
						continue
					}
					jid := uint32(1000 + j)
					want = append(want, jid)
					sim := bruteSim(bags[j], q)
					if best == nil || sim.Cmp(best) > 0 {
						best, bestID = sim, jid
					}
					t0, _ := new(big.Rat).SetString(tau)
					if sim.Cmp(t0) == 0 {
						exact++
					}
				}
				pairs += len(want)
				var got []uint32
				for _, c := range s.MatchAll(q, nil) {
					got = append(got, c.ID)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("tau %s seed %d doc %d: got %v want %v", tau, seed, i, got, want)
				}
				c, ok := s.Match(q, BestGuess)
				if ok != (best != nil) || ok && c.ID != bestID {
					t.Fatalf("tau %s seed %d doc %d: best guess %v %v, want %d", tau, seed, i, c, ok, bestID)
				}
				c, ok = s.Match(q, FirstGuess)
				if ok != (best != nil) || ok && !slices.Contains(want, c.ID) {
					t.Fatalf("tau %s seed %d doc %d: first guess %v %v, want one of %v", tau, seed, i, c, ok, want)
				}
				s.Add(id, q)
			}
		}
		// The test must exercise matches, and matches exactly at tau.
		if pairs < 50*int(seeds) || exact < 2*int(seeds) {
			t.Errorf("tau %s: only %d matching pairs, %d exactly at tau", tau, pairs, exact)
		}
		t.Logf("tau %s: %d matching pairs, %d exactly at tau", tau, pairs, exact)
	}
}

// TestObserve: incremental matching indexes only unique documents and reports
// the best kept match, as a brute-force replay does.
func TestObserve(t *testing.T) {
	for _, tau := range taus {
		r := rand.New(rand.NewPCG(7, 7))
		bags := randomBags(r, 600, 25)
		s, _ := NewSpotSigs(mustTau(t, tau))
		var kept []int
		dups := 0
		for i, q := range bags {
			var best *big.Rat
			bestID := -1
			for _, j := range kept {
				if bruteMatch(bags[j], q, tau) {
					if sim := bruteSim(bags[j], q); best == nil || sim.Cmp(best) > 0 {
						best, bestID = sim, j
					}
				}
			}
			c, ok := s.Observe(uint32(i), q, BestGuess)
			if ok != (bestID >= 0) || ok && int(c.ID) != bestID {
				t.Fatalf("tau %s doc %d: got %v %v, want %d", tau, i, c, ok, bestID)
			}
			if ok {
				dups++
			} else if len(q) > 0 {
				kept = append(kept, i)
			}
		}
		checkIndex(t, s)
		if s.Len() != len(kept) || dups == 0 {
			t.Fatalf("tau %s: index holds %d, kept %d, %d duplicates", tau, s.Len(), len(kept), dups)
		}
	}
}

// TestWorkedExample is the SIGIR 2008 example of Sec. 4.3 / Figure 3:
// sim(d1,d3) = 12/15 = 0.8 exactly, found with one Jaccard computation.
func TestWorkedExample(t *testing.T) {
	d1 := bag(1, 5, 2, 4, 3, 4)
	d2 := bag(1, 8, 2, 4)
	d3 := bag(1, 4, 2, 5, 3, 5)
	s, err := NewSpotSigs(0.8)
	if err != nil {
		t.Fatal(err)
	}
	s.Add(2, d2)
	s.Add(3, d3)
	c, ok := s.Match(d1, BestGuess)
	if !ok || c.ID != 3 || c.Sim != 0.8 {
		t.Fatalf("got %v %v, want d3 at 0.8", c, ok)
	}
	if s.Comparisons() != 1 {
		t.Fatalf("%d Jaccard computations, want 1", s.Comparisons())
	}
	// The paper assumes the three share a partition; with its own rule for
	// tau = 0.8 (..., 8, 11, 14, 18, ...) d1 and d2 are in [11,14) and d3 in
	// the right neighbour [14,18), which is why that neighbour is checked.
	for _, tt := range []struct{ l, lo, hi uint64 }{{12, 11, 14}, {13, 11, 14}, {14, 14, 18}} {
		if k := s.partition(tt.l); uint64(s.bounds[k]) != tt.lo || uint64(s.bounds[k+1]) != tt.hi {
			t.Errorf("length %d in partition [%d,%d)", tt.l, s.bounds[k], s.bounds[k+1])
		}
	}
	pairs, _, _ := AllPairs(0.8, []features.Bag{d1, d2, d3})
	if want := []Pair{{0, 2, 0.8}}; !slices.Equal(pairs, want) {
		t.Fatalf("AllPairs: %v, want %v", pairs, want)
	}
}

func TestPartitionBounds(t *testing.T) {
	tests := []struct {
		tau  float64
		want []uint32
	}{
		// p_{k+1} = floor(p_k/tau) + 1: for tau = 0.8, 5 is not > 4/0.8, so 4 -> 6.
		{0.8, []uint32{1, 2, 3, 4, 6, 8, 11, 14, 18, 23, 29, 37, 47, 59}},
		{0.5, []uint32{1, 3, 7, 15, 31, 63, 127}},
		{0.9, []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 17, 19, 22, 25}},
		{1, []uint32{1, 2, 3, 4, 5, 6, 7}},
	}
	for _, tt := range tests {
		r, err := parseTau(tt.tau)
		if err != nil {
			t.Fatal(err)
		}
		b := partitionBounds(r)
		if !slices.Equal(b[:len(tt.want)], tt.want) {
			t.Errorf("tau %v: %v, want %v", tt.tau, b[:len(tt.want)], tt.want)
		}
		// SIGIR 2008 condition (A): a similar pair is in one partition or two neighbours.
		s := &SpotSigs{tau: r, bounds: b}
		for x := uint64(1); x < 3000; x++ {
			lo, hi := r.window(x)
			if d := s.partition(hi) - s.partition(x); d > 1 {
				t.Fatalf("tau %v: lengths %d and %d are %d partitions apart", tt.tau, x, hi, d)
			}
			if d := s.partition(x) - s.partition(lo); d > 1 {
				t.Fatalf("tau %v: lengths %d and %d are %d partitions apart", tt.tau, lo, x, d)
			}
		}
	}
}

func TestParseTau(t *testing.T) {
	tests := []struct {
		tau      float64
		num, den uint64
		ok       bool
	}{
		{0.8, 4, 5, true},
		{1, 1, 1, true},
		{0.85, 17, 20, true},
		{1.0 / 3, 3333333333333333, 10000000000000000, true},
		{0, 0, 0, false},
		{-0.5, 0, 0, false},
		{1.5, 0, 0, false},
		{1e-30, 0, 0, false},
	}
	for _, tt := range tests {
		r, err := parseTau(tt.tau)
		if (err == nil) != tt.ok || r.num != tt.num || r.den != tt.den {
			t.Errorf("parseTau(%v) = %v, %v; want %d/%d ok=%v", tt.tau, r, err, tt.num, tt.den, tt.ok)
		}
	}
	r, _ := parseTau(0.8)
	if !r.atLeast(12, 15) || r.atLeast(11, 14) || r.atLeast(0, 0) || !r.atLeast(4, 5) {
		t.Error("atLeast wrong at 4/5")
	}
}

func TestClusters(t *testing.T) {
	tests := []struct {
		n     int
		pairs []Pair
		want  []uint32
	}{
		{3, nil, []uint32{0, 1, 2}},
		{5, []Pair{{A: 3, B: 4}, {A: 1, B: 4}}, []uint32{0, 1, 2, 1, 1}},
		{6, []Pair{{A: 4, B: 5}, {A: 2, B: 3}, {A: 3, B: 5}, {A: 0, B: 1}}, []uint32{0, 0, 2, 2, 2, 2}},
		{2, []Pair{{A: 0, B: 7}}, []uint32{0, 1}}, // out of range ignored
	}
	for _, tt := range tests {
		if got := Clusters(tt.n, tt.pairs); !slices.Equal(got, tt.want) {
			t.Errorf("Clusters(%d, %v) = %v, want %v", tt.n, tt.pairs, got, tt.want)
		}
	}
}

// TestEmptyAndInvalid: empty bags match nothing and are not indexed; an
// unsorted bag is a programming error.
func TestEmptyAndInvalid(t *testing.T) {
	s, _ := NewSpotSigs(0.5)
	s.Add(1, nil)
	s.Add(2, bag(1, 0))
	if s.Len() != 0 {
		t.Fatalf("empty bags indexed: %d", s.Len())
	}
	if _, ok := s.Match(nil, BestGuess); ok {
		t.Fatal("empty query matched")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("unsorted bag accepted")
		}
	}()
	s.Add(3, features.Bag{{Key: 2, N: 1}, {Key: 1, N: 1}})
}

// TestLongLists drives many postings onto few keys so that tails are merged
// many times, and checks the lists stay sorted and complete.
func TestLongLists(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	s, _ := NewSpotSigs(0.7)
	bags := randomBags(r, 3000, 6)
	for i, b := range bags {
		s.Add(uint32(i), b)
	}
	checkIndex(t, s)
	// And queries on merged lists are still exact.
	checkQueries(t, s, bags, 97, "0.7")
}

// checkQueries checks MatchAll of every step-th bag, as indexed under its
// position in bags, against brute force at tau. A float Jaccard a tenth under
// tau only skips the exact computation for pairs that cannot reach it.
func checkQueries(t *testing.T, s *SpotSigs, bags []features.Bag, step int, tau string) {
	t.Helper()
	lo, _ := strconv.ParseFloat(tau, 64)
	for i := 0; i < len(bags); i += step {
		var want []uint32
		for j := range bags {
			if features.Jaccard(bags[j], bags[i]) >= lo-0.1 && bruteMatch(bags[j], bags[i], tau) {
				want = append(want, uint32(j))
			}
		}
		var got []uint32
		for _, c := range s.MatchAll(bags[i], nil) {
			got = append(got, c.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("doc %d: got %v want %v", i, got, want)
		}
	}
}

// bagOfKeys is features.BagOf on a copy.
func bagOfKeys(keys []uint64) features.Bag { return features.BagOf(slices.Clone(keys)) }

// checkIndex verifies the index invariants: every signature of every indexed
// document is posted exactly once under its key, and sorted parts are sorted.
func checkIndex(t *testing.T, s *SpotSigs) {
	t.Helper()
	s.sync()
	total := 0
	for _, pl := range s.lists {
		if !slices.IsSortedFunc(pl.docs[:pl.sorted], s.cmpPost) {
			t.Fatal("sorted part not sorted")
		}
		total += len(pl.docs)
	}
	used := 0
	for i := range s.nslots {
		v := s.at(i)
		if v == 0 {
			continue
		}
		used++
		if s.ref(v)&listTag == 0 {
			total++
		}
	}
	if total != s.arenaLen() || used != s.used {
		t.Fatalf("%d postings for %d arena entries; %d slots used, counted %d", total, s.arenaLen(), used, s.used)
	}
	for d := range s.docs {
		st, end := s.span(uint32(d))
		for p := st; p < end; p++ {
			v, _ := s.find(s.key(p))
			switch {
			case v == 0:
				t.Fatalf("doc %d key %x not found", d, s.key(p))
			case v&listTag == 0 && s.docOf(v-1) != uint32(d):
				t.Fatalf("doc %d key %x posted to doc %d", d, s.key(p), s.docOf(v-1))
			case v&listTag != 0 && !slices.Contains(s.lists[v&^listTag].docs, uint32(d)):
				t.Fatalf("doc %d key %x missing from its list", d, s.key(p))
			}
		}
	}
}

// TestPruning: on synthetic pages (bench_test.go's generator, one in ten a
// near duplicate of a recent page) incremental matching computes hardly any
// Jaccard similarity besides the true matches, while a brute-force pass over
// the same pages computes one per indexed page. Fails if the bounds or the
// count filter stop pruning.
func TestPruning(t *testing.T) {
	for _, tt := range []struct {
		name   string
		unique float64
	}{{"realistic", 0.5}, {"zipf", 0}} {
		g := newSynth(11, tt.unique)
		s, _ := NewSpotSigs(0.8)
		const n = 20000
		dups := 0
		for i := range n {
			if _, ok := s.Observe(uint32(i), g.next(), BestGuess); ok {
				dups++
			}
		}
		per := float64(s.Comparisons()) / n
		t.Logf("%s: %d pages, %d duplicates, %.3f Jaccard computations a page", tt.name, n, dups, per)
		if dups < n/20 || per > 2 {
			t.Errorf("%s: %d duplicates, %.3f Jaccard computations a page", tt.name, dups, per)
		}
	}
}

// TestPostingsAndBags checks the index's own view of what it holds against the
// bags added: AppendBag returns each bag as added, and Postings counts and
// lists exactly the documents whose bag has the key, stopping when told.
func TestPostingsAndBags(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	bags := randomBags(r, 400, 300)
	s, err := NewSpotSigs(0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64][]uint32{}
	n := 0
	for i, b := range bags {
		if b.Len() == 0 {
			continue
		}
		id := uint32(1000 + i)
		s.Add(id, b)
		if got := s.AppendBag(nil, n); !reflect.DeepEqual(got, b) {
			t.Fatalf("AppendBag(%d) = %v, want %v", n, got, b)
		}
		n++
		for _, e := range b {
			want[e.Key] = append(want[e.Key], id)
		}
	}
	for key, ids := range want {
		var got []uint32
		if c := s.Postings(key, func(id uint32) bool { got = append(got, id); return true }); c != len(ids) {
			t.Fatalf("Postings(%d) = %d, want %d", key, c, len(ids))
		}
		slices.Sort(got)
		if !slices.Equal(got, ids) {
			t.Fatalf("Postings(%d) listed %v, want %v", key, got, ids)
		}
		calls := 0
		s.Postings(key, func(uint32) bool { calls++; return false })
		if calls != 1 {
			t.Fatalf("Postings(%d) went on after false: %d calls", key, calls)
		}
	}
	if c := s.Postings(1<<63+12345, nil); c != 0 {
		t.Fatalf("Postings of an absent key = %d", c)
	}
}

// TestWideRefs grows an index past 2^16 to 2^21 arena entries, where the
// table's references widen and its fingerprints narrow in place, and its
// slots go from 3 to 4 bytes, and checks the index and some queries against
// brute force.
func TestWideRefs(t *testing.T) {
	// Small batches, so that the table holds postings as it widens.
	defer func(m int) { maxBatch = m }(maxBatch)
	maxBatch = 5000
	g := newSynth(13, 0.5)
	s, _ := NewSpotSigs(0.8)
	var bags []features.Bag
	for s.arenaLen() < 1<<21+1000 {
		b := g.next()
		bags = append(bags, b)
		s.Add(uint32(len(bags)-1), b)
	}
	s.sync()
	if s.refBits < 22 || s.sw != 4 {
		t.Fatalf("refBits %d for %d entries", s.refBits, s.arenaLen())
	}
	checkIndex(t, s)
	checkQueries(t, s, bags, len(bags)/7, "0.8")
}

// TestAddManyEquivalent: an index built by many Adds with no query between
// them (a seeded run's load: the postings are made in one sorted batch and
// list tails ordered once, at the first query; or in batches of 5,000
// signatures during the load) answers every query as an index built with a
// query after every Add, whose postings were made one by one and tails merged
// as they came due, and as one with a query now and then. Compared: MatchAll and Match of every bag, Postings
// (count and documents; their order within a list's unsorted tail depends on
// when the tail was merged) of every key, AppendBag of every document, and
// the index invariants. realBags share a 20,000-key vocabulary, so more than
// maxPending lists come due during the load; randomBags' small vocabulary
// makes long lists and many equal lengths.
func TestAddManyEquivalent(t *testing.T) {
	const n = 3000
	r := rand.New(rand.NewPCG(17, 17))
	for _, tc := range []struct {
		name string
		tau  string
		bags []features.Bag
		many bool // more than maxPending lists come due
	}{
		{"real/0.8", "0.8", realBags(r, n), true},
		{"real/0.5", "0.5", realBags(r, n), true},
		{"random/0.7", "0.7", randomBags(r, n, 40), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Empty bags are not indexed; without them document n is bag n.
			tc.bags = slices.DeleteFunc(tc.bags, func(b features.Bag) bool { return b.Len() == 0 })
			tau := mustTau(t, tc.tau)
			build := func(every int) *SpotSigs {
				s, err := NewSpotSigs(tau)
				if err != nil {
					t.Fatal(err)
				}
				for i, b := range tc.bags {
					s.Add(uint32(i), b)
					if every > 0 && i%every == 0 {
						s.Match(tc.bags[(i*7)%len(tc.bags)], BestGuess)
					}
				}
				return s
			}
			old := build(1)
			for _, every := range []int{0, 97, -1} {
				var s *SpotSigs
				if every < 0 {
					// Batches of a few documents posted during the load.
					m := maxBatch
					maxBatch = 5000
					s = build(0)
					maxBatch = m
				} else {
					s = build(every)
				}
				if s.posted < len(s.docs) {
					s.postBatch()
				}
				if every == 0 && (len(s.pending) == 0 || tc.many != s.pendingAll) {
					t.Fatalf("%d lists due, past maxPending %v", len(s.pending), s.pendingAll)
				}
				checkIndex(t, s)
				step := 1
				if testing.Short() {
					step = 5
				}
				for i := 0; i < len(tc.bags); i += step {
					b := tc.bags[i]
					if got, want := s.AppendBag(nil, i), old.AppendBag(nil, i); !reflect.DeepEqual(got, want) {
						t.Fatalf("every %d: AppendBag(%d) = %v, want %v", every, i, got, want)
					}
					for _, e := range b {
						var got, want []uint32
						cg := s.Postings(e.Key, func(id uint32) bool { got = append(got, id); return true })
						cw := old.Postings(e.Key, func(id uint32) bool { want = append(want, id); return true })
						slices.Sort(got)
						slices.Sort(want)
						if cg != cw || !slices.Equal(got, want) {
							t.Fatalf("every %d: Postings(%x) = %d %v, want %d %v", every, e.Key, cg, got, cw, want)
						}
					}
				}
				for i := 0; i < len(tc.bags); i += step {
					b := tc.bags[i]
					got, want := s.MatchAll(b, nil), old.MatchAll(b, nil)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("every %d: MatchAll = %v, want %v", every, got, want)
					}
					gc, gok := s.Match(b, BestGuess)
					wc, wok := old.Match(b, BestGuess)
					if gc != wc || gok != wok {
						t.Fatalf("every %d: Match = %v %v, want %v %v", every, gc, gok, wc, wok)
					}
				}
				checkIndex(t, s)
				for _, pl := range s.lists {
					if due(len(pl.docs)-pl.sorted, pl.sorted) {
						t.Fatalf("every %d: a tail of %d after %d left unmerged by queries", every, len(pl.docs)-pl.sorted, pl.sorted)
					}
				}
				checkQueries(t, s, tc.bags, len(tc.bags)/13, tc.tau)
			}
		})
	}
}

// TestArenaChunks fills more than one arena chunk with 32-bit keys, then
// adds 64-bit keys, which widens the chunks in place, and checks the index
// and queries, some of them on documents that straddle a chunk boundary.
func TestArenaChunks(t *testing.T) {
	gen := scalePages(3)
	bags := make([]features.Bag, 13_000)
	gen(bags)
	r := rand.New(rand.NewPCG(5, 5))
	bags = append(bags, realBags(r, 200)...)
	s, _ := NewSpotSigs(0.8)
	var straddle []int
	for i, b := range bags {
		st := s.arenaLen()
		s.Add(uint32(i), b)
		if st>>chunkBits != (s.arenaLen()-1)>>chunkBits {
			straddle = append(straddle, i)
		}
	}
	if len(s.k64) < 2 || len(straddle) == 0 {
		t.Fatalf("%d chunks, straddling documents %v", len(s.k64), straddle)
	}
	checkIndex(t, s)
	for i, b := range bags {
		if got := s.AppendBag(nil, i); !reflect.DeepEqual(got, b) {
			t.Fatalf("AppendBag(%d) differs", i)
		}
	}
	for _, i := range append(straddle, 0, 12_999, 13_100) {
		want := []uint32{}
		for j := range bags {
			if bruteMatch(bags[j], bags[i], "0.8") {
				want = append(want, uint32(j))
			}
		}
		got := []uint32{}
		for _, c := range s.MatchAll(bags[i], nil) {
			got = append(got, c.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("doc %d: got %v want %v", i, got, want)
		}
	}
}

// TestBatchHashCollisions: keys whose hashes differ by one (so share the 32
// high bits a batch is sorted by) are kept apart when postings are made in a
// sorted batch.
func TestBatchHashCollisions(t *testing.T) {
	const c = 0x9E3779B97F4A7C15 // keyHash's multiplier
	inv := uint64(c)
	for range 6 {
		inv *= 2 - c*inv // Newton's iteration for the inverse mod 2^64
	}
	r := rand.New(rand.NewPCG(21, 21))
	base := make([]uint64, 300)
	for i := range base {
		base[i] = r.Uint64()
		if keyHash(base[i]+inv)>>32 != keyHash(base[i])>>32 {
			base[i] = base[i-1] + 7 // no carry into the high bits (likely)
		}
	}
	bags := make([]features.Bag, 400)
	for i := range bags {
		var keys []uint64
		for range 10 + r.IntN(20) {
			k := base[r.IntN(len(base))]
			keys = append(keys, k)
			if r.IntN(2) == 0 {
				keys = append(keys, k+inv)
			}
		}
		bags[i] = bagOfKeys(keys)
	}
	bulk, _ := NewSpotSigs(0.5)
	old, _ := NewSpotSigs(0.5)
	n := 0
	for i, b := range bags {
		bulk.Add(uint32(i), b)
		old.Add(uint32(i), b)
		old.Match(b, BestGuess)
		n += len(b)
	}
	if n < minSortBatch {
		t.Fatalf("%d signatures, not a sorted batch", n)
	}
	checkIndex(t, bulk)
	for _, k := range base {
		for _, k := range []uint64{k, k + inv} {
			var got, want []uint32
			bulk.Postings(k, func(id uint32) bool { got = append(got, id); return true })
			old.Postings(k, func(id uint32) bool { want = append(want, id); return true })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("Postings(%x) = %v, want %v", k, got, want)
			}
		}
	}
	for _, b := range bags {
		if got, want := bulk.MatchAll(b, nil), old.MatchAll(b, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("MatchAll = %v, want %v", got, want)
		}
	}
	checkQueries(t, bulk, bags, 37, "0.5")
}
