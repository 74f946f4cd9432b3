package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Skip(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesToOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.warc.gz")
	copyFile(t, samplePath, in)
	before, _ := os.ReadFile(in)
	code, msg := runCLI(t, in, in)
	if code != exitUsage || !strings.Contains(msg, "is the input") {
		t.Fatalf("exit %d, %q; want a usage error naming the input", code, msg)
	}
	// Same file under another name (a link) is the input too.
	link := filepath.Join(dir, "b.warc.gz")
	if err := os.Link(in, link); err == nil {
		if code, _ := runCLI(t, in, link); code != exitUsage {
			t.Fatalf("exit %d writing onto a hard link of the input", code)
		}
	}
	after, _ := os.ReadFile(in)
	if !bytes.Equal(before, after) {
		t.Fatal("input changed")
	}
}

// A damaged input fails the file in strict mode, and no partial output or temp
// file is left; in lenient mode the run finishes with exit 3.
func TestDamagedInput(t *testing.T) {
	in := testshared.Path(t, "warcs/chatnoir-eu+chatnoir-resiliparse/tests/data/clipped.warc.gz")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	code, msg := runCLI(t, in, out)
	if code != exitFailure {
		t.Fatalf("strict: exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(msg, "clipped.warc.gz: offset 0") || !strings.Contains(msg, "damaged gzip member") {
		t.Errorf("error does not name file, offset and problem: %s", msg)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("strict failure left %d files behind (%s)", len(left), left[0].Name())
	}
	code, msg = runCLI(t, "--lenient", in, out)
	if code != exitDamaged {
		t.Fatalf("lenient: exit %d, want %d: %s", code, exitDamaged, msg)
	}
	a, _ := os.ReadFile(in)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) {
		t.Fatal("lenient output does not carry the damaged bytes unchanged")
	}
	if !strings.Contains(msg, "damaged regions carried over: 1") {
		t.Errorf("summary does not count the damage: %s", msg)
	}
}

// Directories are walked in name order, .open and .invalid files skipped, names
// kept; a later file refers to a record in an earlier one.
func TestDirectoryAndCrossFile(t *testing.T) {
	src := t.TempDir()
	copyFile(t, samplePath, filepath.Join(src, "a", "1.warc.gz"))
	copyFile(t, samplePath, filepath.Join(src, "b", "2.warc.gz"))
	copyFile(t, samplePath, filepath.Join(src, "b", "3.warc.gz.open"))
	copyFile(t, samplePath, filepath.Join(src, "b", "4.warc.gz.invalid"))
	outDir := filepath.Join(t.TempDir(), "out")
	if code, msg := runCLI(t, src, outDir+"/"); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var got []string
	filepath.WalkDir(outDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(outDir, p)
			got = append(got, rel)
		}
		return nil
	})
	if strings.Join(got, ",") != "a/1.warc.gz,b/2.warc.gz" {
		t.Fatalf("outputs %v", got)
	}
	ins := []string{filepath.Join(src, "a", "1.warc.gz"), filepath.Join(src, "b", "2.warc.gz")}
	outs := []string{filepath.Join(outDir, "a", "1.warc.gz"), filepath.Join(outDir, "b", "2.warc.gz")}
	st := checkOutputs(t, ins, outs)
	// The first file: the pier page under a tracking URL is an exact duplicate,
	// its re-capture with a new timestamp a near one. The second file: pier,
	// library and pier-utm are exact duplicates of the first file's kept pages;
	// the re-capture is a near duplicate again (the first one was not kept).
	if st.exact != 1+3 || st.near != 1+1 {
		t.Fatalf("oracle %+v, want 4 exact and 2 near revisits", st)
	}
	warccheck(t, ins, outs, st)
}

func TestStdinStdout(t *testing.T) {
	in, err := os.Open(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, stderr bytes.Buffer
	if code := run([]string{"-q", "-", "-"}, in, &out, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	golden, _ := os.ReadFile(goldenPath)
	if !bytes.Equal(out.Bytes(), golden) {
		t.Fatal("standard output differs from the file output")
	}
}

// TestUsage: a usage error is one line and a hint on standard error, exit
// 2, never the whole help; --help goes to standard output with exit 0;
// --version prints the version.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"only-one"}, {"-", "a", "b"}, {"--no-such-flag", "a", "b"}, {"--tau-same", "x", "a", "b"}} {
		code, msg := runCLI(t, args...)
		lines := strings.Split(strings.TrimSpace(msg), "\n")
		if code != exitUsage || len(lines) > 3 || !strings.HasPrefix(lines[0], "warcdedup: ") || !strings.Contains(msg, "see 'warcdedup --help'") {
			t.Errorf("%q: exit %d, %d lines: %q; want exit %d, one line and the hint", args, code, len(lines), msg, exitUsage)
		}
	}
	for _, tc := range []struct{ flag, want string }{
		{"--min-evidence", "--min-evidence -1: want 0 (no minimum) or more"},
		{"--own-text", "--own-text -1: want 0 (no limit) or more"},
	} {
		if code, msg := runCLI(t, tc.flag, "-1", samplePath, "out.warc.gz"); code != exitUsage || !strings.Contains(msg, tc.want) {
			t.Errorf("%s -1: exit %d, %q; want exit %d and %q", tc.flag, code, msg, exitUsage, tc.want)
		}
	}
	for _, h := range []string{"--help", "-h"} {
		var stdout, stderr bytes.Buffer
		code := run([]string{h}, nil, &stdout, &stderr)
		if code != exitOK || !strings.Contains(stdout.String(), "revisit") || !strings.Contains(stdout.String(), "Exit status") ||
			!strings.Contains(stdout.String(), "-index") || stderr.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q", h, code, stdout.Len(), stderr.String())
		}
	}
	var stdout bytes.Buffer
	if code := run([]string{"--version"}, nil, &stdout, io.Discard); code != exitOK || !strings.HasPrefix(stdout.String(), "warcdedup ") {
		t.Errorf("--version: exit %d, %q", code, stdout.String())
	}
}

// The output is the same bytes whatever the number of workers.
func TestWorkersSameOutput(t *testing.T) {
	in := testshared.Path(t, "warcs/archivesunleashed+aut/src/test/resources/warc/example.warc.gz")
	var first []byte
	for _, n := range []string{"1", "2", "7"} {
		out := filepath.Join(t.TempDir(), "out.warc.gz")
		if code, msg := runCLI(t, "-q", "--workers", n, in, out); code != exitOK {
			t.Fatalf("workers %s: exit %d: %s", n, code, msg)
		}
		b, _ := os.ReadFile(out)
		if first == nil {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("workers %s: output differs from workers 1", n)
		}
	}
}

// TestOutputPermissions: the output has its input's permission bits (the
// temporary file it is written to is created 0600), as gzip's output has.
func TestOutputPermissions(t *testing.T) {
	dir := t.TempDir()
	for _, perm := range []os.FileMode{0o644, 0o640} {
		in := filepath.Join(dir, "in.warc.gz")
		copyFile(t, samplePath, in)
		if err := os.Chmod(in, perm); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out", "out.warc.gz")
		if code, msg := runCLI(t, "-q", in, out); code != 0 {
			t.Fatalf("exit %d: %s", code, msg)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm {
			t.Errorf("output mode %v, want the input's %v", fi.Mode().Perm(), perm)
		}
		os.Remove(out)
	}
}

// TestFlagsAnywhere: flags after the file names are flags, as in GNU tools;
// after "--" every argument is a file name.
func TestFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	if code, msg := runCLI(t, samplePath, out, "-q"); code != exitOK || msg != "" {
		t.Fatalf("exit %d, %q", code, msg)
	}
	// --force after the names overwrites; it names no file.
	if code, msg := runCLI(t, samplePath, out, "--force", "-q"); code != exitOK {
		t.Fatalf("--force after the names: exit %d: %s", code, msg)
	}
	if _, err := os.Stat("--force"); err == nil {
		os.RemoveAll("--force")
		t.Fatal("--force was taken as an output")
	}
	odd := "-odd.warc.gz" // in the package folder: a name that reads as a flag
	t.Cleanup(func() { os.Remove(odd) })
	if code, msg := runCLI(t, "-q", "--", samplePath, odd); code != exitOK {
		t.Fatalf("after --: exit %d: %s", code, msg)
	}
	if _, err := os.Stat(odd); err != nil {
		t.Errorf("the output named after -- is not there: %v", err)
	}
}

// TestDryRun: -n and --dry-run decide as a run does, write the report and
// the summary, and create no file in the output folder, not even a lock.
func TestDryRun(t *testing.T) {
	for _, flag := range []string{"-n", "--dry-run"} {
		dir := t.TempDir()
		out, rep := filepath.Join(dir, "out"), filepath.Join(dir, "report.jsonl")
		code, msg := runCLI(t, flag, "--report", rep, samplePath, out+"/")
		if code != exitOK || !strings.Contains(msg, "dry run") || !strings.Contains(msg, "revisits: 1 exact, 1 near") {
			t.Fatalf("%s: exit %d: %s", flag, code, msg)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: %d files in the folder, want the report alone", flag, len(ents))
		}
		if b, _ := os.ReadFile(rep); !strings.Contains(string(b), `"action":"revisit"`) {
			t.Errorf("%s: the report lacks the decisions", flag)
		}
	}
	if code, _ := runCLI(t, "-n", "--cdxj", filepath.Join(t.TempDir(), "x.cdxj"), samplePath, "out.warc.gz"); code != exitUsage {
		t.Errorf("--cdxj with --dry-run: exit %d, want a usage error", code)
	}
}

// TestLogFormat: with --log-format json every line on standard error is a
// JSON object, warnings and the summary included; in text, messages read
// "warcdedup: warning: ..."; -q leaves errors only.
func TestLogFormat(t *testing.T) {
	damaged := testshared.Path(t, "warcs/chatnoir-eu+chatnoir-resiliparse/tests/data/clipped.warc.gz")
	dir := t.TempDir()
	code, msg := runCLI(t, "--lenient", "--log-format", "json", damaged, filepath.Join(dir, "a.warc.gz"))
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if code != exitDamaged || len(lines) < 2 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("not JSON: %q", l)
		}
	}
	if !strings.Contains(msg, `"level":"WARN"`) || !strings.Contains(msg, `"msg":"summary"`) {
		t.Errorf("no warning or no summary: %s", msg)
	}
	_, msg = runCLI(t, "--lenient", damaged, filepath.Join(dir, "b.warc.gz"))
	if !strings.HasPrefix(msg, "warcdedup: warning: damaged input carried over") || strings.Contains(msg, "level=") {
		t.Errorf("text messages: %s", msg)
	}
	if code, msg := runCLI(t, "-q", "--lenient", damaged, filepath.Join(dir, "c.warc.gz")); code != exitDamaged || msg != "" {
		t.Errorf("-q: exit %d, %q; want exit %d and nothing", code, msg, exitDamaged)
	}
}
