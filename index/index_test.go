package index

import (
	"errors"
	"fmt"
	"github.com/warcdedup/warcdedup/internal/testfs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/near"
)

const testAnalysis = "test-analysis"

func records(from, n int) []*Record {
	var rs []*Record
	for i := from; i < from+n; i++ {
		r := &Record{ID: fmt.Sprintf("<urn:uuid:%d>", i), URI: fmt.Sprintf("http://example.com/%d", i),
			Date: "2024-01-02T03:04:05Z", Digest: fmt.Sprintf("sha1:%032d", i), Computed: fmt.Sprintf("sha1:%032d", i),
			File: "out.warc.gz", Offset: int64(i * 1000)}
		r.SHA256[0] = byte(i)
		if i%2 == 0 {
			r.Page = &near.Page{Site: "example.com", URL: near.URLKey(r.URI),
				Spots: features.Bag{{Key: uint64(i), N: 1}, {Key: uint64(i + 1000), N: 2}}}
		}
		rs = append(rs, r)
	}
	return rs
}

func addSegment(t *testing.T, dir string, rs []*Record) { writeSegment(t, dir, rs, false) }

// stageSegment writes rs as a staged segment of the index in dir.
func stageSegment(t *testing.T, dir string, rs []*Record) { writeSegment(t, dir, rs, true) }

func writeSegment(t *testing.T, dir string, rs []*Record, stage bool) {
	t.Helper()
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w, err := ix.NewWriter([]string{"in.warc.gz"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if stage {
		err = w.Stage()
	} else {
		err = w.Commit()
	}
	if err != nil {
		t.Fatal(err)
	}
}

func loadAll(t *testing.T, dir string) []*Record {
	t.Helper()
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var got []*Record
	if err := ix.Load(func(r *Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := append(records(0, 50), records(50, 30)...)
	addSegment(t, dir, want[:50])
	addSegment(t, dir, want[50:])
	got := loadAll(t, dir)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %d records, not the %d written", len(got), len(want))
	}
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st := ix.Stats()
	if st.Segments != 2 || st.Records != 80 || st.Pages != 40 || st.Bytes == 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestRefused(t *testing.T) {
	dir := t.TempDir()
	addSegment(t, dir, records(0, 10))
	if _, err := Open(dir, "another analysis"); !errors.Is(err, ErrFormat) {
		t.Errorf("another analysis: %v, want ErrFormat", err)
	}
	man := filepath.Join(dir, manifestName)
	b, _ := os.ReadFile(man)
	next := fmt.Sprintf(`"format": %d`, Format+1)
	os.WriteFile(man, []byte(strings.Replace(string(b), fmt.Sprintf(`"format": %d`, Format), next, 1)), 0o666)
	if _, err := Open(dir, testAnalysis); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), fmt.Sprintf("format %d", Format+1)) {
		t.Errorf("another format: %v, want ErrFormat naming it", err)
	}
	os.WriteFile(man, b, 0o666)
	// A flipped byte in a segment is damage, found by the CRC.
	seg := filepath.Join(dir, "seg-000001.wdx")
	sb, _ := os.ReadFile(seg)
	sb[len(segMagic)+40] ^= 1
	os.WriteFile(seg, sb, 0o666)
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Load(func(*Record) error { return nil }); !errors.Is(err, ErrDamaged) {
		t.Errorf("flipped byte: %v, want ErrDamaged", err)
	}
}

func TestLocked(t *testing.T) {
	dir := t.TempDir()
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := Open(dir, testAnalysis); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
}

// TestAbortLeavesNothing: a writer that is not committed leaves the index
// as it was, and no file behind.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	addSegment(t, dir, records(0, 5))
	before, _ := os.ReadDir(dir)
	ix, _ := Open(dir, testAnalysis)
	w, err := ix.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Add(records(5, 1)[0])
	w.Abort()
	ix.Close()
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("%d files after an abort, %d before", len(after), len(before))
	}
	if got := loadAll(t, dir); len(got) != 5 {
		t.Errorf("%d records after an abort", len(got))
	}
}

// userFiles are files of someone else's in an index's directory, named as
// an index's temporary and segment files are named, but not as this
// index names its own.
var userFiles = map[string]string{
	"x.tmp":                  "draft\n",
	"seg-notes.txt":          "notes\n",
	"seg-1.wdx":              "one\n",
	"seg-0000002.wdx":        "two\n",
	"seg-000002.wdx.bak":     "backup\n",
	"seg-000003.wdx.tmp.txt": "three\n",
	"MANIFEST.bak":           "{}\n",
	"notes/seg-000004.wdx":   "four\n",
}

// TestKilledDuringCommit kills a process (SIGKILL) at each step of adding a
// segment: before the MANIFEST is replaced, the index is as it was and the
// next Open removes what the run left; after, the segment is in. Other
// files in the directory stay as they are through it all.
func TestKilledDuringCommit(t *testing.T) {
	if step := os.Getenv("INDEX_TEST_KILL_AT"); step != "" {
		testCrash = func(s string) {
			if s == step {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		addSegment(t, os.Getenv("INDEX_TEST_DIR"), records(100, 200))
		return
	}
	for _, tc := range []struct {
		step  string
		first bool     // the killed run adds the index's first segment
		in    bool     // the new segment is in the index after the kill
		left  []string // what the killed run left, for the next Open to remove
	}{
		{"segment-written", false, false, []string{"seg-000002.wdx.tmp"}},
		{"segment-renamed", false, false, []string{"seg-000002.wdx"}},
		{"manifest-written", false, false, []string{"seg-000002.wdx", "MANIFEST.tmp"}},
		{"manifest-renamed", false, true, nil},
		{"segment-written", true, false, []string{"seg-000001.wdx.tmp"}},
		{"manifest-written", true, false, []string{"seg-000001.wdx", "MANIFEST.tmp"}},
	} {
		name := tc.step
		if tc.first {
			name += "-first"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			want := 0
			if !tc.first {
				addSegment(t, dir, records(0, 10))
				want = 10
			} else if ix, err := Open(dir, testAnalysis); err != nil {
				t.Fatal(err)
			} else {
				ix.Close()
			}
			fill(t, dir, userFiles)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledDuringCommit$")
			cmd.Env = append(os.Environ(), "INDEX_TEST_KILL_AT="+tc.step, "INDEX_TEST_DIR="+dir)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v", err)
			}
			for _, n := range tc.left {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("the killed run left no %s: %v", n, err)
				}
			}
			got := loadAll(t, dir)
			if tc.in {
				want += 200
			}
			if len(got) != want {
				t.Fatalf("%d records after a kill at %s, want %d", len(got), tc.step, want)
			}
			for _, n := range tc.left {
				if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left behind: %v", n, err)
				}
			}
			checkFiles(t, dir, userFiles)
			// The index goes on: one more run adds to it.
			addSegment(t, dir, records(500, 3))
			if got := loadAll(t, dir); len(got) != want+3 {
				t.Errorf("%d records after one more run", len(got))
			}
			checkFiles(t, dir, userFiles)
		})
	}
}

// TestKilledDuringCommitStaged kills `index commit` (SIGKILL) at each step
// of committing a staged segment: after the kill the segment is either in
// the index or staged still, as a read-only look and a writer both say, and
// committing it again adds it; it is never lost. Killed after the segment
// is renamed and before the MANIFEST names it, the segment is under its
// final name and named by nothing but the staged segment's note.
func TestKilledDuringCommitStaged(t *testing.T) {
	if step := os.Getenv("INDEX_TEST_KILL_STAGED_AT"); step != "" {
		testCrash = func(s string) {
			if s == step {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
		ix, err := OpenExisting(os.Getenv("INDEX_TEST_DIR"), "")
		if err != nil {
			t.Fatal(err)
		}
		ix.CommitStaged()
		return
	}
	for _, tc := range []struct {
		step      string
		committed bool     // the segment is in the index after the kill
		left      []string // files the kill left
	}{
		{"commit-noted", false, []string{stagedName, stagedMetaName}},
		{"segment-renamed", false, []string{"seg-000002.wdx", stagedMetaName}},
		{"manifest-written", false, []string{"seg-000002.wdx", stagedMetaName, "MANIFEST.tmp"}},
		{"manifest-renamed", true, []string{"seg-000002.wdx", stagedMetaName}},
	} {
		t.Run(tc.step, func(t *testing.T) {
			dir := t.TempDir()
			addSegment(t, dir, records(0, 10))
			stageSegment(t, dir, records(10, 5))
			fill(t, dir, userFiles)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledDuringCommitStaged$")
			cmd.Env = append(os.Environ(), "INDEX_TEST_KILL_STAGED_AT="+tc.step, "INDEX_TEST_DIR="+dir)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v", err)
			}
			for _, n := range tc.left {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("the killed commit left no %s: %v", n, err)
				}
			}
			checkStagedOrIn(t, dir, tc.committed)
		})
	}
	// A note written without the segment's final name (by a version that
	// did not write it): the segment under the next name is the staged one
	// when its size, count and CRC-32C are the note's.
	t.Run("note-without-name", func(t *testing.T) {
		dir := t.TempDir()
		addSegment(t, dir, records(0, 10))
		stageSegment(t, dir, records(10, 5))
		fill(t, dir, userFiles)
		if err := os.Rename(filepath.Join(dir, stagedName), filepath.Join(dir, "seg-000002.wdx")); err != nil {
			t.Fatal(err)
		}
		checkStagedOrIn(t, dir, false)
	})
	// A note that cannot be read may claim any segment file: none the
	// MANIFEST does not name is removed until it is discarded.
	t.Run("note-unreadable", func(t *testing.T) {
		dir := t.TempDir()
		stageSegment(t, dir, records(10, 5))
		seg := filepath.Join(dir, "seg-000001.wdx")
		if err := os.Rename(filepath.Join(dir, stagedName), seg); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, stagedMetaName), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(dir, testAnalysis)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Staged(); !errors.Is(err, ErrDamaged) {
			t.Errorf("Staged with an unreadable note: %v, want ErrDamaged", err)
		}
		ix.Close()
		if _, err := os.Stat(seg); err != nil {
			t.Fatalf("the segment the note may claim is gone: %v", err)
		}
		ix, err = Open(dir, testAnalysis)
		if err != nil {
			t.Fatal(err)
		}
		err = ix.DiscardStaged()
		ix.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := loadAll(t, dir); len(got) != 0 {
			t.Errorf("%d records after discarding", len(got))
		}
		if _, err := os.Stat(seg); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the unnamed segment stays once the note is discarded: %v", err)
		}
	})
}

// checkStagedOrIn checks that the index in dir holds the 10 records of its
// first segment and the 5 of the staged one, committed if committed and
// staged otherwise; it commits them if staged, and checks the index after.
func checkStagedOrIn(t *testing.T, dir string, committed bool) {
	t.Helper()
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	seg, err := ro.Staged()
	n := ro.Stats().Records
	ro.Close()
	switch {
	case err != nil:
		t.Fatalf("read-only: %v", err)
	case committed && (seg != nil || n != 15):
		t.Fatalf("read-only: staged %v, %d records in the index; want none staged and 15", seg, n)
	case !committed && (seg == nil || seg.Records != 5 || n != 10):
		t.Fatalf("read-only: staged %v, %d records in the index; want 5 staged and 10", seg, n)
	}
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	seg, err = ix.Staged()
	n = ix.Stats().Records
	if err != nil || committed != (seg == nil) || !committed && seg.Records != 5 || n != map[bool]int{true: 15, false: 10}[committed] {
		ix.Close()
		t.Fatalf("opened to write: staged %v (%v), %d records in the index", seg, err, n)
	}
	if !committed {
		if _, err := ix.NewWriter(nil); !errors.Is(err, ErrStaged) {
			t.Errorf("a writer with the segment staged: %v, want ErrStaged", err)
		}
		got, err := ix.CommitStaged()
		if err != nil {
			ix.Close()
			t.Fatal(err)
		}
		if got.Name != "seg-000002.wdx" || got.Records != 5 {
			t.Errorf("committed as %+v", got)
		}
	}
	ix.Close()
	got := loadAll(t, dir)
	if len(got) != 15 || got[10].ID != "<urn:uuid:10>" {
		t.Fatalf("%d records in the index, want 15", len(got))
	}
	for _, n := range []string{stagedName, stagedMetaName, "MANIFEST.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", n, err)
		}
	}
	checkFiles(t, dir, userFiles)
	addSegment(t, dir, records(500, 3))
	if got := loadAll(t, dir); len(got) != 18 {
		t.Errorf("%d records after one more run, want 18", len(got))
	}
}

// checkFiles checks that the files under dir are as files says.
func checkFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	have := testfs.Files(t, dir)
	for n, want := range files {
		if got, ok := have[n]; !ok {
			t.Errorf("%s is gone", n)
		} else if got != want {
			t.Errorf("%s holds %q, not %q", n, got, want)
		}
	}
}

// TestStagedSegment: a staged segment is not in the index until it is
// committed, survives closing and opening the index, blocks other writers
// until committed or discarded, and is refused by an index of another
// analysis; committed, it loads after the segments before it.
func TestStagedSegment(t *testing.T) {
	dir := t.TempDir()
	addSegment(t, dir, records(0, 10))
	stageSegment(t, dir, records(10, 5))
	if got := loadAll(t, dir); len(got) != 10 {
		t.Fatalf("%d records loaded with a segment staged; want the 10 committed", len(got))
	}
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.NewWriter(nil); !errors.Is(err, ErrStaged) {
		t.Errorf("a writer with a segment staged: %v, want ErrStaged", err)
	}
	if seg, err := ix.Staged(); err != nil || seg == nil || seg.Records != 5 {
		t.Fatalf("Staged: %v, %v", seg, err)
	}
	ix.Close()
	if other, err := Open(dir, ""); err == nil {
		other.analysis = "other-analysis"
		if _, err := other.Staged(); !errors.Is(err, ErrFormat) {
			t.Errorf("a staged segment under another analysis: %v, want ErrFormat", err)
		}
		other.Close()
	}
	ix, err = Open(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	seg, err := ix.CommitStaged()
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	if seg.Name != "seg-000002.wdx" || seg.Records != 5 {
		t.Errorf("committed as %+v", seg)
	}
	got := loadAll(t, dir)
	if len(got) != 15 || got[10].ID != "<urn:uuid:10>" {
		t.Fatalf("%d records after the commit", len(got))
	}
	// Staged and discarded: the index is as it was, and takes writers.
	stageSegment(t, dir, records(20, 3))
	ix, err = Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.DiscardStaged(); err != nil {
		t.Fatal(err)
	}
	if seg, err := ix.Staged(); seg != nil || err != nil {
		t.Errorf("after discarding: %v, %v", seg, err)
	}
	ix.Close()
	addSegment(t, dir, records(30, 2))
	if got := loadAll(t, dir); len(got) != 17 {
		t.Errorf("%d records, want 17", len(got))
	}
}

// TestStagedSegmentDamaged: a staged segment that does not read back whole
// is not committed, and stays for the caller to discard.
func TestStagedSegmentDamaged(t *testing.T) {
	dir := t.TempDir()
	stageSegment(t, dir, records(0, 8))
	p := filepath.Join(dir, stagedName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.CommitStaged(); !errors.Is(err, ErrDamaged) {
		t.Errorf("commit of a damaged staged segment: %v, want ErrDamaged", err)
	}
	if seg, _ := ix.Staged(); seg == nil {
		t.Error("the damaged staged segment is gone")
	}
	if n := len(ix.Segments()); n != 0 {
		t.Errorf("%d segments in the index", n)
	}
}

// fill writes files (path: content, "dir" for a directory) under dir.
func fill(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if content == "dir" {
			if err := os.MkdirAll(p, 0o777); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenNotAnIndex: a directory that holds anything and no MANIFEST is
// not an index: opening it fails, naming it, and leaves every file as it
// was, and creates none (not even the lock file). Files named as the
// index names its own are no exception: without a MANIFEST nothing says
// the index wrote them.
func TestOpenNotAnIndex(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"crawl", map[string]string{"seg-0001.warc.gz": "WARC/1.1\r\n", "draft.tmp": "important\n", "seg-notes.txt": "keep\n"}},
		{"temporary-names", map[string]string{"a.tmp": "x\n", "seg-x": "y\n"}},
		{"index-names", map[string]string{"seg-000001.wdx": "mine\n", "seg-000002.wdx.tmp": "mine too\n", "MANIFEST.tmp": "{}\n"}},
		{"empty-file", map[string]string{".keep": ""}},
		{"subdirectory", map[string]string{"sub": "dir", "sub/seg-000001.wdx": "z\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fill(t, dir, tc.files)
			before := testfs.Files(t, dir)
			ix, err := Open(dir, testAnalysis)
			if err == nil {
				ix.Close()
				t.Error("Open succeeded")
			} else if !errors.Is(err, ErrNotIndex) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "not a warcdedup index") {
				t.Errorf("Open: %v; want ErrNotIndex naming %s", err, dir)
			}
			for what, open := range map[string]func() (*Index, error){
				"OpenExisting": func() (*Index, error) { return OpenExisting(dir, testAnalysis) },
				"OpenReadOnly": func() (*Index, error) { return OpenReadOnly(dir) },
			} {
				if ix, err := open(); !errors.Is(err, ErrNoIndex) {
					if ix != nil {
						ix.Close()
					}
					t.Errorf("%s: %v, want ErrNoIndex", what, err)
				}
			}
			if after := testfs.Files(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("the directory changed:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// TestOpenNewIndex: an index is made in a directory that does not exist or
// is empty, with its MANIFEST at once, so that it is known as an index
// (and opened as one) even before a run adds to it; an open that is not to
// make one makes nothing.
func TestOpenNewIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		make bool // the directory exists, empty
		lock bool // ... but for the lock file a run killed before its MANIFEST leaves
	}{
		{"missing", false, false},
		{"empty", true, false},
		{"lock-only", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "index")
			if tc.make {
				if err := os.MkdirAll(dir, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			if tc.lock {
				fill(t, dir, map[string]string{lockName: ""})
			}
			before := testfs.Files(t, dir)
			for what, open := range map[string]func() (*Index, error){
				"OpenExisting": func() (*Index, error) { return OpenExisting(dir, testAnalysis) },
				"OpenReadOnly": func() (*Index, error) { return OpenReadOnly(dir) },
			} {
				if ix, err := open(); !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "no index at "+dir) {
					if ix != nil {
						ix.Close()
					}
					t.Errorf("%s: %v, want ErrNoIndex naming %s", what, err, dir)
				}
			}
			if after := testfs.Files(t, dir); !reflect.DeepEqual(after, before) {
				t.Fatalf("an open that makes no index changed the directory:\nbefore %q\nafter  %q", before, after)
			}
			ix, err := Open(dir, testAnalysis)
			if err != nil {
				t.Fatal(err)
			}
			ix.Close() // no segment added
			if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
				t.Fatalf("a new index has no MANIFEST: %v", err)
			}
			ro, err := OpenReadOnly(dir)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(ro.Segments()); n != 0 {
				t.Errorf("%d segments in a new index", n)
			}
			ro.Close()
			// Pages of another analysis may fill an index that holds none,
			// and no other then.
			if other, err := Open(dir, "another analysis"); err != nil {
				t.Errorf("another analysis before any segment: %v", err)
			} else {
				other.Close()
			}
			addSegment(t, dir, records(0, 4))
			if _, err := Open(dir, "another analysis"); !errors.Is(err, ErrFormat) {
				t.Errorf("another analysis after a segment: %v, want ErrFormat", err)
			}
		})
	}
}

// TestOpenReadOnly: reading an index changes nothing in it, even what a
// run opened for writing removes, and adds nothing to it.
func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	addSegment(t, dir, records(0, 6))
	fill(t, dir, map[string]string{
		"seg-000007.wdx.tmp": "left by a killed run\n",
		"seg-000007.wdx":     "left by a killed run\n",
		"MANIFEST.tmp":       "{}\n",
		stagedName:           "staging stopped before its note\n",
	})
	before := testfs.Files(t, dir)
	ix, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := ix.Stats(); st.Segments != 1 || st.Records != 6 {
		t.Errorf("stats %+v", st)
	}
	if seg, err := ix.Staged(); seg != nil || err != nil {
		t.Errorf("Staged: %v, %v", seg, err)
	}
	n := 0
	if err := ix.Load(func(*Record) error { n++; return nil }); err != nil || n != 6 {
		t.Errorf("loaded %d records: %v", n, err)
	}
	if _, err := ix.NewWriter(nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("NewWriter: %v, want ErrReadOnly", err)
	}
	if _, err := ix.CommitStaged(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CommitStaged: %v, want ErrReadOnly", err)
	}
	if err := ix.DiscardStaged(); !errors.Is(err, ErrReadOnly) {
		t.Errorf("DiscardStaged: %v, want ErrReadOnly", err)
	}
	// Readers share the index, and keep writers out.
	other, err := OpenReadOnly(dir)
	if err != nil {
		t.Errorf("a second reader: %v", err)
	} else {
		other.Close()
	}
	if w, err := Open(dir, testAnalysis); !errors.Is(err, ErrLocked) {
		if w != nil {
			w.Close()
		}
		t.Errorf("a writer while reading: %v, want ErrLocked", err)
	}
	ix.Close()
	if after := testfs.Files(t, dir); !reflect.DeepEqual(after, before) {
		t.Errorf("reading changed the index:\nbefore %q\nafter  %q", before, after)
	}
}

// TestGoneEntries: a replaced capture's entry (Record.Gone) is written and
// read back in its place among the kept records, counted apart in the
// segment; an index of format 1, which has none, is read as it is and
// written as the current format with its next segment.
func TestGoneEntries(t *testing.T) {
	dir := t.TempDir()
	addSegment(t, dir, records(0, 4))
	man := filepath.Join(dir, manifestName)
	b, _ := os.ReadFile(man)
	old := strings.Replace(string(b), fmt.Sprintf(`"format": %d`, Format), `"format": 1`, 1)
	if old == string(b) {
		t.Fatal("the MANIFEST names no format")
	}
	os.WriteFile(man, []byte(old), 0o666)
	gone := &Record{Gone: true}
	copy(gone.GoneKey[:], "0123456789abcdef")
	addSegment(t, dir, append(records(4, 2), gone))
	ix, err := Open(dir, testAnalysis)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var got []*Record
	if err := ix.Load(func(r *Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || !got[6].Gone || got[6].GoneKey != gone.GoneKey || got[5].Gone || got[6].Page != nil {
		t.Errorf("entries read: %d, last %+v", len(got), got[len(got)-1])
	}
	if st := ix.Stats(); st.Records != 7 || st.Gone != 1 {
		t.Errorf("stats %+v, want 7 records of which 1 gone", st)
	}
	if b, _ := os.ReadFile(man); !strings.Contains(string(b), fmt.Sprintf(`"format": %d`, Format)) {
		t.Errorf("MANIFEST after a new segment:\n%s", b)
	}
}

// TestNewIndexBeingMade: a new index's directory that holds only the lock
// and a temporary MANIFEST is another run making the index (ErrLocked,
// while that run holds the lock), or one killed making it (the index is
// made, its leftover removed); it is no foreign directory (ErrNotIndex).
func TestNewIndexBeingMade(t *testing.T) {
	for _, held := range []bool{true, false} {
		t.Run(fmt.Sprintf("held %v", held), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "ix")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			lf, err := os.Create(filepath.Join(dir, lockName))
			if err != nil {
				t.Fatal(err)
			}
			defer lf.Close()
			if err := os.WriteFile(filepath.Join(dir, manifestName+".tmp"), []byte("{"), 0o644); err != nil {
				t.Fatal(err)
			}
			if held {
				if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
					t.Fatal(err)
				}
			}
			ix, err := Open(dir, "a")
			if held {
				if !errors.Is(err, ErrLocked) {
					t.Errorf("Open: %v, want ErrLocked", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer ix.Close()
			if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
				t.Errorf("no MANIFEST made: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, manifestName+".tmp")); err == nil {
				t.Error("the killed run's temporary MANIFEST is left")
			}
		})
	}
}

// TestUnmakeKeepsLock: Unmake leaves the lock file, so a run that opened
// it before and locks it after (it was waiting) and a run that comes later
// lock one file: the later one is refused (ErrLocked) while the first holds
// it, and no two runs hold the index at once.
func TestUnmakeKeepsLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	a, err := Open(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	// B opened the lock file while A held it, and waits for the lock.
	b, err := os.Open(filepath.Join(dir, lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Unmake(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(b.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("B could not lock: %v", err)
	}
	if c, err := Open(dir, "a"); !errors.Is(err, ErrLocked) {
		if err == nil {
			c.Close()
		}
		t.Errorf("C opened the index B holds: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err == nil {
		t.Error("Unmake left the MANIFEST")
	}
}

// A run that found a new index's MANIFEST, and took the lock only after the
// run that made it had added nothing and unmade it, makes the index again:
// the directory is new, not "no index".
func TestOpenAfterUnmake(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ix")
	a, err := Open(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	testCrash = func(step string) {
		if step == "looked" {
			testCrash = nil
			if err := a.Unmake(); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func() { testCrash = nil }()
	b, err := Open(dir, "a")
	if err != nil {
		t.Fatalf("B after A unmade the index: %v", err)
	}
	defer b.Close()
	if _, err := os.Stat(filepath.Join(dir, manifestName)); err != nil {
		t.Errorf("B holds the index and it has no MANIFEST: %v", err)
	}
	if !b.made {
		t.Error("B does not know it made the index")
	}
}
