package features

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// scanner splits an HTML document into the tokens the Extractor needs, the way
// golang.org/x/net/html's Tokenizer does (HTML5 tokenization, Sec. 13.2.5,
// without the tree builder), but over a byte slice in memory: the Tokenizer
// reads through an io.Reader one byte call at a time and parses every
// attribute of every tag, which made it 35% of warcdedup's CPU time; the
// Extractor needs tag names, text and, for IMG terms only, one attribute.
//
// One difference from the Tokenizer, which does not change page text as the
// Extractor sees it: text is returned with entities decoded but "\r\n" and
// "\r" left alone (appendText folds them into white space as it folds "\n").
// TestScannerMatchesTokenizer compares the two on every corpus page.
type scanner struct {
	src    []byte
	pos    int
	raw    []byte // the current token as stored
	text   []byte // the current text token, entities decoded
	rawTag string // raw text element whose content comes next ("" for none)
	buf    []byte // decoded text
	attr   int    // position of the next attribute in raw (TagAttr)
	keys   []byte // keys TagAttr returned for this tag, NUL-separated
	nkeys  int    // how many keys are in keys
	key    []byte // the key TagAttr returned last, lower case
	// name is the current tag's name in lower case, in nameBuf, cut at
	// its length as tagName cuts it; tagEnd reads it as it passes it.
	name    []byte
	nameBuf [16]byte
}

func (s *scanner) reset(src []byte) {
	s.src, s.pos, s.raw, s.text, s.rawTag, s.attr = src, 0, nil, nil, "", 0
}

// rawElem returns the name of a raw text element (whose content the
// Tokenizer returns as one text token), "" for any other.
func rawElem(name []byte) string {
	switch string(name) {
	case "script":
		return "script"
	case "style":
		return "style"
	case "textarea":
		return "textarea"
	case "title":
		return "title"
	case "xmp":
		return "xmp"
	case "iframe":
		return "iframe"
	case "noembed":
		return "noembed"
	case "noframes":
		return "noframes"
	case "noscript":
		return "noscript"
	case "plaintext":
		return "plaintext"
	}
	return ""
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// Classes of the bytes that end a tag's name, attribute names and values
// (tagBytes): a table read instead of a chain of comparisons for every
// byte of every tag.
const (
	tbSpace = 1 << iota // HTML white space
	tbSlash             // '/'
	tbGT                // '>'
	tbEq                // '='
	tbQuote             // '"' or '\''
)

var tagBytes = [256]uint8{' ': tbSpace, '\t': tbSpace, '\n': tbSpace, '\r': tbSpace, '\f': tbSpace,
	'/': tbSlash, '>': tbGT, '=': tbEq, '"': tbQuote, '\'': tbQuote}

// Next advances to the next token and returns its type: ErrorToken at the end.
func (s *scanner) Next() html.TokenType {
	for {
		if s.pos >= len(s.src) {
			return html.ErrorToken
		}
		if s.rawTag != "" {
			if tt, ok := s.rawText(); ok {
				return tt
			}
			continue
		}
		start := s.pos
		i := bytes.IndexByte(s.src[s.pos:], '<')
		for i >= 0 {
			// A '<' starts markup only when followed by a letter, '/', '!' or '?'.
			j := s.pos + i
			if j+1 < len(s.src) {
				c := s.src[j+1]
				if isASCIILetter(c) || c == '/' || c == '!' || c == '?' {
					break
				}
			}
			k := bytes.IndexByte(s.src[j+1:], '<')
			if k < 0 {
				i = -1
				break
			}
			i += 1 + k
		}
		if i != 0 {
			end := len(s.src)
			if i > 0 {
				end = s.pos + i
			}
			s.pos = end
			s.setText(s.src[start:end], true)
			return html.TextToken
		}
		if tt, ok := s.markup(); ok {
			return tt
		}
	}
}

// setText makes t the current text token.
func (s *scanner) setText(t []byte, decode bool) {
	s.raw = t
	s.text = t
	if decode && bytes.IndexByte(t, '&') >= 0 {
		s.buf = append(s.buf[:0], html.UnescapeString(string(t))...)
		s.text = s.buf
	}
}

// rawText returns the content of a raw text element up to its end tag.
func (s *scanner) rawText() (html.TokenType, bool) {
	tag := s.rawTag
	rcdata := tag == "textarea" || tag == "title"
	start := s.pos
	end := len(s.src)
	switch tag {
	case "plaintext":
	case "script":
		end = scriptEnd(s.src, start)
	default:
		for i := start; ; {
			k := bytes.Index(s.src[i:], []byte("</"))
			if k < 0 {
				break
			}
			if endTagAt(s.src, i+k, tag) {
				end = i + k
				break
			}
			i += k + 2
		}
	}
	s.rawTag = ""
	s.pos = end
	if end == start {
		return 0, false
	}
	s.setText(s.src[start:end], rcdata)
	if bytes.IndexByte(s.text, 0) >= 0 {
		// In raw text and RCDATA a NUL is U+FFFD (HTML5 Sec. 13.2.5.2-5), as
		// the Tokenizer returns it; in data it is left alone.
		s.buf = bytes.ReplaceAll(s.text, []byte{0}, []byte("\ufffd"))
		s.text = s.buf
	}
	return html.TextToken, true
}

// endTagAt says whether src[i:] is "</" tag followed by white space, '/' or
// '>', tag matched case-insensitively.
func endTagAt(src []byte, i int, tag string) bool {
	j := i + 2 + len(tag)
	if j > len(src) || src[i] != '<' || src[i+1] != '/' || !bytes.EqualFold(src[i+2:j], []byte(tag)) {
		return false
	}
	// At the end of input it is no end tag: the Tokenizer returns it as text.
	return j < len(src) && (isHTMLSpace(src[j]) || src[j] == '/' || src[j] == '>')
}

// scriptEnd returns where the content of a script element that starts at
// start ends: at its "</script" end tag, following HTML5's script data states
// (Sec. 13.2.5.4 and after): after "<!--" the data is escaped, where a
// "<script" starts a double-escaped part whose "</script" does not end the
// element, and "-->" ends the escape. Pages write scripts with document.write
// inside such comments ("<!-- document.write('<script>...</script>') //-->").
func scriptEnd(src []byte, start int) int {
	const (
		normal = iota
		escaped
		double
	)
	state := normal
	for i := start; i < len(src); i++ {
		// Jump to the next byte that can change the state.
		var k int
		if state == normal {
			k = bytes.IndexByte(src[i:], '<')
		} else {
			k = bytes.IndexAny(src[i:], "<-")
		}
		if k < 0 {
			break
		}
		i += k
		c := src[i]
		switch {
		case c == '<' && i+1 < len(src) && src[i+1] == '/':
			if endTagAt(src, i, "script") {
				if state == double {
					state = escaped
					i += len("</script") - 1
					continue
				}
				return i
			}
		case c == '<' && state == normal && bytes.HasPrefix(src[i:], []byte("<!--")):
			state = escaped
			i += 3
		case c == '<' && state == escaped && i+7 <= len(src) && bytes.EqualFold(src[i+1:i+7], []byte("script")):
			if j := i + 7; j < len(src) && (isHTMLSpace(src[j]) || src[j] == '/' || src[j] == '>') {
				state = double
				i += 6
			}
		case c == '-' && state != normal && bytes.HasPrefix(src[i:], []byte("-->")):
			state = normal
			i += 2
		}
	}
	return len(src)
}

// markup reads the markup at s.pos, which is a '<' followed by a letter, '/',
// '!' or '?'. It reports false for markup that is no token.
func (s *scanner) markup() (html.TokenType, bool) {
	start := s.pos
	c := s.src[start+1]
	s.text = nil
	switch {
	case isASCIILetter(c):
		end, selfClosing, ok := s.tagEnd(start + 1)
		s.pos = end
		s.raw = s.src[start:end]
		s.attr = -1
		if !ok {
			return html.ErrorToken, true // a tag cut by the end of input is dropped
		}
		s.rawTag = rawElem(s.name)
		if selfClosing {
			return html.SelfClosingTagToken, true
		}
		return html.StartTagToken, true
	case c == '/':
		if start+2 >= len(s.src) {
			s.pos = len(s.src)
			s.setText(s.src[start:], false) // "</" at the end is text
			return html.TextToken, true
		}
		d := s.src[start+2]
		switch {
		case d == '>':
			// "</>" is no tag; the Tokenizer returns it as an empty comment.
			s.pos = start + 3
			s.raw = s.src[start:s.pos]
			return html.CommentToken, true
		case isASCIILetter(d):
			end, _, ok := s.tagEnd(start + 2)
			s.pos = end
			s.raw = s.src[start:end]
			if !ok {
				return html.ErrorToken, true
			}
			return html.EndTagToken, true
		}
		return s.bogusComment(start, start+2), true
	case c == '!':
		if bytes.HasPrefix(s.src[start:], []byte("<!--")) {
			return s.comment(start), true
		}
		if len(s.src)-start >= 9 && bytes.EqualFold(s.src[start+2:start+9], []byte("doctype")) {
			end := bytes.IndexByte(s.src[start:], '>')
			if end < 0 {
				end = len(s.src)
			} else {
				end += start + 1
			}
			s.pos = end
			s.raw = s.src[start:end]
			return html.DoctypeToken, true
		}
		return s.bogusComment(start, start+2), true
	}
	return s.bogusComment(start, start+1), true // "<?"
}

// tagEnd returns the end of the tag whose name starts at i (after "<" or
// "</"): the byte after its '>', honouring quoted attribute values; whether it
// ends in "/>"; and false if the input ends first. It sets s.name.
func (s *scanner) tagEnd(i int) (int, bool, bool) {
	src := s.src
	n := 0
	for i < len(src) && tagBytes[src[i]]&(tbSpace|tbSlash|tbGT) == 0 {
		if n < len(s.nameBuf) {
			s.nameBuf[n] = lowerASCII(src[i])
			n++
		}
		i++
	}
	s.name = s.nameBuf[:n]
	slash := false // the last byte was a '/' between attributes, not in a value
	for i < len(src) {
		c := src[i]
		switch k := tagBytes[c]; {
		case k&tbGT != 0:
			return i + 1, slash && src[i-1] == '/', true
		case k&(tbSpace|tbSlash) != 0:
			slash = c == '/'
			i++
		default:
			slash = false
			// An attribute: a name (its first character may be '='), then
			// optionally '=' and a value.
			i++
			for i < len(src) && tagBytes[src[i]]&(tbSpace|tbSlash|tbGT|tbEq) == 0 {
				i++
			}
			for i < len(src) && tagBytes[src[i]]&tbSpace != 0 {
				i++
			}
			if i >= len(src) || src[i] != '=' {
				continue
			}
			i++
			for i < len(src) && tagBytes[src[i]]&tbSpace != 0 {
				i++
			}
			if i >= len(src) {
				continue
			}
			if q := src[i]; tagBytes[q]&tbQuote != 0 {
				k := bytes.IndexByte(src[i+1:], q)
				if k < 0 {
					return len(src), false, false
				}
				i += k + 2
				continue
			}
			for i < len(src) && tagBytes[src[i]]&(tbSpace|tbGT) == 0 {
				i++
			}
		}
	}
	return len(src), false, false
}

// comment reads "<!--" ... "-->" (or "--!>", or the end of input).
func (s *scanner) comment(start int) html.TokenType {
	i := start + 4
	if i < len(s.src) && s.src[i] == '>' { // "<!-->"
		s.pos = i + 1
	} else if i+1 < len(s.src) && s.src[i] == '-' && s.src[i+1] == '>' { // "<!--->"
		s.pos = i + 2
	} else {
		s.pos = len(s.src)
		for j := i; j < len(s.src); j++ {
			if s.src[j] != '>' || j < i+2 {
				continue
			}
			if s.src[j-1] == '-' && s.src[j-2] == '-' {
				s.pos = j + 1
				break
			}
			if j >= i+3 && s.src[j-1] == '!' && s.src[j-2] == '-' && s.src[j-3] == '-' {
				s.pos = j + 1
				break
			}
		}
	}
	s.raw = s.src[start:s.pos]
	return html.CommentToken
}

// bogusComment reads markup up to the next '>' as a comment.
func (s *scanner) bogusComment(start, from int) html.TokenType {
	end := bytes.IndexByte(s.src[from:], '>')
	if end < 0 {
		s.pos = len(s.src)
	} else {
		s.pos = from + end + 1
	}
	s.raw = s.src[start:s.pos]
	return html.CommentToken
}

// Err is io.EOF once Next has returned ErrorToken: the scanner never fails.
func (s *scanner) Err() error { return io.EOF }

// Raw returns the current token as stored.
func (s *scanner) Raw() []byte { return s.raw }

// Name returns the current tag's name as tagName reads it from Raw.
func (s *scanner) Name() []byte { return s.name }

// Text returns the current text token with its entities decoded.
func (s *scanner) Text() []byte { return s.text }

// maxAttrDedup is how many attributes of a tag TagAttr checks for repeats.
// The Tokenizer drops an attribute whose name came before in the tag (HTML5
// Sec. 13.2.5.33); checking every pair would be quadratic in a hostile tag.
const maxAttrDedup = 64

// TagAttr returns the next attribute of the current start tag, its value with
// entities decoded, and whether there may be more. A repeated attribute is
// skipped, as the Tokenizer drops it.
func (s *scanner) TagAttr() (key, val []byte, more bool) {
	if s.attr < 0 {
		s.keys, s.nkeys = s.keys[:0], 0
	}
	for {
		key, val, more = s.tagAttr()
		if key == nil || s.firstKey(key) {
			return key, val, more
		}
		if !more {
			return nil, nil, false
		}
	}
}

// firstKey records key and says whether the tag had no attribute of that name
// before it (within the first maxAttrDedup).
func (s *scanner) firstKey(key []byte) bool {
	if s.nkeys >= maxAttrDedup {
		return true
	}
	for rest := s.keys; len(rest) > 0; {
		i := bytes.IndexByte(rest, 0)
		if bytes.Equal(rest[:i], key) {
			return false
		}
		rest = rest[i+1:]
	}
	s.keys = append(append(s.keys, key...), 0)
	s.nkeys++
	return true
}

func (s *scanner) tagAttr() (key, val []byte, more bool) {
	r := s.raw
	i := s.attr
	if i < 0 {
		// Skip "<" and the name.
		i = 1
		for i < len(r) && tagBytes[r[i]]&(tbSpace|tbSlash|tbGT) == 0 {
			i++
		}
	}
	for i < len(r) && tagBytes[r[i]]&(tbSpace|tbSlash) != 0 {
		i++
	}
	if i >= len(r) || r[i] == '>' {
		s.attr = len(r)
		return nil, nil, false
	}
	ks := i
	i++
	for i < len(r) && tagBytes[r[i]]&(tbSpace|tbSlash|tbGT|tbEq) == 0 {
		i++
	}
	// The key in lower case, in a buffer of the scanner's: every
	// attribute of every container is read, and a copy each (bytes.ToLower)
	// cost 2% of the main text's time. The Tokenizer lowers ASCII letters
	// only (x/net/html, lower).
	s.key = append(s.key[:0], r[ks:i]...)
	for k, c := range s.key {
		if 'A' <= c && c <= 'Z' {
			s.key[k] = c + 'a' - 'A'
		}
	}
	if bytes.IndexByte(s.key, 0) >= 0 {
		s.key = bytes.ReplaceAll(s.key, []byte{0}, []byte("\ufffd")) // as the Tokenizer does
	}
	key = s.key
	j := i
	for j < len(r) && tagBytes[r[j]]&tbSpace != 0 {
		j++
	}
	if j < len(r) && r[j] == '=' {
		j++
		for j < len(r) && tagBytes[r[j]]&tbSpace != 0 {
			j++
		}
		if j < len(r) && (r[j] == '"' || r[j] == '\'') {
			q := r[j]
			k := bytes.IndexByte(r[j+1:], q)
			if k < 0 {
				val, i = r[j+1:], len(r)
			} else {
				val, i = r[j+1:j+1+k], j+2+k
			}
		} else {
			vs := j
			for j < len(r) && tagBytes[r[j]]&(tbSpace|tbGT) == 0 {
				j++
			}
			val, i = r[vs:j], j
		}
		if bytes.IndexByte(val, '\r') >= 0 {
			val = convertNewlines(val)
		}
		if bytes.IndexByte(val, '&') >= 0 {
			val = unescapeAttr(val)
		}
		if bytes.IndexByte(val, 0) >= 0 {
			val = bytes.ReplaceAll(val, []byte{0}, []byte("\ufffd")) // as the Tokenizer does
		}
	}
	s.attr = i
	for i < len(r) && tagBytes[r[i]]&(tbSpace|tbSlash) != 0 {
		i++
	}
	return key, val, i < len(r) && r[i] != '>'
}

// convertNewlines returns v with "\r\n" and "\r" as "\n", as HTML's input
// stream is preprocessed (HTML5, Sec. 13.2.3.5) and the Tokenizer gives
// attribute values (before their references are decoded: "&#13;" stays a
// carriage return). v is not changed.
func convertNewlines(v []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(v, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
}

// unescapeAttr decodes the character references of an attribute value. In
// attributes a named reference not closed by ';' stays as it is when a letter,
// digit or '=' follows (HTML5, Sec. 13.2.5.73): "?a=1&region=US" keeps its
// "&region", which text would read as "®ion", while "&amp" at the end of a
// value is "&".
func unescapeAttr(v []byte) []byte {
	var out []byte
	last := 0
	// A value with references is most often a URL's query (&amp;) or a
	// JSON object (&quot;): those names are decoded here, the others by
	// html.UnescapeString, and out is made once at the value's length.
	app := func(b []byte) {
		if out == nil {
			out = make([]byte, 0, len(v))
		}
		out = append(out, b...)
	}
	for i := 0; i < len(v); i++ {
		if v[i] != '&' {
			continue
		}
		// The reference's name: "#" and decimal or "#x" and hex digits,
		// or letters and digits.
		j := i + 1
		numeric := j < len(v) && v[j] == '#'
		if numeric {
			j++
			hex := j < len(v) && v[j]|0x20 == 'x'
			if hex {
				j++
			}
			d := j
			for j < len(v) && (v[j] >= '0' && v[j] <= '9' || hex && (v[j]|0x20 >= 'a' && v[j]|0x20 <= 'f')) {
				j++
			}
			if j == d {
				continue
			}
		} else {
			for j < len(v) && j-i <= 32 && (isASCIILetter(v[j]) || v[j] >= '0' && v[j] <= '9') {
				j++
			}
			if j == i+1 {
				continue
			}
		}
		end := j // the reference, without its ';'
		if j < len(v) && v[j] == ';' {
			end = j + 1
			if c := common(v[i+1 : j]); c != 0 {
				app(v[last:i])
				out = append(out, c)
				last = end
				i = end - 1
				continue
			}
		} else if !numeric && j < len(v) && v[j] == '=' {
			continue
		}
		dec := html.UnescapeString(string(v[i:end]))
		if !numeric && end == j && strings.IndexFunc(dec, func(r rune) bool { return r < 0x80 && (isASCIILetter(byte(r)) || r >= '0' && r <= '9') }) >= 0 {
			continue // not all of the name is one reference: kept as written
		}
		if !numeric && end > j && strings.HasSuffix(dec, ";") && string(v[i+1:j]) != "semi" {
			// "&notit;": only "&not" is a reference, and a letter follows
			// it, so it is kept as written, as the unterminated one above.
			continue
		}
		app(v[last:i])
		out = append(out, dec...)
		last = end
		i = end - 1
	}
	if out == nil {
		return v
	}
	return append(out, v[last:]...)
}

// common returns the character of the named or numeric reference name
// (between '&' and ';') when it is one of the few that fill attribute
// values, 0 otherwise.
func common(name []byte) byte {
	switch string(name) {
	case "amp", "#38":
		return '&'
	case "quot", "#34":
		return '"'
	case "lt", "#60":
		return '<'
	case "gt", "#62":
		return '>'
	case "#39", "#x27", "apos":
		return '\''
	}
	return 0
}
