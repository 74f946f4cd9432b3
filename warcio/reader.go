package warcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Kind says what a [Record] holds.
type Kind uint8

const (
	KindWARC    Kind = iota // a WARC record
	KindARC                 // an ARC record (its header line is given as synthetic fields)
	KindDamaged             // bytes a lenient Reader could not read as a record; see Record.Err
	KindPadding             // bytes that hold no record, such as an empty gzip member; kept so that nothing is lost
)

func (k Kind) String() string {
	switch k {
	case KindWARC:
		return "warc"
	case KindARC:
		return "arc"
	case KindDamaged:
		return "damaged"
	case KindPadding:
		return "padding"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Record is one record of a WARC or ARC file.
type Record struct {
	Kind   Kind
	Header Header
	// Offset is where the record starts in the file: for compressed input the offset
	// of the gzip member it starts in (exact for CDX when the member holds only this
	// record), otherwise the offset of its first byte.
	Offset int64
	// PlainOffset is the offset of the record's first byte in the decompressed stream.
	PlainOffset int64
	// Size is the number of bytes the record takes in the file, known once the
	// record is complete: its gzip member's length when it had a member of its own
	// (Offset and Size then address it exactly, as CDX needs), else its length in
	// the decompressed stream, trailing newlines included.
	Size int64
	// ContentLength is the declared length of the block.
	ContentLength int64
	// Err says what was wrong with a KindDamaged record, or with a record whose
	// block turned out short (a *ParseError).
	Err error
	// TrailerOK says the block was followed by CRLF CRLF, as the standard wants;
	// set when the record is complete.
	TrailerOK bool
	// AfterDamage says a lenient Reader found the record by scanning damaged
	// bytes for a line that starts a record, or read it after such a record
	// before a gzip member began with a record: its first line may be a line
	// of the damaged record's block (a WARC file stored in a response, whose
	// Content-Length did not parse), so its bytes are to be carried over as
	// they are, as the damaged bytes are.
	AfterDamage bool
	complete    bool
	lead        int64 // Raw.Lead
	cut         int   // Raw.TrailerCut
	// Raw holds the record's exact input bytes once the record is complete
	// (after [Reader.Finish] or the next Next), when the Reader keeps them.
	Raw *Raw
}

// ID is the record's WARC-Record-ID, or "" for ARC and damaged records.
func (r *Record) ID() string { return r.Header.Get("WARC-Record-ID") }

// Type is the record's WARC-Type, or "" for ARC and damaged records.
func (r *Record) Type() string {
	if r.Kind != KindWARC {
		return ""
	}
	return r.Header.Get("WARC-Type")
}

// Raw is the exact bytes a record had in the input.
type Raw struct {
	// Plain is the record's bytes in the decompressed stream, from its first byte
	// through the newlines that followed its block. For a damaged region of the
	// compressed file it is nil or the part that could be decompressed.
	Plain *Spool
	// File is the record's bytes as stored in the file when they form a whole:
	// the gzip member that held only this record, or a damaged region of the file.
	// Nil otherwise (plain input, or a member shared by several records).
	File *Spool
	// FileIsMember says File is a whole gzip member holding the record (as opposed
	// to damaged bytes): its decompressed content is the record's plain bytes,
	// which are then not kept a second time (Plain is nil).
	FileIsMember bool
	// Size is the number of bytes the record takes in the file: len(File) when File
	// is set, else the length of Plain.
	Size int64
	// Lead is how many of the record's decompressed bytes come before its
	// first byte: newlines (CR or LF) that its gzip member starts with, or
	// a plain file (all the bytes of a member of newlines alone). They end
	// the record before, whose writer put its closing CR LF CR LF, or part
	// of it, at the start of this record's member: a record written in this
	// one's place writes them first (see Writer.ReplaceRecord).
	Lead int64
	// TrailerCut is how many bytes of the CR LF CR LF after a WARC record's
	// block its gzip member ended without (1 to 4), when the bytes after
	// the block are the start of it: its writer put the rest, if anywhere,
	// at the start of the next member, the next record's Lead. 0 otherwise.
	TrailerCut int
}

// leadReader returns a reader of the record's decompressed bytes, from the
// first, for its Lead.
func (r *Raw) leadReader() (io.Reader, error) {
	switch {
	case r.Plain != nil:
		return r.Plain.NewReader(), nil
	case r.File != nil && r.FileIsMember:
		zr, err := gzip.NewReader(r.File.NewReader())
		if err != nil {
			return nil, err
		}
		zr.Multistream(false)
		return zr, nil
	}
	return nil, ErrNoRaw
}

// Release frees the spools: memory for reuse, temporary files removed. The Raw
// must not be used after.
func (r *Raw) Release() {
	if r == nil {
		return
	}
	if r.Plain != nil {
		r.Plain.Free()
	}
	if r.File != nil {
		r.File.Free()
	}
}

const (
	maxHeader  = 1 << 20 // a longer WARC header block is an error, not a memory sink
	srcBufSize = 64 << 10
	// fileBufSize is small because a gzip member's kept bytes start as a
	// copy of all that is buffered when it opens (openMember), for members
	// of 20 KB on average: with 256 KB, a run over a 413 MB file took 2.5%
	// more CPU time (3 runs each, interleaved).
	fileBufSize = 32 << 10
)

// Reader reads records from a WARC or ARC file, plain or gzip-compressed.
type Reader struct {
	// KeepRaw makes the Reader keep each record's exact input bytes in Record.Raw.
	KeepRaw bool
	// SizeOnly, with KeepRaw, keeps only the size of each record's input bytes:
	// Record.Raw has its Size (which counts the blank lines kept with a record,
	// so that the sizes of a file's records add up to the file's), and its
	// spools hold no bytes. It is for readers that never copy a record: not
	// copying each record's compressed bytes into memory saves their copy.
	SizeOnly bool
	// Lenient makes the Reader return damaged input as KindDamaged records instead
	// of stopping with an error. A failure to read the input or to keep a
	// record's bytes is no damage in the file: it stops a lenient Reader too,
	// with a *ParseError wrapping ErrRead or ErrSpool.
	Lenient bool
	// SpoolMemory is how many bytes of a record's raw bytes are kept in memory before
	// a temporary file in TempDir is used. Zero means DefaultSpoolMemory. A
	// temporary file that cannot be created or written fails the read (ErrSpool).
	SpoolMemory int
	TempDir     string
	// VerifyDigests checks each block against its WARC-Block-Digest (sha1, sha256
	// or md5, base32 or hex). A mismatch is an error wrapping ErrDigest; in lenient
	// mode it is set as Record.Err and the record is returned as it is.
	VerifyDigests bool

	name    string
	cnt     counter
	fbr     *bufio.Reader
	gz      *gzip.Reader
	gzipped bool
	src     *bufio.Reader
	arc     bool // ARC format, decided at the first record

	plainPos    int64
	memberStart int64
	memberDone  bool // the current gzip member has ended; a new one must be opened
	memberRecs  int  // records started in the current member
	// memberGave: a record decompressed from the current member was
	// returned complete; memberGarbage: the member gave bytes that are no
	// record or a block that does not match its digest (see memberRanOn).
	memberGave, memberGarbage bool
	// lost ends a lenient Reader like a failure (memberRanOn).
	lost error
	// afterDamage: a lenient Reader found the record it reads now by
	// scanning damaged bytes for a line that starts a record (resync), in
	// the stream those bytes are in; it lasts until a gzip member starts
	// with a record (Record.AfterDamage).
	afterDamage  bool
	memberSpool  *Spool
	started      bool
	cur          *Record
	remaining    int64
	finished     bool
	plain        *Spool
	recAloneGzip bool
	digest       blockDigest
	fileSpool    *Spool  // the member of a record that was alone in it
	fileIsMember bool    // fileSpool is a whole gzip member (not damaged bytes)
	memberPlain  int64   // plainPos when the current member was opened
	pending      *Record // a damaged record to return from the next Next
	rec          *Record // the record being read, for the position of a failure
	spoolErr     error   // the first failed write to a spool (wraps ErrSpool)
	failed       error   // the failure that ended reading (see failure)
	scratch      []byte
	err          error
}

// counter counts bytes read from the file and, while tee is set, copies them to it:
// that is how a gzip member's compressed bytes are kept for byte-exact copying.
type counter struct {
	r   io.Reader
	n   int64
	tee *Spool
	// err is the input's first error other than io.EOF, wrapped in ErrRead. It
	// is all Read returns from then on: bytes that come after a failed read
	// are not trusted to be the file's next bytes.
	err error
	// teeErr is the first failed write to tee, wrapped in ErrSpool. The input
	// is still good, so reading goes on and the Reader reports the failure
	// where it can name the record (see Reader.failure).
	teeErr error
}

func (c *counter) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.tee != nil && n > 0 {
		if _, werr := c.tee.Write(p[:n]); werr != nil && c.teeErr == nil {
			c.teeErr = fmt.Errorf("%w: %w", ErrSpool, werr)
		}
	}
	if err != nil && err != io.EOF {
		c.err = fmt.Errorf("%w at file offset %d: %w", ErrRead, c.n, err)
		return n, c.err
	}
	return n, err
}

// NewReader returns a Reader of r. name is used in error messages (a file name).
// Compression is detected from the first bytes.
func NewReader(r io.Reader, name string) *Reader {
	rd := &Reader{name: name}
	rd.cnt.r = r
	rd.fbr = bufio.NewReaderSize(&rd.cnt, fileBufSize)
	return rd
}

func (r *Reader) spool() *Spool {
	if r.SizeOnly {
		return newSizeSpool()
	}
	lim := r.SpoolMemory
	if lim <= 0 {
		lim = DefaultSpoolMemory
	}
	return NewSpool(lim, r.TempDir)
}

func (r *Reader) fileOffset() int64 { return r.cnt.n - int64(r.fbr.Buffered()) }

func (r *Reader) perr(off int64, id string, err error) *ParseError {
	return &ParseError{File: r.name, Offset: off, Plain: r.plainPos, RecordID: id, Err: err}
}

func (r *Reader) start() error {
	r.started = true
	magic, err := r.fbr.Peek(2)
	if err != nil && len(magic) == 0 {
		if err == io.EOF {
			return io.EOF
		}
		return r.failure()
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		r.gzipped = true
		r.memberDone = true
		r.src = bufio.NewReaderSize(nil, srcBufSize)
		return nil
	}
	r.src = r.fbr
	return nil
}

// openMember starts the next gzip member. It returns io.EOF at a clean end of file.
func (r *Reader) openMember() error {
	r.memberStart = r.fileOffset()
	r.memberPlain = r.plainPos
	r.memberRecs = 0
	r.memberGave, r.memberGarbage = false, false
	if r.KeepRaw {
		s := r.spool()
		if n := r.fbr.Buffered(); n > 0 {
			b, _ := r.fbr.Peek(n)
			r.keep(s, b)
		}
		r.memberSpool = s
		r.cnt.tee = s
	}
	var err error
	if r.gz == nil {
		r.gz, err = gzip.NewReader(r.fbr)
	} else {
		err = r.gz.Reset(r.fbr)
	}
	if err != nil {
		if f := r.failure(); f != nil {
			return f
		}
		if err == io.EOF && r.fileOffset() == r.memberStart {
			r.dropMemberSpool()
			return io.EOF
		}
		return r.perr(r.memberStart, "", fmt.Errorf("%w: %v", ErrGzip, err))
	}
	// Reset turns multistream back on: one member at a time is how member
	// boundaries, and so exact offsets and byte-exact copies, are known.
	r.gz.Multistream(false)
	r.src.Reset(r.gz)
	r.memberDone = false
	return nil
}

func (r *Reader) dropMemberSpool() {
	r.cnt.tee = nil
	if r.memberSpool != nil {
		r.memberSpool.Free()
		r.memberSpool = nil
	}
}

// Next advances to the next record and returns it; io.EOF at the end of input.
// Bytes of the previous record not read by the caller are skipped.
func (r *Reader) Next() (*Record, error) {
	if r.cur != nil && !r.finished && r.err == nil {
		if _, err := r.Finish(); err != nil {
			return nil, err
		}
	}
	if r.failed != nil {
		return nil, r.failed
	}
	if r.pending != nil {
		// A damaged record found while finishing the previous one.
		rec := r.pending
		r.pending = nil
		r.cur, r.finished = rec, true
		return rec, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	r.cur, r.finished = nil, false
	if !r.started {
		if err := r.start(); err != nil {
			r.err = err
			return nil, err
		}
	}
	rec, err := r.next()
	if f := r.failure(); f != nil {
		return nil, f
	}
	if err == nil || err == io.EOF || !r.Lenient {
		if err != nil {
			r.err = err
		}
		return rec, err
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		r.err = err
		return nil, err
	}
	if errors.Is(err, ErrGzip) {
		rec = r.damagedRest(pe)
	} else {
		rec = r.resync(pe)
	}
	if f := r.failure(); f != nil {
		if rec != nil {
			rec.Raw.Release()
		}
		return nil, f
	}
	return rec, nil
}

// failure returns the error that ends reading when the input could not be read
// or a record's bytes could not be kept (a spool write failed, its temporary
// directory missing or full), and nil otherwise. Neither is damage in the file,
// so a lenient Reader stops too: carrying on would lose the record. The error is
// a *ParseError naming the record being read, and sticks.
func (r *Reader) failure() error {
	if r.lost != nil {
		return r.lost
	}
	if r.cnt.err == nil && r.spoolErr == nil && r.cnt.teeErr == nil {
		return nil
	}
	if r.failed != nil {
		return r.failed
	}
	cause := r.cnt.err
	if cause == nil {
		cause = r.spoolErr
	}
	if cause == nil {
		cause = r.cnt.teeErr
	}
	pe := &ParseError{File: r.name, Offset: r.plainPos, Plain: r.plainPos, Err: cause}
	switch {
	case r.rec != nil:
		pe.Offset, pe.Plain, pe.RecordID = r.rec.Offset, r.rec.PlainOffset, r.rec.ID()
	case r.gzipped:
		pe.Offset = r.memberStart
	}
	r.failed, r.err = pe, pe
	r.releaseSpools()
	return pe
}

// keep writes p to s; a failure is kept for failure to report.
func (r *Reader) keep(s *Spool, p []byte) {
	if _, err := s.Write(p); err != nil && r.spoolErr == nil {
		r.spoolErr = fmt.Errorf("%w: %w", ErrSpool, err)
	}
}

// releaseSpools frees the spools the Reader holds once reading has failed.
func (r *Reader) releaseSpools() {
	r.cnt.tee = nil
	for _, s := range []*Spool{r.plain, r.memberSpool, r.fileSpool} {
		if s != nil {
			s.Free()
		}
	}
	r.plain, r.memberSpool, r.fileSpool = nil, nil, nil
	if r.pending != nil {
		r.pending.Raw.Release()
		r.pending = nil
	}
}

func (r *Reader) next() (*Record, error) {
	r.plain = nil
	r.rec = nil
	for {
		if r.gzipped && r.memberDone {
			if err := r.openMember(); err != nil {
				return nil, err
			}
		}
		b, err := r.src.Peek(1)
		if err == io.EOF {
			if r.gzipped {
				r.memberDone = true
				if r.memberRecs == 0 {
					// A member with no record in it (real .open files end with
					// one): not a record, but bytes of the file all the same.
					return r.padding(), nil
				}
				r.dropMemberSpool()
				continue
			}
			if r.plain != nil && r.plain.Len() > 0 {
				return r.padding(), nil
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, r.gzErr(err)
		}
		if b[0] != '\r' && b[0] != '\n' {
			break
		}
		// Blank lines before a record are kept with it, so pass-through is exact.
		if r.KeepRaw && r.plain == nil && !r.lazyPlain() {
			r.plain = r.spool()
		}
		r.src.Discard(1)
		r.plainPos++
		if r.plain != nil {
			r.keep(r.plain, b[:1])
		}
	}
	if r.KeepRaw && r.plain == nil && !r.lazyPlain() {
		r.plain = r.spool()
	}
	rec := &Record{Offset: r.memberStart, PlainOffset: r.plainPos}
	if !r.gzipped {
		rec.Offset = r.plainPos
	}
	// The newlines before the record are the first bytes of its raw bytes:
	// those kept in r.plain, or those its member starts with (see lazyPlain).
	switch {
	case r.plain != nil:
		rec.lead = r.plain.Len()
	case r.lazyPlain():
		rec.lead = r.plainPos - r.memberPlain
	}
	r.rec = rec
	r.recAloneGzip = r.gzipped && r.memberRecs == 0
	if r.recAloneGzip {
		r.afterDamage = false
	}
	rec.AfterDamage = r.afterDamage
	r.memberRecs++
	if r.memberRecs > 1 {
		// Several records share this member: it cannot be copied per record.
		r.dropMemberSpool()
	}
	head, err := r.src.Peek(5)
	if err != nil && err != io.EOF {
		return nil, r.gzErr(err)
	}
	if !r.arc && isWARCMagic(head) {
		return r.readWARCHeader(rec)
	}
	if rec.PlainOffset == 0 || r.arc {
		if p, _ := r.src.Peek(11); string(p) == "filedesc://" {
			r.arc = true
		}
		if r.arc {
			return r.readARCHeader(rec)
		}
	}
	return nil, r.junk(rec)
}

func (r *Reader) gzErr(err error) error {
	if f := r.failure(); f != nil {
		return f
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return r.perr(r.memberStart, "", fmt.Errorf("%w: truncated member", ErrGzip))
	}
	return r.perr(r.memberStart, "", fmt.Errorf("%w: %v", ErrGzip, err))
}

// junk reports bytes that start no record.
func (r *Reader) junk(rec *Record) error {
	p, _ := r.src.Peek(16)
	return &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset,
		Err: fmt.Errorf("%w: %q", ErrNoMagic, p)}
}

// readLine reads one line (through '\n' or to the end of the stream), capturing it.
func (r *Reader) readLine(dst []byte) ([]byte, error) {
	for {
		line, err := r.src.ReadSlice('\n')
		dst = append(dst, line...)
		r.plainPos += int64(len(line))
		if r.plain != nil {
			r.keep(r.plain, line)
		}
		if err == bufio.ErrBufferFull {
			if len(dst) > maxHeader {
				return dst, ErrHeaderTooLong
			}
			continue
		}
		return dst, err
	}
}

func (r *Reader) readWARCHeader(rec *Record) (*Record, error) {
	var buf []byte
	start := 0
	for {
		var err error
		n := len(buf)
		buf, err = r.readLine(buf)
		line := buf[n:]
		if err != nil && err != io.EOF {
			if err == ErrHeaderTooLong {
				return nil, &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset, Err: err}
			}
			return nil, r.gzErr(err)
		}
		if n == 0 {
			start = len(buf)
		}
		if n > 0 && (len(line) == 0 || isBlank(line)) {
			if len(line) == 0 {
				return nil, &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset,
					Err: fmt.Errorf("%w: header not terminated by a blank line", ErrHeader)}
			}
			break
		}
		if err == io.EOF {
			return nil, &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset,
				Err: fmt.Errorf("%w: header not terminated by a blank line", ErrHeader)}
		}
		if len(buf) > maxHeader {
			return nil, &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset, Err: ErrHeaderTooLong}
		}
	}
	rec.Kind = KindWARC
	rec.Header.Version = strings.TrimSpace(string(buf[:start]))
	var ok bool
	rec.Header.Fields, ok = parseFields(buf[start:], nil)
	id := rec.Header.Get("WARC-Record-ID")
	pe := func(err error) error {
		return &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset, RecordID: id, Err: err}
	}
	if !knownVersion(rec.Header.Version) {
		return nil, pe(fmt.Errorf("%w: %q", ErrVersion, rec.Header.Version))
	}
	if !ok {
		return nil, pe(fmt.Errorf("%w: a line is neither a field nor a continuation", ErrHeader))
	}
	cl, err := strconv.ParseInt(rec.Header.Get("Content-Length"), 10, 64)
	if err != nil || cl < 0 {
		return nil, pe(fmt.Errorf("%w: %q", ErrLength, rec.Header.Get("Content-Length")))
	}
	rec.ContentLength = cl
	r.cur, r.remaining = rec, cl
	r.digest.reset()
	if r.VerifyDigests {
		if v := rec.Header.Get("WARC-Block-Digest"); v != "" {
			if err := r.digest.start(v); err != nil {
				// A digest field that cannot be read is a conformance problem
				// (see Validate), not damage: the block is not checked.
				r.digest.reset()
			}
		}
	}
	return rec, nil
}

// readARCHeader reads an ARC record's header line: "URL IP date content-type length"
// (version 1) or the longer version 2 line; the length is always the last field and
// the URL may contain spaces, so the line is split from the right.
func (r *Reader) readARCHeader(rec *Record) (*Record, error) {
	line, err := r.readLine(nil)
	if err != nil && err != io.EOF {
		if err == ErrHeaderTooLong {
			return nil, &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset, Err: err}
		}
		return nil, r.gzErr(err)
	}
	f := strings.Fields(strings.TrimRight(string(line), "\r\n"))
	pe := func(what string) error {
		return &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset,
			Err: fmt.Errorf("%w: ARC header %s: %q", ErrHeader, what, strings.TrimSpace(string(line)))}
	}
	if len(f) < 5 {
		return nil, pe("has fewer than 5 fields")
	}
	cl, perr := strconv.ParseInt(f[len(f)-1], 10, 64)
	if perr != nil || cl < 0 {
		return nil, pe("has no valid length")
	}
	rec.Kind = KindARC
	rec.Header.Version = "ARC"
	n := len(f)
	rec.Header.Fields = []Field{
		{"URL", strings.Join(f[:n-4], " ")},
		{"IP-Address", f[n-4]},
		{"Archive-Date", f[n-3]},
		{"Content-Type", f[n-2]},
		{"Archive-Length", f[n-1]},
	}
	if n >= 10 && len(f[n-8]) == 14 { // version 2: URL IP date type code checksum location offset name length
		rec.Header.Fields = []Field{
			{"URL", strings.Join(f[:n-9], " ")},
			{"IP-Address", f[n-9]},
			{"Archive-Date", f[n-8]},
			{"Content-Type", f[n-7]},
			{"Archive-Length", f[n-1]},
		}
	}
	rec.ContentLength = cl
	r.cur, r.remaining = rec, cl
	return rec, nil
}

// Remaining is the number of bytes of the current record's block not yet read.
func (r *Reader) Remaining() int64 {
	if r.cur == nil || r.finished {
		return 0
	}
	return r.remaining
}

// Read reads from the current record's block. It returns io.EOF at the end of the
// block, and a *ParseError wrapping ErrTruncated if the input ends first.
func (r *Reader) Read(p []byte) (int, error) {
	if r.failed != nil {
		return 0, r.failed
	}
	if r.cur == nil || r.finished {
		return 0, io.EOF
	}
	if r.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.remaining {
		p = p[:r.remaining]
	}
	n, err := r.src.Read(p)
	r.remaining -= int64(n)
	r.plainPos += int64(n)
	if r.plain != nil && n > 0 {
		r.keep(r.plain, p[:n])
	}
	if r.spoolErr != nil || r.cnt.teeErr != nil {
		return n, r.failure()
	}
	if r.digest.h != nil {
		r.digest.h.Write(p[:n])
	}
	if err == io.EOF && r.remaining > 0 {
		if r.gzipped {
			// The block goes on in the next member (real files do this): the
			// decompressed stream is what defines the record.
			r.recAloneGzip = false
			if err := r.materialize(); err != nil {
				return n, err
			}
			r.dropMemberSpool()
			if oerr := r.openMember(); oerr == nil {
				r.memberRecs = 1
				r.dropMemberSpool()
				return n, nil
			} else if oerr != io.EOF {
				return n, oerr
			}
		}
		return n, r.truncated()
	}
	if err != nil && err != io.EOF {
		return n, r.gzErr(err)
	}
	return n, nil
}

func (r *Reader) truncated() error {
	return &ParseError{File: r.name, Offset: r.cur.Offset, Plain: r.cur.PlainOffset, RecordID: r.cur.ID(),
		Err: fmt.Errorf("%w: %d of %d bytes missing", ErrTruncated, r.remaining, r.cur.ContentLength)}
}

// Finish completes the current record: it skips what is left of the block and the
// newlines after it, and returns the record's raw bytes (nil without KeepRaw). In
// lenient mode a record whose block was short is returned as KindDamaged.
func (r *Reader) Finish() (*Raw, error) {
	if r.failed != nil {
		return nil, r.failed
	}
	if r.cur == nil {
		return nil, errors.New("warcio: Finish without a current record")
	}
	if r.finished {
		return r.cur.Raw, nil
	}
	rec := r.cur
	if r.scratch == nil {
		r.scratch = make([]byte, 32<<10)
	}
	for r.remaining > 0 {
		_, err := r.Read(r.scratch)
		if err != nil && err != io.EOF {
			return r.finishDamaged(rec, err)
		}
	}
	if r.digest.h != nil && !r.digest.ok() {
		err := &ParseError{File: r.name, Offset: rec.Offset, Plain: rec.PlainOffset, RecordID: rec.ID(),
			Err: fmt.Errorf("%w: WARC-Block-Digest %s, block has %s", ErrDigest, rec.Header.Get("WARC-Block-Digest"), r.digest.got())}
		r.digest.reset()
		if !r.Lenient {
			r.err = err
			return nil, err
		}
		rec.Err = err
		r.memberGarbage = r.gzipped
	}
	// The record ends at the next byte that is not a newline. Newlines are kept
	// with this record, so that copying it reproduces the input exactly.
	var trailer [4]byte
	nt := 0
	memberEnd := false
	for {
		b, err := r.src.Peek(1)
		if err == io.EOF {
			if r.gzipped {
				r.memberDone = true
				r.endMember(rec)
				memberEnd = true
			}
			break
		}
		if err != nil {
			return r.finishDamaged(rec, r.gzErr(err))
		}
		if b[0] != '\r' && b[0] != '\n' {
			// Another record (or junk, which the next Next reports) follows in
			// the same member: the member is not this record's alone.
			if err := r.materialize(); err != nil {
				return nil, err
			}
			r.dropMemberSpool()
			break
		}
		if nt < 4 {
			trailer[nt] = b[0]
		}
		nt++
		r.src.Discard(1)
		r.plainPos++
		if r.plain != nil {
			r.keep(r.plain, b[:1])
		}
	}
	if f := r.failure(); f != nil {
		return nil, f
	}
	rec.TrailerOK = nt >= 4 && string(trailer[:]) == "\r\n\r\n"
	if memberEnd && rec.Kind == KindWARC && nt < 4 && string(trailer[:nt]) == "\r\n\r\n"[:nt] {
		rec.cut = 4 - nt
	}
	rec.complete = true
	r.memberGave = r.gzipped && !r.memberDone
	rec.Size = r.plainPos - rec.PlainOffset
	if r.gzipped && r.memberDone && r.recAloneGzip {
		rec.Size = r.fileOffset() - rec.Offset
	}
	r.finished = true
	r.setRaw(rec)
	return rec.Raw, nil
}

// endMember is called when the member ends right after rec: if rec was the
// member's only record, its compressed bytes are exactly the member.
func (r *Reader) endMember(rec *Record) {
	if !r.recAloneGzip || r.memberSpool == nil {
		r.dropMemberSpool()
		return
	}
	r.cnt.tee = nil
	s := r.memberSpool
	if err := s.Truncate(s.Len() - int64(r.fbr.Buffered())); err != nil && r.spoolErr == nil {
		r.spoolErr = fmt.Errorf("%w: %w", ErrSpool, err)
	}
	r.fileSpool = s
	r.fileIsMember = true
	r.memberSpool = nil
}

func (r *Reader) takeFile() *Spool {
	s := r.fileSpool
	r.fileSpool = nil
	return s
}

func (r *Reader) setRaw(rec *Record) {
	if !r.KeepRaw {
		r.fileSpool = nil
		return
	}
	raw := &Raw{Plain: r.plain, FileIsMember: r.fileIsMember, File: r.takeFile(), Lead: rec.lead, TrailerCut: rec.cut}
	r.fileIsMember = false
	switch {
	case raw.File != nil:
		raw.Size = raw.File.Len()
	case raw.Plain != nil:
		raw.Size = raw.Plain.Len()
	}
	rec.Raw = raw
	r.plain = nil
}

// finishDamaged turns the current record into a damaged one after err. In strict
// mode err is returned and stays.
func (r *Reader) finishDamaged(rec *Record, err error) (*Raw, error) {
	if f := r.failure(); f != nil {
		return nil, f
	}
	if !r.Lenient {
		r.err = err
		return nil, err
	}
	r.finished = true
	rec.Kind, rec.Err = KindDamaged, err
	if errors.Is(err, ErrGzip) {
		if r.recAloneGzip && r.memberSpool != nil {
			// The member began with this record: the rest of the file from the
			// member start is one damaged region, kept as stored.
			if r.plain != nil {
				r.plain.Free()
				r.plain = nil
			}
			s := r.memberSpool
			r.memberSpool = nil
			r.fileSpool = r.drainFile(s)
			if f := r.failure(); f != nil {
				return nil, f
			}
			rec.Size = r.fileOffset() - rec.Offset
			r.setRaw(rec)
			r.err = io.EOF
			return rec.Raw, nil
		}
		// What was decompressed of this record is kept as it is; the undecodable
		// rest of the file follows as a second damaged record.
		var pe *ParseError
		errors.As(err, &pe)
		if r.memberGave && r.memberGarbage {
			return nil, r.memberRanOn(pe)
		}
		r.keepBuffered()
		rec.Size = r.plainPos - rec.PlainOffset
		r.setRaw(rec)
		r.pending = r.storedRest(&ParseError{File: pe.File, Offset: r.fileOffset(), Plain: r.plainPos, Err: pe.Err})
		r.cur, r.finished = rec, true
		if f := r.failure(); f != nil {
			rec.Raw.Release()
			return nil, f
		}
		return rec.Raw, nil
	}
	if r.gzipped {
		r.memberDone = true
		r.endMember(rec)
	}
	if f := r.failure(); f != nil {
		return nil, f
	}
	rec.Size = r.plainPos - rec.PlainOffset
	if r.gzipped && r.recAloneGzip {
		rec.Size = r.fileOffset() - rec.Offset
	}
	r.setRaw(rec)
	return rec.Raw, nil
}

// drainFile copies the rest of the file into s (a new spool if s is nil, nothing
// without KeepRaw) and returns the spool.
func (r *Reader) drainFile(s *Spool) *Spool {
	if s == nil && r.KeepRaw {
		s = r.spool()
		if n := r.fbr.Buffered(); n > 0 {
			b, _ := r.fbr.Peek(n)
			r.keep(s, b)
		}
	}
	r.cnt.tee = s
	// A read error is kept by the counter, and reported by failure.
	io.Copy(io.Discard, r.fbr)
	r.cnt.tee = nil
	return s
}

// damagedRest returns the rest of a compressed file that could not be decompressed
// as damaged records; the Reader then ends. When nothing of the current member
// has been returned, the member as stored through the end of the file is one
// record. Otherwise the bytes decompressed from it that no record holds (a
// header cut short, junk) come first as a record of their own, and the stored
// bytes the decompressor did not reach follow (from the next Next).
func (r *Reader) damagedRest(pe *ParseError) *Record {
	if r.memberGave && r.memberGarbage {
		r.memberRanOn(pe)
		return nil
	}
	if r.memberSpool != nil && r.memberRecs <= 1 {
		off := r.memberStart
		pe.Offset, pe.Plain = off, r.memberPlain
		rec := &Record{Kind: KindDamaged, Offset: off, PlainOffset: r.memberPlain, Err: pe}
		if r.plain != nil {
			r.plain.Free()
			r.plain = nil
		}
		s := r.memberSpool
		r.memberSpool = nil
		r.fileSpool = r.drainFile(s)
		rec.Size = r.fileOffset() - off
		r.setRaw(rec)
		r.cur, r.finished = rec, true
		r.err = io.EOF
		return rec
	}
	start := r.plainPos
	if r.rec != nil && r.rec.PlainOffset < start {
		start = r.rec.PlainOffset
	}
	if r.plain != nil {
		start = r.plainPos - r.plain.Len()
	}
	r.keepBuffered()
	if r.plainPos > start {
		rec := &Record{Kind: KindDamaged, Offset: r.memberStart, PlainOffset: start, Err: pe,
			Size: r.plainPos - start}
		pe.Offset, pe.Plain = rec.Offset, start
		if r.KeepRaw && r.plain == nil {
			r.plain = r.spool()
		}
		r.setRaw(rec)
		r.pending = r.storedRest(&ParseError{File: pe.File, Offset: r.fileOffset(), Plain: r.plainPos, Err: pe.Err})
		r.cur, r.finished = rec, true
		return rec
	}
	pe.Offset, pe.Plain = r.fileOffset(), r.plainPos
	return r.storedRest(pe)
}

// storedRest returns the rest of the file from the first byte the decompressor
// did not consume, as stored, as one damaged record; the Reader then ends.
func (r *Reader) storedRest(pe *ParseError) *Record {
	off := r.fileOffset()
	rec := &Record{Kind: KindDamaged, Offset: off, PlainOffset: r.plainPos, Err: pe}
	if r.plain != nil {
		r.plain.Free()
		r.plain = nil
	}
	r.fileSpool = r.drainFile(nil)
	rec.Size = r.fileOffset() - off
	r.setRaw(rec)
	r.cur, r.finished = rec, true
	r.err = io.EOF
	return rec
}

// memberRanOn ends a lenient Reader when a gzip member turns out damaged
// after a record decompressed from it was returned, and it gave garbage
// too (bytes that are no record, or a block that does not match its
// digest), as a member cut short does before its end is found. The
// decompressor has then taken stored bytes that nothing returned holds as
// stored, and a member cut short takes the members after it whole (as
// deflate data: their records come out as garbage of this one, and a
// record of it completed from their bytes), so what follows cannot be kept
// as stored in one pass over a stream. The file fails, as it does read
// strictly, and its records stay where they are, in the input.
func (r *Reader) memberRanOn(pe *ParseError) error {
	r.lost = &ParseError{File: r.name, Offset: r.memberStart, Plain: r.memberPlain,
		Err: fmt.Errorf("%w (%w, found at offset %d after records decompressed from this member were read): the bytes its decompression took, which may hold whole later members (as when a member is cut short), cannot be carried over as stored, so the file is not carried over leniently", ErrRanOn, pe.Err, pe.Offset)}
	return r.lost
}

// keepBuffered consumes the decompressed bytes waiting in the source buffer after
// the decompressor failed, keeping them in r.plain: they are part of the file's
// content that no record holds.
func (r *Reader) keepBuffered() {
	n := r.src.Buffered()
	if n == 0 {
		return
	}
	b, _ := r.src.Peek(n)
	if r.plain != nil {
		r.keep(r.plain, b)
	}
	r.src.Discard(n)
	r.plainPos += int64(n)
}

// resync skips bytes that are not a record, up to the next line that starts with
// "WARC/" or the end of the gzip member, and returns them as a damaged record.
func (r *Reader) resync(pe *ParseError) *Record {
	rec := &Record{Kind: KindDamaged, Offset: pe.Offset, PlainOffset: pe.Plain, Err: pe}
	r.memberGarbage = r.memberGarbage || r.gzipped
	if r.materialize() != nil {
		return nil // the caller reports the failure
	}
	if r.plain != nil {
		// Newlines read before the bad bytes are kept with them.
		rec.PlainOffset = r.plainPos - r.plain.Len()
		if !r.gzipped {
			rec.Offset = rec.PlainOffset
		}
	}
	if r.KeepRaw && r.plain == nil {
		r.plain = r.spool()
	}
	first := r.plainPos == pe.Plain
	for {
		if !first {
			p, err := r.src.Peek(5)
			if isWARCMagic(p) {
				r.dropMemberSpool()
				r.afterDamage = true
				break
			}
			if err == io.EOF && len(p) == 0 {
				if r.gzipped {
					r.memberDone = true
					r.endMember(rec)
				}
				break
			}
			if err != nil && err != io.EOF {
				return r.resyncFailed(rec, err)
			}
		}
		first = false
		if _, err := r.readLine(nil); err != nil && err != io.EOF && err != ErrHeaderTooLong {
			return r.resyncFailed(rec, err)
		}
	}
	rec.Size = r.plainPos - rec.PlainOffset
	if r.fileIsMember {
		rec.Size = r.fileOffset() - rec.Offset
	}
	r.setRaw(rec)
	r.cur, r.finished = rec, true
	return rec
}

func (r *Reader) resyncFailed(rec *Record, err error) *Record {
	pe, ok := r.gzErr(err).(*ParseError)
	if !ok || r.failed != nil {
		return nil // the caller reports the failure
	}
	if r.memberSpool != nil && r.memberRecs <= 1 {
		// The damaged bytes began this member, which turns out not to
		// decompress: the member as stored, through the end of the file, is
		// the one damaged record. Returning what was decompressed of it as
		// well would give those bytes twice.
		return r.damagedRest(pe)
	}
	if r.memberGave && r.memberGarbage {
		r.memberRanOn(pe)
		return nil
	}
	// What was decompressed is this record's; the stored rest follows.
	r.keepBuffered()
	rec.Size = r.plainPos - rec.PlainOffset
	r.setRaw(rec)
	r.pending = r.storedRest(&ParseError{File: pe.File, Offset: r.fileOffset(), Plain: r.plainPos, Err: pe.Err})
	r.cur, r.finished = rec, true
	return rec
}

// knownVersion reports whether v is a WARC version line this package reads,
// without regard to case (see isWARCMagic).
func knownVersion(v string) bool {
	switch strings.ToUpper(v) {
	case "WARC/0.17", "WARC/0.18", "WARC/1.0", "WARC/1.1":
		return true
	}
	return false
}

// isBlank reports whether a header line is empty: only CR and LF bytes. Some
// writers end lines with CR CR LF (pywb's missing-status-text.warc does).
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// isWARCMagic reports whether p starts a WARC record. The version line is matched
// without regard to case: JHOVE's conformance set has a valid "warc/1.0" file.
func isWARCMagic(p []byte) bool {
	return len(p) >= 5 && bytes.EqualFold(p[:5], []byte("WARC/"))
}

// padding returns the bytes of a gzip member without records, or blank lines at
// the end of a plain file, as a KindPadding record.
func (r *Reader) padding() *Record {
	rec := &Record{Kind: KindPadding, Offset: r.plainPos, PlainOffset: r.plainPos}
	if r.plain != nil {
		rec.Offset -= r.plain.Len()
		rec.PlainOffset -= r.plain.Len()
		rec.lead = r.plain.Len()
	}
	if r.gzipped {
		// The newlines of the member were not copied as they streamed (see
		// lazyPlain): the member itself holds them, and a plain Writer
		// decompresses it (Raw.FileIsMember). An empty Plain here would
		// lose a record's trailer kept in a member of its own.
		rec.Offset, rec.PlainOffset = r.memberStart, r.memberPlain
		rec.lead = r.plainPos - r.memberPlain
		r.recAloneGzip = true
		r.endMember(rec)
		rec.Size = r.fileOffset() - rec.Offset
	} else {
		rec.Size = r.plainPos - rec.PlainOffset
	}
	rec.complete, rec.TrailerOK = true, true
	if r.KeepRaw && r.plain == nil && !r.fileIsMember {
		r.plain = r.spool()
	}
	r.setRaw(rec)
	r.cur, r.finished = rec, true
	return rec
}

// lazyPlain says the record about to start need not have its decompressed bytes
// copied as they stream: it starts a gzip member whose compressed bytes are being
// kept, and if it turns out to be alone in it, the member is all a writer needs.
// Copying every decompressed byte into a spool cost 18% of the CPU time of a
// pass-through run (profile of a 100 MB Heritrix file).
func (r *Reader) lazyPlain() bool {
	return r.gzipped && r.memberRecs == 0 && r.memberSpool != nil
}

// materialize fills in the decompressed bytes of a record read lazily, when it
// turns out not to be alone in its member: they are the start of the member,
// decompressed again from the kept compressed bytes.
//
// The kept bytes are those the record was decompressed from, so anything short
// of the whole is a failure of the spool (see failure), never damage.
func (r *Reader) materialize() error {
	if !r.KeepRaw || r.plain != nil || r.memberSpool == nil {
		return nil
	}
	p := r.spool()
	r.plain = p
	want := r.plainPos - r.memberPlain
	if r.SizeOnly {
		p.n = want
		return r.failure()
	}
	zr, err := gzip.NewReader(r.memberSpool.NewReader())
	if err == nil {
		zr.Multistream(false)
		var n int64
		n, err = io.CopyN(p, zr, want)
		if err == io.EOF {
			err = fmt.Errorf("%d of %d bytes", n, want)
		}
	}
	if err != nil && r.spoolErr == nil {
		r.spoolErr = fmt.Errorf("%w: decompressing the kept member again: %w", ErrSpool, err)
	}
	return r.failure()
}
