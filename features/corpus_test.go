package features

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

type corpusPage struct {
	Dataset string
	ID      string `json:"id"`
	URL     string `json:"url"`
	Site    string `json:"site"`
	HostKey string `json:"host_key"`
	HTML    string `json:"html"`
	Gold    string `json:"gold"`
	Lang    string `json:"lang"`
	DupOf   any    `json:"dup_of"`
	// PageType is wcxb's label of the page (article, forum, product, ...).
	PageType string `json:"page_type"`
	body     []byte
	gold     string
}

var (
	corpusOnce  sync.Once
	corpusPages []*corpusPage
	corpusErr   error
)

// loadCorpus reads every manifest and page of the shared corpus once. Its
// tests are corpus-wide measurements: they skip with -short.
func loadCorpus(t testing.TB) []*corpusPage {
	t.Helper()
	corpusDir := testshared.Measure(t, "corpus")
	corpusOnce.Do(func() {
		manifests, _ := filepath.Glob(filepath.Join(corpusDir, "*", "manifest.jsonl"))
		for _, m := range manifests {
			ds := filepath.Base(filepath.Dir(m))
			f, err := os.Open(m)
			if err != nil {
				corpusErr = err
				return
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				p := &corpusPage{Dataset: ds}
				if err := json.Unmarshal(sc.Bytes(), p); err != nil {
					corpusErr = err
					return
				}
				if p.body, err = readGz(filepath.Join(corpusDir, ds, p.HTML)); err != nil {
					corpusErr = err
					return
				}
				if p.Gold != "" {
					g, err := os.ReadFile(filepath.Join(corpusDir, ds, p.Gold))
					if err != nil {
						corpusErr = err
						return
					}
					p.gold = string(g)
				}
				corpusPages = append(corpusPages, p)
			}
			f.Close()
		}
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusPages
}

func readGz(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func allFamilies() Config {
	c := DefaultConfig()
	c.Families = FamSpotSigs | FamSimhash | FamSpotSimhash | FamAF | FamShingles | FamQGrams
	return c
}

// goldTerms returns the distinct Henzinger terms of a plain text, normalized like
// page text.
func goldTerms(s string) map[string]bool {
	e, _ := NewExtractor(DefaultConfig())
	e.text = e.text[:0]
	e.appendText([]byte(s))
	out := map[string]bool{}
	t := e.text
	for i := 0; i < len(t); {
		r, n := utf8.DecodeRune(t[i:])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			i += n
			continue
		}
		j := i
		for j < len(t) {
			r, n := utf8.DecodeRune(t[j:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) || class(r) == cCJK {
				break
			}
			j += n
		}
		if j == i { // a CJK character: a term of its own
			j = i + n
		}
		out[string(t[i:j])] = true
		i = j
	}
	return out
}

// TestCorpus extracts every page of the shared corpus with every family on. Each
// page with gold text must give non-empty features, and most of the gold text's
// terms must appear among the page's terms (decoding and tokenization are right:
// mojibake or glued words would lose them).
func TestCorpus(t *testing.T) {
	pages := loadCorpus(t)
	e, err := NewExtractor(allFamilies())
	if err != nil {
		t.Fatal(err)
	}
	var covs []float64
	low := 0
	for _, p := range pages {
		d := e.Extract(p.body, "", p.URL)
		name := p.Dataset + "/" + p.HTML
		// Round trip of every real Doc.
		b, _ := d.MarshalBinary()
		var d2 Doc
		if err := d2.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: unmarshal: %v", name, err)
		}
		if len(bytes.TrimSpace([]byte(p.gold))) == 0 {
			continue
		}
		if d.Terms == 0 || d.Words == 0 || d.Simhash384 == [6]uint64{} || len(d.QGrams) == 0 || d.Supershingles == [6]uint64{} {
			t.Errorf("%s: gold text of %d bytes but empty features: terms %d words %d qgrams %d",
				name, len(p.gold), d.Terms, d.Words, len(d.QGrams))
			continue
		}
		gt := goldTerms(p.gold)
		pt := goldTerms(string(e.Text()))
		found := 0
		for w := range gt {
			if pt[w] {
				found++
			}
		}
		cov := float64(found) / float64(max(1, len(gt)))
		covs = append(covs, cov)
		if cov < 0.9 {
			low++
			t.Logf("%s (%s): only %.2f of %d gold terms in the page text", name, d.Charset, cov, len(gt))
		}
	}
	slices.Sort(covs)
	t.Logf("%d pages, %d with gold; gold-term coverage min %.3f p1 %.3f p5 %.3f median %.3f; %d below 0.9",
		len(pages), len(covs), covs[0], covs[len(covs)/100], covs[len(covs)/20], covs[len(covs)/2], low)
	// Measured: p5 0.98, median 1.00. The pages below 0.9 were read by eye: their
	// gold glues words the page separates by line breaks (cleaneval fas.org,
	// freshmeat), holds CSS (l3s javno.com) or comes from another capture of the
	// story (l3s indiafm.com); none is a decoding or tokenizing error.
	if p5 := covs[len(covs)/20]; p5 < 0.95 {
		t.Errorf("5th percentile of gold-term coverage %.3f < 0.95", p5)
	}
	if med := covs[len(covs)/2]; med < 0.99 {
		t.Errorf("median gold-term coverage %.3f < 0.99", med)
	}
}

// TestCorpusChinese checks that Chinese pages (GB2312/GBK/UTF-8, some without a
// declared charset) decode to Chinese text: nearly every Han character of the gold
// text must occur in the extracted text, and CJK terms must be a good part of all
// terms.
func TestCorpusChinese(t *testing.T) {
	pages := loadCorpus(t)
	e, err := NewExtractor(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pages {
		if p.Dataset != "chinese-wced" && p.Dataset != "cx-163" {
			continue
		}
		gold := map[rune]bool{}
		for _, r := range p.gold {
			if unicode.Is(unicode.Han, r) {
				gold[r] = true
			}
		}
		if len(gold) < 20 {
			continue
		}
		n++
		d := e.Extract(p.body, "", p.URL)
		text := map[rune]bool{}
		for _, r := range string(e.Text()) {
			text[r] = true
		}
		found := 0
		for r := range gold {
			if text[r] {
				found++
			}
		}
		cov := float64(found) / float64(len(gold))
		if cov < 0.95 || d.CJK*4 < d.Terms {
			t.Errorf("%s/%s (%s): %.2f of %d gold Han characters found, %d of %d terms CJK",
				p.Dataset, p.HTML, d.Charset, cov, len(gold), d.CJK, d.Terms)
		}
		if !d.SpotComparable {
			t.Errorf("%s/%s: Chinese page not SpotSigs-comparable (%d spots)", p.Dataset, p.HTML, d.Spots.Len())
		}
	}
	if n < 100 {
		t.Errorf("only %d Chinese pages with gold text checked", n)
	}
}
