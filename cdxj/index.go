package cdxj

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/warcdedup/warcdedup/internal/linesort"
	"github.com/warcdedup/warcdedup/warcio"
)

// Options change how Index reads its input. The zero value is Index's.
type Options struct {
	// Lenient skips damaged regions of the input (truncated gzip members, junk
	// between records, short blocks) and indexes the records around them. Without
	// it the first damage stops indexing with a *warcio.ParseError, after the
	// lines of the records before it are written, as pywb does.
	Lenient bool
	// TempDir is where the WARC reader may spool, and Index's Sorter write
	// its runs; "" for the system default.
	TempDir string
	// SortBudget is the bytes of lines Index holds before it writes them
	// to a run in TempDir (0: the default, 32 MB).
	SortBudget int
}

// Index writes the CDXJ index of the WARC or ARC file read from r (plain or
// gzip-compressed, one member per record or not) to w, one line per indexed
// record, sorted as LC_ALL=C sort sorts them. filename is written in every
// line's "filename" field as it is given (pywb gives the base name).
//
// Memory is bounded: blocks are read in a bounded buffer, and the lines are
// sorted in runs in Options.TempDir past a budget (internal/linesort).
func Index(r io.Reader, filename string, w io.Writer) error {
	return IndexWith(r, filename, w, Options{})
}

// IndexWith is Index with options.
func IndexWith(r io.Reader, filename string, w io.Writer, opt Options) error {
	s := linesort.New(opt.TempDir, opt.SortBudget)
	defer s.Close()
	err := Each(r, filename, opt, s.Add)
	if _, werr := s.WriteTo(w); werr != nil && err == nil {
		err = werr
	}
	return err
}

// Lines returns the sorted CDXJ lines of the file read from r, without their
// newlines. On an error it returns the lines of the records read before it.
// It holds every line; Index bounds the memory.
func Lines(r io.Reader, filename string, opt Options) ([]string, error) {
	var lines []string
	err := Each(r, filename, opt, func(l string) error {
		lines = append(lines, l)
		return nil
	})
	sort.Strings(lines)
	return lines, err
}

// Each hands the CDXJ line of each indexed record of the file read from r to
// emit, without its newline, in the order of the records (not sorted). On an
// error it stops, after the lines of the records before it; an error emit
// returns stops it too, and is returned.
func Each(r io.Reader, filename string, opt Options, emit func(line string) error) error {
	ix := &indexer{filename: filename, buf: make([]byte, warcio.MaxHTTPHead), emit: emit}
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	plain := !bytes.Equal(magic, []byte{0x1f, 0x8b})
	rd := warcio.NewReader(br, filename)
	rd.Lenient = opt.Lenient
	rd.TempDir = opt.TempDir
	var err error
	for ix.err == nil {
		var rec *warcio.Record
		rec, err = rd.Next()
		if err != nil {
			break
		}
		var e *entry
		e, err = ix.read(rd, rec)
		if err != nil {
			break
		}
		if _, err = rd.Finish(); err != nil {
			break
		}
		if rec.Kind == warcio.KindDamaged || rec.Kind == warcio.KindPadding || e == nil {
			continue
		}
		e.offset, e.length = rec.Offset, rec.Size
		if plain && rec.TrailerOK {
			// pywb's length of a record in an uncompressed file leaves out the
			// CR LF CR LF after it.
			e.length -= 4
		}
		ix.join(e)
	}
	if ix.err != nil {
		return ix.err
	}
	if err == io.EOF {
		err = nil
	}
	ix.join(nil)
	if ix.err != nil && err == nil {
		err = ix.err
	}
	return err
}

// entry is one record as pywb's DefaultRecordParser sees it.
type entry struct {
	recType                     string
	url, urlkey, timestamp      string
	mime, mimeDetected, status  string
	digest, metadata            string
	offset, length              int64
	method, requestBody         string
	id, concurrentTo            string
	contentType                 string // the full Content-Type mime was taken from
	reqMethod, reqContentLength string // request records: for the POST query
	reqBody                     []byte
	noHTTP                      bool
}

type indexer struct {
	filename string
	buf      []byte
	prev     *entry
	emit     func(string) error
	err      error // the first error emit returned
}

// maxRequestBody bounds the bytes of a request body read to make the query of
// a POST or PUT; pywb reads it all and keeps 4096 characters of the query.
const maxRequestBody = 1 << 20

const maxQuery = 4096

var b32 = base32.StdEncoding

// read reads the current record's block and makes its entry, or nil for a
// record that is never indexed nor joined.
func (ix *indexer) read(rd *warcio.Reader, rec *warcio.Record) (*entry, error) {
	e := &entry{}
	h := &rec.Header
	switch rec.Kind {
	case warcio.KindWARC:
		e.recType = h.Get("WARC-Type")
		if h.Get("Content-Type") == "application/warc-fields" {
			return nil, nil
		}
		if e.recType == "warcinfo" {
			return nil, nil
		}
		e.url = h.Get("WARC-Target-URI")
		if len(e.url) >= 2 && e.url[0] == '<' && e.url[len(e.url)-1] == '>' {
			e.url = e.url[1 : len(e.url)-1] // WARC 1.1's <uri> form, as warcio strips it
		}
		e.timestamp = isoDateToTimestamp(h.Get("WARC-Date"))
		e.id = h.Get("WARC-Record-ID")
		e.concurrentTo = h.Get("WARC-Concurrent-To")
		e.metadata = h.Get("WARC-Json-Metadata")
		if d := h.Get("WARC-Payload-Digest"); strings.HasPrefix(d, "sha1:") {
			e.digest = d[len("sha1:"):]
		} else {
			e.digest = d
		}
	case warcio.KindARC:
		e.recType = "response"
		e.url = strings.NewReplacer("\r", "%0D", "\n", "%0A", "\x0c", "%0C", "\x00", "%00").Replace(h.Get("URL"))
		if strings.HasPrefix(e.url, "filedesc://") {
			return nil, nil
		}
		e.timestamp = h.Get("Archive-Date")
		if len(e.timestamp) > 14 {
			e.timestamp = e.timestamp[:14]
		}
	default:
		return nil, nil
	}
	isHTTP := strings.HasPrefix(e.url, "http:") || strings.HasPrefix(e.url, "https:")
	switch e.recType {
	case "response", "request", "revisit":
	default:
		isHTTP = false
	}
	// The HTTP head, when the record has one; else pywb's stand-in "200 OK"
	// with the WARC (or ARC) Content-Type.
	n, rerr := io.ReadFull(rd, ix.buf)
	if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
		return nil, rerr
	}
	block := ix.buf[:n]
	var head *httpHead
	if isHTTP && n > 0 {
		head = parseHead(block)
	}
	if head == nil {
		e.noHTTP = true
		head = &httpHead{first: "HTTP/1.0", status: "200", rest: "200 OK"}
		if ct := h.Get("Content-Type"); ct != "" {
			head.fields = [][2]string{{"Content-Type", ct}}
		}
	}
	payload := block[head.size:]

	switch {
	case e.recType == "revisit":
		e.mime = "warc/revisit"
	default:
		def := "unk"
		if e.recType == "request" {
			def = "-"
		}
		e.mime = def
		if ct := head.get("Content-Type"); ct != "" {
			e.mime = reMimeSplit.Split(ct, 2)[0]
			e.contentType = ct
		}
		if rec.Kind == warcio.KindWARC {
			e.mimeDetected = h.Get("WARC-Identified-Payload-Type")
		}
	}
	if e.recType == "response" {
		e.status = head.status
		if e.status == "" {
			e.status = "-"
		} else if e.status == "204" && strings.Contains(head.rest, "Error") {
			e.status = "-"
		}
	}

	switch {
	case (e.digest == "" || e.digest == "-") && e.recType != "revisit" && e.recType != "request":
		d := sha1.New()
		d.Write(payload)
		if _, err := io.Copy(d, rd); err != nil {
			return nil, err
		}
		e.digest = b32.EncodeToString(d.Sum(nil))
	case e.recType == "request" && !e.noHTTP:
		e.reqMethod = strings.ToUpper(head.first)
		e.reqContentLength = head.get("Content-Length")
		if e.reqMethod == "POST" || e.reqMethod == "PUT" {
			e.reqBody = append([]byte{}, payload...)
			if len(e.reqBody) < maxRequestBody {
				more, err := io.ReadAll(io.LimitReader(rd, int64(maxRequestBody-len(e.reqBody))))
				if err != nil {
					return nil, err
				}
				e.reqBody = append(e.reqBody, more...)
			}
		}
	}
	if e.url != "" {
		e.urlkey = SURT(e.url)
	}
	return e, nil
}

var reMimeSplit = regexp.MustCompile(`[; ]`)

// httpHead is an HTTP status or request line and header, read as leniently as
// warcio (Python) reads them: the first line's first word and the rest, then
// "Name: value" lines up to a blank line.
type httpHead struct {
	first, rest string // "HTTP/1.1", "200 OK"; or "POST", "/path HTTP/1.1"
	status      string // the first word of rest
	fields      [][2]string
	size        int // bytes of the head, blank line included
}

func (h *httpHead) get(name string) string {
	for _, f := range h.fields {
		if strings.EqualFold(f[0], name) {
			return f[1]
		}
	}
	return ""
}

// parseHead reads the head at the start of b; nil when b holds no line.
func parseHead(b []byte) *httpHead {
	h := &httpHead{}
	pos := 0
	line := func() (string, bool) {
		if pos >= len(b) {
			return "", false
		}
		i := bytes.IndexByte(b[pos:], '\n')
		var l []byte
		if i < 0 {
			l, pos = b[pos:], len(b)
		} else {
			l, pos = b[pos:pos+i], pos+i+1
		}
		return strings.TrimRight(string(l), "\r"), true
	}
	first, ok := line()
	if !ok {
		return nil
	}
	first = strings.TrimSpace(first)
	h.first, h.rest, _ = strings.Cut(first, " ")
	h.status, _, _ = strings.Cut(h.rest, " ")
	for {
		l, ok := line()
		if !ok || strings.TrimSpace(l) == "" {
			break
		}
		if name, value, ok := strings.Cut(l, ":"); ok {
			h.fields = append(h.fields, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
		}
	}
	h.size = pos
	return h
}

var reNonDigits = regexp.MustCompile(`[^0-9]+`)

// isoDateToTimestamp is warcio's iso_date_to_timestamp: the numbers of the date
// as a 14-digit timestamp. A date it cannot read (pywb stops there) gives its
// first 14 digits, padded with zeros as a short timestamp is read.
func isoDateToTimestamp(s string) string {
	nums := reNonDigits.Split(s, -1)
	if len(nums) > 0 && nums[len(nums)-1] == "" {
		nums = nums[:len(nums)-1]
	}
	if len(nums) >= 3 && len(nums) <= 7 && nums[0] != "" {
		v := make([]int, 6)
		ok := true
		for i := 0; i < 6 && i < len(nums); i++ {
			x, err := strconv.Atoi(nums[i])
			if err != nil {
				ok = false
				break
			}
			v[i] = x
		}
		days := [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
		leap := v[0]%4 == 0 && (v[0]%100 != 0 || v[0]%400 == 0)
		if ok && v[0] >= 1 && v[0] <= 9999 && v[1] >= 1 && v[1] <= 12 && v[2] >= 1 && v[2] <= days[v[1]] &&
			(v[1] != 2 || v[2] <= 28 || leap) && v[3] < 24 && v[4] < 60 && v[5] < 60 {
			return fmt.Sprintf("%04d%02d%02d%02d%02d%02d", v[0], v[1], v[2], v[3], v[4], v[5])
		}
	}
	d := strings.Join(reNonDigits.Split(s, -1), "")
	if len(d) > 14 {
		d = d[:14]
	}
	return d + "00000000000000"[:14-len(d)]
}

// join is pywb's join_request_records with append_post: a request and the
// response or revisit next to it (same URL, one's WARC-Concurrent-To the
// other's WARC-Record-ID) are joined, the request's method and body going into
// the response's key. nil flushes.
func (ix *indexer) join(e *entry) {
	prev := ix.prev
	if prev == nil {
		ix.prev = e
		return
	}
	if e != nil && e.url == prev.url && e.concurrentTo == prev.id &&
		(e.merge(prev) || prev.merge(e)) {
		ix.write(prev)
		ix.write(e)
		ix.prev = nil
		return
	}
	ix.write(prev)
	ix.prev = e
}

// merge takes the method and body of other, a request, into e.
func (e *entry) merge(other *entry) bool {
	if other.recType != "request" || e.recType == "request" {
		return false
	}
	method := other.reqMethod
	if other.noHTTP {
		return true
	}
	query := postQuery(method, other.contentType, other.reqContentLength, other.reqBody)
	newURL := e.url
	if method != "GET" {
		sep := "?"
		if strings.Contains(newURL, "?") {
			sep = "&"
		}
		newURL += sep + "__wb_method=" + method
		if query != "" {
			newURL += "&" + query
		}
	}
	newURL = strings.ReplaceAll(newURL, "WB_wombat_", "")
	if newURL != e.url {
		e.urlkey = SURT(newURL)
		other.urlkey = e.urlkey
		e.method = method
		e.requestBody = query
	}
	return true
}

// postQuery is pywb's MethodQueryCanonicalizer for the bodies it turns into a
// query: a url-encoded form is decoded, and any other body is given in base64
// as __wb_post_data. pywb also reads JSON, multipart and AMF bodies as forms;
// those are given in base64 here.
func postQuery(method, mime, length string, body []byte) string {
	if method != "POST" && method != "PUT" {
		return ""
	}
	n, err := strconv.Atoi(strings.TrimSpace(length))
	if err != nil || n <= 0 {
		return ""
	}
	if n < len(body) {
		body = body[:n]
	}
	var q string
	if strings.HasPrefix(mime, "application/x-www-form-urlencoded") && utf8.Valid(body) {
		q = unquotePlus(string(body))
	} else {
		q = "__wb_post_data=" + base64.StdEncoding.EncodeToString(body)
	}
	if r := []rune(q); len(r) > maxQuery {
		q = string(r[:maxQuery])
	}
	return q
}

// unquotePlus is Python's urllib.parse.unquote_plus: '+' is a space, %XX a
// byte, invalid UTF-8 replaced.
func unquotePlus(s string) string {
	s = strings.ReplaceAll(s, "+", " ")
	return strings.ToValidUTF8(string(unquote([]byte(s))), "\uFFFD")
}

// write turns an entry into its line, unless pywb's writer skips it.
func (ix *indexer) write(e *entry) {
	if e == nil || e.recType == "request" || e.recType == "warcinfo" {
		return
	}
	if e.url == "" || e.urlkey == "" {
		return
	}
	if e.recType == "metadata" && e.mime == "text/anvl" {
		return
	}
	var b []byte
	b = append(b, e.urlkey...)
	b = append(b, ' ')
	b = append(b, e.timestamp...)
	b = append(b, " {"...)
	first := true
	field := func(name, value string) {
		if value == "" || value == "-" {
			return
		}
		if !first {
			b = append(b, ", "...)
		}
		first = false
		b = appendJSONString(b, name)
		b = append(b, ": "...)
		b = appendJSONString(b, value)
	}
	field("metadata", e.metadata)
	field("url", e.url)
	field("mime", e.mime)
	field("mime-detected", e.mimeDetected)
	field("status", e.status)
	field("digest", e.digest)
	field("length", strconv.FormatInt(e.length, 10))
	field("offset", strconv.FormatInt(e.offset, 10))
	field("method", e.method)
	field("requestBody", e.requestBody)
	field("filename", ix.filename)
	b = append(b, '}')
	if ix.err == nil {
		ix.err = ix.emit(string(b))
	}
}

// appendJSONString writes s as Python's json.dumps does (ensure_ascii): every
// character outside ASCII as \uXXXX, surrogate pairs above U+FFFF. Bytes that
// are not UTF-8 are read as Latin-1, as warcio reads such headers.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = rune(s[i])
		}
		i += size
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20 || (r > 0x7e && r < 0x10000):
			if r == 0x7f {
				b = append(b, byte(r))
			} else {
				b = u(b, r)
			}
		case r >= 0x10000:
			r -= 0x10000
			b = u(b, 0xd800+(r>>10))
			b = u(b, 0xdc00+(r&0x3ff))
		default:
			b = append(b, byte(r))
		}
	}
	return append(b, '"')
}
