package warcio

import (
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Writer writes WARC records: unchanged records as the exact bytes they had in the
// input, new ones with the fields the standard requires computed here. Each record
// written to a compressed Writer is its own gzip member, as WARC 1.1 Annex D
// recommends, so that every record can be addressed by offset.
type Writer struct {
	w   io.Writer
	gz  bool
	zw  *gzip.Writer
	n   int64
	buf []byte
	// owed is how many bytes of CR LF CR LF the last record written lacks
	// at its end, as its input did (Raw.TrailerCut); ours says the Writer
	// made that record (ReplaceRecord), rather than copied it.
	owed int
	ours bool
}

const crlfcrlf = "\r\n\r\n"

// NewWriter returns a Writer to w; compress selects gzip (one member per record).
func NewWriter(w io.Writer, compress bool) *Writer {
	return &Writer{w: w, gz: compress}
}

// Offset is the number of bytes written so far: the offset of the next record.
func (w *Writer) Offset() int64 { return w.n }

// CopyRaw writes a record's input bytes unchanged. To compressed output it copies
// the record's original gzip member when it had one of its own, and otherwise
// compresses the exact decompressed bytes into a new member; to plain output it
// writes the decompressed bytes. Damaged regions of a compressed file that could not
// be decompressed (Raw.Plain nil) are copied as stored in either case. A Raw
// that holds no bytes (nil, as the Reader gives without KeepRaw) is an error
// wrapping ErrNoRaw: every record has bytes, and writing none would lose it.
func (w *Writer) CopyRaw(raw *Raw) error {
	if raw == nil || (raw.Plain == nil && raw.File == nil) {
		return fmt.Errorf("warcio: output offset %d: %w", w.n, ErrNoRaw)
	}
	// The record's bytes follow the last record's as in the input: what
	// that one lacks at its end, this one's Lead holds, or the input
	// lacked too.
	w.owed, w.ours = raw.TrailerCut, false
	switch {
	case w.gz && raw.File != nil:
		return w.copySpool(raw.File)
	case raw.Plain != nil && w.gz:
		return w.member(func(dst io.Writer) error {
			_, err := raw.Plain.WriteTo(dst)
			return err
		})
	case raw.Plain != nil:
		return w.copySpool(raw.Plain)
	case raw.File != nil && raw.FileIsMember:
		zr, err := gzip.NewReader(raw.File.NewReader())
		if err != nil {
			return err
		}
		zr.Multistream(false)
		n, err := io.Copy(w.w, zr)
		w.n += n
		return err
	default:
		return w.copySpool(raw.File)
	}
}

func (w *Writer) copySpool(s *Spool) error {
	n, err := s.WriteTo(w.w)
	w.n += n
	return err
}

type countWriter struct {
	w *Writer
}

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.w.w.Write(p)
	c.w.n += int64(n)
	return n, err
}

// member writes what fill produces as one gzip member (or plainly).
func (w *Writer) member(fill func(io.Writer) error) error {
	if !w.gz {
		return fill(countWriter{w})
	}
	if w.zw == nil {
		w.zw = gzip.NewWriter(countWriter{w})
	} else {
		w.zw.Reset(countWriter{w})
	}
	if err := fill(w.zw); err != nil {
		return err
	}
	return w.zw.Close()
}

// WriteRecord writes a new record with header h and the given block. It sets
// Content-Length and WARC-Block-Digest (sha1, base32) from the block; h must carry
// WARC-Record-ID, WARC-Date and WARC-Type already. A header that would not read
// back as it is gives an error wrapping ErrVersion or ErrField, and nothing is
// written: a line break in a value would end the header early, and the Reader
// trims the white space around a value. When the record before lacks the end
// of its CR LF CR LF (Raw.TrailerCut: its input put it in the next record's
// gzip member), the new record's member starts with it.
func (w *Writer) WriteRecord(h *Header, block []byte) error {
	if err := checkHeader(h); err != nil {
		return err
	}
	return w.writeRecord(w.settle(0), nil, 0, h, block, crlfcrlf)
}

// ReplaceRecord writes a new record, as WriteRecord does, in place of the
// record whose input bytes are raw, so that the output keeps the input's
// framing. The newlines that came before that record's first byte
// (Raw.Lead: the end of the record before it, which a writer put in this
// record's gzip member) are written first, in the same member: without them
// the record before would run into this one. And where the record's member
// ended before its own CR LF CR LF did (Raw.TrailerCut), the new record
// ends as it did: the next record's Lead holds the rest, as in the input, a
// new record written next starts with it, and after the last record Close
// writes it. raw nil is a record that has neither.
func (w *Writer) ReplaceRecord(raw *Raw, h *Header, block []byte) error {
	if err := checkHeader(h); err != nil {
		return err
	}
	if raw == nil {
		return w.writeRecord(w.settle(0), nil, 0, h, block, crlfcrlf)
	}
	var lead io.Reader
	if raw.Lead > 0 {
		var err error
		if lead, err = raw.leadReader(); err != nil {
			return fmt.Errorf("warcio: output offset %d: the newlines before the record: %w", w.n, err)
		}
	}
	cut := min(max(raw.TrailerCut, 0), len(crlfcrlf))
	err := w.writeRecord(w.settle(raw.Lead), lead, raw.Lead, h, block, crlfcrlf[:len(crlfcrlf)-cut])
	w.owed, w.ours = cut, cut > 0
	return err
}

// settle returns the end of the last record's CR LF CR LF that a new record
// is to start with: what the last record lacks, unless the new record's
// raw bytes start with newlines (lead, Raw.Lead), as they did in the input.
func (w *Writer) settle(lead int64) string {
	owed := w.owed
	w.owed, w.ours = 0, false
	if lead > 0 {
		return ""
	}
	return crlfcrlf[len(crlfcrlf)-owed:]
}

// Close ends the output: a record ReplaceRecord wrote without the end of its
// CR LF CR LF, as the input had it, which no record after brought, gets it
// (in a gzip member of its own). It does not close the underlying writer.
func (w *Writer) Close() error {
	owed, ours := w.owed, w.ours
	w.owed, w.ours = 0, false
	if owed == 0 || !ours {
		return nil
	}
	return w.member(func(dst io.Writer) error {
		_, err := io.WriteString(dst, crlfcrlf[len(crlfcrlf)-owed:])
		return err
	})
}

// writeRecord writes pre, the first n bytes of lead, and the record, its
// block followed by trailer, as one member; h has been checked.
func (w *Writer) writeRecord(pre string, lead io.Reader, n int64, h *Header, block []byte, trailer string) error {
	h.Set("WARC-Block-Digest", SHA1Digest(block))
	h.Set("Content-Length", strconv.Itoa(len(block)))
	w.buf = h.appendTo(w.buf[:0])
	return w.member(func(dst io.Writer) error {
		if pre != "" {
			if _, err := io.WriteString(dst, pre); err != nil {
				return err
			}
		}
		if n > 0 {
			if _, err := io.CopyN(dst, lead, n); err != nil {
				return fmt.Errorf("warcio: the newlines before the record: %w", err)
			}
		}
		if _, err := dst.Write(w.buf); err != nil {
			return err
		}
		if _, err := dst.Write(block); err != nil {
			return err
		}
		_, err := io.WriteString(dst, trailer)
		return err
	})
}

// checkHeader returns an error for a header the Reader would not give back as
// it is: an unknown version, or a field whose name is empty or holds a space,
// tab, colon or line feed, or whose value holds a line feed or starts or ends
// with white space. It asks no more than that: a revisit copies the fields of
// the record it replaces, and every field the Reader parsed passes.
func checkHeader(h *Header) error {
	if !knownVersion(h.Version) {
		return fmt.Errorf("warcio: %w: %q", ErrVersion, h.Version)
	}
	for _, f := range h.Fields {
		if f.Name == "" || strings.ContainsAny(f.Name, " \t\n:") {
			return fmt.Errorf("warcio: %w: name %q", ErrField, f.Name)
		}
		if strings.IndexByte(f.Value, '\n') >= 0 || strings.TrimSpace(f.Value) != f.Value {
			return fmt.Errorf("warcio: %w: %s value %q", ErrField, f.Name, f.Value)
		}
	}
	return nil
}

// SHA1Digest returns "sha1:" and the base32 SHA-1 of b, the form WARC writers use.
func SHA1Digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}
