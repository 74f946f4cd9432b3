// Package dedup is warcdedup's pipeline: it streams the records of WARC files,
// finds responses whose payload duplicates an earlier capture, and writes every
// record to the output either unchanged, byte for byte, or as a revisit record
// that points at the capture that was kept.
//
// The kept capture is always the earliest one in input order, across all files of
// a run, so the output does not depend on timing or worker count.
package dedup

import (
	"bufio"
	"crypto/sha1"
	"fmt"
	"io"
	"maps"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// Revisit profiles of WARC 1.0 and 1.1 (ISO 28500:2017, Sec. 6.7.2). The profile
// of a revisit follows the WARC version of the record it replaces.
const (
	ProfileIdentical10 = "http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"
	ProfileIdentical11 = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
)

// Options control a run.
type Options struct {
	// Workers is the number of goroutines that analyse pages; 0 means one per CPU.
	Workers int
	// MinSize is the smallest payload, in bytes, that is deduplicated: tiny payloads
	// (empty pages, "OK", 1x1 GIFs) save nothing and are often not the same resource.
	// The default, 256 bytes, is jwarc's dedupe tool's: a short page (a one-line
	// notice, a stub story) of a few hundred bytes re-captured with a new
	// timestamp is still a copy worth finding.
	MinSize int64
	// Lenient carries damaged input to the output unchanged, counted, instead of
	// failing the file.
	Lenient bool
	// SpoolMemory and TempDir bound the memory a record's raw bytes may take.
	SpoolMemory int
	TempDir     string
	// Warn, if set, is told about damaged input that a lenient run carried over.
	Warn func(err error)
	// Empty, if set, is told about an input without a single record (an empty
	// file, or blank lines only). That is not damage: nothing is lost, and the
	// output is a copy of the input.
	Empty func(file string)
	// Nonconforming, if set, is told about records that are readable but depart
	// from the standard (see warcio.Validate), once each is decided: replaced
	// says that the record is a duplicate written as a revisit record in its
	// place; otherwise it is copied as it is. Map, which decides nothing,
	// does not tell it.
	Nonconforming func(file string, rec *warcio.Record, problems []warcio.Problem, replaced bool)
	// DuplicateID, if set, is told about each record whose WARC-Record-ID an
	// earlier record of the run had (WARC 1.1 Sec. 5.2 wants it globally
	// unique): a revisit referring to either is ambiguous. The record is
	// copied or replaced as any other; the IDs derived from it (its revisit's,
	// its annotation's) are made from its file and offset too, so that they
	// stay unique.
	DuplicateID func(file string, rec *warcio.Record)
	// BrokenRevisit, if set, is told about each revisit record of the input
	// that names a response this run replaced while no response with its
	// URI and payload digest stays (see referring): replay tools can no
	// longer resolve it. It is told at Close, in input order, once every
	// response has been judged, whichever was read first. offset is the
	// record's as stored (as warcio.Record.Offset); uri and digest are what
	// it names.
	BrokenRevisit func(file string, offset int64, id, uri, digest string)
	// NoVerify skips checking blocks against their WARC-Block-Digest.
	NoVerify bool
	// Report, if set, receives one JSON line per duplicate found and, at Close,
	// one per cluster (see Duplicate and Cluster). A Run's lines are written
	// when the next Run starts or at Close, so that a withdrawn Run has none.
	Report io.Writer
	// Near says what happens to near duplicates of HTML pages.
	Near NearMode
	// Config is how pages are analysed and near duplicates decided.
	near.Config
}

// DefaultOptions are the settings of the command line tool.
func DefaultOptions() Options {
	return Options{MinSize: 256, Near: NearRevisit, Config: near.DefaultConfig()}
}

// Stats counts what a run did.
type Stats struct {
	In, Out         map[string]int // records by WARC-Type ("arc", "damaged" for those kinds)
	Revisits        int            // responses turned into revisit records
	BytesIn         int64          // input bytes as stored
	BytesOut        int64          // output bytes as written
	BytesSaved      int64          // payload bytes no longer stored
	Damaged         int            // damaged regions carried over (lenient)
	DamagedBytes    int64
	UnparsedHTTP    int // responses whose HTTP head could not be parsed (kept as they are)
	EligibleUnique  int // responses indexed as the kept copy of their payload
	SkippedNotOK    int // responses not deduplicated: status other than 200
	SkippedSmall    int // ... payload under MinSize
	SkippedTruncSeg int // ... truncated or segmented records
	Nonconforming   int // records with problems found by warcio.Validate

	// NonconformingReplaced are the Nonconforming records replaced by
	// revisit records; the others are copied as they are.
	NonconformingReplaced int

	DigestConflicts int // same recorded payload digest or SHA-1, different payload bytes: kept both
	EmptyFiles      int // inputs without a single record
	NearRevisits    int // near duplicates replaced by revisit records
	Annotations     int // near duplicates kept, with a metadata record added
	Containments    int // pages that hold a kept page's text or are held in one: kept, reported
	NearSameSite    int // near revisits of a page of the same site
	NearCrossSite   int // ... of a page of another site (the two add up to NearRevisits)
	WeakEvidence    int // near duplicates kept for weak evidence (near.Match.Reason: MinEvidence, OtherURLTau, OwnText, shop pages)
	DuplicateIDs    int // records whose WARC-Record-ID an earlier record of the run had
	Seeded          int // records read from an index of earlier runs (Seed)
	LaterKept       int // duplicates kept whole because the kept copy was captured after them
	AlreadyKept     int // records an index already holds as kept (the same file run again): kept whole
	BrokenRevisits  int // input revisits naming a response the run replaced, with none like it left (Options.BrokenRevisit)
}

// clone returns a copy of s that shares no map with it.
func (s Stats) clone() Stats {
	s.In, s.Out = maps.Clone(s.In), maps.Clone(s.Out)
	return s
}

func (s *Stats) add(m *map[string]int, k string) {
	if *m == nil {
		*m = map[string]int{}
	}
	(*m)[k]++
}

// Deduper runs the pipeline over one or more inputs, keeping its index of kept
// payloads across them, so that a later file can refer to an earlier one.
//
// What a Run adds (kept records, indexed pages, record IDs, report lines,
// counts) can be withdrawn, so that a file whose output is not kept is never
// referred to by a later one: a Run that fails withdraws its own, and
// Withdraw withdraws the last Run that succeeded.
type Deduper struct {
	opts   Options
	exact  *refStore   // payload digest -> earliest capture
	near   *near.Index // kept pages, made on first use
	report *report
	ids    *idSet
	gone   goneSet    // responses replaced with no capture of their URI and payload left
	visits revisitLog // the input revisits, checked against gone at Close
	Stats  Stats

	outName     string       // the next Run's output file (SetOutput)
	recordsDone atomic.Int64 // records decided so far, for a progress display
	ran         bool         // a Run has started: no more Seeds
	seedRefs    uint32       // references and near pages that are seeds (Seed)
	seedPages   int
	seeded      bool // a Seed has come: no more HoldOutput
	// held is what the outputs to be written over hold that the seeds
	// may name (HoldOutput).
	held        []*Held
	undo        undo // how to withdraw the current or last Run
	canWithdraw bool // the last Run succeeded and nothing was started since
	// broken is set by a panic in the decision loop, which may have left the
	// indexes half updated: no later Run may trust them.
	broken *PanicError

	// The steps of a run on a cluster (see Map, Judge, Apply).
	stage        stage
	emit         func(*Fact) error         // stageMap
	applyNext    func() (*Decision, error) // stageApply
	applyPending *Decision
	applied      int64  // records Apply has read
	judging      bool   // Judge has been called
	judgeFile    string // the file of the last Fact judged

	// judgeAnalyzer analyses, in the decision loop, a page whose analysis
	// was left to it (Fact.later).
	judgeAnalyzer *near.Analyzer
}

// undo is the state before a Run, for withdrawing it; the undo logs of the
// reference store and the ID set hold the rest.
type undo struct {
	stats    Stats
	nearDocs int // pages in the near-duplicate index
}

// New returns a Deduper.
func New(opts Options) *Deduper {
	return &Deduper{opts: opts, exact: newRefStore(opts.TempDir), report: newReport(opts.Report, opts.TempDir), ids: newIDSet(),
		visits: revisitLog{dir: opts.TempDir}}
}

// Withdraw withdraws the last Run, which succeeded, for when its output could
// not be completed after all (a rename or fsync failed): its kept records and
// pages are no longer found as the kept copy of a later duplicate, its
// report lines are not written, and Stats are as they were before it. It is a
// no-op if there is nothing to withdraw: no Run yet, the last Run failed
// (and withdrew itself), Withdraw was called already, or Close was.
func (d *Deduper) Withdraw() {
	if !d.canWithdraw {
		return
	}
	d.canWithdraw = false
	d.withdraw()
}

// begin makes the last Run final (its report lines are written) and notes
// the state the new one starts from.
func (d *Deduper) begin() error {
	d.canWithdraw = false
	if err := d.report.commit(); err != nil {
		return fmt.Errorf("dedup: writing the report: %w", err)
	}
	d.exact.begin()
	d.ids.begin()
	d.gone.begin()
	d.visits.begin()
	d.undo = undo{stats: d.Stats.clone()}
	if d.near != nil {
		d.undo.nearDocs = d.near.Len()
	}
	return nil
}

// withdraw undoes everything since begin.
func (d *Deduper) withdraw() {
	d.exact.withdraw()
	d.ids.withdraw()
	d.gone.withdraw()
	d.visits.withdraw()
	if d.near != nil {
		d.near.Withdraw(d.undo.nearDocs)
	}
	d.report.withdraw()
	d.Stats = d.undo.stats
	d.undo = undo{}
}

// Close ends the run: it tells of the input revisits the runs broke (see
// referring), writes the report's held lines and cluster lines and releases
// the temporary file of kept records. The last Run can no longer be
// withdrawn.
func (d *Deduper) Close() error {
	d.canWithdraw = false
	err := d.visits.each(func(file, _ string, stored int64, id, uri, digest string) {
		if d.gone.gone(uri, digest) {
			d.Stats.BrokenRevisits++
			if d.opts.BrokenRevisit != nil {
				d.opts.BrokenRevisit(file, stored, id, uri, digest)
			}
		}
	})
	if rerr := d.report.close(); err == nil {
		err = rerr
	}
	if cerr := d.exact.close(); err == nil {
		err = cerr
	}
	return err
}

// Run reads the input in (named name in errors) and writes the deduplicated
// records to out, gzip-compressed if compress. A damaged input fails the run with a
// *warcio.ParseError unless the options are lenient; a panic fails it with a
// *PanicError. A Run that fails withdraws what it added (see Withdraw): the
// caller removes its output and may go on with the next file. A panic in the
// decision loop, which updates the indexes, fails every later Run as well.
//
// Records flow through three stages (STYLE.md, after restic): one goroutine reads
// and digests records in order; Workers goroutines analyse responses in parallel;
// the calling goroutine takes the records back in input order, decides and writes.
// Decisions are made in input order only, so the output is the same for any
// number of workers. At most pipelineDepth records are in flight, which bounds
// memory whatever the input's size.
func (d *Deduper) Run(in io.Reader, name string, out io.Writer, compress bool) (err error) {
	if d.broken != nil {
		return fmt.Errorf("dedup: %s not read: a panic in an earlier file may have left the index inconsistent: %w", name, d.broken)
	}
	if err := d.begin(); err != nil {
		return err
	}
	d.ran = true
	defer func() {
		if err != nil {
			d.withdraw()
		} else {
			d.canWithdraw = true
		}
	}()
	r := warcio.NewReader(in, name)
	r.KeepRaw = true
	// Map copies no record: only their sizes are kept (for Stats).
	r.SizeOnly = d.stage == stageMap
	r.Lenient = d.opts.Lenient
	r.SpoolMemory = d.opts.SpoolMemory
	r.TempDir = d.opts.TempDir
	r.VerifyDigests = !d.opts.NoVerify
	// Records are written in many small pieces (a gzip member's header, body and
	// trailer): a buffer turns them into large writes (measured: 3.1 s of system
	// time on a 100 MB file without it).
	cw := &countingWriter{w: out}
	bw := bufio.NewWriterSize(cw, writeBuffer)
	w := warcio.NewWriter(bw, compress)

	workers := d.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	depth := pipelineDepth * workers
	ordered := make(chan *item, depth)
	work := make(chan *item, depth)
	stop := make(chan struct{})
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		var cur *warcio.Record // the record being read, for a panic's error
		defer func() {
			if v := recover(); v != nil {
				readErr = newPanicError(name, cur, v)
			}
		}()
		for {
			it, err := d.read(r, &cur)
			if err == io.EOF {
				return
			}
			if err != nil {
				readErr = err
				return
			}
			if d.needsAnalysis(it) && !d.exactCopy(it) {
				it.done = make(chan struct{})
				select {
				case work <- it:
				case <-stop:
					it.release()
					return
				}
			}
			select {
			case ordered <- it:
			case <-stop:
				if it.done != nil {
					<-it.done // a worker has it: release it after
				}
				it.release()
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a *near.Analyzer
			for it := range work {
				a = d.analyze(a, name, it)
			}
		}()
	}
	records := 0
	for it := range ordered {
		rec := it.rec
		if e := d.take(name, it, w, err == nil, &records); e != nil && err == nil {
			if cw.err != nil {
				// The output failed while this record was written: its
				// bytes filled the buffer, whose flush failed.
				e = d.writeError(cw, name, rec, e)
			}
			err = e
			close(stop)
		}
	}
	wg.Wait()
	if err == nil {
		err = readErr
	}
	if err == nil {
		// A revisit written as its record ended, short of its CR LF CR LF
		// (see warcio.Writer.ReplaceRecord), gets the rest.
		if err = w.Close(); err == nil {
			err = bw.Flush()
		}
		if err != nil {
			err = d.writeError(cw, name, nil, err)
		}
	}
	d.Stats.BytesOut += w.Offset()
	if err != nil {
		return err
	}
	if records == 0 {
		d.Stats.EmptyFiles++
		if d.opts.Empty != nil {
			d.opts.Empty(name)
		}
	}
	return nil
}

// analyze runs a worker's analysis of one page, with a (re)made analyzer if a
// is nil, and returns the analyzer for the next page. A panic is kept on the
// item, for the decision loop to fail the run with when it takes the item in
// its turn; the analyzer is dropped, since it may have been left
// inconsistent.
func (d *Deduper) analyze(a *near.Analyzer, name string, it *item) (next *near.Analyzer) {
	defer close(it.done)
	defer func() {
		if v := recover(); v != nil {
			it.panicked = newPanicError(name, it.rec, v)
			next = nil
		}
	}()
	if a == nil {
		a = d.newAnalyzer()
	}
	analyzePage(a, it)
	return a
}

// take waits for the item's analysis and, if decide, decides and writes it;
// the item is released either way. A panic here fails the Run and marks the
// Deduper broken.
func (d *Deduper) take(name string, it *item, w *warcio.Writer, decide bool, records *int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			pe := newPanicError(name, it.rec, v)
			d.broken, err = pe, pe
		}
	}()
	defer it.release()
	if it.done != nil {
		<-it.done
	}
	if !decide {
		return nil
	}
	if it.panicked != nil {
		return it.panicked
	}
	if it.rec.Kind != warcio.KindPadding {
		*records++
		d.recordsDone.Add(1)
	}
	switch d.stage {
	case stageMap:
		if it.rec.Kind == warcio.KindPadding {
			// Bytes that hold no record (an empty gzip member): nothing to
			// decide, and its offset in the decompressed stream is the next
			// record's, or another's like it, which would give two Facts
			// one key. Apply copies it as it is.
			return nil
		}
		f := d.factOf(it)
		d.warnings(name, it, f, nil)
		return d.emit(f)
	case stageApply:
		return d.applyOne(name, it, w)
	}
	if testDecideHook != nil {
		testDecideHook(it)
	}
	return d.decide(name, it, w)
}

// testDecideHook, if set by a test, is called before each decision.
var testDecideHook func(*item)

// WriteError is a failure to write a Run's output (a full disk, a quota, an
// I/O error): where in the output, and which input record was being written.
// It wraps the writer's error.
type WriteError struct {
	Output string // the output's name (SetOutput); "" if not named
	Offset int64  // the bytes the output took before it failed
	File   string // the input
	// RecordOffset is where the record being written starts in the input
	// (as warcio.Record.Offset), -1 when the output failed after the last
	// record, on the final flush.
	RecordOffset int64
	RecordID     string // its WARC-Record-ID, if it has one
	Err          error
}

func (e *WriteError) Error() string {
	var b strings.Builder
	b.WriteString("dedup: output ")
	if e.Output != "" {
		b.WriteString(e.Output + " ")
	}
	fmt.Fprintf(&b, "at offset %d", e.Offset)
	switch {
	case e.RecordOffset < 0:
		fmt.Fprintf(&b, ", after the last record of %s", e.File)
	case e.RecordID != "":
		fmt.Fprintf(&b, ", writing record %s of %s at offset %d", e.RecordID, e.File, e.RecordOffset)
	default:
		fmt.Fprintf(&b, ", writing the record of %s at offset %d", e.File, e.RecordOffset)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *WriteError) Unwrap() error { return e.Err }

// writeError makes err, met writing the output of the input name, a
// *WriteError; rec is the record being written, nil after the last.
func (d *Deduper) writeError(cw *countingWriter, name string, rec *warcio.Record, err error) error {
	e := &WriteError{Output: d.outName, Offset: cw.n, File: name, RecordOffset: -1, Err: err}
	if rec != nil {
		e.RecordOffset, e.RecordID = rec.Offset, rec.ID()
	}
	return e
}

// countingWriter counts the bytes its writer took, and keeps its first
// error: a Run's output, under the buffer that batches the records' writes.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// PanicError is a panic met while processing a file: a bug, reported with
// where it happened instead of ending the process.
type PanicError struct {
	File     string
	Offset   int64  // where the record starts in the file; -1 if none was read yet
	RecordID string // its WARC-Record-ID, if it has one
	Value    any    // what panic was called with
	Stack    []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string {
	id := e.RecordID
	if id == "" {
		id = "(none)"
	}
	return fmt.Sprintf("dedup: internal error: panic in %s at offset %d, record %s: %v", e.File, e.Offset, id, e.Value)
}

func newPanicError(file string, rec *warcio.Record, v any) *PanicError {
	e := &PanicError{File: file, Offset: -1, Value: v, Stack: debug.Stack()}
	if rec != nil {
		e.Offset, e.RecordID = rec.Offset, rec.ID()
	}
	return e
}

// writeBuffer is the size of the buffer a Run writes its output through.
const writeBuffer = 1 << 20

// pipelineDepth is how many records per worker may wait between the stages: enough
// to keep every worker busy while one slow page is analysed, few enough that the
// records' spooled bytes stay small.
const pipelineDepth = 16

// item is one record on its way through the pipeline.
type item struct {
	rec  *warcio.Record
	raw  *warcio.Raw
	pay  *warcio.Payload // for HTTP responses whose head parsed
	perr error           // why pay is nil for an HTTP response
	done chan struct{}   // closed when analysis is over; nil if none was needed
	page *near.Page      // the page for near-duplicate matching, if it was analysed
	// later: the page needs analysis, which was left to the decision loop
	// because an earlier capture was kept with the same payload digest
	// (see exactCopy).
	later bool
	// panicked is set if the analysis panicked.
	panicked *PanicError
	// encodingCut: analysis found the body's Content-Encoding stream cut
	// short (warcio.ErrEncodingCut), a capture cut off in transfer.
	encodingCut bool
}

// release frees the item's spools and gives its payload's body back to the
// reader; the item is done with.
func (it *item) release() {
	it.raw.Release()
	if it.pay != nil {
		it.pay.Release()
	}
}

// read takes the next record off the reader with its payload digested; cur is
// set to the record as soon as it is known.
func (d *Deduper) read(r *warcio.Reader, cur **warcio.Record) (*item, error) {
	*cur = nil
	rec, err := r.Next()
	if err != nil {
		return nil, err
	}
	*cur = rec
	it := &item{rec: rec}
	if rec.Kind == warcio.KindWARC && strings.EqualFold(rec.Type(), "response") && isHTTP(rec) {
		it.pay, it.perr = warcio.ReadPayload(r, d.keepBody)
	}
	if it.raw, err = r.Finish(); err != nil {
		return nil, err
	}
	return it, nil
}

// decide decides over the record of it and writes it, unchanged or as a
// revisit.
func (d *Deduper) decide(name string, it *item, w *warcio.Writer) error {
	f := d.factOf(it)
	if it.later {
		f.later = d.analyzeLater(name, it)
	}
	dec, err := d.judge(name, f, w.Offset())
	if err != nil {
		return err
	}
	d.warnings(name, it, f, &dec)
	return d.write(w, name, it, &dec)
}

// warnings tells the Options' callbacks about a record that departs from the
// standard, repeats an earlier record's ID or is damaged; dec is its
// Decision, nil where none is made (Map).
func (d *Deduper) warnings(name string, it *item, f *Fact, dec *Decision) {
	if f.nonconforming && dec != nil && d.opts.Nonconforming != nil {
		d.opts.Nonconforming(name, it.rec, f.problems, dec.act != actPass)
	}
	if dec != nil && dec.repeat > 0 && d.opts.DuplicateID != nil {
		d.opts.DuplicateID(name, it.rec)
	}
	if f.cls == clsDamaged && d.opts.Warn != nil {
		d.opts.Warn(it.rec.Err)
	}
	if f.cls == clsAfterDamage && d.opts.Warn != nil {
		d.opts.Warn(fmt.Errorf("%s: record %s at offset %d follows damaged bytes in their stream, and may be part of them: not deduplicated", name, it.rec.ID(), it.rec.Offset))
	}
}

// resolve reads the kept record of a match back from the store.
func (d *Deduper) resolve(m *match) error {
	r, err := d.exact.get(m.Ref)
	m.kept, m.keptDigest = r, r.digest
	return err
}

// rewritable says whether a header's fields can be written in a new record
// and read back as they are: a name with white space, a colon or a line
// break, or a value with a line break (a bare CR inside a line, which the
// Reader keeps) or with white space around it (which the Reader trims),
// would come back different or end the header early.
func rewritable(h *warcio.Header) bool {
	for _, f := range h.Fields {
		if f.Name == "" || strings.ContainsAny(f.Name, " \t\r\n:") ||
			strings.ContainsAny(f.Value, "\r\n") || strings.TrimSpace(f.Value) != f.Value {
			return false
		}
	}
	return true
}

func isHTTP(rec *warcio.Record) bool {
	ct := strings.ToLower(rec.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "application/http") {
		return true
	}
	uri := strings.ToLower(strings.Trim(rec.Header.Get("WARC-Target-URI"), "<>"))
	return ct == "" && (strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://"))
}

// Revisit builds the header of a revisit record that replaces the response rec,
// by a reference to the kept capture (WARC 1.1 Sec. 6.7); its block is the
// response's HTTP head alone.
// The fields of the response are kept in their order (WARC-Concurrent-To and the
// like stay true of the capture); the type, record ID, block digest and length
// change, and the revisit fields are added.
func Revisit(rec *warcio.Record, digest, keptID, keptURI, keptDate string) *warcio.Header {
	return revisit(rec, rec.ID(), digest, keptID, keptURI, keptDate)
}

// revisit is Revisit with the record ID made from idBase (see idBase).
func revisit(rec *warcio.Record, idBase, digest, keptID, keptURI, keptDate string) *warcio.Header {
	h := rec.Header.Clone()
	profile := ProfileIdentical10
	if h.Version == "WARC/1.1" {
		profile = ProfileIdentical11
	}
	h.Set("WARC-Type", "revisit")
	h.Set("WARC-Record-ID", NewID(idBase, "revisit"))
	h.Set("WARC-Payload-Digest", digest)
	h.Del("WARC-Block-Digest")
	h.Set("WARC-Profile", profile)
	if keptID != "" {
		h.Set("WARC-Refers-To", keptID)
	} else {
		// A capture known from a CDXJ line, which names no record: replay
		// tools resolve a revisit by its target URI and date.
		h.Del("WARC-Refers-To")
	}
	h.Set("WARC-Refers-To-Target-URI", keptURI)
	h.Set("WARC-Refers-To-Date", keptDate)
	h.Set("WARC-Truncated", "length")
	h.Set("Content-Type", "application/http; msgtype=response")
	return h
}

// NewID returns a WARC-Record-ID for a record derived from the record with ID
// orig: a name-based UUID (RFC 9562 version 5 style, SHA-1), so the same input
// always gives the same output, whatever the worker count or the run.
func NewID(orig, what string) string {
	sum := sha1.Sum([]byte("warcdedup\x00" + what + "\x00" + orig))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return formatUUIDID(sum[:16])
}

func kindName(rec *warcio.Record) string {
	switch rec.Kind {
	case warcio.KindWARC:
		if t := strings.ToLower(rec.Type()); t != "" {
			return t
		}
		return "untyped"
	default:
		return rec.Kind.String()
	}
}

// refersURI is the kept record's URI as WARC-Refers-To-Target-URI gives it:
// as the kept record's WARC-Target-URI is written, which for a capture known
// from a CDX (bare) is guessed from the duplicate's own: wget writes
// "<http://...>" in its records and the bare URL in its CDX, and a replay
// tool or checker matches the field against the kept record's as a string.
func refersURI(kept ref, rec *warcio.Record) string {
	if kept.bare && strings.HasPrefix(rec.Header.Get("WARC-Target-URI"), "<") && !strings.HasPrefix(kept.uri, "<") {
		return "<" + kept.uri + ">"
	}
	return kept.uri
}
