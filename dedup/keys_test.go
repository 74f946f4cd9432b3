package dedup

import (
	"cmp"
	"math/rand/v2"
	"testing"
	"time"
)

// TestKeysSort: record keys compare in byte order as the records' places in
// a run do (first dates, files without one last, positions, offsets), for
// dates with and without fractions of a second and numbers of every width;
// offsets read back from the keys.
func TestKeysSort(t *testing.T) {
	type place struct {
		dated    bool
		date     time.Time
		pos, off uint64
	}
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	num := func() uint64 { return rng.Uint64() >> rng.IntN(64) }
	random := func() place {
		p := place{dated: rng.IntN(8) > 0, pos: num() % 64, off: num() >> 1}
		if p.dated {
			p.date = base.Add(time.Duration(rng.IntN(3)) * time.Second)
			switch rng.IntN(3) {
			case 1:
				p.date = p.date.Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
			case 2:
				p.date = p.date.Add(time.Duration(rng.IntN(1e9)))
			}
		}
		return p
	}
	order := func(a, b place) int {
		if a.dated != b.dated {
			if a.dated {
				return -1
			}
			return 1
		}
		return cmp.Or(a.date.Compare(b.date), cmp.Compare(a.pos, b.pos), cmp.Compare(a.off, b.off))
	}
	key := func(p place) string { return RecordKey(FileKey(p.date, p.dated, p.pos), int64(p.off)) }
	for range 200000 {
		a, b := random(), random()
		ka, kb := key(a), key(b)
		if want, got := order(a, b), cmp.Compare(ka, kb); want != got {
			t.Fatalf("%+v and %+v: keys %q and %q compare %d, the places %d", a, b, ka, kb, got, want)
		}
		if off, ok := offsetOf(ka); !ok || uint64(off) != a.off {
			t.Fatalf("offsetOf(%q) = %d, %v, want %d", ka, off, ok, a.off)
		}
	}
	for _, bad := range []string{"x", "f:", "f:a", "f:b0f", "f:b0", "f:q1", "f:aG", "f:p8000000000000000"} {
		if off, ok := offsetOf(bad); ok {
			t.Errorf("offsetOf(%q) = %d, want no offset", bad, off)
		}
	}
	if k := FileKey(base.Add(1500*time.Millisecond), true, 3); k != "020260302060001.5-a3" {
		t.Errorf("FileKey = %q", k)
	}
}
