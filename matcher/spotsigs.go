package matcher

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/warcdedup/warcdedup/features"
)

// Guess chooses which match Match reports when several indexed documents reach
// the threshold (Stanford report, Sec. 3.3.1).
type Guess uint8

const (
	// BestGuess reports the indexed document with the highest similarity,
	// ties going to the smallest id (the earliest record). The report found it
	// more precise than First Guess, most of all at low thresholds; it is the
	// default.
	BestGuess Guess = iota
	// FirstGuess reports the first document met during the pruned index
	// traversal whose similarity reaches the threshold, and stops there: cheaper,
	// less precise. Which one is first depends only on the sequence of calls
	// on the index (Adds and queries: they decide when list tails are
	// merged), so it is deterministic.
	FirstGuess
)

// Candidate is a match: the caller's id of an indexed document and its
// similarity to the query (multi-set Jaccard for SpotSigs).
type Candidate struct {
	ID  uint32
	Sim float64
}

// SpotSigs is the exact SpotSigs matcher of SIGIR 2008, Sec. 4 and
// Algorithm 1, used incrementally (Stanford report, Sec. 3.3.3): Match finds
// the indexed documents whose multi-set Jaccard with a query is at least tau,
// Add indexes a document, Observe does both the way incremental matching does.
//
// Layout. Documents' signatures are kept in one arena (in chunks of 2^20
// entries, see appendKeys), document after document: keys as uint32 while every key indexed fits in 32 bits (callers
// make sure of that with Fold32), as uint64 from the first one that does not
// (the arena is widened once); counts are 1 for 95-99% of signatures, and
// only the others are kept, as (position, count) pairs in arena order. A key
// maps, through an open-addressing table whose slots store no keys (a slot
// points into the arena or at a posting list, and the key is read from there
// when the slot's fingerprint agrees; see find), either to the one document
// holding it or to a posting list of document numbers sorted by descending
// length. Slots are 3 bytes below 2^20 signatures, 4 above, and the table is
// 58-87.5% full. A list sorted by length is the concatenation of the paper's
// per-partition lists, one partition after the other, so a partition's list
// is a sub-range found by binary search. To keep Add cheap on long lists, new
// postings go to an unsorted tail that is merged when it reaches a quarter of
// the sorted part (amortised O(log n) per posting); queries scan the tail
// without the sorted-order break.
//
// Loading. Add stores a document's signatures in the arena at once but makes
// its postings later, in a batch (see postBatch): before the next query or
// Postings call, or once 2^22 signatures wait; Observe, which has just probed
// the table for the query, posts at once. A large batch, as a seeded run's
// load of many pages with no query between them makes, is sorted by key hash,
// so the table is swept in order and each key's postings are added together.
// Tails that come due are merged before the next query, not at the Add that
// makes them due, so a list filled by a load is ordered once. Queries, and
// every result but FirstGuess's choice, do not depend on when postings were
// made or tails merged (TestAddManyEquivalent).
//
// Cost (2-core machine shared with other jobs, 2026-11-23). On dedup's real
// pages (BenchmarkIndexMemory, 1,439 pages of 78.3 signatures in the spot
// index, folded to 32 bits, nearly all signatures in one page only): 760
// bytes a page, 9.7 a signature: arena 333 (4.3 a signature), slots 370 (4.7:
// 3-byte slots at 62% load), lists 40, documents 17. Measured by
// BenchmarkSpotSigsIncremental (tau = 0.8, 150.8 signatures a page, folded,
// half the occurrences page-specific) at 10k, 100k and 1M pages: heap
// 1,768, 1,757 and 1,615 bytes a page, 11.7, 11.7 and 10.7 a signature (it was
// 3,390, 2,978 and 3,073 with 12-byte arena entries and a table at most 3/4
// full); at 1M pages arena 736 (4.9 a signature), slots 466 (3.1; 4-byte slots
// at 80% load), lists 378 (2.5), documents 17. Observe runs at 28k, 27k and
// 18-20k pages/s (31k, 25-27k and 21k in the same session before the compact
// layout: the fuller table costs up to a sixth at 1M pages), all cache misses
// in the table and lists, with 0.1 Jaccard computations a page (the planted
// duplicates). With a fixed 1M-key Zipf vocabulary (64-bit keys) the lists of
// a page's rarest signatures grow with the index (each holds about N/1000
// pages at N = 1M): 27k pages/s at 10k pages (32-33k before the compact
// layout); 15k and 3.4k at 100k and 1M were measured before it. The count
// filter keeps Jaccard computations at 0.1-1.8 a page, but the lists
// themselves must be read. With the chunked arena and batched postings
// (same machine and day): 1,778 and 1,724 heap bytes a page at 10k and 100k
// realistic pages, Observe at 30k and 31k pages/s.
//
// A SpotSigs is not safe for concurrent use: queries mark checked documents
// in the index.
type SpotSigs struct {
	tau    ratio
	bounds []uint32 // partition boundaries, shared by all indexes with this tau

	docs []doc
	// The arena: the keys of all indexed documents, doc after doc, as uint32
	// while every key indexed fits in 32 bits (k32), as uint64 from the first
	// one that does not (k64; k32 is then nil). Counts are 1 but for the
	// entries listed in over, by ascending arena position.
	k32  [][]uint32 // in chunks (see appendKeys)
	k64  [][]uint64
	alen int // entries in the arena
	wide bool
	over []overCount

	// The table: 0 empty, else the top bit for a list, a fingerprint of the
	// key, and a reference in bits [0, refBits): the arena position+1 of the
	// one document holding the key, or the list number (see find).
	slots   []byte   // nslots slots of sw bytes, little-endian, and 3 bytes of padding
	s32     []uint32 // slots as uint32s when sw is 4
	nslots  int
	sw      int
	smask   uint32 // the bits of a slot: 1<<(8*sw) - 1
	used    int
	refBits uint
	lists   []plist

	// stamp marks the documents met by a partition scan: the scan that
	// starts at stamp base b makes its c-th candidate's stamp b+c, and the
	// next scan starts above every stamp given so far (next).
	stamp []uint32
	next  uint32

	// blockDoc[b] is the document holding arena position b<<blockBits, so
	// that docOf, which finds the one document of a key not yet in a list,
	// searches a few documents instead of all (it was a tenth of a load).
	blockDoc []uint32

	// pending holds the lists whose tails became due (see due) since the
	// last query, up to maxPending of them; pendingAll says there were more.
	pending    []uint32
	pendingAll bool
	posted     int    // documents whose postings are made (see postBatch)
	warmSink   uint32 // keeps warm's loads

	comparisons uint64
}

type doc struct {
	id    uint32 // caller's id
	len   uint32 // multi-set length |d|: sum of counts
	start uint32 // first arena position
}

// overCount is the count n != 1 of the arena entry at pos.
type overCount struct{ pos, n uint32 }

type plist struct {
	key    uint64
	docs   []uint32 // docs[:sorted] by (len desc, number asc); docs[sorted:] unsorted
	sorted int
}

// qsig is one query signature found in the index.
type qsig struct {
	ref  uint32 // slot value
	freq uint32
	df   uint32
}

const listTag = 1 << 31

// blockBits is the log2 of the arena positions per blockDoc entry: 1,024
// signatures, a dozen pages, for 4 bytes.
const blockBits = 10

// maxArena is the most signatures one index holds: a slot holds an arena
// position + 1 below listTag. 2^31 signatures are some ten million pages.
const maxArena = listTag - 2

// scratchPool holds the per-query signature lists, shared by all indexes so
// that thousands of per-site indexes do not each keep one.
var scratchPool = sync.Pool{New: func() any { return new([]qsig) }}

// NewSpotSigs returns an empty index for similarity threshold tau in (0, 1].
// tau is taken as the decimal the float64 prints as (0.8 is 4/5), and a pair
// matches when its Jaccard is at least that fraction, compared exactly.
func NewSpotSigs(tau float64) (*SpotSigs, error) {
	r, err := parseTau(tau)
	if err != nil {
		return nil, err
	}
	return &SpotSigs{tau: r, bounds: partitionBounds(r)}, nil
}

// Tau is the threshold the index was built for.
func (s *SpotSigs) Tau() float64 { return s.tau.float() }

// Len is the number of indexed documents.
func (s *SpotSigs) Len() int { return len(s.docs) }

// Comparisons is the number of Jaccard similarities computed so far (each
// possibly cut short once the pair cannot reach tau): the quantity the
// partitioning and the delta1/delta2 pruning of Algorithm 1 minimise (SIGIR
// 2008, Sec. 4.3), exposed for tests and benchmarks.
func (s *SpotSigs) Comparisons() uint64 { return s.comparisons }

// Add indexes bag under the caller's id. Empty bags are not indexed: they can
// match nothing. Add panics if bag is not a valid features.Bag (keys strictly
// increasing) or longer than 2^32-1, or if the index would hold more than
// 2^31-2 signatures.
func (s *SpotSigs) Add(id uint32, bag features.Bag) { s.add(id, bag, nil, 0) }

// add is Add with the probe positions a search just left in hints (see find).
func (s *SpotSigs) add(id uint32, bag features.Bag, hints []uint32, hintSlots int) {
	l := checkBag(bag)
	if l == 0 {
		return
	}
	if uint64(s.arenaLen())+uint64(len(bag)) > maxArena {
		panic("matcher: SpotSigs arena full")
	}
	if s.refBits == 0 {
		s.refBits = minRefBits
	}
	for uint64(s.arenaLen())+uint64(len(bag)) >= 1<<s.refBits {
		s.widenRefs() // arena positions+1 and list numbers must fit
	}
	d := uint32(len(s.docs))
	start := uint32(s.arenaLen())
	s.docs = grow8(s.docs, 1)
	s.docs = append(s.docs, doc{id: id, len: uint32(l), start: start})
	for q := uint64(len(s.blockDoc)) << blockBits; q < uint64(start)+uint64(len(bag)); q += 1 << blockBits {
		s.blockDoc = append(s.blockDoc, d)
	}
	s.stamp = grow8(s.stamp, 1)
	s.stamp = append(s.stamp, 0)
	if !s.wide && bag[len(bag)-1].Key > math.MaxUint32 {
		s.widen()
	}
	if s.wide {
		s.k64 = appendKeys(s.k64, bag)
	} else {
		s.k32 = appendKeys(s.k32, bag)
	}
	s.alen += len(bag)
	for i, e := range bag {
		if e.N != 1 {
			s.over = append(s.over, overCount{pos: start + uint32(i), n: e.N})
		}
	}
	if hintSlots != 0 && s.posted == int(d) {
		for i, e := range bag {
			s.post(e.Key, start+uint32(i), d, hints[i], hintSlots)
		}
		s.posted++
		return
	}
	// Without hints the postings wait for the next query or for a batch's
	// worth of documents (see postBatch).
	if s.arenaLen()-int(s.docs[s.posted].start) >= maxBatch {
		s.postBatch()
	}
}

// Batches. Add leaves the postings of the documents it indexes to postBatch,
// which makes them before the next query (sync) or once maxBatch signatures
// wait. A batch of fewer than minSortBatch signatures is posted document by
// document; a larger one, which a load of many pages with no query between
// them makes, is sorted by key hash first (a radix sort), so that:
//   - the table is swept in slot order, not probed at random;
//   - the postings of one key are added together, with one table probe, one
//     read of its list and at most one growth of the list: among 2 million
//     signatures drawn from a Zipf vocabulary of 2^24 (index/scale_test.go's
//     pages), a fifth are distinct keys.
//
// A large index's table and lists are far out of cache, and reading them at
// random, three memory reads in turn a posting, was most of a load's time.
const minSortBatch = 1 << 12

// maxBatch is a variable for tests.
var maxBatch = 1 << 22

// sync makes every pending posting and merges the list tails that are due,
// before anything reads the table or the lists.
func (s *SpotSigs) sync() {
	if s.posted < len(s.docs) {
		s.postBatch()
	}
	if len(s.pending) != 0 || s.pendingAll {
		s.settle()
	}
}

// postBatch makes the postings of documents s.posted on.
func (s *SpotSigs) postBatch() {
	d0 := s.posted
	p0 := s.docs[d0].start
	m := s.arenaLen() - int(p0)
	if m < minSortBatch {
		var homes [warmBlock]uint32
		var keys [warmBlock]uint64
		for d := d0; d < len(s.docs); d++ {
			st, end := s.span(uint32(d))
			for lo := st; lo < end; lo += warmBlock {
				hi := min(end, lo+warmBlock)
				for p := lo; p < hi; p++ {
					keys[p-lo] = s.key(p)
				}
				n := s.warm(keys[:hi-lo], homes[:hi-lo])
				for p := lo; p < hi; p++ {
					s.post(keys[p-lo], p, uint32(d), homes[p-lo], n)
				}
			}
		}
		s.posted = len(s.docs)
		return
	}
	// An entry is the top 32 bits of the key's hash over the entry's offset
	// in the batch: sorted by hash, as the table's home slots are for any
	// table size, and by arena position among equal hashes, so a key's
	// postings come in document order, the order of a list's tail.
	ents := make([]uint64, m)
	docAt := make([]uint32, m)
	for d := d0; d < len(s.docs); d++ {
		st, end := s.span(uint32(d))
		for p := st; p < end; p++ {
			i := p - p0
			docAt[i] = uint32(d)
			ents[i] = keyHash(s.key(p))>>32<<32 | uint64(i)
		}
	}
	ents, kk := radixHigh32(ents, make([]uint64, m))
	// The keys and documents in sorted order, read in loops of independent
	// loads (the reads are at random in the batch's part of the arena).
	ds := make([]uint32, m)
	for j, e := range ents {
		kk[j] = s.key(p0 + uint32(e))
	}
	for j, e := range ents {
		ds[j] = docAt[uint32(e)]
	}
	// Keys inserted in hash order into a table much smaller than the batch's
	// new keys would all have the first home slots of each size it grows to,
	// making one cluster that every later probe walks. So a table small for
	// the batch (its keys more than an eighth of those indexed) first grows
	// to fit all of them, as if none were indexed yet; with fewer, growth
	// during the sweep leaves the table's keys spread.
	groups := 1
	for i := 1; i < m; i++ {
		if kk[i] != kk[i-1] {
			groups++
		}
	}
	if groups > s.used/8 {
		for (s.used+groups)*maxLoadDen > s.nslots*maxLoadNum {
			s.grow()
		}
	}
	// Groups are posted warmBlock at a time, after warm has read ahead what
	// they will read.
	var keys [warmBlock]uint64
	var firsts [warmBlock]uint32
	var gds [warmBlock][]uint32
	var homes [warmBlock]uint32
	nb := 0
	post := func() {
		s.warm(keys[:nb], homes[:nb])
		for j := range nb {
			s.postGroup(keys[j], firsts[j], gds[j])
		}
		nb = 0
	}
	for lo := 0; lo < m; {
		hi := lo + 1
		for hi < m && ents[hi]>>32 == ents[lo]>>32 {
			hi++
		}
		if !allEqual(kk[lo:hi]) {
			// Different keys with equal hash bits (a few a batch): grouped
			// by key, stably, keeping document order within each.
			sortRun(ents[lo:hi], kk[lo:hi], ds[lo:hi])
		}
		for g := lo; g < hi; {
			e := g + 1
			for e < hi && kk[e] == kk[g] {
				e++
			}
			keys[nb], firsts[nb], gds[nb] = kk[g], p0+uint32(ents[g]), ds[g:e]
			if nb++; nb == warmBlock {
				post()
			}
			g = e
		}
		lo = hi
	}
	post()
	s.posted = len(s.docs)
}

// allEqual says whether all of k are equal.
func allEqual(k []uint64) bool {
	for _, v := range k[1:] {
		if v != k[0] {
			return false
		}
	}
	return true
}

// sortRun sorts the entries of a run of postBatch, their keys and their
// documents by key, stably.
func sortRun(ents, kk []uint64, ds []uint32) {
	idx := make([]int, len(ents))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case kk[a] < kk[b]:
			return -1
		case kk[a] > kk[b]:
			return 1
		}
		return 0
	})
	e, k, d := slices.Clone(ents), slices.Clone(kk), slices.Clone(ds)
	for i, j := range idx {
		ents[i], kk[i], ds[i] = e[j], k[j], d[j]
	}
}

// radixHigh32 sorts a by its high 32 bits, stably, using tmp (as long as a),
// and returns the sorted slice and the other one.
func radixHigh32(a, tmp []uint64) (sorted, free []uint64) {
	for _, sh := range [...]uint{32, 43, 54} {
		var count [1 << 11]uint32
		for _, v := range a {
			count[v>>sh&(1<<11-1)]++
		}
		var sum uint32
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, v := range a {
			b := v >> sh & (1<<11 - 1)
			tmp[count[b]] = v
			count[b]++
		}
		a, tmp = tmp, a
	}
	return a, tmp
}

// postGroup adds documents ds (in ascending order, none of them holding key
// in the index yet) to the postings of key; p is the arena position of
// key in ds[0].
func (s *SpotSigs) postGroup(key uint64, p uint32, ds []uint32) {
	if (s.used+1)*maxLoadDen > s.nslots*maxLoadNum {
		s.grow()
	}
	n := s.nslots
	h := keyHash(key)
	f, fpm := s.fp(h), s.fpMask()
	i := home(h, n)
	var v uint32
	for {
		v = s.at(i)
		if v == 0 || v&fpm == f && s.slotKey(v) == key {
			break
		}
		if i++; i == n {
			i = 0
		}
	}
	var dOld uint32 // the one document holding key so far
	switch {
	case v == 0:
		s.set(i, f|(p+1))
		s.used++
		if len(ds) == 1 {
			return
		}
		dOld, ds = ds[0], ds[1:]
	case s.ref(v)&listTag == 0:
		dOld = s.docOf(s.ref(v) - 1)
	default:
		pl := &s.lists[s.ref(v)&^listTag]
		old := len(pl.docs) - pl.sorted
		if l := len(pl.docs); cap(pl.docs)-l < len(ds) {
			// Grow to fit, or by an eighth: post grows a list by a quarter,
			// and appends fill that room one by one, a quarter of a list's
			// growth room left on average; a batch adds its postings at
			// once, and the room past them waits for the next batch.
			nd := make([]uint32, l, max(l+len(ds), l+l/8+2))
			copy(nd, pl.docs)
			pl.docs = nd
		}
		pl.docs = append(pl.docs, ds...)
		if tail := len(pl.docs) - pl.sorted; due(tail, pl.sorted) && !due(old, pl.sorted) {
			s.due(s.ref(v) &^ listTag)
		}
		return
	}
	// A second document: make a list, its first two sorted (post does the same).
	if len(s.lists) >= listTag-1 {
		panic("matcher: SpotSigs list table full")
	}
	docs := make([]uint32, 2, 1+len(ds))
	d := ds[0]
	docs[0], docs[1] = dOld, d
	if s.before(d, dOld) {
		docs[0], docs[1] = d, dOld
	}
	docs = append(docs, ds[1:]...)
	s.lists = append(s.lists, plist{key: key, docs: docs, sorted: 2})
	s.set(i, s.tag()|f|uint32(len(s.lists)-1))
	if due(len(docs)-2, 2) {
		s.due(uint32(len(s.lists) - 1))
	}
}

// due records that list l's tail came due.
func (s *SpotSigs) due(l uint32) {
	if len(s.pending) < maxPending {
		s.pending = append(s.pending, l)
	} else {
		s.pendingAll = true
	}
}

// warmBlock is how many signatures warm loads ahead.
const warmBlock = 64

// warm finds the home slots of keys, stores them in homes and returns the
// table size they are for (0 for none), reading on the way the slots, the
// lists they point to and the ends of those lists in loops whose loads do not
// depend on each other: a large index's table and lists are out of cache,
// and a probe that finds each of them cold waits for three memory reads in
// turn; issued together, the reads overlap. post and postGroup then find them
// in cache. Nothing is changed.
func (s *SpotSigs) warm(keys []uint64, homes []uint32) int {
	n := s.nslots
	if n == 0 || (s.used+len(keys))*maxLoadDen > n*maxLoadNum {
		return 0 // the table grows within this block
	}
	var acc uint32
	for i, k := range keys {
		h := home(keyHash(k), n)
		homes[i] = uint32(h)
		acc += s.at(h)
	}
	fpm, tag, refm := s.fpMask(), s.tag(), uint32(1)<<s.refBits-1
	var ends [warmBlock]*uint32
	for i, k := range keys {
		v := s.at(int(homes[i]))
		if v == 0 || v&fpm != s.fp(keyHash(k)) {
			continue
		}
		r := v & refm
		if v&tag == 0 {
			acc += uint32(s.key(r - 1))
			continue
		}
		if pl := &s.lists[r]; len(pl.docs) > 0 {
			ends[i] = &pl.docs[len(pl.docs)-1]
		}
	}
	for _, e := range ends[:len(keys)] {
		if e != nil {
			acc += *e
		}
	}
	s.warmSink += acc
	return n
}

// grow8 returns a with room for n more elements, growing it by an eighth
// (or to fit) when it must grow: append's growth by a quarter to a half
// leaves a sixth of the arena and the per-document arrays unused on average,
// an eighth about 6%, for a few more copies.
func grow8[E any](a []E, n int) []E {
	if cap(a)-len(a) >= n {
		return a
	}
	b := make([]E, len(a), max(len(a)+n, len(a)+len(a)/8))
	copy(b, a)
	return b
}

// The arena is held in chunks of chunkLen entries, all full but the last,
// which grows by an eighth (grow8) up to chunkLen: a large arena is then
// never copied whole, where a single slice growing by an eighth was copied
// about nine times over (a third of the time a load of 1M pages spent in
// the matcher, for 350 MB of keys), and its slack stays under an eighth of
// the last chunk.
const (
	chunkBits = 20
	chunkLen  = 1 << chunkBits
)

// appendKeys appends the keys of bag to the chunked arena a.
func appendKeys[K uint32 | uint64](a [][]K, bag features.Bag) [][]K {
	for len(bag) > 0 {
		if len(a) == 0 || len(a[len(a)-1]) == chunkLen {
			a = append(a, nil)
		}
		c := &a[len(a)-1]
		n := min(len(bag), chunkLen-len(*c))
		// Grow by the bag at once: appending entry by entry would double
		// the chunk, which for a one-page site index costs as much as the
		// page.
		if cap(*c)-len(*c) < n {
			b := make([]K, len(*c), min(chunkLen, max(len(*c)+n, len(*c)+len(*c)/8)))
			copy(b, *c)
			*c = b
		}
		for _, e := range bag[:n] {
			*c = append(*c, K(e.Key))
		}
		bag = bag[n:]
	}
	return a
}

// arenaSlice returns the keys of arena positions [st, end) of a: a part of
// one chunk, or a copy when the range spans two.
func arenaSlice[K uint32 | uint64](a [][]K, st, end uint32) []K {
	c := st >> chunkBits
	if (end-1)>>chunkBits == c {
		return a[c][st&(chunkLen-1) : end-c<<chunkBits]
	}
	b := make([]K, 0, end-st)
	for p := st; p < end; {
		c := p >> chunkBits
		hi := min(end, (c+1)<<chunkBits)
		b = append(b, a[c][p&(chunkLen-1):hi-c<<chunkBits]...)
		p = hi
	}
	return b
}

// arenaLen is the number of entries in the arena.
func (s *SpotSigs) arenaLen() int { return s.alen }

// key is the key of arena entry p.
func (s *SpotSigs) key(p uint32) uint64 {
	if s.wide {
		return s.k64[p>>chunkBits][p&(chunkLen-1)]
	}
	return uint64(s.k32[p>>chunkBits][p&(chunkLen-1)])
}

// widen moves the arena to 64-bit keys, once, when the first key that does
// not fit in 32 bits arrives. Nothing else depends on the key width.
func (s *SpotSigs) widen() {
	s.k64 = make([][]uint64, len(s.k32))
	for i, c := range s.k32 {
		s.k64[i] = make([]uint64, len(c), cap(c))
		for j, k := range c {
			s.k64[i][j] = uint64(k)
		}
	}
	s.k32, s.wide = nil, true
}

// overFrom is the index in s.over of the first entry at arena position p or
// later.
func (s *SpotSigs) overFrom(p uint32) int {
	i, _ := slices.BinarySearchFunc(s.over, p, func(o overCount, p uint32) int {
		return int(int64(o.pos) - int64(p))
	})
	return i
}

// checkBag returns the multi-set length of b and panics on an invalid bag: a
// features.Bag is sorted and unique by construction, so this is a programming
// error, and an unsorted bag would silently give wrong similarities.
func checkBag(b features.Bag) uint64 {
	var l uint64
	for i, e := range b {
		if i > 0 && b[i-1].Key >= e.Key {
			panic("matcher: bag keys not strictly increasing")
		}
		l += uint64(e.N)
	}
	if l > maxLen {
		panic(fmt.Sprintf("matcher: bag length %d too large", l))
	}
	return l
}

// Observe is one step of incremental matching (Stanford report, Sec. 3.3.3,
// Figure 8): bag is matched against the documents indexed so far and, only if
// it matches none, indexed under id. It returns the match, if any, chosen by g.
func (s *SpotSigs) Observe(id uint32, bag features.Bag, g Guess) (Candidate, bool) {
	hp := hintPool.Get().(*[]uint32)
	defer hintPool.Put(hp)
	*hp = slices.Grow((*hp)[:0], len(bag))[:len(bag)]
	c, ok, hintSlots := s.match(bag, g, *hp)
	if !ok {
		// The search probed the table for every signature; insertion starts
		// where it stopped instead of probing again.
		s.add(id, bag, *hp, hintSlots)
	}
	return c, ok
}

var hintPool = sync.Pool{New: func() any { return new([]uint32) }}

// Match returns the indexed document bag matches (Jaccard >= tau), chosen by g,
// and whether there is one. The index is not changed.
func (s *SpotSigs) Match(bag features.Bag, g Guess) (Candidate, bool) {
	c, ok, _ := s.match(bag, g, nil)
	return c, ok
}

// match is Match; with hints it also records find's probe positions there
// and returns the table size they are valid for (0 if none were recorded).
func (s *SpotSigs) match(bag features.Bag, g Guess, hints []uint32) (Candidate, bool, int) {
	var best struct {
		d            uint32
		inter, union uint64
		ok           bool
	}
	hintSlots := s.search(bag, noSelf, false, hints, func(d uint32, inter, union uint64) bool {
		if !best.ok || fracLess(best.inter, best.union, inter, union) ||
			!fracLess(inter, union, best.inter, best.union) && s.docs[d].id < s.docs[best.d].id {
			best.d, best.inter, best.union, best.ok = d, inter, union, true
		}
		return g == FirstGuess
	})
	if !best.ok {
		return Candidate{}, false, hintSlots
	}
	return Candidate{ID: s.docs[best.d].id, Sim: float64(best.inter) / float64(best.union)}, true, hintSlots
}

// MatchAll appends to dst every indexed document bag matches, by descending
// similarity then ascending id, and returns the extended slice.
func (s *SpotSigs) MatchAll(bag features.Bag, dst []Candidate) []Candidate {
	n := len(dst)
	s.search(bag, noSelf, false, nil, func(d uint32, inter, union uint64) bool {
		dst = append(dst, Candidate{ID: s.docs[d].id, Sim: float64(inter) / float64(union)})
		return false
	})
	sortCandidates(dst[n:])
	return dst
}

func sortCandidates(c []Candidate) {
	slices.SortFunc(c, func(a, b Candidate) int {
		switch {
		case a.Sim > b.Sim:
			return -1
		case a.Sim < b.Sim:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

const noSelf = ^uint32(0)

// search is Algorithm 1 of SIGIR 2008 for one query document x, exact in both
// length directions. emit is called with every indexed document number d and
// the integer intersection and union of x and d when their Jaccard reaches
// tau; it returns true to stop the search. With rightOnly (full matching,
// where x itself is indexed as number self), only documents after x in
// (length, number) order are considered, so each pair is found once: the
// paper's "own and right-neighbour partition".
//
// Why it is exact. Let F (delta1) be the total frequency in x of the
// signatures whose lists are done. A document y met for the first time now
// shares none of them, so |x ∩ y| <= m = min(|x| - F, |y|) and
// sim(x,y) <= m / (|x| + |y| - m). Hence:
//   - continue: skip y when that bound is below tau (covers line 16, y longer);
//   - break the list (line 18): in a list sorted by descending length, when
//     |y| <= |x| and min(|x| - F, |y|) < tau*|x|, every later (shorter) entry
//     is bounded by the same quantity, since |x| + |y'| - m >= |x|;
//   - stop (line 26): when |x| - F < tau*|x| no unmet document can match.
//
// A document passed over by a break or a continue was excluded by a bound that
// was valid when it was first met, so re-meeting it later with a bound that no
// longer applies (it shares an earlier signature) can only skip a document
// that cannot match anyway. Signatures absent from the index go first with
// document frequency 0: they cost nothing and raise F before any list is read.
// The order of the others (rarest first) only affects speed. Documents that
// pass these bounds are candidates; scanPartition adds a count filter before
// computing their Jaccard (see there).
//
// If hints is not nil (len(x) long), search stores there where the probe for
// each signature ended and returns the table size those positions are valid
// for, or 0.
func (s *SpotSigs) search(x features.Bag, self uint32, rightOnly bool, hints []uint32,
	emit func(d uint32, inter, union uint64) bool) (hintSlots int) {
	if len(s.docs) == 0 || len(x) == 0 {
		return 0
	}
	s.sync()
	lx := checkBag(x)
	if lx == 0 {
		return 0
	}
	if hints != nil {
		hintSlots = s.nslots
	}
	lo, hi := s.tau.window(lx)
	if rightOnly {
		lo = lx
	}

	// Look every signature up once: absent ones raise F0 for free.
	var f0 uint64
	sp := scratchPool.Get().(*[]qsig)
	defer scratchPool.Put(sp)
	q := (*sp)[:0]
	for i, e := range x {
		ref, pos := s.find(e.Key)
		if hints != nil {
			hints[i] = pos
		}
		if ref == 0 {
			f0 += uint64(e.N)
			continue
		}
		df := uint32(1)
		if ref&listTag != 0 {
			df = uint32(len(s.lists[ref&^listTag].docs))
		}
		q = append(q, qsig{ref: ref, freq: e.N, df: df})
	}
	*sp = q
	// Rarest first by document frequency in the whole index; the paper sorts
	// by the frequency in the document's own partition and reuses that order
	// for the neighbour, also an approximation. Ties by slot value (distinct
	// per signature) for determinism.
	slices.SortFunc(q, func(a, b qsig) int {
		if a.df != b.df {
			return int(a.df) - int(b.df)
		}
		return int(int64(a.ref) - int64(b.ref))
	})

	// Partitions meeting [lo, hi]: the own one first, then the right and the
	// left neighbour (SIGIR 2008, Sec. 4.2); more only past the partition cap.
	kx := s.partition(lx)
	klo, khi := s.partition(lo), s.partition(hi)
	order := make([]int, 0, 4)
	order = append(order, kx)
	for k := kx + 1; k <= khi; k++ {
		order = append(order, k)
	}
	for k := kx - 1; k >= klo; k-- {
		order = append(order, k)
	}
	for _, k := range order {
		a := max(uint64(s.bounds[k]), lo)
		b := hi
		if k+1 < len(s.bounds) {
			b = min(uint64(s.bounds[k+1])-1, hi)
		}
		if a > b {
			continue
		}
		if s.scanPartition(x, lx, f0, q, uint32(a), uint32(b), self, rightOnly, emit) {
			return hintSlots
		}
	}
	return hintSlots
}

// partition is the k with p_k <= l < p_{k+1}.
func (s *SpotSigs) partition(l uint64) int {
	k, found := slices.BinarySearch(s.bounds, uint32(min(l, maxLen)))
	if !found {
		k--
	}
	return max(k, 0)
}

// scanPartition runs the inverted-list traversal of Algorithm 1 over the
// documents with lengths in [a, b] (one partition cut to the length window).
// It reports whether emit asked to stop.
//
// One exact filter is added to the paper's: candidates are verified after the
// traversal, not when first met, and the traversal goes on past the delta1
// stop for a few more lists (phase 2) that add no candidates but count which
// candidates they contain. For a candidate y, every fully scanned list that
// does not contain y lowers the bound on |x ∩ y| by that signature's frequency
// in x, so with acc(y) the frequencies of the scanned lists holding y and F
// those of all scanned lists, |x ∩ y| <= acc(y) + |x| - F. A page sharing one
// or two rare signatures with x by chance is dismissed without a Jaccard
// computation; with a fixed vocabulary such pages grow in number with the
// index, and verifying each was most of the time (BenchmarkSpotSigsIncremental).
// For the bound to hold, every list is scanned to the end of the window once
// started: after a delta2 break the rest of the list only updates counts.
func (s *SpotSigs) scanPartition(x features.Bag, lx, f uint64, q []qsig, a, b, self uint32, rightOnly bool,
	emit func(d uint32, inter, union uint64) bool) bool {
	cp := candPool.Get().(*[]cand)
	defer candPool.Put(cp)
	cands := (*cp)[:0]
	defer func() { *cp = cands }()
	// Stamps below base are from earlier scans: a document is met in one
	// partition only, so those are not this scan's.
	if s.next == 0 || s.next > math.MaxUint32-uint32(len(s.docs)) {
		clear(s.stamp) // wrapped, once every 2^32 candidates or so
		s.next = 1
	}
	base := s.next

	// visit handles one posting of the list of a signature with frequency
	// freq in x; newOK is false once new candidates are excluded for the rest
	// of the list. It returns whether to exclude new ones from here on.
	visit := func(d uint32, freq uint64, newOK, sorted bool) bool {
		if st := s.stamp[d]; st >= base {
			cands[st-base].acc += freq
			return !newOK
		}
		if !newOK {
			return true
		}
		ly := uint64(s.docs[d].len)
		if rightOnly && ly == lx && d <= self {
			return false
		}
		m := min(lx-f, ly) // bound on |x ∩ y| for a document first met now
		if sorted && ly <= lx && !s.tau.atLeast(m, lx) {
			return true // delta1 + delta2 break (Algorithm 1, line 18)
		}
		if !s.tau.atLeast(m, lx+ly-m) {
			return false // continue (line 16)
		}
		s.stamp[d] = base + uint32(len(cands))
		cands = append(cands, cand{d: d, acc: freq, need: s.tau.need(lx + ly)})
		return false
	}

	budget := -1 // phase 2 postings left; -1 while still in phase 1
	for _, e := range q {
		freq := uint64(e.freq)
		if budget < 0 && !s.tau.atLeast(lx-f, lx) {
			// delta1 stop (line 26): no new candidates from here on.
			budget = 4*len(cands) + 64
		}
		if budget >= 0 && !alive(cands, lx-f) {
			break // every candidate is already ruled out
		}
		phase1 := budget < 0
		if e.ref&listTag == 0 {
			d := s.docOf(e.ref - 1)
			if l := s.docs[d].len; a <= l && l <= b {
				visit(d, freq, phase1, false)
			}
			f += freq
			continue
		}
		pl := &s.lists[e.ref&^listTag]
		main := pl.docs[:pl.sorted]
		// The window [a, b] of the sorted part: lists run from long to short.
		i, _ := slices.BinarySearchFunc(main, b, func(d, b uint32) int {
			if s.docs[d].len > b {
				return -1
			}
			return 1
		})
		j, _ := slices.BinarySearchFunc(main[i:], a, func(d, a uint32) int {
			if s.docs[d].len >= a {
				return -1
			}
			return 1
		})
		tail := pl.docs[pl.sorted:]
		if !phase1 {
			if n := j + len(tail); n > budget {
				break // phase 2 ends before a list it could not finish
			} else {
				budget -= n
			}
		}
		newOK := phase1
		for _, d := range main[i : i+j] {
			if visit(d, freq, newOK, true) {
				newOK = false
			}
		}
		for _, d := range tail {
			if l := s.docs[d].len; a <= l && l <= b {
				visit(d, freq, phase1, false)
			}
		}
		f += freq
	}
	// Verify the candidates that the counts cannot rule out, in the order met.
	s.next = base + uint32(len(cands))
	for _, c := range cands {
		if c.acc+lx-f < c.need {
			continue
		}
		if inter, union, ok := s.jaccard(x, lx, c.d); ok && emit(c.d, inter, union) {
			return true
		}
	}
	return false
}

// cand is a candidate of scanPartition: a document number and the total
// frequency in the query of the scanned lists that hold it.
type cand struct {
	d    uint32
	acc  uint64
	need uint64 // smallest |x ∩ y| that reaches tau
}

// alive reports whether some candidate can still reach tau when rest is what
// the unscanned lists can add to every candidate.
func alive(cands []cand, rest uint64) bool {
	for _, c := range cands {
		if c.acc+rest >= c.need {
			return true
		}
	}
	return false
}

var candPool = sync.Pool{New: func() any { return new([]cand) }}

// jaccard returns the multi-set intersection sum(min) and union sum(max) of
// x (length lx) and indexed document d (SIGIR 2008, Sec. 4.1) when their
// similarity reaches tau, and ok = false as soon as it cannot.
//
// The early exit is the delta1 idea applied inside one comparison: sim =
// inter/(lx+ly-inter) grows with inter, so a match needs inter >= need =
// ceil(num*(lx+ly)/(num+den)); while merging, inter can still grow by at most
// min(what is left of x, what is left of d), and once that cannot reach need
// the pair is settled. Random pairs sharing one rare signature are dismissed
// after a small part of the merge (at tau = 0.8 a match may lose at most about
// a tenth of lx+ly), which matters when the lists of rare signatures grow
// with the index.
func (s *SpotSigs) jaccard(x features.Bag, lx uint64, d uint32) (inter, union uint64, ok bool) {
	s.comparisons++
	ly := uint64(s.docs[d].len)
	need := s.tau.need(lx + ly)
	st, end := s.span(d)
	over := s.over[s.overFrom(st):]
	if s.wide {
		inter, ok = merge(x, arenaSlice(s.k64, st, end), over, st, lx, ly, need)
	} else {
		inter, ok = merge(x, arenaSlice(s.k32, st, end), over, st, lx, ly, need)
	}
	if !ok {
		return 0, 0, false
	}
	union = lx + ly - inter
	return inter, union, s.tau.atLeast(inter, union)
}

// merge is jaccard's merge of x with the document whose arena entries start
// at st and whose counts other than 1 are at the head of over. ok is false
// once the intersection cannot reach need.
func merge[K uint32 | uint64](x features.Bag, keys []K, over []overCount, st uint32, lx, ly, need uint64) (inter uint64, ok bool) {
	remX, remY := lx, ly
	i, j, o := 0, 0, 0
	for i < len(x) && j < len(keys) {
		if inter+min(remX, remY) < need {
			return 0, false
		}
		ky := uint64(keys[j])
		if x[i].Key < ky {
			remX -= uint64(x[i].N)
			i++
			continue
		}
		ny := uint64(1)
		if o < len(over) && over[o].pos == st+uint32(j) {
			ny = uint64(over[o].n)
			o++
		}
		if x[i].Key > ky {
			remY -= ny
			j++
			continue
		}
		a := uint64(x[i].N)
		inter += min(a, ny)
		remX -= a
		remY -= ny
		i++
		j++
	}
	return inter, true
}

// Postings returns how many indexed documents have key in their bag and, if fn
// is not nil, calls it with the caller's id of each of them, in the order of
// the key's posting list (its sorted part, then its tail in the order added;
// where one ends depends on when the tail was last merged), until it returns
// false. A caller can count document
// frequencies from the index itself (as dedup's frame filter does) instead of
// keeping a table of its own beside it.
func (s *SpotSigs) Postings(key uint64, fn func(id uint32) bool) int {
	if s.posted < len(s.docs) {
		s.postBatch()
	}
	v, _ := s.find(key)
	switch {
	case v == 0:
		return 0
	case v&listTag == 0:
		if fn != nil {
			fn(s.docs[s.docOf(v-1)].id)
		}
		return 1
	}
	pl := &s.lists[v&^listTag]
	if fn != nil {
		for _, d := range pl.docs {
			if !fn(s.docs[d].id) {
				break
			}
		}
	}
	return len(pl.docs)
}

// AppendBag appends the bag of the n-th document added (0 for the first) to
// dst: the index keeps every bag once, so its callers need not keep their own.
func (s *SpotSigs) AppendBag(dst features.Bag, n int) features.Bag {
	st, end := s.span(uint32(n))
	dst = slices.Grow(dst, int(end-st))
	o := s.overFrom(st)
	for p := st; p < end; p++ {
		e := features.Entry{Key: s.key(p), N: 1}
		if o < len(s.over) && s.over[o].pos == p {
			e.N = s.over[o].n
			o++
		}
		dst = append(dst, e)
	}
	return dst
}

// bagOf returns a copy of indexed document d's bag.
func (s *SpotSigs) bagOf(d uint32) features.Bag { return s.AppendBag(nil, int(d)) }

// span is the arena range of document d.
func (s *SpotSigs) span(d uint32) (start, end uint32) {
	start, end = s.docs[d].start, uint32(s.arenaLen())
	if int(d)+1 < len(s.docs) {
		end = s.docs[d+1].start
	}
	return start, end
}

// docOf is the document owning arena position p: a binary search among the
// documents that hold p's block of the arena (see blockDoc).
func (s *SpotSigs) docOf(p uint32) uint32 {
	b := p >> blockBits
	lo, hi := s.blockDoc[b], uint32(len(s.docs))
	if int(b)+1 < len(s.blockDoc) {
		hi = s.blockDoc[b+1] + 1
	}
	i, found := slices.BinarySearchFunc(s.docs[lo:hi], p, func(d doc, p uint32) int {
		switch {
		case d.start < p:
			return -1
		case d.start > p:
			return 1
		}
		return 0
	})
	if !found {
		i--
	}
	return lo + uint32(i)
}

// The table is probed linearly from a home slot chosen by the high bits of a
// multiplicative hash of the key (Lemire's multiply-shift range reduction, so
// the table need not be a power of two). Slots hold no keys: a probe reads the
// key from the arena or the list only when the slot's fingerprint, other bits
// of the same hash, agrees. A slot is 3 bytes while references fit in 20
// bits (about a million signatures: 13,000 pages of 80) and 4 bytes after;
// its top bit tags a list, its low refBits bits are the reference, and the
// bits between are the fingerprint: 6 bits at 2^17 arena entries, 3 at 2^20,
// 10 at 2^21, 3 at 2^28, none at 2^31, where every probe reads the key.

// keyHash spreads keys (Fibonacci hashing); the keys are hashes already, but
// tests and callers may use small integers.
func keyHash(k uint64) uint64 { return k * 0x9E3779B97F4A7C15 }

// hashSlot is the Fibonacci hash of k in a table of 2^(64-shift) slots.
func hashSlot(k uint64, shift uint) uint64 { return keyHash(k) >> shift }

const (
	minRefBits = 16 // reference width of a new table
	maxRef3    = 20 // widest references in 3-byte slots
)

// home is the first slot probed for hash h in a table of n slots.
func home(h uint64, n int) int {
	hi, _ := bits.Mul64(h, uint64(n))
	return int(hi)
}

// at is the raw value of slot i.
func (s *SpotSigs) at(i int) uint32 {
	if s.s32 != nil {
		return s.s32[i]
	}
	return binary.LittleEndian.Uint32(s.slots[i*3:]) & s.smask
}

// set stores raw value v in slot i (the slice has 3 bytes of padding, so a
// 4-byte access at any slot is in range).
func (s *SpotSigs) set(i int, v uint32) {
	if s.s32 != nil {
		s.s32[i] = v
		return
	}
	b := s.slots[i*3:]
	binary.LittleEndian.PutUint32(b, binary.LittleEndian.Uint32(b)&^s.smask|v)
}

// tag is the list tag bit of a raw slot value.
func (s *SpotSigs) tag() uint32 { return (s.smask >> 1) + 1 }

// fpMask is the fingerprint field of a raw slot value.
func (s *SpotSigs) fpMask() uint32 { return s.smask >> 1 &^ (1<<s.refBits - 1) }

// fp is the fingerprint field of hash h: its low 32 bits' leading bits.
func (s *SpotSigs) fp(h uint64) uint32 {
	w := uint(bits.OnesCount32(s.smask)) - 1 - s.refBits
	return uint32(h) >> (32 - w) << s.refBits
}

// ref is raw slot value v without its fingerprint: listTag|list number, or
// the arena position+1 of a key's one document.
func (s *SpotSigs) ref(v uint32) uint32 {
	r := v & (1<<s.refBits - 1)
	if v&s.tag() != 0 {
		r |= listTag
	}
	return r
}

// slotKey is the key a non-empty raw slot value stands for.
func (s *SpotSigs) slotKey(v uint32) uint64 {
	r := v & (1<<s.refBits - 1)
	if v&s.tag() != 0 {
		return s.lists[r].key
	}
	return s.key(r - 1)
}

// find returns the slot value for key, stripped of its fingerprint (see
// ref), 0 if the key is not indexed. pos is the slot where the probe ended:
// the key's slot or the empty slot where it would be inserted. Insertions only
// fill empty slots, so until the table is resized an insertion of key may
// start probing at pos.
func (s *SpotSigs) find(key uint64) (v, pos uint32) {
	n := s.nslots
	if n == 0 {
		return 0, 0
	}
	h := keyHash(key)
	want, fpm := s.fp(h), s.fpMask()
	for i := home(h, n); ; {
		v := s.at(i)
		if v == 0 || v&fpm == want && s.slotKey(v) == key {
			return s.ref(v), uint32(i)
		}
		if i++; i == n {
			i = 0
		}
	}
}

// setTable makes the table n empty slots of w bytes.
func (s *SpotSigs) setTable(n, w int) {
	s.nslots, s.sw = n, w
	s.smask = uint32(1)<<(8*w) - 1
	if w == 4 {
		// Allocated as uint32s, so aligned; viewed as bytes for footprint.
		s.s32 = make([]uint32, n+1)
		s.slots = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s.s32))), 4*n+3)
		return
	}
	s.s32, s.slots = nil, make([]byte, 3*n+3)
}

// widenRefs makes room in the slots for references up to 2^(refBits+1)-1.
// Fingerprints are the leading bits of a fixed hash field, so within a slot
// width each loses its lowest bit in place; going from 3 to 4 bytes, the
// slots are rewritten with fingerprints recomputed from the keys. Slot
// positions do not change.
func (s *SpotSigs) widenRefs() {
	old, oldTag, oldRef := s.refBits, s.tag(), uint32(1)<<s.refBits-1
	if s.refBits+1 > maxRef3 && s.sw == 3 {
		prev := *s
		s.setTable(s.nslots, 4)
		s.refBits++
		for i := range s.nslots {
			if v := prev.at(i); v != 0 {
				r := prev.ref(v)
				f := s.fp(keyHash(prev.slotKey(v)))
				s.set(i, r&listTag|f|r&^listTag)
			}
		}
		return
	}
	s.refBits++
	for i := range s.nslots {
		if v := s.at(i); v != 0 {
			f := v &^ oldTag >> old
			s.set(i, v&oldTag|f>>1<<s.refBits|v&oldRef)
		}
	}
}

// post adds document d (whose entry for key is at arena position p) to key's
// postings. hint is where a find on a table of hintSlots slots ended, or
// hintSlots is 0.
func (s *SpotSigs) post(key uint64, p, d uint32, hint uint32, hintSlots int) {
	if (s.used+1)*maxLoadDen > s.nslots*maxLoadNum {
		s.grow()
	}
	n := s.nslots
	h := keyHash(key)
	f, fpm := s.fp(h), s.fpMask()
	i := home(h, n)
	if hintSlots == n {
		i = int(hint)
	}
	for {
		v := s.at(i)
		if v == 0 {
			s.set(i, f|(p+1))
			s.used++
			return
		}
		if v&fpm == f && s.slotKey(v) == key {
			break
		}
		if i++; i == n {
			i = 0
		}
	}
	v := s.ref(s.at(i))
	if v&listTag == 0 { // second document with this key: make a list
		d0 := s.docOf(v - 1)
		if len(s.lists) >= listTag-1 {
			panic("matcher: SpotSigs list table full")
		}
		pl := plist{key: key, docs: []uint32{d0, d}}
		if s.before(d, d0) {
			pl.docs[0], pl.docs[1] = d, d0
		}
		pl.sorted = 2
		s.lists = append(s.lists, pl)
		s.set(i, s.tag()|f|uint32(len(s.lists)-1))
		return
	}
	pl := &s.lists[v&^listTag]
	if len(pl.docs) == cap(pl.docs) {
		// Grow by a quarter, not append's doubling: posting lists are most of
		// the index, and doubling leaves a third of them empty on average.
		nd := make([]uint32, len(pl.docs), len(pl.docs)+len(pl.docs)/4+2)
		copy(nd, pl.docs)
		pl.docs = nd
	}
	pl.docs = append(pl.docs, d)
	// The tail is merged before the next query (settle), not here: during a
	// load of many pages with no query between them, a list is then ordered
	// once, not at every quarter of its growth.
	if tail := len(pl.docs) - pl.sorted; due(tail, pl.sorted) && !due(tail-1, pl.sorted) {
		s.due(v &^ listTag)
	}
}

// due says whether a list's unsorted tail of n postings, after a sorted part
// of sorted, is merged before the next query: past a quarter of the sorted
// part (amortised O(log n) merges a posting while queries come between adds).
func due(n, sorted int) bool { return n > 8 && n*4 > sorted }

// maxPending bounds the lists settle remembers by number; past it, settle
// checks every list, which then costs less than the adds that made so many
// lists due.
const maxPending = 1 << 12

// settle merges the tails that are due (see due) before a query. Queries are
// exact on any tail (they scan it without the sorted-order break of Algorithm
// 1, line 18), so this is only for speed: a query reads a long tail whole.
func (s *SpotSigs) settle() {
	if s.pendingAll {
		for i := range s.lists {
			if pl := &s.lists[i]; due(len(pl.docs)-pl.sorted, pl.sorted) {
				s.mergeTail(pl)
			}
		}
	} else {
		for _, l := range s.pending {
			s.mergeTail(&s.lists[l])
		}
	}
	s.pending, s.pendingAll = s.pending[:0], false
}

// before is the posting order: longer first, then smaller document number.
func (s *SpotSigs) before(a, b uint32) bool {
	la, lb := s.docs[a].len, s.docs[b].len
	return la > lb || la == lb && a < b
}

func (s *SpotSigs) cmpPost(a, b uint32) int {
	switch {
	case s.before(a, b):
		return -1
	case s.before(b, a):
		return 1
	}
	return 0
}

// mergeTail sorts the unsorted tail of pl and merges it into the sorted part.
// The tail is in ascending document number (Add numbers documents in order,
// and a merge empties the tail), so the posting order (length descending,
// then number) is a stable sort by length: a counting sort when the lengths
// span a range no wider than about twice the tail, as they do for the long
// tails a load of many pages leaves, else a sort of packed (^length, number)
// integers, not a comparator that looks lengths up (a tenth of the build
// time when merges came at every quarter of a list's growth).
func (s *SpotSigs) mergeTail(pl *plist) {
	tail := pl.docs[pl.sorted:]
	packed := make([]uint64, len(tail))
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for i, d := range tail {
		l := s.docs[d].len
		lo, hi = min(lo, l), max(hi, l)
		packed[i] = uint64(l)
	}
	if len(tail) >= 64 && uint64(hi-lo) < 2*uint64(len(tail)) {
		// Bucket h-l holds the length l, so buckets run from long to short.
		start := make([]uint32, hi-lo+2)
		for _, l := range packed {
			start[hi-uint32(l)+1]++
		}
		for b := 1; b < len(start); b++ {
			start[b] += start[b-1]
		}
		out := make([]uint64, len(tail))
		for i, d := range tail {
			l := uint32(packed[i])
			b := hi - l
			out[start[b]] = uint64(^l)<<32 | uint64(d)
			start[b]++
		}
		packed = out
	} else {
		for i, d := range tail {
			packed[i] = uint64(^uint32(packed[i]))<<32 | uint64(d)
		}
		slices.Sort(packed)
	}
	// Merge from the back into pl.docs, which has room for both parts.
	i, j, k := pl.sorted-1, len(packed)-1, len(pl.docs)-1
	var pi uint64 // packed form of pl.docs[i], while i >= 0
	if i >= 0 {
		pi = uint64(^s.docs[pl.docs[i]].len)<<32 | uint64(pl.docs[i])
	}
	for j >= 0 {
		if t := packed[j]; i >= 0 && pi > t {
			pl.docs[k] = pl.docs[i]
			if i--; i >= 0 {
				pi = uint64(^s.docs[pl.docs[i]].len)<<32 | uint64(pl.docs[i])
			}
		} else {
			pl.docs[k] = uint32(t)
			j--
		}
		k--
	}
	pl.sorted = len(pl.docs)
}

// flush merges every list's tail, so full matching runs on fully sorted lists.
func (s *SpotSigs) flush() {
	if s.posted < len(s.docs) {
		s.postBatch()
	}
	for i := range s.lists {
		if s.lists[i].sorted < len(s.lists[i].docs) {
			s.mergeTail(&s.lists[i])
		}
	}
	s.pending, s.pendingAll = s.pending[:0], false
}

// The table grows by half when more than maxLoadNum/maxLoadDen of it is used,
// so it is 58-87.5% full: fingerprints keep the longer probes cheap. (Growing
// by a quarter kept it fuller, 5.1 instead of 5.6 bytes a key, but rehashing
// five times a key on average instead of three cost a quarter of the build
// rate: each rehash reads every key from the arena.)
const (
	maxLoadNum = 7
	maxLoadDen = 8
)

func (s *SpotSigs) grow() {
	w := s.sw
	if w == 0 { // the first table: 3-byte slots unless the first bag is huge
		w = 3
		if s.refBits > maxRef3 {
			w = 4
		}
	}
	n := max(16, s.nslots+s.nslots/2)
	prev := *s
	s.setTable(n, w)
	// Keys are read from the arena and the lists, one cache miss each: they
	// are gathered a block at a time, in a loop of independent loads the
	// processor overlaps, then inserted.
	var hs [256]uint64
	var vs [256]uint32
	for lo := 0; lo < prev.nslots; lo += len(vs) {
		k := 0
		for i := lo; i < min(prev.nslots, lo+len(vs)); i++ {
			if v := prev.at(i); v != 0 {
				vs[k] = v
				k++
			}
		}
		for j, v := range vs[:k] {
			hs[j] = keyHash(prev.slotKey(v))
		}
		for j, v := range vs[:k] {
			i := home(hs[j], n)
			for s.at(i) != 0 {
				if i++; i == n {
					i = 0
				}
			}
			s.set(i, v)
		}
	}
}

// footprint is the memory the index holds, by part, from slice capacities
// (for benchmarks and the package doc figures): the arena (keys and the
// counts other than 1), the table, the posting lists and the per-document
// arrays.
func (s *SpotSigs) footprint() (arena, slots, lists, docs int) {
	arena = int(unsafe.Sizeof([]uint32{}))*(cap(s.k32)+cap(s.k64)) + int(unsafe.Sizeof(overCount{}))*cap(s.over)
	for _, c := range s.k32 {
		arena += 4 * cap(c)
	}
	for _, c := range s.k64 {
		arena += 8 * cap(c)
	}
	slots = cap(s.slots)
	lists = int(unsafe.Sizeof(plist{})) * cap(s.lists)
	for _, pl := range s.lists {
		lists += 4 * cap(pl.docs)
	}
	docs = int(unsafe.Sizeof(doc{}))*cap(s.docs) + 4*cap(s.stamp) + 4*cap(s.blockDoc)
	return arena, slots, lists, docs
}
