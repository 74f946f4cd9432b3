package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// cdxjEntries reads CDXJ lines as "offset url mime digest" strings, sorted:
// what a replay tool looks a capture up by and reads it with.
func cdxjEntries(t *testing.T, text string) []string {
	t.Helper()
	var es []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		i := strings.IndexByte(l, '{')
		if i < 0 {
			t.Fatalf("not a CDXJ line: %q", l)
		}
		var j map[string]any
		if err := json.Unmarshal([]byte(l[i:]), &j); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		es = append(es, strings.Join([]string{str(j["offset"]), str(j["url"]), str(j["mime"]), str(j["digest"])}, " "))
	}
	slices.Sort(es)
	return es
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// TestCDXJOutput: --cdxj writes the index of the output with its revisits
// as warc/revisit; with warcio.js installed ($WARCDEDUP_WARCIO_JS, as
// .ci/run installs it), warcio.js's cdx-index of the same output lists the
// same captures at the same offsets.
func TestCDXJOutput(t *testing.T) {
	dir := t.TempDir()
	out, idx := filepath.Join(dir, "out.warc.gz"), filepath.Join(dir, "out.cdxj")
	if code, msg := runCLI(t, "-q", "--cdxj", idx, samplePath, out); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	b, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	ours := cdxjEntries(t, string(b))
	revisits := 0
	for _, e := range ours {
		if strings.Contains(e, " warc/revisit ") {
			revisits++
		}
	}
	if len(ours) == 0 || revisits != 2 || !strings.Contains(string(b), `"filename": "out.warc.gz"`) {
		t.Fatalf("%d lines, %d revisits; want the sample's 2 revisits:\n%s", len(ours), revisits, b)
	}
	if code, _ := runCLI(t, "-q", "--cdxj", idx, samplePath, filepath.Join(dir, "again.warc.gz")); code != exitUsage {
		t.Errorf("an existing --cdxj file was overwritten without --force (exit %d)", code)
	}
	jsDir := os.Getenv("WARCDEDUP_WARCIO_JS")
	cli := filepath.Join(jsDir, "node_modules", "warcio", "dist", "cli.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(cli); jsDir == "" || serr != nil || err != nil {
		t.Skip("warcio.js not installed ($WARCDEDUP_WARCIO_JS): comparison with an independent indexer skipped")
	}
	compareWarcioJS(t, node, cli, idx, out)
	// A real re-crawl pair, with its exact and near revisits.
	if !testshared.Available() {
		return
	}
	d := testshared.Path(t, "warcs/ukwa+webarchive-discovery/warc-indexer/src/test/resources/gov.uk-revisit-warcs")
	ins, _ := filepath.Glob(filepath.Join(d, "BL-*.warc.gz"))
	odir := filepath.Join(dir, "ukwa")
	idx = filepath.Join(dir, "ukwa.cdxj")
	if code, msg := runCLI(t, append(append([]string{"-q", "--cdxj", idx}, ins...), odir+"/")...); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	outs, _ := filepath.Glob(filepath.Join(odir, "*.warc.gz"))
	compareWarcioJS(t, node, cli, idx, outs...)
}

// TestCDXJSortedInRuns: --cdxj over several outputs, its lines sorted in
// runs written to --tmp (a budget of a few lines), writes the bytes it
// writes with every line held, and leaves no run in --tmp.
func TestCDXJSortedInRuns(t *testing.T) {
	ins := stageFiles(t)
	var idx [2][]byte
	for i, budget := range []int{0, 600} {
		dir, tmp := t.TempDir(), t.TempDir()
		path := filepath.Join(dir, "all.cdxj")
		defer func(b int) { cdxjSortBudget = b }(cdxjSortBudget)
		cdxjSortBudget = budget
		if code, msg := runCLI(t, append(append([]string{"-q", "--tmp", tmp, "--cdxj", path}, ins...), filepath.Join(dir, "out")+"/")...); code != exitOK {
			t.Fatalf("budget %d: exit %d: %s", budget, code, msg)
		}
		var err error
		if idx[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "warcdedup-sort-*")); len(left) > 0 {
			t.Errorf("budget %d: runs left in --tmp: %v", budget, left)
		}
	}
	if n := bytes.Count(idx[0], []byte("\n")); n < 10 || !bytes.Equal(idx[0], idx[1]) {
		t.Errorf("%d lines; sorted in runs the index differs:\n%s\nheld:\n%s", n, idx[1], idx[0])
	}
}

// compareWarcioJS compares the --cdxj file idx with warcio.js's cdx-index of
// the outputs.
func compareWarcioJS(t *testing.T, node, cli, idx string, outs ...string) {
	t.Helper()
	b, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	ours := cdxjEntries(t, string(b))
	var theirs []string
	for _, out := range outs {
		js, err := exec.Command(node, cli, "cdx-index", "--format", "cdxj", out).Output()
		if err != nil {
			t.Fatalf("warcio.js: %v", err)
		}
		for _, e := range cdxjEntries(t, string(js)) {
			if httpEntry(e) {
				theirs = append(theirs, filepath.Base(out)+" "+e)
			}
		}
	}
	slices.Sort(theirs)
	// Entries carry the file name here, to tell apart the offsets of two
	// outputs.
	ours = ours[:0]
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var j map[string]any
		json.Unmarshal([]byte(l[strings.IndexByte(l, '{'):]), &j)
		e := strings.Join([]string{str(j["offset"]), str(j["url"]), str(j["mime"]), str(j["digest"])}, " ")
		if httpEntry(e) {
			ours = append(ours, str(j["filename"])+" "+e)
		}
	}
	slices.Sort(ours)
	// warcio.js computes no digest for a record that has no
	// WARC-Payload-Digest (pywb does, and so does --cdxj): a digest is
	// compared where both give one.
	if len(ours) != len(theirs) {
		t.Errorf("--cdxj has %d lines, warcio.js %d:\n ours   %q\n theirs %q", len(ours), len(theirs), ours, theirs)
	}
	for i := range ours {
		o, th := ours[i], theirs[i]
		if strings.HasSuffix(th, " ") {
			o = o[:strings.LastIndexByte(o, ' ')+1]
		}
		if o != th {
			t.Errorf("--cdxj and warcio.js differ:\n ours   %q\n theirs %q", ours[i], theirs[i])
		}
	}
}

// httpEntry says whether an entry is of an http(s) URL: warcio.js reads the
// records of other URLs (dns:) as HTTP and gives them no type, where pywb
// and --cdxj give the record's own (text/dns).
func httpEntry(e string) bool {
	_, rest, _ := strings.Cut(e, " ")
	return strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://")
}
