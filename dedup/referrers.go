package dedup

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/warcdedup/warcdedup/cdxj"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/tempfile"
	"github.com/warcdedup/warcdedup/warcio"
)

// Input revisits. A crawler that deduplicates as it crawls (Heritrix's
// DeDuplicator, warcprox, wget --warc-dedup) writes a revisit record V for a
// payload it stored before: V names the earlier response R by its target URI
// (WARC-Refers-To-Target-URI, or V's own URI) and payload digest. A replay
// tool resolves V by looking up a response, not a revisit, with that URI and
// digest (pywb, ResolvingLoader._load_different_url_payload and its
// '!mime:warc/revisit' filter). When this run replaces R by a revisit of a
// capture at another URI (an exact copy) or of another payload (a near
// duplicate), and no other response with R's URI and digest stays, nothing
// resolves V any more. V itself passes through as every record other than a
// response does; once every response of the runs has been judged (Close),
// the run counts it and tells the caller (Options.BrokenRevisit), naming the
// record, so that the loss of V's replay is never silent.

// referring says whether rec is a revisit that names its original by payload
// digest: any revisit with a WARC-Payload-Digest, whatever its profile, as
// pywb resolves any by URI and digest.
func referring(rec *warcio.Record) bool {
	if rec.Err != nil || rec.Kind != warcio.KindWARC || !strings.EqualFold(rec.Type(), "revisit") {
		return false
	}
	return rec.Header.Get("WARC-Payload-Digest") != "" && referent(rec) != ""
}

// referent is the target URI of the capture a revisit refers to.
func referent(rec *warcio.Record) string {
	if u := rec.Header.Get("WARC-Refers-To-Target-URI"); u != "" {
		return u
	}
	return rec.Header.Get("WARC-Target-URI")
}

// capKey stands for a capture's target URI and payload digest: what a
// replay tool looks a revisit's original up by, as its index keys them:
// the URI by its SURT (cdxj.SURT, as pywb's CDX: scheme, "www." and the
// host's case make no other URI; angle brackets, which wget writes, make
// none either), the digest without a "sha1:" prefix (pywb's indexer
// strips it).
func capKey(uri, digest string) digestKey {
	return keyOf(uriKey(uri) + "\x00" + digestOf(digest))
}

func uriKey(uri string) string { return cdxj.SURT(strings.Trim(uri, "<>")) }

func digestOf(d string) string {
	if len(d) > 5 && strings.EqualFold(d[:5], "sha1:") {
		return d[5:]
	}
	return d
}

// sameURI says whether two target URIs name one resource, as capKey does.
func sameURI(a, b string) bool { return a == b || uriKey(a) == uriKey(b) }

// goneSet holds the URI and digest of each response the run replaced while
// no response with both stayed: an input revisit naming one of them can no
// longer be resolved. A replacement that points at a capture of the same URI
// (a re-crawl of an unchanged resource, the commonest duplicate) leaves that
// capture to resolve the revisit, and is not held: the set holds the
// replacements across URIs and the near ones only, about 30 bytes each.
//
// An index (--index) keeps the set across runs: each run's segment holds
// the keys its runs added and that are still held (Deduper.Kept), and a
// later run loads them, and drops those whose URI and digest a later
// segment kept (Deduper.SeedFrom), so that a later crawl's revisits of a
// capture an earlier run replaced are found too.
type goneSet struct {
	m   map[digestKey]struct{}
	log []goneUndo // since begin, for withdraw
	// stayed are the keys of captures kept that do not lead their payload
	// (kept whole as the copy kept was captured later, on a digest
	// conflict): such a capture resolves the revisits of its URI and
	// payload whether the replacements of that key come before it or
	// after. Rare: the leading captures need none, as a replacement of
	// their key is an exact revisit of them at their own URI.
	stayed map[digestKey]struct{}
	// added are the keys the runs added, in order, for the index (some
	// may have been dropped since).
	added []digestKey
	// whole are the captures of stayed the runs kept whole, as an index
	// takes them (index.Record.Stays): a later run's revisits of their URI
	// and payload are resolved by them.
	whole []index.Record
	// seeded are the keys of such captures an index holds already.
	seeded map[digestKey]bool
}

type goneUndo struct {
	key     digestKey
	removed bool // the entry was removed (else added)
	stayed  bool // the key was added to stayed
	whole   bool // a capture was added to whole
}

func (s *goneSet) begin() { s.log = s.log[:0] }

// withdraw undoes what was done since begin, latest first.
func (s *goneSet) withdraw() {
	for i := len(s.log) - 1; i >= 0; i-- {
		if u := s.log[i]; u.whole {
			s.whole = s.whole[:len(s.whole)-1]
		} else if u.stayed {
			delete(s.stayed, u.key)
		} else if u.removed {
			s.m[u.key] = struct{}{}
		} else {
			delete(s.m, u.key)
		}
	}
	s.log = s.log[:0]
}

// replaced notes a response replaced by a revisit that names no capture of
// its URI and payload.
func (s *goneSet) replaced(uri, digest string) {
	k := capKey(uri, digest)
	if _, ok := s.stayed[k]; ok {
		return
	}
	if s.m == nil {
		s.m = map[digestKey]struct{}{}
	}
	if _, ok := s.m[k]; ok {
		return
	}
	s.m[k] = struct{}{}
	s.log = append(s.log, goneUndo{key: k})
	s.added = append(s.added, k)
}

// seed adds a key an earlier run left, read from an index.
func (s *goneSet) seed(k digestKey) {
	if s.m == nil {
		s.m = map[digestKey]struct{}{}
	}
	s.m[k] = struct{}{}
}

// still returns the keys the runs added that the set still holds, each
// once, in the order they were added: what an index takes from the runs.
func (s *goneSet) still() []digestKey {
	var out []digestKey
	seen := map[digestKey]bool{}
	for _, k := range s.added {
		if _, ok := s.m[k]; ok && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// kept notes a response that stays: it resolves a revisit of its URI and
// payload.
func (s *goneSet) kept(uri, digest string) {
	if len(s.m) == 0 {
		return
	}
	k := capKey(uri, digest)
	if _, ok := s.m[k]; ok {
		delete(s.m, k)
		s.log = append(s.log, goneUndo{key: k, removed: true})
	}
}

// stays notes a response kept that does not lead its payload (see
// stayed).
func (s *goneSet) stays(uri, digest string) {
	s.kept(uri, digest)
	k := capKey(uri, digest)
	if _, ok := s.stayed[k]; ok {
		return
	}
	if s.stayed == nil {
		s.stayed = map[digestKey]struct{}{}
	}
	s.stayed[k] = struct{}{}
	s.log = append(s.log, goneUndo{key: k, stayed: true})
}

// keptWhole notes a response kept whole that does not lead its payload
// (stays), for the index.
func (s *goneSet) keptWhole(r index.Record) {
	s.stays(r.URI, r.Digest)
	if s.seeded[capKey(r.URI, r.Digest)] {
		return // the index holds it already (a run over the same input)
	}
	r.Stays = true
	s.whole = append(s.whole, r)
	s.log = append(s.log, goneUndo{whole: true})
}

// seedStays adds a capture an earlier run kept whole (index.Record.Stays),
// read from an index.
func (s *goneSet) seedStays(uri, digest string) {
	k := capKey(uri, digest)
	if s.seeded == nil {
		s.seeded = map[digestKey]bool{}
	}
	s.seeded[k] = true
	delete(s.m, k)
	if s.stayed == nil {
		s.stayed = map[digestKey]struct{}{}
	}
	s.stayed[k] = struct{}{}
}

// gone says whether a revisit naming uri and digest can no longer be
// resolved.
func (s *goneSet) gone(uri, digest string) bool {
	if len(s.m) == 0 {
		return false
	}
	_, ok := s.m[capKey(uri, digest)]
	return ok
}

// revisitLog holds the input revisits of the runs until they end, in a
// temporary file: whether one is broken is known only once every response
// of the runs has been judged. A revisit read before the response it names
// (a writer pool's files read in name order, a revisit dated before its
// original by a crawler's clock) would be missed if checked when read, and
// one whose original a later file keeps would be reported wrongly. About
// 100 bytes of disk a revisit, none of memory.
type revisitLog struct {
	dir     string
	f       *os.File
	w       *bufio.Writer
	run     uint64          // the current Run's number
	dropped map[uint64]bool // the Runs withdrawn: their revisits are skipped
	buf     []byte
}

func (l *revisitLog) begin() { l.run++ }

// add notes the revisit at offset stored (as stored) of file, with the ID,
// URI and digest of its record, and key for the caller.
func (l *revisitLog) add(file, key string, stored int64, id, uri, digest string) error {
	if l.f == nil {
		t, err := tempfile.Open(l.dir, "warcdedup-revisits-*")
		if err != nil {
			return fmt.Errorf("dedup: a temporary file for the input revisits: %w", err)
		}
		l.f, l.w = t, bufio.NewWriterSize(t, 64<<10)
	}
	b := binary.AppendUvarint(l.buf[:0], l.run)
	for _, s := range [...]string{file, key, id, uri, digest} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, stored)
	l.buf = b
	if _, err := l.w.Write(b); err != nil {
		return fmt.Errorf("dedup: writing the input revisits' temporary file: %w", err)
	}
	return nil
}

// withdraw drops what was added since begin.
func (l *revisitLog) withdraw() {
	if l.dropped == nil {
		l.dropped = map[uint64]bool{}
	}
	l.dropped[l.run] = true
}

// each calls fn for every revisit added and not withdrawn, in the order
// they were added, and releases the file.
func (l *revisitLog) each(fn func(file, key string, stored int64, id, uri, digest string)) error {
	if l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	defer f.Close()
	if err := l.w.Flush(); err != nil {
		return fmt.Errorf("dedup: writing the input revisits' temporary file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var v [5]string
	for {
		run, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("dedup: reading the input revisits' temporary file: %w", noEOF(err))
		}
		for i := range v {
			n, err := binary.ReadUvarint(r)
			if err != nil {
				return fmt.Errorf("dedup: reading the input revisits' temporary file: %w", noEOF(err))
			}
			b := make([]byte, n)
			if _, err := io.ReadFull(r, b); err != nil {
				return fmt.Errorf("dedup: reading the input revisits' temporary file: %w", noEOF(err))
			}
			v[i] = string(b)
		}
		stored, err := binary.ReadVarint(r)
		if err != nil {
			return fmt.Errorf("dedup: reading the input revisits' temporary file: %w", noEOF(err))
		}
		if !l.dropped[run] {
			fn(v[0], v[1], stored, v[2], v[3], v[4])
		}
	}
}

// close releases the file unread.
func (l *revisitLog) close() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
