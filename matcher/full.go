package matcher

import (
	"slices"

	"github.com/warcdedup/warcdedup/features"
)

// Pair is an edge of the near-duplicate graph: documents A < B (indexes into
// the slice given to AllPairs) with similarity Sim >= tau.
type Pair struct {
	A, B uint32
	Sim  float64
}

// AllPairs is full matching (Stanford report, Sec. 3.3.2; SIGIR 2008,
// Algorithm 1 over the whole collection): it indexes all bags, then queries
// each one against its own and its right-neighbour partition only, which finds
// every pair with multi-set Jaccard >= tau exactly once (the check is
// symmetric, so the shorter document of a pair finds the longer one; equal
// lengths are found by the smaller index). Pairs come sorted by (A, B).
// comparisons is the number of Jaccard similarities computed.
func AllPairs(tau float64, bags []features.Bag) (pairs []Pair, comparisons uint64, err error) {
	s, err := NewSpotSigs(tau)
	if err != nil {
		return nil, 0, err
	}
	num := make([]uint32, 0, len(bags)) // document number -> bag index
	for i, b := range bags {
		if len(s.docs) < maxLen && checkBag(b) > 0 {
			s.Add(uint32(i), b)
			num = append(num, uint32(i))
		}
	}
	s.flush()
	for d, i := range num {
		s.search(bags[i], uint32(d), true, nil, func(e uint32, inter, union uint64) bool {
			a, b := i, num[e]
			if a > b {
				a, b = b, a
			}
			pairs = append(pairs, Pair{A: a, B: b, Sim: float64(inter) / float64(union)})
			return false
		})
	}
	slices.SortFunc(pairs, func(p, q Pair) int {
		if p.A != q.A {
			return int(int64(p.A) - int64(q.A))
		}
		return int(int64(p.B) - int64(q.B))
	})
	return pairs, s.comparisons, nil
}

// Clusters turns the near-duplicate graph on n documents into its connected
// components with union-find and returns, for every document, the smallest
// index in its component: the earliest record, which is the one kept. A
// document without pairs is its own representative.
//
// Transitive closure is what full matching's "clusters" means here: a chain
// a~b~c puts a and c together even if sim(a,c) < tau. Callers wanting only
// direct matches use the pairs (or Best Guess) instead.
func Clusters(n int, pairs []Pair) []uint32 {
	parent := make([]uint32, n)
	for i := range parent {
		parent[i] = uint32(i)
	}
	find := func(x uint32) uint32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]] // path halving
			x = parent[x]
		}
		return x
	}
	for _, p := range pairs {
		if int(p.A) >= n || int(p.B) >= n {
			continue
		}
		a, b := find(p.A), find(p.B)
		// Union by smaller root: the root is always the component's minimum.
		if a < b {
			parent[b] = a
		} else if b < a {
			parent[a] = b
		}
	}
	rep := make([]uint32, n)
	for i := range rep {
		rep[i] = find(uint32(i))
	}
	return rep
}
