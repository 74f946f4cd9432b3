package main

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

// buildBinary builds warcdedup for the recipes of contrib/ to run.
func buildBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: the contrib/ recipes are not run")
	}
	bin := filepath.Join(t.TempDir(), "warcdedup")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// recipe runs a contrib/ script with the built binary.
func recipe(t *testing.T, bin, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "..", "contrib", script)}, args...)...)
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// recordIDs are the WARC-Record-IDs of the WARC files in dirs.
func recordIDs(t *testing.T, dirs ...string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for _, d := range dirs {
		fs, _ := filepath.Glob(filepath.Join(d, "*.warc*"))
		for _, f := range fs {
			rs, err := readRecords(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				if r.h != nil {
					ids[r.h.Get("WARC-Record-ID")] = true
				}
			}
		}
	}
	return ids
}

// revisits counts the revisit records of the WARC files in dir, and those
// whose WARC-Refers-To names a record of the files in earlier.
func revisits(t *testing.T, dir string, earlier ...string) (all, into int) {
	t.Helper()
	ids := recordIDs(t, earlier...)
	fs, _ := filepath.Glob(filepath.Join(dir, "*.warc*"))
	if len(fs) == 0 {
		t.Fatalf("no output in %s", dir)
	}
	for _, f := range fs {
		rs, err := readRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.h != nil && r.h.Get("WARC-Type") == "revisit" {
				all++
				if ids[r.h.Get("WARC-Refers-To")] {
					into++
				}
			}
		}
	}
	return all, into
}

// TestRecipes runs the README's recipes from contrib/: wget for real on a
// site served here, twice with one index; Heritrix's post-crawl step on the
// ukwa re-crawl pair (two Heritrix crawls of data.gov.uk) as two jobs, with
// a file Heritrix is still writing; Browsertrix-crawler's on a collection
// of a Webrecorder capture (pywb's iana.org sample).
func TestRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and crawls: not with -short")
	}
	bin := buildBinary(t)
	t.Run("wget", func(t *testing.T) {
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("wget is not installed (Debian's wget package; .ci/run installs it)")
		}
		site := &crawlSite{}
		srv := httptest.NewServer(site)
		defer srv.Close()
		dir := t.TempDir()
		idx := filepath.Join(dir, "index")
		for c := 1; c <= 2; c++ {
			site.crawl.Store(int32(c))
			recipe(t, bin, "wget-crawl.sh", idx, filepath.Join(dir, fmt.Sprint("day", c)), srv.URL+"/", "-e", "robots=off")
		}
		all, into := revisits(t, filepath.Join(dir, "day2"), filepath.Join(dir, "day1"))
		if all != 5 || into != 5 {
			t.Errorf("day 2: %d revisits, %d into day 1; want the logo and the 4 stories", all, into)
		}
	})
	t.Run("wget-same-second", func(t *testing.T) {
		// Two crawls into one OUTDIR that start in the same second (date
		// is made to say so) each write a raw WARC of their own, neither
		// touching the other's, and leave no temporary directory.
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("wget is not installed (Debian's wget package; .ci/run installs it)")
		}
		site := &crawlSite{}
		site.crawl.Store(1)
		srv := httptest.NewServer(site)
		defer srv.Close()
		dir, shims, tmp := t.TempDir(), t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(shims, "date"), []byte("#!/bin/sh\necho 20260101000000\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		var first []byte
		for c := 1; c <= 2; c++ {
			cmd := exec.Command("bash", filepath.Join("..", "..", "contrib", "wget-crawl.sh"), filepath.Join(dir, fmt.Sprint("index", c)), out, srv.URL+"/", "-e", "robots=off")
			cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
			if o, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("crawl %d: %v\n%s", c, err, o)
			}
			raws := names(t, filepath.Join(out, "raw"))
			if len(raws) != c {
				t.Fatalf("after crawl %d the raw crawls are %v", c, raws)
			}
			if c == 1 {
				first = mustRead(t, filepath.Join(out, "raw", raws[0]))
			} else if !bytes.Equal(first, mustRead(t, filepath.Join(out, "raw", raws[0]))) && !bytes.Equal(first, mustRead(t, filepath.Join(out, "raw", raws[1]))) {
				t.Error("the second crawl changed the first's raw WARC")
			}
		}
		raws := names(t, filepath.Join(out, "raw"))
		for _, r := range raws {
			if !strings.HasPrefix(r, "crawl-20260101000000-") {
				t.Errorf("raw crawl %s: not named by its time", r)
			}
			if _, err := os.Stat(filepath.Join(out, r)); err != nil {
				t.Errorf("no output of %s: %v", r, err)
			}
		}
		if left := names(t, tmp); len(left) != 0 {
			t.Errorf("left in TMPDIR: %v", left)
		}
	})
	t.Run("wget-warc-options", func(t *testing.T) {
		// wget names its files otherwise with --warc-max-size (NAME-00000,
		// NAME-00001, ... and NAME-meta) and --no-warc-compression
		// (.warc): every WARC file of the second crawl is deduplicated
		// against the first, into an output of its own name. A
		// --warc-file of the user's is refused.
		if _, err := exec.LookPath("wget"); err != nil {
			t.Skip("wget is not installed (Debian's wget package; .ci/run installs it)")
		}
		site := &crawlSite{}
		srv := httptest.NewServer(site)
		defer srv.Close()
		for _, opts := range [][]string{{"--warc-max-size=4k"}, {"--no-warc-compression"}, {"--warc-max-size=4k", "--no-warc-compression"}} {
			t.Run(strings.Join(opts, "_"), func(t *testing.T) {
				dir := t.TempDir()
				idx, day1, day2 := filepath.Join(dir, "index"), filepath.Join(dir, "day1"), filepath.Join(dir, "day2")
				site.crawl.Store(1)
				recipe(t, bin, "wget-crawl.sh", idx, day1, srv.URL+"/", "-e", "robots=off")
				site.crawl.Store(2)
				recipe(t, bin, "wget-crawl.sh", append([]string{idx, day2, srv.URL + "/", "-e", "robots=off"}, opts...)...)
				all, into := revisits(t, day2, day1)
				if all != 5 || into != 5 {
					t.Errorf("day 2: %d revisits, %d into day 1; want the logo and the 4 stories", all, into)
				}
				var raws []string
				for _, r := range names(t, filepath.Join(day2, "raw")) {
					if fi, err := os.Stat(filepath.Join(day2, "raw", r)); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
						raws = append(raws, r)
					}
				}
				if opts[0] == "--warc-max-size=4k" && len(raws) < 3 {
					t.Errorf("raw crawl %v: want several files and the -meta one", raws)
				}
				if outs := slices.DeleteFunc(names(t, day2), func(n string) bool { return n == "raw" }); !slices.Equal(outs, raws) {
					t.Errorf("outputs %v of the raw files %v", outs, raws)
				}
				for _, r := range raws {
					if fi, err := os.Stat(filepath.Join(day2, r)); err != nil || fi.Size() == 0 {
						t.Errorf("output %s: empty or missing (%v)", r, err)
					}
				}
			})
		}
		// wget takes a WARC file name in more forms than --warc-file: an
		// abbreviation of it, and the wgetrc command warc_file (its name
		// read ignoring case, dashes and underscores) run by -e or
		// --execute, abbreviated too. Each is refused before anything is
		// done: given to wget, it would crawl elsewhere, and the script
		// would find nothing to deduplicate.
		script, err := filepath.Abs(filepath.Join("..", "..", "contrib", "wget-crawl.sh"))
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range [][]string{
			{"--warc-file=mine"}, {"--warc-file", "mine"},
			{"--warc-f=mine"}, {"--warc-fi=mine"}, {"--warc-fil", "mine"},
			{"-e", "warc_file=mine"}, {"-ewarc_file=mine"}, {"-qe", " WARC-File = mine"}, {"-nv", "-qewarcfile=mine"},
			{"--execute=warc_file=mine"}, {"--execute", "warcfile=mine"}, {"--exe=Warc_File=mine"},
		} {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command("bash", append([]string{script, filepath.Join(filepath.Dir(out), "index"), out, srv.URL + "/", "-e", "robots=off"}, opts...)...)
			// wget, in the directory the test looks in, would write mine.warc.gz there.
			cmd.Dir = filepath.Dir(out)
			cmd.Env = append(os.Environ(), "WARCDEDUP="+bin)
			o, err := cmd.CombinedOutput()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(o), "--warc-file is not for the user") {
				t.Errorf("%q given: %v, want exit 2 naming --warc-file\n%s", opts, err, o)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%q given: OUTDIR made", opts)
			}
			if left := names(t, filepath.Dir(out)); len(left) != 0 {
				t.Errorf("%q given: wget wrote %v", opts, left)
			}
		}
	})
	t.Run("wget-stopped", func(t *testing.T) {
		// The script stopped during the crawl (kill, timeout) stops wget
		// too, says so, and deduplicates nothing. wget is a stand-in that
		// writes part of a crawl and waits, marking the signal it gets.
		dir, shims := t.TempDir(), t.TempDir()
		marks := filepath.Join(dir, "marks")
		if err := os.Mkdir(marks, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shims, "wget"), []byte(`#!/usr/bin/env bash
for a; do [[ $a == --warc-file=* ]] && printf 'WARC/1.1\r\n' > "${a#--warc-file=}.warc.gz"; done
trap 'touch "$MARKS/stopped"; exit 143' TERM
touch "$MARKS/started"
for _ in {1..200}; do sleep 0.05; done
`), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		cmd := exec.Command("bash", filepath.Join("..", "..", "contrib", "wget-crawl.sh"), filepath.Join(dir, "index"), out, "http://127.0.0.1:9/")
		cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "MARKS="+marks, "PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"))
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(marks, "started")); err == nil {
				break
			}
			if time.Since(start) > 20*time.Second {
				cmd.Process.Kill()
				t.Fatalf("wget was not started\n%s", log.String())
			}
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 143 {
			t.Errorf("stopped by SIGTERM: %v, want exit 143\n%s", err, log.String())
		}
		if _, err := os.Stat(filepath.Join(marks, "stopped")); err != nil {
			t.Errorf("wget was not stopped: %v\n%s", err, log.String())
		}
		if !strings.Contains(log.String(), "stopped by SIGTERM during the crawl: wget is stopped") {
			t.Errorf("the script did not say the crawl was stopped\n%s", log.String())
		}
		if n := names(t, out); len(n) != 1 || n[0] != "raw" {
			t.Errorf("OUTDIR holds %v: only the raw crawl should be there", n)
		}
		if _, err := os.Stat(filepath.Join(dir, "index")); err == nil {
			t.Error("an index was made")
		}
	})
	t.Run("heritrix", func(t *testing.T) {
		src := testshared.Path(t, ukwaDir)
		dir := t.TempDir()
		idx := filepath.Join(dir, "index")
		for i, f := range []string{"BL-20140325121225068-00000-32090~opera~8443.warc.gz", "BL-20140325122341434-00000-32090~opera~8443.warc.gz"} {
			warcs := filepath.Join(dir, fmt.Sprint("job", i+1), "20140325120000", "warcs")
			copyFile(t, filepath.Join(src, f), filepath.Join(warcs, f))
			copyFile(t, filepath.Join(src, f), filepath.Join(warcs, "still-writing.warc.gz.open"))
			job := filepath.Join(dir, fmt.Sprint("job", i+1))
			if i == 1 {
				// The second job is given as Heritrix's symlink to its
				// current launch.
				if err := os.Symlink("20140325120000", filepath.Join(job, "latest")); err != nil {
					t.Fatal(err)
				}
				job = filepath.Join(job, "latest")
			}
			out := recipe(t, bin, "heritrix-postcrawl.sh", job, idx, filepath.Join(dir, fmt.Sprint("out", i+1)))
			if !strings.Contains(out, "skipping 1 file") {
				t.Errorf("no word of the .open file: %s", out)
			}
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprint("out", i+1), "still-writing.warc.gz.open")); err == nil {
				t.Error("the .open file was processed")
			}
		}
		// The second crawl holds 55 revisits of its own (none point into
		// the first crawl's records); warcdedup adds its 6 near revisits
		// of the first crawl's pages.
		all, into := revisits(t, filepath.Join(dir, "out2"), filepath.Join(dir, "out1"))
		if into < 6 || all < 55+6 {
			t.Errorf("second job: %d revisits, %d into the first; want 55 of its own and at least 6 more into the first", all, into)
		}
		// The first job finishes the file it was writing: run again, the
		// step does that file, and leaves the outputs it wrote before.
		warcs := filepath.Join(dir, "job1", "20140325120000", "warcs")
		if err := os.Rename(filepath.Join(warcs, "still-writing.warc.gz.open"), filepath.Join(warcs, "still-writing.warc.gz")); err != nil {
			t.Fatal(err)
		}
		out1 := filepath.Join(dir, "out1")
		before := mustRead(t, filepath.Join(out1, "BL-20140325121225068-00000-32090~opera~8443.warc.gz"))
		if out := recipe(t, bin, "heritrix-postcrawl.sh", filepath.Join(dir, "job1"), idx, out1); !strings.Contains(out, "1 file(s) have an output") {
			t.Errorf("no word of the file done before: %s", out)
		}
		if got := names(t, out1); strings.Join(got, " ") != "BL-20140325121225068-00000-32090~opera~8443.warc.gz still-writing.warc.gz" {
			t.Errorf("after the second run, the outputs are %v", got)
		}
		if !bytes.Equal(before, mustRead(t, filepath.Join(out1, "BL-20140325121225068-00000-32090~opera~8443.warc.gz"))) {
			t.Error("the second run changed an output of the first")
		}
	})
	t.Run("browsertrix", func(t *testing.T) {
		// pywb's capture of iana.org: 343 records, 123 revisits of its own.
		src := testshared.Path(t, "warcs/webrecorder+pywb/sample_archive/warcs/iana.warc.gz")
		dir := t.TempDir()
		coll := filepath.Join(dir, "crawls", "collections", "test")
		// archive/ is a symlink, as when the WARC files are kept on
		// another volume.
		copyFile(t, src, filepath.Join(dir, "volume", "rec-20240101000000-1.warc.gz"))
		if err := os.MkdirAll(coll, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "volume"), filepath.Join(coll, "archive")); err != nil {
			t.Fatal(err)
		}
		recipe(t, bin, "browsertrix-postcrawl.sh", coll, filepath.Join(dir, "index"), filepath.Join(dir, "out"))
		in := []string{filepath.Join(coll, "archive", "rec-20240101000000-1.warc.gz")}
		out := []string{filepath.Join(dir, "out", "rec-20240101000000-1.warc.gz")}
		warccheck(t, in, out, checkOutputs(t, in, out))
	})
}

const ukwaDir = "warcs/ukwa+webarchive-discovery/warc-indexer/src/test/resources/gov.uk-revisit-warcs"

// TestProgress: on a terminal (a pseudo-terminal made by script(1)) a run
// shows its progress line, with the file, records, megabytes, rate and time
// left; on a pipe it shows none.
func TestProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not with -short")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) (util-linux) is not installed: no pseudo-terminal to test the progress line on")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	in, _ := filepath.Abs(samplePath)
	cmd := exec.Command(script, "-qec", bin+" "+in+" "+filepath.Join(dir, "tty.warc.gz"), "/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "sample.warc.gz  ") || !strings.Contains(string(out), " records  ") || !strings.Contains(string(out), "MB/s") {
		t.Errorf("no progress line on a terminal: %q", out)
	}
	pipe, err := exec.Command(bin, in, filepath.Join(dir, "pipe.warc.gz")).CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(pipe), "MB/s  ") || strings.Contains(string(pipe), "\r") {
		t.Errorf("a progress line on a pipe: %q", pipe)
	}
}

// TestBinarySurface: the built binary's help, usage errors, version, JSON
// messages and dry run, as a user meets them.
func TestBinarySurface(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary: not with -short")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	runBin := func(args ...string) (int, string, string) {
		var so, se strings.Builder
		c := exec.Command(bin, args...)
		c.Stdout, c.Stderr = &so, &se
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, so.String(), se.String()
	}
	if code, so, se := runBin("--help"); code != 0 || !strings.Contains(so, "Usage:") || se != "" {
		t.Errorf("--help: exit %d, stdout %d bytes, stderr %q", code, len(so), se)
	}
	if code, _, se := runBin("--no-such-flag", "a", "b"); code != 2 || strings.Count(se, "\n") > 3 {
		t.Errorf("bad flag: exit %d, %q", code, se)
	}
	if code, so, _ := runBin("--version"); code != 0 || !strings.HasPrefix(so, "warcdedup ") {
		t.Errorf("--version: exit %d, %q", code, so)
	}
	if code, _, se := runBin("--log-format", "json", samplePath, filepath.Join(dir, "j.warc.gz")); code != 0 || !strings.HasPrefix(se, "{") {
		t.Errorf("--log-format json: exit %d, %q", code, se)
	}
	if code, _, _ := runBin("-n", samplePath, filepath.Join(dir, "n.warc.gz")); code != 0 {
		t.Errorf("-n: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "n.warc.gz")); err == nil {
		t.Error("--dry-run wrote its output")
	}
}
