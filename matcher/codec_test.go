package matcher

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

func encode(t testing.TB, s *SpotSigs) []byte {
	var buf bytes.Buffer
	n, err := s.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d, %v; wrote %d", n, err, buf.Len())
	}
	return buf.Bytes()
}

// TestSeededRoundTrip: a saved and reloaded index answers every query as the
// original does, and saves to the same bytes.
func TestSeededRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	bags := randomBags(r, 500, 40)
	s, _ := NewSpotSigs(0.7)
	for i, b := range bags[:300] {
		s.Observe(uint32(i*3+1), b, BestGuess)
	}
	data := encode(t, s)
	s2, err := ReadSpotSigs(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if s2.Len() != s.Len() || s2.Tau() != 0.7 || !bytes.Equal(encode(t, s2), data) {
		t.Fatalf("reloaded index differs: %d docs vs %d", s2.Len(), s.Len())
	}
	for _, q := range bags[300:] {
		a, b := s.MatchAll(q, nil), s2.MatchAll(q, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("query differs: %v vs %v", a, b)
		}
	}
	t.Logf("%d documents, %d signatures: %d bytes", s.Len(), s.arenaLen(), len(data))
}

func TestDecodeErrors(t *testing.T) {
	s, _ := NewSpotSigs(0.8)
	s.Add(7, bag(1, 2, 5, 1))
	good := encode(t, s)
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"magic", []byte("WDSX\x01")},
		{"version", []byte("WDSS\x02\x04\x05\x00")},
		{"tau zero", []byte("WDSS\x01\x00\x05\x00")},
		{"tau above one", []byte("WDSS\x01\x06\x05\x00")},
		{"truncated", good[:len(good)-1]},
		{"trailing", append(slices.Clone(good), 0)},
		{"huge doc count", []byte("WDSS\x01\x04\x05\xff\xff\xff\xff\x0f")},
		{"huge entry count", []byte("WDSS\x01\x04\x05\x01\x07\xff\xff\xff\xff\x0f\x01\x01")},
		{"repeated key", []byte("WDSS\x01\x04\x05\x01\x07\x02\x01\x01\x00\x01")},
		{"zero count", []byte("WDSS\x01\x04\x05\x01\x07\x01\x01\x00")},
		{"bad varint", []byte("WDSS\x01\x04\x05\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")},
	}
	for _, tt := range tests {
		if _, err := DecodeSpotSigs(tt.data); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want ErrFormat", tt.name, err)
		}
	}
	if _, err := DecodeSpotSigs(good); err != nil {
		t.Errorf("good: %v", err)
	}
}

// FuzzDecodeSpotSigs: the decoder never panics, and whatever it accepts
// re-encodes to the same bytes (the encoding is canonical) and can be queried.
func FuzzDecodeSpotSigs(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{0, 1, 5, 40} {
		s, _ := NewSpotSigs(0.8)
		for i, b := range randomBags(r, n, 20) {
			s.Add(uint32(i), b)
		}
		f.Add(encode(f, s))
	}
	f.Add([]byte("WDSS\x01\x04\x05\x01\x07\x02\x01\x01\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeSpotSigs(data)
		if err != nil {
			return
		}
		if got := encode(t, s); !bytes.Equal(got, data) {
			// Documents with no entries are dropped on load; anything else differs.
			s2, err := DecodeSpotSigs(got)
			if err != nil || s2.Len() != s.Len() {
				t.Fatalf("re-encoding not stable: %v", err)
			}
		}
		// Every loaded document finds itself at similarity 1.
		for d := range min(s.Len(), 5) {
			if c, ok := s.Match(s.bagOf(uint32(d)), BestGuess); !ok || c.Sim != 1 {
				t.Fatalf("document %d does not find itself: %v %v", d, c, ok)
			}
		}
	})
}

// TestDecodeHostileAllocation: inputs that declare huge counts are refused
// before anything is allocated for them.
func TestDecodeHostileAllocation(t *testing.T) {
	inputs := [][]byte{
		[]byte("WDSS\x01\x04\x05\xff\xff\xff\xff\xff\xff\xff\xff\x7f"),
		[]byte("WDSS\x01\x04\x05\x01\x07\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x01\x01"),
		// A plausible header whose document count is 2^31, then nothing.
		[]byte("WDSS\x01\x04\x05\x80\x80\x80\x80\x08"),
	}
	for _, in := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := DecodeSpotSigs(in); err == nil {
			t.Fatalf("%q accepted", in)
		}
		runtime.ReadMemStats(&after)
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%q: %d bytes allocated", in, n)
		}
	}
}
