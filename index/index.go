// Package index keeps what earlier runs kept, so that a new crawl is
// deduplicated against every earlier one without reading their WARCs again:
// the seeded matching of the Stanford report on SpotSigs (Sec. 3.3.4), and
// what Heritrix's DeDuplicator, wget's --warc-dedup and jwarc's dedupe do for
// exact duplicates.
//
// An index is a directory: a MANIFEST (JSON) naming its segments, one
// segment file per successful run, and a lock file. A segment holds one
// entry per kept record (its ID, URI, date, payload digests, and the output
// file and offset it was written to) with the record's near-duplicate page
// (near.Page's binary form), if it has one, and ends with a count and a
// CRC-32C of all that precedes.
//
// Storage: segments are written once and never changed, and a run adds its
// segment by writing it under a temporary name, syncing it, renaming it,
// and then replacing the MANIFEST the same way. A run that fails or is
// killed at any moment leaves the MANIFEST as it was, and the index with it;
// a segment that no MANIFEST names is removed by the next run. Loading reads
// the segments front to back once. Measured against go.etcd.io/bbolt 1.5
// and cockroachdb/pebble on one run's 1M records (scripts/storebench):
// write 2.7 s, load 2.9 s, 697 bytes a record for segments; 3.0 s, 1.1 s
// and 807 bytes for bbolt; 4.1 s, 3.4 s and 475 bytes (compressed) for
// pebble. All three are crash-safe; none is a cost next to building the
// matcher's indexes from the pages on load (34 s for 1M pages), and the
// segments need no dependency, no recovery code beyond putting back a
// staged segment whose commit stopped half way, and no second copy of the
// data in a structure for random access that a run never uses: a run
// reads every record once and looks none up on disk.
//
// A cluster job decides in one step and writes its outputs in others (see
// docs/scale.md): its decisions step stages the segment of what it kept
// (Writer.Stage: DIR/staged.wdx, described by DIR/staged.json), and the job
// commits it once every output is written (CommitStaged), or discards it.
// Until then the index takes no other segment (ErrStaged). A commit that
// stops half way leaves the segment staged: its note names the segment
// file the commit renamed it to, which Open puts back.
//
// A directory is an index when it holds a MANIFEST. Open makes one only in
// a directory that does not exist or is empty, and writes its MANIFEST at
// once: a directory with other files is refused (ErrNotIndex), since
// removing what a killed run left is only safe among files the index
// wrote. OpenReadOnly changes nothing in the directory.
//
// Two runs on one index: the second fails at once with ErrLocked (flock on
// DIR/lock). An index written by another format, or with another analysis
// of pages, is refused with ErrFormat.
package index

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/warcdedup/warcdedup/near"
)

// Format is the version of the directory's layout, the MANIFEST and the
// segments. Format 2 adds the replaced captures' entries (Record.Gone),
// format 3 the captures kept whole beside their payload's kept record
// (Record.Stays); an index of an older format is read as it is, and takes
// this format with its next segment.
const Format = 3

// oldestFormat is the oldest format this version reads.
const oldestFormat = 1

const (
	manifestName = "MANIFEST"
	lockName     = "lock"
	// A staged segment (Writer.Stage) and what the index knows of it.
	stagedName     = "staged.wdx"
	stagedMetaName = "staged.json"
	segMagic       = "WARCDEDUP-SEGMENT-1\n"
	segTrailer     = "WARCDEDUP-END\n"
)

var (
	// ErrLocked: another run holds the index.
	ErrLocked = errors.New("index: in use by another run")
	// ErrFormat: the index was written by another version or with another
	// analysis of pages.
	ErrFormat = errors.New("index: written by another version or configuration")
	// ErrDamaged: a segment does not read back as it was written.
	ErrDamaged = errors.New("index: damaged")
	// ErrStaged: a staged segment waits to be committed or discarded.
	ErrStaged = errors.New("index: a staged segment waits")
	// ErrNotIndex: the directory holds files but no MANIFEST, so no index
	// is made there.
	ErrNotIndex = errors.New("not a warcdedup index")
	// ErrNoIndex: OpenReadOnly or OpenExisting found no index.
	ErrNoIndex = errors.New("no index")
	// ErrReadOnly: the index was opened with OpenReadOnly.
	ErrReadOnly = errors.New("index: opened read-only")
)

// Record is a kept record, as a later revisit refers to it.
type Record struct {
	ID, URI, Date string
	Digest        string   // the payload digest as recorded (or computed, if none was)
	Computed      string   // the payload digest computed by warcdedup
	SHA256        [32]byte // the payload's SHA-256
	File          string   // the output file it was written to
	Offset        int64    // ... and where its record starts there
	// Entity is the kept HTTP response's fields that describe its body, as
	// "Name: value" lines each ending in CR LF, for a page's near revisits.
	Entity string
	// Page is the record's near-duplicate page, or nil.
	Page *near.Page
	// Bare: URI is as a CDX gives it, without the angle brackets some
	// crawlers (wget) write around WARC-Target-URI. Set by ReadCDX only; an
	// index holds URIs as the records have them.
	Bare bool
	// Gone: the entry is no kept record but a capture a run replaced, with
	// no response of its URI and payload digest left, named by GoneKey (a
	// 16-byte key of the URI and digest, dedup's): a later crawl's revisit
	// of it can no longer be resolved. Its other fields are empty.
	Gone    bool
	GoneKey [16]byte
	// Stays: a capture kept whole, in File at Offset, that does not lead
	// its payload (captured before the kept record of its payload digest,
	// or its bytes differ under the same digest): no later record becomes
	// a revisit of it, but it resolves a later crawl's revisits of its URI
	// and payload. It has no page.
	Stays bool
}

// Segment is a run's addition to the index, as the MANIFEST lists it.
type Segment struct {
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
	Records int       `json:"records"` // entries, replaced captures' (Gone) included
	Pages   int       `json:"pages"`
	Gone    int       `json:"gone,omitempty"` // replaced captures' entries
	Bytes   int64     `json:"bytes"`
	CRC32C  uint32    `json:"crc32c"`
	Inputs  []string  `json:"inputs,omitempty"`
	// Format is the format the segment was written in; 0 for one written
	// before segments said it (format 2 or older: no Record.Stays).
	Format int `json:"format,omitempty"`
}

type manifest struct {
	Format   int       `json:"format"`
	Analysis string    `json:"analysis"`
	Segments []Segment `json:"segments"`
}

// Index is an open index directory, locked for this process.
type Index struct {
	dir      string
	lock     *os.File
	man      manifest
	analysis string
	readOnly bool
	// made: this Open made the index, for Unmake.
	made bool
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Open opens the index in dir for a run that adds to it, and locks it. If
// dir does not exist or is empty, an index is made there; a directory that
// holds files and no MANIFEST is refused with ErrNotIndex. analysis names
// how pages are analysed (see Analysis): an index of pages analysed
// otherwise is refused, since their signatures would not be comparable.
// Segments no MANIFEST names (left by a run that was killed) are removed.
func Open(dir, analysis string) (*Index, error) { return open(dir, analysis, modeCreate) }

// OpenExisting is Open for an index that must exist already: without one
// it fails with ErrNoIndex and makes nothing.
func OpenExisting(dir, analysis string) (*Index, error) {
	return open(dir, analysis, modeExisting)
}

// OpenReadOnly opens the index in dir to read it, sharing the lock with
// other readers; without an index it fails with ErrNoIndex. It creates,
// removes and changes nothing in dir, and the index takes no segment.
func OpenReadOnly(dir string) (*Index, error) { return open(dir, "", modeReadOnly) }

type openMode int

const (
	modeCreate openMode = iota
	modeExisting
	modeReadOnly
)

func open(dir, analysis string, mode openMode) (*Index, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist) && mode != modeCreate:
		return nil, fmt.Errorf("%w at %s", ErrNoIndex, dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("index %s: %w", dir, err)
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("index %s: not a directory", dir)
	}
	made, contended := false, false
	_, err = os.Stat(filepath.Join(dir, manifestName))
	switch {
	case err == nil:
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("index %s: %w", dir, err)
	case mode != modeCreate:
		return nil, fmt.Errorf("%w at %s", ErrNoIndex, dir)
	default:
		// Checked before the lock file is made, which would make the
		// directory look used.
		err := newIndexDir(dir)
		contended = errors.Is(err, errMaking)
		if err != nil && !contended {
			return nil, err
		}
		made = true
	}
	ix := &Index{dir: dir, analysis: analysis, readOnly: mode == modeReadOnly, made: made}
	crashPoint("looked")
	if err := ix.takeLock(); err != nil {
		return nil, err
	}
	if mode == modeCreate && !made {
		// The MANIFEST was there when looked for, and may be gone now: a
		// run that made the index and added nothing removed it (Unmake)
		// before this run took the lock. The directory is new again.
		if _, err := os.Stat(filepath.Join(dir, manifestName)); errors.Is(err, os.ErrNotExist) {
			if err := newIndexDir(dir); err == nil || errors.Is(err, errMaking) {
				made, ix.made = true, true
			}
		}
	}
	if contended {
		// The lock is ours: the run that was making the index ended. It
		// made it (a MANIFEST), or was killed first (its leftovers are
		// removed below, and the index is made here).
		if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
			made, ix.made = false, false
		}
	}
	if err := ix.readManifest(made); err != nil {
		ix.Close()
		return nil, err
	}
	if ix.readOnly {
		return ix, nil
	}
	// Before removeStale: the segment file a commit of the staged segment
	// stopped with is named by no MANIFEST, and must not be taken for one
	// a killed run left.
	if _, err := ix.resumeStaged(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.removeStale(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// errMaking: a new index's directory holds only what a run making the
// index writes (newIndexDir).
var errMaking = errors.New("index: being made")

// newIndexDir makes dir, or checks that it is empty, for a new index.
func newIndexDir(dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	names, err := d.Readdirnames(4)
	d.Close()
	if err != nil && err != io.EOF {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	// The lock file alone is what a run killed between locking a new
	// index and writing its MANIFEST leaves: such a directory is still new.
	if len(names) == 1 && names[0] == lockName {
		names = nil
	}
	// The lock and a MANIFEST (or its temporary file) that appeared since
	// the caller looked: another run is making the index there now, or
	// was killed making it (errMaking: the lock tells which).
	making := len(names) > 0
	for _, n := range names {
		making = making && (n == lockName || n == manifestName || n == manifestName+".tmp")
	}
	if making {
		return errMaking
	}
	if len(names) > 0 {
		return fmt.Errorf("index: %s is %w: it has no MANIFEST and is not empty (it holds %s); a new index is made only in a new or empty directory",
			dir, ErrNotIndex, names[0])
	}
	return nil
}

// takeLock locks the index: exclusively for a run that may change it,
// shared for reading. A reader makes no lock file where there is none.
func (ix *Index) takeLock() error {
	name := filepath.Join(ix.dir, lockName)
	how := syscall.LOCK_EX
	var lf *os.File
	var err error
	if ix.readOnly {
		how = syscall.LOCK_SH
		lf, err = os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
	} else {
		lf, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	if err := syscall.Flock(int(lf.Fd()), how|syscall.LOCK_NB); err != nil {
		lf.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%w: %s", ErrLocked, ix.dir)
		}
		return fmt.Errorf("index %s: lock: %w", ix.dir, err)
	}
	ix.lock = lf
	return nil
}

// Analysis describes a near.Config's analysis of pages, the part that makes
// pages comparable (not the thresholds, which a run may change).
func Analysis(c near.Config) string {
	m := "spotsigs"
	if c.Method == near.MethodHenzinger {
		m = "henzinger"
	}
	return fmt.Sprintf("%s main-text=%v short-spots=%d bigrams-below=%d page-format=%d", m, c.MainText, c.ShortSpots, c.BigramsBelow, near.PageFormat)
}

// readManifest reads the MANIFEST. If there is none and made is set (the
// directory was found new or empty, and is locked now), the index is made:
// its MANIFEST, with no segments, is written at once, so that the
// directory is known as an index from then on. (Another run that found it
// empty too, and locked it first, may have made it already.)
func (ix *Index) readManifest(made bool) error {
	b, err := os.ReadFile(filepath.Join(ix.dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		if !made {
			// Removed since open looked for it.
			return fmt.Errorf("%w at %s", ErrNoIndex, ix.dir)
		}
		ix.man = manifest{Format: Format, Analysis: ix.analysis, Segments: []Segment{}}
		return writeManifest(ix.dir, ix.man)
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	var probe struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return fmt.Errorf("%w: %s: MANIFEST: %v", ErrDamaged, ix.dir, err)
	}
	if probe.Format < oldestFormat || probe.Format > Format {
		return fmt.Errorf("%w: %s has format %d; this warcdedup reads formats %d to %d", ErrFormat, ix.dir, probe.Format, oldestFormat, Format)
	}
	if err := json.Unmarshal(b, &ix.man); err != nil {
		return fmt.Errorf("%w: %s: MANIFEST: %v", ErrDamaged, ix.dir, err)
	}
	// An index with no segments holds no pages to compare: any analysis
	// may fill it.
	if ix.analysis != "" && len(ix.man.Segments) > 0 && ix.man.Analysis != ix.analysis {
		return fmt.Errorf("%w: %s holds pages analysed as %q; this run analyses them as %q", ErrFormat, ix.dir, ix.man.Analysis, ix.analysis)
	}
	return nil
}

// segmentName is the name of the index's segment number num.
func segmentName(num int) string { return fmt.Sprintf("seg-%06d.wdx", num) }

// isSegmentName says whether name is one segmentName gives.
func isSegmentName(name string) bool {
	digits, ok := strings.CutPrefix(name, "seg-")
	if !ok {
		return false
	}
	if digits, ok = strings.CutSuffix(digits, ".wdx"); !ok {
		return false
	}
	num, err := strconv.Atoi(digits)
	return err == nil && num >= 1 && segmentName(num) == name
}

// isStale says whether name is a file the index writes while adding a
// segment and that a run which did not finish may leave: a segment being
// written, a segment the MANIFEST does not name, a MANIFEST or staged
// segment's note being written. Only these are removed: any other file in
// the directory is not the index's to remove.
func isStale(name string, named map[string]bool) bool {
	switch name {
	case manifestName + ".tmp", stagedMetaName + ".tmp":
		return true
	}
	if seg, ok := strings.CutSuffix(name, ".tmp"); ok {
		return isSegmentName(seg)
	}
	return isSegmentName(name) && !named[name]
}

// removeStale removes what a killed run left (isStale). A staged
// segment's note that cannot be read may claim a segment file (see
// stagedMeta.Commit): then no unnamed segment is removed, as removing the
// one it claims would lose what a job kept.
func (ix *Index) removeStale() error {
	named := map[string]bool{}
	for _, s := range ix.man.Segments {
		named[s.Name] = true
	}
	_, unread := ix.readStagedMeta()
	ents, err := os.ReadDir(ix.dir)
	if err != nil {
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || !isStale(n, named) || unread != nil && isSegmentName(n) {
			continue
		}
		if err := os.Remove(filepath.Join(ix.dir, n)); err != nil {
			return fmt.Errorf("index %s: removing %s left by a run that did not finish: %w", ix.dir, n, err)
		}
	}
	return nil
}

// Close releases the lock.
func (ix *Index) Close() error {
	if ix.lock == nil {
		return nil
	}
	err := ix.lock.Close()
	ix.lock = nil
	return err
}

// Unmake closes an index this Open made, if nothing was added to it (no
// segment, none staged), and removes its MANIFEST: a command that fails or
// is refused leaves no new, empty index behind. The lock file stays (a
// directory holding only it is still new to Open): another run may have
// opened it and be waiting for the lock, and would hold a lock on a file
// no longer there, beside a run that makes a new one. It does nothing to
// another index but close it.
func (ix *Index) Unmake() error {
	unmake := ix.made && !ix.readOnly && len(ix.man.Segments) == 0
	if unmake {
		if _, err := os.Stat(filepath.Join(ix.dir, stagedMetaName)); !errors.Is(err, os.ErrNotExist) {
			unmake = false
		}
	}
	if unmake {
		// Removed while the lock is held.
		if err := os.Remove(filepath.Join(ix.dir, manifestName)); err != nil && !errors.Is(err, os.ErrNotExist) {
			ix.Close()
			return err
		}
	}
	return ix.Close()
}

// Segments lists the index's segments, oldest first.
func (ix *Index) Segments() []Segment { return append([]Segment(nil), ix.man.Segments...) }

// WithoutStays is how many of the index's segments were written before
// format 3: they do not list the captures their runs kept whole beside
// their payload's kept record (Record.Stays).
func (ix *Index) WithoutStays() int {
	n := 0
	for _, s := range ix.man.Segments {
		if s.Format < 3 {
			n++
		}
	}
	return n
}

// Dir is the index's directory.
func (ix *Index) Dir() string { return ix.dir }

// Load calls fn for every record of the index, oldest segment first and in
// the order each run kept them.
func (ix *Index) Load(fn func(*Record) error) error {
	for _, s := range ix.man.Segments {
		if err := ix.loadSegment(s, fn); err != nil {
			return err
		}
	}
	return nil
}

// CheckSizes says whether every segment the MANIFEST lists is there, at
// its size (ErrDamaged if not): what a listing of the index can check
// without reading the segments, whose checksums a run checks as it loads
// them.
func (ix *Index) CheckSizes() error {
	for _, s := range ix.man.Segments {
		name := filepath.Join(ix.dir, s.Name)
		st, err := os.Stat(name)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrDamaged, name, err)
		}
		if st.Size() != s.Bytes {
			return fmt.Errorf("%w: %s: %d bytes, the MANIFEST says %d", ErrDamaged, name, st.Size(), s.Bytes)
		}
	}
	return nil
}

func (ix *Index) loadSegment(s Segment, fn func(*Record) error) error {
	name := filepath.Join(ix.dir, s.Name)
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrDamaged, name, err)
	}
	defer f.Close()
	damaged := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrDamaged, name, fmt.Sprintf(format, a...))
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("index: %s: %w", name, err)
	}
	if st.Size() != s.Bytes {
		return damaged("%d bytes, the MANIFEST says %d", st.Size(), s.Bytes)
	}
	// The CRC covers every byte before it: the magic, each entry with its
	// length, and the count. It is summed over the bytes as they are
	// consumed (a length is summed as written, in its canonical form: a
	// length written otherwise fails the comparison, as damage should).
	crc := crc32.New(castagnoli)
	r := bufio.NewReaderSize(f, 256<<10)
	magic := make([]byte, len(segMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != segMagic {
		return damaged("not a segment")
	}
	crc.Write(magic)
	var buf []byte
	var lb [binary.MaxVarintLen64]byte
	for n := 0; n < s.Records; n++ {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > 1<<30 {
			return damaged("entry %d cut short", n)
		}
		crc.Write(lb[:binary.PutUvarint(lb[:], l)])
		if cap(buf) < int(l) {
			buf = make([]byte, l)
		}
		buf = buf[:l]
		if _, err := io.ReadFull(r, buf); err != nil {
			return damaged("entry %d cut short", n)
		}
		crc.Write(buf)
		rec, err := decodeRecord(buf)
		if err != nil {
			return damaged("entry %d: %v", n, err)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	var tail [8 + 4 + len(segTrailer)]byte
	if _, err := io.ReadFull(r, tail[:]); err != nil {
		return damaged("trailer cut short")
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return damaged("bytes after the trailer")
	}
	crc.Write(tail[:8])
	if binary.LittleEndian.Uint64(tail[:8]) != uint64(s.Records) || string(tail[12:]) != segTrailer {
		return damaged("bad trailer")
	}
	if got := binary.LittleEndian.Uint32(tail[8:12]); got != crc.Sum32() || got != s.CRC32C {
		return damaged("CRC-32C %08x, the file says %08x, the MANIFEST %08x", crc.Sum32(), got, s.CRC32C)
	}
	return nil
}

// nextName is the name of the index's next segment.
func (ix *Index) nextName() string {
	num := 1
	for _, s := range ix.man.Segments {
		var k int
		if _, err := fmt.Sscanf(s.Name, "seg-%d.wdx", &k); err == nil && k >= num {
			num = k + 1
		}
	}
	return segmentName(num)
}

// Writer writes a new segment. Nothing is visible in the index until
// Commit.
type Writer struct {
	ix   *Index
	seg  Segment
	tmp  string
	f    *os.File
	w    *bufio.Writer
	crc  hash.Hash32
	buf  []byte
	err  error
	done bool
}

// NewWriter starts a segment for this run's kept records.
func (ix *Index) NewWriter(inputs []string) (*Writer, error) {
	if ix.readOnly {
		return nil, fmt.Errorf("%w: %s", ErrReadOnly, ix.dir)
	}
	if seg, err := ix.Staged(); err != nil {
		return nil, err
	} else if seg != nil {
		return nil, fmt.Errorf("%w: %s holds a segment a cluster job staged and did not commit (from %d inputs): commit it once the job's outputs are all written (warcdedup index commit), or discard it (warcdedup index discard)",
			ErrStaged, ix.dir, len(seg.Inputs))
	}
	name := ix.nextName()
	tmp := filepath.Join(ix.dir, name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", ix.dir, err)
	}
	w := &Writer{ix: ix, seg: Segment{Name: name, Inputs: inputs}, tmp: tmp, f: f, crc: crc32.New(castagnoli)}
	w.w = bufio.NewWriterSize(io.MultiWriter(f, w.crc), 256<<10)
	w.write([]byte(segMagic))
	return w, w.err
}

// SetInputs names the inputs of the run the segment is from, when they
// are known only once its records are written (the resolve round learns
// the files' names as their lines come).
func (w *Writer) SetInputs(inputs []string) { w.seg.Inputs = slices.Clone(inputs) }

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.w.Write(b); err != nil {
		w.err = fmt.Errorf("index %s: writing %s: %w", w.ix.dir, w.tmp, err)
	}
	w.seg.Bytes += int64(len(b))
}

// Add appends a kept record.
func (w *Writer) Add(r *Record) error {
	if w.err != nil {
		return w.err
	}
	b, err := appendRecord(w.buf[:0], r)
	if err != nil {
		w.err = err
		return err
	}
	w.buf = b
	var l [binary.MaxVarintLen64]byte
	w.write(l[:binary.PutUvarint(l[:], uint64(len(b)))])
	w.write(b)
	w.seg.Records++
	if r.Page != nil {
		w.seg.Pages++
	}
	if r.Gone {
		w.seg.Gone++
	}
	return w.err
}

// testCrash, if set by a test, is called at each step of Commit with the
// step's name (and of Open, before it locks); a test that kills the process
// there checks that the index is unchanged.
var testCrash func(step string)

func crashPoint(step string) {
	if testCrash != nil {
		testCrash(step)
	}
}

// finish ends the segment (count, CRC-32C, trailer), syncs and closes it.
func (w *Writer) finish() error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	var cnt [8]byte
	binary.LittleEndian.PutUint64(cnt[:], uint64(w.seg.Records))
	w.write(cnt[:])
	if w.err == nil {
		if err := w.w.Flush(); err != nil {
			w.err = fmt.Errorf("index %s: writing %s: %w", w.ix.dir, w.tmp, err)
		}
	}
	w.seg.CRC32C = w.crc.Sum32()
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], w.seg.CRC32C)
	w.write(c[:])
	w.write([]byte(segTrailer))
	if w.err == nil {
		if err := w.w.Flush(); err != nil {
			w.err = fmt.Errorf("index %s: writing %s: %w", w.ix.dir, w.tmp, err)
		}
	}
	crashPoint("segment-written")
	if w.err == nil {
		if err := w.f.Sync(); err != nil {
			w.err = fmt.Errorf("index %s: sync %s: %w", w.ix.dir, w.tmp, err)
		}
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	if err := w.f.Close(); err != nil {
		w.err = err
		w.Abort()
		return err
	}
	w.f = nil
	return nil
}

// Commit makes the segment part of the index: the segment is synced and
// renamed, then the MANIFEST is replaced through a synced temporary file.
func (w *Writer) Commit() error {
	if err := w.finish(); err != nil {
		return err
	}
	err := w.ix.commit(w.seg, w.tmp, false)
	if err != nil {
		w.Abort()
		return err
	}
	w.done = true
	return nil
}

// commit renames the finished segment file from to the segment's name and
// adds the segment to the MANIFEST. If that fails, the file is removed, or,
// if keep, put back at from; if it cannot be put back it stays under the
// segment's name, which the staged segment's note claims (CommitStaged).
func (ix *Index) commit(seg Segment, from string, keep bool) error {
	final := filepath.Join(ix.dir, seg.Name)
	if err := os.Rename(from, final); err != nil {
		if !keep {
			os.Remove(from)
		}
		return fmt.Errorf("index %s: %w", ix.dir, err)
	}
	crashPoint("segment-renamed")
	seg.Created = time.Now().UTC().Truncate(time.Second)
	seg.Format = Format
	man := ix.man
	man.Format, man.Analysis = Format, ix.analysis
	man.Segments = append(append([]Segment(nil), man.Segments...), seg)
	if err := writeManifest(ix.dir, man); err != nil {
		if !keep {
			os.Remove(final)
		} else {
			os.Rename(final, from)
		}
		return err
	}
	ix.man = man
	return nil
}

// Stage ends the segment as a staged one: complete and synced, beside the
// index (stagedName), but not part of it until CommitStaged. A cluster job
// stages what its reduce step kept, and commits it once every output is
// written; until then the index takes no other segment.
func (w *Writer) Stage() error {
	if err := w.finish(); err != nil {
		return err
	}
	w.done = true
	ix := w.ix
	meta, err := json.Marshal(stagedMeta{Analysis: ix.analysis, Segment: w.seg})
	if err == nil {
		err = writeSynced(filepath.Join(ix.dir, stagedMetaName), meta)
	}
	if err == nil {
		err = os.Rename(w.tmp, filepath.Join(ix.dir, stagedName))
	}
	if err == nil {
		err = syncDir(ix.dir)
	}
	if err != nil {
		os.Remove(w.tmp)
		os.Remove(filepath.Join(ix.dir, stagedMetaName))
		os.Remove(filepath.Join(ix.dir, stagedName))
		return fmt.Errorf("index %s: staging a segment: %w", ix.dir, err)
	}
	return nil
}

// stagedMeta is what the index knows of a staged segment.
type stagedMeta struct {
	Analysis string  `json:"analysis"`
	Segment  Segment `json:"segment"`
	// Commit is the name CommitStaged gives the segment, noted before it
	// renames stagedName to it: a commit that stops after the rename and
	// before the MANIFEST names the segment leaves the note, this name and
	// no stagedName, and the segment is found under this name instead of
	// being taken for one a killed run left (resumeStaged). A version that
	// does not know the field ignores it.
	Commit string `json:"commit,omitempty"`
}

// readStagedMeta reads the staged segment's note; nil if there is none.
func (ix *Index) readStagedMeta() (*stagedMeta, error) {
	b, err := os.ReadFile(filepath.Join(ix.dir, stagedMetaName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", ix.dir, err)
	}
	var m stagedMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %s: %v", ErrDamaged, ix.dir, stagedMetaName, err)
	}
	return &m, nil
}

// halfCommitted returns the name of the segment file a commit of the
// staged segment m stopped with, or "": the file was renamed from
// stagedName and the MANIFEST does not name it yet. The name is the note's
// Commit; a note written without it (by an earlier version) claims the
// index's next segment name, when that file has the staged segment's size,
// count and CRC-32C.
func (ix *Index) halfCommitted(m *stagedMeta) string {
	if _, err := os.Lstat(filepath.Join(ix.dir, stagedName)); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	name, check := m.Commit, false
	if name == "" {
		name, check = ix.nextName(), true
	}
	if !isSegmentName(name) {
		return ""
	}
	for _, s := range ix.man.Segments {
		if s.Name == name {
			return "" // the commit is done
		}
	}
	fi, err := os.Lstat(filepath.Join(ix.dir, name))
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if check && !sameEnd(filepath.Join(ix.dir, name), m.Segment) {
		return ""
	}
	return name
}

// sameEnd says whether the segment file name has seg's size, and its
// trailer seg's count and CRC-32C.
func sameEnd(name string, seg Segment) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var tail [8 + 4 + len(segTrailer)]byte
	st, err := f.Stat()
	if err != nil || st.Size() != seg.Bytes || seg.Bytes < int64(len(segMagic)+len(tail)) {
		return false
	}
	if _, err := f.ReadAt(tail[:], seg.Bytes-int64(len(tail))); err != nil {
		return false
	}
	return binary.LittleEndian.Uint64(tail[:8]) == uint64(seg.Records) &&
		binary.LittleEndian.Uint32(tail[8:12]) == seg.CRC32C && string(tail[12:]) == segTrailer
}

// resumeStaged puts the segment of a commit of the staged segment that
// stopped half way (halfCommitted) back as the staged segment, so that it
// is staged again, to be committed or discarded, and says whether it did.
// It does nothing for an index opened read-only, which shows such a
// segment as staged where it is (Staged).
func (ix *Index) resumeStaged() (bool, error) {
	if ix.readOnly {
		return false, nil
	}
	m, err := ix.readStagedMeta()
	if err != nil || m == nil {
		// A note that cannot be read is Staged's to report; removeStale
		// keeps every segment file it might claim.
		return false, nil
	}
	name := ix.halfCommitted(m)
	if name == "" {
		return false, nil
	}
	if err := os.Rename(filepath.Join(ix.dir, name), filepath.Join(ix.dir, stagedName)); err != nil {
		return false, fmt.Errorf("index %s: putting back the staged segment a commit left as %s: %w", ix.dir, name, err)
	}
	return true, syncDir(ix.dir)
}

// Staged returns the staged segment, if there is one (see Stage). Opened
// for writing, the index removes what a staging or a commit that stopped
// half way left, and puts back as staged a segment whose commit stopped
// before the MANIFEST named it; opened read-only, it returns that segment
// as staged.
func (ix *Index) Staged() (*Segment, error) {
	m, err := ix.readStagedMeta()
	if err != nil {
		return nil, err
	}
	if m == nil {
		if _, err := os.Stat(filepath.Join(ix.dir, stagedName)); err == nil && !ix.readOnly {
			// Staging stopped between the two files: no segment was staged.
			os.Remove(filepath.Join(ix.dir, stagedName))
		}
		return nil, nil
	}
	if m.Analysis != ix.man.Analysis && len(ix.man.Segments) > 0 || ix.analysis != "" && m.Analysis != ix.analysis {
		return nil, fmt.Errorf("%w: %s: the staged segment holds pages analysed as %q", ErrFormat, ix.dir, m.Analysis)
	}
	if _, err := os.Stat(filepath.Join(ix.dir, stagedName)); err != nil {
		switch {
		case ix.readOnly && ix.halfCommitted(m) != "":
			// A commit stopped before the MANIFEST named the segment:
			// the next writer puts it back (resumeStaged).
		case ix.readOnly:
			return nil, nil
		default:
			back, err := ix.resumeStaged()
			if err != nil {
				return nil, err
			}
			if !back {
				// Staging stopped before the segment was in place (its
				// temporary file is removed as stale), or a commit
				// stopped after the MANIFEST named it: either way what
				// is left is the note.
				os.Remove(filepath.Join(ix.dir, stagedMetaName))
				return nil, nil
			}
		}
	}
	ix.analysis = m.Analysis
	return &m.Segment, nil
}

// CommitStaged makes the staged segment part of the index, after checking
// that it reads back whole. It returns the segment as the MANIFEST names it.
func (ix *Index) CommitStaged() (Segment, error) {
	if ix.readOnly {
		return Segment{}, fmt.Errorf("%w: %s", ErrReadOnly, ix.dir)
	}
	seg, err := ix.Staged()
	if err != nil {
		return Segment{}, err
	}
	if seg == nil {
		return Segment{}, fmt.Errorf("index %s: no staged segment", ix.dir)
	}
	check := *seg
	check.Name = stagedName
	if err := ix.loadSegment(check, func(*Record) error { return nil }); err != nil {
		return Segment{}, err
	}
	// The note names the segment before it is renamed, so that a commit
	// that stops before the MANIFEST names it leaves it claimed: staged
	// still, not a stale file to remove (resumeStaged).
	seg.Name = ix.nextName()
	meta, err := json.Marshal(stagedMeta{Analysis: ix.analysis, Segment: *seg, Commit: seg.Name})
	if err == nil {
		err = writeSynced(filepath.Join(ix.dir, stagedMetaName), meta)
	}
	if err == nil {
		err = syncDir(ix.dir)
	}
	if err != nil {
		return Segment{}, fmt.Errorf("index %s: noting the commit of the staged segment: %w", ix.dir, err)
	}
	crashPoint("commit-noted")
	if err := ix.commit(*seg, filepath.Join(ix.dir, stagedName), true); err != nil {
		return Segment{}, err
	}
	os.Remove(filepath.Join(ix.dir, stagedMetaName))
	return ix.man.Segments[len(ix.man.Segments)-1], syncDir(ix.dir)
}

// DiscardStaged removes the staged segment, if there is one: what a cluster
// job whose outputs were not all written had staged.
func (ix *Index) DiscardStaged() error {
	if ix.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, ix.dir)
	}
	for _, n := range []string{stagedName, stagedMetaName} {
		if err := os.Remove(filepath.Join(ix.dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("index %s: %w", ix.dir, err)
		}
	}
	return syncDir(ix.dir)
}

// Abort removes the segment being written. It is a no-op after Commit.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	os.Remove(w.tmp)
}

// writeSynced writes b to path through a synced temporary file.
func writeSynced(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// syncDir makes the directory's entries (renames, removals) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeManifest(dir string, man manifest) error {
	b, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	tmp := filepath.Join(dir, manifestName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	_, err = f.Write(b)
	crashPoint("manifest-written")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, manifestName))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index %s: MANIFEST: %w", dir, err)
	}
	crashPoint("manifest-renamed")
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Stats sums an index's segments.
type Stats struct {
	Segments, Records, Pages int
	Gone                     int // replaced captures' entries, of Records
	Bytes                    int64
	First, Last              time.Time
}

// Stats sums the index's segments.
func (ix *Index) Stats() Stats {
	var s Stats
	for _, g := range ix.man.Segments {
		s.Segments++
		s.Records += g.Records
		s.Pages += g.Pages
		s.Gone += g.Gone
		s.Bytes += g.Bytes
		if s.First.IsZero() || g.Created.Before(s.First) {
			s.First = g.Created
		}
		if g.Created.After(s.Last) {
			s.Last = g.Created
		}
	}
	return s
}

// Analysis is how the index's pages were analysed.
func (ix *Index) Analysis() string { return ix.man.Analysis }

// AppendRecord appends a record's entry, as a segment holds it (without its
// length prefix), to b.
func AppendRecord(b []byte, r *Record) ([]byte, error) { return appendRecord(b, r) }

// DecodeRecord reads an entry written by AppendRecord.
func DecodeRecord(b []byte) (*Record, error) { return decodeRecord(b) }

func appendRecord(b []byte, r *Record) ([]byte, error) {
	for _, s := range [...]string{r.ID, r.URI, r.Date, r.Digest, r.Computed, r.File, r.Entity} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(r.Offset))
	b = append(b, r.SHA256[:]...)
	if r.Gone {
		return append(append(b, 2), r.GoneKey[:]...), nil
	}
	if r.Stays {
		return append(b, 3), nil
	}
	if r.Page == nil {
		return append(b, 0), nil
	}
	b = append(b, 1)
	return r.Page.AppendBinary(b)
}

func decodeRecord(b []byte) (*Record, error) {
	r := new(Record)
	for _, s := range [...]*string{&r.ID, &r.URI, &r.Date, &r.Digest, &r.Computed, &r.File, &r.Entity} {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, errors.New("bad string")
		}
		*s, b = string(b[n:n+int(l)]), b[n+int(l):]
	}
	off, n := binary.Uvarint(b)
	if n <= 0 || off > 1<<62 {
		return nil, errors.New("bad offset")
	}
	r.Offset, b = int64(off), b[n:]
	if len(b) < 33 {
		return nil, errors.New("cut short")
	}
	copy(r.SHA256[:], b)
	b = b[32:]
	has := b[0]
	b = b[1:]
	switch has {
	case 0:
		if len(b) != 0 {
			return nil, errors.New("bytes after the record")
		}
	case 1:
		p := new(near.Page)
		if err := p.UnmarshalBinary(b); err != nil {
			return nil, err
		}
		r.Page = p
	case 2:
		if len(b) != len(r.GoneKey) {
			return nil, errors.New("bad replaced capture's key")
		}
		r.Gone = true
		copy(r.GoneKey[:], b)
	case 3:
		if len(b) != 0 {
			return nil, errors.New("bytes after the record")
		}
		r.Stays = true
	default:
		return nil, errors.New("bad page flag")
	}
	return r, nil
}
