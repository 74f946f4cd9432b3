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
}

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
// trims the white space around a value.
func (w *Writer) WriteRecord(h *Header, block []byte) error {
	if err := checkHeader(h); err != nil {
		return err
	}
	h.Set("WARC-Block-Digest", SHA1Digest(block))
	h.Set("Content-Length", strconv.Itoa(len(block)))
	w.buf = h.appendTo(w.buf[:0])
	return w.member(func(dst io.Writer) error {
		if _, err := dst.Write(w.buf); err != nil {
			return err
		}
		if _, err := dst.Write(block); err != nil {
			return err
		}
		_, err := dst.Write([]byte("\r\n\r\n"))
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
