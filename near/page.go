package near

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
	"github.com/warcdedup/warcdedup/sitekey"
)

// Page is what the decision needs of a captured HTML page. Bags are sorted
// multi-sets of 32-bit folded feature keys (matcher.Fold32); a nil bag is a
// family the page is not compared by.
type Page struct {
	// Ref is the caller's reference to the page's record (in the pipeline,
	// the kept record's number in its store). Match returns it.
	Ref uint32
	// Site is the Henzinger site key of the page's URL (package sitekey).
	Site string
	// URL is a 64-bit hash of the canonical URL (URLKey): captures of one
	// resource share it.
	URL uint64
	// Spots are the spot signatures of the main text; nil if the page is not
	// compared by them (no running text, or too few signatures).
	Spots features.Bag
	// AF are AF-SpotSigs features, for short pages (Config.ShortSpots).
	AF features.Bag
	// Bigrams are the main text's word bigrams, for pages with few spot
	// signatures (Config.BigramsBelow), or, when Whole is set, the word
	// bigrams of all the page's text.
	Bigrams features.Bag
	// Whole: no block of the page reads as running text, and Bigrams are
	// its whole text's (features.Config.WholeBigrams). Its text is mostly
	// its site's frame, so it is compared with captures of its own URL only.
	Whole bool
	// Unlikely: the main text is not known to be the page's own: it is in
	// containers named as page furniture (features.Doc.MainTextUnlikely),
	// perhaps the site's own boilerplate, or most of the page's prose
	// stands outside it (proseElsewhere).
	Unlikely bool
	// Shop: the page says it is a shop's product or catalogue page
	// (features.Doc.Shop).
	Shop bool
	// Henzinger is set for a page compared by Henzinger's method, which reads
	// Shingles (Alg. B's supershingles) and Sim384 (Alg. C's fingerprint).
	Henzinger bool
	Shingles  [6]uint64
	Sim384    [6]uint64
}

// OK says whether the page can be compared at all.
func (p *Page) OK() bool {
	return p != nil && (p.Henzinger || p.Spots != nil || p.AF != nil || p.Bigrams != nil)
}

// URLKey is a 64-bit hash of CanonURL(u): pages hold it, not the URL.
func URLKey(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(CanonURL(u)))
	return h.Sum64() | 1 // never 0, which means no URL in matchIn
}

// CanonURL is a URL in the form two captures of one resource share: scheme,
// "www." and a fragment or final slash do not tell captures apart; host case
// does not matter, path and query case do. Query parameters that track a
// visitor rather than name a resource (utm_* and the click IDs of ad
// networks, as URL cleaners such as ClearURLs remove them) are dropped, and
// so are those that ask for another view of the same page (print, all pages
// on one, mobile): a page's copy at such a URL is a capture of the page.
func CanonURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	host, rest := u, ""
	if i := strings.IndexAny(u, "/?"); i >= 0 {
		host, rest = u[:i], u[i:]
	}
	host = strings.TrimPrefix(strings.ToLower(host), "www.")
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		path, query := rest[:i], rest[i+1:]
		var keep []string
		for _, p := range strings.Split(query, "&") {
			if p != "" && !viewOrTracking(p) {
				keep = append(keep, p)
			}
		}
		rest = path
		if len(keep) > 0 {
			rest += "?" + strings.Join(keep, "&")
		}
	}
	return host + strings.TrimSuffix(rest, "/")
}

// viewOrTracking says whether a query parameter (name=value) tracks the
// visitor or asks for another view of the page (see CanonURL).
func viewOrTracking(p string) bool {
	name, value, _ := strings.Cut(strings.ToLower(p), "=")
	if strings.HasPrefix(name, "utm_") {
		return true
	}
	switch name {
	case "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid", "_ga", "_gl":
		return true
	case "output", "print", "printable":
		return value == "print" || value == "1" || value == "true" || value == "yes"
	case "page", "view":
		return value == "all" || value == "full"
	case "showall", "singlepage", "mobile":
		return value == "1" || value == "true"
	}
	return false
}

// PageFormat is the first byte of a Page's binary form. A reader refuses
// any other: a page written by another version of the analysis would be
// compared on features that mean something else.
const PageFormat = 2

const pageVersion = PageFormat

// Flags of the binary form.
const (
	flagUnlikely = 1 << iota
	flagSpots
	flagAF
	flagBigrams
	flagHenzinger
	flagShop
	flagWhole
)

// ErrVersion is returned when decoding a page written by another version.
var ErrVersion = errors.New("near: page written by another version")

// AppendBinary appends the page's binary form to b: a version byte, a flags
// byte, Ref and the site key's length as uvarints, the site key, URL as 8
// little-endian bytes, then each bag present (by the flags) as its number of
// entries, and each entry as a uvarint of its key's difference from the key
// before shifted left by one, with the low bit set if a uvarint of its count
// follows (a count of 1 is not written); last, for Henzinger's method, the 12
// words of Shingles and Sim384. A folded bag of n signatures (32-bit keys)
// takes about 4n bytes for n of 100 to 1,000.
func (p *Page) AppendBinary(b []byte) ([]byte, error) {
	var flags byte
	if p.Unlikely {
		flags |= flagUnlikely
	}
	if p.Shop {
		flags |= flagShop
	}
	if p.Whole {
		flags |= flagWhole
	}
	for _, f := range []struct {
		bag  features.Bag
		flag byte
	}{{p.Spots, flagSpots}, {p.AF, flagAF}, {p.Bigrams, flagBigrams}} {
		if f.bag != nil {
			flags |= f.flag
		}
	}
	if p.Henzinger {
		flags |= flagHenzinger
	}
	b = append(b, pageVersion, flags)
	b = binary.AppendUvarint(b, uint64(p.Ref))
	b = binary.AppendUvarint(b, uint64(len(p.Site)))
	b = append(b, p.Site...)
	b = binary.LittleEndian.AppendUint64(b, p.URL)
	for _, bag := range []features.Bag{p.Spots, p.AF, p.Bigrams} {
		if bag == nil {
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(bag)))
		prev := uint64(0)
		for i, e := range bag {
			if i > 0 && e.Key <= prev {
				return nil, fmt.Errorf("near: bag not sorted by key at entry %d", i)
			}
			if e.N == 0 || e.Key-prev >= 1<<63 {
				return nil, fmt.Errorf("near: bag entry %d cannot be written", i)
			}
			// Most signatures occur once: the count is written only if
			// it is not 1, flagged in the low bit of the delta.
			if e.N == 1 {
				b = binary.AppendUvarint(b, (e.Key-prev)<<1)
			} else {
				b = binary.AppendUvarint(b, (e.Key-prev)<<1|1)
				b = binary.AppendUvarint(b, uint64(e.N))
			}
			prev = e.Key
		}
	}
	if p.Henzinger {
		for _, w := range p.Shingles {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		for _, w := range p.Sim384 {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b, nil
}

// MarshalBinary is AppendBinary to a new slice.
func (p *Page) MarshalBinary() ([]byte, error) { return p.AppendBinary(nil) }

// UnmarshalBinary reads a page written by AppendBinary; the data must hold
// exactly one page.
func (p *Page) UnmarshalBinary(data []byte) error {
	rest, err := p.decode(data)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("near: %d bytes after the page", len(rest))
	}
	return err
}

// DecodePage reads one page from the start of data and returns the bytes
// after it.
func DecodePage(data []byte) (*Page, []byte, error) {
	p := new(Page)
	rest, err := p.decode(data)
	if err != nil {
		return nil, nil, err
	}
	return p, rest, nil
}

var errShort = errors.New("near: page data cut short")

func (p *Page) decode(d []byte) ([]byte, error) {
	*p = Page{}
	if len(d) < 2 {
		return nil, errShort
	}
	if d[0] != pageVersion {
		return nil, fmt.Errorf("%w (format %d, this version reads %d)", ErrVersion, d[0], pageVersion)
	}
	flags := d[1]
	if flags&^(flagUnlikely|flagSpots|flagAF|flagBigrams|flagHenzinger|flagShop|flagWhole) != 0 {
		return nil, fmt.Errorf("near: unknown page flags %#x", flags)
	}
	d = d[2:]
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(d)
		if n <= 0 {
			return 0, false
		}
		d = d[n:]
		return v, true
	}
	ref, ok := uv()
	if !ok || ref > 1<<32-1 {
		return nil, errors.New("near: bad page reference")
	}
	p.Ref = uint32(ref)
	n, ok := uv()
	if !ok || n > uint64(len(d)) {
		return nil, errShort
	}
	p.Site, d = string(d[:n]), d[n:]
	if len(d) < 8 {
		return nil, errShort
	}
	p.URL, d = binary.LittleEndian.Uint64(d), d[8:]
	p.Unlikely = flags&flagUnlikely != 0
	p.Shop = flags&flagShop != 0
	p.Whole = flags&flagWhole != 0
	for _, f := range []struct {
		bag  *features.Bag
		flag byte
	}{{&p.Spots, flagSpots}, {&p.AF, flagAF}, {&p.Bigrams, flagBigrams}} {
		if flags&f.flag == 0 {
			continue
		}
		n, ok := uv()
		if !ok || n > uint64(len(d)) {
			return nil, errShort
		}
		bag := make(features.Bag, n)
		key := uint64(0)
		for i := range bag {
			v, ok := uv()
			if !ok {
				return nil, errShort
			}
			delta, cnt := v>>1, uint64(1)
			if v&1 != 0 {
				if cnt, ok = uv(); !ok {
					return nil, errShort
				}
				if cnt < 2 {
					return nil, errors.New("near: bad bag entry count")
				}
			}
			if (i > 0 && delta == 0) || key+delta < key || cnt > 1<<32-1 {
				return nil, errors.New("near: bad bag entry")
			}
			key += delta
			bag[i] = features.Entry{Key: key, N: uint32(cnt)}
		}
		*f.bag = bag
	}
	if flags&flagHenzinger != 0 {
		if len(d) < 96 {
			return nil, errShort
		}
		p.Henzinger = true
		for i := range p.Shingles {
			p.Shingles[i], d = binary.LittleEndian.Uint64(d), d[8:]
		}
		for i := range p.Sim384 {
			p.Sim384[i], d = binary.LittleEndian.Uint64(d), d[8:]
		}
	}
	return d, nil
}

// Analyzer makes Pages from HTML. It is not safe for concurrent use: give
// each goroutine its own.
type Analyzer struct {
	spots, af  *features.Extractor
	hz         *features.Extractor // MethodHenzinger only
	shortSpots int
	mainText   bool
}

// NewAnalyzer returns an Analyzer for cfg.
func NewAnalyzer(cfg Config) (*Analyzer, error) {
	if cfg.Method == MethodHenzinger {
		hz, err := features.NewExtractor(henzingerFeatures())
		if err != nil {
			return nil, err
		}
		return &Analyzer{hz: hz}, nil
	}
	// Two extractors: SpotSigs for every page, AF-SpotSigs only for the short
	// ones, where it is needed and cheap (its sentence shingles cost about 29 times
	// SpotSigs' time on long pages, AF-SpotSigs paper, Sec. 5).
	fc := features.DefaultConfig()
	fc.Families = features.FamSpotSigs
	fc.MainText = cfg.MainText
	if fc.MainText {
		fc.MinSpots = mainTextMinSpots
	}
	fc.BigramsBelow = cfg.BigramsBelow
	fc.WholeBigrams = cfg.MainText && cfg.BigramsBelow > 0
	spots, err := features.NewExtractor(fc)
	if err != nil {
		return nil, err
	}
	fc.Families = features.FamAF
	af, err := features.NewExtractor(fc)
	if err != nil {
		return nil, err
	}
	return &Analyzer{spots: spots, af: af, shortSpots: cfg.ShortSpots, mainText: cfg.MainText}, nil
}

// Page analyses an HTML page (its decoded body, the response's Content-Type
// and the target URI). The page may not be comparable (Page.OK).
func (a *Analyzer) Page(body []byte, ctype, uri string) *Page {
	p := &Page{Site: sitekey.FromURL(uri), URL: URLKey(uri)}
	if a.hz != nil {
		doc := a.hz.Extract(body, ctype, uri)
		// Henzinger compares every page with at least one shingle's worth of terms.
		p.Henzinger = doc.Terms >= 8
		p.Shingles, p.Sim384 = doc.Supershingles, doc.Simhash384
		return p
	}
	doc := a.spots.Extract(body, ctype, uri)
	nSpots := doc.Spots.Len()
	// With MainText, a page where no block reads as running text is left alone:
	// falling back to all its words would compare frames (measured: most of
	// the benchmark's same-frame false positives came from such pages).
	if doc.SpotComparable && (doc.MainText || !a.mainText) && len(doc.Spots) > 0 {
		// Bags are folded to 32-bit keys once, here, so that the index keeps 4
		// bytes a signature instead of 8 (matcher.Fold32: a spurious shared
		// signature between two pages of 80 has a chance of about 1.5e-6).
		p.Spots = matcher.Fold32(doc.Spots[:0], doc.Spots)
	}
	p.Unlikely = doc.MainTextUnlikely || proseElsewhere(&doc)
	p.Shop = doc.Shop
	if doc.Bigrams.Len() >= minBigrams {
		p.Bigrams = matcher.Fold32(doc.Bigrams[:0], doc.Bigrams)
		p.Whole = a.mainText && !doc.MainText
	}
	// SizeSpotSigs (AF-SpotSigs paper, Sec. 4): pages with little core content,
	// measured by their number of spot signatures, are compared by AF-SpotSigs.
	if nSpots < a.shortSpots {
		afDoc := a.af.Extract(body, ctype, uri)
		if afDoc.AF.Len() >= minAFFeatures {
			p.AF = matcher.Fold32(afDoc.AF[:0], afDoc.AF)
		}
	}
	return p
}

// proseElsewhere says whether most of a page's running text stands outside
// its main text (features.Doc.ProseOutside): at least proseOutsideMin words,
// and proseOutsideRatio times the main text's. The main text was then taken
// from the frame around a story that stands in a container named as
// furniture, or the story is what the rules after the classifier cut off;
// either way the main text is not known to be the page's own, and the page
// is held to the rule of Page.Unlikely: within its site, compared with
// captures of its own URL only. Measured on the same-site near revisits at
// another URL: on the scaled benchmark set (dedupbench gen -scale 17), 65
// of the 115 that replaced a different story have such a page on one side,
// against 3 of the 705 true ones; at the two benchmark seeds, 1 of 65 and 1
// of 68 true ones. The frames are a shop's with its SEO text, a forum's
// with its rules, a form's instructions above a story in a container named
// as furniture (docs/method.md).
const (
	proseOutsideMin   = 50
	proseOutsideRatio = 2
)

func proseElsewhere(d *features.Doc) bool {
	return d.ProseOutside >= proseOutsideMin && d.ProseOutside >= proseOutsideRatio*d.MainTextWords
}

// henzingerFeatures is the extractor configuration the combined algorithm needs.
func henzingerFeatures() features.Config {
	cfg := features.DefaultConfig()
	cfg.Families = features.FamShingles | features.FamSimhash
	return cfg
}
