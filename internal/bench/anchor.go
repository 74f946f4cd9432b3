package bench

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
)

// The anchor: the near-duplicate pipeline of datatrove as FineWeb runs it,
// against which warcdedup's own decision is measured. Main text by
// trafilatura (mainText, in anchortext.go), then word 5-shingles of the
// normalized text, MinHash signatures (Broder 1997) and LSH banding (Leskovec,
// Rajaraman and Ullman, Mining of Massive Datasets, ch. 3.4): pages that
// agree on every row of some band are candidates.

// ShingleWords is the shingle length in words: datatrove's MinhashConfig
// n_grams, 5.
const ShingleWords = 5

// AnchorThreshold is the Jaccard similarity at which the anchor calls two
// pages duplicates.
const AnchorThreshold = 0.5

// shingleSeed keeps shingle hashes apart from the feature families' hashes.
const shingleSeed = 0x5348494e474c4535

// NormalizedWords splits text into the words that are shingled, with the
// normalization of datatrove's simplify_text: lowercase, diacritics removed
// (NFD, then the non-spacing marks dropped), punctuation and symbols removed
// (deleted, not turned into spaces, as datatrove's str.translate does: "U.S."
// is "us"), then split at white space. Han, hiragana and katakana characters
// are each a word of their own, since Chinese and Japanese are written
// without spaces between words.
func NormalizedWords(text string) []string {
	var out []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			out = append(out, w.String())
			w.Reset()
		}
	}
	var it norm.Iter
	it.InitString(norm.NFD, strings.ToLower(text))
	for !it.Done() {
		for _, r := range string(it.Next()) {
			switch {
			case unicode.IsSpace(r):
				flush()
			case unicode.Is(unicode.Mn, r), unicode.IsPunct(r), unicode.IsSymbol(r), unicode.IsControl(r),
				unicode.Is(unicode.Cf, r):
				// dropped: accents after NFD, punctuation, symbols, zero-width
				// characters
			case isCJK(r):
				flush()
				out = append(out, string(r))
			default:
				w.WriteRune(r)
			}
		}
	}
	flush()
	return out
}

// isCJK reports whether r is written without spaces between words: Han
// ideographs, hiragana and katakana (Hangul is written with spaces).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// Shingles is the set of n-word shingles of text's normalized words, hashed
// (64 bits) and sorted, without repeats. A text of fewer than n words has no
// shingles: datatrove signs no such document, so it is nobody's duplicate.
func Shingles(text string, n int) []uint64 {
	words := NormalizedWords(text)
	if n < 1 || len(words) < n {
		return nil
	}
	out := make([]uint64, 0, len(words)-n+1)
	var b []byte
	for i := 0; i+n <= len(words); i++ {
		b = b[:0]
		for j, w := range words[i : i+n] {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, w...)
		}
		out = append(out, features.Hash64(b, shingleSeed))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	k := 0
	for i, h := range out {
		if i == 0 || h != out[k-1] {
			out[k] = h
			k++
		}
	}
	return out[:k]
}

// SetJaccard is |A ∩ B| / |A ∪ B| of two sorted sets without repeats; 0 when
// both are empty.
func SetJaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// mersenne61 is the prime 2^61-1 of the permutations, as datatrove and
// datasketch use.
const mersenne61 = 1<<61 - 1

// mulAddMod61 is (a*x + b) mod 2^61-1 for a, b < 2^61-1, any x: the 128-bit
// product is folded with 2^61 ≡ 1.
func mulAddMod61(a, x, b uint64) uint64 {
	x = x&mersenne61 + x>>61 // x mod p, up to p
	hi, lo := bits.Mul64(a, x)
	s := lo&mersenne61 + (lo>>61 | hi<<3)
	s = s&mersenne61 + s>>61
	s += b
	s = s&mersenne61 + s>>61
	if s >= mersenne61 {
		s -= mersenne61
	}
	return s
}

// MinHasher computes MinHash signatures (Broder, "On the resemblance and
// containment of documents", 1997): the i-th value of a set's signature is
// the minimum of h_i over the set, with h_i(x) = (a_i x + b_i) mod 2^61-1 a
// random linear permutation (datatrove's MinhashDedupSignature). Two sets
// agree on a value with probability their Jaccard similarity.
type MinHasher struct {
	a, b []uint64
}

// NewMinHasher draws k permutations from seed; the same seed gives the same
// permutations.
func NewMinHasher(k int, seed uint64) *MinHasher {
	rng := rand.New(rand.NewPCG(seed, 0x4d494e48415348))
	m := &MinHasher{a: make([]uint64, k), b: make([]uint64, k)}
	for i := range m.a {
		m.a[i] = 1 + rng.Uint64N(mersenne61-1)
		m.b[i] = rng.Uint64N(mersenne61)
	}
	return m
}

// Signature is the set's MinHash signature; nil for an empty set.
func (m *MinHasher) Signature(set []uint64) []uint64 {
	if len(set) == 0 {
		return nil
	}
	sig := make([]uint64, len(m.a))
	for i := range sig {
		sig[i] = mersenne61
	}
	for _, x := range set {
		for i, a := range m.a {
			if h := mulAddMod61(a, x, m.b[i]); h < sig[i] {
				sig[i] = h
			}
		}
	}
	return sig
}

// EstimateJaccard is the fraction of equal values of two signatures.
func EstimateJaccard(a, b []uint64) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// LSHCandidates returns the pairs of signatures that agree on every row of at
// least one band (MMDS 3.4.1), each pair once with A < B, sorted. A pair of
// Jaccard similarity s is a candidate with probability 1-(1-s^rows)^bands.
// Buckets are keyed by the band's values themselves, so two signatures share
// a bucket only if their band is equal, as in datatrove's sorted bucket
// files. Signatures of bands*rows values or more are used; nil ones are
// skipped.
func LSHCandidates(sigs [][]uint64, bands, rows int) [][2]uint32 {
	seen := map[[2]uint32]bool{}
	var out [][2]uint32
	key := make([]byte, 8*rows)
	for band := 0; band < bands; band++ {
		buckets := map[string][]uint32{}
		for i, s := range sigs {
			if len(s) < bands*rows {
				continue
			}
			for r, v := range s[band*rows : (band+1)*rows] {
				for k := 0; k < 8; k++ {
					key[8*r+k] = byte(v >> (8 * k))
				}
			}
			buckets[string(key)] = append(buckets[string(key)], uint32(i))
		}
		for _, g := range buckets {
			for x := 0; x < len(g); x++ {
				for y := x + 1; y < len(g); y++ {
					p := [2]uint32{g[x], g[y]}
					if !seen[p] {
						seen[p] = true
						out = append(out, p)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] || out[i][0] == out[j][0] && out[i][1] < out[j][1] })
	return out
}

// Verify is how MinHashLSH confirms a candidate pair.
type Verify int

const (
	// VerifyJaccard computes the exact Jaccard similarity of the two shingle
	// sets: no estimation error, so a pair is reported iff it is a candidate
	// and its similarity is at or above the threshold.
	VerifyJaccard Verify = iota
	// VerifyEstimate takes the MinHash estimate (equal signature values).
	VerifyEstimate
	// VerifyNone reports every candidate, as datatrove does: two pages that
	// share a bucket are duplicates (its stage 2 writes the pair, stage 3
	// joins them into clusters).
	VerifyNone
)

// MinHashLSH is the anchor's matching stage as a Method: MinHash signatures of
// Bands*Rows values over each page's shingle set (Sets, index by page;
// empty for a page with no shingles), LSH candidates, verified as Verify
// says. Its operating point is Threshold (AnchorThreshold); verified, it is
// also evaluated at the higher thresholds.
type MinHashLSH struct {
	Label       string
	Bands, Rows int
	Verify      Verify
	Threshold   float64
	Seed        uint64
	Sets        [][]uint64
}

func (m MinHashLSH) Name() string { return m.Label }

// OperatingPoint is the threshold of the recipe, reported as the method's
// result rather than its best threshold.
func (m MinHashLSH) OperatingPoint() float64 {
	if m.Verify == VerifyNone {
		return 0
	}
	return m.Threshold
}

func (m MinHashLSH) Thresholds() []float64 {
	if m.Verify == VerifyNone {
		return []float64{0}
	}
	out := []float64{m.Threshold}
	for _, t := range steps(0.6, 1, 0.1) {
		if t > m.Threshold+1e-9 {
			out = append(out, t)
		}
	}
	return out
}

// Pairs returns the verified candidate pairs whose similarity (exact or
// estimated Jaccard as Verify says; exact when not verified) is at least
// min.
func (m MinHashLSH) Pairs(_ []features.Doc, min float64) ([]matcher.Pair, error) {
	if m.Bands < 1 || m.Rows < 1 {
		return nil, fmt.Errorf("%d bands of %d rows", m.Bands, m.Rows)
	}
	mh := NewMinHasher(m.Bands*m.Rows, m.Seed)
	sigs := make([][]uint64, len(m.Sets))
	for i, s := range m.Sets {
		sigs[i] = mh.Signature(s)
	}
	var out []matcher.Pair
	for _, p := range LSHCandidates(sigs, m.Bands, m.Rows) {
		var s float64
		if m.Verify == VerifyEstimate {
			s = EstimateJaccard(sigs[p[0]], sigs[p[1]])
		} else {
			s = SetJaccard(m.Sets[p[0]], m.Sets[p[1]])
		}
		if m.Verify == VerifyNone || s >= min-1e-12 {
			out = append(out, matcher.Pair{A: p[0], B: p[1], Sim: s})
		}
	}
	return out, nil
}

// AnchorMethods are the anchor's configurations over the pages' shingle sets:
//
//   - 28 bands of 4 rows (112 values, as many as datatrove's), chosen for the
//     0.5 threshold. Candidates are verified, so false candidates cost only
//     time while a pair never made a candidate is lost: MMDS 3.4.3 advises
//     bands and rows whose threshold (1/b)^(1/r) lies below the target then.
//     With the 112 values split into b bands of 112/b rows, 28x4 minimizes
//     0.1 x (false-positive area below 0.5) + 0.9 x (false-negative area
//     above it) of the S-curve (datasketch's optimal-parameter rule with
//     weights 0.1/0.9); its threshold is 0.435, and a pair of similarity 0.5,
//     0.6, 0.7 is a candidate with probability 0.84, 0.98, 0.9996.
//   - datatrove's default, 14 bands of 8 rows (threshold 0.72: a pair of 0.5,
//     0.7, 0.8 is a candidate with probability 0.053, 0.57, 0.92), verified
//     at 0.5 too, and as datatrove runs it: every candidate a duplicate.
//
// Verification is by the exact Jaccard similarity of the shingle sets.
func AnchorMethods(sets [][]uint64) []Method {
	return []Method{
		MinHashLSH{Label: "FineWeb MinHash 28x4 (anchor)", Bands: 28, Rows: 4, Threshold: AnchorThreshold, Seed: 1, Sets: sets},
		MinHashLSH{Label: "FineWeb MinHash 14x8", Bands: 14, Rows: 8, Threshold: AnchorThreshold, Seed: 1, Sets: sets},
		MinHashLSH{Label: "FineWeb MinHash 14x8 unverified", Bands: 14, Rows: 8, Verify: VerifyNone, Threshold: AnchorThreshold, Seed: 1, Sets: sets},
	}
}
