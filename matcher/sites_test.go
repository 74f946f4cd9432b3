package matcher

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestSites: pages match only pages of their own site.
func TestSites(t *testing.T) {
	s, err := NewSites(0.8)
	if err != nil {
		t.Fatal(err)
	}
	a := bag(1, 5, 2, 4, 3, 4)
	if _, ok := s.Observe("example.com", 1, a, BestGuess); ok {
		t.Fatal("first page matched")
	}
	if _, ok := s.Observe("example.org", 2, a, BestGuess); ok {
		t.Fatal("matched across sites")
	}
	if c, ok := s.Observe("example.com", 3, a, BestGuess); !ok || c.ID != 1 || c.Sim != 1 {
		t.Fatalf("same site: %v %v", c, ok)
	}
	s.Observe("empty.net", 4, nil, BestGuess)
	if s.Len() != 2 || s.Index("example.com").Len() != 1 || s.Comparisons() != 1 {
		t.Fatalf("%d sites, %d comparisons", s.Len(), s.Comparisons())
	}
	if _, err := NewSites(2); err == nil {
		t.Fatal("tau 2 accepted")
	}
}

// TestSitesSmall measures what a site with one page costs, beyond its
// signatures, so that a crawl of many small sites stays cheap.
func TestSitesSmall(t *testing.T) {
	const sites, sigs = 2000, 150
	r := rand.New(rand.NewPCG(1, 2))
	bags := make([][]uint64, sites)
	for i := range bags {
		for range sigs {
			bags[i] = append(bags[i], r.Uint64())
		}
	}
	before := heapBytes()
	s, _ := NewSites(0.8)
	for i := range sites {
		b := bagOfKeys(bags[i])
		s.Observe(fmt.Sprint("site", i), uint32(i), b, BestGuess)
	}
	per := float64(heapBytes()-before) / sites
	runtime.KeepAlive(bags)
	runtime.KeepAlive(s)
	over := per - 12*sigs
	t.Logf("one-page site with %d signatures: %.0f B, %.0f B beyond the signatures", sigs, per, over)
	if over > 2048 {
		t.Errorf("one-page site index costs %.0f B beyond its signatures", over)
	}
}
