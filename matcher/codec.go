package matcher

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/warcdedup/warcdedup/features"
)

// Seeded matching (Stanford report, Sec. 3.3.4) loads an index of known pages
// before a run; incremental matching then proceeds from it. The index is saved
// as the documents' bags, not as the hash table and lists: those are rebuilt
// by Add on load, which keeps the format small, independent of the in-memory
// layout, and impossible to load into an inconsistent index.
//
// Format, all integers unsigned varints (encoding/binary):
//
//	"WDSS" version(1 byte, = 1)
//	tau numerator, tau denominator
//	number of documents
//	per document: id, number of entries n, then n times (key delta, count)
//
// Key deltas are from the previous key of the same document (the first from
// 0) and must be positive after the first, so keys are strictly increasing as
// a features.Bag requires; counts are at least 1.

const (
	codecMagic   = "WDSS"
	codecVersion = 1
)

// ErrFormat is wrapped by every error ReadSpotSigs returns for malformed input.
var ErrFormat = errors.New("matcher: malformed SpotSigs index")

// WriteTo writes the index in the seeded-matching format to w. It implements
// io.WriterTo.
func (s *SpotSigs) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	var buf [binary.MaxVarintLen64]byte
	put := func(v uint64) {
		k := binary.PutUvarint(buf[:], v)
		bw.Write(buf[:k]) // error is sticky in bufio.Writer; checked by Flush
		n += int64(k)
	}
	bw.WriteString(codecMagic)
	bw.WriteByte(codecVersion)
	n += int64(len(codecMagic) + 1)
	put(s.tau.num)
	put(s.tau.den)
	put(uint64(len(s.docs)))
	var b features.Bag
	for d, dc := range s.docs {
		b = s.AppendBag(b[:0], d)
		put(uint64(dc.id))
		put(uint64(len(b)))
		var prev uint64
		for _, e := range b {
			put(e.Key - prev)
			prev = e.Key
			put(uint64(e.N))
		}
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	return n, nil
}

// ReadSpotSigs reads an index written by WriteTo, to the end of r. Hostile
// input cannot make it allocate more than a small multiple of its own size:
// every declared count is checked against the bytes that remain (an entry
// takes at least two) before anything is allocated for it.
func ReadSpotSigs(r io.Reader) (*SpotSigs, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return DecodeSpotSigs(data)
}

// DecodeSpotSigs is ReadSpotSigs on a byte slice.
func DecodeSpotSigs(data []byte) (*SpotSigs, error) {
	if len(data) < len(codecMagic)+1 || string(data[:len(codecMagic)]) != codecMagic {
		return nil, fmt.Errorf("%w: no %q header", ErrFormat, codecMagic)
	}
	if v := data[len(codecMagic)]; v != codecVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrFormat, v, codecVersion)
	}
	d := decoder{data: data, off: len(codecMagic) + 1}
	num, den := d.uvarint(), d.uvarint()
	if d.err != nil {
		return nil, d.err
	}
	if num == 0 || num > den || den > 1<<62 {
		return nil, fmt.Errorf("%w: threshold %d/%d", ErrFormat, num, den)
	}
	s := &SpotSigs{tau: ratio{num, den}}
	s.bounds = partitionBounds(s.tau)
	ndocs := d.count(2)
	var b features.Bag
	for range ndocs {
		id := d.uvarint()
		n := d.count(2)
		if d.err != nil {
			return nil, d.err
		}
		if id > maxLen {
			return nil, d.fail("id %d out of range", id)
		}
		b = b[:0]
		var key, l uint64
		for i := range n {
			delta, c := d.uvarint(), d.uvarint()
			if d.err != nil {
				return nil, d.err
			}
			if i > 0 && delta == 0 || key+delta < key {
				return nil, d.fail("keys not strictly increasing")
			}
			if c == 0 || c > maxLen {
				return nil, d.fail("count %d out of range", c)
			}
			key += delta
			l += c
			if l > maxLen {
				return nil, d.fail("document too long")
			}
			b = append(b, features.Entry{Key: key, N: uint32(c)})
		}
		if uint64(s.arenaLen())+uint64(len(b)) > maxArena {
			return nil, d.fail("too many entries")
		}
		s.Add(uint32(id), b)
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.off != len(d.data) {
		return nil, d.fail("%d trailing bytes", len(d.data)-d.off)
	}
	return s, nil
}

type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail(format string, args ...any) error {
	if d.err == nil {
		d.err = fmt.Errorf("%w at byte %d: %s", ErrFormat, d.off, fmt.Sprintf(format, args...))
	}
	return d.err
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.data[d.off:])
	if k <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.off += k
	return v
}

// count reads a number of items each taking at least size bytes, and fails if
// the rest of the input cannot hold that many: the allocation bound.
func (d *decoder) count(size int) uint64 {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.data)-d.off)/uint64(size) {
		d.fail("count %d exceeds input", v)
		return 0
	}
	return v
}
