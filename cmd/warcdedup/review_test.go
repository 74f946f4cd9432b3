package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReviewCommand: `warcdedup review` makes one page of a run's report,
// with the sample's near duplicate and the kept page's text beside the
// duplicate's; an existing page is not overwritten without --force.
func TestReviewCommand(t *testing.T) {
	dir := t.TempDir()
	rep, page := filepath.Join(dir, "report.jsonl"), filepath.Join(dir, "review.html")
	if code, msg := runCLI(t, "-q", "--report", rep, samplePath, filepath.Join(dir, "out.warc.gz")); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var stderr bytes.Buffer
	if code := run([]string{"review", rep, "-o", page}, nil, nil, &stderr); code != exitOK {
		t.Fatalf("review: exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"https://gazette.example/news/pier", "replaced", "<details"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if code := run([]string{"review", "-o", page, rep}, nil, nil, &stderr); code != exitUsage {
		t.Errorf("an existing page was overwritten without --force (exit %d)", code)
	}
	if code := run([]string{"review", "--force", "-o", page, rep}, nil, nil, &stderr); code != exitOK {
		t.Errorf("--force: exit %d: %s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d files in the folder, want report, output and page only", len(ents))
	}
}

// TestReviewMissingWARCs: a report whose WARC files are not found (moved,
// or named relative to another directory) gives a page that says the
// records were not found, and a warning that names the files; given
// after the report, they are read.
func TestReviewMissingWARCs(t *testing.T) {
	dir := t.TempDir()
	rep, in := reviewReport(t, dir)
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Mkdir(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(in, filepath.Join(moved, "renamed.warc.gz")); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "review.html")
	var stderr bytes.Buffer
	if code := run([]string{"review", rep, "-o", page}, nil, nil, &stderr); code != exitOK ||
		!strings.Contains(stderr.String(), "records not found") || !strings.Contains(stderr.String(), in) {
		t.Errorf("review: exit %d, %q", code, stderr.String())
	}
	if html := string(mustRead(t, page)); !strings.Contains(html, "found in the WARC files read") {
		t.Error("the page does not say the records were not found")
	}
	stderr.Reset()
	if code := run([]string{"review", "--force", rep, "-o", page, moved}, nil, nil, &stderr); code != exitOK || strings.Contains(stderr.String(), "not found") {
		t.Errorf("review with the directory: exit %d, %q", code, stderr.String())
	}
	if html := string(mustRead(t, page)); strings.Contains(html, "found in the WARC files read") {
		t.Error("the records given by their directory were not read")
	}
	// Pointed at the run's outputs, which have the inputs' names but
	// hold revisits, not the records they replaced: warned, though every
	// file is found by its name.
	d2 := t.TempDir()
	in2, out2, rep2 := filepath.Join(d2, "in", "a.warc.gz"), filepath.Join(d2, "out"), filepath.Join(d2, "r.jsonl")
	copyFile(t, samplePath, in2)
	if code, msg := runCLI(t, "-q", "--report", rep2, in2, out2+"/"); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if err := os.Remove(in2); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"review", rep2, "-o", filepath.Join(d2, "p.html"), out2}, nil, nil, &stderr); code != exitOK ||
		!strings.Contains(stderr.String(), "records not found") || !strings.Contains(stderr.String(), "not in its outputs") {
		t.Errorf("review of the outputs: exit %d, %q", code, stderr.String())
	}
}

// reviewReport runs the sample into dir with --report and returns the
// report's path and the run's input, a copy of the sample in dir.
func reviewReport(t *testing.T, dir string) (rep, in string) {
	t.Helper()
	rep, in = filepath.Join(dir, "report.jsonl"), filepath.Join(dir, "in.warc.gz")
	copyFile(t, samplePath, in)
	if code, msg := runCLI(t, "-q", "--report", rep, in, filepath.Join(dir, "out.warc.gz")); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	return rep, in
}

// TestReviewPageLocked: review's page is locked as a run's outputs are.
// While a review or a run writes a page, a review or a run for the same
// file fails at once with exit 1, as a second run for a run's output does,
// and changes nothing; the first then finishes.
func TestReviewPageLocked(t *testing.T) {
	dir := t.TempDir()
	rep, _ := reviewReport(t, dir)
	report := mustRead(t, rep)
	// hold starts a command writing page and returns once it holds the
	// page's lock, waiting for the rest of its input; finish gives it that
	// input and returns its exit status.
	type holder func(t *testing.T, page string) (finish func() int)
	holders := map[string]holder{
		"review": func(t *testing.T, page string) func() int {
			// The report comes through a FIFO, kept open while held.
			fifo := filepath.Join(t.TempDir(), "report.jsonl")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			code := make(chan int, 1)
			var stderr bytes.Buffer
			go func() { code <- run([]string{"review", "-o", page, fifo}, nil, nil, &stderr) }()
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // once review has opened it
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "review's lock", func() bool { return exists(lockName(page)) })
			return func() int {
				w.Write(report)
				w.Close()
				c := <-code
				if c != exitOK {
					t.Logf("%s", stderr.String())
				}
				return c
			}
		},
		"run": func(t *testing.T, page string) func() int {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close(); w.Close() })
			code := make(chan int, 1)
			var stderr bytes.Buffer
			out := filepath.Join(t.TempDir(), "out.warc.gz")
			go func() { code <- run([]string{"-q", "--report", page, "-", out}, r, nil, &stderr) }()
			waitFor(t, "the run's lock on its report", func() bool { return exists(lockName(page)) })
			return func() int {
				w.Write(mustRead(t, samplePath))
				w.Close()
				c := <-code
				if c != exitOK {
					t.Logf("%s", stderr.String())
				}
				return c
			}
		},
	}
	contenders := map[string]func(page string) []string{
		"review":         func(page string) []string { return []string{"review", "-o", page, rep} },
		"review --force": func(page string) []string { return []string{"review", "--force", "-o", page, rep} },
		"run": func(page string) []string {
			return []string{"-q", "--report", page, samplePath, filepath.Join(t.TempDir(), "out.warc.gz")}
		},
	}
	for hn, hold := range holders {
		t.Run(hn, func(t *testing.T) {
			pageDir := t.TempDir()
			page := filepath.Join(pageDir, "page")
			finish := hold(t, page)
			before := names(t, pageDir)
			for cn, args := range contenders {
				code, msg := runCLI(t, args(page)...)
				if code != exitFailure || !strings.Contains(msg, "another warcdedup run is writing it") || !strings.Contains(msg, page) {
					t.Errorf("%s while a %s holds the page: exit %d, %q", cn, hn, code, msg)
				}
				if after := names(t, pageDir); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("%s changed the directory: %v, then %v", cn, before, after)
				}
			}
			if code := finish(); code != exitOK {
				t.Fatalf("the %s holding the page: exit %d", hn, code)
			}
			if ns := names(t, pageDir); strings.Join(ns, ",") != "page" {
				t.Errorf("left %v, want the page alone", ns)
			}
		})
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestReviewErrorLeavesNothing: a review that fails once it holds its page's
// lock leaves neither the page nor its temporary or lock file, and leaves the
// files it reads as they were; a page that is a WARC file the report names
// is refused with --force too.
func TestReviewErrorLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	rep, in := reviewReport(t, dir)
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"kind\":\"duplicate\"}\nnot JSON\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A report whose input has moved: review finds it by base name in the
	// directory of another file it is given.
	moved := filepath.Join(t.TempDir(), filepath.Base(in))
	copyFile(t, in, moved)
	other := filepath.Join(filepath.Dir(moved), "other.warc.gz")
	copyFile(t, in, other)
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	movedRep := filepath.Join(dir, "moved.jsonl")
	if err := os.WriteFile(movedRep, bytes.ReplaceAll(b, []byte(in), []byte(filepath.Join(dir, "gone", filepath.Base(in)))), 0o644); err != nil {
		t.Fatal(err)
	}
	check := snapshot(t, rep, in, bad, movedRep, moved, other)
	for _, c := range []struct {
		name     string
		args     func(page string) []string
		failSync bool
		code     int
		msg      string
	}{
		{"malformed report", func(page string) []string { return []string{"review", "-o", page, bad} }, false, exitFailure, "report line 2"},
		{"failing sync", func(page string) []string { return []string{"review", "-o", page, rep} }, true, exitFailure, "input/output error"},
		{"page is a WARC the report names", func(string) []string { return []string{"review", "--force", "-o", in, rep} }, false, exitUsage, "which review reads"},
		{"page is a WARC found by base name", func(string) []string {
			return []string{"review", "--force", "-o", moved, movedRep, other}
		}, false, exitUsage, "which review reads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.failSync {
				defer func(f func(*os.File) error) { syncFile = f }(syncFile)
				syncFile = func(*os.File) error { return syscall.EIO }
			}
			pageDir := t.TempDir()
			before := names(t, dir)
			code, msg := runCLI(t, c.args(filepath.Join(pageDir, "page"))...)
			if code != c.code || !strings.Contains(msg, c.msg) {
				t.Errorf("exit %d, %q; want %d and %q", code, msg, c.code, c.msg)
			}
			if ns := names(t, pageDir); len(ns) != 0 {
				t.Errorf("left %v", ns)
			}
			if after := names(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("the report's directory changed: %v, then %v", before, after)
			}
		})
	}
	check()
}
