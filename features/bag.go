package features

import "sort"

// Entry is one distinct feature of a multi-set: a 64-bit feature hash and how often
// the feature occurred in the document.
type Entry struct {
	Key uint64
	N   uint32
}

// Bag is a multi-set of features, sorted by Key with no repeated Key. SpotSigs
// compares documents by the multi-set Jaccard of their bags (SIGIR 2008, Sec. 3).
type Bag []Entry

// BagOf builds a Bag from a list of feature hashes, counting repeats. keys is
// sorted in place.
func BagOf(keys []uint64) Bag {
	if len(keys) == 0 {
		return nil
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	b := make(Bag, 0, len(keys))
	for _, k := range keys {
		if n := len(b); n > 0 && b[n-1].Key == k {
			b[n-1].N++
			continue
		}
		b = append(b, Entry{Key: k, N: 1})
	}
	return b
}

// Len is the multi-set cardinality: the sum of all frequencies. SpotSigs' length
// bound and partitioning (SIGIR 2008, Sec. 4) work on this number, not len(b).
func (b Bag) Len() int {
	n := 0
	for _, e := range b {
		n += int(e.N)
	}
	return n
}

// SharedKeys is the number of distinct keys two bags share, whatever their
// counts: the set intersection of their keys.
func SharedKeys(a, b Bag) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Key < b[j].Key:
			i++
		case a[i].Key > b[j].Key:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Intersection is the size of the multi-set intersection of two bags: the sum
// over common keys of the smaller count.
func Intersection(a, b Bag) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Key < b[j].Key:
			i++
		case a[i].Key > b[j].Key:
			j++
		default:
			n += int(min(a[i].N, b[j].N))
			i++
			j++
		}
	}
	return n
}

// Jaccard is the multi-set Jaccard similarity sum(min)/sum(max) of two bags
// (SIGIR 2008, Sec. 3). Two empty bags have similarity 0: no evidence is not equality.
func Jaccard(a, b Bag) float64 {
	var inter, union int
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Key < b[j].Key:
			union += int(a[i].N)
			i++
		case a[i].Key > b[j].Key:
			union += int(b[j].N)
			j++
		default:
			x, y := int(a[i].N), int(b[j].N)
			inter += min(x, y)
			union += max(x, y)
			i++
			j++
		}
	}
	for ; i < len(a); i++ {
		union += int(a[i].N)
	}
	for ; j < len(b); j++ {
		union += int(b[j].N)
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
