package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
	"github.com/warcdedup/warcdedup/sitekey"
	"github.com/warcdedup/warcdedup/warcio"
)

// The wcxb set: the corpus's 1,138 modern pages of other kinds than news
// (shops, forums, documentation, service pages), written as they are into
// one WARC file with labels, so that compare and warcdedup run on it as on
// the benchmark. It has almost no duplicates: it measures how many different
// pages a method would merge.

// WCXBDir is the corpus folder of the wcxb pages.
const WCXBDir = "wcxb"

// WCXBGoldJaccard is the resemblance of two pages' gold texts (word
// 5-shingles of the normalized text, Shingles) from which they count as
// duplicates. On the corpus one pair reaches it (two SKUs of one product
// page, 0.93); the next most similar gold texts are at 0.56, so any
// value between the two draws the same line.
const WCXBGoldJaccard = 0.8

// wcxbPage is one line of wcxb/manifest.jsonl.
type wcxbPage struct {
	ID        string  `json:"id"`
	URL       string  `json:"url"`
	Site      string  `json:"site"`
	HTML      string  `json:"html"`
	Gold      string  `json:"gold"`
	Lang      *string `json:"lang"`
	GoldChars int     `json:"gold_chars"`
	DupOf     *string `json:"dup_of"`
	PageType  string  `json:"page_type"`
}

// WCXBSummary counts what GenerateWCXB wrote.
type WCXBSummary struct {
	Files    []string `json:"files"`
	Labels   string   `json:"labels"`
	Records  int      `json:"records"`
	Clusters int      `json:"clusters"`
	// DupOf counts the pages the manifest marks as copies of another,
	// GoldSimilar the pairs of pages whose gold texts reach WCXBGoldJaccard,
	// NoGold the pages without a gold text (each its own cluster unless
	// dup_of says otherwise).
	DupOf       int            `json:"dup_of"`
	GoldSimilar int            `json:"gold_similar_pairs"`
	NoGold      int            `json:"no_gold"`
	TruePairs   int            `json:"duplicate_pairs"`
	ByType      map[string]int `json:"records_by_page_type"`
}

// GenerateWCXB writes the wcxb pages of the corpus folder into out as
// wcxb-00.warc.gz (a warcinfo record, then one response a page, in manifest
// order, with the page's bytes and an HTTP Content-Type saying its charset as
// the benchmark's do), labels.jsonl and summary.json. Two pages are in one
// cluster when the manifest says one is dup_of the other, or their gold texts
// have a resemblance of at least WCXBGoldJaccard (and through chains of
// these).
func GenerateWCXB(corpus, out string) (*WCXBSummary, error) {
	set, err := loadWCXB(corpus)
	if err != nil {
		return nil, err
	}
	pages, short, find := set.pages, set.short, set.root
	sum := &WCXBSummary{ByType: map[string]int{}, DupOf: set.dupOf, GoldSimilar: set.goldSimilar, NoGold: set.noGold}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	name := "wcxb-00.warc.gz"
	f, err := os.Create(filepath.Join(out, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	w := warcio.NewWriter(bw, true)
	when := crawlStart
	info := "software: warcdedup dedupbench\r\nformat: WARC File Format 1.1\r\n" +
		"description: the wcxb pages of ../shared/corpus as they are (internal/bench/README.md)\r\nlabels: labels.jsonl\r\n"
	err = w.WriteRecord(&warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
		{Name: "WARC-Type", Value: "warcinfo"},
		{Name: "WARC-Record-ID", Value: recordID(0, "wcxb-warcinfo", 0)},
		{Name: "WARC-Date", Value: when.Format(time.RFC3339)},
		{Name: "WARC-Filename", Value: name},
		{Name: "Content-Type", Value: "application/warc-fields"},
	}}, []byte(info))
	if err != nil {
		return nil, err
	}
	var labels []Label
	clusters := map[int]int{}
	for i, p := range pages {
		body, err := (&Page{Dataset: WCXBDir, ID: p.ID, HTML: p.HTML, root: corpus}).ReadHTML()
		if err != nil {
			return nil, err
		}
		lang := ""
		if p.Lang != nil {
			lang = *p.Lang
		}
		// A page without a URL in the manifest gets one as the benchmark's do.
		uri := pageURL(&Page{Dataset: WCXBDir, ID: p.ID, URL: p.URL, Site: p.Site, Lang: lang})
		when = when.Add(time.Second)
		id := recordID(0, "wcxb-response", i)
		ctype := detectCharset(body).contentType(body)
		if err := writeResponse(w, id, uri, when, ctype, body); err != nil {
			return nil, err
		}
		site := sitekey.FromURL(uri)
		if site == "" {
			site = p.Site
		}
		root := find(i)
		clusters[root]++
		labels = append(labels, Label{RecordID: id, URI: uri, Date: when.Format(time.RFC3339), File: name, Index: i + 1,
			Cluster: "wcxb/" + pages[root].ID, Case: 0, Variant: VarUnique, Site: site, Short: short[i], Lang: lang,
			Source: WCXBDir + "/" + p.ID, Frame: WCXBDir + "/" + p.ID, PageType: p.PageType})
		sum.ByType[p.PageType]++
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	sum.Files = []string{name}
	sum.Records = len(labels)
	sum.Clusters = len(clusters)
	for _, n := range clusters {
		sum.TruePairs += n * (n - 1) / 2
	}
	lf, err := os.Create(filepath.Join(out, "labels.jsonl"))
	if err != nil {
		return nil, err
	}
	err = WriteLabels(lf, labels)
	if cerr := lf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sum.Labels = "labels.jsonl"
	sb, _ := json.MarshalIndent(sum, "", "  ")
	return sum, os.WriteFile(filepath.Join(out, "summary.json"), append(sb, '\n'), 0o644)
}

// PageTypes are the page types of the labels, sorted.
func PageTypes(ls []Label) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range ls {
		if l.PageType != "" && !seen[l.PageType] {
			seen[l.PageType] = true
			out = append(out, l.PageType)
		}
	}
	sort.Strings(out)
	return out
}

// writeResponse writes a response record of an HTTP 200 response with the
// given Content-Type and body, as the benchmark's records are.
func writeResponse(w *warcio.Writer, id, uri string, when time.Time, ctype string, body []byte) error {
	block := fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		when.Format(http.TimeFormat), ctype, len(body))
	block = append(block, body...)
	return w.WriteRecord(&warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
		{Name: "WARC-Type", Value: "response"},
		{Name: "WARC-Record-ID", Value: id},
		{Name: "WARC-Date", Value: when.Format(time.RFC3339)},
		{Name: "WARC-Target-URI", Value: uri},
		{Name: "WARC-Payload-Digest", Value: warcio.SHA1Digest(body)},
		{Name: "Content-Type", Value: "application/http; msgtype=response"},
	}}, block)
}

// wcxbSet is the wcxb manifest with its clusters: pages joined by dup_of
// links and near-identical gold texts (WCXBGoldJaccard), through chains of
// these.
type wcxbSet struct {
	pages                      []wcxbPage
	short                      []bool
	root                       func(i int) int // the cluster's representative page
	dupOf, goldSimilar, noGold int
}

// wcxbSets holds each corpus folder's wcxbSet once read: finding its
// clusters compares every pair of gold texts (4 of the 6 CPU-seconds of a
// small Generate), the result is the same each time, and the tests
// generate many sets in one process.
var wcxbSets struct {
	sync.Mutex
	m map[string]*wcxbSet
}

// loadWCXB returns the wcxb pages of the corpus folder and their clusters.
// The set is shared: it is read, never changed.
func loadWCXB(corpus string) (*wcxbSet, error) {
	wcxbSets.Lock()
	defer wcxbSets.Unlock()
	if s := wcxbSets.m[corpus]; s != nil {
		return s, nil
	}
	s, err := readWCXB(corpus)
	if err != nil {
		return nil, err
	}
	if wcxbSets.m == nil {
		wcxbSets.m = map[string]*wcxbSet{}
	}
	wcxbSets.m[corpus] = s
	return s, nil
}

func readWCXB(corpus string) (*wcxbSet, error) {
	dir := filepath.Join(corpus, WCXBDir)
	b, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	var pages []wcxbPage
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var p wcxbPage
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", WCXBDir, n+1, err)
		}
		pages = append(pages, p)
	}
	set := &wcxbSet{pages: pages}
	// Clusters: dup_of links and near-identical gold texts.
	parent := make([]int, len(pages))
	byID := map[string]int{}
	for i := range pages {
		parent[i] = i
		byID[pages[i].ID] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	golds := make([]features.Bag, len(pages))
	short := make([]bool, len(pages))
	for i, p := range pages {
		if p.DupOf != nil && *p.DupOf != "" {
			j, ok := byID[*p.DupOf]
			if !ok {
				return nil, fmt.Errorf("%s %s: dup_of %s is not in the manifest", WCXBDir, p.ID, *p.DupOf)
			}
			union(i, j)
			set.dupOf++
		}
		if p.Gold == "" {
			set.noGold++
			continue
		}
		g, err := os.ReadFile(filepath.Join(dir, p.Gold))
		if err != nil {
			return nil, err
		}
		short[i] = p.GoldChars < ShortChars
		golds[i] = features.BagOf(Shingles(string(g), ShingleWords))
	}
	// The bags are sets (every count 1), so the matcher's multi-set Jaccard
	// is their set Jaccard.
	similar, _, err := matcher.AllPairs(WCXBGoldJaccard, golds)
	if err != nil {
		return nil, err
	}
	for _, pr := range similar {
		union(int(pr.A), int(pr.B))
	}
	set.goldSimilar = len(similar)

	// Each page's representative, found once: the set is shared, and
	// find compresses paths as it goes.
	roots := make([]int, len(pages))
	for i := range roots {
		roots[i] = find(i)
	}
	set.short, set.root = short, func(i int) int { return roots[i] }
	return set, nil
}
