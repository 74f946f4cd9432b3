package index

import (
	"errors"
	"fmt"
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
	os.WriteFile(man, []byte(strings.Replace(string(b), `"format": 1`, `"format": 2`, 1)), 0o666)
	if _, err := Open(dir, testAnalysis); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "format 2") {
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

// TestKilledDuringCommit kills a process (SIGKILL) at each step of adding a
// segment: before the MANIFEST is replaced, the index is as it was and the
// next Open removes what the run left; after, the segment is in.
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
		step string
		in   bool // the new segment is in the index after the kill
	}{
		{"segment-written", false}, {"segment-renamed", false}, {"manifest-written", false}, {"manifest-renamed", true},
	} {
		t.Run(tc.step, func(t *testing.T) {
			dir := t.TempDir()
			addSegment(t, dir, records(0, 10))
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledDuringCommit$")
			cmd.Env = append(os.Environ(), "INDEX_TEST_KILL_AT="+tc.step, "INDEX_TEST_DIR="+dir)
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed: %v", err)
			}
			got := loadAll(t, dir)
			want := 10
			if tc.in {
				want = 210
			}
			if len(got) != want {
				t.Fatalf("%d records after a kill at %s, want %d", len(got), tc.step, want)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("%s left behind", e.Name())
				}
			}
			// The index goes on: one more run adds to it.
			addSegment(t, dir, records(500, 3))
			if got := loadAll(t, dir); len(got) != want+3 {
				t.Errorf("%d records after one more run", len(got))
			}
		})
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
