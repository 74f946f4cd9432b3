package features

import "testing"

// TestSharedKeys: distinct common keys, whatever their counts, against the
// multi-set intersection, which sums the smaller counts.
func TestSharedKeys(t *testing.T) {
	a := Bag{{Key: 1, N: 3}, {Key: 4, N: 1}, {Key: 9, N: 2}}
	for _, tc := range []struct {
		name         string
		b            Bag
		shared, both int
	}{
		{"empty", nil, 0, 0},
		{"disjoint", Bag{{Key: 2, N: 1}, {Key: 10, N: 5}}, 0, 0},
		{"repeated sentence counts once", Bag{{Key: 1, N: 2}}, 1, 2},
		{"all keys", Bag{{Key: 1, N: 1}, {Key: 4, N: 4}, {Key: 9, N: 2}}, 3, 4},
		{"interleaved", Bag{{Key: 0, N: 1}, {Key: 4, N: 1}, {Key: 5, N: 1}, {Key: 9, N: 7}}, 2, 3},
	} {
		if got := SharedKeys(a, tc.b); got != tc.shared {
			t.Errorf("%s: SharedKeys %d, want %d", tc.name, got, tc.shared)
		}
		if got := SharedKeys(tc.b, a); got != tc.shared {
			t.Errorf("%s: SharedKeys reversed %d, want %d", tc.name, got, tc.shared)
		}
		if got := Intersection(a, tc.b); got != tc.both {
			t.Errorf("%s: Intersection %d, want %d", tc.name, got, tc.both)
		}
	}
}
