package dedup

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestIDSet: the table agrees with a map through inserts, repeats and
// withdrawals of the latest IDs, across growth of the table (withdrawal after
// growth moves entries by backward shifting, which must keep every probe
// sequence whole).
func TestIDSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := newIDSet()
	model := map[string]uint32{} // occurrences so far
	var ids []string
	for round := range 40 {
		s.begin()
		before := make(map[string]uint32, len(model))
		for k, v := range model {
			before[k] = v
		}
		n := rng.IntN(3000)
		for range n {
			var id string
			if len(ids) > 0 && rng.IntN(10) == 0 {
				id = ids[rng.IntN(len(ids))] // a repeat
			} else {
				id = fmt.Sprintf("<urn:uuid:%d-%d>", round, rng.Uint64())
				ids = append(ids, id)
			}
			if got := s.add(id); got != model[id] {
				t.Fatalf("round %d: add(%s) = %d, want %d", round, id, got, model[id])
			}
			model[id]++
		}
		if rng.IntN(3) == 0 {
			s.withdraw()
			model = before
		}
		if s.n != len(model) {
			t.Fatalf("round %d: %d in the table, want %d", round, s.n, len(model))
		}
	}
	// Every ID still in the model is found with its count; withdrawn ones
	// are new again.
	s.begin()
	for _, id := range ids {
		if got := s.add(id); got != model[id] {
			t.Fatalf("after the rounds: add(%s) = %d, want %d", id, got, model[id])
		}
		model[id]++
	}
}

// TestIDSetMemory: the table's bytes a record, as the idSet comment says
// (10.7 to 21.3, by the load), at sizes on both sides of a growth, and the
// heap it takes is the table: no hidden cost a record.
func TestIDSetMemory(t *testing.T) {
	for _, n := range []int{100_000, 700_000, 1_000_000} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := newIDSet()
		for i := range n {
			s.insert(idHash(fmt.Sprint(i)))
		}
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&after)
		table := float64(8*len(s.slots)) / float64(n)
		heap := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
		t.Logf("%d IDs: table %.1f bytes each, heap %.1f", n, table, heap)
		if table < 10.6 || table > 21.4 {
			t.Errorf("%d IDs: the table takes %.1f bytes each, want 10.7 to 21.3", n, table)
		}
		if heap > table+1 {
			t.Errorf("%d IDs: %.1f bytes each on the heap, %.1f in the table", n, heap, table)
		}
		runtime.KeepAlive(s)
	}
}
