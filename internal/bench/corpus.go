package bench

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Page is one page of the shared corpus, as its dataset's manifest.jsonl
// describes it.
type Page struct {
	Dataset   string `json:"-"`
	ID        string `json:"id"`
	URL       string `json:"url"`
	Site      string `json:"site"`
	HostKey   string `json:"host_key"`
	Lang      string `json:"lang"`
	HTML      string `json:"html"` // path relative to the dataset folder
	Gold      string `json:"gold"` // path relative to the dataset folder, "" if none
	GoldChars int    `json:"gold_chars"`

	root string // the corpus folder
}

// Key names the page across datasets: "dataset/id".
func (p *Page) Key() string { return p.Dataset + "/" + p.ID }

// Short reports whether the page's gold text is under ShortChars characters.
func (p *Page) Short() bool { return p.Gold != "" && p.GoldChars < ShortChars }

// Chinese reports whether the page's gold text is Chinese.
func (p *Page) Chinese() bool { return p.Lang == "zh" }

// ShortChars is the gold-text length under which a page counts as short
// (case 4 of labels.go).
const ShortChars = 600

// ReadHTML returns the page's HTML bytes as stored, in their original encoding.
func (p *Page) ReadHTML() ([]byte, error) {
	f, err := os.Open(filepath.Join(p.root, p.Dataset, p.HTML))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Key(), err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Key(), err)
	}
	return b, nil
}

// ReadGold returns the page's gold main text (UTF-8), or "" if it has none.
func (p *Page) ReadGold() (string, error) {
	if p.Gold == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(p.root, p.Dataset, p.Gold))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Datasets are the corpus folders the generator reads, in a fixed order.
var Datasets = []string{
	"chinese-wced", "cleaneval-dev", "cleaneval-final", "cleanportaleval", "cx-163",
	"cx-bbc", "dragnet", "l3s-gn1", "mozilla-readability", "scrapinghub-aeb", WCXBDir,
}

// SameFrameDatasets hold many different articles of one site in one template
// (case 3 of labels.go).
var SameFrameDatasets = map[string]bool{
	"dragnet": true, "l3s-gn1": true, "cleanportaleval": true, "cx-bbc": true, "cx-163": true,
	WCXBDir: true, // pages of one shop, forum or documentation site
}

// Corpus is the shared corpus: its pages and the labelled pairs of _pairs/.
type Corpus struct {
	Root     string
	datasets map[string]bool  // the datasets read
	Pages    []*Page          // in dataset order, then manifest order
	ByKey    map[string]*Page // by Page.Key
	Pairs    []Pair
}

// Pair is one line of _pairs/gold_text_overlap_pairs.jsonl.
type Pair struct {
	Category    string
	Containment float64
	A, B        string // page keys
}

// LoadCorpus reads the manifests and the pairs file under root.
func LoadCorpus(root string) (*Corpus, error) {
	c := &Corpus{Root: root, ByKey: map[string]*Page{}, datasets: map[string]bool{}}
	for _, ds := range Datasets {
		f, err := os.Open(filepath.Join(root, ds, "manifest.jsonl"))
		if errors.Is(err, os.ErrNotExist) && ds == WCXBDir {
			continue // a corpus from before the wcxb pages joined it
		}
		if err != nil {
			return nil, err
		}
		c.datasets[ds] = true
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue
			}
			p := &Page{Dataset: ds, root: root}
			if err := json.Unmarshal(sc.Bytes(), p); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s/manifest.jsonl: %w", ds, err)
			}
			c.Pages = append(c.Pages, p)
			c.ByKey[p.Key()] = p
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if len(c.Pages) == 0 {
		return nil, fmt.Errorf("no pages under %s", root)
	}
	f, err := os.Open(filepath.Join(root, "_pairs", "gold_text_overlap_pairs.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var raw struct {
			Category    string  `json:"category"`
			Containment float64 `json:"containment"`
			A, B        struct {
				Dataset string `json:"dataset"`
				ID      string `json:"id"`
			}
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("_pairs: %w", err)
		}
		c.Pairs = append(c.Pairs, Pair{raw.Category, raw.Containment,
			raw.A.Dataset + "/" + raw.A.ID, raw.B.Dataset + "/" + raw.B.ID})
	}
	return c, sc.Err()
}

// RealPairCategories are the _pairs categories that are true duplicates
// (case 5 of labels.go).
var RealPairCategories = map[string]bool{
	"cross_site_same_core": true, "same_site_near_duplicate": true, "same_url_recrawl": true,
}

// excluded returns the pages the benchmark leaves out, with the reason:
// Readability's synthetic lorem-ipsum tests, the CleanEval page that is in both
// sets, and the second page of every partial-overlap pair except the nfl.com
// ones, which _pairs/README.md says are same-frame non-duplicates: a pair that
// shares 50-80% of its text is neither clearly a duplicate nor clearly not.
func (c *Corpus) excluded() map[string]string {
	ex := map[string]string{}
	for _, p := range c.Pairs {
		switch p.Category {
		case "readability_synthetic_testcase_overlap":
			ex[p.A] = "synthetic test page"
			ex[p.B] = "synthetic test page"
		case "identical_html_dataset_duplicate":
			ex[p.B] = "same HTML as " + p.A
		case "cross_site_partial_overlap", "same_site_partial_overlap":
			if a := c.ByKey[p.A]; a != nil && strings.Contains(a.HostKey, "nfl.com") {
				continue
			}
			ex[p.B] = "partial overlap with " + p.A
		}
	}
	return ex
}

// realClusters groups the pages of the real duplicate pairs (union of the
// pairs), each group sorted, the groups in order of their first key.
func (c *Corpus) realClusters(ex map[string]string) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		parent[x] = x
		return x
	}
	for _, p := range c.Pairs {
		if !RealPairCategories[p.Category] || ex[p.A] != "" || ex[p.B] != "" {
			continue
		}
		if c.ByKey[p.A] == nil || c.ByKey[p.B] == nil {
			continue
		}
		ra, rb := find(p.A), find(p.B)
		if ra != rb {
			parent[ra] = rb
		}
	}
	groups := map[string][]string{}
	for k := range parent {
		r := find(k)
		groups[r] = append(groups[r], k)
	}
	var out [][]string
	for _, g := range groups {
		sort.Strings(g)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
