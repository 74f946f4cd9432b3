package hexdigit

import (
	"strconv"
	"testing"
)

// TestValue: every byte, against strconv.
func TestValue(t *testing.T) {
	for c := 0; c < 256; c++ {
		v, ok := Value(byte(c))
		want, err := strconv.ParseUint(string(rune(c)), 16, 8)
		if ok != (err == nil) || ok && uint64(v) != want {
			t.Errorf("Value(%q) = %d, %v; want %d, %v", byte(c), v, ok, want, err == nil)
		}
	}
}
