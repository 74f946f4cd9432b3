package warcio

import (
	"errors"
	"fmt"
)

// Sentinel errors; a [*ParseError] wraps one of them.
var (
	ErrNoMagic       = errors.New("no WARC/ or ARC record start")
	ErrVersion       = errors.New("unknown WARC version")
	ErrHeader        = errors.New("malformed record header")
	ErrLength        = errors.New("missing or invalid Content-Length")
	ErrTruncated     = errors.New("record block shorter than its Content-Length")
	ErrGzip          = errors.New("damaged gzip member")
	ErrJunk          = errors.New("unexpected bytes between records")
	ErrHeaderTooLong = errors.New("record header too long")
	ErrDigest        = errors.New("block does not match its digest")
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
