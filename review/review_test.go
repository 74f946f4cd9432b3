package review

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/warcio"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// reportOf encodes report lines as dedup writes them.
func reportOf(t testing.TB, lines ...any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range lines {
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

const story = `The council voted on Tuesday to close the old bridge over the river for repairs that are expected to take most of the summer.
Engineers found cracks in two of the supporting piers during an inspection last month, the council said in a statement.
Traffic will be diverted through the town centre, and a temporary footbridge will be built for pedestrians and cyclists.
Local businesses said they feared the closure would keep visitors away during the busiest months of the year.`

// sample is a small report: two exact duplicates, one near duplicate of each
// action, a containment and two clusters.
func sample(t testing.TB) (string, map[string]string) {
	near := func(id string, sim float64, action, reason, rel string) dedup.Duplicate {
		return dedup.Duplicate{Kind: "duplicate", File: "crawl-1.warc.gz", URI: "https://news.example.com/" + id,
			Date: "2024-03-01T10:00:00Z", RecordID: "<urn:uuid:" + id + ">", KeptURI: "https://www.example.org/bridge",
			KeptDate: "2024-02-28T09:00:00Z", KeptID: "<urn:uuid:kept>", Method: "spotsigs", Similarity: sim,
			Relation: rel, Action: action, Reason: reason, Shared: int(sim * 40), Signatures: 40, KeptSignatures: 42}
	}
	exact := dedup.Duplicate{Kind: "duplicate", File: "crawl-1.warc.gz", URI: "https://example.org/a", RecordID: "<urn:uuid:x1>",
		KeptID: "<urn:uuid:x0>", Method: "exact", Similarity: 1, Relation: "same-site", Action: "revisit"}
	exact2 := exact
	exact2.RecordID = "<urn:uuid:x2>"
	cont := near("cont", 0.5, "report", "", "cross-site")
	cont.Kind, cont.Direction, cont.Containment, cont.Shared = "containment", "contains", 0.93, 0
	report := reportOf(t,
		exact,
		near("rev90", 0.9, "revisit", "", "cross-site"),
		near("keep80", 0.8, "keep", "weak-evidence: 3 shared content signatures", "cross-site"),
		exact2,
		near("rev70", 0.7, "revisit", "", "cross-site"),
		cont,
		near("ann95", 0.95, "annotate", "", "cross-site"),
		dedup.Cluster{Kind: "cluster", KeptID: "<urn:uuid:kept>", Size: 3},
		dedup.Cluster{Kind: "cluster", KeptID: "<urn:uuid:x0>", Size: 3},
	)
	texts := map[string]string{
		"<urn:uuid:kept>":   story,
		"<urn:uuid:rev90>":  strings.Replace(story, "Tuesday", "Wednesday", 1),
		"<urn:uuid:keep80>": strings.Replace(story, "repairs", "urgent repairs", 1) + "\nSubscribe to our newsletter.",
		"<urn:uuid:rev70>":  strings.Replace(story, "two", "three", 1),
		"<urn:uuid:cont>":   story + "\nA second story about the weather follows here.",
		// ann95 has no text
	}
	return report, texts
}

func textsOf(m map[string]string) func(string) (string, bool) {
	return func(id string) (string, bool) {
		t, ok := m[id]
		return t, ok
	}
}

func render(t testing.TB, report string, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(strings.NewReader(report), &b, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestOrder(t *testing.T) {
	report, _ := sample(t)
	rep, err := ReadReport(strings.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Decisions {
		got = append(got, d.RecordID)
	}
	want := []string{"<urn:uuid:keep80>", "<urn:uuid:ann95>", "<urn:uuid:cont>", "<urn:uuid:rev70>", "<urn:uuid:rev90>"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", got, want)
	}
	if rep.Exact != 2 || rep.Clusters != 2 {
		t.Errorf("exact %d clusters %d, want 2 and 2", rep.Exact, rep.Clusters)
	}
	if _, err := ReadReport(strings.NewReader("{\"kind\":\n")); err == nil {
		t.Error("a broken line read without error")
	}
}

func TestTier(t *testing.T) {
	for _, c := range []struct {
		d    dedup.Duplicate
		want string
	}{
		{dedup.Duplicate{Kind: "duplicate", Action: "revisit"}, "replaced"},
		{dedup.Duplicate{Kind: "duplicate", Action: "keep", Reason: "weak-evidence: 3 shared content signatures"}, "kept: weak-evidence"},
		{dedup.Duplicate{Kind: "duplicate", Action: "annotate", Reason: "weak-evidence: 2 shared content signatures"}, "kept: weak-evidence"},
		{dedup.Duplicate{Kind: "duplicate", Action: "annotate"}, "kept: annotate mode"},
		{dedup.Duplicate{Kind: "duplicate", Action: "keep"}, "kept"},
		{dedup.Duplicate{Kind: "containment", Action: "report"}, "containment"},
		{dedup.Duplicate{Kind: "containment", Action: "annotate"}, "containment"},
	} {
		if got := Tier(c.d); got != c.want {
			t.Errorf("Tier(%s %q) = %q, want %q", c.d.Action, c.d.Reason, got, c.want)
		}
	}
}

func TestPage(t *testing.T) {
	report, texts := sample(t)
	page := render(t, report, Options{Texts: textsOf(texts)})
	evil := reportOf(t, dedup.Duplicate{Kind: "duplicate", URI: `https://evil.example/"><script>alert(1)</script>`,
		KeptURI: `javascript:alert(2)//<script>`, RecordID: "<script>a</script>", KeptID: "k", Method: "spotsigs</b>",
		Similarity: 0.6, Relation: "cross-site", Action: "keep", Reason: "weak-evidence: <img src=x onerror=alert(3)>", File: "<b>f"})
	evilPage := render(t, evil, Options{Texts: textsOf(map[string]string{
		"<script>a</script>": "hello <script>alert(4)</script> world & more",
		"k":                  "hello <b>bold</b> world & more",
	})})
	for _, c := range []struct {
		name        string
		page        string
		has, hasNot []string
	}{
		{"summary", page, []string{"4 near duplicates and 1 containment listed", "2 exact duplicates (not listed)", "2 clusters",
			"kept: weak-evidence 1", "replaced 2"}, []string{"urn:uuid:x1"}},
		{"filters", page, []string{`<select id="tier">`, `<option value="replaced">replaced (2)</option>`,
			`<option value="kept: weak-evidence">`, `<option value="containment">`, `<option value="kept: annotate mode">`,
			`<input id="site" list="sites"`, `<option value="example.org">`, `<output id="selftest">`, `data-t="replaced"`,
			`data-s="news.example.com example.org"`}, nil},
		{"row", page, []string{"0.800</b>", "https://news.example.com/keep80", `<a href="https://www.example.org/bridge">`,
			"2024-02-28T09:00:00Z", "spotsigs similarity 0.800, cross-site; shared signatures 32 of 40 (kept 42)",
			"keep — kept: weak-evidence: 3 shared content signatures", "revisit — replaced",
			"report — containment, contains, 0.930 of the smaller text held in the other", "signatures 40 (kept 42)"}, nil},
		{"diff", page, []string{"<del>Tuesday</del>", "<ins>Wednesday</ins>", "<del>two</del>", "<ins>three</ins>",
			"<ins>urgent</ins>", "<ins>Subscribe to our newsletter.</ins>", "equal words",
			"The duplicate was not found in the WARC files read", "<th>kept<th>duplicate", "<th>kept<th>page kept whole"}, nil},
		{"no texts", render(t, report, Options{}), []string{"https://news.example.com/rev90"}, []string{"<table", "found in the WARC files"}},
		{"self-contained", page, []string{"<style>", "<script>"}, []string{"<link", "src=", "@import", "http://", "fetch("}},
		{"escaping", evilPage, []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;script&gt;", "&lt;img src=x onerror=alert(3)&gt;",
			"&lt;script&gt;alert(4)&lt;/script&gt;", "&amp; more", "spotsigs&lt;/b&gt;", "&lt;b&gt;f"},
			[]string{"<script>alert", "<img", `href="javascript`, "<b>bold", "<b>f"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range c.has {
				if !strings.Contains(c.page, s) {
					t.Errorf("page lacks %q", s)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(c.page, s) {
					t.Errorf("page has %q", s)
				}
			}
			if n := strings.Count(c.page, "<script"); n != 1 {
				t.Errorf("%d script elements, want the page's own only", n)
			}
		})
	}
	// Rows come least confident first.
	idx := func(s string) int { return strings.Index(page, s) }
	if !(idx("news.example.com/keep80") < idx("news.example.com/ann95") && idx("news.example.com/ann95") < idx("news.example.com/cont") &&
		idx("news.example.com/cont") < idx("news.example.com/rev70") && idx("news.example.com/rev70") < idx("news.example.com/rev90")) {
		t.Error("rows are not in review order")
	}
}

// lcs is the length of the longest common subsequence, by dynamic programming.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestDiffWords(t *testing.T) {
	check := func(a, b []string) {
		t.Helper()
		ops := diffWords(a, b)
		var ra, rb []string
		eq := 0
		for _, o := range ops {
			switch o.kind {
			case opEqual:
				if a[o.i] != b[o.j] {
					t.Fatalf("%q / %q: equal op on %q and %q", a, b, a[o.i], b[o.j])
				}
				ra, rb = append(ra, a[o.i]), append(rb, b[o.j])
				eq++
			case opDel:
				ra = append(ra, a[o.i])
			case opIns:
				rb = append(rb, b[o.j])
			}
		}
		if strings.Join(ra, " ") != strings.Join(a, " ") || strings.Join(rb, " ") != strings.Join(b, " ") {
			t.Fatalf("%q / %q: ops give %q / %q", a, b, ra, rb)
		}
		if l := lcs(a, b); eq != l {
			t.Fatalf("%q / %q: %d equal words, the LCS has %d", a, b, eq, l)
		}
	}
	for _, c := range [][2]string{
		{"", ""}, {"a", ""}, {"", "a"}, {"a b c", "a b c"}, {"a b c", "a x c"}, {"a b c d", "b c d e"},
		{"x y z", "a b c"}, {"a b a b", "b a b a"},
	} {
		check(words(c[0]), words(c[1]))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		gen := func() []string {
			ws := make([]string, rng.IntN(30))
			for k := range ws {
				ws[k] = string(rune('a' + rng.IntN(4)))
			}
			return ws
		}
		check(gen(), gen())
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"hello world", 0, "hello world", false},
		{"hello world", 20, "hello world", false},
		{"hello world again", 13, "hello world", true},
		{"héllo", 2, "h", true},
	} {
		got, cut := truncate(c.s, c.max)
		if got != c.want || cut != c.cut {
			t.Errorf("truncate(%q, %d) = %q %v, want %q %v", c.s, c.max, got, cut, c.want, c.cut)
		}
	}
}

func TestVisibleText(t *testing.T) {
	page := `<html><head><title>T</title><style>p{}</style><script>var x="<p>no</p>"</script></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<div class="menu"><a href="/a">Sport</a> <a href="/b">Weather</a> <a href="/c">Travel</a></div>
<h1>Bridge to close</h1><p>The council voted <a href="/v">on Tuesday</a> to close the bridge.</p>
<p>Caf&eacute; owners   worry.</p><footer>Copyright</footer></body></html>`
	got := VisibleText([]byte(page), "text/html; charset=utf-8")
	want := "Bridge to close\nThe council voted on Tuesday to close the bridge.\nCafé owners worry."
	if got != want {
		t.Errorf("VisibleText = %q, want %q", got, want)
	}
	latin1 := []byte("<p>Caf\xe9 cr\xe8me</p>")
	if got := VisibleText(latin1, "text/html; charset=iso-8859-1"); got != "Café crème" {
		t.Errorf("latin-1 page: %q", got)
	}
}

// writeWARC writes response records of HTML pages, by record ID.
func writeWARC(t *testing.T, path string, pages [][2]string) {
	t.Helper()
	var b bytes.Buffer
	w := warcio.NewWriter(&b, strings.HasSuffix(path, ".gz"))
	for k, p := range pages {
		body := "<html><body><p>" + p[1] + "</p></body></html>"
		block := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " +
			fmt.Sprint(len(body)) + "\r\n\r\n" + body
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: p[0]},
			{Name: "WARC-Date", Value: "2024-01-01T00:00:00Z"},
			{Name: "WARC-Target-URI", Value: fmt.Sprintf("https://example.com/%d", k)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWARCTexts: the texts come from the WARC files the report names, the
// kept record from an earlier file, and a file the report names by a path
// that is gone is found by its base name in a directory given in WARCs.
func TestWARCTexts(t *testing.T) {
	dir := t.TempDir()
	writeWARC(t, filepath.Join(dir, "a.warc.gz"), [][2]string{{"<urn:uuid:k>", "the quick brown fox jumps over the lazy dog"}})
	writeWARC(t, filepath.Join(dir, "b.warc"), [][2]string{
		{"<urn:uuid:other>", "unrelated"}, {"<urn:uuid:d>", "the quick red fox jumps over the lazy dog"}})
	report := reportOf(t,
		dedup.Duplicate{Kind: "duplicate", File: filepath.Join(dir, "a.warc.gz"), RecordID: "<urn:uuid:k0>", KeptID: "<urn:uuid:k0>", Method: "exact"},
		dedup.Duplicate{Kind: "duplicate", File: "/gone/b.warc", URI: "https://example.com/1", RecordID: "<urn:uuid:d>",
			KeptURI: "https://example.com/0", KeptID: "<urn:uuid:k>", Method: "spotsigs", Similarity: 0.8, Action: "revisit"})
	page := render(t, report, Options{ReadWARCs: true, WARCs: []string{dir}})
	for _, s := range []string{"<del>brown</del>", "<ins>red</ins>"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	texts, err := WARCTexts([]string{filepath.Join(dir, "b.warc")}, []string{"<urn:uuid:d>", "<urn:uuid:k>"}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := texts("<urn:uuid:d>"); !ok || got != "the quick" {
		t.Errorf("text of d: %q %v, want the first 9 bytes at a word boundary", got, ok)
	}
	if _, ok := texts("<urn:uuid:k>"); ok {
		t.Error("a record of a file not read has a text")
	}
}

func TestGolden(t *testing.T) {
	report, texts := sample(t)
	page := render(t, report, Options{Title: "review of a small report", Texts: textsOf(texts), Context: 4})
	golden := filepath.Join("testdata", "small.html")
	if *update {
		if err := os.WriteFile(golden, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./review/ -run TestGolden -update)", err)
	}
	if page != string(want) {
		t.Errorf("page differs from %s (regenerate with -update if the change is meant)", golden)
	}
}

// synthetic makes a report of n decisions with texts: stories of about 4 KB
// (the default cut), most with a few changed words, a tenth wholly different
// (the worst case for the page's size), spread over 200 sites.
func synthetic(t testing.TB, n int) (string, map[string]string) {
	rng := rand.New(rand.NewPCG(7, 9))
	vocab := strings.Fields(story)
	storyOf := func(words int) []string {
		ws := make([]string, words)
		for k := range ws {
			ws[k] = vocab[rng.IntN(len(vocab))]
		}
		return ws
	}
	var lines []any
	texts := map[string]string{}
	actions := []string{"revisit", "revisit", "revisit", "keep", "annotate"}
	for k := range n {
		kept := storyOf(650)
		dup := append([]string(nil), kept...)
		switch {
		case k%10 == 0:
			dup = storyOf(650)
		default:
			for range 1 + rng.IntN(8) {
				dup[rng.IntN(len(dup))] = "changed" + fmt.Sprint(rng.IntN(100))
			}
			dup = append(dup[:600], storyOf(rng.IntN(60))...)
		}
		id, kid := fmt.Sprintf("<urn:uuid:d%d>", k), fmt.Sprintf("<urn:uuid:k%d>", k)
		texts[id], texts[kid] = strings.Join(dup, " "), strings.Join(kept, " ")
		d := dedup.Duplicate{Kind: "duplicate", File: "crawl.warc.gz",
			URI: fmt.Sprintf("https://site%d.example.com/news/2024/03/story-%d.html", k%200, k), Date: "2024-03-01T10:00:00Z",
			RecordID: id, KeptURI: fmt.Sprintf("https://site%d.example.org/world/story-%d.html", (k*7)%200, k),
			KeptDate: "2024-02-28T09:00:00Z", KeptID: kid, Method: "spotsigs", Similarity: 0.4 + 0.6*rng.Float64(),
			Relation: "cross-site", Action: actions[k%len(actions)], Shared: 30, Signatures: 40, KeptSignatures: 41}
		if d.Action != "revisit" {
			d.Reason = "weak-evidence: 3 shared content signatures"
		}
		if k%7 == 0 {
			d.Kind, d.Action, d.Reason, d.Direction, d.Containment = "containment", "report", "", "contained-in", 0.9
		}
		lines = append(lines, d)
	}
	return reportOf(t, lines...), texts
}

var tierRE = regexp.MustCompile(`<details class="r" data-t="([^"]*)"`)

func TestSize(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 decisions: not in -short")
	}
	report, texts := synthetic(t, 10000)
	page := render(t, report, Options{Texts: textsOf(texts)})
	const bound = 30 << 20
	t.Logf("10,000 decisions with texts: %d bytes (%.1f MB), %d bytes a decision", len(page), float64(len(page))/(1<<20), len(page)/10000)
	if len(page) > bound {
		t.Errorf("page of 10,000 decisions is %d bytes, over %d", len(page), bound)
	}
	if n := len(tierRE.FindAllStringIndex(page, -1)); n != 10000 {
		t.Errorf("%d rows, want 10000", n)
	}
}
