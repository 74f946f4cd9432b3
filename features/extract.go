package features

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Extractor turns HTTP response bodies into Docs. It keeps its buffers between
// calls, so a worker should own one Extractor and call Extract for page after
// page. What still allocates per page: the slices the returned Doc owns, IMG URL
// parsing, text with character references, and the decoder for non-UTF-8
// pages. No tag, text token, term or word allocates (x/net/html's Tokenizer
// makes about 2,000 allocations on an average corpus page).
// An Extractor is not safe for concurrent use.
type Extractor struct {
	cfg    Config
	steps  []int
	stop   *stopTable // word hash -> flagStop|flagAnte|flagAFAnte
	afAnte bool       // some AF antecedent is not a SpotSigs antecedent

	dec     []byte     // body decoded to UTF-8 (non-UTF-8 pages only)
	text    []byte     // normalized text: NFKC, case-folded, single spaces
	nfkc    []byte     // scratch for NFKC
	imgs    []imgRef   // IMG terms with their position in text
	terms   []uint64   // Henzinger term hashes in document order
	words   []word     // SpotSigs words (and sentence marks when FamAF is on)
	keys    []uint64   // scratch for bags
	content []int32    // positions of content words (spotChains)
	acc     [384]int64 // simhash: per-bit count of +1 projections
	lanes   [48]uint64 // simhash: 8-bit counters being filled (see simReset)
	pending uint32     // simhash: weight added to lanes since the last flush
	cjk     int
	sc      scanner
	nsc     *scanner // for a <noscript> element's content (tokenLoop)
	blocks  []block  // paragraph-level blocks of text (Config.MainText)
	cls     []uint8  // their classes
	bstat   []blockStat
	idx     []int
	bs      blockState // open elements while tokenizing
	// unlikelyText: the main text was found by the retry, in containers
	// named as page furniture (Doc.MainTextUnlikely).
	unlikelyText bool
	headlined    bool
	headline     int // the headline's block when headlined
	// lenient is mainText's scratch classification without the furniture
	// names; proseOutside and mainWords are what Doc reports of it.
	lenient      []uint8
	proseOutside int
	mainWords    int
	// shop: the page's markup says it is a shop page (shop.go); ldJSON:
	// the script being skipped is JSON-LD.
	shop, ldJSON bool
	// discussion: the page says it is a forum thread or a question's
	// page (discussion.go).
	discussion bool
	fw         map[uint64]int32 // word counts, then the page's function words (pageStops)
	places     map[place]int32  // good blocks opening a container at each place (siblings)
	fwTop      []fwCount
	qbuf       []byte
	qoff       []int32
	mins       [84]uint64
}

// imgRef is an IMG tag's term and where in the text it occurred.
type imgRef struct {
	pos  int
	hash uint64
}

// word is a SpotSigs word or, with kind flagMark, a sentence mark.
type word struct {
	start, end uint32 // byte offsets in Extractor.text
	hash       uint64
	flags      uint8
}

const (
	flagStop   = 1 << iota // stopword: skipped by chains
	flagAnte               // SpotSigs antecedent
	flagAFAnte             // AF-SpotSigs-only antecedent
	flagMark               // punctuation mark (AF-SpotSigs), not a word
)

// NewExtractor validates cfg and returns an Extractor for it.
func NewExtractor(cfg Config) (*Extractor, error) {
	steps, err := cfg.steps()
	if err != nil {
		return nil, err
	}
	if cfg.Families&FamShingles != 0 && cfg.ShingleK < 1 {
		return nil, errorf("shingle k %d < 1", cfg.ShingleK)
	}
	if cfg.Families&FamQGrams != 0 && (cfg.QGram < 1 || cfg.QGram > 64) {
		return nil, errorf("q-gram q %d not in 1..64", cfg.QGram)
	}
	if cfg.MaxDocBytes <= 0 {
		cfg.MaxDocBytes = DefaultMaxDocBytes
	}
	e := &Extractor{cfg: cfg, steps: steps}
	stop := make(map[uint64]uint8)
	for _, w := range cfg.Stopwords {
		stop[wordHash(w)] |= flagStop
	}
	for _, w := range cfg.Antecedents {
		stop[wordHash(w)] |= flagStop | flagAnte
	}
	if cfg.Families&FamAF != 0 {
		for _, w := range cfg.AFAntecedents {
			h := wordHash(w)
			if stop[h]&flagAnte == 0 {
				stop[h] |= flagStop | flagAFAnte
				e.afAnte = true
			}
		}
	}
	e.stop = newStopTable(stop)
	return e, nil
}

// wordHash hashes a configured word the way the scanner hashes text: normalized
// and case-folded first, so "The" in a config matches "the" in text.
func wordHash(w string) uint64 {
	var x Extractor
	x.appendText([]byte(w))
	return Hash64(bytes.TrimSpace(x.text), seedTerm)
}

// Config returns the Extractor's configuration.
func (e *Extractor) Config() Config { return e.cfg }

// Text returns the normalized text of the last page Extract saw: markup replaced
// by single spaces, NFKC, case-folded. It is valid until the next Extract call.
func (e *Extractor) Text() []byte { return e.text }

// Extract computes the configured feature families of one HTTP response in one
// pass: Henzinger's tokenization (SIGIR 2006, Sec. 2) feeds the simhash (Alg. C)
// and shingles (Alg. B); SpotSigs words (SIGIR 2008, Sec. 3) feed the spot
// signatures, the spot simhash and AF-SpotSigs (Sec. 4 of that paper); the
// normalized text feeds DDD's q-grams (Sec. 3). body is
// the (transfer- and content-decoded) entity body, contentType the Content-Type
// header value (may be ""), pageURL the target URI (used for IMG terms; may be "").
// Bodies longer than Config.MaxDocBytes are cut there and the Doc is marked
// Truncated. Extract does not fail: bytes that are not HTML give text features of
// whatever text they contain.
func (e *Extractor) Extract(body []byte, contentType, pageURL string) Doc {
	var d Doc
	e.release()
	if len(body) > e.cfg.MaxDocBytes {
		body = body[:e.cfg.MaxDocBytes]
		d.Truncated = true
	}
	src, name := e.decode(body, contentType)
	d.Charset = name
	if !e.tokenize(src, pageURL) {
		d.Truncated = true
	}
	return e.finish(d)
}

// finish computes the features of the page tokenize has just read.
func (e *Extractor) finish(d Doc) Doc {
	if e.cfg.MainText {
		e.cut()
	}
	if n := len(e.text); n > 0 && e.text[n-1] == ' ' {
		e.text = e.text[:n-1]
	}
	e.scan()
	d.Families = e.cfg.Families
	d.TextBytes = len(e.text)
	d.Terms = len(e.terms)
	d.CJK = e.cjk
	for _, w := range e.words {
		if w.flags&flagMark == 0 {
			d.Words++
		}
	}
	if e.cfg.MainText {
		e.proseOutside, e.mainWords = 0, 0
		d.MainText = e.mainText()
		d.MainTextUnlikely = d.MainText && e.unlikelyText
		if d.MainText {
			d.MainTextWords, d.ProseOutside = e.mainWords, e.proseOutside
		}
	}
	d.Shop = e.shop
	e.features(&d)
	return d
}

// retainBytes bounds how much buffer memory an Extractor keeps between pages: a
// buffer grown beyond it by one huge page is dropped before the next page, so a
// long-running worker's memory follows the typical page, not the largest one.
const retainBytes = 4 << 20

// release drops buffers grown beyond retainBytes by the previous page.
func (e *Extractor) release() {
	if cap(e.dec) > retainBytes {
		e.dec = nil
	}
	if cap(e.text) > retainBytes {
		e.text = nil
	}
	if cap(e.nfkc) > retainBytes {
		e.nfkc = nil
	}
	if cap(e.qbuf) > retainBytes {
		e.qbuf = nil
	}
	if cap(e.qoff)*4 > retainBytes {
		e.qoff = nil
	}
	if cap(e.content)*4 > retainBytes {
		e.content = nil
	}
	if cap(e.terms)*8 > retainBytes {
		e.terms = nil
	}
	if cap(e.keys)*8 > retainBytes {
		e.keys = nil
	}
	if cap(e.words)*24 > retainBytes {
		e.words = nil
	}
	if cap(e.imgs)*16 > retainBytes {
		e.imgs = nil
	}
	if cap(e.blocks)*20 > retainBytes {
		e.blocks, e.cls, e.bstat, e.idx = nil, nil, nil, nil
	}
}

// decode converts body to UTF-8 (see determineCharset). UTF-8 input is used as it
// is: invalid bytes become U+FFFD when scanned.
func (e *Extractor) decode(body []byte, contentType string) ([]byte, string) {
	enc, name := determineCharset(body, contentType)
	if enc == nil {
		if bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}) {
			body = body[3:]
		}
		return body, name
	}
	e.dec = decodeAppend(enc, e.dec[:0], body)
	return e.dec, name
}

// decodeAppend is transform.Append with a decoder that replaces what it cannot
// decode, so it never fails half way.
func decodeAppend(enc encoding.Encoding, dst, src []byte) []byte {
	out, _, err := transform.Append(enc.NewDecoder(), dst, src)
	if err != nil {
		// Only a broken decoder gets here; fall back to the raw bytes.
		return append(dst[:0], src...)
	}
	return out
}

// Tags that do not separate words. Henzinger (SIGIR 2006, Sec. 2): "All HTML
// markup in the page is replaced by white space or, in case of formatting
// instructions, ignored": "wo<b>rd</b>" is one word. Only character formatting is
// ignored; <span> and <a> separate, because menus written as adjacent links
// (<li>Home</li><li>News</li>) must not glue into one word.
func isFormatting(name []byte) bool {
	switch string(name) {
	case "b", "i", "u", "em", "strong", "font", "big", "small", "tt", "s", "strike", "sub", "sup", "mark", "wbr":
		return true
	}
	return false
}

// tagName returns the lower-cased name of the tag whose raw bytes are raw ("<DIV
// class=x>", "</p>"), in buf; names longer than buf are cut (no tag we look for is).
func tagName(buf []byte, raw []byte) []byte {
	i := 1
	if i < len(raw) && raw[i] == '/' {
		i++
	}
	n := 0
	for ; i < len(raw) && n < len(buf); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>' {
			break
		}
		buf[n] = lowerASCII(c)
		n++
	}
	return buf[:n]
}

// rawSkip returns the constant string for a skipped element name (no allocation).
func rawSkip(name []byte) string {
	switch string(name) {
	case "script":
		return "script"
	case "style":
		return "style"
	}
	return "noscript"
}

// tokenize runs the scanner (htmlscan.go) over src and fills e.text and e.imgs.
// It returns false if the tokenizer gave up (x/net/html's can, at its buffer
// limit; the scanner cannot). Text inside script, style and noscript is not page
// text (SpotSigs and Henzinger both mean the text a reader sees; noscript
// repeats what scripts would show).
func (e *Extractor) tokenize(src []byte, pageURL string) bool {
	e.sc.reset(src)
	return e.tokenizeFrom(&e.sc, pageURL)
}

// tokenSource is what tokenize needs of an HTML tokenizer: scanner, or
// x/net/html's Tokenizer in the test that compares the two.
type tokenSource interface {
	Next() html.TokenType
	Err() error
	Text() []byte
	Raw() []byte
	// Name is the current tag's name as tagName reads it from Raw.
	Name() []byte
	TagAttr() (key, val []byte, more bool)
}

// tokenizeFrom is tokenize over any token source.
func (e *Extractor) tokenizeFrom(z tokenSource, pageURL string) bool {
	e.text = e.text[:0]
	e.imgs = e.imgs[:0]
	e.blocks = e.blocks[:0]
	e.bs = blockState{}
	e.shop, e.ldJSON = false, false
	e.discussion = discussionURL(pageURL)
	return e.tokenLoop(z, pageURL, false)
}

// noscriptMinBytes is the least markup in a <noscript> element for its
// content to be read as the page's (see tokenLoop).
const noscriptMinBytes = 2048

// tokenLoop reads the tokens of z into the page's text; nested is set for
// the content of a <noscript> element.
//
// A <noscript> element is raw text to a browser that runs scripts, and most
// hold a tracking pixel or "please enable JavaScript". Some sites put the
// page itself there, for readers and crawlers without scripts, and render it
// with scripts for the rest: Discourse forums serve every post of a thread
// inside <noscript>, so that without it the page had no text at all (WCXB's
// forum pages). The content of a <noscript> of noscriptMinBytes or more is
// read as markup, as a browser without scripts reads it, for every family:
// the main-text rules then judge it as any other part of the page, and the
// main text stays a part of the page's text.
func (e *Extractor) tokenLoop(z tokenSource, pageURL string, nested bool) bool {
	var skip string // raw-text element whose body we are skipping
	var base *url.URL
	baseParsed := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return errors.Is(z.Err(), io.EOF)
		case html.TextToken:
			// Text is read once: x/net/html's Tokenizer gives it only once.
			t := z.Text()
			if skip == "script" && e.ldJSON {
				if !e.shop {
					e.shop = shopJSONLD(t)
				}
				if !e.discussion {
					e.discussion = discussionJSONLD(t)
				}
			}
			if skip == "noscript" && !nested && len(t) >= noscriptMinBytes {
				if e.nsc == nil {
					e.nsc = new(scanner)
				}
				e.nsc.reset(t)
				e.tokenLoop(e.nsc, pageURL, true)
				e.nsc.reset(nil)
			}
			if skip == "" {
				if !e.shop {
					e.shop = shopButton(t)
				}
				n0 := len(e.text)
				e.appendText(t)
				if e.cfg.MainText {
					e.blockText(n0)
				}
			}
		case html.CommentToken, html.DoctypeToken:
			e.space() // markup: white space
		case html.StartTagToken, html.SelfClosingTagToken:
			name := z.Name()
			if e.cfg.MainText {
				if tt == html.SelfClosingTagToken && e.bs.inSelect {
					e.selectTag(name, true) // <input/> ends a select too
				}
				if tt == html.StartTagToken {
					chrome0 := e.bs.chrome
					e.blockTag(name, true)
					e.containerTag(z, name, true)
					e.nestTag(name, true, chrome0)
				} else if isBlockTag(name) {
					e.cut()
				}
			}
			switch string(name) {
			case "script", "style", "noscript":
				if tt == html.StartTagToken {
					skip = rawSkip(name)
					e.ldJSON = skip == "script" && (!e.shop || !e.discussion) && scriptIsJSONLD(z)
				}
			case "meta":
				if !e.shop || !e.discussion {
					shop, discussion := metaKind(z)
					e.shop = e.shop || shop
					e.discussion = e.discussion || discussion
				}
			case "img":
				if e.cfg.Families&(FamSimhash|FamShingles) == 0 {
					break
				}
				for hasAttr := true; hasAttr; {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "src" && len(v) > 0 {
						if !baseParsed {
							base, _ = url.Parse(pageURL)
							baseParsed = true
						}
						if h, ok := e.imgTerm(base, v); ok {
							e.space()
							e.imgs = append(e.imgs, imgRef{pos: len(e.text), hash: h})
						}
						break
					}
				}
			}
			if !isFormatting(name) {
				e.space()
			}
		case html.EndTagToken:
			name := z.Name()
			if skip != "" && string(name) == skip {
				skip = ""
			}
			if e.cfg.MainText && skip == "" {
				e.blockTag(name, false)
				e.containerTag(z, name, false)
				e.nestTag(name, false, 0)
			}
			if !isFormatting(name) {
				e.space()
			}
		}
	}
}

// imgTerm is Henzinger's IMG term (SIGIR 2006, Sec. 2, exception 2): the whole URL
// if the image is on another host, only the file name if it is on the page's own
// host, so that a mirrored page with mirrored images gives the same terms. The
// whole URL is taken without its scheme (an http and an https capture of one page
// agree), case-folded like all terms. Relative references are on the page's host
// and need no URL parsing: only absolute ones are parsed (profiling showed
// url.Parse and ResolveReference on every IMG at 5% of the default configuration).
func (e *Extractor) imgTerm(base *url.URL, src []byte) (uint64, bool) {
	src = bytes.TrimSpace(src)
	if len(src) == 0 || hasPrefixFold(src, "data:") {
		return 0, false // inline image: no URL to compare
	}
	abs := bytes.HasPrefix(src, []byte("//"))
	if i := bytes.Index(src, []byte("://")); i > 0 && i < 10 {
		abs = true
	}
	if abs {
		u, err := url.Parse(string(src))
		if err != nil || u.Host == "" {
			return 0, false
		}
		if base == nil || !strings.EqualFold(u.Host, base.Host) {
			e.nfkc = append(e.nfkc[:0], strings.ToLower(u.Host)...)
			e.nfkc = append(e.nfkc, strings.ToLower(u.EscapedPath())...)
			if u.RawQuery != "" {
				e.nfkc = append(e.nfkc, '?')
				e.nfkc = append(e.nfkc, strings.ToLower(u.RawQuery)...)
			}
			return Hash64(e.nfkc, seedTerm), true
		}
		src = []byte(u.EscapedPath())
	}
	// Same host: the file name, the last path segment without query or fragment.
	if i := bytes.IndexAny(src, "?#"); i >= 0 {
		src = src[:i]
	}
	if i := bytes.LastIndexByte(src, '/'); i >= 0 {
		src = src[i+1:]
	}
	if len(src) == 0 {
		return 0, false
	}
	e.nfkc = e.nfkc[:0]
	for _, c := range src {
		e.nfkc = append(e.nfkc, lowerASCII(c))
	}
	return Hash64(e.nfkc, seedTerm), true
}

// space appends one separating space unless the text is empty or already ends in one.
func (e *Extractor) space() {
	if n := len(e.text); n > 0 && e.text[n-1] != ' ' {
		e.text = append(e.text, ' ')
	}
}

// appendText appends s to e.text normalized: Unicode NFKC (so full-width letters
// and digits, ligatures and compatibility forms compare equal), simple case
// folding, U+2019 (typographic apostrophe) as ', and every run of white space or
// control characters as one space. ASCII text, most of the web, takes a fast path.
func (e *Extractor) appendText(s []byte) {
	t := e.text
	ascii := isASCII(s)
	if !ascii {
		e.nfkc = norm.NFKC.Append(e.nfkc[:0], s...)
		s = e.nfkc
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			// A run of ASCII: table-driven, written by index into grown capacity.
			j := len(s)
			if !ascii {
				j = i + 1
				for j < len(s) && s[j] < 0x80 {
					j++
				}
			}
			t = slices.Grow(t, j-i)
			n := len(t)
			t = t[:n+j-i]
			prevSpace := n == 0 || t[n-1] == ' '
			// Every byte is written and a space after a space is not
			// kept (the next byte overwrites it): without a branch on
			// the text, whose spaces come at random.
			for _, c := range s[i:j] {
				m := asciiNorm[c]
				t[n] = m
				space := m == ' '
				n += b2i(!(space && prevSpace))
				prevSpace = space
			}
			t = t[:n]
			i = j
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		t = appendRune(t, r)
	}
	e.text = t
}

// appendRune appends the normal form of a non-ASCII rune of text to t: a
// right single quote as an apostrophe, white space and controls as one
// space (none at the start or after a space), any other rune case-folded.
func appendRune(t []byte, r rune) []byte {
	switch {
	case r == '\u2019':
		return append(t, '\'')
	case unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u200b' || r == '\ufeff':
		if n := len(t); n > 0 && t[n-1] != ' ' {
			return append(t, ' ')
		}
		return t
	default:
		// Simple case folding: lower(upper(r)) maps ς, σ and Σ to σ, ſ to s,
		// K (Kelvin) to k, as Unicode CaseFolding does for one-rune folds.
		return utf8.AppendRune(t, unicode.ToLower(unicode.ToUpper(r)))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isASCII says whether s is all ASCII, eight bytes at a time.
func isASCII(s []byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Character classes of the scanner.
const (
	cOther = iota // separator: white space, symbols, punctuation that is not a mark
	cAlnum        // letter, digit or combining mark: part of a term
	cCJK          // Han, kana, hangul: a term by itself
	cJoin         // ' or -: joins two alphanumeric runs into one SpotSigs word
	cDot          // '.': joins like cJoin when followed by a letter or digit, else a mark
	cMark         // sentence punctuation (AF-SpotSigs)
)

var asciiClass [128]uint8

// asciiNorm maps an ASCII byte to its normalized form: lower case, and white
// space and control characters to ' '. It has 256 entries, so that a byte
// indexes it without a bounds check; appendText reads the ASCII half.
var asciiNorm = func() (t [256]byte) {
	for c := range t {
		switch {
		case c <= ' ' || c == 0x7f:
			t[c] = ' '
		case c >= 'A' && c <= 'Z':
			t[c] = byte(c + 32)
		default:
			t[c] = byte(c)
		}
	}
	return t
}()

func init() {
	for c := '0'; c <= '9'; c++ {
		asciiClass[c] = cAlnum
	}
	for c := 'a'; c <= 'z'; c++ {
		asciiClass[c] = cAlnum
		asciiClass[c-32] = cAlnum
	}
	asciiClass['\''] = cJoin
	asciiClass['-'] = cJoin
	asciiClass['.'] = cDot
	for _, c := range ",!?;:" {
		asciiClass[c] = cMark
	}
}

// class of a non-ASCII rune. Han, kana and hangul characters are terms of their own:
// Chinese and Japanese do not separate words by spaces, and a dictionary segmenter
// would make features depend on a dictionary version; single characters are what
// AF-SpotSigs' Chinese antecedents (的, 了: one character each) and DDD's
// character q-grams work with.
func class(r rune) uint8 {
	switch {
	case r == '。' || r == '、':
		// The full-width ，！？；： became ASCII under NFKC; these two have no
		// ASCII form.
		return cMark
	case r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)):
		if unicode.IsLetter(r) {
			return cCJK
		}
		return cOther
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return cAlnum
	}
	return cOther
}

// scan splits e.text into Henzinger terms and SpotSigs words in one pass.
//
// A term (Henzinger, SIGIR 2006, Sec. 2) is a maximal run of letters and digits,
// or one Han/kana/hangul character. That also breaks every URL in the text at
// slashes and dots (the paper's exception 1), since those are not alphanumeric.
//
// A SpotSigs word is a run of terms joined by single apostrophes, hyphens or
// inner dots: "city's", "inner-west", "u.s", "3.5" are one word each, "Milton,"
// is "milton". This is the definition under which both worked examples in the
// papers (SIGIR 2008, Sec. 3; AF-SpotSigs, Sec. 2) give exactly the printed
// signatures: the Milton example prints "the:city's:inner-west". CJK characters
// are one word each.
func (e *Extractor) scan() {
	t := e.text
	// Size the term and word slices once from an upper bound (a term or word
	// takes at least one byte and one separator): append's 1.25x growth of large
	// slices allocated five times the final size on an 8 MiB page.
	e.terms = slices.Grow(e.terms[:0], len(t)/2+1+len(e.imgs))
	e.words = e.words[:0]
	e.cjk = 0
	wantWords := e.cfg.Families&(FamSpotSigs|FamSpotSimhash|FamAF|FamTextSimhash) != 0
	wantMarks := e.cfg.Families&(FamAF|FamTextSimhash) != 0
	if wantWords {
		e.words = slices.Grow(e.words, len(t)/2+1)
	}
	imgs := e.imgs
	ii := 0
	wStart, wEnd, wRuns := -1, -1, 0
	var wHash uint64
	joinEnd := -1
	flush := func() {
		if wStart < 0 {
			return
		}
		if wantWords {
			h := wHash
			if wRuns > 1 {
				h = Hash64(t[wStart:wEnd], seedTerm)
			}
			e.words = append(e.words, word{start: uint32(wStart), end: uint32(wEnd), hash: h, flags: e.stop.get(h)})
		}
		wStart = -1
	}
	for i := 0; i < len(t); {
		for ii < len(imgs) && imgs[ii].pos <= i {
			e.terms = append(e.terms, imgs[ii].hash)
			ii++
		}
		c := t[i]
		size := 1
		var cls uint8
		if c < 0x80 {
			cls = asciiClass[c]
		} else {
			var r rune
			r, size = utf8.DecodeRune(t[i:])
			cls = class(r)
		}
		switch cls {
		case cAlnum:
			j := i + size
			for j < len(t) {
				if b := t[j]; b < 0x80 {
					if asciiClass[b] != cAlnum {
						break
					}
					j++
					continue
				}
				r, n := utf8.DecodeRune(t[j:])
				if class(r) != cAlnum {
					break
				}
				j += n
			}
			h := Hash64(t[i:j], seedTerm)
			e.terms = append(e.terms, h)
			if wStart >= 0 && joinEnd == i {
				wEnd = j
				wRuns++
			} else {
				flush()
				wStart, wEnd, wHash, wRuns = i, j, h, 1
			}
			i = j
			continue
		case cCJK:
			flush()
			h := Hash64(t[i:i+size], seedTerm)
			e.terms = append(e.terms, h)
			e.cjk++
			if wantWords {
				e.words = append(e.words, word{start: uint32(i), end: uint32(i + size), hash: h, flags: e.stop.get(h)})
			}
		case cJoin:
			if wStart >= 0 && wEnd == i {
				joinEnd = i + size
			} else {
				flush()
			}
		case cDot:
			if wStart >= 0 && wEnd == i && i+1 < len(t) && startsAlnum(t[i+1:]) {
				joinEnd = i + size
				break
			}
			flush()
			if wantMarks {
				e.words = append(e.words, word{start: uint32(i), end: uint32(i + size), hash: Hash64(t[i:i+size], seedPunct), flags: flagMark})
			}
		case cMark:
			flush()
			if wantMarks {
				e.words = append(e.words, word{start: uint32(i), end: uint32(i + size), hash: Hash64(t[i:i+size], seedPunct), flags: flagMark})
			}
		default:
			flush()
		}
		i += size
	}
	flush()
	for ; ii < len(imgs); ii++ {
		e.terms = append(e.terms, imgs[ii].hash)
	}
}

func startsAlnum(b []byte) bool {
	if b[0] < 0x80 {
		return asciiClass[b[0]] == cAlnum
	}
	r, _ := utf8.DecodeRune(b)
	return class(r) == cAlnum
}

// bagOfSorted sorts keys in place and returns them counted as a Bag owned by the
// caller.
func bagOfSorted(keys []uint64) Bag {
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	n := 1
	for i := 1; i < len(keys); i++ {
		if keys[i] != keys[i-1] {
			n++
		}
	}
	b := make(Bag, 0, n)
	for _, k := range keys {
		if m := len(b); m > 0 && b[m-1].Key == k {
			b[m-1].N++
			continue
		}
		b = append(b, Entry{Key: k, N: 1})
	}
	return b
}
