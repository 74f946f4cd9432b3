package matcher

import (
	"math"
	"slices"

	"github.com/warcdedup/warcdedup/features"
)

// Fold32 writes to dst, and returns, bag b with every key mapped to 32 bits:
// the high half of a bijective 64-bit mix of the key. Keys that fold to the
// same value are merged, their counts summed (saturating at 2^32-1), and the
// result is sorted, so it is a valid features.Bag. dst may be b[:0].
//
// A SpotSigs index stores keys in 4 bytes instead of 8 as long as every key
// it indexes fits in 32 bits, so a caller that folds all its bags, before
// Add, Observe, Match and MatchAll alike (and passes folded keys to
// Postings), gets an index a third smaller. The price is false collisions:
// two distinct 64-bit keys fold together with probability 2^-32. Within one
// bag of n signatures, the chance that two merge is about n^2/2^33 (7.5e-7
// for 80); between two pages x and y, the chance that some signature of x
// and a different one of y fold together, adding a spurious shared
// signature to their intersection, is about |x||y|/2^32 (1.5e-6 for 80 by
// 80). A spurious shared signature changes a pair's Jaccard by at most one
// occurrence in the intersection, so it can only turn pairs just under the
// threshold into matches. Over an index of N pages, a query meets on average
// |x| x (signatures in the index)/2^32 such collisions: a wasted posting or
// candidate, not a wrong answer unless the pair was within one signature of
// tau.
func Fold32(dst, b features.Bag) features.Bag {
	dst = dst[:0]
	sorted := true
	for i, e := range b {
		e.Key = uint64(fold32(e.Key))
		if i > 0 && dst[i-1].Key >= e.Key {
			sorted = false
		}
		dst = append(dst, e)
	}
	if sorted {
		return dst
	}
	slices.SortFunc(dst, func(a, b features.Entry) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	out := dst[:0]
	for _, e := range dst {
		if n := len(out); n > 0 && out[n-1].Key == e.Key {
			out[n-1].N = uint32(min(uint64(out[n-1].N)+uint64(e.N), math.MaxUint32))
			continue
		}
		out = append(out, e)
	}
	return out
}

// fold32 is the high half of a bijective mix (the murmur3 finalizer): any
// two distinct keys, structured or not, agree there with probability about
// 2^-32.
func fold32(k uint64) uint32 { return uint32(features.Mix(k) >> 32) }
