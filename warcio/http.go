package warcio

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/warcdedup/warcdedup/internal/hexdigit"
)

// Errors about the HTTP message inside a record's block.
var (
	ErrHTTP    = errors.New("malformed HTTP message")
	ErrChunked = errors.New("bad chunked transfer encoding")
	// ErrEncodingCut: the body's Content-Encoding stream (gzip, deflate,
	// br) ends before its end, the body held whole (Payload.Cut unset): the
	// response was cut off in transfer (Payload.Decode).
	ErrEncodingCut = errors.New("the Content-Encoding stream ends before its end")
)

// MaxHTTPHead bounds the HTTP status line and headers read from a block.
const MaxHTTPHead = 64 << 10

// HTTPResponse is the head of an HTTP response stored in a WARC block.
type HTTPResponse struct {
	Proto      string // "HTTP/1.1"
	StatusCode int
	Reason     string // may be empty: real servers omit it
	Fields     []Field
	// Head is the exact bytes of the status line, the header lines and the blank
	// line, as stored: a revisit record's block is exactly these bytes.
	Head []byte
}

// Get returns the first header value of that name, compared without regard to case.
func (h *HTTPResponse) Get(name string) string {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// headEnd returns the length of the head (through the blank line) in b, or -1.
// Lines may end in CRLF or LF alone.
func headEnd(b []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		line := b[i : i+j]
		i += j + 1
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			return i
		}
	}
	return -1
}

// ParseHTTPResponse parses the head of an HTTP response at the start of b. The
// status line may lack a reason phrase; header lines may end in LF alone.
func ParseHTTPResponse(b []byte) (*HTTPResponse, error) {
	n := headEnd(b)
	if n < 0 {
		return nil, fmt.Errorf("%w: no end of headers in the first %d bytes", ErrHTTP, len(b))
	}
	head := b[:n]
	nl := bytes.IndexByte(head, '\n')
	status := strings.TrimRight(string(head[:nl]), "\r")
	proto, rest, _ := strings.Cut(status, " ")
	if !strings.HasPrefix(proto, "HTTP/") {
		return nil, fmt.Errorf("%w: status line %q", ErrHTTP, status)
	}
	codeStr, reason, _ := strings.Cut(strings.TrimLeft(rest, " "), " ")
	code, err := strconv.Atoi(codeStr)
	if err != nil || code < 100 || code > 999 {
		return nil, fmt.Errorf("%w: status line %q", ErrHTTP, status)
	}
	fields, ok := parseFields(head[nl+1:], nil)
	if !ok {
		return nil, fmt.Errorf("%w: a header line is neither a field nor a continuation", ErrHTTP)
	}
	return &HTTPResponse{Proto: proto, StatusCode: code, Reason: reason, Fields: fields, Head: head}, nil
}

// Payload is what ReadPayload learned of an HTTP response block.
type Payload struct {
	HTTP *HTTPResponse
	// Digest is "sha1:" + base32 of the payload as stored (the bytes after the HTTP
	// head, transfer coding included), which is what Heritrix, wget and warcio put
	// in WARC-Payload-Digest, so a computed digest and a recorded one agree.
	Digest string
	// SHA256 is the SHA-256 of the same bytes. SHA-1 alone does not prove two
	// payloads identical (the SHAttered pair, Stevens et al., CRYPTO 2017, has
	// two PDFs with one SHA-1): a payload is replaced by a revisit only when this
	// collision-resistant digest agrees too.
	SHA256 [32]byte
	Length int64  // payload bytes as stored
	Body   []byte // the first bytes of the stored payload, up to the keep limit
	Cut    bool   // Body holds less than the whole payload
	// ChunkedCut says the payload is in chunked transfer coding and ends
	// before its last chunk (the one of size zero), its framing sound up
	// to there: the body was cut off in transfer. Trailer fields after the
	// last chunk, or none at all, do not matter. A chunked payload whose
	// framing does not parse is not said to be cut: some crawlers store
	// the body decoded and keep the field (see Decode).
	ChunkedCut bool

	pooled bool // Body is from bodyPools (Release)
}

// Release gives the payload's Body back for reuse by a later ReadPayload;
// neither Body nor anything sliced from it may be used after. Calling it is
// optional: a Payload not released is collected as any other memory.
func (p *Payload) Release() {
	if p.pooled {
		putBody(p.Body)
	}
	p.Body, p.pooled = nil, false
}

// bodyPools hold released bodies by capacity, one pool for each power of two
// from minPooled to maxPooled. Made anew for each record, the bodies of pages
// cost 0.7 s of a 18 s map task (clearing new memory, and the runtime
// returning freed spans to the system), more than half of the time to read
// those bytes.
var bodyPools [maxPoolShift - minPoolShift + 1]sync.Pool

const (
	minPoolShift = 12 // 4 KiB
	maxPoolShift = 23 // 8 MiB
)

// getBody returns an empty slice with room for n bytes (none for n <= 0).
func getBody(n int) []byte {
	if n <= 0 {
		return nil
	}
	shift := max(bits.Len(uint(n-1)), minPoolShift)
	if shift > maxPoolShift {
		return make([]byte, 0, n)
	}
	if b, ok := bodyPools[shift-minPoolShift].Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 1<<shift)
}

// putBody puts b in the pool of its capacity, if it is one of theirs.
func putBody(b []byte) {
	c := cap(b)
	if c < 1<<minPoolShift || c > 1<<maxPoolShift || c&(c-1) != 0 {
		return
	}
	b = b[:0]
	bodyPools[bits.Len(uint(c))-1-minPoolShift].Put(&b)
}

// ReadPayload reads an HTTP response block from r: it parses the head, digests the
// whole payload and keeps its first keep bytes, where keep is asked once the head
// is known (nil keeps nothing), so that only pages worth analysing are held.
// Memory is bounded by MaxHTTPHead plus what keep returns, whatever the block's size.
func ReadPayload(r io.Reader, keepFor func(*HTTPResponse) int) (*Payload, error) {
	rb := readBufPool.Get().(*readBufs)
	defer readBufPool.Put(rb)
	buf := rb.head[:0]
	var resp *HTTPResponse
	for resp == nil {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if headEnd(buf) >= 0 {
			var perr error
			resp, perr = ParseHTTPResponse(buf)
			if perr != nil {
				return nil, perr
			}
			break
		}
		if len(buf) > MaxHTTPHead {
			return nil, fmt.Errorf("%w: no end of headers in the first %d bytes", ErrHTTP, MaxHTTPHead)
		}
		if err == io.EOF {
			return nil, fmt.Errorf("%w: block ends inside the headers", ErrHTTP)
		}
		if err != nil {
			return nil, err
		}
	}
	// Copy the head out of buf, so that buf can hold the body.
	resp.Head = append([]byte(nil), resp.Head...)
	p := &Payload{HTTP: resp}
	keep := 0
	if keepFor != nil {
		keep = keepFor(resp)
	}
	h, h2 := sha1.New(), sha256.New()
	first := buf[len(resp.Head):]
	h.Write(first)
	h2.Write(first)
	// The chunks are followed as the payload streams past, for ChunkedCut:
	// the size lines are read and the data stepped over, so no second pass
	// over a large body is needed.
	var chunks chunkScan
	scan := resp.chunked()
	if scan {
		chunks.feed(first)
	}
	p.Length = int64(len(first))
	// Size the body from what is left of the block when the reader knows it: a
	// fixed guess cost 0.2 s of clearing memory per 75 MB of pages (profile).
	hint := 256 << 10
	if rr, ok := r.(interface{ Remaining() int64 }); ok {
		hint = int(min(rr.Remaining(), int64(keep))) + len(first)
	}
	body := getBody(min(keep, hint))
	p.pooled = cap(body) > 0
	body = append(body, first[:min(len(first), keep)]...)
	for {
		// While body has room, the block is read straight into it, not
		// through rb.tmp: a copy of every kept byte was 0.2 s of a 18 s
		// map task.
		dst := rb.tmp[:]
		into := len(body) < keep
		if into {
			if len(body) == cap(body) {
				body = slices.Grow(body, min(keep-len(body), max(len(body), 32<<10)))
			}
			dst = body[len(body):min(cap(body), keep)]
		}
		n, err := r.Read(dst)
		if n > 0 {
			h.Write(dst[:n])
			h2.Write(dst[:n])
			if scan {
				chunks.feed(dst[:n])
			}
			p.Length += int64(n)
			if into {
				body = body[:len(body)+n]
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	p.Digest = "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
	h2.Sum(p.SHA256[:0])
	p.Body = body
	p.Cut = int64(len(body)) < p.Length
	p.ChunkedCut = scan && p.Length > 0 && chunks.cut()
	return p, nil
}

// chunked says the response's body is in chunked transfer coding: a
// Transfer-Encoding field names it.
func (h *HTTPResponse) chunked() bool {
	for _, f := range h.Fields {
		if strings.EqualFold(f.Name, "Transfer-Encoding") && strings.Contains(strings.ToLower(f.Value), "chunked") {
			return true
		}
	}
	return false
}

// chunkScan follows the framing of a chunked body fed to it in pieces (RFC
// 9112, section 7.1), to tell whether the body reached its last chunk. It
// accepts what dechunk does (LF alone for CR LF, white space around the size,
// extensions after a semicolon) and holds no bytes: it reads the size lines
// and counts its way over the data.
type chunkScan struct {
	state uint8
	size  uint64 // the size being read, or the data left of the chunk
}

// The states of a chunkScan.
const (
	chunkLead uint8 = iota // before a size line's digits
	chunkHex               // in the size's hex digits
	chunkTail              // after the digits: white space, then an extension or the end of the line
	chunkExt               // in a chunk extension, up to the end of the line
	chunkData              // in a chunk's data
	chunkCR                // after a chunk's data, where CR LF should be
	chunkLF                // after the CR that followed a chunk's data
	chunkLast              // the size line of the last chunk was read: the body is whole
	chunkBad               // the framing does not parse
)

// maxChunkSize bounds a chunk's size, far beyond any body's, so that the
// size cannot overflow.
const maxChunkSize = 1 << 60

// feed follows the framing over the next bytes of the body.
func (c *chunkScan) feed(b []byte) {
	for len(b) > 0 {
		switch c.state {
		case chunkLast, chunkBad:
			return
		case chunkData:
			n := uint64(len(b))
			if n > c.size {
				n = c.size
			}
			c.size -= n
			b = b[n:]
			if c.size == 0 {
				c.state = chunkCR
			}
			continue
		case chunkExt:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				return
			}
			b = b[i:]
			c.endLine()
			b = b[1:]
			continue
		}
		ch := b[0]
		b = b[1:]
		switch c.state {
		case chunkCR:
			switch ch {
			case '\r':
				c.state = chunkLF
			case '\n':
				c.state = chunkLead
			default:
				c.state = chunkLead
				c.sizeByte(ch)
			}
		case chunkLF:
			c.state = chunkLead
			if ch != '\n' {
				c.sizeByte(ch)
			}
		default:
			c.sizeByte(ch)
		}
	}
}

// sizeByte reads one byte of a size line.
func (c *chunkScan) sizeByte(ch byte) {
	d, hex := hexdigit.Value(ch)
	switch {
	case hex && (c.state == chunkLead || c.state == chunkHex):
		if c.state == chunkLead {
			c.state, c.size = chunkHex, 0
		}
		if c.size > maxChunkSize>>4 {
			c.state = chunkBad
			return
		}
		c.size = c.size<<4 | uint64(d)
	case ch == ' ' || ch == '\t' || ch == '\r':
		if c.state == chunkHex {
			c.state = chunkTail
		}
	case ch == ';' && c.state != chunkLead:
		c.state = chunkExt
	case ch == '\n' && c.state != chunkLead:
		c.endLine()
	default:
		// A line without a size, or other bytes after it.
		c.state = chunkBad
	}
}

// endLine ends a size line: the chunk's data follows, or the body is whole.
func (c *chunkScan) endLine() {
	if c.size == 0 {
		c.state = chunkLast
		return
	}
	c.state = chunkData
}

// cut says the body fed so far ends before its last chunk, with its framing
// sound up to there.
func (c *chunkScan) cut() bool {
	return c.state != chunkLast && c.state != chunkBad
}

// readBufs are ReadPayload's buffers, for the head and for the body's reads,
// reused from record to record: nothing of them outlives the call (the head,
// the fields and the body kept are copies). Made for each record, they cost
// 0.4 s of a 16.4 s map task, most of it clearing new memory (a CPU profile
// of `warcdedup map` over a 413 MB file of the scaled benchmark set).
type readBufs struct{ head, tmp [32 << 10]byte }

var readBufPool = sync.Pool{New: func() any { return new(readBufs) }}

// Decode returns the payload's entity for analysis: chunked transfer coding removed
// and gzip, deflate or br content coding decoded, at most max bytes (a bound against
// compression bombs). The stored bytes never change; this is for reading only. When
// the chunked framing is broken the stored bytes are used as they are, as browsers
// and pywb do, and ErrChunked is returned with them.
func (p *Payload) Decode(max int) ([]byte, error) {
	body := p.Body
	var cerr error
	if p.HTTP.chunked() {
		if d, err := dechunk(body, !p.Cut); err == nil {
			body = d
		} else {
			cerr = err
		}
	}
	enc := strings.ToLower(strings.TrimSpace(p.HTTP.Get("Content-Encoding")))
	var zr io.Reader
	var err error
	switch enc {
	case "", "identity", "none":
	case "gzip", "x-gzip":
		br := bytes.NewReader(body)
		var gz *gzip.Reader
		if gz, err = gzip.NewReader(br); err == nil {
			gz.Multistream(false)
			zr = &gzipBody{cur: gz, rest: br}
		}
	case "deflate":
		// "deflate" is zlib-wrapped by the standard, raw deflate by some servers.
		if zr, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			zr, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "br":
		zr = brotli.NewReader(bytes.NewReader(body))
	default:
		return limit(body, max), fmt.Errorf("unknown Content-Encoding %q", enc)
	}
	if err != nil {
		return limit(body, max), fmt.Errorf("Content-Encoding %s: %w", enc, err)
	}
	if zr != nil {
		var out bytes.Buffer
		_, derr := io.Copy(&out, io.LimitReader(zr, int64(max)))
		if errors.Is(derr, io.ErrUnexpectedEOF) && !p.Cut && cerr == nil {
			// The whole body, and its stream stops short: cut in transfer.
			// What was decoded is returned all the same.
			derr = fmt.Errorf("%w: %w", ErrEncodingCut, derr)
			if out.Len() > 0 {
				return out.Bytes(), fmt.Errorf("Content-Encoding %s: %w", enc, derr)
			}
		}
		if out.Len() == 0 && derr != nil {
			return limit(body, max), fmt.Errorf("Content-Encoding %s: %w", enc, derr)
		}
		// A cut or damaged stream still yields the text decoded so far.
		return out.Bytes(), cerr
	}
	return limit(body, max), cerr
}

// gzipBody reads a gzip body's first member, then any members after
// it. Bytes after a whole member that do not start another (servers pad
// with a newline or NULs) end the text quietly; a member that starts and
// stops short is a body cut in transfer (ErrEncodingCut), in the first
// member or a later one, and other damage in a later member ends the text
// where it fails, as it does in the first.
type gzipBody struct {
	cur   *gzip.Reader
	rest  *bytes.Reader
	later bool
}

func (g *gzipBody) Read(p []byte) (int, error) {
	for {
		n, err := g.cur.Read(p)
		if err == nil || n > 0 && err == io.EOF {
			return n, nil
		}
		if err != io.EOF {
			if g.later && !errors.Is(err, io.ErrUnexpectedEOF) {
				return n, io.EOF
			}
			return n, err
		}
		// A member ended whole: the next, if the bytes left start one.
		if g.rest.Len() == 0 {
			return n, io.EOF
		}
		var magic [3]byte
		m, _ := g.rest.ReadAt(magic[:], g.rest.Size()-int64(g.rest.Len()))
		if err := g.cur.Reset(g.rest); err != nil {
			if m >= 2 && magic[0] == 0x1f && magic[1] == 0x8b && (m == 2 || magic[2] == 8) &&
				(errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF) {
				// A member's header that stops short: cut in transfer.
				return n, io.ErrUnexpectedEOF
			}
			return n, io.EOF
		}
		g.cur.Multistream(false)
		g.later = true
	}
}

func limit(b []byte, max int) []byte {
	if len(b) > max {
		return b[:max]
	}
	return b
}

// dechunk removes chunked transfer coding (RFC 9112 Sec. 7.1). complete says the
// input is the whole body; otherwise it may stop inside a chunk.
func dechunk(b []byte, complete bool) ([]byte, error) {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			if complete {
				return nil, fmt.Errorf("%w: no chunk size line", ErrChunked)
			}
			return out, nil
		}
		line := strings.TrimSpace(string(b[:nl]))
		if i := strings.IndexByte(line, ';'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		size, err := strconv.ParseUint(line, 16, 63)
		if err != nil {
			return nil, fmt.Errorf("%w: chunk size %q", ErrChunked, line)
		}
		b = b[nl+1:]
		if size == 0 {
			return out, nil
		}
		if uint64(len(b)) < size {
			if complete {
				return nil, fmt.Errorf("%w: chunk of %d bytes has %d", ErrChunked, size, len(b))
			}
			return append(out, b...), nil
		}
		out = append(out, b[:size]...)
		b = b[size:]
		b = bytes.TrimPrefix(b, []byte("\r"))
		b = bytes.TrimPrefix(b, []byte("\n"))
	}
	// A body cut before its last chunk is common in real crawls; what came is kept.
	return out, nil
}

// CRLFHead returns the head with every line ending in CR LF, as a revisit
// record's block should (real servers and crawlers write LF alone); a head that
// already does is returned as it is.
func (h *HTTPResponse) CRLFHead() []byte {
	if bytes.Count(h.Head, []byte("\r\n")) == bytes.Count(h.Head, []byte("\n")) {
		return h.Head
	}
	lines := bytes.SplitAfter(h.Head, []byte("\n"))
	out := make([]byte, 0, len(h.Head)+len(lines))
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r\n")
		if len(l) == 0 && len(out) > 0 && bytes.HasSuffix(out, []byte("\r\n\r\n")) {
			continue
		}
		out = append(out, l...)
		out = append(out, "\r\n"...)
	}
	return out
}
