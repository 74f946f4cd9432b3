package replaytest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/warcio"
)

// EnvJS names the directory where js/package.json was npm-installed (its
// node_modules holds replaywebpage and puppeteer-core). Without it the test
// looks in js/node_modules. EnvChromium may name the browser to drive.
const (
	EnvJS       = "WARCDEDUP_REPLAY_JS"
	EnvChromium = "WARCDEDUP_CHROMIUM"
	EnvArtifact = "WARCDEDUP_ARTIFACTS"
)

const (
	profileExact = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
	profileNear  = "urn:x-warcdedup:revisit:near-duplicate:1"
)

// tools finds node, the npm packages and Chromium, or says what is missing.
func tools() (node, modules, chromium string, missing []string) {
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	dirs := []string{}
	if d := os.Getenv(EnvJS); d != "" {
		dirs = append(dirs, filepath.Join(d, "node_modules"))
	}
	if d, err := filepath.Abs(filepath.Join("js", "node_modules")); err == nil {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if fileExists(filepath.Join(d, "replaywebpage", "sw.js")) && fileExists(filepath.Join(d, "puppeteer-core", "package.json")) {
			modules = d
			break
		}
	}
	if modules == "" {
		missing = append(missing, "npm packages replaywebpage and puppeteer-core ($"+EnvJS+"/node_modules or internal/replaytest/js/node_modules)")
	}
	cands := []string{os.Getenv(EnvChromium), "/usr/lib/chromium/chromium"}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			cands = append(cands, p)
		}
	}
	for _, c := range cands {
		if c != "" && fileExists(c) {
			chromium = c
			break
		}
	}
	if chromium == "" {
		missing = append(missing, "chromium (apt-get install chromium, or $"+EnvChromium+")")
	}
	return node, modules, chromium, missing
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// prose is n sentences of English made from a seed: the same seed gives the
// same text. Each sentence has articles, forms of be and have and "said",
// which SpotSigs' signatures hang on.
func prose(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 11))
	nouns := []string{"harbour", "council", "ferry", "engineer", "storm", "bridge", "market", "fisherman",
		"school", "mayor", "river", "report", "village", "museum", "train", "farmer", "library", "festival",
		"lighthouse", "baker", "volunteer", "committee", "island", "station", "garden", "budget", "tunnel"}
	adjs := []string{"old", "quiet", "busy", "northern", "wooden", "flooded", "new", "crowded", "narrow",
		"famous", "local", "empty", "restored", "coastal", "early", "late"}
	verbs := []string{"repaired", "closed", "opened", "visited", "praised", "moved", "rebuilt", "funded",
		"delayed", "painted", "measured", "inspected", "welcomed", "described"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	frames := []func() string{
		func() string {
			return fmt.Sprintf("the %s of the %s said that a %s %s was %s in the %s.", pick(nouns), pick(nouns), pick(adjs), pick(nouns), pick(verbs), pick(nouns))
		},
		func() string {
			return fmt.Sprintf("a %s had been %s by the %s, and the %s is %s to the %s.", pick(nouns), pick(verbs), pick(nouns), pick(nouns), pick(adjs), pick(nouns))
		},
		func() string {
			return fmt.Sprintf("the %s %s was %s after the %s had %s the %s %s.", pick(adjs), pick(nouns), pick(verbs), pick(nouns), pick(verbs), pick(adjs), pick(nouns))
		},
		func() string {
			return fmt.Sprintf("the %s %s has %s the %s, said the %s of the %s.", pick(adjs), pick(nouns), pick(verbs), pick(nouns), pick(nouns), pick(nouns))
		},
	}
	out := make([]string, n)
	for i := range out {
		s := frames[rng.IntN(len(frames))]()
		out[i] = strings.ToUpper(s[:1]) + s[1:]
	}
	return out
}

// paragraphs puts sentences in <p> elements of four.
func paragraphs(ss []string) string {
	var b strings.Builder
	for i := 0; i < len(ss); i += 4 {
		b.WriteString("<p>" + strings.Join(ss[i:min(i+4, len(ss))], " ") + "</p>\n")
	}
	return b.String()
}

// capture is one HTTP response to archive.
type capture struct {
	uri, date, ctype string
	body             []byte
}

func (c capture) ts() string {
	t, err := time.Parse(time.RFC3339, c.date)
	if err != nil {
		panic(err)
	}
	return t.Format("20060102150405")
}

// latin1 encodes s, which must hold only code points below 256.
func latin1(s string) []byte {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 255 {
			panic(fmt.Sprintf("%q is not in ISO-8859-1", r))
		}
		b = append(b, byte(r))
	}
	return b
}

// The pages. Each revisit's kept page has markers that the duplicate lacks
// (keptOnly) and the duplicate has markers the kept page lacks (dupOnly):
// the replay of a revisit must show the first and none of the second.
type pair struct {
	kind               string // exact, near same-site, near cross-site
	kept, dup          capture
	keptOnly, dupOnly  []string
	profile, relation  string
	screenshotThisPair bool
}

func pages() []pair {
	// Exact: a story and its byte-for-byte copy on a mirror.
	harbour := prose(1, 36)
	exactBody := []byte("<!doctype html><html><head><meta charset=utf-8><title>The harbour report</title></head><body>" +
		"<nav><a href=/>Home</a> <a href=/news>News</a></nav><article><h1>The harbour report</h1>" +
		paragraphs(harbour) + "</article><footer>Harbour News</footer></body></html>")

	// Same URL re-captured a week later: another timestamp, another ad,
	// ISO-8859-1 instead of UTF-8, and another length.
	cafe := prose(2, 40)
	cafeKept := "<!doctype html><html><head><title>Café – résumé of the week</title></head><body>" +
		"<nav><a href=/>Café Lumière</a> <a href=/menu>Menu</a></nav>" +
		"<div class=ad>Advert: fresh croissants at the boulangerie – two for one</div>" +
		"<article><h1>Café – résumé of the week</h1><p class=stamp>Updated Tuesday 09:00 – café crème €2</p>\n" +
		paragraphs(cafe) + "</article><footer>© Café Lumière</footer></body></html>"
	cafeDup := "<!doctype html><html><head><title>Café - résumé of the week</title></head><body>" +
		"<nav><a href=/>Café Lumière</a> <a href=/menu>Menu</a></nav>" +
		"<div class=ad>Advert: Ouvert tard: crêpes until midnight on Fridays and Saturdays, all summer long</div>" +
		"<article><h1>Café - résumé of the week</h1><p class=stamp>Updated Friday 17:45 - café crème 2 EUR</p>\n" +
		paragraphs(cafe) + "</article><footer>© Café Lumière</footer></body></html>"

	// Cross-site: a story copied whole into another site's frame.
	story := prose(3, 44)
	storyKept := "<!doctype html><html><head><meta charset=utf-8><title>Flooded tunnel reopens</title></head><body>" +
		"<header><b>The Daily Coast</b> <a href=/world>World</a> <a href=/local>Local</a> <a href=/sport>Sport</a></header>" +
		"<article><h1>Flooded tunnel reopens</h1><p class=byline>By the Daily Coast newsroom</p>\n" +
		paragraphs(story) + "</article><footer>Copyright The Daily Coast</footer></body></html>"
	storyDup := "<!doctype html><html><head><meta charset=utf-8><title>Aggregated: Flooded tunnel reopens | NewsHeap</title></head><body>" +
		"<div id=top>NewsHeap — all the news in one heap <a href=/trending>Trending</a> <a href=/login>Log in</a></div>" +
		"<main><h2>Flooded tunnel reopens</h2><p>Originally published elsewhere; reposted by NewsHeap.</p>\n" +
		paragraphs(story) + "</main><ul class=related><li><a href=/r1>Ten bridges to see</a><li><a href=/r2>Markets today</a></ul>" +
		"<footer>NewsHeap aggregator</footer></body></html>"

	return []pair{
		{
			kind:     "exact",
			kept:     capture{"http://news.example.com/2026/harbour.html", "2026-03-01T10:00:00Z", "text/html; charset=utf-8", exactBody},
			dup:      capture{"http://mirror.example.org/copies/harbour.html", "2026-03-02T11:00:00Z", "text/html; charset=utf-8", exactBody},
			keptOnly: []string{"The harbour report", harbour[0]},
			profile:  profileExact,
		},
		{
			kind:               "near same-site (same URL)",
			kept:               capture{"http://cafe.example.net/week.html", "2026-03-03T09:00:00Z", "text/html; charset=utf-8", []byte(cafeKept)},
			dup:                capture{"http://cafe.example.net/week.html", "2026-03-10T17:45:00Z", "text/html; charset=iso-8859-1", latin1(cafeDup)},
			keptOnly:           []string{"Café – résumé of the week", "Updated Tuesday 09:00 – café crème €2", "boulangerie", cafe[0]},
			dupOnly:            []string{"17:45", "crêpes", "Café - résumé"},
			profile:            profileNear,
			relation:           "same-site",
			screenshotThisPair: true,
		},
		{
			kind:     "near cross-site",
			kept:     capture{"http://www.dailycoast.example.com/local/tunnel.html", "2026-03-04T08:30:00Z", "text/html; charset=utf-8", []byte(storyKept)},
			dup:      capture{"http://newsheap.example.org/read/tunnel-reopens.html", "2026-03-11T12:00:00Z", "text/html; charset=utf-8", []byte(storyDup)},
			keptOnly: []string{"The Daily Coast", "By the Daily Coast newsroom", story[0]},
			dupOnly:  []string{"NewsHeap", "Ten bridges to see"},
			profile:  profileNear,
			relation: "cross-site",
		},
	}
}

func buildWARC(t *testing.T, caps []capture) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	for i, c := range caps {
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i+1)},
			{Name: "WARC-Date", Value: c.date},
			{Name: "WARC-Target-URI", Value: c.uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Payload-Digest", Value: warcio.SHA1Digest(c.body)},
		}}
		date, _ := time.Parse(time.RFC3339, c.date)
		block := "HTTP/1.1 200 OK\r\nDate: " + date.Format(http.TimeFormat) + "\r\nServer: example\r\n" +
			"Content-Type: " + c.ctype + "\r\nContent-Length: " + strconv.Itoa(len(c.body)) + "\r\n\r\n"
		if err := w.WriteRecord(h, append([]byte(block), c.body...)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// revisit is a revisit record of the output.
type revisit struct {
	uri, date, profile, relation, refURI, refDate, payloadDigest string
	http                                                         *warcio.HTTPResponse
}

func readRevisits(t *testing.T, path string) map[string]revisit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := warcio.NewReader(f, path)
	out := map[string]revisit{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading warcdedup's output: %v", err)
		}
		if rec.Type() != "revisit" {
			continue
		}
		block, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		h := rec.Header
		hr, err := warcio.ParseHTTPResponse(block)
		if err != nil {
			t.Fatalf("revisit of %s: HTTP head: %v", h.Get("WARC-Target-URI"), err)
		}
		out[h.Get("WARC-Target-URI")+" "+h.Get("WARC-Date")] = revisit{
			uri: h.Get("WARC-Target-URI"), date: h.Get("WARC-Date"), profile: h.Get("WARC-Profile"),
			relation: h.Get("WARC-Dedup-Relation"), refURI: h.Get("WARC-Refers-To-Target-URI"),
			refDate: h.Get("WARC-Refers-To-Date"), payloadDigest: h.Get("WARC-Payload-Digest"), http: hr,
		}
	}
	return out
}

// checkRevisits fails unless the output holds the intended revisits. It
// checks the near revisits' HTTP heads here: ReplayWeb.page (wabac.js's
// ArchiveDB.getResource) serves a revisit as the record it refers to,
// status, headers and payload, so a revisit head with the duplicate's
// Content-Length or charset still replays right there, though not in
// pywb, which serves the revisit's own head with the kept payload.
func checkRevisits(t *testing.T, path string, ps []pair) {
	t.Helper()
	revs := readRevisits(t, path)
	var bad []string
	for _, p := range ps {
		r, ok := revs[p.dup.uri+" "+p.dup.date]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: %s (%s) was not replaced by a revisit", p.kind, p.dup.uri, p.dup.date))
			continue
		}
		if r.profile != p.profile || r.relation != p.relation {
			bad = append(bad, fmt.Sprintf("%s: %s has WARC-Profile %q, WARC-Dedup-Relation %q; want %q, %q", p.kind, p.dup.uri, r.profile, r.relation, p.profile, p.relation))
		}
		if r.refURI != p.kept.uri || r.refDate != p.kept.date || r.payloadDigest != warcio.SHA1Digest(p.kept.body) {
			bad = append(bad, fmt.Sprintf("%s: %s refers to %s %s digest %s; want the kept %s %s %s", p.kind, p.dup.uri, r.refURI, r.refDate, r.payloadDigest, p.kept.uri, p.kept.date, warcio.SHA1Digest(p.kept.body)))
		}
		if ct, cl := r.http.Get("Content-Type"), r.http.Get("Content-Length"); ct != p.kept.ctype || cl != strconv.Itoa(len(p.kept.body)) {
			bad = append(bad, fmt.Sprintf("%s: %s's HTTP head has Content-Type %q, Content-Length %q; want the kept response's %q, %d", p.kind, p.dup.uri, ct, cl, p.kept.ctype, len(p.kept.body)))
		}
	}
	if len(revs) != len(ps) {
		bad = append(bad, fmt.Sprintf("the output has %d revisits, want %d", len(revs), len(ps)))
	}
	if len(bad) > 0 {
		t.Fatalf("warcdedup's output does not have the revisits to replay:\n  %s", strings.Join(bad, "\n  "))
	}
}

type check struct {
	Name       string `json:"name"`
	URL        string `json:"url"`
	TS         string `json:"ts"`
	Screenshot bool   `json:"screenshot"`
}

type result struct {
	Name       string            `json:"name"`
	FrameURL   string            `json:"frameUrl"`
	Title      string            `json:"title"`
	Text       string            `json:"text"`
	RawURL     string            `json:"rawUrl"`
	RawStatus  int               `json:"rawStatus"`
	RawHeaders map[string]string `json:"rawHeaders"`
	RawBase64  string            `json:"rawBase64"`
	MS         int               `json:"ms"`
	Reloads    int               `json:"reloads"`
}

// server serves ReplayWeb.page's files under /replay/, the archive at
// /archive.warc.gz and, at /embed?url=U&ts=T, a page that replays U at T
// with ReplayWeb.page's embed element.
//
// /replay/ is a static directory as ReplayWeb.page's deployment docs have
// it: /replay/ itself serves index.html. The embed element loads
// /replay/?source=... in its frame; its service worker answers that once it
// controls the frame, but a frame that starts loading before the worker is
// active (a cold browser profile on a slow machine) goes to the network.
// Paths the server does not have are recorded in missed, for the failure
// message.
func server(t *testing.T, modules, archive string) (srv *httptest.Server, missed func() []string) {
	t.Helper()
	rwp := filepath.Join(modules, "replaywebpage")
	mux := http.NewServeMux()
	serve := func(pattern, f string) {
		p := filepath.Join(rwp, f)
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(f, ".js") {
				w.Header().Set("Content-Type", "application/javascript")
			}
			b, err := os.ReadFile(p)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			// ServeContent, not ServeFile: ServeFile redirects
			// .../index.html to the directory.
			http.ServeContent(w, r, f, time.Time{}, bytes.NewReader(b))
		})
	}
	serve("/replay/{$}", "index.html")
	for _, f := range []string{"index.html", "ui.js", "sw.js"} {
		serve("/replay/"+f, f)
	}
	mux.HandleFunc("/archive.warc.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/warc")
		http.ServeFile(w, r, archive)
	})
	mux.HandleFunc("/embed", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset=utf-8><title>replay</title>
<script src="/replay/ui.js"></script>
<style>html, body { margin: 0; height: 100%%; }</style></head><body>
<replay-web-page source="/archive.warc.gz" coll="dedup" replaybase="/replay/" deepLink url="%s" ts="%s"></replay-web-page>
</body></html>`, html.EscapeString(q.Get("url")), html.EscapeString(q.Get("ts")))
	})
	var mu sync.Mutex
	var miss []string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		miss = append(miss, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	})
	srv = httptest.NewUnstartedServer(mux)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), miss...)
	}
}

// TestReplayWebPage replays warcdedup's exact and near revisits in
// ReplayWeb.page and checks that each shows the kept page, and that a raw
// fetch of each returns the kept payload whole.
func TestReplayWebPage(t *testing.T) {
	node, modules, chromium, missing := tools()
	if len(missing) > 0 {
		t.Skipf("replay test skipped: missing %s", strings.Join(missing, "; "))
	}
	if testing.Short() {
		t.Skip("replay test skipped in -short mode")
	}
	t0 := time.Now()
	dir := t.TempDir()

	ps := pages()
	var caps []capture
	for _, p := range ps {
		caps = append(caps, p.kept)
	}
	for _, p := range ps {
		caps = append(caps, p.dup)
	}
	in := filepath.Join(dir, "in.warc.gz")
	if err := os.WriteFile(in, buildWARC(t, caps), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "warcdedup")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/warcdedup/warcdedup/cmd/warcdedup").CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/warcdedup: %v\n%s", err, out)
	}
	outWARC := filepath.Join(dir, "out.warc.gz")
	if out, err := exec.Command(bin, "-q", in, outWARC).CombinedOutput(); err != nil {
		t.Fatalf("warcdedup -q %s %s: %v\n%s", in, outWARC, err, out)
	}
	checkRevisits(t, outWARC, ps)
	tBuild := time.Since(t0)

	srv, missed := server(t, modules, outWARC)
	// The kept pages first: what each revisit must replay as.
	var checks []check
	for i, p := range ps {
		checks = append(checks, check{Name: fmt.Sprintf("kept-%d", i), URL: p.kept.uri, TS: p.kept.ts()})
	}
	for i, p := range ps {
		checks = append(checks, check{Name: fmt.Sprintf("revisit-%d", i), URL: p.dup.uri, TS: p.dup.ts(), Screenshot: p.screenshotThisPair})
	}
	// The test's output dir: kept under -outputdir with go test -artifacts.
	outDir := t.ArtifactDir()
	job, _ := json.Marshal(map[string]any{
		"modules": modules, "chromium": chromium, "base": srv.URL, "outDir": outDir,
		"timeoutMs": 30000, "checks": checks,
	})
	jobFile := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobFile, job, 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs(filepath.Join("js", "replay.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, jobFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	tReplay := time.Now()
	if err := runWithTimeout(cmd, 240*time.Second); err != nil {
		t.Fatalf("ReplayWeb.page in %s: %v\n%s\npaths the test server does not serve, as requested: %q", chromium, err, stderr.String(), missed())
	}
	var res struct{ Results []result }
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("driver output: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	byName := map[string]result{}
	for _, r := range res.Results {
		byName[r.Name] = r
		if r.Reloads > 0 {
			t.Logf("%s: the replay frame came after %d reload(s) of the embed page", r.Name, r.Reloads)
		}
	}

	for i, p := range ps {
		kept, rev := byName[fmt.Sprintf("kept-%d", i)], byName[fmt.Sprintf("revisit-%d", i)]
		t.Run(strings.ReplaceAll(p.kind, " ", "_"), func(t *testing.T) {
			// The kept page itself replays: the reference.
			for _, m := range p.keptOnly {
				if !strings.Contains(kept.Text, m) && !strings.Contains(kept.Title, m) {
					t.Errorf("kept page %s replays without %q:\n%s", p.kept.uri, m, kept.Text)
				}
			}
			// The revisit replays the kept page.
			if rev.Text != kept.Text || rev.Title != kept.Title {
				t.Errorf("revisit %s at %s replays as %q: %q\nnot as the kept page %s: %q: %q", p.dup.uri, p.dup.ts(), rev.Title, clip(rev.Text), p.kept.uri, kept.Title, clip(kept.Text))
			}
			for _, m := range p.keptOnly {
				if !strings.Contains(rev.Text, m) && !strings.Contains(rev.Title, m) {
					t.Errorf("revisit %s replays without the kept page's %q", p.dup.uri, m)
				}
			}
			for _, m := range p.dupOnly {
				if strings.Contains(rev.Text, m) || strings.Contains(rev.Title, m) {
					t.Errorf("revisit %s replays with the duplicate's own %q", p.dup.uri, m)
				}
			}
			// Raw mode returns the kept payload, whole.
			for _, r := range []result{kept, rev} {
				raw, err := base64.StdEncoding.DecodeString(r.RawBase64)
				if err != nil {
					t.Fatal(err)
				}
				if r.RawStatus != 200 || !bytes.Equal(raw, p.kept.body) {
					t.Errorf("raw fetch %s: status %d, %d bytes (sha1 %s); want 200 and the kept payload's %d bytes (%s)",
						r.RawURL, r.RawStatus, len(raw), warcio.SHA1Digest(raw), len(p.kept.body), warcio.SHA1Digest(p.kept.body))
				}
				if cl, ok := r.RawHeaders["content-length"]; ok && cl != strconv.Itoa(len(p.kept.body)) {
					t.Errorf("raw fetch %s: Content-Length %s, the kept payload has %d bytes", r.RawURL, cl, len(p.kept.body))
				}
				if ct := r.RawHeaders["content-type"]; ct != p.kept.ctype {
					t.Errorf("raw fetch %s: Content-Type %q, want the kept response's %q", r.RawURL, ct, p.kept.ctype)
				}
			}
			if !t.Failed() {
				t.Logf("%s: %s at %s replays %s at %s (text %d chars) in %d ms; raw %s: the kept payload, %d bytes, Content-Type %q, Content-Length %q",
					p.kind, p.dup.uri, p.dup.ts(), p.kept.uri, p.kept.ts(), len(rev.Text), rev.MS,
					rev.RawURL, len(p.kept.body), rev.RawHeaders["content-type"], rev.RawHeaders["content-length"])
			}
		})
	}

	for _, c := range checks {
		if !c.Screenshot {
			continue
		}
		shot := filepath.Join(outDir, c.Name+".png")
		png, err := os.ReadFile(shot)
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("screenshot %s: %v", shot, err)
			continue
		}
		name := "replaywebpage-near-revisit.png"
		if a := os.Getenv(EnvArtifact); a != "" {
			if err := os.MkdirAll(a, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(a, name), png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot of a replayed near revisit: %s", filepath.Join(a, name))
		} else {
			t.Logf("screenshot of a replayed near revisit: %s (kept with go test -artifacts, or set %s)", shot, EnvArtifact)
		}
	}
	t.Logf("build and dedup %v, replay of %d captures %v", tBuild.Round(time.Millisecond), len(checks), time.Since(tReplay).Round(time.Millisecond))
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// runWithTimeout runs cmd, killing it after d.
func runWithTimeout(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("timed out after %v", d)
	}
}
