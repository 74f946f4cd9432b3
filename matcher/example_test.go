package matcher_test

import (
	"fmt"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
)

// The worked example of SIGIR 2008, Sec. 4.3: with tau = 0.8, d1 matches d3
// at exactly 12/15, found with one Jaccard computation.
func ExampleSpotSigs_Observe() {
	d1 := features.Bag{{Key: 1, N: 5}, {Key: 2, N: 4}, {Key: 3, N: 4}}
	d2 := features.Bag{{Key: 1, N: 8}, {Key: 2, N: 4}}
	d3 := features.Bag{{Key: 1, N: 4}, {Key: 2, N: 5}, {Key: 3, N: 5}}
	ix, err := matcher.NewSpotSigs(0.8)
	if err != nil {
		panic(err)
	}
	for id, d := range []features.Bag{d2, d3, d1} {
		c, dup := ix.Observe(uint32(id), d, matcher.BestGuess)
		fmt.Println(id, dup, c.ID, c.Sim)
	}
	fmt.Println("indexed:", ix.Len(), "Jaccard computations:", ix.Comparisons())
	// Output:
	// 0 false 0 0
	// 1 false 0 0
	// 2 true 1 0.8
	// indexed: 2 Jaccard computations: 1
}

// Full matching: the near-duplicate graph and its clusters, each represented
// by its earliest page.
func ExampleClusters() {
	bags := []features.Bag{
		{{Key: 1, N: 5}, {Key: 2, N: 5}},
		{{Key: 7, N: 1}},
		{{Key: 1, N: 5}, {Key: 2, N: 4}},
		{{Key: 1, N: 4}, {Key: 2, N: 4}},
	}
	pairs, _, err := matcher.AllPairs(0.8, bags)
	if err != nil {
		panic(err)
	}
	fmt.Println(pairs)
	fmt.Println(matcher.Clusters(len(bags), pairs))
	// Output:
	// [{0 2 0.9} {0 3 0.8} {2 3 0.8888888888888888}]
	// [0 1 0 0]
}

// A 384-bit simhash index finds a page whose fingerprint differs in exactly
// 12 bits: C-similar in Henzinger's sense (372 of 384 bits agree).
func ExampleSimhash384() {
	ix, err := matcher.NewSimhash384(matcher.DefaultK384)
	if err != nil {
		panic(err)
	}
	a := [6]uint64{0xdeadbeef, 1, 2, 3, 4, 5}
	ix.Add(42, a)
	b := a
	b[0] ^= 0xfff // 12 bits
	fmt.Println(ix.Query(b, nil))
	b[1] ^= 1 // 13 bits
	fmt.Println(ix.Query(b, nil))
	// Output:
	// [{42 12}]
	// []
}
