package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testfs"
	"github.com/warcdedup/warcdedup/warcio"
)

// storyText is a story of n sentences on topic k, prose enough for spot
// signatures.
func storyText(k, n int) string {
	nouns := []string{"bridge", "harbour", "library", "station", "museum", "stadium", "hospital", "school", "market", "tower"}
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, "The council said on day %d that the %s of ward %d would be finished by the end of the year, and that the old %s would be closed while the work was done by a firm from %s. ",
			i+k*31, nouns[(k+i)%len(nouns)], k*7+i, nouns[(k*3+i)%len(nouns)], nouns[(i*5+k)%len(nouns)])
	}
	return sb.String()
}

// crawlSite serves a small news site whose pages change between crawls only
// in what changes between crawls (a session token, an advert, the time),
// and whose second crawl has one new story.
type crawlSite struct{ crawl atomic.Int32 }

func (s *crawlSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := int(s.crawl.Load())
	stories := 4
	if c >= 2 {
		stories = 5
	}
	frame := func(body string) string {
		return fmt.Sprintf(`<html><head><title>Ward news</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<div class="ad">Advert %d: buy a boat today, session %x</div>%s<footer>Page made at 2025-06-0%dT10:%02d:00Z</footer></body></html>`,
			c*17, c*99991, body, c, c*7)
	}
	switch {
	case r.URL.Path == "/":
		var links strings.Builder
		for i := 1; i <= stories; i++ {
			fmt.Fprintf(&links, `<li><a href="/story/%d">Story %d</a></li>`, i, i)
		}
		fmt.Fprint(w, frame(`<ul>`+links.String()+`</ul><img src="/logo.png">`))
	case r.URL.Path == "/logo.png":
		w.Header().Set("Content-Type", "image/png")
		fmt.Fprint(w, strings.Repeat("\x89PNG logo bytes ", 200))
	case strings.HasPrefix(r.URL.Path, "/story/"):
		var k int
		if _, err := fmt.Sscanf(r.URL.Path, "/story/%d", &k); err != nil || k < 1 || k > stories {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, frame(fmt.Sprintf(`<article><h1>Story %d</h1><p>%s</p></article>`, k, storyText(k, 12))))
	default:
		http.NotFound(w, r)
	}
}

// TestWgetCrawlsThroughIndex: wget crawls a site served here twice with
// --warc-file; each crawl is processed alone, the second with the first's
// --index: the second crawl's unchanged logo and re-captured stories become
// revisits of the first crawl's records, its new story is kept, and the
// independent checker accepts both outputs together.
func TestWgetCrawlsThroughIndex(t *testing.T) {
	wget, err := exec.LookPath("wget")
	if err != nil {
		t.Skip("wget is not installed (Debian's wget package; .ci/run installs it)")
	}
	site := &crawlSite{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	dir := t.TempDir()
	var crawls []string
	for c := 1; c <= 2; c++ {
		site.crawl.Store(int32(c))
		prefix := filepath.Join(dir, fmt.Sprintf("crawl%d", c))
		cmd := exec.Command(wget, "--recursive", "--level=2", "--no-verbose", "--delete-after", "--no-directories",
			"-e", "robots=off", "--warc-file="+prefix, "--warc-cdx", "--directory-prefix="+filepath.Join(dir, "tmp"), srv.URL+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			// wget exits 8 when a fetch had an HTTP error (/about is a 404).
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 8 {
				t.Fatalf("wget: %v\n%s", err, out)
			}
		}
		crawls = append(crawls, prefix+".warc.gz")
	}
	idx := filepath.Join(dir, "index")
	var outs []string
	for c, in := range crawls {
		out := filepath.Join(dir, fmt.Sprintf("out%d.warc.gz", c+1))
		if code, msg := runCLI(t, "-q", "--index", idx, in, out); code != exitOK {
			t.Fatalf("crawl %d: exit %d: %s", c+1, code, msg)
		}
		outs = append(outs, out)
	}
	// The second output's revisits point into the first output.
	first := map[string]bool{}
	recs1, err := readRecords(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs1 {
		if r.h != nil {
			first[r.h.Get("WARC-Record-ID")] = true
		}
	}
	recs2, err := readRecords(outs[1])
	if err != nil {
		t.Fatal(err)
	}
	exact, nearN, into := 0, 0, 0
	for _, r := range recs2 {
		if r.h == nil || r.h.Get("WARC-Type") != "revisit" {
			continue
		}
		if strings.Contains(r.h.Get("WARC-Profile"), "near-duplicate") {
			nearN++
		} else {
			exact++
		}
		if first[r.h.Get("WARC-Refers-To")] {
			into++
		}
	}
	// The logo is an exact copy; the four stories and the home page differ
	// in their frames only... the home page lists a new story, so it stays.
	if exact != 1 || nearN != 4 || into != exact+nearN {
		t.Errorf("second crawl: %d exact and %d near revisits, %d of them into the first crawl; want 1, 4, all", exact, nearN, into)
	}
	st := checkOutputs(t, crawls, outs)
	warccheck(t, crawls, outs, st)
	// The first crawl's CDX, as wget wrote it, serves for exact copies.
	t.Run("index-cdx", func(t *testing.T) {
		out := filepath.Join(dir, "out2-cdx.warc.gz")
		if code, msg := runCLI(t, "-q", "--near", "off", "--index-cdx", strings.TrimSuffix(crawls[0], ".warc.gz")+".cdx", crawls[1], out); code != exitOK {
			t.Fatalf("exit %d: %s", code, msg)
		}
		recs, err := readRecords(out)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range recs {
			if r.h != nil && r.h.Get("WARC-Type") == "revisit" {
				n++
				if !first[r.h.Get("WARC-Refers-To")] {
					t.Errorf("revisit of %s refers to %s, not a record of the first crawl", r.h.Get("WARC-Target-URI"), r.h.Get("WARC-Refers-To"))
				}
			}
		}
		if n != 1 {
			t.Errorf("%d revisits against the CDX, want the logo's", n)
		}
		warccheck(t, crawls, []string{crawls[0], out}, checkOutputs(t, crawls, []string{crawls[0], out}))
	})
	// The index says what it holds.
	var so strings.Builder
	if code := runIndexCommand([]string{idx}, &so, os.Stderr); code != exitOK || !strings.Contains(so.String(), "2 runs") {
		t.Errorf("warcdedup index: exit %d:\n%s", code, so.String())
	}
	_ = warcio.KindWARC
}

// TestIndexOfAnotherAnalysis: an index whose pages were analysed with other
// settings is refused before anything is written (exit 2), and the message
// says how to make one this run can use.
func TestIndexOfAnotherAnalysis(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "index")
	if code, msg := runCLI(t, "-q", "--bigrams-below", "6", "--index", ix, samplePath, filepath.Join(dir, "day1.warc.gz")); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, msg)
	}
	out := filepath.Join(dir, "day2.warc.gz")
	code, msg := runCLI(t, "-q", "--index", ix, samplePath, out)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d: %s", code, exitUsage, msg)
	}
	for _, w := range []string{"bigrams-below=6", "bigrams-below=16", "nothing was written", "make a new index with this version"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message lacks %q:\n%s", w, msg)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output %s: %v, want none", out, err)
	}
}

// TestIndexDirLeftAlone: --index and the index commands take a directory
// for an index only if it holds one (or, to make one, is new or empty):
// any other is refused with exit 2, and every file in it is left as it
// was; reading an index (warcdedup index DIR) changes nothing, and makes
// no index where there is none.
func TestIndexDirLeftAlone(t *testing.T) {
	sample, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, dir string, files map[string]string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		for n, b := range files {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	crawl := map[string]string{"seg-0001.warc.gz": string(sample), "draft.tmp": "important\n", "seg-notes.txt": "keep\n"}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) // nil: dir does not exist
		args  []string                       // DIR stands for the directory, OUT for an output
		code  int
		msg   string // in standard error
		adds  bool   // the command adds to the index: only the files setup wrote are checked
	}{
		{"run", func(t *testing.T, dir string) { write(t, dir, crawl) },
			[]string{"-q", "--index", "DIR", "DIR/seg-0001.warc.gz", "OUT"}, exitUsage, "DIR is not a warcdedup index", false},
		{"map-rounds", func(t *testing.T, dir string) { write(t, dir, crawl) },
			[]string{"map", "-q", "--rounds", "--index", "DIR"}, exitUsage, "DIR is not a warcdedup index", false},
		{"reduce", func(t *testing.T, dir string) { write(t, dir, crawl) },
			[]string{"reduce", "-q", "--index", "DIR"}, exitUsage, "DIR is not a warcdedup index", false},
		{"index-files", func(t *testing.T, dir string) { write(t, dir, map[string]string{"a.tmp": "x\n", "seg-x": "y\n"}) },
			[]string{"index", "DIR"}, exitUsage, "no index at DIR", false},
		{"index-empty", func(t *testing.T, dir string) { write(t, dir, nil) },
			[]string{"index", "DIR"}, exitUsage, "no index at DIR", false},
		{"index-missing", nil, []string{"index", "DIR"}, exitUsage, "no index at DIR", false},
		{"discard-files", func(t *testing.T, dir string) { write(t, dir, crawl) },
			[]string{"index", "discard", "DIR"}, exitUsage, "no index at DIR", false},
		{"commit-empty", func(t *testing.T, dir string) { write(t, dir, nil) },
			[]string{"index", "commit", "DIR"}, exitUsage, "no index at DIR", false},
		{"index-of-a-run", func(t *testing.T, dir string) {
			if code, msg := runCLI(t, "-q", "--index", dir, samplePath, filepath.Join(t.TempDir(), "out.warc.gz")); code != exitOK {
				t.Fatalf("making the index: exit %d: %s", code, msg)
			}
			// What a killed run would leave, which only a run that adds
			// to the index removes, and files of someone else's.
			write(t, dir, map[string]string{"seg-000002.wdx.tmp": "killed\n", "x.tmp": "draft\n", "seg-notes.txt": "notes\n"})
		}, []string{"index", "DIR"}, exitOK, "", false},
		{"index-damaged", func(t *testing.T, dir string) {
			if code, msg := runCLI(t, "-q", "--index", dir, samplePath, filepath.Join(t.TempDir(), "out.warc.gz")); code != exitOK {
				t.Fatalf("making the index: exit %d: %s", code, msg)
			}
			seg := filepath.Join(dir, "seg-000001.wdx")
			b := mustRead(t, seg)
			if err := os.WriteFile(seg, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"index", "DIR"}, exitFailure, "the MANIFEST says", false},
		{"run-on-index", func(t *testing.T, dir string) {
			if code, msg := runCLI(t, "-q", "--index", dir, samplePath, filepath.Join(t.TempDir(), "out.warc.gz")); code != exitOK {
				t.Fatalf("making the index: exit %d: %s", code, msg)
			}
			write(t, dir, map[string]string{"x.tmp": "draft\n", "seg-notes.txt": "notes\n", "seg-1.wdx": "one\n"})
		}, []string{"-q", "--index", "DIR", samplePath, "OUT"}, exitOK, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			out := filepath.Join(t.TempDir(), "out.warc.gz")
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			before := testfs.Files(t, dir)
			var args []string
			for _, a := range tc.args {
				a = strings.Replace(a, "DIR", dir, 1)
				args = append(args, strings.Replace(a, "OUT", out, 1))
			}
			code, _, stderr := step(t, nil, args...)
			if msg := strings.Replace(tc.msg, "DIR", dir, 1); code != tc.code || !strings.Contains(stderr, msg) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, tc.code, msg, stderr)
			}
			after := testfs.Files(t, dir)
			if tc.adds {
				if _, ok := after["seg-000002.wdx"]; !ok {
					t.Errorf("the run added no segment: %q", keys(after))
				}
				for _, n := range []string{"x.tmp", "seg-notes.txt", "seg-1.wdx"} {
					if after[n] != before[n] {
						t.Errorf("%s holds %q, not %q", n, after[n], before[n])
					}
				}
				return
			}
			if !reflect.DeepEqual(after, before) {
				t.Errorf("the directory changed:\nbefore %q\nafter  %q", keys(before), keys(after))
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output %s: %v, want none", out, err)
			}
		})
	}
}

// keys is m's keys, sorted.
func keys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestForceOverIndexedOutput: with --index, --force does not write over an
// output that holds records the index names unless the run keeps every
// one of them again (the same input run again): a later crawl's file of the
// same name would leave them in no file, and the index's later revisits
// would point at nothing. The output is left as it was, exit 1.
func TestForceOverIndexedOutput(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, d := range []string{"crawl1", "crawl2", "two", "twice"} {
		if err := os.Mkdir(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := storyText(1, 12)
	htmlWARC(t, p("crawl1/part-00000.warc.gz"), 9, [3]string{uuid(1), "http://news.example/a", a})
	htmlWARC(t, p("crawl2/part-00000.warc.gz"), 10, [3]string{uuid(2), "http://news.example/a", a})
	idx, archive := p("index"), p("archive")+"/"
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--index", idx, p("crawl1/part-00000.warc.gz"), archive}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("crawl 1: exit %d: %s", code, stderr.String())
	}
	out := p("archive/part-00000.warc.gz")
	before := mustRead(t, out)
	stderr.Reset()
	if code := run([]string{"-q", "--force", "--index", idx, p("crawl2/part-00000.warc.gz"), archive}, nil, io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "holds 1 records an earlier run kept") {
		t.Errorf("crawl 2 over crawl 1's output: exit %d, want 1 naming the records\n%s", code, stderr.String())
	}
	if !bytes.Equal(mustRead(t, out), before) {
		t.Error("crawl 1's output was written over")
	}
	// Spelled otherwise, the same file.
	rel, err := filepath.Rel(mustGetwd(t), out)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"-q", "--force", "--index", idx, p("crawl2/part-00000.warc.gz"), rel}, nil, io.Discard, &stderr); code != 1 {
		t.Errorf("crawl 2 over crawl 1's output, named %s: exit %d, want 1\n%s", rel, code, stderr.String())
	}
	// From inside the output directory: the index names the output as the
	// first run spelled it, from another working directory.
	t.Run("from another directory", func(t *testing.T) {
		t.Chdir(p("archive"))
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--force", "--index", idx, p("crawl2/part-00000.warc.gz"), "./"}, nil, io.Discard, &stderr); code != 1 {
			t.Errorf("exit %d, want 1\n%s", code, stderr.String())
		}
	})
	// A record of crawl 1 twice in the input: one record kept again, the
	// other record of the output lost.
	htmlWARC(t, p("two/part-00001.warc.gz"), 9, [3]string{uuid(11), "http://news.example/x", storyText(2, 12)}, [3]string{uuid(12), "http://news.example/y", storyText(3, 12)})
	stderr.Reset()
	if code := run([]string{"-q", "--index", idx, p("two/part-00001.warc.gz"), archive}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("two records: exit %d: %s", code, stderr.String())
	}
	htmlWARC(t, p("twice/part-00001.warc.gz"), 9, [3]string{uuid(11), "http://news.example/x", storyText(2, 12)}, [3]string{uuid(11), "http://news.example/x", storyText(2, 12)})
	stderr.Reset()
	if code := run([]string{"-q", "--force", "--index", idx, p("twice/part-00001.warc.gz"), archive}, nil, io.Discard, &stderr); code != 1 {
		t.Errorf("one of two records twice: exit %d, want 1\n%s", code, stderr.String())
	}
	// Crawl 1 again: its records kept again, the output written over.
	stderr.Reset()
	if code := run([]string{"-q", "--force", "--index", idx, p("crawl1/part-00000.warc.gz"), archive}, nil, io.Discard, &stderr); code != 0 {
		t.Errorf("crawl 1 again: exit %d: %s", code, stderr.String())
	}
}

// TestForceOverIndexedRelative: the first run names its output relative to
// its working directory; a later run from another one still finds the
// records the output holds.
func TestForceOverIndexedRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"c1", "c2", "out"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	htmlWARC(t, "c1/a.warc.gz", 9, [3]string{uuid(31), "http://news.example/a", storyText(6, 12)})
	htmlWARC(t, "c2/a.warc.gz", 10, [3]string{uuid(32), "http://news.example/b", storyText(8, 12)})
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--index", "ix", "c1/a.warc.gz", "out/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("crawl 1: exit %d: %s", code, stderr.String())
	}
	t.Chdir(filepath.Join(dir, "out"))
	if code := run([]string{"-q", "--force", "--index", "../ix", "../c2/a.warc.gz", "./"}, nil, io.Discard, &stderr); code != 1 {
		t.Errorf("crawl 2 over crawl 1's output, from its directory: exit %d, want 1\n%s", code, stderr.String())
	}
}

// TestForceOverCDXOutput: --index-cdx with --force does not write over an
// output holding records the CDX names, wherever the run starts.
func TestForceOverCDXOutput(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, d := range []string{"c1", "c2"} {
		if err := os.Mkdir(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	htmlWARC(t, p("c1/a.warc.gz"), 9, [3]string{uuid(21), "http://news.example/a", storyText(4, 12)})
	htmlWARC(t, p("c2/a.warc.gz"), 10, [3]string{uuid(22), "http://news.example/b", storyText(5, 12)})
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--cdxj", p("day1.cdxj"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("day 1: exit %d: %s", code, stderr.String())
	}
	before := mustRead(t, p("out/a.warc.gz"))
	stderr.Reset()
	if code := run([]string{"-q", "--force", "--index-cdx", p("day1.cdxj"), p("c2/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 1 {
		t.Errorf("day 2 over day 1's output: exit %d, want 1\n%s", code, stderr.String())
	}
	if !bytes.Equal(mustRead(t, p("out/a.warc.gz")), before) {
		t.Error("day 1's output was written over")
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestForceOverIndexedEdges: an index with a CDX of another capture of the
// same payload still protects the index's record; an output that stops
// reading as WARC is not written over; a dry run fails as the run would.
func TestForceOverIndexedEdges(t *testing.T) {
	page := storyText(9, 12)
	setup := func(t *testing.T) (p func(string) string, idx string) {
		dir := t.TempDir()
		p = func(n string) string { return filepath.Join(dir, n) }
		for _, d := range []string{"c0", "c1", "c2"} {
			if err := os.Mkdir(p(d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(41), "http://x.example/1", page}, [3]string{uuid(42), "http://x.example/2", storyText(10, 12)})
		htmlWARC(t, p("c2/a.warc.gz"), 11, [3]string{uuid(43), "http://x.example/9", storyText(11, 12)})
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
			t.Fatalf("crawl 1: exit %d: %s", code, stderr.String())
		}
		return p, p("ix")
	}
	t.Run("a CDX of the same payload", func(t *testing.T) {
		p, idx := setup(t)
		// An older capture of the first page, its payload the same.
		htmlWARC(t, p("c0/old.warc.gz"), 8, [3]string{uuid(40), "http://x.example/1", page})
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--cdxj", p("old.cdxj"), p("c0/old.warc.gz"), p("out0") + "/"}, nil, io.Discard, &stderr); code != 0 {
			t.Fatalf("old crawl: exit %d: %s", code, stderr.String())
		}
		before := mustRead(t, p("out/a.warc.gz"))
		if code := run([]string{"-q", "--force", "--index", idx, "--index-cdx", p("old.cdxj"), p("c2/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 1 {
			t.Errorf("another crawl: exit %d, want 1\n%s", code, stderr.String())
		}
		// The same crawl again: the index's record stays its payload's
		// kept record, kept again, not made a revisit of the CDX's.
		if code := run([]string{"-q", "--force", "--index", idx, "--index-cdx", p("old.cdxj"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
			t.Errorf("the same crawl: exit %d, want 0\n%s", code, stderr.String())
		}
		if !bytes.Equal(testfs.Plain(t, mustRead(t, p("out/a.warc.gz"))), testfs.Plain(t, before)) {
			t.Error("the output's records changed: the index's record was replaced")
		}
	})
	t.Run("an output damaged half way", func(t *testing.T) {
		p, idx := setup(t)
		// The first record's header made unreadable: the second, which
		// the index names too, is whole.
		b := testfs.Plain(t, mustRead(t, p("out/a.warc.gz")))
		i := bytes.Index(b, []byte("WARC-Date:"))
		b = append(append(append([]byte{}, b[:i]...), "WARC-Date-\x00"...), b[i+10:]...)
		if err := os.WriteFile(p("out/a.warc.gz"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--force", "--index", idx, p("c2/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 1 ||
			!strings.Contains(stderr.String(), "does not read as WARC to its end") {
			t.Errorf("exit %d, want 1 saying why\n%s", code, stderr.String())
		}
		if !bytes.Equal(mustRead(t, p("out/a.warc.gz")), b) {
			t.Error("the output was written over")
		}
	})
	t.Run("a dry run", func(t *testing.T) {
		p, idx := setup(t)
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--dry-run", "--force", "--index", idx, p("c2/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 1 {
			t.Errorf("exit %d, want the run's 1\n%s", code, stderr.String())
		}
	})
}

// TestForceOverNamedRecords: every record the seeds name as kept protects
// the output that holds it, whatever names it: an ID the crawl repeats
// with another payload (in the output or in another), a capture the index
// holds as kept whole beside its payload's record, a CDX's second line of
// one payload. A run that would not write each again whole is refused
// (exit 1), the output as it was; the same input again is not.
func TestForceOverNamedRecords(t *testing.T) {
	type step struct {
		args []string
		code int
	}
	dirs := func(t *testing.T) func(string) string {
		dir := t.TempDir()
		p := func(n string) string { return filepath.Join(dir, n) }
		for _, d := range []string{"c1", "c2", "x", "out"} {
			if err := os.Mkdir(p(d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	runSteps := func(t *testing.T, p func(string) string, watch string, steps []step) {
		t.Helper()
		var before []byte
		for i, s := range steps {
			if i == len(steps)-1 {
				before = mustRead(t, p(watch))
			}
			var stderr bytes.Buffer
			if code := run(append([]string{"-q"}, s.args...), nil, io.Discard, &stderr); code != s.code {
				t.Fatalf("step %d %q: exit %d, want %d\n%s", i, s.args, code, s.code, stderr.String())
			}
		}
		if !bytes.Equal(mustRead(t, p(watch)), before) {
			t.Errorf("%s was written over", watch)
		}
	}
	s1, s2, s3 := storyText(21, 12), storyText(22, 12), storyText(23, 12)
	t.Run("an ID repeated with another payload", func(t *testing.T) {
		p := dirs(t)
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", s1}, [3]string{uuid(1), "http://a.example/2", s2})
		htmlWARC(t, p("x/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", s1})
		runSteps(t, p, "out/a.warc.gz", []step{
			{[]string{"--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("x/a.warc.gz"), p("out") + "/"}, 1},
		})
	})
	t.Run("an ID repeated in another output", func(t *testing.T) {
		p := dirs(t)
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", s1})
		htmlWARC(t, p("c1/b.warc.gz"), 11, [3]string{uuid(1), "http://a.example/2", s2})
		htmlWARC(t, p("x/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/2", s2})
		runSteps(t, p, "out/a.warc.gz", []step{
			{[]string{"--index", p("ix"), p("c1/a.warc.gz"), p("c1/b.warc.gz"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("x/a.warc.gz"), p("out") + "/"}, 1},
		})
	})
	t.Run("a capture kept whole beside its payload's record", func(t *testing.T) {
		p := dirs(t)
		// b is taken after a (its first record is later), and holds an
		// earlier capture of a's payload: kept whole, an index Stays.
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://o.example/p", s1})
		htmlWARC(t, p("c1/b.warc.gz"), 12, [3]string{uuid(2), "http://o.example/q", s2})
		earlier := mustRead(t, p("c1/a.warc.gz"))
		earlier = bytes.Replace(testfs.Plain(t, earlier), []byte("2026-11-01T10:00:00Z"), []byte("2026-11-01T09:00:00Z"), 1)
		earlier = bytes.Replace(earlier, []byte(uuid(1)), []byte(uuid(3)), 1)
		b := append(testfs.Plain(t, mustRead(t, p("c1/b.warc.gz"))), earlier...)
		if err := os.WriteFile(p("c1/b.warc"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		htmlWARC(t, p("x/b.warc"), 12, [3]string{uuid(2), "http://o.example/q", s2})
		runSteps(t, p, "out/b.warc", []step{
			{[]string{"--index", p("ix"), p("c1/a.warc.gz"), p("c1/b.warc"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("c1/b.warc"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("x/b.warc"), p("out") + "/"}, 1},
		})
		if got := testfs.Plain(t, mustRead(t, p("out/b.warc"))); !bytes.Contains(got, []byte(uuid(3))) {
			t.Error("the capture kept whole is not in the output")
		}
	})
	// plainWith writes the plain form of gzipped WARC src to dst, with
	// each old string replaced by its new one, once.
	plainWith := func(t *testing.T, src, dst string, oldNew ...string) {
		t.Helper()
		b := testfs.Plain(t, mustRead(t, src))
		for i := 0; i < len(oldNew); i += 2 {
			if !bytes.Contains(b, []byte(oldNew[i])) {
				t.Fatalf("%s holds no %q", src, oldNew[i])
			}
			b = bytes.Replace(b, []byte(oldNew[i]), []byte(oldNew[i+1]), 1)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("another capture of the URI, second and payload", func(t *testing.T) {
		// The index names X by its ID; Y, captured earlier in the same
		// second, is kept whole beside it: X is not written again.
		p := dirs(t)
		htmlWARC(t, p("c1/x.warc.gz"), 10, [3]string{uuid(1), "http://a.example/", s1})
		plainWith(t, p("c1/x.warc.gz"), p("c1/a.warc"), "2026-11-01T10:00:00Z", "2026-11-01T10:00:00.5Z")
		plainWith(t, p("c1/x.warc.gz"), p("x/a.warc"), "2026-11-01T10:00:00Z", "2026-11-01T10:00:00.2Z", uuid(1), uuid(2))
		runSteps(t, p, "out/a.warc", []step{
			{[]string{"--index", p("ix"), p("c1/a.warc"), p("out") + "/"}, 0},
			{[]string{"--force", "--index", p("ix"), p("x/a.warc"), p("out") + "/"}, 1},
		})
	})
	t.Run("a record too small to deduplicate", func(t *testing.T) {
		// Written whole as any record is: a run over the same input with
		// a larger --min-size writes every named record again.
		p := dirs(t)
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", s1}, [3]string{uuid(2), "http://a.example/2", s2})
		var stderr bytes.Buffer
		for _, args := range [][]string{
			{"-q", "--cdxj", p("a.cdxj"), "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"},
			{"-q", "--force", "--min-size", "1000000", "--index-cdx", p("a.cdxj"), p("c1/a.warc.gz"), p("out") + "/"},
			{"-q", "--force", "--min-size", "1000000", "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"},
		} {
			if code := run(args, nil, io.Discard, &stderr); code != 0 {
				t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
			}
		}
	})
	t.Run("a CDX's second line of one payload", func(t *testing.T) {
		p := dirs(t)
		htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://b.example/", s1})
		htmlWARC(t, p("c2/a.warc.gz"), 11, [3]string{uuid(5), "http://n.example/", s3})
		var stderr bytes.Buffer
		if code := run([]string{"-q", "--cdxj", p("b.cdxj"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		line := strings.TrimSpace(string(mustRead(t, p("b.cdxj"))))
		// An earlier capture of the payload, at another URI and in another
		// file, listed first.
		first := strings.Replace(strings.Replace(line, "b,example)/", "a,example)/", 1), "http://b.example/", "http://a.example/", 1)
		first = strings.Replace(strings.Replace(first, " 20261101100000 ", " 20261101080000 ", 1), "a.warc.gz", "archA.warc.gz", 1)
		if first == line || !strings.Contains(first, "archA") {
			t.Fatalf("CDXJ line not as expected: %s", line)
		}
		if err := os.WriteFile(p("two.cdxj"), []byte(first+"\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runSteps(t, p, "out/a.warc.gz", []step{
			{[]string{"--force", "--index-cdx", p("two.cdxj"), p("c2/a.warc.gz"), p("out") + "/"}, 1},
		})
	})
}

// TestCDXSelf: a record is never a revisit of its own CDX line, which
// names it by URI and date to the second, not by ID.
func TestCDXSelf(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if err := os.Mkdir(p("c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", storyText(31, 12)}, [3]string{uuid(2), "http://a.example/2", storyText(32, 12)})
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--cdxj", p("a.cdxj"), p("c1/a.warc.gz"), p("out1") + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"-q", "--index-cdx", p("a.cdxj"), p("c1/a.warc.gz"), p("out2") + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, want := testfs.Plain(t, mustRead(t, p("out2/a.warc.gz"))), testfs.Plain(t, mustRead(t, p("c1/a.warc.gz"))); !bytes.Equal(got, want) {
		t.Error("the records were rewritten against their own CDX lines")
	}
	// A WARC-Date that is not RFC 3339 (no zone): the CDX's timestamp is
	// its digits.
	plain := bytes.Replace(testfs.Plain(t, mustRead(t, p("c1/a.warc.gz"))), []byte("2026-11-01T10:00:00Z"), []byte("2026-11-01T10:00:00"), 1)
	if err := os.WriteFile(p("c1/b.warc"), plain, 0o644); err != nil {
		t.Fatal(err)
	}
	cdx := "example,a)/1 20261101100000 {\"url\": \"http://a.example/1\", \"status\": \"200\", \"digest\": \"" + cdxDigest(t, p("a.cdxj"), "example,a)/1 ") + "\"}\n"
	if err := os.WriteFile(p("b.cdxj"), []byte(cdx), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"-q", "--index-cdx", p("b.cdxj"), p("c1/b.warc"), p("out3") + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(mustRead(t, p("out3/b.warc")), plain) {
		t.Error("a record dated without a zone was rewritten against its own CDX line")
	}
}

// cdxDigest returns the digest of the CDXJ line of file name that starts
// with prefix.
func cdxDigest(t *testing.T, name, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(string(mustRead(t, name)), "\n") {
		if strings.HasPrefix(l, prefix) {
			var j struct{ Digest string }
			if err := json.Unmarshal([]byte(l[strings.IndexByte(l, '{'):]), &j); err != nil {
				t.Fatal(err)
			}
			return j.Digest
		}
	}
	t.Fatalf("%s has no line %q", name, prefix)
	return ""
}

// TestForceOverOldIndex: an index with runs of an older format (no
// captures kept whole listed) warns that the output check cannot see
// them, when an output is written over.
func TestForceOverOldIndex(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if err := os.Mkdir(p("c1"), 0o755); err != nil {
		t.Fatal(err)
	}
	htmlWARC(t, p("c1/a.warc.gz"), 10, [3]string{uuid(1), "http://a.example/1", storyText(41, 12)})
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	again := func() string {
		var stderr bytes.Buffer
		if code := run([]string{"--force", "--index", p("ix"), p("c1/a.warc.gz"), p("out") + "/"}, nil, io.Discard, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		return stderr.String()
	}
	const warning = "runs written by an older warcdedup"
	if s := again(); strings.Contains(s, warning) {
		t.Errorf("warned with an index of this format:\n%s", s)
	}
	// The runs' segments as an older version wrote them: no format.
	man := mustRead(t, p("ix/MANIFEST"))
	old := regexp.MustCompile(`,\s*"format":\s*3\s*}`).ReplaceAll(man, []byte("}"))
	if bytes.Equal(old, man) {
		t.Fatalf("MANIFEST names no segment's format:\n%s", man)
	}
	if err := os.WriteFile(p("ix/MANIFEST"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	if s := again(); !strings.Contains(s, warning) {
		t.Errorf("no warning with segments of an older format:\n%s", s)
	}
}
