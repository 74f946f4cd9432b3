package bench

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/warcdedup/warcdedup/sitekey"
	"github.com/warcdedup/warcdedup/warcio"
)

// NewsDatasets hold news and blog articles: the frames a syndicated story is
// put in on other sites.
var NewsDatasets = map[string]bool{
	"dragnet": true, "l3s-gn1": true, "cleanportaleval": true, "cx-bbc": true, "cx-163": true,
	"chinese-wced": true, "scrapinghub-aeb": true,
}

// Config says what Generate builds.
type Config struct {
	Corpus string // the shared corpus folder (../shared/corpus)
	Out    string // output folder, created if missing
	Seed   uint64
	Files  int // number of WARC files; 0 means 4

	// Recaptured is the number of pages that are captured again (case 1
	// clusters) and Syndicated the number of stories copied into other pages'
	// frames (case 2 clusters). Negative means none; 0 means the default.
	Recaptured, Syndicated int

	// MaxPages, when positive, samples that many corpus pages (besides the real
	// pairs) instead of taking all: for tests.
	MaxPages int

	// Scale, when above 1, adds Scale-1 synthetic pages (new stories stitched
	// from corpus articles, each in the frame of a corpus page) per corpus page
	// whose main content can be located, and multiplies Recaptured and
	// Syndicated by Scale. 0 and 1 build the benchmark of the corpus pages alone.
	Scale int
}

// WCXBShare is the percentage of re-captured pages drawn from the wcxb
// pages (shops, forums, documentation, services).
const WCXBShare = 25

// Defaults.
const (
	DefaultSeed       = 20260304
	DefaultFiles      = 4
	DefaultRecaptured = 220
	DefaultSyndicated = 180
)

// Summary counts what Generate wrote.
type Summary struct {
	Seed     uint64         `json:"seed"`
	Scale    int            `json:"scale,omitempty"`
	Files    []string       `json:"files"`
	Labels   string         `json:"labels"`
	Records  int            `json:"records"`  // response records
	Clusters int            `json:"clusters"` // distinct clusters
	Excluded map[string]int `json:"excluded"` // corpus pages left out, by reason

	RecordsByCase  map[int]int    `json:"records_by_case"`
	ClustersByCase map[int]int    `json:"clusters_by_case"`
	ByVariant      map[string]int `json:"records_by_variant"`
	ClusterSizes   map[int]int    `json:"cluster_sizes"` // size -> clusters of that size
	// Short and Chinese records by case (case 4 is in all the others).
	ShortByCase   map[int]int `json:"short_records_by_case"`
	ChineseByCase map[int]int `json:"chinese_records_by_case"`
	// DuplicatePairs counts the true duplicate pairs by case and site relation.
	DuplicatePairs map[string]int `json:"duplicate_pairs"`
	// SameSiteNonDuplicatePairs counts the pairs of records of one site in
	// different clusters: the case-3 pairs that must not be reported.
	SameSiteNonDuplicatePairs int `json:"same_site_non_duplicate_pairs"`
	// SyntheticStories counts the synthetic pages of a scaled benchmark and
	// SyntheticRecords the records that carry a synthetic story.
	SyntheticStories int `json:"synthetic_stories,omitempty"`
	SyntheticRecords int `json:"synthetic_records,omitempty"`
}

// Variants of a record.
const (
	VarOriginal  = "original"
	VarRecapture = "recapture"
	VarSynCross  = "syndicated-cross-site"
	VarSynSame   = "syndicated-same-site"
	VarRealPair  = "real-pair"
	VarUnique    = "unique"
)

// entry is a page of the corpus as the generator uses it.
type entry struct {
	p    *Page
	url  string
	site string
	gold string
	syn  *synthStory // a synthetic page's story; nil for a corpus page
}

// item is one response record to write.
type item struct {
	e       *entry // the story's page
	variant string
	cluster string
	cse     int
	// frame is the page whose HTML the record has; for syndicated copies it is
	// chosen when the record is built.
	frame *entry
	uri   string
	label Label
	body  []byte
	ctype string
}

type generator struct {
	cfg     Config
	rng     *rand.Rand
	corpus  *Corpus
	entries []*entry
	bySite  map[string][]*entry
	usedURL map[string]bool
	csMu    sync.Mutex
	csCache map[string]pageCharset
	frameOK map[*entry]bool
	tmpl    map[*entry]*frameTemplate // frame templates of a scaled benchmark
}

// Generate builds the benchmark: labeled WARC files and labels.jsonl in
// cfg.Out, and summary.json with the counts.
func Generate(cfg Config) (*Summary, error) {
	if cfg.Files <= 0 {
		cfg.Files = DefaultFiles
	}
	if cfg.Recaptured == 0 {
		cfg.Recaptured = DefaultRecaptured
	}
	if cfg.Syndicated == 0 {
		cfg.Syndicated = DefaultSyndicated
	}
	if cfg.Scale > 1 {
		cfg.Recaptured *= cfg.Scale
		cfg.Syndicated *= cfg.Scale
	}
	g, err := newGenerator(cfg)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Seed: cfg.Seed, Excluded: map[string]int{}}
	if cfg.Scale > 1 {
		sum.Scale = cfg.Scale
	}
	items, err := g.plan(sum)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	if err := g.write(items, sum); err != nil {
		return nil, err
	}
	summarize(items, sum)
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(filepath.Join(cfg.Out, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return sum, nil
}

func newGenerator(cfg Config) (*generator, error) {
	c, err := LoadCorpus(cfg.Corpus)
	if err != nil {
		return nil, err
	}
	return &generator{cfg: cfg, corpus: c, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6465647570)),
		bySite: map[string][]*entry{}, usedURL: map[string]bool{}, csCache: map[string]pageCharset{}, frameOK: map[*entry]bool{}}, nil
}

// pageURL is the page's URL from its manifest, or one made up for a page
// that has none: on its site when the site is known (/a/<id>.html), else on a
// host of its own.
func pageURL(p *Page) string {
	if p.URL != "" {
		return p.URL
	}
	site := p.Site
	if p.Dataset == "cx-163" {
		return "http://news.163.com/special/" + p.ID + ".html"
	}
	if site != "" && !strings.Contains(site, ":") && strings.Contains(site, ".") {
		return "http://www." + site + "/a/" + url.PathEscape(p.ID) + ".html"
	}
	sum := sha1.Sum([]byte(p.Key()))
	tld := "com"
	if p.Lang == "zh" {
		tld = "cn"
	}
	return fmt.Sprintf("http://www.site%x.%s/%s.html", sum[:4], tld, url.PathEscape(p.ID))
}

// charset is the page's charset (a synthetic page has its frame's). It may
// be called concurrently.
func (g *generator) charset(e *entry) (pageCharset, error) {
	if e.syn != nil {
		e = e.syn.frame
	}
	g.csMu.Lock()
	cs, ok := g.csCache[e.p.Key()]
	g.csMu.Unlock()
	if ok {
		return cs, nil
	}
	b, err := e.p.ReadHTML()
	if err != nil {
		return pageCharset{}, err
	}
	cs = detectCharset(b)
	g.csMu.Lock()
	g.csCache[e.p.Key()] = cs
	g.csMu.Unlock()
	return cs, nil
}

// readHTML is the page's HTML: a corpus page's bytes as stored, or a
// synthetic page's frame with its story in it.
func (g *generator) readHTML(e *entry) ([]byte, error) {
	if e.syn != nil {
		return g.tmpl[e.syn.frame].page(e.syn)
	}
	return e.p.ReadHTML()
}

// framable says whether the page's main content can be found in its HTML, so
// that a story can be put in its place.
func (g *generator) framable(e *entry) bool {
	if v, ok := g.frameOK[e]; ok {
		return v
	}
	if e.syn != nil {
		return true // its story is where its frame's main content was
	}
	ok := false
	if e.p.Gold != "" && g.editable(e) {
		if b, err := e.p.ReadHTML(); err == nil {
			cs, _ := g.charset(e)
			if root, err := parsePage(b, cs); err == nil {
				// The page must also render back: x/net/html refuses to
				// render some trees it parses (a void element given
				// children, on modern pages).
				_, rerr := renderPage(root, cs)
				ok = rerr == nil && mainContent(root, e.gold) != nil
			}
		}
	}
	g.frameOK[e] = ok
	return ok
}

func (g *generator) editable(e *entry) bool {
	cs, err := g.charset(e)
	return err == nil && cs.editable(e.p.Lang)
}

// copies draws the number of copies of a page: most clusters are pairs, some
// triples, a few larger.
func (g *generator) copies() int {
	switch x := g.rng.IntN(100); {
	case x < 60:
		return 1
	case x < 85:
		return 2
	case x < 95:
		return 3
	default:
		return 4 + g.rng.IntN(4)
	}
}

func (g *generator) plan(sum *Summary) ([]*item, error) {
	c := g.corpus
	ex := c.excluded()
	for _, why := range ex {
		if strings.HasPrefix(why, "same HTML") {
			why = "same HTML as another dataset's page"
		} else if strings.HasPrefix(why, "partial overlap") {
			why = "partial overlap (50-80%) with another page"
		}
		sum.Excluded[why]++
	}
	real := c.realClusters(ex)
	inReal := map[string]bool{}
	for _, cl := range real {
		for _, k := range cl {
			inReal[k] = true
		}
	}
	// wcxb pages that copy one another (mirrors, two SKUs of one product
	// page) are a cluster of their own, as the real pairs are.
	if c.datasets[WCXBDir] {
		set, err := loadWCXB(c.Root)
		if err != nil {
			return nil, err
		}
		groups := map[int][]string{}
		for i, wp := range set.pages {
			k := WCXBDir + "/" + wp.ID
			if c.ByKey[k] != nil && ex[k] == "" {
				groups[set.root(i)] = append(groups[set.root(i)], k)
			}
		}
		for _, r := range slices.Sorted(maps.Keys(groups)) {
			if g := groups[r]; len(g) > 1 {
				real = append(real, g)
				for _, k := range g {
					inReal[k] = true
				}
			}
		}
	}
	var pool []*Page
	for _, p := range c.Pages {
		if ex[p.Key()] == "" && !inReal[p.Key()] {
			pool = append(pool, p)
		}
	}
	if g.cfg.MaxPages > 0 && g.cfg.MaxPages < len(pool) {
		g.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		pool = pool[:g.cfg.MaxPages]
		sort.SliceStable(pool, func(i, j int) bool { return pool[i].Key() < pool[j].Key() })
	}
	add := func(p *Page) (*entry, error) {
		gold, err := p.ReadGold()
		if err != nil {
			return nil, err
		}
		e := &entry{p: p, url: pageURL(p), gold: gold}
		e.site = sitekey.FromURL(e.url)
		if e.site == "" {
			e.site = p.HostKey
		}
		g.entries = append(g.entries, e)
		g.bySite[e.site] = append(g.bySite[e.site], e)
		g.usedURL[e.url] = true
		return e, nil
	}
	var items []*item
	nCluster := 0
	newCluster := func() string {
		nCluster++
		return fmt.Sprintf("c%05d", nCluster)
	}
	// Case 5: the real pairs, with their real HTML and URLs.
	for _, cl := range real {
		id := newCluster()
		for _, k := range cl {
			e, err := add(c.ByKey[k])
			if err != nil {
				return nil, err
			}
			items = append(items, &item{e: e, frame: e, variant: VarRealPair, cluster: id, cse: 5, uri: e.url})
		}
	}
	var rest []*entry
	for _, p := range pool {
		e, err := add(p)
		if err != nil {
			return nil, err
		}
		rest = append(rest, e)
	}
	if g.cfg.Scale > 1 {
		syn, err := g.synthesize(rest)
		if err != nil {
			return nil, err
		}
		sum.SyntheticStories = len(syn)
		rest = append(rest, syn...)
	}
	// Sources of cases 1 and 2: pages with a gold text, drawn so that about a
	// quarter are short and a sixth Chinese (case 4).
	var zh, short, other, wc []*entry
	for _, e := range rest {
		if e.p.Gold == "" || len(strings.TrimSpace(e.text())) < 80 || !g.editable(e) {
			continue
		}
		switch {
		case e.p.Dataset == WCXBDir:
			// Shop, forum and documentation pages are re-captured, never
			// syndicated: their text is not a story other sites print.
			wc = append(wc, e)
		case e.p.Chinese():
			zh = append(zh, e)
		case e.p.Short():
			short = append(short, e)
		default:
			other = append(other, e)
		}
	}
	for _, b := range [][]*entry{zh, short, other, wc} {
		g.rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	}
	take := func(n int) []*entry {
		var out []*entry
		nzh, nshort := n/6, n/4
		pick := func(b *[]*entry, k int) {
			for k > 0 && len(*b) > 0 {
				e := (*b)[0]
				*b = (*b)[1:]
				if g.framable(e) {
					out = append(out, e)
					k--
				}
			}
		}
		pick(&zh, nzh)
		pick(&short, nshort)
		pick(&other, n-len(out))
		pick(&short, n-len(out))
		pick(&zh, n-len(out))
		return out
	}
	nRe, nSyn := max(g.cfg.Recaptured, 0), max(g.cfg.Syndicated, 0)
	if g.cfg.MaxPages > 0 {
		nRe, nSyn = min(nRe, len(rest)/8), min(nSyn, len(rest)/8)
	}
	// A quarter of the re-captures are of wcxb pages: listings, threads,
	// products and documents whose re-captures differ in what changes
	// between crawls (WCXBShare).
	nWC := 0
	if len(wc) > 0 {
		nWC = nRe * WCXBShare / 100
	}
	var reSrc []*entry
	for len(reSrc) < nWC && len(wc) > 0 {
		e := wc[0]
		wc = wc[1:]
		if g.framable(e) {
			reSrc = append(reSrc, e)
		}
	}
	reSrc = append(reSrc, take(nRe-len(reSrc))...)
	synSrc := take(nSyn)
	role := map[*entry]bool{}
	// Case 1: re-captures of one URL.
	for _, e := range reSrc {
		role[e] = true
		id := newCluster()
		items = append(items, &item{e: e, frame: e, variant: VarOriginal, cluster: id, cse: 1, uri: e.url})
		for k := g.copies(); k > 0; k-- {
			items = append(items, &item{e: e, frame: e, variant: VarRecapture, cluster: id, cse: 1, uri: e.url})
		}
	}
	// Case 2: the story in other frames, on other sites and on its own.
	for _, e := range synSrc {
		role[e] = true
		id := newCluster()
		items = append(items, &item{e: e, frame: e, variant: VarOriginal, cluster: id, cse: 2, uri: e.url})
		for k := g.copies(); k > 0; k-- {
			v := VarSynCross
			if g.rng.IntN(10) < 3 {
				v = VarSynSame
			}
			items = append(items, &item{e: e, variant: v, cluster: id, cse: 2})
		}
	}
	// Cases 3 and 0: every other page once.
	for _, e := range rest {
		if role[e] {
			continue
		}
		cse := 0
		if SameFrameDatasets[e.p.Dataset] && len(g.bySite[e.site]) > 1 {
			cse = 3
		}
		items = append(items, &item{e: e, frame: e, variant: VarUnique, cluster: newCluster(), cse: cse, uri: e.url})
	}
	// Crawl order: random, except that a URL's first capture comes first.
	g.rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	pos := map[string][]int{}
	for i, it := range items {
		if it.cse == 1 {
			pos[it.cluster] = append(pos[it.cluster], i)
		}
	}
	for _, ps := range pos {
		first := ps[0]
		for _, i := range ps {
			if items[i].variant == VarOriginal {
				items[first], items[i] = items[i], items[first]
				break
			}
		}
	}
	return items, nil
}

// recordID is a name-based UUID for the n-th record of the run.
func recordID(seed uint64, what string, n int) string {
	s := sha1.Sum([]byte(fmt.Sprintf("dedupbench\x00%d\x00%s\x00%d", seed, what, n)))
	s[6] = s[6]&0x0f | 0x50
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// crawlStart is the WARC-Date of the first record; file k is a crawl made k
// weeks later.
var crawlStart = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)

// chunkItems is how many records write builds and compresses at a time.
const chunkItems = 256

// plain says whether the record's payload is a page as it is (a corpus page's
// bytes, or a synthetic page): built without random numbers.
func plain(it *item) bool {
	return it.variant != VarRecapture && it.variant != VarSynCross && it.variant != VarSynSame
}

// record is a response record being written.
type record struct {
	it     *item
	id     string
	when   time.Time
	member []byte // the record as a gzip member
}

var memberWriters = sync.Pool{New: func() any {
	mw := &memberWriter{}
	mw.w = warcio.NewWriter(&mw.buf, true)
	return mw
}}

type memberWriter struct {
	buf bytes.Buffer
	w   *warcio.Writer
}

// compress makes the record's gzip member and drops its payload.
func (r *record) compress() error {
	it := r.it
	block := fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		r.when.Format(http.TimeFormat), it.ctype, len(it.body))
	block = append(block, it.body...)
	h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
		{Name: "WARC-Type", Value: "response"},
		{Name: "WARC-Record-ID", Value: r.id},
		{Name: "WARC-Date", Value: r.when.Format(time.RFC3339)},
		{Name: "WARC-Target-URI", Value: it.uri},
		{Name: "WARC-Payload-Digest", Value: warcio.SHA1Digest(it.body)},
		{Name: "Content-Type", Value: "application/http; msgtype=response"},
	}}
	mw := memberWriters.Get().(*memberWriter)
	defer memberWriters.Put(mw)
	mw.buf.Reset()
	if err := mw.w.WriteRecord(h, block); err != nil {
		return err
	}
	r.member = bytes.Clone(mw.buf.Bytes())
	it.body = nil
	return nil
}

func (g *generator) write(items []*item, sum *Summary) error {
	nf := g.cfg.Files
	per := (len(items) + nf - 1) / nf
	var labels []Label
	n := 0
	for k := 0; k < nf; k++ {
		lo, hi := k*per, min((k+1)*per, len(items))
		name := fmt.Sprintf("dedupbench-%02d.warc.gz", k)
		when := crawlStart.Add(time.Duration(k) * 7 * 24 * time.Hour)
		f, err := os.Create(filepath.Join(g.cfg.Out, name))
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		w := warcio.NewWriter(bw, true)
		info := fmt.Sprintf("software: warcdedup dedupbench\r\nformat: WARC File Format 1.1\r\n"+
			"description: near-duplicate benchmark built from ../shared/corpus (internal/bench/README.md)\r\n"+
			"seed: %d\r\nlabels: labels.jsonl\r\n", g.cfg.Seed)
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "warcinfo"},
			{Name: "WARC-Record-ID", Value: recordID(g.cfg.Seed, "warcinfo", k)},
			{Name: "WARC-Date", Value: when.Format(time.RFC3339)},
			{Name: "WARC-Filename", Value: name},
			{Name: "Content-Type", Value: "application/warc-fields"},
		}}
		err = w.WriteRecord(h, []byte(info))
		for a := lo; a < hi && err == nil; a += chunkItems {
			batch := items[a:min(a+chunkItems, hi)]
			// Payloads that need no random numbers are built in parallel; the
			// others in crawl order, each after its record's date is drawn.
			err = parallel(len(batch), func(j int) error {
				if it := batch[j]; plain(it) {
					return g.build(it, time.Time{})
				}
				return nil
			})
			recs := make([]record, len(batch))
			for j := 0; j < len(batch) && err == nil; j++ {
				it := batch[j]
				when = when.Add(time.Duration(1+g.rng.IntN(30)) * time.Second)
				if !plain(it) {
					if err = g.build(it, when); err != nil {
						break
					}
				}
				recs[j] = record{it: it, id: recordID(g.cfg.Seed, "response", n), when: when}
				n++
				site := sitekey.FromURL(it.uri)
				if site == "" {
					site = it.frame.site
				}
				labels = append(labels, Label{RecordID: recs[j].id, URI: it.uri, Date: when.Format(time.RFC3339), File: name,
					Index: a + j - lo + 1, Cluster: it.cluster, Case: it.cse, Variant: it.variant, Site: site,
					Short: it.e.p.Short(), Lang: it.e.p.Lang, Source: it.e.p.Key(), Frame: it.frame.corpusPage().Key(),
					Synthetic: it.e.syn != nil})
			}
			if err == nil {
				err = parallel(len(recs), func(j int) error { return recs[j].compress() })
			}
			for j := 0; j < len(recs) && err == nil; j++ {
				_, err = bw.Write(recs[j].member)
			}
		}
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sum.Files = append(sum.Files, name)
	}
	f, err := os.Create(filepath.Join(g.cfg.Out, "labels.jsonl"))
	if err != nil {
		return err
	}
	err = WriteLabels(f, labels)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	sum.Labels = "labels.jsonl"
	for i := range items {
		items[i].label = labels[i]
	}
	return err
}

// build makes the record's payload.
func (g *generator) build(it *item, when time.Time) error {
	switch it.variant {
	case VarRecapture:
		return g.buildRecapture(it, when)
	case VarSynCross, VarSynSame:
		return g.buildSyndicated(it)
	}
	b, err := g.readHTML(it.frame)
	if err != nil {
		return err
	}
	cs, _ := g.charset(it.frame)
	it.body, it.ctype = b, cs.contentType(b)
	return nil
}

func (g *generator) buildRecapture(it *item, when time.Time) error {
	e := it.e
	b, err := g.readHTML(e)
	if err != nil {
		return err
	}
	cs, _ := g.charset(e)
	root, err := parsePage(b, cs)
	if err != nil {
		return fmt.Errorf("%s: %w", e.p.Key(), err)
	}
	var related []link
	others := g.bySite[e.site]
	for _, j := range g.rng.Perm(len(others)) {
		o := others[j]
		if o == e || len(related) >= 3+g.rng.IntN(4) {
			continue
		}
		t := headline(o.text())
		if t == "" {
			continue
		}
		related = append(related, link{URL: o.url, Title: t})
	}
	recapture(root, g.rng, e.url, e.text(), when, related, e.p.Chinese())
	out, err := renderPage(root, cs)
	if err != nil {
		return fmt.Errorf("%s: %w", e.p.Key(), err)
	}
	it.body, it.ctype = out, cs.contentType(out)
	return nil
}

// buildSyndicated puts the story into the frame of another page: of another
// site in the story's script (Chinese or not), or of the story's own site.
// A same-site copy with no other page of the site uses the story's own page
// under another URL.
func (g *generator) buildSyndicated(it *item) error {
	e := it.e
	story := e.text()
	var cands []*entry
	if it.variant == VarSynSame {
		for _, o := range g.bySite[e.site] {
			if o != e && o.p.Gold != "" {
				cands = append(cands, o)
			}
		}
		g.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		cands = append(cands, e)
	} else {
		for tries := 0; tries < 200 && len(cands) < 12; tries++ {
			o := g.entries[g.rng.IntN(len(g.entries))]
			if o.site != e.site && o.p.Gold != "" && o.p.Chinese() == e.p.Chinese() && o.p.Lang != "" &&
				NewsDatasets[o.p.Dataset] {
				cands = append(cands, o)
			}
		}
		// Last resort: the story's own page under another URL.
		cands = append(cands, e)
	}
	for _, h := range cands {
		if !g.editable(h) {
			continue
		}
		b, err := g.readHTML(h)
		if err != nil {
			return err
		}
		cs, _ := g.charset(h)
		root, err := parsePage(b, cs)
		if err != nil || !syndicate(root, h.text(), story) {
			continue
		}
		out, err := renderPage(root, cs)
		if err != nil {
			continue
		}
		it.frame, it.body, it.ctype = h, out, cs.contentType(out)
		if h == e {
			it.variant = VarSynSame
			it.uri = g.uniqueURL(variantURL(e.url, g.rng))
		} else {
			it.uri = g.uniqueURL(copyURL(h.url, headline(story), g.rng))
		}
		return nil
	}
	return errors.New("no frame found for syndicated copy of " + e.p.Key())
}

func (g *generator) uniqueURL(u string) string {
	base := u
	for n := 2; g.usedURL[u]; n++ {
		sep := "?"
		if strings.Contains(base, "?") {
			sep = "&"
		}
		u = base + sep + "p=" + strconv.Itoa(n)
	}
	g.usedURL[u] = true
	return u
}

// variantURL is another URL of the same page on its own site.
func variantURL(u string, rng *rand.Rand) string {
	vs := []string{"page=all", "output=print", "utm_source=rss&utm_medium=feed", "mobile=1"}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + vs[rng.IntN(len(vs))]
}

// copyURL makes a URL for a new story on the host's site in the host's URL
// pattern: its digit runs redrawn, its slug replaced by the story's.
func copyURL(host, title string, rng *rand.Rand) string {
	u, err := url.Parse(host)
	if err != nil || u.Host == "" {
		return host + "?story=" + strconv.Itoa(rng.IntN(1e6))
	}
	// redraw changes the story numbers in s: runs of three or more digits
	// that are not years.
	redraw := func(s string) string {
		b := []byte(s)
		for i := 0; i < len(b); {
			j := i
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i {
				i++
				continue
			}
			year := j-i == 4 && (b[i] == '1' && b[i+1] == '9' || b[i] == '2' && b[i+1] == '0')
			if j-i >= 3 && !year {
				for k := i; k < j; k++ {
					b[k] = byte('0' + rng.IntN(10))
				}
			}
			i = j
		}
		return string(b)
	}
	slug := slugOf(title)
	segs := strings.Split(u.Path, "/")
	replaced := false
	for i := len(segs) - 1; i >= 0 && slug != ""; i-- {
		s := segs[i]
		ext := ""
		if j := strings.LastIndexByte(s, '.'); j > 0 {
			s, ext = s[:j], s[j:]
		}
		if strings.Count(s, "-") >= 2 || strings.Count(s, "_") >= 2 {
			segs[i] = slug + ext
			replaced = true
			break
		}
	}
	u.Path = redraw(strings.Join(segs, "/"))
	u.RawPath = ""
	u.RawQuery = redraw(u.RawQuery)
	if !replaced && u.String() == host {
		dir := u.Path[:max(strings.LastIndexByte(u.Path, '/'), 0)]
		name := slug
		if name == "" {
			name = "article"
		}
		u.Path = strings.TrimSuffix(dir, "/") + "/" + name + "-" + strconv.Itoa(100000+rng.IntN(900000)) + ".html"
	}
	return u.String()
}

// slugOf is a URL slug of a title: its first ASCII words, lower case; ""
// unless at least two of them have letters (a Chinese title has none).
func slugOf(title string) string {
	var words []string
	letters := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !(r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) {
		words = append(words, w)
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			letters++
		}
		if len(words) == 8 {
			break
		}
	}
	if letters < 2 {
		return ""
	}
	return strings.Join(words, "-")
}

func summarize(items []*item, sum *Summary) {
	sum.RecordsByCase = map[int]int{}
	sum.ClustersByCase = map[int]int{}
	sum.ByVariant = map[string]int{}
	sum.ClusterSizes = map[int]int{}
	sum.ShortByCase = map[int]int{}
	sum.ChineseByCase = map[int]int{}
	sum.DuplicatePairs = map[string]int{}
	var ls []Label
	size := map[string]int{}
	for _, it := range items {
		l := it.label
		ls = append(ls, l)
		sum.Records++
		sum.RecordsByCase[l.Case]++
		sum.ByVariant[l.Variant]++
		if size[l.Cluster] == 0 {
			sum.ClustersByCase[l.Case]++
		}
		size[l.Cluster]++
		if l.Short {
			sum.ShortByCase[l.Case]++
		}
		if l.Lang == "zh" {
			sum.ChineseByCase[l.Case]++
		}
		if l.Synthetic {
			sum.SyntheticRecords++
		}
	}
	sum.Clusters = len(size)
	for _, n := range size {
		sum.ClusterSizes[n]++
	}
	byCluster := map[string][]int{}
	bySite := map[string]int{}
	for i, l := range ls {
		byCluster[l.Cluster] = append(byCluster[l.Cluster], i)
		bySite[l.Site]++
	}
	sameSiteSameCluster := 0
	for _, ix := range byCluster {
		for a := 0; a < len(ix); a++ {
			for b := a + 1; b < len(ix); b++ {
				la, lb := ls[ix[a]], ls[ix[b]]
				rel := "cross-site"
				if la.Site == lb.Site {
					rel = "same-site"
					sameSiteSameCluster++
				}
				sum.DuplicatePairs[fmt.Sprintf("case%d/%s", la.Case, rel)]++
			}
		}
	}
	all := 0
	for _, n := range bySite {
		all += n * (n - 1) / 2
	}
	sum.SameSiteNonDuplicatePairs = all - sameSiteSameCluster
}
