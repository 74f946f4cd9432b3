package matcher

import (
	"errors"
	"math/big"
	"math/bits"
	"strconv"
	"sync"
)

// ratio is a similarity threshold tau held as the exact fraction num/den.
//
// Why not a float64: 12/15 is exactly 0.8 but the float64 nearest to 0.8 is
// 0.8000000000000000444, so "float64(12)/float64(15) >= 0.8" is true only by
// the luck of rounding, and a pair exactly at the threshold (the SIGIR 2008
// worked example) would be found or missed depending on the operands. All
// threshold tests in this package are integer cross-multiplications instead.
type ratio struct{ num, den uint64 }

// errTau is returned for a threshold outside (0, 1] or one that cannot be
// written as a fraction with a 62-bit denominator.
var errTau = errors.New("matcher: threshold must be in (0, 1] with at most 18 significant digits")

// parseTau turns tau into the fraction of its shortest decimal representation:
// 0.8 becomes 4/5, not the binary fraction the float64 holds. That is the value
// the user wrote on the command line.
func parseTau(tau float64) (ratio, error) {
	if !(tau > 0 && tau <= 1) {
		return ratio{}, errTau
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(tau, 'g', -1, 64))
	if !ok || !r.Num().IsUint64() || !r.Denom().IsUint64() {
		return ratio{}, errTau
	}
	q := ratio{r.Num().Uint64(), r.Denom().Uint64()}
	if q.num == 0 || q.den > 1<<62 {
		return ratio{}, errTau
	}
	return q, nil
}

// float is tau as a float64, for reporting only.
func (r ratio) float() float64 { return float64(r.num) / float64(r.den) }

// atLeast reports whether a/b >= tau, exactly (a*den >= num*b in 128 bits).
// A zero denominator is never similar: no evidence is not equality.
func (r ratio) atLeast(a, b uint64) bool {
	if b == 0 {
		return false
	}
	h1, l1 := bits.Mul64(a, r.den)
	h2, l2 := bits.Mul64(r.num, b)
	return h1 > h2 || h1 == h2 && l1 >= l2
}

// need is the smallest intersection I with I/(l-I) >= tau for two multi-sets
// of total length l = |A|+|B|, where union = l - intersection:
// I*den >= num*(l-I)  <=>  I >= num*l/(num+den).
func (r ratio) need(l uint64) uint64 {
	h, lw := bits.Mul64(r.num, l)
	q, rem := bits.Div64(h, lw, r.num+r.den) // num*l < 2^95, so h < num+den
	if rem != 0 {
		q++
	}
	return q
}

// fracLess reports whether a/b < c/d exactly, for b, d > 0.
func fracLess(a, b, c, d uint64) bool {
	h1, l1 := bits.Mul64(a, d)
	h2, l2 := bits.Mul64(c, b)
	return h1 < h2 || h1 == h2 && l1 < l2
}

// window is the range of multi-set lengths [lo, hi] that can reach tau with a
// document of length l: sim(A,B) <= min(|A|,|B|)/max(|A|,|B|) (SIGIR 2008,
// Sec. 4.1, Inequalities 3 and 6), so tau*l <= |B| <= l/tau.
func (r ratio) window(l uint64) (lo, hi uint64) {
	// lo = ceil(l*num/den)
	h, lw := bits.Mul64(l, r.num)
	q, rem := bits.Div64(h, lw, r.den) // h < den since l < 2^32 and num <= den
	lo = q
	if rem != 0 {
		lo++
	}
	// hi = floor(l*den/num)
	h, lw = bits.Mul64(l, r.den)
	if h >= r.num {
		return lo, maxLen
	}
	hi, _ = bits.Div64(h, lw, r.num)
	return lo, min(hi, maxLen)
}

// maxLen is the largest multi-set length the SpotSigs index accepts; lengths
// and ids are stored as uint32 to keep the index small.
const maxLen = 1<<32 - 1

// maxPartitions caps the partition table. For tau close to 1 the partitions
// are one length wide for a long stretch (tau = 1 would need one per length);
// beyond the cap all longer documents share the open partition [p_last, inf),
// the paper's [pi, inf) (SIGIR 2008, Sec. 4.2). Exactness does not depend on
// the partitioning: queries visit every partition that meets the length window.
const maxPartitions = 1 << 16

var (
	boundsMu    sync.Mutex
	boundsCache = map[ratio][]uint32{}
)

// partitionBounds returns p_0 = 1 < p_1 < ... for tau (SIGIR 2008, Sec. 4.2):
// p_{k+1} is the smallest integer with p_{k+1} - p_k > (1 - tau) p_{k+1}, that
// is tau*p_{k+1} > p_k, so p_{k+1} = floor(p_k*den/num) + 1. Any pair with
// sim >= tau then lies in one partition or two neighbours: for |x| in
// [p_k, p_{k+1}), a longer partner has length <= |x|/tau < p_{k+2}. The table
// depends only on tau, so all indexes with one tau share it; a per-site index
// holding one page pays nothing for it.
func partitionBounds(r ratio) []uint32 {
	boundsMu.Lock()
	defer boundsMu.Unlock()
	if b, ok := boundsCache[r]; ok {
		return b
	}
	b := []uint32{1}
	for p := uint64(1); len(b) < maxPartitions; {
		h, l := bits.Mul64(p, r.den)
		if h >= r.num {
			break
		}
		q, _ := bits.Div64(h, l, r.num)
		p = q + 1
		if p > maxLen {
			break
		}
		b = append(b, uint32(p))
	}
	// Cache the thresholds a run uses (a handful); a loaded index may carry any
	// fraction, and hostile input must not grow the cache without bound.
	if len(boundsCache) < 16 {
		boundsCache[r] = b
	}
	return b
}
