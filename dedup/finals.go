package dedup

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/warcdedup/warcdedup/near"
)

// finalStore holds what became of each replaced page in the resolve round
// (its match with the kept page it points at, as settle made it) in a
// temporary file, unlinked at once, and only a 16-byte key of the page's
// record key and the match's offset in memory: about 50 bytes a replaced
// page where the matches themselves took 840 (kept page's URI, ID, date,
// digests, entity fields), so that one resolve task holds a petabyte's
// replaced pages (docs/scale.md). A match is read back only when a later
// page points at its page; a key's match is checked against the record key
// written with it.
type finalStore struct {
	tempLog
	at  map[digestKey]int64
	buf []byte
	err error // sticky
}

func newFinalStore(dir string) *finalStore {
	return &finalStore{tempLog: tempLog{dir: dir}, at: map[digestKey]int64{}}
}

func (s *finalStore) fail(err error) error {
	if s.err == nil {
		s.err = fmt.Errorf("dedup: the resolve round's store of replaced pages: %w", err)
	}
	return s.err
}

// has says whether the page of record key k was replaced.
func (s *finalStore) has(k string) bool {
	_, ok := s.at[keyOf(k)]
	return ok
}

// put records the match the page of record key k was replaced by.
func (s *finalStore) put(k string, m *match) error {
	if s.err != nil {
		return s.err
	}
	// Each entry is prefixed with its length, to be read back whole.
	s.buf = appendMatch(appendString(s.buf[:0], k), m)
	var head [binary.MaxVarintLen64]byte
	off := s.size
	if err := s.append("warcdedup-resolve-*", binary.AppendUvarint(head[:0], uint64(len(s.buf)))); err != nil {
		return s.fail(err)
	}
	if err := s.append("warcdedup-resolve-*", s.buf); err != nil {
		return s.fail(err)
	}
	s.at[keyOf(k)] = off
	return nil
}

// get returns the match the page of record key k was replaced by, if it
// was.
func (s *finalStore) get(k string) (*match, bool, error) {
	off, ok := s.at[keyOf(k)]
	if !ok {
		return nil, false, nil
	}
	if s.err != nil {
		return nil, false, s.err
	}
	head := make([]byte, min(binary.MaxVarintLen64, s.size-off))
	if err := s.readAt(head, off); err != nil {
		return nil, false, s.fail(err)
	}
	l, n := binary.Uvarint(head)
	if n <= 0 || l > uint64(s.size-off-int64(n)) {
		return nil, false, s.fail(errCut)
	}
	b := make([]byte, l)
	if err := s.readAt(b, off+int64(n)); err != nil {
		return nil, false, s.fail(err)
	}
	r := decoder{b: b}
	if got := r.string(); r.err == nil && got != k {
		return nil, false, s.fail(fmt.Errorf("entry of %q read for %q", got, k))
	}
	m := readMatch(&r)
	if r.err == nil && len(r.b) != 0 {
		r.fail(fmt.Errorf("%d bytes after an entry", len(r.b)))
	}
	if r.err != nil {
		return nil, false, s.fail(r.err)
	}
	return m, true, nil
}

// close releases the file.
func (s *finalStore) close() error {
	s.at = map[digestKey]int64{}
	return s.tempLog.close()
}

// appendMatch appends every field of m: a page that follows a replaced
// one (an exact copy of it) takes its match whole, report fields included.
func appendMatch(b []byte, m *match) []byte {
	k := &m.kept
	for _, v := range [...]string{k.id, k.uri, k.date, k.digest, k.computed, k.file, k.entity, m.keptDigest,
		m.Method, string(m.Relation), m.Reason} {
		b = appendString(b, v)
	}
	b = append(b, k.sha256[:]...)
	b = binary.AppendVarint(b, k.offset)
	var flags byte
	for i, on := range [...]bool{k.bare, k.seed, m.SameURL, m.Shop} {
		if on {
			flags |= 1 << i
		}
	}
	b = append(b, flags, byte(m.Contain))
	b = binary.AppendUvarint(b, uint64(m.Ref))
	for _, v := range [...]int{m.Shared, m.Sigs, m.KeptSigs, m.Own} {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Similarity))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Share))
}

// readMatch reads what appendMatch wrote.
func readMatch(r *decoder) *match {
	m := &match{}
	k := &m.kept
	for _, p := range [...]*string{&k.id, &k.uri, &k.date, &k.digest, &k.computed, &k.file, &k.entity, &m.keptDigest, &m.Method} {
		*p = r.string()
	}
	m.Relation = near.Relation(r.string())
	m.Reason = r.string()
	copy(k.sha256[:], r.bytes(uint64(len(k.sha256))))
	k.offset = r.varint()
	flags := r.byte()
	k.bare, k.seed, m.SameURL, m.Shop = flags&1 != 0, flags&2 != 0, flags&4 != 0, flags&8 != 0
	m.Contain = near.Containment(r.byte())
	if ref := r.uvarint(); ref > math.MaxUint32 {
		r.fail(fmt.Errorf("page reference %d out of range", ref))
	} else {
		m.Ref = uint32(ref)
	}
	for _, p := range [...]*int{&m.Shared, &m.Sigs, &m.KeptSigs, &m.Own} {
		*p = int(r.varint())
	}
	m.Similarity = r.float()
	m.Share = r.float()
	return m
}
