package matcher

import (
	"errors"
	"math/bits"
	"slices"
)

// Hit is a stored simhash fingerprint within the query's Hamming radius: the
// caller's id and the number of differing bits.
type Hit struct {
	ID   uint32
	Dist int
}

// Henzinger (SIGIR 2006, Sec. 2 and 3.3) calls two pages C-similar when at
// least t = 372 of their b = 384 simhash bits agree: Hamming distance <= 12.
const (
	// DefaultK384 is the Hamming radius for 384-bit fingerprints, 384 - 372.
	DefaultK384 = 12
	// DefaultK64 is a common radius for 64-bit fingerprints (Manku, Jain and
	// Das Sarma, WWW 2007: 3 of 64 bits on 8 billion pages).
	DefaultK64 = 3
)

// Simhash64 finds all stored 64-bit simhash fingerprints within Hamming
// distance k of a query, exactly.
//
// Pigeonhole: split the bits into k+1 disjoint pieces; two fingerprints that
// differ in at most k bits agree on at least one piece, so looking up each of
// the query's k+1 pieces in a table of stored pieces finds every fingerprint
// within distance k, and the full distance is then checked. This is Manku et
// al.'s scheme with one table per piece (no permuted copies of the
// fingerprints: the tables hold only fingerprint numbers).
//
// Memory, measured by TestSimhashMemory (runtime.MemStats, 2^20 fingerprints):
// 49 bytes per fingerprint for k = 3 with the bucket tables full, 65 just after
// they doubled; fingerprint (8) and id (4) included.
//
// A radius that would make pieces narrower than 10 bits (k >= 6 here, k >= 38
// for Simhash384) selects nothing, and the index then scans every stored
// fingerprint instead: still exact, O(N) per query, no tables.
//
// Not safe for concurrent use.
type Simhash64 struct{ h hamming }

// NewSimhash64 returns an empty index with radius k in [0, 63].
func NewSimhash64(k int) (*Simhash64, error) {
	s := &Simhash64{}
	return s, s.h.init(1, k)
}

// Add stores fp under the caller's id.
func (s *Simhash64) Add(id uint32, fp uint64) { s.h.add(id, []uint64{fp}) }

// Query appends every stored fingerprint within distance k of fp to dst, by
// ascending distance then id, and returns the extended slice.
func (s *Simhash64) Query(fp uint64, dst []Hit) []Hit { return s.h.query([]uint64{fp}, dst) }

// Len is the number of stored fingerprints.
func (s *Simhash64) Len() int { return len(s.h.ids) }

// K is the Hamming radius.
func (s *Simhash64) K() int { return s.h.k }

// Simhash384 is Simhash64 for Henzinger's 384-bit fingerprints (SIGIR 2006,
// b = 384). Henzinger (Sec. 3.3) found candidates with 12 pieces of 32 bits,
// which
// guarantees only pairs with at most 11 differing bits; with the default
// k = 12 this index uses 13 pieces (29 or 30 bits), so pairs that differ in
// exactly 12 bits (372 agreeing, C-similar) are found too.
//
// Memory, measured by TestSimhashMemory (runtime.MemStats, 2^20 fingerprints):
// 162 to 214 bytes per fingerprint for k = 12 (tables full / just doubled),
// of which 48 are the fingerprint and 4 the id.
type Simhash384 struct{ h hamming }

// NewSimhash384 returns an empty index with radius k in [0, 383].
func NewSimhash384(k int) (*Simhash384, error) {
	s := &Simhash384{}
	return s, s.h.init(6, k)
}

// Add stores fp under the caller's id.
func (s *Simhash384) Add(id uint32, fp [6]uint64) { s.h.add(id, fp[:]) }

// Query appends every stored fingerprint within distance k of fp to dst, by
// ascending distance then id, and returns the extended slice.
func (s *Simhash384) Query(fp [6]uint64, dst []Hit) []Hit { return s.h.query(fp[:], dst) }

// Len is the number of stored fingerprints.
func (s *Simhash384) Len() int { return len(s.h.ids) }

// K is the Hamming radius.
func (s *Simhash384) K() int { return s.h.k }

// hamming is the index behind both types: fingerprints of `words` 64-bit
// words stored flat, and per piece a chained hash table (head per bucket,
// next per fingerprint) over the piece's value. Chaining through a next array
// costs 4 bytes per fingerprint and piece plus the heads, about half of what a
// map from piece to slice of ids would.
type hamming struct {
	words, k int
	pieces   []piece
	fps      []uint64 // fingerprint i is fps[i*words : (i+1)*words]
	ids      []uint32
	heads    [][]uint32 // per piece, per bucket: fingerprint number + 1, 0 = empty
	next     [][]uint32 // per piece, per fingerprint: next in the bucket's chain
	shift    uint
	mark     []uint32 // per fingerprint: query generation it was last checked in
	gen      uint32
	scan     bool // radius too large for pieces to select anything: scan all
}

// minPieceBits is the narrowest piece worth a table. A piece of w bits
// matches a random fingerprint with probability 2^-w, so with k+1 pieces a
// query meets about (k+1)*N/2^w fingerprints; below 10 bits (k+1 > 38 pieces
// for 384 bits, k+1 > 6 for 64) that is more than N and a plain scan over
// all fingerprints (6 popcounts each) is both faster and exact without tables.
const minPieceBits = 10

type piece struct{ start, width uint }

var errK = errors.New("matcher: Hamming radius out of range")

func (h *hamming) init(words, k int) error {
	bitsTotal := 64 * words
	if k < 0 || k >= bitsTotal {
		return errK
	}
	h.words, h.k = words, k
	// k+1 pieces as equal as possible. A piece wider than 64 bits (small k on
	// 384 bits) is looked up by its first 64 bits only: agreeing on a piece
	// implies agreeing on a part of it, so the guarantee stands, and every
	// candidate's full distance is checked anyway.
	n := k + 1
	start := 0
	for i := range n {
		w := bitsTotal / n
		if i < bitsTotal%n {
			w++
		}
		h.pieces = append(h.pieces, piece{uint(start), uint(min(w, 64))})
		start += w
	}
	if bitsTotal/n < minPieceBits {
		h.scan = true
		h.pieces = nil
	}
	h.heads = make([][]uint32, len(h.pieces))
	h.next = make([][]uint32, len(h.pieces))
	return nil
}

// value extracts a piece of fingerprint fp.
func (p piece) value(fp []uint64) uint64 {
	i, off := p.start/64, p.start%64
	v := fp[i] >> off
	if off+p.width > 64 {
		v |= fp[i+1] << (64 - off)
	}
	if p.width < 64 {
		v &= 1<<p.width - 1
	}
	return v
}

func (h *hamming) bucket(v uint64) uint64 { return hashSlot(v, h.shift) }

func (h *hamming) add(id uint32, fp []uint64) {
	if len(h.ids) >= maxLen-1 {
		panic("matcher: simhash index full")
	}
	n := uint32(len(h.ids))
	h.fps = append(h.fps, fp...)
	h.ids = append(h.ids, id)
	if h.scan {
		return
	}
	h.mark = append(h.mark, 0)
	if len(h.ids) > len(h.heads[0]) { // keep at most one fingerprint per bucket on average
		h.rehash(max(16, 2*len(h.heads[0])))
		return
	}
	for j, p := range h.pieces {
		b := h.bucket(p.value(fp))
		h.next[j] = append(h.next[j], h.heads[j][b])
		h.heads[j][b] = n + 1
	}
}

func (h *hamming) rehash(size int) {
	h.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for j, p := range h.pieces {
		head := make([]uint32, size)
		next := slices.Grow(h.next[j][:0], len(h.ids)-len(h.next[j][:0]))[:len(h.ids)]
		for i := range h.ids {
			b := h.bucket(p.value(h.fps[i*h.words : (i+1)*h.words]))
			next[i] = head[b]
			head[b] = uint32(i) + 1
		}
		h.heads[j], h.next[j] = head, next
	}
}

func (h *hamming) dist(i uint32, fp []uint64) int {
	d := 0
	for w, x := range h.fps[int(i)*h.words : (int(i)+1)*h.words] {
		d += bits.OnesCount64(x ^ fp[w])
	}
	return d
}

func (h *hamming) query(fp []uint64, dst []Hit) []Hit {
	if len(h.ids) == 0 {
		return dst
	}
	n0 := len(dst)
	if h.scan {
		if h.words == 6 {
			q := [6]uint64(fp)
			for i, id := range h.ids {
				x := [6]uint64(h.fps[6*i : 6*i+6])
				d := bits.OnesCount64(x[0]^q[0]) + bits.OnesCount64(x[1]^q[1]) +
					bits.OnesCount64(x[2]^q[2]) + bits.OnesCount64(x[3]^q[3]) +
					bits.OnesCount64(x[4]^q[4]) + bits.OnesCount64(x[5]^q[5])
				if d <= h.k {
					dst = append(dst, Hit{ID: id, Dist: d})
				}
			}
		} else {
			for i, id := range h.ids {
				if d := h.dist(uint32(i), fp); d <= h.k {
					dst = append(dst, Hit{ID: id, Dist: d})
				}
			}
		}
		sortHits(dst[n0:])
		return dst
	}
	h.gen++
	if h.gen == 0 {
		clear(h.mark)
		h.gen = 1
	}
	for j, p := range h.pieces {
		v := p.value(fp)
		for e := h.heads[j][h.bucket(v)]; e != 0; e = h.next[j][e-1] {
			i := e - 1
			if h.mark[i] == h.gen {
				continue
			}
			h.mark[i] = h.gen
			if d := h.dist(i, fp); d <= h.k {
				dst = append(dst, Hit{ID: h.ids[i], Dist: d})
			}
		}
	}
	sortHits(dst[n0:])
	return dst
}

func sortHits(h []Hit) {
	slices.SortFunc(h, func(a, b Hit) int {
		if a.Dist != b.Dist {
			return a.Dist - b.Dist
		}
		return int(int64(a.ID) - int64(b.ID))
	})
}
