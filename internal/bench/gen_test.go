package bench

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/warcio"
)

// corpusDir is the shared corpus the generator draws its pages from; the test
// skips without it.
func corpusDir(t testing.TB) string {
	t.Helper()
	return testshared.Corpus(t)
}

// needCorpus skips a generator test without the shared corpus.
func needCorpus(t *testing.T) {
	t.Helper()
	testshared.Path(t, "corpus/_pairs/gold_text_overlap_pairs.jsonl")
}

func genSample(t *testing.T, seed uint64) string {
	t.Helper()
	dir := t.TempDir()
	_, err := Generate(Config{Corpus: corpusDir(t), Out: dir, Seed: seed, Files: 2, MaxPages: 160})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGenerateDeterministic(t *testing.T) {
	needCorpus(t)
	a, b, c := genSample(t, 7), genSample(t, 7), genSample(t, 8)
	sameFiles(t, a, b, sampleFiles)
	x, _ := os.ReadFile(filepath.Join(a, "labels.jsonl"))
	z, _ := os.ReadFile(filepath.Join(c, "labels.jsonl"))
	if bytes.Equal(x, z) {
		t.Error("seeds 7 and 8 gave the same labels")
	}
}

// sampleFiles are the files Generate writes with Files: 2.
var sampleFiles = []string{"dedupbench-00.warc.gz", "dedupbench-01.warc.gz", "labels.jsonl", "summary.json"}

// sameFiles checks that the named files of two folders are byte-identical.
func sameFiles(t *testing.T, a, b string, names []string) {
	t.Helper()
	for _, n := range names {
		x, err := os.ReadFile(filepath.Join(a, n))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", n)
		}
	}
}

// TestGenerateReadBack reads every WARC back with warcio and with the
// independent checker, and checks the labels against the records.
func TestGenerateReadBack(t *testing.T) {
	needCorpus(t)
	dir := genSample(t, 11)
	ls := checkWARCs(t, dir, []string{"dedupbench-00.warc.gz", "dedupbench-01.warc.gz"})
	checkLabels(t, ls)
}

// checkWARCs reads the WARCs of dir back with warcio and with the independent
// checker and checks them against labels.jsonl, which it returns.
func checkWARCs(t *testing.T, dir string, names []string) []Label {
	t.Helper()
	ls, err := ReadLabels(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]Label{}
	for _, l := range ls {
		byFile[l.File] = append(byFile[l.File], l)
	}
	if len(byFile) != len(names) {
		t.Fatalf("labels name %d files, want %d", len(byFile), len(names))
	}
	lastDate := ""
	for _, name := range names {
		want := byFile[name]
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r := warcio.NewReader(bufio.NewReader(f), name)
		r.VerifyDigests = true
		n := 0
		for ; ; n++ {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s record %d: %v", name, n, err)
			}
			if ps := warcio.Validate(rec); len(ps) > 0 {
				t.Errorf("%s record %d: %v", name, n, ps)
			}
			if n == 0 {
				if rec.Type() != "warcinfo" {
					t.Errorf("%s: first record is %q, want warcinfo", name, rec.Type())
				}
				continue
			}
			if n > len(want) {
				continue
			}
			l := want[n-1]
			if rec.Type() != "response" || rec.ID() != l.RecordID || rec.Header.Get("WARC-Target-URI") != l.URI ||
				rec.Header.Get("WARC-Date") != l.Date || l.Index != n {
				t.Errorf("%s record %d: %s %s %s, label %+v", name, n, rec.Type(), rec.ID(), rec.Header.Get("WARC-Date"), l)
			}
			if l.Date <= lastDate {
				t.Errorf("%s record %d: date %s not after %s", name, n, l.Date, lastDate)
			}
			lastDate = l.Date
			p, err := warcio.ReadPayload(r, func(*warcio.HTTPResponse) int { return 0 })
			if err != nil {
				t.Fatalf("%s record %d: %v", name, n, err)
			}
			if ct := p.HTTP.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s record %d: Content-Type %q", name, n, ct)
			}
			if p.Digest != rec.Header.Get("WARC-Payload-Digest") {
				t.Errorf("%s record %d: payload digest %s, header says %s", name, n, p.Digest, rec.Header.Get("WARC-Payload-Digest"))
			}
		}
		f.Close()
		if n != len(want)+1 {
			t.Errorf("%s: %d records, want %d (warcinfo and %d labeled)", name, n, len(want)+1, len(want))
		}
		checkIndependently(t, path, len(want)+1)
	}
	return ls
}

func checkIndependently(t *testing.T, path string, want int) {
	t.Helper()
	out, err := testshared.Checker(t, "records", path).CombinedOutput()
	if err != nil {
		t.Fatalf("warccheck records %s: %v\n%s", path, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != want {
		t.Errorf("warccheck lists %d records in %s, want %d", len(lines), path, want)
	}
}

// checkLabels checks what the construction promises of the labels.
func checkLabels(t *testing.T, ls []Label) {
	t.Helper()
	ids := map[string]bool{}
	clusters := map[string][]Label{}
	cases := map[int]int{}
	for _, l := range ls {
		if ids[l.RecordID] {
			t.Errorf("record id %s twice", l.RecordID)
		}
		ids[l.RecordID] = true
		clusters[l.Cluster] = append(clusters[l.Cluster], l)
		cases[l.Case]++
	}
	for _, c := range []int{1, 2, 3, 5} {
		if cases[c] == 0 {
			t.Errorf("no record of case %d", c)
		}
	}
	for id, cl := range clusters {
		c := cl[0].Case
		for _, l := range cl {
			if l.Case != c {
				t.Errorf("cluster %s mixes cases %d and %d", id, c, l.Case)
			}
			if l.Source != cl[0].Source && c != 5 {
				t.Errorf("cluster %s mixes stories %s and %s", id, cl[0].Source, l.Source)
			}
		}
		switch c {
		case 0, 3:
			if len(cl) != 1 {
				t.Errorf("case %d cluster %s has %d records", c, id, len(cl))
			}
		case 1:
			if cl[0].Variant != VarOriginal || len(cl) < 2 {
				t.Errorf("re-capture cluster %s: first %s, %d records", id, cl[0].Variant, len(cl))
			}
			for _, l := range cl[1:] {
				if l.Variant != VarRecapture || l.URI != cl[0].URI {
					t.Errorf("re-capture cluster %s: %s %s after %s", id, l.Variant, l.URI, cl[0].URI)
				}
			}
		case 2:
			uris := map[string]bool{}
			for _, l := range cl {
				if uris[l.URI] {
					t.Errorf("syndication cluster %s: URI %s twice", id, l.URI)
				}
				uris[l.URI] = true
				if l.Variant == VarSynCross && l.Site == siteOfSource(cl) {
					t.Errorf("cross-site copy %s on the source's site", l.URI)
				}
			}
		case 5:
			if len(cl) < 2 {
				t.Errorf("real-pair cluster %s has %d records", id, len(cl))
			}
		}
	}
}

func siteOfSource(cl []Label) string {
	for _, l := range cl {
		if l.Variant == VarOriginal {
			return l.Site
		}
	}
	return ""
}

// TestGenerateFull builds the default benchmark and checks its mix.
func TestGenerateFull(t *testing.T) {
	needCorpus(t)
	if testing.Short() {
		t.Skip("full benchmark in -short mode")
	}
	sum, err := Generate(Config{Corpus: corpusDir(t), Out: t.TempDir(), Seed: DefaultSeed})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records < 3000 || len(sum.Files) != DefaultFiles {
		t.Errorf("%d records in %d files", sum.Records, len(sum.Files))
	}
	if u := sum.ClusterSizes[1]; 2*u < sum.Records {
		t.Errorf("%d of %d records are unique: want most", u, sum.Records)
	}
	if sum.ClustersByCase[1] != DefaultRecaptured || sum.ClustersByCase[2] != DefaultSyndicated {
		t.Errorf("clusters by case %v", sum.ClustersByCase)
	}
	for _, c := range []int{1, 2, 3} {
		if sum.ShortByCase[c] == 0 || sum.ChineseByCase[c] == 0 {
			t.Errorf("case %d: %d short and %d Chinese records, want some of each", c, sum.ShortByCase[c], sum.ChineseByCase[c])
		}
	}
	if sum.RecordsByCase[5] < 30 {
		t.Errorf("%d real-pair records", sum.RecordsByCase[5])
	}
	if sum.DuplicatePairs["case2/cross-site"] == 0 || sum.DuplicatePairs["case2/same-site"] == 0 {
		t.Errorf("duplicate pairs %v", sum.DuplicatePairs)
	}
}
