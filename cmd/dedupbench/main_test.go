package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/bench"
	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/warcio"
)

func TestUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"nope"}, 2},
		{[]string{"help"}, 0},
		{[]string{"score"}, 2},
		{[]string{"score", "-labels", "x.jsonl"}, 2},
		{[]string{"score", "-labels", "/nonexistent/labels.jsonl", "a.warc.gz"}, 1},
		{[]string{"gen", "extra"}, 2},
		{[]string{"compare"}, 2},
		{[]string{"compare", "-bench", "x", "-wcxb-routed", "y"}, 2},
		{[]string{"compare", "-bench", "/nonexistent"}, 1},
		{[]string{"wcxb", "extra"}, 2},
		{[]string{"records", "-n", "0"}, 2},
		{[]string{"records", "extra"}, 2},
		{[]string{"wcxb", "-corpus", "/nonexistent", "-out", "/nonexistent/out"}, 1},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != tt.code {
			t.Errorf("run(%q) = %d, want %d; stderr %s", tt.args, code, tt.code, errb.String())
		}
	}
}

// TestGenScore builds a small benchmark and scores its own WARCs as if they
// were warcdedup's output with nothing deduplicated: every record is found,
// no duplicate is reported, recall is 0 and precision 1.
func TestGenScore(t *testing.T) {
	corpus := filepath.Dir(testshared.Path(t, "corpus/_pairs"))
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"gen", "-corpus", corpus, "-out", dir, "-max-pages", "80", "-files", "2", "-seed", "5"}, &out, &errb); code != 0 {
		t.Fatalf("gen: %d %s", code, errb.String())
	}
	var sum struct {
		Records int      `json:"records"`
		Files   []string `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || sum.Records == 0 || len(sum.Files) != 2 {
		t.Fatalf("gen summary %s: %v", out.String(), err)
	}
	args := []string{"score", "-json", "-labels", filepath.Join(dir, "labels.jsonl")}
	for _, f := range sum.Files {
		args = append(args, filepath.Join(dir, f))
	}
	out.Reset()
	errb.Reset()
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("score: %d %s", code, errb.String())
	}
	var s scoreJSON
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Records != sum.Records || s.Seen != sum.Records || s.Reported != 0 {
		t.Errorf("score: %d records, %d seen, %d reported; want %d, %d, 0", s.Records, s.Seen, s.Reported, sum.Records, sum.Records)
	}
	if len(s.Groups) == 0 || s.Groups[0].Group != "all" || s.Groups[0].Recall != 0 || s.Groups[0].Precision != 1 || s.Groups[0].FN == 0 {
		t.Errorf("overall group %+v", s.Groups)
	}
	if strings.Contains(errb.String(), "warning") {
		t.Errorf("score warned: %s", errb.String())
	}
}

// TestGenScale checks that -scale reaches the generator: synthetic pages and
// more records than the same sample unscaled.
func TestGenScale(t *testing.T) {
	corpus := filepath.Dir(testshared.Path(t, "corpus/_pairs"))
	var sums [2]struct {
		Records   int `json:"records"`
		Scale     int `json:"scale"`
		Synthetic int `json:"synthetic_stories"`
	}
	for i, scale := range []string{"1", "2"} {
		var out, errb bytes.Buffer
		args := []string{"gen", "-corpus", corpus, "-out", t.TempDir(), "-max-pages", "40", "-files", "1", "-scale", scale}
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("gen -scale %s: %d %s", scale, code, errb.String())
		}
		if err := json.Unmarshal(out.Bytes(), &sums[i]); err != nil {
			t.Fatal(err)
		}
	}
	if sums[0].Scale != 0 || sums[0].Synthetic != 0 || sums[1].Scale != 2 || sums[1].Synthetic == 0 ||
		sums[1].Records <= sums[0].Records {
		t.Errorf("summaries unscaled %+v, scale 2 %+v", sums[0], sums[1])
	}
}

// TestRun runs a stand-in for warcdedup that copies its inputs unchanged, and
// checks that run passes the flags after -- and scores the copies.
func TestRun(t *testing.T) {
	corpus := filepath.Dir(testshared.Path(t, "corpus/_pairs"))
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"gen", "-corpus", corpus, "-out", dir, "-max-pages", "40", "-files", "1"}, &out, &errb); code != 0 {
		t.Fatalf("gen: %d %s", code, errb.String())
	}
	fake := filepath.Join(t.TempDir(), "fake-warcdedup")
	script := "#!/bin/sh\n[ \"$1\" = --near=off ] || exit 9\nshift\nfor a; do out=$a; done\nfor a; do [ \"$a\" = \"$out\" ] || cp \"$a\" \"$out\"; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"run", "-bench", dir, "-warcdedup", fake, "--", "--near=off"}, &out, &errb); code != 0 {
		t.Fatalf("run: %d %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "reported duplicates 0") {
		t.Errorf("run output:\n%s", out.String())
	}
}

// TestCompareAnchor runs compare with the anchor on a small benchmark, which
// also stands in as the second (-wcxb) set, and on a small benchmark of
// another seed (-bench2, its input WARCs standing in as warcdedup's output):
// the anchor's rows, its CPU stages, the second set's columns and the other
// seed's table are in the output, and no method that was not asked for.
func TestCompareAnchor(t *testing.T) {
	corpus := filepath.Dir(testshared.Path(t, "corpus/_pairs"))
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"gen", "-corpus", corpus, "-out", dir, "-max-pages", "40", "-files", "1"}, &out, &errb); code != 0 {
		t.Fatalf("gen: %d %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	dir2 := t.TempDir()
	if code := run([]string{"gen", "-corpus", corpus, "-out", dir2, "-max-pages", "40", "-files", "1", "-seed", "7"}, &out, &errb); code != 0 {
		t.Fatalf("gen -seed 7: %d %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	md := filepath.Join(t.TempDir(), "q.md")
	args := []string{"compare", "-bench", dir, "-wcxb", dir, "-bench2", dir2, "-routed2", dir2, "-md", md,
		"-methods", "SpotSigs, FineWeb MinHash 28x4 (anchor)"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("compare: %d %s", code, errb.String())
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"| **FineWeb MinHash 28x4 (anchor)** | 0.500 |",
		"| **FineWeb MinHash 28x4 (anchor), closed** | 0.500 |",
		"| SpotSigs |",
		"| anchor: main text by trafilatura |",
		"| wcxb: anchor: normalized words, 5-shingles |",
		"| pair search: FineWeb MinHash 28x4 (anchor) |",
		"wcxb pairs reported | wcxb true | wcxb false |",
		"## The same at seed 7 (",
		"| seed 7: anchor: main text by trafilatura |",
		"-bench2 /tmp/bench2 -routed2 /tmp/bench2-out",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	for _, not := range []string{"14x8", "AF-SpotSigs", "(main text)"} {
		if strings.Contains(s, not) {
			t.Errorf("output has %q, not asked for", not)
		}
	}
	// The other seed's table: warcdedup's row (its input, nothing found: recall
	// 0), then the anchor's and SpotSigs' rows at the first seed's thresholds.
	_, sec, _ := strings.Cut(s, "## The same at seed 7 (")
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, want := range []string{"| **warcdedup (routed default)** | defaults | 1.000 | 0.000 |",
		"| **FineWeb MinHash 28x4 (anchor)** | 0.500 |", "| SpotSigs | "} {
		if !strings.Contains(sec, want) {
			t.Errorf("seed 7's table lacks %q:\n%s", want, sec)
		}
	}
}

// TestWCXB writes the corpus's wcxb pages as a labelled WARC: every page once,
// one pair of near-identical gold texts in one cluster.
func TestWCXB(t *testing.T) {
	corpus := filepath.Dir(testshared.Measure(t, "corpus/wcxb"))
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"wcxb", "-corpus", corpus, "-out", dir}, &out, &errb); code != 0 {
		t.Fatalf("wcxb: %d %s", code, errb.String())
	}
	var sum bench.WCXBSummary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Records != 1138 || sum.Clusters != 1137 || sum.TruePairs != 1 || sum.GoldSimilar != 1 || sum.ByType["product"] != 106 {
		t.Errorf("summary %+v", sum)
	}
	ls, err := bench.ReadLabels(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	clusters := map[string][]string{}
	for _, l := range ls {
		clusters[l.Cluster] = append(clusters[l.Cluster], l.URI)
		if l.PageType == "" || l.URI == "" || l.Site == "" || l.File != sum.Files[0] {
			t.Errorf("label %+v", l)
		}
	}
	for _, uris := range clusters {
		if len(uris) > 1 && (len(uris) != 2 || !strings.Contains(uris[0], "irobot.com") || !strings.Contains(uris[1], "irobot.com")) {
			t.Errorf("cluster %q", uris)
		}
	}
	// Every page is read back from the WARC.
	docs, err := bench.LoadDocs(dir, ls, bench.MainTextConfig())
	if err != nil || len(docs) != len(ls) {
		t.Fatalf("%d docs: %v", len(docs), err)
	}
}

// TestRecords: dedupbench records writes n responses that read back with
// valid block digests, each with a payload of its own.
func TestRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.warc.gz")
	var out, errb bytes.Buffer
	if code := run([]string{"records", "-n", "300", "-out", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := warcio.NewReader(f, path)
	r.VerifyDigests = true
	digests := map[string]bool{}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Finish(); err != nil {
			t.Fatal(err)
		}
		if rec.Err != nil || rec.Type() != "response" {
			t.Fatalf("record at %d: type %q, %v", rec.Offset, rec.Type(), rec.Err)
		}
		digests[rec.Header.Get("WARC-Payload-Digest")] = true
	}
	if len(digests) != 300 {
		t.Errorf("%d distinct payloads, want 300", len(digests))
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode: %v, %v", fi.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
