package features

import (
	"bytes"
	"mime"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// metaScanBytes is how far into a page we look for <meta charset>. The HTML spec's
// prescan stops at 1024 bytes; on the shared corpus 256 of 3,500 pages declare their
// charset later than that (long <head> scripts first), several of them GB2312 or
// ISO-8859-1, so we look further. Measured on the corpus, 16 KiB finds them all.
const metaScanBytes = 16 << 10

// detectSampleBytes bounds the work of charset detection.
const detectSampleBytes = 32 << 10

// Charset decision order, as in the HTML spec (encoding sniffing algorithm) with a
// longer <meta> scan: byte order mark, the HTTP Content-Type charset parameter,
// <meta charset> or <meta http-equiv content="...; charset=...">, then detection.
// It returns the encoding (nil for UTF-8: no transformation, the fast path) and its
// canonical name.
func determineCharset(body []byte, contentType string) (encoding.Encoding, string) {
	switch {
	case bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}):
		return nil, "utf-8"
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}):
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), "utf-16be"
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}):
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), "utf-16le"
	}
	if contentType != "" {
		if _, params, err := mime.ParseMediaType(contentType); err == nil {
			if e, name := lookupCharset(params["charset"]); name != "" {
				return e, name
			}
		}
	}
	if e, name := metaCharset(body[:min(len(body), metaScanBytes)]); name != "" {
		// A <meta> that names a legacy charset for a body that is valid UTF-8 with
		// multi-byte sequences is a page re-saved as UTF-8 without fixing its meta
		// (corpus: mozilla-readability qq.html declares gbk). Legacy CJK or Latin-1
		// text is almost never valid UTF-8 by accident, so trust the bytes. The HTTP
		// header, set by the server that sent these bytes, is still obeyed above.
		if e != nil && hasMultibyte(body) && utf8.Valid(body) {
			return nil, "utf-8"
		}
		return e, name
	}
	return detectCharset(body)
}

// lookupCharset maps a label to an encoding with the WHATWG label table (so
// gb2312 means GBK and iso-8859-1 means windows-1252, as browsers do). UTF-8 gives
// a nil encoding. A UTF-16 label inside a document is meaningless (the bytes we
// scanned were ASCII-compatible), so it is read as UTF-8, as the spec says.
func lookupCharset(label string) (encoding.Encoding, string) {
	if label == "" {
		return nil, ""
	}
	e, name := charset.Lookup(label)
	if e == nil {
		return nil, ""
	}
	switch name {
	case "utf-8", "utf-16be", "utf-16le":
		return nil, "utf-8"
	}
	return e, name
}

// metaCharset finds the first charset=NAME inside a <meta ...> tag of b.
func metaCharset(b []byte) (encoding.Encoding, string) {
	for off := 0; ; {
		i := indexFold(b[off:], "charset")
		if i < 0 {
			return nil, ""
		}
		i += off
		off = i + len("charset")
		// Inside a <meta tag? Look back for '<' with no '>' in between.
		lt := bytes.LastIndexByte(b[:i], '<')
		if lt < 0 || bytes.IndexByte(b[lt:i], '>') >= 0 || !hasPrefixFold(b[lt+1:], "meta") {
			continue
		}
		j := off
		for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
			j++
		}
		if j >= len(b) || b[j] != '=' {
			continue
		}
		j++
		for j < len(b) && (b[j] == ' ' || b[j] == '"' || b[j] == '\'') {
			j++
		}
		k := j
		for k < len(b) && k-j < 40 && (isASCIIAlnum(b[k]) || b[k] == '-' || b[k] == '_' || b[k] == ':' || b[k] == '.') {
			k++
		}
		if e, name := lookupCharset(string(b[j:k])); name != "" {
			return e, name
		}
	}
}

func isASCIIAlnum(c byte) bool {
	return c-'0' < 10 || (c|0x20)-'a' < 26
}

func lowerASCII(c byte) byte {
	if c-'A' < 26 {
		return c + 32
	}
	return c
}

func hasPrefixFold(b []byte, lowerPrefix string) bool {
	if len(b) < len(lowerPrefix) {
		return false
	}
	for i := 0; i < len(lowerPrefix); i++ {
		if lowerASCII(b[i]) != lowerPrefix[i] {
			return false
		}
	}
	return true
}

// indexFold is a case-insensitive bytes.Index for a lower-case ASCII needle. It is
// linear: FuzzTokenize found that an IndexByte per case variant was quadratic on
// pages full of one of the two.
func indexFold(b []byte, needle string) int {
	c0 := needle[0]
	for i := 0; i+len(needle) <= len(b); i++ {
		if lowerASCII(b[i]) == c0 && hasPrefixFold(b[i:], needle) {
			return i
		}
	}
	return -1
}

func hasMultibyte(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// detectCharset guesses the charset of a page that declares none. The corpus has
// undeclared GBK pages (chinese-wced) and undeclared Latin-1 pages (cleaneval).
// Valid UTF-8 is UTF-8. Otherwise: isolated high bytes between ASCII mean a
// single-byte Latin encoding (windows-1252, the web default); runs of high bytes
// mean a double-byte East Asian encoding, and among those we take the one with the
// fewest decoding errors, preferring EUC-JP or Shift_JIS only when kana make up a
// good part of the text (GBK also encodes kana, at the same codes as EUC-JP, so
// Japanese decodes as GBK without errors; Chinese has almost no kana).
func detectCharset(body []byte) (encoding.Encoding, string) {
	if utf8.Valid(body) {
		return nil, "utf-8"
	}
	s := body[:min(len(body), detectSampleBytes)]
	// A pair is two adjacent high bytes: GB2312, EUC-JP and most Shift_JIS and
	// Big5 text has both bytes >= 0x80, Latin text has single accented letters.
	high, paired := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			high++
			if i+1 < len(s) && s[i+1] >= 0x80 && s[i] >= 0x81 && s[i] <= 0xFE {
				paired++
				high++
				i++
			}
		}
	}
	if 4*paired < high { // under half of the high bytes in pairs
		return charmap.Windows1252, "windows-1252"
	}
	type cand struct {
		e    encoding.Encoding
		name string
	}
	cands := []cand{
		{simplifiedchinese.GBK, "gbk"},
		{traditionalchinese.Big5, "big5"},
		{japanese.EUCJP, "euc-jp"},
		{japanese.ShiftJIS, "shift_jis"},
	}
	type stats struct{ bad, kana, cjk int }
	st := make([]stats, len(cands))
	buf := make([]byte, 0, 3*len(s))
	for ci, c := range cands {
		out, _, err := transform.Append(c.e.NewDecoder(), buf[:0], s)
		if err != nil {
			st[ci].bad = len(s)
			continue
		}
		for _, r := range string(out) {
			switch {
			case r == utf8.RuneError:
				st[ci].bad++
			case r >= 0x3040 && r <= 0x30FF:
				st[ci].kana++
			case r >= 0x4E00 && r <= 0x9FFF:
				st[ci].cjk++
			}
		}
	}
	// Japanese if a Japanese decoding is nearly error-free and 20% or more kana.
	japanese := false
	for ci := 2; ci < 4; ci++ {
		x := st[ci]
		if x.bad*50 <= x.kana+x.cjk && x.kana*5 >= x.kana+x.cjk && x.kana > 0 {
			japanese = true
		}
	}
	best, bestScore := -1, 0
	for ci := range cands {
		if japanese != (ci >= 2) {
			continue
		}
		if score := st[ci].cjk + st[ci].kana - 20*st[ci].bad; best < 0 || score > bestScore {
			best, bestScore = ci, score
		}
	}
	return cands[best].e, cands[best].name
}
