package dedup

import (
	"hash/fnv"
	"strings"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
	"github.com/warcdedup/warcdedup/sitekey"
	"github.com/warcdedup/warcdedup/warcio"
)

// Method says how near duplicates are found.
type Method uint8

const (
	// MethodSpotSigs routes pages by length and relation: SpotSigs for long pages,
	// AF-SpotSigs for short ones, same-site and cross-site thresholds.
	MethodSpotSigs Method = iota
	// MethodHenzinger is Henzinger's combined B+C (see henzinger.go).
	MethodHenzinger
)

// ParseMethod reads the --method flag's value.
func ParseMethod(s string) (Method, bool) {
	switch s {
	case "spotsigs":
		return MethodSpotSigs, true
	case "henzinger":
		return MethodHenzinger, true
	}
	return 0, false
}

// NearMode says what happens to near duplicates.
type NearMode uint8

const (
	NearRevisit  NearMode = iota // replace them by revisit records (the default)
	NearAnnotate                 // keep them and add a metadata record saying what they duplicate
	NearOff                      // exact duplicates only
)

// ParseNearMode reads the --near flag's value.
func ParseNearMode(s string) (NearMode, bool) {
	switch s {
	case "revisit":
		return NearRevisit, true
	case "annotate":
		return NearAnnotate, true
	case "off":
		return NearOff, true
	}
	return 0, false
}

// maxAnalysed is the most payload bytes kept for analysis. Pages are rarely a tenth
// of it; the cap bounds memory with many pages in flight.
const maxAnalysed = 2 << 20

// analysis is what a worker learns of a response for near-duplicate matching.
type analysis struct {
	ok      bool         // the page has enough natural-language text to be compared
	spotsOK bool         // ... by its spot signatures
	site    string       // Henzinger site key of the target URI
	spots   features.Bag // SpotSigs multi-set
	af      features.Bag // AF-SpotSigs multi-set, for short pages; nil for long ones
	bigrams features.Bag // main-text word bigrams, for pages with few spot signatures; or nil
	// unlikely: the main text is in containers named as page furniture
	// (features.Doc.MainTextUnlikely), perhaps the site's own boilerplate.
	unlikely bool
	// For --method=henzinger: Alg. B's supershingles and Alg. C's fingerprint.
	shingles [6]uint64
	sim384   [6]uint64
}

// analyzer is one worker's state; it is not shared between goroutines.
type analyzer struct {
	spots, af  *features.Extractor
	hz         *features.Extractor // --method=henzinger only
	shortSpots int
	mainText   bool
}

func (d *Deduper) newAnalyzer() *analyzer {
	if d.opts.Method == MethodHenzinger {
		hz, err := features.NewExtractor(henzingerFeatures())
		if err != nil {
			panic(err)
		}
		return &analyzer{hz: hz}
	}
	// Two extractors: SpotSigs for every page, AF-SpotSigs only for the short
	// ones, where it is needed and cheap (its sentence shingles cost about 29 times
	// SpotSigs' time on long pages, AF-SpotSigs paper, Sec. 5).
	cfg := features.DefaultConfig()
	cfg.Families = features.FamSpotSigs
	cfg.MainText = d.opts.MainText
	if cfg.MainText {
		// Signatures of the running text alone are frame-free, so fewer of them
		// are evidence: a short story's 3 or 4 signatures in a re-capture are
		// all equal (measured on the dedupbench benchmark: MinSpots 3 instead of 5
		// found 8% more re-capture pairs and lowered precision by 0.2%).
		cfg.MinSpots = mainTextMinSpots
	}
	cfg.BigramsBelow = d.opts.BigramsBelow
	spots, err := features.NewExtractor(cfg)
	if err != nil {
		panic(err) // the configuration is ours and tested; an error is a bug
	}
	cfg.Families = features.FamAF
	af, err := features.NewExtractor(cfg)
	if err != nil {
		panic(err)
	}
	return &analyzer{spots: spots, af: af, shortSpots: d.opts.ShortSpots, mainText: d.opts.MainText}
}

// needsAnalysis says whether a record goes to the workers: an HTML page that
// near-duplicate matching can replace.
func (d *Deduper) needsAnalysis(it *item) bool {
	if d.opts.Near == NearOff || it.pay == nil || it.rec.Err != nil {
		return false
	}
	if it.pay.HTTP.StatusCode != 200 || it.pay.Length < d.opts.MinSize || it.pay.Length == 0 {
		return false
	}
	if it.rec.Header.Has("WARC-Truncated") || it.rec.Header.Has("WARC-Segment-Number") {
		return false
	}
	return isHTML(it.pay.HTTP.Get("Content-Type"), it.pay.Body)
}

// keepBody is how many payload bytes the reader keeps for analysis: none unless
// the response may be an HTML page that near-duplicate matching could replace.
func (d *Deduper) keepBody(h *warcio.HTTPResponse) int {
	if d.opts.Near == NearOff || h.StatusCode != 200 {
		return 0
	}
	ct := strings.ToLower(h.Get("Content-Type"))
	if ct == "" || strings.Contains(ct, "html") || strings.HasPrefix(ct, "text/plain") || strings.HasPrefix(ct, "application/octet-stream") {
		return maxAnalysed
	}
	return 0
}

func isHTML(ctype string, body []byte) bool {
	ct := strings.ToLower(ctype)
	if strings.Contains(ct, "html") {
		return true
	}
	if ct != "" && !strings.HasPrefix(ct, "text/plain") && !strings.HasPrefix(ct, "application/octet-stream") {
		return false
	}
	// No or a generic content type: look for markup, as browsers sniff.
	head := strings.ToLower(string(body[:min(len(body), 512)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype html")
}

// testAnalyzeHook, if set by a test, is called at the start of each analysis.
var testAnalyzeHook func(*item)

func (a *analyzer) analyze(it *item) {
	if testAnalyzeHook != nil {
		testAnalyzeHook(it)
	}
	body, _ := it.pay.Decode(maxAnalysed)
	uri := it.rec.Header.Get("WARC-Target-URI")
	ctype := it.pay.HTTP.Get("Content-Type")
	it.an.site = sitekey.FromURL(uri)
	if a.hz != nil {
		doc := a.hz.Extract(body, ctype, uri)
		// Henzinger compares every page with at least one shingle's worth of terms.
		it.an.ok = doc.Terms >= 8
		it.an.shingles, it.an.sim384 = doc.Supershingles, doc.Simhash384
		return
	}
	doc := a.spots.Extract(body, ctype, uri)
	// Bags are folded to 32-bit keys here, once, so that the index keeps 4
	// bytes a signature instead of 8 (matcher.Fold32: a spurious shared
	// signature between two pages of 80 has a chance of about 1.5e-6).
	it.an.spots = matcher.Fold32(doc.Spots[:0], doc.Spots)
	// With MainText, a page where no block reads as running text is left alone:
	// falling back to all its words would compare frames (measured: most of
	// the benchmark's same-frame false positives came from such pages).
	it.an.spotsOK = doc.SpotComparable && (doc.MainText || !a.mainText)
	it.an.unlikely = doc.MainTextUnlikely
	if doc.Bigrams.Len() >= minBigrams {
		it.an.bigrams = matcher.Fold32(doc.Bigrams[:0], doc.Bigrams)
	}
	it.an.ok = it.an.spotsOK || it.an.bigrams != nil
	// SizeSpotSigs (AF-SpotSigs paper, Sec. 4): pages with little core content,
	// measured by their number of spot signatures, are compared by AF-SpotSigs.
	if doc.Spots.Len() < a.shortSpots {
		afDoc := a.af.Extract(body, ctype, uri)
		if afDoc.AF.Len() >= minAFFeatures {
			it.an.af, it.an.ok = matcher.Fold32(afDoc.AF[:0], afDoc.AF), true
		}
	}
}

// Containment: a page whose text holds most of a kept page's, or is
// mostly held in one, without reaching the Jaccard threshold, is not a near
// duplicate (each side has text the other lacks, so a revisit would lose
// some) but is what a curator wants to know of: a long article that quotes a
// wire story whole, or a story cut down for another site. It is reported and
// annotated, never replaced. containShare is the share of the smaller side's
// content signatures (main text, less both sites' frames) found in the
// larger; minContainSpots the fewest such signatures the smaller side needs
// for the share to mean something. Measured on the corpus's real pairs: the
// cbsnews.com Earhart story in a longer msn.com article shares 0.78 (gold
// text containment 0.82); the closest pair that is not a copy, news24.com and
// thepost.co.za on one rugby match, 0.745 (gold 0.71, listed as a partial
// overlap); different stories of one site stay under 0.72, and the pairs that
// come near it are short (7 and 19 signatures).
const (
	containShare    = 0.75
	minContainSpots = 25
)

// mainTextMinSpots is features.Config.MinSpots with MainText.
const mainTextMinSpots = 3

// minBigrams is the fewest main-text word bigrams a page needs to be
// compared by them: a sentence of eight words or so.
const minBigrams = 8

// minAFFeatures is the fewest AF-SpotSigs features a short page needs to be
// compared at all: below it, a page is a menu or an error message.
const minAFFeatures = 20

// nearDoc is a kept page in the near-duplicate index.
type nearDoc struct {
	ref      uint32    // its number in the reference store (refStore)
	site     uint32    // site number (nearIndex.sites)
	num      [3]uint32 // its number in each family's index, or noNum (the bag is kept there)
	unlikely bool      // analysis.unlikely
	// gone: the page's file was withdrawn (Deduper.Withdraw). The matcher's
	// indexes cannot remove a page, so it stays there and is skipped.
	gone bool
}

// noNum marks a family a kept page is not indexed in.
const noNum = ^uint32(0)

// Feature families of the near-duplicate index.
const (
	famSpots   = iota // SpotSigs of the main text
	famAF             // AF-SpotSigs, for short pages when --short-spots is set
	famBigrams        // word bigrams of the main text, for pages with few spot signatures
)

var famMethod = [3]string{"spotsigs", "af-spotsigs", "bigrams"}

// family is one feature family's index over the kept pages that have it.
type family struct {
	idx   *matcher.SpotSigs
	pages []uint32 // per site number: kept pages in idx
	urls  []uint64 // per number in idx: urlKey of the page (famBigrams only)
}

// nearIndex holds the kept pages' signatures, in one exact SpotSigs index per
// feature family. The spot signatures' index serves both relations: it is
// searched at the lower of the two thresholds and each candidate is then held
// to the threshold of its relation.
type nearIndex struct {
	fam   [3]family
	docs  []nearDoc
	buf   []matcher.Candidate
	sites siteNames
	qown  features.Bag // the query less its site's frame
	qbuf  features.Bag // ... and less a candidate's site's frame
	cbuf  features.Bag // a candidate less both sites' frames
	kbuf  features.Bag // a candidate's bag from the index
	qurl  string       // the query's canonical URL (canonURL)
	gone  int          // withdrawn pages (nearDoc.gone)
}

// withdraw marks the pages from number from on as gone: they are no longer
// candidates, and no longer count as a site's kept pages for the frame
// filter (see isFrame for their signatures).
func (x *nearIndex) withdraw(from int) {
	for i := from; i < len(x.docs); i++ {
		nd := &x.docs[i]
		if nd.gone {
			continue
		}
		nd.gone = true
		x.gone++
		for f := range x.fam {
			if nd.num[f] != noNum {
				x.fam[f].pages[nd.site]--
			}
		}
	}
}

// livePostings counts the pages that have key in family f and are not gone,
// up to globalMinPages.
func (x *nearIndex) livePostings(f *family, key uint64) int {
	n := 0
	f.idx.Postings(key, func(id uint32) bool {
		if !x.docs[id].gone {
			n++
		}
		return n < globalMinPages
	})
	return n
}

// sameURL says whether kept record n is a capture of the query's URL. The
// URL is read back from the reference store: this is asked only of the rare
// candidates whose signatures are all frame. A read error is sticky in the
// store and fails the run at its next use.
func (d *Deduper) sameURL(n uint32) bool {
	r, err := d.exact.get(n)
	return err == nil && canonURL(r.uri) == d.near.qurl
}

// urlKey is a 64-bit hash of canonURL(u): kept pages hold it, not the URL.
func urlKey(u string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(canonURL(u)))
	return h.Sum64() | 1 // never 0, which means no URL in matchIn
}

// canonURL is a URL in the form two captures of one resource share: scheme,
// "www." and a fragment or final slash do not tell captures apart; host case
// does not matter, path and query case do.
func canonURL(u string) string {
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
	return host + strings.TrimSuffix(rest, "/")
}

func (d *Deduper) nearIdx() *nearIndex {
	if d.near == nil {
		o := d.opts
		x := &nearIndex{sites: siteNames{}}
		for f, tau := range [3]float64{min(o.SameSiteTau, o.CrossSiteTau), o.ShortTau, o.BigramsTau} {
			idx, err := matcher.NewSpotSigs(candidateTau(tau, o.FrameFilter))
			if err != nil {
				panic(err) // thresholds are checked by the command line
			}
			x.fam[f].idx = idx
		}
		d.near = x
	}
	return d.near
}

// candidateTau is the threshold the index is searched at. With the frame filter,
// a pair's similarity is judged on its bags without the frame's signatures, which
// can be higher than on the whole bags (two copies of a story in different frames
// share no frame signatures: removing them shrinks only the union), so candidates
// are gathered below the threshold they will be held to.
func candidateTau(tau float64, frame bool) float64 {
	if frame {
		return max(tau/2, 0.1)
	}
	return tau
}

// Frame filter parameters: a signature is frame if it occurs in at least
// frameMinDF of a site's kept pages and in at least frameShare of them. Kept
// pages are, by construction, not duplicates of one another, so a signature
// that two of them share is frame or boilerplate ("this page is best viewed
// in an up-to-date web browser", measured on bbc.co.uk), not a story; the
// share only matters on sites with many pages. Measured on the dedupbench
// benchmark: a floor of 2 pages instead of waiting for 8 raised F1 from 0.87 to
// 0.91 and cut same-frame false positives from 38 to 10; a floor of 3 gave 0.90
// and 20.
const (
	frameShare = 0.2
	frameMinDF = 2
)

// globalMinPages is how many kept pages, over all sites, a signature must be
// in to count as a frame shared between sites: sister sites of one publisher
// (measured: infoworld.com, cio.com, computerworld.com) and sites on one
// platform share frames that a per-site count cannot see. A story and its
// copies are in a few pages; a frame is in hundreds.
const globalMinPages = 24

// noSite is the site number of a site with no kept page.
const noSite = ^uint32(0)

// siteNames numbers site keys: kept pages hold a number, not a string each.
type siteNames map[string]uint32

func (m siteNames) num(site string) uint32 {
	n, ok := m[site]
	if !ok {
		n = uint32(len(m))
		m[site] = n
	}
	return n
}

// isFrame says whether key is a frame signature of family f for site sn: in
// at least globalMinPages kept pages of any site, or in at least frameMinDF
// and frameShare of the site's kept pages; counted in the index's posting
// lists, which hold exactly that, so no table of counts is kept beside them
// (a map of per-site counts was 5.8 KB of the 11.4 KB kept per page).
//
// Withdrawn pages are still in the posting lists. While there are none, the
// lists' lengths are the counts; after a withdrawal, a list that could be
// long enough only with withdrawn pages in it is read to count the live ones
// (up to globalMinPages of them, past any withdrawn ones on the way): a cost
// that only a run with a failed file pays, for the signatures the failed
// file's pages share with later ones.
func (x *nearIndex) isFrame(f *family, sn uint32, key uint64) bool {
	n := f.idx.Postings(key, nil)
	if n >= globalMinPages && (x.gone == 0 || n-x.gone >= globalMinPages || x.livePostings(f, key) >= globalMinPages) {
		return true
	}
	if int(sn) >= len(f.pages) || f.pages[sn] < frameMinDF {
		return false
	}
	lim := max(int(frameShare*float64(f.pages[sn])), frameMinDF)
	if n < lim {
		return false
	}
	// At most globalMinPages postings: bounded work per signature.
	inSite := 0
	f.idx.Postings(key, func(id uint32) bool {
		if x.docs[id].site == sn && !x.docs[id].gone {
			inSite++
		}
		return inSite < lim
	})
	return inSite >= lim
}

// content returns b without the frame signatures of sites sn and other, in
// dst's storage. A pair of pages is judged on what is frame for neither site:
// a signature that one side's site shows to be frame is no evidence on the
// other side either (measured: a Chinese blog post and its copy in a
// news.163.com frame, 0.40 on their main text, fell under 0.25 when common
// signatures were dropped from the copy only).
func (x *nearIndex) content(f *family, sn, other uint32, b features.Bag, dst features.Bag) features.Bag {
	dst = dst[:0]
	for _, e := range b {
		if x.isFrame(f, sn, e.Key) || (other != sn && x.isFrame(f, other, e.Key)) {
			continue
		}
		dst = append(dst, e)
	}
	return dst
}

// nearMatch finds the kept page the analysed item duplicates, if any: by
// SpotSigs at the threshold of the pair's relation; for a page with few spot
// signatures, by its word bigrams when SpotSigs finds nothing; for a short
// page with --short-spots, by AF-SpotSigs alone. The best candidate wins;
// ties go to the earliest kept page (Stanford report, Best Guess).
func (d *Deduper) nearMatch(it *item) (match, bool) {
	x := d.nearIdx()
	qsite, ok := x.sites[it.an.site]
	if !ok {
		qsite = noSite // no kept page of the site yet
	}
	o := &d.opts
	x.qurl = canonURL(it.rec.Header.Get("WARC-Target-URI"))
	if it.an.af != nil {
		// Short pages of different sites can share a frame too (one vendor's
		// platform for many local stations: measured on l3s-gn1, 0.72 for two
		// different stories), and their little text gives a noisy Jaccard: they
		// are held to the short-page threshold whatever the relation.
		return d.matchIn(famAF, it.an.af, qsite, o.ShortTau, o.ShortTau, 0, it.an.unlikely)
	}
	if it.an.spotsOK {
		if m, found := d.matchIn(famSpots, it.an.spots, qsite, o.SameSiteTau, o.CrossSiteTau, 0, it.an.unlikely); found {
			return m, true
		}
	}
	if it.an.bigrams != nil {
		// Too little text for spot signatures: the page's word bigrams are
		// compared with earlier captures of its URL and with pages of other
		// sites, not with other pages of its own site, whose short "main
		// text" is too often the site's own boilerplate. Measured on the
		// dedupbench benchmark at 0.7: across URLs within sites, 10 false pairs
		// for 3 true ones; with the URL, no false pair and re-capture recall
		// from 0.943 to 0.975; across sites, 3 more true pairs and no false
		// one (none either in the corpus's 3.6 million cross-site pairs).
		return d.matchIn(famBigrams, it.an.bigrams, qsite, o.BigramsTau, o.BigramsTau,
			urlKey(it.rec.Header.Get("WARC-Target-URI")), it.an.unlikely)
	}
	return match{}, false
}

// matchIn matches bag against family f's index: every candidate the exact
// matcher gathers is judged on what is frame for neither site (with the frame
// filter) and held to the threshold of its relation. A candidate that misses
// it may still be a containment (SpotSigs only: see containShare). If url is
// set, the kept pages of the query's own site are candidates only if their
// canonical URL has that hash (urlKey). If unlikely is set, or a candidate of
// the query's site has its main text in containers named as furniture, that
// candidate must be a capture of the query's URL.
func (d *Deduper) matchIn(f int, bag features.Bag, qsite uint32, sameTau, crossTau float64, url uint64, unlikely bool) (match, bool) {
	x := d.near
	fm := &x.fam[f]
	x.buf = fm.idx.MatchAll(bag, x.buf[:0])
	if d.opts.FrameFilter {
		// The page less its own site's frame, once; each candidate of another
		// site takes that site's frame off it too.
		x.qown = x.content(fm, qsite, qsite, bag, x.qown)
	}
	best, bestSim := -1, 0.0
	bestShared := 0
	// The best containment among candidates that are not near duplicates:
	// the share of the smaller side's text found in the larger.
	cont, contShare, contSim, contHolds := -1, 0.0, 0.0, false
	for i, c := range x.buf {
		kd := &x.docs[c.ID]
		if kd.gone {
			continue
		}
		if url != 0 && fm.urls[kd.num[f]] != url && kd.site == qsite {
			continue
		}
		if (unlikely || kd.unlikely) && kd.site == qsite && !d.sameURL(kd.ref) {
			// Text from containers named as furniture may be the site's own
			// boilerplate, the same on pages with no story (measured on
			// stylescout.blogspot.com: an app's blurb in the sidebar of two
			// photo posts, 1.00): within its site such a page is compared
			// with captures of its own URL only, as bigrams are.
			continue
		}
		tau := crossTau
		if kd.site == qsite {
			tau = sameTau
		}
		q := bag
		x.kbuf = fm.idx.AppendBag(x.kbuf[:0], int(kd.num[f]))
		k := x.kbuf
		if d.opts.FrameFilter {
			q = x.qown
			if kd.site != qsite {
				x.qbuf = x.content(fm, kd.site, kd.site, x.qown, x.qbuf)
				q = x.qbuf
			}
			x.cbuf = x.content(fm, kd.site, qsite, x.kbuf, x.cbuf)
			k = x.cbuf
			if len(q) == 0 || len(k) == 0 {
				// Nothing but frame: no evidence either way, unless the
				// candidate is an earlier capture of the same URL, whose text
				// is then judged whole (a post whose every sentence is also
				// on other pages of its blog platform, re-captured).
				if !d.sameURL(kd.ref) {
					continue
				}
				q, k = bag, x.kbuf
			}
		}
		in, lq, lk := features.Intersection(q, k), q.Len(), k.Len()
		sim := float64(in) / float64(lq+lk-in)
		if sim >= tau {
			if best < 0 || sim > bestSim || (sim == bestSim && c.ID < x.buf[best].ID) {
				best, bestSim = i, sim
				bestShared = features.SharedKeys(q, k)
			}
			continue
		}
		if best >= 0 || f != famSpots {
			continue // a near duplicate is found already; other families are for short texts
		}
		small, holds := lk, true // holds: the query holds the kept page's text
		if lq < lk {
			small, holds = lq, false
		}
		share := float64(in) / float64(small)
		if small >= minContainSpots && share >= containShare &&
			(cont < 0 || share > contShare || (share == contShare && c.ID < x.buf[cont].ID)) {
			cont, contShare, contSim, contHolds = i, share, sim, holds
		}
	}
	rel := func(kd *nearDoc) string {
		if kd.site == qsite {
			return "same-site"
		}
		return "cross-site"
	}
	switch {
	case best >= 0:
		kd := &x.docs[x.buf[best].ID]
		return match{keptNum: kd.ref, method: famMethod[f], similarity: bestSim, relation: rel(kd),
			shared: bestShared}, true
	case cont >= 0:
		kd := &x.docs[x.buf[cont].ID]
		how := heldByKept
		if contHolds {
			how = holdsKept
		}
		return match{keptNum: kd.ref, method: famMethod[f], similarity: contSim, relation: rel(kd),
			contain: how, share: contShare}, true
	}
	return match{}, false
}

// nearAdd indexes a kept page in each family it has features of.
func (d *Deduper) nearAdd(it *item, ref uint32) {
	x := d.nearIdx()
	id := uint32(len(x.docs))
	nd := nearDoc{ref: ref, site: x.sites.num(it.an.site), num: [3]uint32{noNum, noNum, noNum}, unlikely: it.an.unlikely}
	bags := [3]features.Bag{famBigrams: it.an.bigrams}
	if it.an.af != nil {
		bags[famAF] = it.an.af
	} else if it.an.spotsOK {
		bags[famSpots] = it.an.spots
	}
	// The page is in docs, with each of its numbers, before it is in a
	// family's index: a candidate id always has its page, and a withdrawal
	// finds every family the page was counted in.
	x.docs = append(x.docs, nd)
	xd := &x.docs[id]
	for f, bag := range bags {
		if len(bag) == 0 {
			continue
		}
		fm := &x.fam[f]
		if f == famBigrams {
			fm.urls = append(fm.urls, urlKey(it.rec.Header.Get("WARC-Target-URI")))
		}
		for int(nd.site) >= len(fm.pages) {
			fm.pages = append(fm.pages, 0)
		}
		xd.num[f] = uint32(fm.idx.Len())
		fm.pages[nd.site]++
		fm.idx.Add(id, bag)
		if fm.idx.Len() != int(xd.num[f])+1 {
			panic("dedup: a page was not added to the near-duplicate index")
		}
	}
}
