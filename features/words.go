package features

import "encoding/binary"

// gram4Set finds any of a few four-byte strings in a byte string in one
// pass, without a branch that depends on the text at most positions: the
// four bytes at each position are hashed into a bit table, and only a set
// bit (a gram, or one position in 8,000 at random) is compared.
type gram4Set struct {
	bits  [1 << (gramBits - 6)]uint64
	grams []uint32
}

const gramBits = 16

func gramHash(w uint32) uint32 { return (w * 0x9e3779b1) >> (32 - gramBits) }

func newGram4Set(grams ...string) *gram4Set {
	g := new(gram4Set)
	for _, s := range grams {
		if len(s) != 4 {
			panic("features: a gram of a gram4Set is not four bytes")
		}
		w := binary.LittleEndian.Uint32([]byte(s))
		h := gramHash(w)
		g.bits[h>>6] |= 1 << (h & 63)
		g.grams = append(g.grams, w)
	}
	return g
}

// in says whether b holds any of the grams.
func (g *gram4Set) in(b []byte) bool {
	for i := 0; i+4 <= len(b); i++ {
		w := binary.LittleEndian.Uint32(b[i:])
		if h := gramHash(w); g.bits[h>>6]&(1<<(h&63)) != 0 {
			for _, x := range g.grams {
				if x == w {
					return true
				}
			}
		}
	}
	return false
}

// wordSet finds any of a fixed set of ASCII substrings in a byte string in
// one pass: the class and id names of every container element of every page
// are tested against dozens of words (containerNames, consentName), and a
// bytes.Contains for each word cost a tenth of the page analysis. The words
// are grouped by their first byte, so that a position is compared with the
// few words that can start there.
type wordSet struct {
	first [256][]string
	min   int // length of the shortest word
	words []string
}

// newWordSet makes the set of words (non-empty).
func newWordSet(words ...string) *wordSet {
	s := &wordSet{min: 1 << 30}
	for _, w := range words {
		if w == "" {
			panic("features: empty word in a wordSet")
		}
		s.first[w[0]] = append(s.first[w[0]], w)
		s.min = min(s.min, len(w))
	}
	s.words = words
	return s
}

// in says whether b holds any of the words.
func (s *wordSet) in(b []byte) bool {
	for i := 0; i+s.min <= len(b); i++ {
		for _, w := range s.first[b[i]] {
			if len(b)-i >= len(w) && string(b[i:i+len(w)]) == w {
				return true
			}
		}
	}
	return false
}

// classSet scans for the words of several wordSets at once: classes says
// which sets have a word in b, in one pass where asking each set would
// take one pass a set. A container's class and id are read by six sets
// (containerNames), most often to find none of their words. Words are
// found by their first two bytes, so that most positions are passed by
// one table read.
type classSet struct {
	first2 [1 << 16]uint8 // index+1 in lists of the words that start with these two bytes
	lists  [][]classWord
	min    int
}

// classWord is a word and the sets (bit i: the i-th set) that hold it.
type classWord struct {
	w string
	m uint16
}

// newClassSet makes the classSet of sets: bit i of classes is sets[i].
// Words are of two bytes or more.
func newClassSet(sets ...*wordSet) *classSet {
	if len(sets) > 16 {
		panic("features: more than 16 sets in a classSet")
	}
	c := &classSet{min: 1 << 30}
	for i, set := range sets {
	words:
		for _, w := range set.words {
			if len(w) < 2 {
				panic("features: a word of one byte in a classSet")
			}
			k := int(w[0])<<8 | int(w[1])
			if c.first2[k] == 0 {
				if len(c.lists) == 255 {
					panic("features: too many word prefixes in a classSet")
				}
				c.lists = append(c.lists, nil)
				c.first2[k] = uint8(len(c.lists))
			}
			l := &c.lists[c.first2[k]-1]
			for j := range *l {
				if cw := &(*l)[j]; cw.w == w {
					cw.m |= 1 << i
					continue words
				}
			}
			*l = append(*l, classWord{w, 1 << i})
			c.min = min(c.min, len(w))
		}
	}
	return c
}

// classes returns the sets that hold a word found in b.
func (c *classSet) classes(b []byte) uint16 {
	var m uint16
	for i := 0; i+c.min <= len(b); i++ {
		x := c.first2[int(b[i])<<8|int(b[i+1])]
		if x == 0 {
			continue
		}
		for _, cw := range c.lists[x-1] {
			if len(b)-i >= len(cw.w) && string(b[i:i+len(cw.w)]) == cw.w {
				m |= cw.m
			}
		}
	}
	return m
}

// stopTable maps word hashes to their stopword flags (flagStop, flagAnte,
// flagAFAnte): every word of every page is looked up in it, and a Go map's
// lookup, which hashes the key again, took 3.4% of a map task's CPU
// (`warcdedup map --cpuprofile` over a file of the scaled benchmark set).
// The keys are already 64-bit hashes, so their low bits index an
// open-addressing table kept under an eighth full: one probe, most often
// into an empty slot.
type stopTable struct {
	keys []uint64
	vals []uint8
	mask uint64
	zero uint8 // the flags of the hash 0, which marks an empty slot
}

func newStopTable(m map[uint64]uint8) *stopTable {
	n := 64
	for n < 8*len(m) {
		n *= 2
	}
	t := &stopTable{keys: make([]uint64, n), vals: make([]uint8, n), mask: uint64(n - 1)}
	for h, v := range m {
		if h == 0 {
			t.zero = v
			continue
		}
		i := h & t.mask
		for t.keys[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.vals[i] = h, v
	}
	return t
}

// get returns the flags of the word hash h, 0 for a word of no list.
func (t *stopTable) get(h uint64) uint8 {
	if h == 0 {
		return t.zero
	}
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case h:
			return t.vals[i]
		case 0:
			return 0
		}
	}
}
