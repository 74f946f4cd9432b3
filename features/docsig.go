package features

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Doc holds the features of one page. Which fields are set depends on Families.
// All of it serializes with MarshalBinary/AppendBinary, so extraction can run as a
// map task and matching as a reduce.
type Doc struct {
	// Families lists the families that were computed.
	Families Family
	// Charset is the encoding the body was decoded from ("utf-8", "gbk", ...).
	Charset string
	// Truncated is set if the body was longer than Config.MaxDocBytes or the
	// tokenizer gave up; the features cover the part that was read.
	Truncated bool

	// Size counts, for routing short pages (SizeSpotSigs: AF-SpotSigs features for
	// pages with little core content, SpotSigs for the rest) and for refusing to
	// compare empty pages.
	TextBytes int // bytes of normalized text
	Terms     int // Henzinger terms, IMG terms included
	Words     int // SpotSigs words
	CJK       int // Han, kana and hangul characters (each also a term and a word)
	// MainText is set when Config.MainText selected some blocks as running text
	// (not serialized: it describes the extraction, not the signatures).
	MainText bool
	// MainTextUnlikely is set when that text was found only in containers
	// whose class or id names page furniture (jusText run again without that
	// rule, as Readability retries): a story in a mislabelled container, or
	// a sidebar's blurb on a page with no story, the same on every page of
	// the site. Not serialized either.
	MainTextUnlikely bool
	// MainTextWords counts the words of that text; ProseOutside, the words
	// of the blocks jusText's classifier alone takes for running text (its
	// length, stopword and link rules, with no regard to the names of their
	// containers) that the main text leaves out: prose in containers named
	// as furniture, or cut off by the rules that follow the classifier. Not
	// serialized.
	MainTextWords, ProseOutside int
	// Shop is set when the page describes itself as a shop's product or
	// catalogue page (shop.go).
	Shop bool

	// Spots is the SpotSigs multi-set (FamSpotSigs); SpotComparable is
	// Spots.Len() >= Config.MinSpots.
	Spots          Bag
	SpotComparable bool
	// AF is the AF-SpotSigs multi-set (FamAF): Spots plus the AF-only features.
	AF Bag
	// Bigrams is the multi-set of word bigrams of the text spot signatures
	// were taken from, for pages with fewer than Config.BigramsBelow spot
	// signatures and some main text (with Config.MainText), or, with
	// Config.WholeBigrams, for a page with no main text (its whole text);
	// nil otherwise. Not serialized: it is the matcher's business, like
	// MainText.
	Bigrams Bag

	// Simhash384 and Simhash64 are Charikar simhashes over all terms (FamSimhash).
	// Simhash64 == Simhash384[0]: the 64-bit projection is the first word of the 384.
	Simhash384 [6]uint64
	Simhash64  uint64
	// SpotSimhash384/64 are simhashes over the spot-signature multi-set
	// (FamSpotSimhash): they ignore text outside natural-language passages, the
	// site frame, so they can find one story inside two different sites' frames.
	SpotSimhash384 [6]uint64
	SpotSimhash64  uint64
	// TextSimhash384/64 are simhashes over the content words of prose sentences
	// (FamTextSimhash), also frame-independent.
	TextSimhash384 [6]uint64
	TextSimhash64  uint64

	// Supershingles are Alg. B's 6 supershingles (FamShingles).
	Supershingles [6]uint64
	// QGrams is DDD's q-gram set (FamQGrams).
	QGrams Bag
}

// docVersion is the first byte of a serialized Doc. Bump it when the format or
// any hash changes: old signatures must not be compared with new ones.
const docVersion = 1

// ErrFormat is returned (wrapped) by UnmarshalBinary for malformed input.
var ErrFormat = errors.New("features: malformed serialized Doc")

// AppendBinary appends the compact binary form of d to b: a version byte, the
// families, charset and counts as varints, fixed 8-byte simhash/supershingle
// words for the families present, and each bag as a count followed by (8-byte
// key, varint frequency) pairs. Keys are uniformly distributed, so varint or
// delta coding would not make them smaller.
func (d *Doc) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, docVersion)
	b = binary.AppendUvarint(b, uint64(d.Families))
	b = binary.AppendUvarint(b, uint64(len(d.Charset)))
	b = append(b, d.Charset...)
	var flags byte
	if d.Truncated {
		flags |= 1
	}
	if d.SpotComparable {
		flags |= 2
	}
	if d.Shop {
		flags |= 4
	}
	b = append(b, flags)
	for _, n := range []int{d.TextBytes, d.Terms, d.Words, d.CJK} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	if d.Families&FamSimhash != 0 {
		b = appendWords(b, d.Simhash384)
	}
	if d.Families&FamSpotSimhash != 0 {
		b = appendWords(b, d.SpotSimhash384)
	}
	if d.Families&FamTextSimhash != 0 {
		b = appendWords(b, d.TextSimhash384)
	}
	if d.Families&FamShingles != 0 {
		b = appendWords(b, d.Supershingles)
	}
	if d.Families&FamSpotSigs != 0 {
		b = appendBag(b, d.Spots)
	}
	if d.Families&FamAF != 0 {
		b = appendBag(b, d.AF)
	}
	if d.Families&FamQGrams != 0 {
		b = appendBag(b, d.QGrams)
	}
	return b, nil
}

// MarshalBinary implements encoding.BinaryMarshaler (see AppendBinary).
func (d *Doc) MarshalBinary() ([]byte, error) { return d.AppendBinary(nil) }

func appendWords(b []byte, w [6]uint64) []byte {
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

func appendBag(b []byte, bag Bag) []byte {
	b = binary.AppendUvarint(b, uint64(len(bag)))
	for _, e := range bag {
		b = binary.LittleEndian.AppendUint64(b, e.Key)
		b = binary.AppendUvarint(b, uint64(e.N))
	}
	return b
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. It checks everything it
// reads (bag keys strictly increasing, frequencies >= 1, no trailing bytes), so a
// corrupted file gives ErrFormat and never a Doc that breaks Jaccard.
func (d *Doc) UnmarshalBinary(data []byte) error {
	r := reader{b: data}
	if v := r.byte(); v != docVersion {
		if r.err != nil {
			return r.err
		}
		return fmt.Errorf("%w: version %d, want %d", ErrFormat, v, docVersion)
	}
	var x Doc
	x.Families = Family(r.uvarint(1 << 32))
	n := int(r.uvarint(64))
	x.Charset = string(r.bytes(n))
	flags := r.byte()
	x.Truncated = flags&1 != 0
	x.SpotComparable = flags&2 != 0
	x.Shop = flags&4 != 0
	if flags&^7 != 0 && r.err == nil {
		r.err = fmt.Errorf("%w: unknown flags %#x", ErrFormat, flags)
	}
	x.TextBytes = int(r.uvarint(1 << 40))
	x.Terms = int(r.uvarint(1 << 40))
	x.Words = int(r.uvarint(1 << 40))
	x.CJK = int(r.uvarint(1 << 40))
	if x.Families&FamSimhash != 0 {
		x.Simhash384 = r.words()
		x.Simhash64 = x.Simhash384[0]
	}
	if x.Families&FamSpotSimhash != 0 {
		x.SpotSimhash384 = r.words()
		x.SpotSimhash64 = x.SpotSimhash384[0]
	}
	if x.Families&FamTextSimhash != 0 {
		x.TextSimhash384 = r.words()
		x.TextSimhash64 = x.TextSimhash384[0]
	}
	if x.Families&FamShingles != 0 {
		x.Supershingles = r.words()
	}
	if x.Families&FamSpotSigs != 0 {
		x.Spots = r.bag()
	}
	if x.Families&FamAF != 0 {
		x.AF = r.bag()
	}
	if x.Families&FamQGrams != 0 {
		x.QGrams = r.bag()
	}
	if r.err == nil && r.off != len(data) {
		r.err = fmt.Errorf("%w: %d trailing bytes", ErrFormat, len(data)-r.off)
	}
	if r.err != nil {
		return r.err
	}
	*d = x
	return nil
}

// reader is a bounds-checked cursor; the first error sticks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s at byte %d", ErrFormat, what, r.off)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b)-r.off {
		r.fail("unexpected end")
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *reader) uvarint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	if v > limit {
		r.fail("value out of range")
		return 0
	}
	r.off += n
	return v
}

func (r *reader) words() (w [6]uint64) {
	b := r.bytes(48)
	if b == nil {
		return w
	}
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return w
}

func (r *reader) bag() Bag {
	n := r.uvarint(uint64(len(r.b)))
	// Each entry takes at least 9 bytes: refuse counts the input cannot hold
	// before allocating for them.
	if r.err != nil || n > uint64(len(r.b)-r.off)/9 {
		r.fail("bag count")
		return nil
	}
	if n == 0 {
		return nil
	}
	bag := make(Bag, n)
	for i := range bag {
		kb := r.bytes(8)
		if kb == nil {
			return nil
		}
		bag[i].Key = binary.LittleEndian.Uint64(kb)
		bag[i].N = uint32(r.uvarint(1<<32 - 1))
		if r.err != nil {
			return nil
		}
		if bag[i].N == 0 || (i > 0 && bag[i].Key <= bag[i-1].Key) {
			r.fail("bag entry out of order or zero")
			return nil
		}
	}
	return bag
}
