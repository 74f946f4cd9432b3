package bench

import (
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestNormalizedWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  \t\n ", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"tabs\tand\nnew  lines", []string{"tabs", "and", "new", "lines"}},
		// Punctuation is deleted, not a separator (datatrove's str.translate).
		{"U.S. well-known don't", []string{"us", "wellknown", "dont"}},
		{"a — b", []string{"a", "b"}},
		// Symbols go too; digits stay.
		{"Price: $1,299.00 © 2024 → now", []string{"price", "129900", "2024", "now"}},
		// Accents are removed after NFD; ß has no decomposition.
		{"Café Über Straße", []string{"cafe", "uber", "straße"}},
		{"ΑΘΗΝΑ Ελλάδα", []string{"αθηνα", "ελλαδα"}},
		// Zero-width and format characters are dropped.
		{"zero\u200bwidth soft\u00adhyphen", []string{"zerowidth", "softhyphen"}},
		// Han and kana characters are words of their own, even inside Latin.
		{"北京欢迎你", []string{"北", "京", "欢", "迎", "你"}},
		{"iPhone 15发布会，今天。", []string{"iphone", "15", "发", "布", "会", "今", "天"}},
		{"ひらがなカタカナ", []string{"ひ", "ら", "か", "な", "カ", "タ", "カ", "ナ"}}, // が loses its voicing mark under NFD, as in datatrove
		// Hangul is written with spaces: words are kept whole.
		{"한국어 문장", []string{"한국어", "문장"}},
	}
	for _, tt := range tests {
		got := NormalizedWords(tt.in)
		// Compare NFC forms: NFD splits Hangul syllables into jamo.
		if !reflect.DeepEqual(nfc(got), tt.want) {
			t.Errorf("NormalizedWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestShingles(t *testing.T) {
	tests := []struct {
		name string
		text string
		n    int
		want int // distinct shingles
	}{
		{"empty", "", 5, 0},
		{"fewer words than n", "one two three four", 5, 0},
		{"exactly n words", "one two three four five", 5, 1},
		{"one more word", "one two three four five six", 5, 2},
		{"punctuation only between", "one, two. three! four? five", 5, 1},
		{"repeats counted once", "a b c d e a b c d e", 5, 5},
		{"chinese characters", "今天北京天气很好", 5, 4},
		{"n of 1 is words", "the cat and the dog", 1, 4},
		{"n of 0", "the cat", 0, 0},
	}
	for _, tt := range tests {
		got := Shingles(tt.text, tt.n)
		if len(got) != tt.want {
			t.Errorf("%s: %d shingles, want %d", tt.name, len(got), tt.want)
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("%s: not sorted without repeats: %v", tt.name, got)
		}
	}
	// Normalization makes case, punctuation and accents irrelevant.
	a := Shingles("The Café sat, on the MAT!", 5)
	b := Shingles("the cafe sat on the mat", 5)
	if !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("normalized texts shingle differently: %v %v", a, b)
	}
	// Shifted by one word each way: one shared shingle of three.
	if j := SetJaccard(Shingles("x a b c d e", 5), Shingles("a b c d e y", 5)); math.Abs(j-1.0/3) > 1e-12 {
		t.Errorf("jaccard of shifted texts = %v, want 1/3", j)
	}
}

func TestSetJaccard(t *testing.T) {
	tests := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 0},
		{[]uint64{1}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		{[]uint64{1, 2, 3, 4}, []uint64{3, 4, 5, 6}, 2.0 / 6},
		{[]uint64{1, 5, 9}, []uint64{2, 5, 8, 9}, 2.0 / 5},
	}
	for _, tt := range tests {
		if got := SetJaccard(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("SetJaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestMulAddMod61(t *testing.T) {
	p := new(big.Int).SetUint64(mersenne61)
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(a, x, b uint64) {
		want := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(x))
		want.Add(want, new(big.Int).SetUint64(b)).Mod(want, p)
		if got := mulAddMod61(a, x, b); got != want.Uint64() {
			t.Fatalf("mulAddMod61(%d, %d, %d) = %d, want %d", a, x, b, got, want)
		}
	}
	edges := []uint64{0, 1, 2, mersenne61 - 1, mersenne61, mersenne61 + 1, 1 << 63, math.MaxUint64, math.MaxUint64 - 1}
	for _, a := range []uint64{1, 2, mersenne61 - 1} {
		for _, x := range edges {
			for _, b := range []uint64{0, 1, mersenne61 - 1} {
				check(a, x, b)
			}
		}
	}
	for i := 0; i < 100000; i++ {
		check(1+rng.Uint64N(mersenne61-1), rng.Uint64(), rng.Uint64N(mersenne61))
	}
}

// randomPair returns two sets of size n over a large universe with the given
// Jaccard similarity (to the nearest integer count): s shared elements and
// n-s of their own each, s/(2n-s) = j.
func randomPair(rng *rand.Rand, n int, j float64) (a, b []uint64) {
	s := int(math.Round(2 * float64(n) * j / (1 + j)))
	for i := 0; i < s; i++ {
		x := rng.Uint64()
		a, b = append(a, x), append(b, x)
	}
	for i := s; i < n; i++ {
		a, b = append(a, rng.Uint64()), append(b, rng.Uint64())
	}
	slices.Sort(a)
	slices.Sort(b)
	return a, b
}

func TestMinHashEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mh := NewMinHasher(400, 7)
	if !reflect.DeepEqual(mh.a, NewMinHasher(400, 7).a) {
		t.Fatal("the same seed gave other permutations")
	}
	if mh.Signature(nil) != nil {
		t.Error("an empty set has a signature")
	}
	for _, j := range []float64{0, 0.2, 0.5, 0.8, 1} {
		a, b := randomPair(rng, 300, j)
		exact := SetJaccard(a, b)
		est := EstimateJaccard(mh.Signature(a), mh.Signature(b))
		// The estimate is a binomial proportion over 400 values: within
		// 4 standard deviations.
		if sd := math.Sqrt(exact * (1 - exact) / 400); math.Abs(est-exact) > 4*sd+1e-9 {
			t.Errorf("jaccard %.3f estimated %.3f (sd %.3f)", exact, est, sd)
		}
	}
}

// TestLSHAgainstBruteForce plants pairs of known similarity among random
// sets and checks the LSH candidates and the verified pairs against all
// pairs compared exactly.
func TestLSHAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sets [][]uint64
	for _, j := range []float64{0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1} {
		for k := 0; k < 8; k++ {
			a, b := randomPair(rng, 40+rng.IntN(200), j)
			sets = append(sets, a, b)
		}
	}
	// Unrelated sets, and small sets drawn from a small universe, which
	// overlap by chance.
	for k := 0; k < 60; k++ {
		var s []uint64
		for i := 0; i < 5+rng.IntN(10); i++ {
			s = append(s, uint64(rng.IntN(40)))
		}
		slices.Sort(s)
		sets = append(sets, slices.Compact(s))
	}
	sets = append(sets, nil) // a page without shingles is never paired
	type pair = [2]uint32
	brute := map[pair]float64{}
	for a := range sets {
		for b := a + 1; b < len(sets); b++ {
			if j := SetJaccard(sets[a], sets[b]); j >= AnchorThreshold {
				brute[pair{uint32(a), uint32(b)}] = j
			}
		}
	}
	for _, cfg := range []struct{ bands, rows int }{{28, 4}, {14, 8}} {
		sCurve := func(j float64) float64 { return 1 - math.Pow(1-math.Pow(j, float64(cfg.rows)), float64(cfg.bands)) }
		m := MinHashLSH{Bands: cfg.bands, Rows: cfg.rows, Threshold: AnchorThreshold, Seed: 1, Sets: sets}
		got, err := m.Pairs(nil, AnchorThreshold)
		if err != nil {
			t.Fatal(err)
		}
		verified := map[pair]bool{}
		for _, p := range got {
			k := pair{p.A, p.B}
			verified[k] = true
			j, ok := brute[k]
			if !ok {
				t.Errorf("%dx%d: verified pair %v has jaccard %.3f < %.1f", cfg.bands, cfg.rows, k, SetJaccard(sets[p.A], sets[p.B]), AnchorThreshold)
			} else if p.Sim != j {
				t.Errorf("%dx%d: pair %v similarity %v, exact %v", cfg.bands, cfg.rows, k, p.Sim, j)
			}
		}
		// Every pair whose probability of being a candidate is 1-1e-4 or
		// more is found; the others are missed about as often as the
		// S-curve says.
		expectMissed, missed := 0.0, 0
		for k, j := range brute {
			if verified[k] {
				continue
			}
			if sCurve(j) > 1-1e-4 {
				t.Errorf("%dx%d: pair %v of jaccard %.3f (candidate with probability %.6f) missed", cfg.bands, cfg.rows, k, j, sCurve(j))
			}
			missed++
		}
		for _, j := range brute {
			expectMissed += 1 - sCurve(j)
		}
		if float64(missed) > expectMissed+4*math.Sqrt(expectMissed)+1 || float64(missed) < expectMissed-4*math.Sqrt(expectMissed)-1 {
			t.Errorf("%dx%d: %d of %d pairs missed, %.1f expected", cfg.bands, cfg.rows, missed, len(brute), expectMissed)
		}
		t.Logf("%dx%d: %d of %d pairs at or above %.1f found, %d missed (%.1f expected)", cfg.bands, cfg.rows,
			len(verified), len(brute), AnchorThreshold, missed, expectMissed)

		// Unverified, every candidate is reported, and the verified pairs are
		// the candidates at or above the threshold.
		m.Verify = VerifyNone
		cand, err := m.Pairs(nil, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range cand {
			if p.Sim >= AnchorThreshold {
				n++
			}
		}
		if n != len(got) || len(cand) < len(got) {
			t.Errorf("%dx%d: %d candidates, %d at or above the threshold; %d verified", cfg.bands, cfg.rows, len(cand), n, len(got))
		}

		// Verified by the MinHash estimate, a pair is decided otherwise than
		// by its exact similarity only near the threshold.
		m.Verify = VerifyEstimate
		est, err := m.Pairs(nil, AnchorThreshold)
		if err != nil {
			t.Fatal(err)
		}
		k := float64(cfg.bands * cfg.rows)
		for _, p := range est {
			j := SetJaccard(sets[p.A], sets[p.B])
			if sd := math.Sqrt(0.25 / k); j < AnchorThreshold-4*sd {
				t.Errorf("%dx%d: estimate verified pair %v of jaccard %.3f", cfg.bands, cfg.rows, p, j)
			}
		}
	}
}

func TestLSHCandidates(t *testing.T) {
	// Signatures of 2 bands of 2 rows: 0 and 1 share band 0, 1 and 2 share
	// band 1, 3 shares nothing, 4 is unsigned; 5 equals 0.
	sigs := [][]uint64{{1, 2, 3, 4}, {1, 2, 9, 9}, {7, 7, 9, 9}, {1, 3, 2, 4}, nil, {1, 2, 3, 4}}
	got := LSHCandidates(sigs, 2, 2)
	want := [][2]uint32{{0, 1}, {0, 5}, {1, 2}, {1, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
}

func TestMinHashLSHMethod(t *testing.T) {
	ms := AnchorMethods(nil)
	if len(ms) != 3 {
		t.Fatalf("%d anchor methods", len(ms))
	}
	for _, m := range ms {
		op := m.(OperatingPoint).OperatingPoint()
		if ts := m.Thresholds(); ts[0] != op {
			t.Errorf("%s: thresholds %v start elsewhere than its operating point %v", m.Name(), ts, op)
		}
	}
	if ts := ms[0].Thresholds(); !reflect.DeepEqual(ts, []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1}) {
		t.Errorf("thresholds %v", ts)
	}
	if _, err := (MinHashLSH{}).Pairs(nil, 0.5); err == nil {
		t.Error("no bands: no error")
	}
}
