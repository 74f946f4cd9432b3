package features

import (
	"math/bits"
	"unicode"
	"unicode/utf8"
)

// features computes the configured families from e.terms and e.words.
func (e *Extractor) features(d *Doc) {
	f := e.cfg.Families
	var spots []uint64
	if f&(FamSpotSigs|FamSpotSimhash|FamAF) != 0 {
		e.keys = e.spotKeys(e.keys[:0], flagAnte)
		spots = e.keys
		d.Spots = bagOfSorted(spots) // sorts e.keys in place
		d.SpotComparable = d.Spots.Len() >= e.cfg.MinSpots
		if f&FamSpotSimhash != 0 {
			d.SpotSimhash384 = e.simhashBag(d.Spots)
			d.SpotSimhash64 = d.SpotSimhash384[0]
		}
		if f&FamAF != 0 {
			d.AF = e.afBag(spots)
		}
		switch {
		case d.Spots.Len() < e.cfg.BigramsBelow && (d.MainText || !e.cfg.MainText):
			d.Bigrams = e.bigrams()
		case e.cfg.WholeBigrams && e.cfg.MainText && !d.MainText:
			d.Bigrams = bottomK(e.bigrams(), wholeBigramsMax)
		}
		if f&FamSpotSigs == 0 {
			d.Spots = nil
		}
	}
	if f&FamTextSimhash != 0 {
		e.keys = e.proseKeys(e.keys[:0])
		d.TextSimhash384 = e.simhashSeq(e.keys)
		d.TextSimhash64 = d.TextSimhash384[0]
	}
	if f&FamShingles != 0 {
		d.Supershingles = e.supershingles()
	}
	if f&FamSimhash != 0 {
		d.Simhash384 = e.simhashSeq(e.terms)
		d.Simhash64 = d.Simhash384[0]
	}
	if f&FamQGrams != 0 {
		d.QGrams = e.qgrams(e.text, e.cfg.QGram)
	}
}

// afBag builds the AF-SpotSigs feature multi-set (AF-SpotSigs paper, Sec. 4): the
// stopword features (the page's spot signatures plus those of the Chinese
// antecedents that are not SpotSigs antecedents already), punctuation features (a
// mark with the word before and after it), sentence features (the words between
// two marks) and sentence shingles (all 1..n-1 grams of an n-word sentence,
// capped by Config.AFMaxGram). Each kind has its own seed, so a sentence of one
// word is not confused with that word's shingle.
func (e *Extractor) afBag(spots []uint64) Bag {
	keys := append([]uint64(nil), spots...)
	if e.afAnte {
		keys = e.spotKeys(keys, flagAFAnte)
	}
	ws := e.words
	maxGram := e.cfg.AFMaxGram
	if maxGram <= 0 || maxGram > 31 {
		maxGram = 31
	}
	lastMark := -1
	for i, w := range ws {
		if w.flags&flagMark == 0 {
			continue
		}
		// Punctuation feature: previous word, mark, next word (either may be
		// missing at a sentence edge, but not both).
		var prev, next uint64
		if i > 0 && ws[i-1].flags&flagMark == 0 {
			prev = ws[i-1].hash
		}
		if i+1 < len(ws) && ws[i+1].flags&flagMark == 0 {
			next = ws[i+1].hash
		}
		if prev != 0 || next != 0 {
			keys = append(keys, combine(combine(combine(seedPunct, prev), w.hash), next))
		}
		// Sentence feature: the words strictly between two marks. A span of more
		// than maxSentenceWords words without punctuation is a menu or a table,
		// not a sentence; skipping it also bounds the quadratic shingle count.
		if n := i - lastMark - 1; lastMark >= 0 && n > 0 && n <= maxSentenceWords {
			sent := ws[lastMark+1 : i]
			h := uint64(seedSentence)
			for _, s := range sent {
				h = combine(h, s.hash)
			}
			keys = append(keys, h)
			// Shingles of sizes 1..min(n-1, maxGram), each grown from the
			// previous one: O(n * maxGram) combines.
			for s := range sent {
				h := uint64(seedSentGram)
				for g := 1; g <= min(n-1, maxGram) && s+g <= n; g++ {
					h = combine(h, sent[s+g-1].hash)
					keys = append(keys, h)
				}
			}
		}
		lastMark = i
	}
	return bagOfSorted(keys)
}

// bigrams is the multi-set of pairs of adjacent words, stopwords included.
// Punctuation marks, where the configured families keep them (AF-SpotSigs,
// text simhash), break pairs. Only short texts get here, so its cost is small.
// wholeBigramsMax bounds the bigrams of a page with no running text
// (Config.WholeBigrams). Such a page can be a long list of links: in the
// 2008 archive.org crawl of ../shared/warcs (archivesunleashed+aut's
// example.warc.gz), 26 of the 91 HTML pages have no running text, some
// with 12,000 distinct bigrams, and taking them all nearly tripled the
// crawl's map output (171.0 KB to 468.4 KB). A uniform sample of a page's
// bigrams, taken alike on every capture, tells a re-capture too: the
// bigrams with the smallest hashes (a bottom-k sketch, Broder 1997, "On the
// resemblance and containment of documents", Sec. 3), whose Jaccard
// estimates the whole sets' when the two pages are of a size. With 512 the
// map output is 218.8 KB and the benchmark's scores are those of the whole
// sets; with 256, 202.6 KB, and one re-capture of seed 20260304 (0.70 on
// all its bigrams) fell under the threshold.
const wholeBigramsMax = 512

// bottomK keeps the k entries of b with the smallest keys (b is sorted by
// key).
func bottomK(b Bag, k int) Bag {
	if len(b) > k {
		b = b[:k:k]
	}
	return b
}

func (e *Extractor) bigrams() Bag {
	keys := e.keys[len(e.keys):]
	ws := e.words
	for i := 1; i < len(ws); i++ {
		if ws[i].flags&flagMark != 0 || ws[i-1].flags&flagMark != 0 {
			continue
		}
		keys = append(keys, combine(combine(seedBigram, ws[i-1].hash), ws[i].hash))
	}
	return bagOfSorted(keys)
}

// proseKeys appends the hashes of the content words (non-stopwords) of prose
// sentences: runs of words between two punctuation marks with at least
// Config.ProseMinWords words, at least one of them a stopword. Navigation, menus
// and link lists rarely carry sentence punctuation or function words, so what is
// left is mostly the natural-language text, the part a wire story shares across
// sites (the observation behind SpotSigs, SIGIR 2008, Sec. 1, and AF-SpotSigs'
// sentence features, Sec. 4).
func (e *Extractor) proseKeys(keys []uint64) []uint64 {
	ws := e.words
	start := 0
	for i := 0; i <= len(ws); i++ {
		if i < len(ws) && ws[i].flags&flagMark == 0 {
			continue
		}
		sent := ws[start:i]
		start = i + 1
		if len(sent) < e.cfg.ProseMinWords {
			continue
		}
		stops := 0
		for _, w := range sent {
			if w.flags&flagStop != 0 {
				stops++
			}
		}
		if stops == 0 {
			continue
		}
		for _, w := range sent {
			if w.flags&flagStop == 0 {
				keys = append(keys, w.hash)
			}
		}
	}
	return keys
}

// maxSentenceWords bounds what AF-SpotSigs counts as a sentence.
const maxSentenceWords = 256

// simhashWords expands a feature hash to the 384 pseudo-random ±1 entries of
// Charikar's projection (Henzinger, SIGIR 2006, Alg. C: b=384). Word 0 is the
// feature hash itself, so the 64-bit simhash (Manku et al.) is exactly the first
// 64 bits of the 384-bit one and is never computed twice.
func simhashWords(h uint64) [6]uint64 {
	return [6]uint64{h, fmix(h ^ 0x9e3779b97f4a7c15), fmix(h ^ 0x3c6ef372fe94f82a),
		fmix(h ^ 0xdaa66d2c7ddf743f), fmix(h ^ 0x78dde6e5fd29f054), fmix(h ^ 0x1715609d7cbfec69)}
}

// simhashSeq is Charikar's simhash of a sequence of feature hashes; a feature
// that occurs n times counts n times (Henzinger, Alg. C: "summed over the token
// sequence"), so no sorting or counting is needed.
func (e *Extractor) simhashSeq(seq []uint64) [6]uint64 {
	e.simReset()
	for _, h := range seq {
		e.simAdd(h, 1)
	}
	return e.simBits(int64(len(seq)))
}

// simhashBag is the simhash of a multi-set, each key counted with its frequency.
func (e *Extractor) simhashBag(b Bag) [6]uint64 {
	e.simReset()
	var total int64
	for _, x := range b {
		e.simAdd(x.Key, x.N)
		total += int64(x.N)
	}
	return e.simBits(total)
}

// spread[b] has byte i equal to bit i of b: adding spread[b] to a uint64 adds
// bit i of b to the 8-bit counter in byte i.
var spread = func() (t [256]uint64) {
	for b := range t {
		for i := 0; i < 8; i++ {
			t[b] |= uint64(b>>i&1) << (8 * i)
		}
	}
	return t
}()

// The simhash accumulators count, per bit, the features whose projection has a +1
// there. They are kept as 384 8-bit counters packed eight to a uint64 (lanes), so
// a feature costs 48 table additions instead of 384 bit tests; the lanes are
// flushed into the 64-bit acc before any counter can pass 255. Profiling the
// default configuration showed the bit-by-bit loop at 21% of all time.
func (e *Extractor) simReset() {
	e.acc = [384]int64{}
	e.lanes = [48]uint64{}
	e.pending = 0
}

func (e *Extractor) simAdd(h uint64, n uint32) {
	if n > 255 {
		for ; n > 255; n -= 255 {
			e.simAdd(h, 255)
		}
	}
	if e.pending+n > 255 {
		e.simFlush()
	}
	e.pending += n
	ws := simhashWords(h)
	m := uint64(n)
	for k, w := range ws {
		l := e.lanes[k*8 : k*8+8 : k*8+8]
		l[0] += spread[byte(w)] * m
		l[1] += spread[byte(w>>8)] * m
		l[2] += spread[byte(w>>16)] * m
		l[3] += spread[byte(w>>24)] * m
		l[4] += spread[byte(w>>32)] * m
		l[5] += spread[byte(w>>40)] * m
		l[6] += spread[byte(w>>48)] * m
		l[7] += spread[byte(w>>56)] * m
	}
}

func (e *Extractor) simFlush() {
	for idx, v := range e.lanes {
		a := e.acc[idx*8 : idx*8+8 : idx*8+8]
		for i := range a {
			a[i] += int64(v >> (8 * uint(i)) & 0xff)
		}
	}
	e.lanes = [48]uint64{}
	e.pending = 0
}

// simBits turns the accumulators into bits: sign(sum of ±1) > 0, so a tie, and
// in particular the empty document, gives 0 bits. The empty document's simhash is
// all zeros, not "all ones" (a >= 0 test would make every empty page agree with
// every page of mostly set bits); callers must not compare documents without
// features (Doc.Terms == 0 or Doc.Spots empty).
func (e *Extractor) simBits(total int64) [6]uint64 {
	e.simFlush()
	var out [6]uint64
	for i, a := range e.acc {
		if 2*a > total {
			out[i/64] |= 1 << uint(i%64)
		}
	}
	return out
}

// supershingles implements Broder's shingling as Henzinger's Alg. B (SIGIR 2006,
// Sec. 2): every k-term shingle is fingerprinted, m=84 min-values are taken under
// 84 different hash functions (fmix of the shingle xor a per-function seed, a
// bijection, so each is a permutation of the 64-bit space) and every l=14 of them
// are fingerprinted into one of m'=6 supershingles. A page with fewer than k terms
// has one shingle of all its terms; a page without terms has all-zero
// supershingles, which callers must not compare.
func (e *Extractor) supershingles() [6]uint64 {
	var out [6]uint64
	terms := e.terms
	if len(terms) == 0 {
		return out
	}
	k := min(e.cfg.ShingleK, len(terms))
	for i := range e.mins {
		e.mins[i] = ^uint64(0)
	}
	for s := 0; s+k <= len(terms); s++ {
		h := uint64(seedShingle)
		for _, t := range terms[s : s+k] {
			h = combine(h, t)
		}
		for i := range e.mins {
			if v := fmix(h ^ minhashSeeds[i]); v < e.mins[i] {
				e.mins[i] = v
			}
		}
	}
	for j := range out {
		h := uint64(seedShingle)
		for _, m := range e.mins[j*14 : j*14+14] {
			h = combine(h, m)
		}
		out[j] = h
	}
	return out
}

var minhashSeeds = func() (s [84]uint64) {
	x := uint64(0x243f6a8885a308d3) // pi: nothing up the sleeve
	for i := range s {
		x += 0x9e3779b97f4a7c15
		s[i] = fmix(x)
	}
	return s
}()

// qgrams implements DDD's q-grams (DDD paper, Sec. 3): the text with white space
// and punctuation removed (only letters, digits and combining marks kept), then
// every window of q characters. DDD compares sets (docq); the Bag keeps counts
// anyway and QGramSim ignores them.
func (e *Extractor) qgrams(text []byte, q int) Bag {
	e.qbuf, e.qoff = squeeze(e.qbuf[:0], e.qoff[:0], text)
	keys := e.keys[:0]
	for s := 0; s+q <= len(e.qoff); s++ {
		end := len(e.qbuf)
		if s+q < len(e.qoff) {
			end = int(e.qoff[s+q])
		}
		keys = append(keys, Hash64(e.qbuf[e.qoff[s]:end], seedQGram))
	}
	e.keys = keys
	return bagOfSorted(keys)
}

// squeeze appends the letters, digits and marks of text to buf and the byte
// offset of each kept rune to off.
func squeeze(buf []byte, off []int32, text []byte) ([]byte, []int32) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < 0x80 {
			if asciiClass[c] == cAlnum {
				off = append(off, int32(len(buf)))
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			off = append(off, int32(len(buf)))
			buf = append(buf, text[i:i+n]...)
		}
		i += n
	}
	return buf, off
}

// QGramStrings returns DDD's q-grams of text as strings, in order with repeats,
// without case folding (DDD paper, Sec. 3: "A rose is a flower" with q=3 gives Aro,
// ros, ...). For tests and debugging; Extract hashes the same grams of the
// normalized text.
func QGramStrings(text string, q int) []string {
	buf, off := squeeze(nil, nil, []byte(text))
	var out []string
	for s := 0; q > 0 && s+q <= len(off); s++ {
		end := len(buf)
		if s+q < len(off) {
			end = int(off[s+q])
		}
		out = append(out, string(buf[off[s]:end]))
	}
	return out
}

// SimhashAgree384 is the number of agreeing bits of two 384-bit simhashes; Henzinger's
// C-similar is >= 372 (SIGIR 2006, Sec. 2).
func SimhashAgree384(a, b [6]uint64) int {
	n := 0
	for i := range a {
		n += 64 - bits.OnesCount64(a[i]^b[i])
	}
	return n
}

// SimhashAgree64 is the number of agreeing bits of two 64-bit simhashes (Manku et
// al. call pages near-duplicates at 3 or fewer differing bits, i.e. >= 61).
func SimhashAgree64(a, b uint64) int { return 64 - bits.OnesCount64(a^b) }

// SupershinglesAgree is the number of equal supershingles; Henzinger's B-similar
// is >= 2 of 6 (SIGIR 2006, Sec. 2).
func SupershinglesAgree(a, b [6]uint64) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// QGramSim is DDD's docq(A,B) = |A ∩ B| / max(|A|, |B|) over distinct q-grams (DDD
// paper, Sec. 3); 0 if both are empty.
func QGramSim(a, b Bag) float64 {
	inter := SharedKeys(a, b)
	m := max(len(a), len(b))
	if m == 0 {
		return 0
	}
	return float64(inter) / float64(m)
}
