package dedup

import (
	"hash/fnv"
	"math/bits"
	"strconv"

	"github.com/warcdedup/warcdedup/warcio"
)

// idSet remembers the WARC-Record-IDs seen in a run, across its files, to
// find the ones that repeat. WARC 1.1 Sec. 5.2 wants an ID globally unique,
// but real files break it (copies of one crawl, or a tool that reuses IDs
// across files): a revisit's WARC-Refers-To is then ambiguous, and the IDs
// this package derives from a record's ID (NewID) would repeat too.
//
// Each ID is kept as a 64-bit FNV-1a hash, not as the string (47 bytes for
// a urn:uuid), in an open-addressing table of its own: 8 bytes a slot at a
// load between 3/8 and 3/4 after the first growth, so 10.7 to 21.3 bytes a
// record (TestIDSetMemory: 21.0, 12.0 and 16.8 at 100,000, 700,000 and a
// million IDs, the heap no more); a Go map of uint64 keys took 24 to 38
// (its slots are padded to 16 bytes). Two different IDs with one hash are
// expected first after about 2^32 records (the birthday bound); the later
// one then counts as a repeat and gets an ID derived from its position,
// which is still unique and the same on every run.
type idSet struct {
	slots []uint64 // hashes, 0 for an empty slot (a hash of 0 is kept as 1)
	n     int      // slots in use
	// repeats counts the occurrences after the first of the IDs that repeat:
	// rare, so a map of their own instead of a count beside every ID.
	repeats map[uint64]uint32
	// log holds the hash of each ID added since begin, in order, so that a
	// withdrawn file's IDs are forgotten (8 bytes a record of one file).
	log []uint64
}

func newIDSet() *idSet {
	return &idSet{slots: make([]uint64, 1024), repeats: map[uint64]uint32{}}
}

func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// home is the slot where h's probe sequence starts: FNV's high bits, mixed.
func (s *idSet) home(h uint64) int {
	return int((h * 0x9E3779B97F4A7C15) >> (64 - bits.Len(uint(len(s.slots)-1))))
}

// insert adds h and says whether it is new.
func (s *idSet) insert(h uint64) bool {
	mask := len(s.slots) - 1
	for i := s.home(h); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			if 4*s.n > 3*len(s.slots) {
				s.grow()
			}
			return true
		}
	}
}

func (s *idSet) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	mask := len(s.slots) - 1
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := s.home(h)
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

// remove deletes h, which is in the set, by backward shifting (Knuth, TAOCP
// vol. 3, Sec. 6.4, Algorithm R): the entries after it in its cluster that
// may move up do, so no probe sequence is cut and no tombstone is left.
func (s *idSet) remove(h uint64) {
	mask := len(s.slots) - 1
	i := s.home(h)
	for s.slots[i] != h {
		i = (i + 1) & mask
	}
	for j := i; ; {
		s.slots[i] = 0
		for {
			j = (j + 1) & mask
			if s.slots[j] == 0 {
				s.n--
				return
			}
			// The entry at j stays if its home is cyclically in (i, j].
			k := s.home(s.slots[j])
			if (i <= j && i < k && k <= j) || (i > j && (i < k || k <= j)) {
				continue
			}
			s.slots[i] = s.slots[j]
			i = j
			break
		}
	}
}

// add records one occurrence of id and returns how many occurrences came
// before it in the run (0 for an ID not seen yet).
func (s *idSet) add(id string) uint32 {
	h := idHash(id)
	s.log = append(s.log, h)
	if s.insert(h) {
		return 0
	}
	s.repeats[h]++
	return s.repeats[h]
}

// begin starts a new undo log: what was added before can no longer be
// withdrawn.
func (s *idSet) begin() { s.log = s.log[:0] }

// withdraw forgets the occurrences added since begin, latest first: a
// repeat's count goes down before its first occurrence is forgotten.
func (s *idSet) withdraw() {
	for i := len(s.log) - 1; i >= 0; i-- {
		h := s.log[i]
		if n := s.repeats[h]; n > 0 {
			if n == 1 {
				delete(s.repeats, h)
			} else {
				s.repeats[h] = n - 1
			}
			continue
		}
		s.remove(h)
	}
	s.log = s.log[:0]
}

// idBase returns what the IDs of records derived from rec (its revisit, its
// annotation) are made from: its WARC-Record-ID when that is the first of
// its kind in the run, so that outputs stay as they always were; for a
// repeated ID, the ID with the file's name, the record's offset in the
// decompressed stream and the number of the repeat, which tell the
// occurrences apart in a way that does not depend on timing or workers.
func idBase(rec *warcio.Record, file string, repeat uint32) string {
	id := rec.ID()
	if repeat == 0 {
		return id
	}
	b := make([]byte, 0, len(id)+len(file)+32)
	b = append(b, id...)
	b = append(b, 0)
	b = append(b, file...)
	b = append(b, 0)
	b = strconv.AppendInt(b, rec.PlainOffset, 10)
	b = append(b, 0)
	b = strconv.AppendUint(b, uint64(repeat), 10)
	return string(b)
}
