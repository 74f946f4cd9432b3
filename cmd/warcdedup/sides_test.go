package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsRefused: outputs that would be written over the index, into
// one stream with another output, twice under two spellings, or that an
// index or a CDXJ cannot stand for, are refused before anything is
// written (exit 2), --force or not, and the index stays as it was.
func TestOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	if code, msg := runCLI(t, "-q", "--index", ix, samplePath, filepath.Join(dir, "first")+"/"); code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, msg)
	}
	manifest := filepath.Join(ix, "MANIFEST")
	check := snapshot(t, manifest)
	nested := filepath.Join(dir, "tree")
	for _, sub := range []string{"s1", "s2"} {
		copyFile(t, samplePath, filepath.Join(nested, sub, "a.warc.gz"))
	}
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"a report over the index's MANIFEST", []string{"--force", "--index", ix, "--report", manifest, samplePath, out + "/"}, "in the index directory"},
		{"a report into the index's directory", []string{"--index", ix, "--report", filepath.Join(ix, "r.jsonl"), samplePath, out + "/"}, "in the index directory"},
		{"a WARC output into the index's directory", []string{"--index", ix, samplePath, filepath.Join(ix, "x.warc.gz")}, "in the index directory"},
		{"an index with the output discarded", []string{"--index", ix, samplePath, os.DevNull}, "not a file"},
		{"one output under two spellings", []string{"--report", filepath.Join(out, "..", "out", "sample.warc.gz"), samplePath, out + "/"}, "would both write"},
		{"one output under two spellings, --force", []string{"--force", "--report", out + "//sample.warc.gz", samplePath, out + "/"}, "would both write"},
		{"a CDXJ of two outputs of one name", []string{"--cdxj", filepath.Join(dir, "all.cdxj"), nested, out + "/"}, "both a.warc.gz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, msg := runCLI(t, append([]string{"-q"}, c.args...)...)
			if code != exitUsage || !strings.Contains(msg, c.msg) {
				t.Errorf("exit %d, %q; want %d and %q", code, msg, exitUsage, c.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was made", out)
			}
		})
	}
	check()

	// The report named by the file standard output is (--report
	// /dev/stdout with the WARC on standard output).
	f, err := os.Create(filepath.Join(dir, "stdout.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--force", "--report", f.Name(), samplePath, "-"}, nil, f, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "would both write") {
		t.Errorf("a report on standard output's file: exit %d, %q", code, stderr.String())
	}

	// reduce's report into the index's directory.
	_, facts, _ := step(t, mapList([]string{samplePath}), "map", "-q")
	sorted := []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n")))
	if code, _, msg := step(t, sorted, "reduce", "-q", "--index", ix, "--report", filepath.Join(ix, "r.jsonl")); code != exitUsage || !strings.Contains(msg, "in the index directory") {
		t.Errorf("reduce --report into the index: exit %d, %q", code, msg)
	}
	check()
}

// TestRefusedRunLeavesNoDirectory: a run refused after its outputs'
// directories were made (here: the index is damaged) removes those it
// made, and leaves the ones it found.
func TestRefusedRunLeavesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	ix := filepath.Join(dir, "ix")
	if err := os.MkdirAll(ix, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ix, "MANIFEST"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	found := filepath.Join(dir, "found")
	if err := os.Mkdir(found, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(found, "a", "b")
	if code, msg := runCLI(t, "-q", "--index", ix, samplePath, out+"/"); code != exitFailure || !strings.Contains(msg, "damaged") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if ns := names(t, found); len(ns) != 0 {
		t.Errorf("left %v in %s", ns, found)
	}
	// A run that writes its output keeps the directories.
	if code, msg := runCLI(t, "-q", samplePath, out+"/"); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if ns := names(t, out); len(ns) != 1 {
		t.Errorf("%s holds %v", out, ns)
	}
}

// TestNoEmptyIndexLeft: a command given --index NEWDIR that adds nothing
// to it (a dry run, a map, which only reads an index, a reduce that fails,
// a run whose every file fails) leaves no new, empty index behind (at
// most the lock file of one it made); one that adds makes it.
func TestNoEmptyIndexLeft(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.warc.gz")
	b := mustRead(t, samplePath)
	if err := os.WriteFile(bad, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, facts, _ := step(t, mapList([]string{samplePath}), "map", "-q")
	sorted := sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))
	for i, c := range []struct {
		name  string
		stdin string
		args  func(ix string) []string
		code  int
	}{
		{"a dry run", "", func(ix string) []string {
			return []string{"-n", "--index", ix, samplePath, filepath.Join(dir, "o0") + "/"}
		}, exitOK},
		{"a run whose file fails", "", func(ix string) []string { return []string{"--index", ix, bad, filepath.Join(dir, "o1") + "/"} }, exitFailure},
		{"a run whose CDX is missing", "", func(ix string) []string {
			return []string{"--index", ix, "--index-cdx", filepath.Join(dir, "none.cdx"), samplePath, filepath.Join(dir, "o2") + "/"}
		}, exitUsage},
		{"map --rounds", "0\t" + samplePath + "\n", func(ix string) []string { return []string{"map", "--rounds", "--index", ix} }, exitOK},
		{"map of a file that is not there", "0\t" + filepath.Join(dir, "none.warc.gz") + "\n", func(ix string) []string { return []string{"map", "--rounds", "--index", ix} }, exitFailure},
		{"a reduce of lines out of order", "b\tx\na\tx\n", func(ix string) []string { return []string{"reduce", "--index", ix} }, exitFailure},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := filepath.Join(dir, fmt.Sprintf("ix%d", i))
			code, _, stderr := step(t, []byte(c.stdin), c.args(ix)...)
			if code != c.code {
				t.Errorf("exit %d, want %d: %s", code, c.code, stderr)
			}
			// No index: at most the lock file of one made and undone
			// (a directory holding only it is still new).
			if ns, err := os.ReadDir(ix); err == nil && (len(ns) > 1 || len(ns) == 1 && ns[0].Name() != "lock") {
				t.Errorf("%s holds %v", ix, names(t, ix))
			}
			if code, _, _ := step(t, nil, "index", ix); code == exitOK {
				t.Errorf("%s holds an index", ix)
			}
		})
	}
	// A reduce that stages makes the index.
	ix := filepath.Join(dir, "made")
	if code, _, stderr := step(t, []byte(sorted), "reduce", "-q", "--index", ix); code != exitOK {
		t.Fatalf("reduce: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(ix, "MANIFEST")); err != nil {
		t.Errorf("a reduce that staged made no index: %v", err)
	}
}

// TestLinkThenDotDot: an output named through a link followed by ".."
// (L/../d/x, where L links to another directory) is the file the kernel
// opens there: it is refused in the index's directory, it is not taken
// for a file of the same name beside L, and it is written, with its lock
// and directory, where it names.
func TestLinkThenDotDot(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep")
	if err := os.MkdirAll(filepath.Join(deep, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "L")
	if err := os.Symlink(filepath.Join(deep, "sub"), link); err != nil {
		t.Fatal(err)
	}
	ix := filepath.Join(deep, "ix")
	if code, msg := runCLI(t, "-q", "--index", ix, samplePath, filepath.Join(dir, "o1.warc.gz")); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	check := snapshot(t, filepath.Join(ix, "MANIFEST"))
	staged := link + "/../ix/staged.json"
	if code, msg := runCLI(t, "-q", "--index", ix, "--report", staged, samplePath, filepath.Join(dir, "o2.warc.gz")); code != exitUsage || !strings.Contains(msg, "in the index directory") {
		t.Errorf("a report into the index through L/..: exit %d, %s", code, msg)
	}
	if _, err := os.Stat(filepath.Join(ix, "staged.json")); err == nil {
		t.Error("the report was written into the index")
	}
	check()
	// deep/n/x.warc.gz and dir/n/x.warc.gz: two files.
	there, here := link+"/../n/x.warc.gz", filepath.Join(dir, "n", "x.warc.gz")
	if code, msg := runCLI(t, "-q", "--report", here, samplePath, there); code != exitOK {
		t.Fatalf("two files: exit %d: %s", code, msg)
	}
	for _, p := range []string{filepath.Join(deep, "n", "x.warc.gz"), here} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if ns := names(t, filepath.Join(deep, "n")); len(ns) != 1 {
		t.Errorf("deep/n holds %v", ns)
	}

	// An output that is a link whose relative target starts with "..",
	// in a directory reached through a link: the target is beside the
	// link's directory as the kernel finds it (deep/x.warc.gz), not
	// beside L (dir/x.warc.gz, an input here), --force or not.
	in := filepath.Join(dir, "x.warc.gz")
	copyFile(t, samplePath, in)
	check = snapshot(t, in)
	if err := os.Symlink("../x.warc.gz", filepath.Join(deep, "sub", "out.warc.gz")); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"-q", in, filepath.Join(link, "out.warc.gz")}
		if force {
			args = append(args, "--force")
		}
		if code, msg := runCLI(t, args...); code != exitOK {
			t.Errorf("--force %v: exit %d: %s", force, code, msg)
		}
	}
	check()
	if _, err := os.Stat(filepath.Join(deep, "x.warc.gz")); err != nil {
		t.Errorf("the link's target was not written: %v", err)
	}
}

// TestRootSpelledTwice: "//name" is name in the root directory, not in
// the working directory (where an input of that name would be written
// over with --force).
func TestRootSpelledTwice(t *testing.T) {
	for _, c := range []struct{ path, dir, want string }{
		{"//x", "/", "/x"}, {"///x", "/", "/x"}, {"/x", "/", "/x"}, {"a//x", "a", "a/x"}, {"x", ".", "x"},
	} {
		if d := rawDir(c.path); d != c.dir {
			t.Errorf("rawDir(%q) = %q, want %q", c.path, d, c.dir)
		}
		if p := canonicalPath(c.path); c.want[0] == '/' && p != c.want {
			t.Errorf("canonicalPath(%q) = %q, want %q", c.path, p, c.want)
		}
	}
}

// TestRefusedIndexLeavesNoReport: a run refused when it opens its index
// (a directory that is no index) or its CDX (missing) leaves neither its
// report's temporary file nor the directories it made for it.
func TestRefusedIndexLeavesNoReport(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	if err := os.Mkdir(junk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(junk, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"not an index", []string{"--index", junk}},
		{"no CDX", []string{"--index-cdx", filepath.Join(dir, "none.cdx")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reports := filepath.Join(t.TempDir(), "reports")
			args := append(append([]string{"-q"}, c.args...), "--report", filepath.Join(reports, "sub", "r.jsonl"), samplePath, filepath.Join(t.TempDir(), "out")+"/")
			if code, msg := runCLI(t, args...); code == exitOK {
				t.Fatalf("exit 0: %s", msg)
			}
			if _, err := os.Stat(reports); err == nil {
				t.Errorf("left %v in the report's directory", testfsNames(t, reports))
			}
		})
	}
}

func testfsNames(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error {
		out = append(out, p)
		return nil
	})
	return out
}

// TestIndexWithDescriptorFile: --index with the output named by a
// descriptor (/proc/self/fd/N, as /dev/stdout) that is a regular file is
// a file all the same: accepted, and the index takes the run's records.
func TestIndexWithDescriptorFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "out.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ix := filepath.Join(dir, "ix")
	name := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	if code, msg := runCLI(t, "-q", "--index", ix, samplePath, name); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if fi, err := os.Stat(f.Name()); err != nil || fi.Size() == 0 {
		t.Errorf("the output is empty (%v)", err)
	}
	if code, out, _ := step(t, nil, "index", ix); code != exitOK || !strings.Contains(out, "1 runs") {
		t.Errorf("index: exit %d, %s", code, out)
	}
}

// TestLinkedWorkingDirectory: in a working directory reached through a
// link ($PWD the link's spelling), "L/../x" and an output directory
// "L/../out/" are where the kernel finds them from the real directory,
// --force or not, never the input beside the link.
func TestLinkedWorkingDirectory(t *testing.T) {
	r := t.TempDir()
	for _, d := range []string{"real/work", "real/other", "real/out"} {
		if err := os.MkdirAll(filepath.Join(r, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(r, "real", "work"), filepath.Join(r, "lnk")); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(r, "x.warc.gz")
	copyFile(t, samplePath, in)
	if err := os.Mkdir(filepath.Join(r, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	check := snapshot(t, in)
	t.Chdir(filepath.Join(r, "lnk"))
	t.Setenv("PWD", filepath.Join(r, "lnk"))
	if err := os.Symlink("../other", "L"); err != nil {
		t.Fatal(err)
	}
	if code, msg := runCLI(t, "-q", "--force", in, "L/../x.warc.gz"); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if _, err := os.Stat(filepath.Join(r, "real", "x.warc.gz")); err != nil {
		t.Errorf("not written where the kernel finds L/..: %v", err)
	}
	if code, msg := runCLI(t, "-q", "--force", in, "L/../out/"); code != exitOK {
		t.Fatalf("directory: exit %d: %s", code, msg)
	}
	if _, err := os.Stat(filepath.Join(r, "real", "out", "x.warc.gz")); err != nil {
		t.Errorf("not written in real/out: %v", err)
	}
	if ns := names(t, filepath.Join(r, "out")); len(ns) != 0 {
		t.Errorf("written beside the link: %v", ns)
	}
	check()
}

// TestStepOutputIsStdin: reduce's --report and apply's --cdxj may not be
// the file standard input reads, --force or not; apply's --cdxj may be no
// task's output, whichever task runs first.
func TestStepOutputIsStdin(t *testing.T) {
	dir := t.TempDir()
	_, facts, _ := step(t, mapList([]string{samplePath}), "map", "-q")
	sorted := sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))
	ff := filepath.Join(dir, "facts")
	if err := os.WriteFile(ff, []byte(sorted), 0o644); err != nil {
		t.Fatal(err)
	}
	check := snapshot(t, ff)
	f, err := os.Open(ff)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	if code := run([]string{"reduce", "-q", "--force", "--report", ff}, f, io.Discard, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "standard input") {
		t.Errorf("reduce --report over its input: exit %d, %q", code, stderr.String())
	}
	check()

	ins := stageFiles(t)
	dec := decisionsFor(t, ins)
	out := t.TempDir()
	for task := range 2 {
		code, _, msg := step(t, dec, "apply", "-q", "--force", "--task", fmt.Sprint(task), "--tasks", "2",
			"--cdxj", filepath.Join(out, filepath.Base(ins[0])), out+"/")
		if code != exitUsage || !strings.Contains(msg, "is also the output of") {
			t.Errorf("task %d: --cdxj over an output: exit %d, %q", task, code, msg)
		}
	}
}
