package dedup

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// ukwaRecrawl is the ukwa crawl of gov.uk pages and its re-crawl a few minutes
// later, in the shared folder's warcs/.
const ukwaRecrawl = "warcs/ukwa+webarchive-discovery/warc-indexer/src/test/resources/gov.uk-revisit-warcs/"

var ukwaFiles = []string{"BL-20140325121225068-00000-32090~opera~8443.warc.gz", "BL-20140325122341434-00000-32090~opera~8443.warc.gz"}

// page is a real page of the corpus, as a crawler would have stored it: the
// corpus file html, or body when set (a page edited by the test).
type page struct {
	id, url, html, body string
}

func loadHTML(t testing.TB, rel string) []byte {
	t.Helper()
	f, err := os.Open(testshared.Path(t, "corpus/"+rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pagesWARC writes the pages as 200 responses, in order, as one WARC.
func pagesWARC(t *testing.T, pages []page) []byte { return pagesWARCb(t, pages) }

func pagesWARCb(t testing.TB, pages []page) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, false)
	for i, p := range pages {
		body := []byte(p.body)
		if p.body == "" {
			body = loadHTML(t, p.html)
		}
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:page-%d-%s>", i, p.id)},
			{Name: "WARC-Date", Value: fmt.Sprintf("2026-01-01T%02d:%02d:%02dZ", i/3600%24, i/60%60, i%60)},
			{Name: "WARC-Target-URI", Value: p.url},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		block := append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", len(body))), body...)
		if err := w.WriteRecord(h, block); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// nearFoundSims runs the pipeline and returns, for each input position, the
// position of the record it was found to duplicate or to be in containment
// with (see containShare), or -1, and its report line.
func nearFoundSims(t *testing.T, opts Options, pages []page) ([]int, Stats, []Duplicate) {
	t.Helper()
	in := pagesWARC(t, pages)
	var out, rep bytes.Buffer
	opts.Report = &rep
	d := New(opts)
	if err := d.Run(bytes.NewReader(in), "pages", &out, false); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil { // the report's lines are written at Close
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, p := range pages {
		pos[fmt.Sprintf("<urn:uuid:page-%d-%s>", i, p.id)] = i
	}
	found := make([]int, len(pages))
	dups := make([]Duplicate, len(pages))
	for i := range found {
		found[i] = -1
	}
	dec := json.NewDecoder(&rep)
	for {
		var dup Duplicate
		if err := dec.Decode(&dup); err != nil {
			break
		}
		if dup.Kind == "duplicate" || dup.Kind == "containment" {
			found[pos[dup.RecordID]] = pos[dup.KeptID]
			dups[pos[dup.RecordID]] = dup
		}
	}
	return found, d.Stats, dups
}

type pairSide struct {
	Dataset, ID, URL, HTML string
	HostKey                string `json:"host_key"`
}

func (s pairSide) page() page {
	u := s.URL
	if u == "" && s.HostKey != "" {
		// The corpus does not know this page's URL, only its host (msnbc.com
		// for one of the cross-site pairs). A crawler always records one, and a
		// response without a WARC-Target-URI is not eligible for replacement,
		// so the test gives it one on its host.
		u = "http://" + s.HostKey + "/corpus/" + strings.ReplaceAll(s.ID, "/", "_")
	}
	return page{id: s.Dataset + "-" + strings.ReplaceAll(s.ID, "/", "_"), url: u, html: s.HTML}
}

func readPairs(t *testing.T) []struct {
	Category string
	A, B     pairSide
} {
	f, err := os.Open(testshared.Path(t, "corpus/_pairs/gold_text_overlap_pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []struct {
		Category string
		A, B     pairSide
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p struct {
			Category string
			A, B     pairSide
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestRealPairs: the real copies in the shared corpus's _pairs are found as near
// duplicates, each pair on its own (the later page refers to the earlier).
func TestRealPairs(t *testing.T) {
	want := map[string]bool{"cross_site_same_core": true, "same_site_near_duplicate": true, "same_url_recrawl": true}
	hits := map[string]int{}
	total := map[string]int{}
	contained := 0 // found as a containment (annotated), not as a near duplicate
	for _, p := range readPairs(t) {
		if !want[p.Category] {
			continue
		}
		found, _, dups := nearFoundSims(t, DefaultOptions(), []page{p.A.page(), p.B.page()})
		total[p.Category]++
		if found[1] == 0 {
			hits[p.Category]++
			if dups[1].Kind == "containment" {
				contained++
			}
			t.Logf("found %s: %s vs %s (%s %s %.2f, containment %.2f)", p.Category, p.A.URL, p.B.URL,
				dups[1].Kind, dups[1].Method, dups[1].Similarity, dups[1].Containment)
		} else {
			t.Logf("missed %s: %s vs %s", p.Category, p.A.URL, p.B.URL)
		}
	}
	for c := range want {
		t.Logf("%s: found %d of %d", c, hits[c], total[c])
	}
	// What the default thresholds reach, measured; a change that finds fewer
	// fails here (see the note for the misses and why).
	if hits["same_url_recrawl"] < total["same_url_recrawl"] {
		t.Errorf("re-crawls of one URL missed")
	}
	// 8 of 8 same-site, 10 of 10 cross-site, three of them as containments,
	// kept whole and reported: a long msn.com article holding the cbsnews.com
	// Earhart story (Jaccard 0.20 on their content signatures), nhl.com's
	// round-up of a night's games holding its story of one game (0.59; a
	// revisit would lose the other games), and wjla.com's longer version of
	// an AP story holding abcnews.go.com's shorter one (0.43: more of its
	// own than it shares, the wire's later paragraphs, which a revisit
	// would lose).
	for _, c := range []string{"same_site_near_duplicate", "cross_site_same_core"} {
		if hits[c] < total[c] {
			t.Errorf("%s: %d of %d found", c, hits[c], total[c])
		}
	}
	if contained > 3 {
		t.Errorf("%d real pairs found only as containments, want at most 3: near duplicates became annotations", contained)
	}
}

// TestSameFrameDifferentStory: different articles of one site, in the same
// template, are not near duplicates. Pairs the corpus marks as overlapping are
// left out (they may be real copies).
func TestSameFrameDifferentStory(t *testing.T) {
	testshared.Measure(t, "corpus")
	overlap := map[string]bool{}
	for _, p := range readPairs(t) {
		overlap[p.A.page().id+"|"+p.B.page().id] = true
		overlap[p.B.page().id+"|"+p.A.page().id] = true
	}
	type mline struct{ ID, URL, Site, HTML string }
	pairs, fps := 0, 0
	for _, ds := range []string{"cleanportaleval", "cx-bbc", "cx-163", "dragnet", "l3s-gn1"} {
		f, err := os.Open(testshared.Path(t, "corpus/"+ds+"/manifest.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		bySite := map[string][]page{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m mline
			json.Unmarshal(sc.Bytes(), &m)
			bySite[m.Site] = append(bySite[m.Site], page{id: ds + "-" + m.ID, url: m.URL, html: ds + "/" + m.HTML})
		}
		f.Close()
		sites := make([]string, 0, len(bySite))
		for s, ps := range bySite {
			if len(ps) >= 5 {
				sites = append(sites, s)
			}
		}
		sort.Strings(sites)
		for _, s := range sites {
			ps := bySite[s]
			if len(ps) > 40 {
				ps = ps[:40]
			}
			found, _, dups := nearFoundSims(t, DefaultOptions(), ps)
			n := len(ps)
			pairs += n * (n - 1) / 2
			for i, k := range found {
				if k < 0 || overlap[ps[i].id+"|"+ps[k].id] {
					continue
				}
				fps++
				t.Logf("%s: %s reported as a duplicate of %s (%s %.2f)", ds, ps[i].url, ps[k].url, dups[i].Method, dups[i].Similarity)
			}
		}
	}
	t.Logf("%d same-site pairs of different stories, %d reported", pairs, fps)
	if pairs == 0 {
		t.Fatal("no site of the manifests has 5 pages: nothing was compared")
	}
	// Different articles of one site are not reported. Measured
	// 2026-11-23: none of the 8,550 pairs (5 before sidebars named so were
	// left out of the main text).
	if fps > 0 {
		t.Errorf("%d of %d same-frame pairs reported", fps, pairs)
	}
}

// TestCrossSiteFalsePositives runs whole datasets (many sites, different stories)
// through the pipeline and counts cross-site reports that the corpus does not
// list as overlapping pairs.
func TestCrossSiteFalsePositives(t *testing.T) {
	testshared.Measure(t, "corpus")
	overlap := map[string]bool{}
	for _, p := range readPairs(t) {
		overlap[p.A.page().id+"|"+p.B.page().id] = true
		overlap[p.B.page().id+"|"+p.A.page().id] = true
	}
	var ps []page
	for _, ds := range []string{"l3s-gn1", "dragnet", "cleaneval-final", "scrapinghub-aeb"} {
		f, err := os.Open(testshared.Path(t, "corpus/"+ds+"/manifest.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct{ ID, URL, HTML string }
			json.Unmarshal(sc.Bytes(), &m)
			if m.URL == "" {
				continue
			}
			ps = append(ps, page{id: ds + "-" + m.ID, url: m.URL, html: ds + "/" + m.HTML})
		}
		f.Close()
	}
	found, st, dups := nearFoundSims(t, DefaultOptions(), ps)
	n := len(ps)
	fp, known := 0, 0
	for i, k := range found {
		if k < 0 || dups[i].Relation != "cross-site" {
			continue
		}
		if overlap[ps[i].id+"|"+ps[k].id] {
			known++
			continue
		}
		fp++
		t.Logf("cross-site: %s -> %s (%s %.2f)", ps[i].url, ps[k].url, dups[i].Method, dups[i].Similarity)
	}
	t.Logf("%d pages (%d pairs): %d cross-site reports of listed pairs, %d others; %d same-site", n, n*(n-1)/2, known, fp, st.NearSameSite)
	// Measured with the defaults (2026-11-23): none.
	if n > 0 && fp > 0 {
		t.Errorf("%d cross-site reports outside the listed overlapping pages, want none", fp)
	}
}

// TestHenzingerOption runs --method=henzinger on the real pairs and the
// same-frame sets, for comparison with the SpotSigs routing (logged), and checks
// that it finds the token-only re-captures of the ukwa crawl.
func TestHenzingerOption(t *testing.T) {
	opts := DefaultOptions()
	opts.Method = MethodHenzinger
	hits, total := map[string]int{}, map[string]int{}
	for _, p := range readPairs(t) {
		switch p.Category {
		case "cross_site_same_core", "same_site_near_duplicate", "same_url_recrawl":
		default:
			continue
		}
		found, _, _ := nearFoundSims(t, opts, []page{p.A.page(), p.B.page()})
		total[p.Category]++
		if found[1] == 0 {
			hits[p.Category]++
		}
	}
	t.Logf("henzinger B+C on real pairs: found %v of %v", hits, total)

	dir := testshared.Path(t, ukwaRecrawl)
	d := New(opts)
	for _, f := range ukwaFiles {
		in, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(bytes.NewReader(in), f, io.Discard, true); err != nil {
			t.Fatal(err)
		}
	}
	if d.Stats.NearRevisits != 6 {
		t.Errorf("ukwa re-crawl: %d near revisits, want the 6 token-only changes", d.Stats.NearRevisits)
	}
}

// TestRecrawlPairNear: with the default SpotSigs routing, the second ukwa crawl's
// pages that changed only in per-request tokens become near revisits of the
// first crawl's captures of the same URLs.
func TestRecrawlPairNear(t *testing.T) {
	dir := testshared.Path(t, ukwaRecrawl)
	var rep bytes.Buffer
	opts := DefaultOptions()
	opts.Report = &rep
	d := New(opts)
	for _, f := range ukwaFiles {
		in, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Run(bytes.NewReader(in), f, io.Discard, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&rep)
	n := 0
	for {
		var dup Duplicate
		if dec.Decode(&dup) != nil {
			break
		}
		if dup.Kind == "cluster" {
			continue
		}
		n++
		if dup.URI != dup.KeptURI || !strings.HasPrefix(dup.File, "BL-20140325122341434") || dup.Relation != "same-site" {
			t.Errorf("unexpected duplicate %+v", dup)
		}
	}
	if n != 6 || d.Stats.NearRevisits != 6 {
		t.Errorf("%d duplicates reported, %d near revisits; want the 6 token-only re-captures (the 7th changed page is a 403)", n, d.Stats.NearRevisits)
	}
}

// TestContainment: the corpus's cbsnews.com Earhart story and the longer
// msn.com article that holds it are a containment, not a near duplicate, in
// either order. Both pages are kept byte for byte; the pair is reported with
// its direction, and with --near=annotate a metadata record after the later
// page names the kept one. The default output is the input, byte for byte.
func TestContainment(t *testing.T) {
	cbs := page{id: "cbs", url: "http://www.cbsnews.com/8301-201_162-57478379/latest-amelia-earhart-search-falls-short/",
		html: "dragnet/pages/cbsnews.com/100.html.gz"}
	msn := page{id: "msn", url: "http://www.msnbc.msn.com/id/48294366/ns/technology_and_science-science/t/searchers-find-no-sign-amelia-earharts-plane/",
		html: "dragnet/pages/msn.com/143.html.gz"}
	for _, tc := range []struct {
		pages []page
		dir   string // the later page's direction
		key   string // the annotation's first field
	}{
		{[]page{cbs, msn}, "contains", "contains-text-of"},
		{[]page{msn, cbs}, "contained-in", "text-contained-in"},
	} {
		in := pagesWARC(t, tc.pages)
		for _, mode := range []NearMode{NearRevisit, NearAnnotate} {
			var out, rep bytes.Buffer
			opts := DefaultOptions()
			opts.Near = mode
			opts.Report = &rep
			d := New(opts)
			if err := d.Run(bytes.NewReader(in), "pages", &out, false); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			var dup Duplicate
			if err := json.Unmarshal(rep.Bytes(), &dup); err != nil {
				t.Fatalf("report %q: %v", rep.String(), err)
			}
			later, kept := tc.pages[1], tc.pages[0]
			if dup.Kind != "containment" || dup.Direction != tc.dir || dup.URI != later.url || dup.KeptURI != kept.url ||
				dup.Relation != "cross-site" || dup.Containment < near.ContainShare || dup.Similarity >= opts.CrossSiteTau {
				t.Errorf("%s first, mode %d: report %+v", kept.id, mode, dup)
			}
			if d.Stats.Containments != 1 || d.Stats.NearRevisits != 0 || d.Stats.Revisits != 0 {
				t.Errorf("stats %+v", d.Stats)
			}
			// The records: both pages unchanged, then the annotation if asked for.
			r := warcio.NewReader(bytes.NewReader(out.Bytes()), "out")
			r.KeepRaw = true
			var types []string
			var block []byte
			for {
				rec, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				types = append(types, rec.Type())
				b, _ := io.ReadAll(r)
				if rec.Type() == "metadata" {
					block = b
					if rec.Header.Get("WARC-Refers-To") != fmt.Sprintf("<urn:uuid:page-1-%s>", later.id) {
						t.Errorf("annotation refers to %s", rec.Header.Get("WARC-Refers-To"))
					}
				}
			}
			want := "response response"
			if mode == NearAnnotate {
				want += " metadata"
				if !bytes.HasPrefix(block, []byte(tc.key+": <urn:uuid:page-0-"+kept.id+">\r\n")) ||
					!bytes.Contains(block, []byte("\r\ncontainment: 0.")) {
					t.Errorf("annotation block:\n%s", block)
				}
			} else if !bytes.Equal(out.Bytes(), in) {
				t.Errorf("default output differs from the input")
			}
			if got := strings.Join(types, " "); got != want {
				t.Errorf("records out: %s, want %s", got, want)
			}
		}
	}
}

// TestContainmentSameSite: nhl.com's story of one game and its round-up of
// the night's games, which holds the story (gold text containment 0.82), are
// a containment in either order once the site's other pages have shown its
// frame: 19 of the story's 22 content signatures are in the round-up, so
// neither replaces the other (the round-up's other games would be lost), and
// both are reported.
func TestContainmentSameSite(t *testing.T) {
	nhl := func(r string, id int) page {
		return page{id: r, url: fmt.Sprintf("http://www.nhl.com/ice/news.htm?id=%d", id), html: "dragnet/pages/nhl.com/" + r + ".html.gz"}
	}
	site := []page{nhl("R414", 644968), nhl("R415", 644942), nhl("R413", 644971), nhl("R412", 645063), nhl("R416", 644941)}
	story, roundup := nhl("R420", 644960), nhl("R419", 644961)
	for _, tc := range []struct {
		first, later page
		dir          string
	}{
		{story, roundup, "contains"},
		{roundup, story, "contained-in"},
	} {
		pages := append(append([]page{}, site...), tc.first, tc.later)
		found, st, dups := nearFoundSims(t, DefaultOptions(), pages)
		n := len(pages)
		if dup := dups[n-1]; found[n-1] != n-2 || dup.Kind != "containment" || dup.Direction != tc.dir ||
			dup.Relation != "same-site" || dup.Containment < near.ContainShare {
			t.Errorf("%s after %s: found %v, report %+v", tc.later.id, tc.first.id, found, dup)
		}
		if st.NearRevisits != 0 || st.Containments != 1 {
			t.Errorf("%s after %s: stats %+v", tc.later.id, tc.first.id, st)
		}
	}
}

// TestShortRecapture: a page with too little text for spot signatures (a
// two-sentence post of the corpus, thecuriousbrain.com R628) re-captured
// with a new comment count and time is a near duplicate of the first capture
// by its main text's word bigrams, and so is a copy on another site; a copy
// under another URL of the same site is not (see nearMatch: within a site,
// such a short "main text" is too often the site's boilerplate).
func TestShortRecapture(t *testing.T) {
	html := string(loadHTML(t, "dragnet/pages/thecuriousbrain.com/R628.html.gz"))
	recap := strings.NewReplacer("0 Comments", "3 Comments", "15:58", "16:04").Replace(html)
	if recap == html {
		t.Fatal("the page changed: no comment count or time to edit")
	}
	u := "http://thecuriousbrain.com/?p=34524"
	// The copy on another site comes before the one under another URL of the
	// same site: once that is kept too, its text is in two of the site's kept
	// pages, which makes it frame (nearIndex.isFrame).
	pages := []page{{id: "orig", url: u, body: html}, {id: "recap", url: "https://thecuriousbrain.com/?p=34524#top", body: recap},
		{id: "cross", url: "http://example.org/pixel-game-superheroes", body: strings.Replace(recap, "16:04", "17:30", 1)},
		{id: "other-url", url: u + "0", body: recap}}
	opts := DefaultOptions()
	found, st, dups := nearFoundSims(t, opts, pages)
	for i, rel := range map[int]string{1: "same-site", 2: "cross-site"} {
		if dup := dups[i]; found[i] != 0 || dup.Method != "bigrams" || dup.Relation != rel || dup.Similarity < opts.BigramsTau {
			t.Errorf("page %d: found %d, report %+v; want a %s bigram duplicate of page 0", i, found[i], dup, rel)
		}
	}
	if st.NearRevisits != 2 {
		t.Errorf("%d near revisits, want 2: the copy under another URL of the same site is kept", st.NearRevisits)
	}
	// Without the bigram route the page cannot be compared at all.
	opts.BigramsBelow = 0
	if _, st, _ = nearFoundSims(t, opts, pages); st.NearRevisits != 0 {
		t.Errorf("%d near revisits without bigrams: the page has enough spot signatures, pick another", st.NearRevisits)
	}
}

// TestBigramBoundary: a Japanese story has only the spot signatures of the
// Chinese antecedents Japanese shares (的 as a suffix): 2 on yahoo.co.jp, 4
// in a copy with one more sentence. The copy, over SpotSigs' 3, must still be
// in reach of the original's bigrams.
func TestBigramBoundary(t *testing.T) {
	html := string(loadHTML(t, "mozilla-readability/pages/yahoo.co.jp/yahoo-4.html.gz"))
	const at = "2年版ライセンスは5000円（税込）。"
	copied := strings.Replace(html, at, at+"同社は今後も積極的に対策を進め、基本的な安全を提供する方針だ。", 1)
	if copied == html {
		t.Fatal("the page changed: nowhere to add the sentence")
	}
	pages := []page{{id: "yahoo", url: "http://headlines.yahoo.co.jp/hl?a=20170309-35097838-cnetj-sci", body: html},
		{id: "copy", url: "http://www.example.jp/news/3-9-wi-fi.html", body: copied}}
	opts := DefaultOptions()
	found, st, dups := nearFoundSims(t, opts, pages)
	if found[1] != 0 || dups[1].Method != "bigrams" || dups[1].Relation != "cross-site" || st.NearRevisits != 1 {
		t.Fatalf("found %v, report %+v: want the copy as a cross-site bigram duplicate", found, dups[1])
	}
	// With bigrams only below SpotSigs' 3 signatures, the copy is out of reach.
	opts.BigramsBelow = 3 // the main text's minimum of spot signatures
	if _, st, _ = nearFoundSims(t, opts, pages); st.NearRevisits != 0 {
		t.Errorf("%d near revisits with bigrams below 3: the copy has fewer than 3 spot signatures, change the sentence", st.NearRevisits)
	}
}

// TestWCXBReplacements runs the corpus's 1,138 wcxb pages (shops, forums,
// documentation, services; none a copy of another but a few re-captures and
// mirrors) through the default pipeline in the manifest's order, and holds
// every page it replaces with a near revisit to be a copy of its kept page
// by their gold texts: word 5-shingle resemblance of at least 0.8, the bar
// dedupbench's wcxb set uses. TypeScript's handbook in an older version on
// a preview host shares 0.40 of its generics page's gold 5-shingles with
// today's, and SpotSigs measures 0.43, over the cross-site threshold: the
// two hold too much text of their own to be one (near.Index.twoDocuments).
func TestWCXBReplacements(t *testing.T) {
	dir := testshared.Measure(t, "corpus/wcxb")
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []page
	gold := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct{ ID, URL, HTML, Gold string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		p := page{id: strings.ReplaceAll(m.ID, "/", "_"), url: m.URL, html: "wcxb/" + m.HTML}
		ps = append(ps, p)
		if m.Gold != "" {
			g, err := os.ReadFile(filepath.Join(dir, m.Gold))
			if err != nil {
				t.Fatal(err)
			}
			gold[p.id] = string(g)
		}
	}
	found, st, dups := nearFoundSims(t, DefaultOptions(), ps)
	replaced, copies, wrong := 0, 0, 0
	for i, k := range found {
		if k < 0 || dups[i].Action != "revisit" {
			continue
		}
		replaced++
		r := shingleResemblance(gold[ps[i].id], gold[ps[k].id])
		switch {
		case r >= 0.8:
			copies++
		default:
			wrong++
			t.Errorf("%s replaced by %s (%s %s %.2f): gold resemblance %.2f, not a copy",
				ps[i].url, ps[k].url, dups[i].Relation, dups[i].Method, dups[i].Similarity, r)
		}
	}
	t.Logf("%d pages: %d replaced by near revisits, %d of them copies by the gold texts; %d kept with a reason, %d containments",
		len(ps), replaced, copies, st.WeakEvidence, st.Containments)
	if len(ps) != 1138 {
		t.Errorf("%d wcxb pages, want 1138", len(ps))
	}
}

// shingleResemblance is the Jaccard of the word 5-shingle sets of two texts
// (words: runs of letters and digits, lower case).
func shingleResemblance(a, b string) float64 {
	set := func(s string) map[string]bool {
		ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		m := map[string]bool{}
		for i := 0; i+5 <= len(ws); i++ {
			m[strings.Join(ws[i:i+5], " ")] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) == 0 || len(sb) == 0 {
		return 0
	}
	in := 0
	for k := range sa {
		if sb[k] {
			in++
		}
	}
	return float64(in) / float64(len(sa)+len(sb)-in)
}

// TestShortPayloadRecapture: a brief of three sentences in a bare page (a
// text-only edition, a wire brief) is a few hundred bytes; re-captured with a
// new update time it is a copy to find, so the default --min-size must let it
// in (jwarc's dedupe tool skips payloads under 256 bytes; 1,024 skipped it).
func TestShortPayloadRecapture(t *testing.T) {
	brief := func(at string) string {
		return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge closed after barge strike</title></head>` +
			`<body><h1>Bridge closed after barge strike</h1><p>Updated ` + at + `</p>` +
			`<p>The Elm Street bridge was closed to traffic on Tuesday after a barge struck one of its piers during the morning fog.</p>` +
			`<p>Inspectors from the state transportation department found cracks in the concrete and said the bridge would stay closed at least until Friday.</p>` +
			`<p>Drivers are asked to use the Main Street crossing, where police will direct traffic at rush hour.</p></body></html>`
	}
	u := "http://news.example.com/briefs/bridge-closed"
	pages := []page{{id: "first", url: u, body: brief("08:12")}, {id: "again", url: u, body: brief("16:40")}}
	if n := len(pages[0].body); n < 256 || n >= 1024 {
		t.Fatalf("the page is %d bytes: it must lie between the old and the new --min-size", n)
	}
	opts := DefaultOptions()
	found, st, dups := nearFoundSims(t, opts, pages)
	if found[1] != 0 || st.NearRevisits != 1 || dups[1].Relation != "same-site" {
		t.Errorf("found %v, %d near revisits, report %+v: want the re-capture a near revisit of the first", found, st.NearRevisits, dups[1])
	}
	opts.MinSize = 1024
	if _, st, _ = nearFoundSims(t, opts, pages); st.NearRevisits != 0 {
		t.Errorf("%d near revisits at --min-size 1024: the page is under it and must be left alone", st.NearRevisits)
	}
}
