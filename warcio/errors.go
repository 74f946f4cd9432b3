package warcio

import (
	"errors"
	"fmt"
)

// Sentinel errors; a [*ParseError] wraps one of them. All but ErrRead and
// ErrSpool describe the input, and a lenient Reader turns them into
// KindDamaged records; ErrRead, ErrSpool and ErrRanOn stop every Reader.
var (
	ErrNoMagic       = errors.New("no WARC/ or ARC record start")                 // bytes where a record should start
	ErrVersion       = errors.New("unknown WARC version")                         // a version line other than WARC/0.17 to 1.1
	ErrHeader        = errors.New("malformed record header")                      // a header line that is no field, or no blank line after the header
	ErrLength        = errors.New("missing or invalid Content-Length")            // the block's length cannot be known
	ErrTruncated     = errors.New("record block shorter than its Content-Length") // the input ends inside a block
	ErrGzip          = errors.New("damaged gzip member")                          // compressed input that cannot be decompressed
	ErrJunk          = errors.New("unexpected bytes between records")             // not returned by the Reader, which reports such bytes as ErrNoMagic
	ErrHeaderTooLong = errors.New("record header too long")                       // a header block over 1 MiB
	ErrDigest        = errors.New("block does not match its digest")              // WARC-Block-Digest disagrees with the block
	ErrRead          = errors.New("input read error")                             // the input's io.Reader failed; wraps its error
	ErrSpool         = errors.New("cannot keep a record's bytes")                 // a spool's temporary file could not be written; wraps the cause
	ErrNoRaw         = errors.New("record has no raw bytes to copy")              // CopyRaw was given a Raw without bytes (was the Reader's KeepRaw set?)
	ErrField         = errors.New("header field cannot be written as it is")      // WriteRecord was given a name or value its Reader would not read back
	// ErrRanOn: a gzip member gave records and then garbage before its
	// damage showed, as a member cut short does when it decompresses on
	// into the members after it; a lenient Reader cannot carry it over.
	ErrRanOn = errors.New("damaged gzip member ran on past its records")
)

// ParseError reports where and how input could not be read.
type ParseError struct {
	File     string // input name, as given to the Reader
	Offset   int64  // byte offset in the file (of the gzip member for compressed input)
	Plain    int64  // byte offset in the decompressed stream; equals Offset for plain input
	RecordID string // WARC-Record-ID of the record, when it was read
	Err      error  // one of the sentinel errors, possibly wrapping the cause
}

func (e *ParseError) Error() string {
	where := fmt.Sprintf("offset %d", e.Offset)
	if e.Plain != e.Offset {
		where += fmt.Sprintf(" (decompressed offset %d)", e.Plain)
	}
	if e.RecordID != "" {
		where += " record " + e.RecordID
	}
	name := e.File
	if name == "" {
		name = "<input>"
	}
	return fmt.Sprintf("%s: %s: %v", name, where, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }
