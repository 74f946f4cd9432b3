package dedup

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/warcdedup/warcdedup/internal/tempfile"
)

// ref is what a revisit needs to know of the record it points at.
type ref struct {
	id, uri, date string
	digest        string // the payload digest as recorded (or computed, if none was)
	computed      string // the payload digest computed here, to confirm a recorded one
	// sha256 is the payload's SHA-256, computed here: SHA-1 alone does not
	// prove two payloads identical (SHAttered, Stevens et al., CRYPTO 2017:
	// two PDFs with one SHA-1), so an exact duplicate must agree on it too.
	sha256 [32]byte
	// file and offset: the output file the record was written to, and
	// where its record starts there (Deduper.SetOutput), for the index.
	file   string
	offset int64
	// bare: uri is as a CDX gives it, without the angle brackets some
	// crawlers write around WARC-Target-URI (index.Record.Bare).
	bare bool
	// seed: the record was kept by an earlier run (Deduper.Seed).
	seed bool
	// entity: the kept response's HTTP fields that describe its body
	// (entityFields), as "Name: value" lines each ending in CR LF: a near
	// revisit's head carries them (see nearHead).
	entity string
}

// refStore keeps the references of the kept records, one per payload digest,
// in a temporary file, and in memory only a 16-byte key of each digest and
// the record's offset in the file. A reference is read back only when a
// later record duplicates it, which is rare next to the records that are
// kept, so the index's memory does not grow with the length of record IDs,
// URIs and digests (a few hundred bytes a record, and every unique payload
// of a run, image or page, has one).
//
// The file is removed as soon as it is created, so it goes away with the
// process however the run ends; where the system cannot remove an open file,
// close removes it.
type refStore struct {
	tempLog
	off []int64
	// byKey is written by the decision loop only, under mu; known reads it
	// from the reading goroutine (see Deduper.known).
	mu    sync.RWMutex
	byKey map[digestKey]uint32
	buf   []byte
	err   error // sticky: the store is unusable after an I/O error
	// log holds what each add since begin did to byKey, so that withdraw can
	// undo it. A withdrawn reference stays in the file, unreachable.
	log []keyUndo
}

// keyUndo is byKey's entry for key before an add: prev, if had.
type keyUndo struct {
	key  digestKey
	prev uint32
	had  bool
}

// digestKey stands for a payload digest string: its SHA-256, cut to 128
// bits. Two different digests with one key are not expected in the life of
// the universe; lookup compares the stored string all the same.
type digestKey [16]byte

func keyOf(digest string) digestKey {
	sum := sha256.Sum256([]byte(digest))
	return digestKey(sum[:16])
}

// foldDigest spells a payload digest's algorithm label in lower case:
// "SHA1:X" and "sha1:X" name one payload, as digestOf and the replay tools'
// indexes take them (the label is a token, and crawlers spell it either
// way), while the value is compared as written (base32 is one case).
func foldDigest(d string) string {
	i := strings.IndexByte(d, ':')
	for j := 0; j < i; j++ {
		if c := d[j]; 'A' <= c && c <= 'Z' {
			return strings.ToLower(d[:i]) + d[i:]
		}
	}
	return d
}

func newRefStore(dir string) *refStore {
	return &refStore{tempLog: tempLog{dir: dir}, byKey: map[digestKey]uint32{}}
}

// errRefStore wraps I/O errors of the temporary file.
var errRefStore = errors.New("dedup: the temporary file of kept records")

func (s *refStore) fail(err error) error {
	if s.err == nil {
		s.err = fmt.Errorf("%w: %w", errRefStore, err)
	}
	return s.err
}

// close releases the file. The store cannot be used after: the offsets it
// holds are of the file.
func (s *refStore) close() error {
	err := s.tempLog.close()
	if s.err == nil {
		s.err = fmt.Errorf("%w: used after close", errRefStore)
	}
	return err
}

// add stores r as the kept record of its digest and returns its number.
func (s *refStore) add(r ref) (uint32, error) {
	if s.err != nil {
		return 0, s.err
	}
	b := s.buf[:0]
	for _, v := range [...]string{r.digest, r.id, r.uri, r.date, r.computed, r.file, r.entity} {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	b = binary.AppendUvarint(b, uint64(r.offset))
	flags := byte(0)
	if r.bare {
		flags |= 1
	}
	if r.seed {
		flags |= 2
	}
	b = append(b, flags)
	b = append(b, r.sha256[:]...)
	s.buf = b
	n := uint32(len(s.off))
	s.off = append(s.off, s.size)
	if err := s.append("warcdedup-refs-*", b); err != nil {
		return 0, s.fail(err)
	}
	k := keyOf(foldDigest(r.digest))
	prev, had := s.byKey[k]
	s.log = append(s.log, keyUndo{key: k, prev: prev, had: had})
	s.mu.Lock()
	s.byKey[k] = n
	s.mu.Unlock()
	return n, nil
}

// known says whether a record with the payload digest was kept, as far as
// the decision loop has come: a hint, safe to ask from another goroutine.
func (s *refStore) known(digest string) bool {
	k := keyOf(foldDigest(digest))
	s.mu.RLock()
	_, ok := s.byKey[k]
	s.mu.RUnlock()
	return ok
}

// begin starts a new undo log: the references added before are final.
func (s *refStore) begin() { s.log = s.log[:0] }

// withdraw undoes the adds since begin, latest first: their digests are no
// longer found by lookup.
func (s *refStore) withdraw() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.log) - 1; i >= 0; i-- {
		u := s.log[i]
		if u.had {
			s.byKey[u.key] = u.prev
		} else {
			delete(s.byKey, u.key)
		}
	}
	s.log = s.log[:0]
}

// get reads reference n back.
func (s *refStore) get(n uint32) (ref, error) {
	if s.err != nil {
		return ref{}, s.err
	}
	start := s.off[n]
	end := s.size
	if int(n)+1 < len(s.off) {
		end = s.off[n+1]
	}
	b := make([]byte, end-start)
	if err := s.readAt(b, start); err != nil {
		return ref{}, s.fail(err)
	}
	var v [7]string
	for i := range v {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return ref{}, s.fail(io.ErrUnexpectedEOF)
		}
		v[i], b = string(b[k:k+int(l)]), b[k+int(l):]
	}
	off, k := binary.Uvarint(b)
	if k <= 0 {
		return ref{}, s.fail(io.ErrUnexpectedEOF)
	}
	b = b[k:]
	if len(b) == 0 {
		return ref{}, s.fail(io.ErrUnexpectedEOF)
	}
	r := ref{digest: v[0], id: v[1], uri: v[2], date: v[3], computed: v[4], file: v[5], entity: v[6], offset: int64(off), bare: b[0]&1 != 0, seed: b[0]&2 != 0}
	b = b[1:]
	if copy(r.sha256[:], b) != len(r.sha256) || len(b) != len(r.sha256) {
		return ref{}, s.fail(io.ErrUnexpectedEOF)
	}
	return r, nil
}

// lookup returns the kept record of a payload digest, if there is one.
func (s *refStore) lookup(digest string) (ref, bool, error) {
	digest = foldDigest(digest)
	n, ok := s.byKey[keyOf(digest)]
	if !ok {
		return ref{}, false, nil
	}
	r, err := s.get(n)
	if err != nil || foldDigest(r.digest) != digest {
		return ref{}, false, err
	}
	return r, true, nil
}

// tempLog is a temporary file written at its end and read anywhere: made
// on the first append in dir and removed as soon as it is created, so that
// nothing is left behind however the process ends; where the system
// cannot remove an open file, close removes it.
type tempLog struct {
	dir     string
	f       *os.File
	name    string // set while the file still has a name
	w       *bufio.Writer
	size    int64 // bytes appended
	flushed int64 // bytes written through to f
}

// append writes b at the end, creating the file (named after pattern) if
// there is none.
func (l *tempLog) append(pattern string, b []byte) error {
	if l.f == nil {
		// No name (O_TMPFILE) where the system allows, else one removed at
		// once: a killed run leaves nothing in the temporary directory.
		f, err := tempfile.Unnamed(l.dir, pattern)
		if err != nil {
			if f, err = os.CreateTemp(l.dir, pattern); err != nil {
				return err
			}
			if os.Remove(f.Name()) != nil {
				l.name = f.Name()
			}
		}
		l.f, l.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	if _, err := l.w.Write(b); err != nil {
		return err
	}
	l.size += int64(len(b))
	return nil
}

// readAt fills b from offset off, which with len(b) is within what was
// appended.
func (l *tempLog) readAt(b []byte, off int64) error {
	if off+int64(len(b)) > l.flushed {
		if err := l.w.Flush(); err != nil {
			return err
		}
		l.flushed = l.size
	}
	_, err := l.f.ReadAt(b, off)
	return err
}

// close releases the file; a later append makes a new one.
func (l *tempLog) close() error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	if l.name != "" {
		if rerr := os.Remove(l.name); err == nil {
			err = rerr
		}
	}
	*l = tempLog{dir: l.dir}
	return err
}

// len is the number of references added, withdrawn ones included.
func (s *refStore) len() int { return len(s.off) }

// live says whether reference n is its digest's kept record (it was not
// withdrawn, nor replaced).
func (s *refStore) live(n uint32, r ref) bool {
	m, ok := s.byKey[keyOf(foldDigest(r.digest))]
	return ok && m == n
}
