package near

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/warcdedup/warcdedup/features"
)

// TestPageBinaryGolden holds the binary form to its layout byte for byte: a
// change of layout must change pageVersion, and this test with it.
func TestPageBinaryGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		page Page
		hex  string
	}{
		{"empty", Page{}, "02" + "00" + "00" + "00" + "0000000000000000"},
		{"spots and bigrams", Page{Ref: 300, Site: "ab.com", URL: 0x0102030405060708, Unlikely: true,
			Spots:   features.Bag{{Key: 5, N: 1}, {Key: 7, N: 2}, {Key: 1 << 31, N: 1}},
			Bigrams: features.Bag{{Key: 9, N: 3}}},
			"02" + "0b" + "ac02" + "06" + "61622e636f6d" + "0807060504030201" +
				"03" + "0a" + "0502" + "f2ffffff0f" + "01" + "1303"},
		{"af", Page{Ref: 1, Site: "s", URL: 1, AF: features.Bag{{Key: 1, N: 1}}},
			"02" + "04" + "01" + "01" + "73" + "0100000000000000" + "01" + "02"},
		{"henzinger", Page{Site: "s", Henzinger: true, Shingles: [6]uint64{1}, Sim384: [6]uint64{0: 2, 5: 3}},
			"02" + "10" + "00" + "01" + "73" + "0000000000000000" +
				"0100000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000" +
				"0200000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0000000000000000" + "0300000000000000"},
		{"shop", Page{Ref: 2, Site: "s", URL: 1, Shop: true, Spots: features.Bag{{Key: 1, N: 1}}},
			"02" + "22" + "02" + "01" + "73" + "0100000000000000" + "01" + "02"},
		{"whole", Page{Ref: 1, Site: "s", URL: 1, Whole: true, Bigrams: features.Bag{{Key: 1, N: 1}}},
			"02" + "48" + "01" + "01" + "73" + "0100000000000000" + "01" + "02"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.page.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b); got != tc.hex {
				t.Fatalf("binary form\n got %s\nwant %s", got, tc.hex)
			}
			var p Page
			if err := p.UnmarshalBinary(b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, tc.page) {
				t.Fatalf("read back %+v, want %+v", p, tc.page)
			}
		})
	}
}

func randomBag(r *rand.Rand, n int) features.Bag {
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = uint64(r.Uint32())
	}
	return features.BagOf(keys)
}

// TestPageRoundTrip: pages of every shape read back equal, one after another
// in one buffer as an index file holds them.
func TestPageRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pages []Page
	var buf []byte
	for i := range 500 {
		p := Page{Ref: r.Uint32(), Site: string(rune('a' + i%26)), URL: r.Uint64(), Unlikely: i%3 == 0, Shop: i%4 == 0}
		if i%2 == 0 {
			p.Spots = randomBag(r, 1+r.IntN(200))
		}
		if i%5 == 0 {
			p.AF = randomBag(r, 1+r.IntN(50))
		}
		if i%7 == 0 {
			p.Bigrams = randomBag(r, 1+r.IntN(30))
			p.Whole = i%3 == 1
		}
		if i%11 == 0 {
			p.Henzinger = true
			for j := range 6 {
				p.Shingles[j], p.Sim384[j] = r.Uint64(), r.Uint64()
			}
		}
		var err error
		if buf, err = p.AppendBinary(buf); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	rest := buf
	for i, want := range pages {
		p, next, err := DecodePage(rest)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if !reflect.DeepEqual(*p, want) {
			t.Fatalf("page %d: read back %+v, want %+v", i, *p, want)
		}
		rest = next
	}
	if len(rest) != 0 {
		t.Fatalf("%d bytes left", len(rest))
	}
	// About 4 bytes a signature: among 200 random 32-bit keys, a delta
	// (shifted by the count's flag) takes 4 bytes, and a count of 1 none.
	p := Page{Site: "example.com", Spots: randomBag(r, 200)}
	b, _ := p.MarshalBinary()
	if per := float64(len(b)) / 200; per > 4.1 {
		t.Errorf("%.2f bytes a signature in a page of 200", per)
	}
}

func TestPageBinaryRefused(t *testing.T) {
	good, _ := (&Page{Site: "s", Spots: bagOf(1, 2, 3)}).MarshalBinary()
	for _, tc := range []struct {
		name    string
		data    []byte
		version bool
	}{
		{"empty", nil, false},
		{"other version", append([]byte{1}, good[1:]...), true},
		{"unknown flag", append([]byte{PageFormat, 0x80}, good[2:]...), false},
		{"cut short", good[:len(good)-1], false},
		{"trailing byte", append(append([]byte{}, good...), 0), false},
		{"repeated key", []byte{PageFormat, flagSpots, 0, 1, 's', 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0}, false},
		{"count of 1 written", []byte{PageFormat, flagSpots, 0, 1, 's', 0, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p Page
			err := p.UnmarshalBinary(tc.data)
			if err == nil {
				t.Fatal("accepted")
			}
			if errors.Is(err, ErrVersion) != tc.version {
				t.Errorf("error %v: version error %v, want %v", err, errors.Is(err, ErrVersion), tc.version)
			}
		})
	}
	if _, err := (&Page{Spots: features.Bag{{Key: 2, N: 1}, {Key: 1, N: 1}}}).MarshalBinary(); err == nil {
		t.Error("an unsorted bag was written")
	}
}

// FuzzPage: any bytes either are refused or read as a page whose binary
// form reads back as the same page.
func FuzzPage(f *testing.F) {
	for _, p := range []Page{{}, {Ref: 7, Site: "x.org", Spots: bagOf(1, 9), Bigrams: bagOf(4)}, {Henzinger: true}, {Site: "y.org", Bigrams: bagOf(3, 5), Whole: true}} {
		b, _ := p.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, rest, err := DecodePage(data)
		if err != nil {
			return
		}
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("a page read could not be written: %v", err)
		}
		q, rest2, err := DecodePage(b)
		if err != nil || len(rest2) != 0 || !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip: %v, %+v vs %+v", err, p, q)
		}
		if !bytes.HasSuffix(data, rest) {
			t.Fatal("rest is not the tail of the data")
		}
	})
}
