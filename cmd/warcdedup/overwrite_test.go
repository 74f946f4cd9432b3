package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/dedup"
)

// snapshot reads the files; the function it returns fails the test if any
// of them has changed since or is gone.
func snapshot(t *testing.T, paths ...string) func() {
	t.Helper()
	before := map[string][]byte{}
	for _, p := range paths {
		before[p] = mustRead(t, p)
	}
	return func() {
		t.Helper()
		for _, p := range paths {
			if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, before[p]) {
				t.Errorf("%s changed or is gone (%v)", p, err)
			}
		}
	}
}

// decisionsFor runs map and the one-task reduce over ins and returns the
// sorted decisions apply reads.
func decisionsFor(t *testing.T, ins []string) []byte {
	t.Helper()
	_, facts, _ := step(t, mapList(ins), "map", "-q")
	code, decisions, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
	if code != exitOK {
		t.Fatalf("reduce: exit %d\n%s", code, stderr)
	}
	return []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n")))
}

// TestApplyNeverOverwritesItsInput: apply into the inputs' own directory
// refuses, with --force too, and leaves every input as it was.
func TestApplyNeverOverwritesItsInput(t *testing.T) {
	ins := stageFiles(t)
	check := snapshot(t, ins...)
	dec := decisionsFor(t, ins)
	code, _, stderr := step(t, dec, "apply", "-q", "--force", filepath.Dir(ins[0])+"/")
	if code != exitUsage || !strings.Contains(stderr, "is the input") {
		t.Errorf("apply into the inputs' directory: exit %d, %q", code, stderr)
	}
	check()
}

// TestApplySameBaseName: two inputs of one base name, from two
// directories, would write one output. The resolve round, which sees every
// file's name, refuses them (exit 2) before any output is written, as the
// one-task reduce does. Decisions of two jobs put together (each of one
// file) still reach apply: it refuses them, --force or not, before it
// writes either.
func TestApplySameBaseName(t *testing.T) {
	ins := stageFiles(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "c1", "crawl.warc.gz"), filepath.Join(dir, "c2", "crawl.warc.gz")
	copyFile(t, ins[0], a)
	copyFile(t, ins[1], b)
	rounds := func(list []byte, wantResolve int) string {
		t.Helper()
		_, lines, _ := step(t, list, "map", "-q", "--rounds")
		for _, r := range []string{"exact", "site", "bands", "join", "verify", "resolve"} {
			var code int
			var stderr string
			code, lines, stderr = step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n"))), "reduce", "-q", "--round", r)
			want := exitOK
			if r == "resolve" {
				want = wantResolve
			}
			if code != want || want != exitOK && !strings.Contains(stderr, "would both write crawl.warc.gz") {
				t.Fatalf("round %s: exit %d, want %d\n%s", r, code, want, stderr)
			}
		}
		return lines
	}
	rounds(mapList([]string{a, b}), exitUsage)
	lines := rounds([]byte("0\t"+a+"\n"), exitOK) + rounds([]byte("1\t"+b+"\n"), exitOK)
	out := filepath.Join(dir, "out")
	code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n"))), "apply", "-q", "--force", out+"/")
	if code != exitUsage || !strings.Contains(stderr, "would both write") || !strings.Contains(stderr, "nothing written") {
		t.Fatalf("apply of two inputs named crawl.warc.gz: exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("apply wrote %d files before refusing", len(entries))
	}
	// Tasks that share the apply step each refuse them, whichever task
	// each file falls to.
	for task := range 2 {
		code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n"))), "apply", "-q", "--force", "--task", strconv.Itoa(task), "--tasks", "2", out+"/")
		if code != exitUsage || !strings.Contains(stderr, "would both write") {
			t.Errorf("apply --task %d --tasks 2: exit %d, %q", task, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the tasks wrote %d files", len(entries))
	}
}

// TestCPUProfileNewFileOnly: --cpuprofile never truncates a file that
// exists (an input, an earlier output), --force or not.
func TestCPUProfileNewFileOnly(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	copyFile(t, samplePath, in)
	check := snapshot(t, in)
	for _, args := range [][]string{
		{"-q", "--cpuprofile", in, in, filepath.Join(dir, "out.warc.gz")},
		{"-q", "--force", "--cpuprofile", in, in, filepath.Join(dir, "out.warc.gz")},
	} {
		if code, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "new file") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if code, _, stderr := step(t, mapList([]string{in}), "map", "-q", "--cpuprofile", in); code != exitUsage {
		t.Errorf("map --cpuprofile onto its input: exit %d, %q", code, stderr)
	}
	check()
	if _, err := os.Stat(filepath.Join(dir, "out.warc.gz")); err == nil {
		t.Error("an output was written although the profile could not be")
	}
	prof := filepath.Join(dir, "new.prof")
	if code, stderr := runCLI(t, "-q", "--cpuprofile", prof, in, filepath.Join(dir, "out.warc.gz")); code != exitOK {
		t.Fatalf("a new profile file: exit %d, %q", code, stderr)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("no profile written: %v", err)
	}
}

// TestCPUProfileCannotBeMade: a profile whose temporary file cannot be made
// beside it is an output that cannot be written: exit 2 before the command
// reads or writes anything.
func TestCPUProfileCannotBeMade(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prof := range []string{
		filepath.Join(dir, "missing", "cpu.prof"),
		filepath.Join(notDir, "cpu.prof"),
	} {
		for _, c := range []struct {
			name  string
			stdin []byte // for a step; nil for a run
			args  []string
		}{
			{"run", nil, []string{"-q", "--cpuprofile", prof, samplePath, filepath.Join(dir, "out.warc.gz")}},
			{"map", mapList([]string{samplePath}), []string{"map", "-q", "--cpuprofile", prof}},
		} {
			t.Run(c.name+"/"+filepath.Base(filepath.Dir(prof)), func(t *testing.T) {
				var code int
				var stderr, stdout string
				if c.stdin != nil {
					code, stdout, stderr = step(t, c.stdin, c.args...)
				} else {
					code, stderr = runCLI(t, c.args...)
				}
				if code != exitUsage || !strings.Contains(stderr, "--cpuprofile") || stdout != "" {
					t.Errorf("exit %d, %q, %d bytes on standard output; want %d", code, stderr, len(stdout), exitUsage)
				}
				if ns := names(t, dir); strings.Join(ns, ",") != "file" {
					t.Errorf("left %v", ns)
				}
			})
		}
	}
}

// TestCPUProfileComplete: the profile is under its name only when the
// command has finished (exit 0, or 3 for damage carried over), whole
// (runtime/pprof writes gzip), and nothing else is left beside it; a
// command that fails leaves neither the profile nor its temporary file.
func TestCPUProfileComplete(t *testing.T) {
	ins := stageFiles(t)
	missing := filepath.Join(t.TempDir(), "missing.warc.gz")
	// A gzip member cut short: damage that --lenient carries over (exit 3).
	damaged := filepath.Join(t.TempDir(), "damaged.warc.gz")
	if err := os.WriteFile(damaged, mustRead(t, samplePath)[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stdin []byte // for a step; nil for a run
		args  func(prof, out string) []string
		code  int
	}{
		{"run", nil, func(prof, out string) []string { return []string{"-q", "--cpuprofile", prof, ins[0], out} }, exitOK},
		{"run, missing input", nil, func(prof, out string) []string { return []string{"-q", "--cpuprofile", prof, missing, out} }, exitUsage},
		{"run, existing output", nil, func(prof, out string) []string { return []string{"-q", "--cpuprofile", prof, ins[0], ins[1]} }, exitUsage},
		{"run, damaged input", nil, func(prof, out string) []string { return []string{"-q", "--cpuprofile", prof, damaged, out} }, exitFailure},
		{"run, damaged input carried over", nil, func(prof, out string) []string {
			return []string{"-q", "--lenient", "--cpuprofile", prof, damaged, out}
		}, exitDamaged},
		{"map", mapList(ins[:1]), func(prof, _ string) []string { return []string{"map", "-q", "--cpuprofile", prof} }, exitOK},
		{"map, missing input", mapList([]string{missing}), func(prof, _ string) []string { return []string{"map", "-q", "--cpuprofile", prof} }, exitFailure},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			prof := filepath.Join(dir, "cpu.prof")
			args := c.args(prof, filepath.Join(t.TempDir(), "out.warc.gz"))
			var code int
			var stderr string
			if c.stdin != nil {
				code, _, stderr = step(t, c.stdin, args...)
			} else {
				code, stderr = runCLI(t, args...)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d: %s", code, c.code, stderr)
			}
			if code != exitOK && code != exitDamaged {
				if ns := names(t, dir); len(ns) != 0 {
					t.Errorf("left %v", ns)
				}
				return
			}
			if ns := names(t, dir); strings.Join(ns, ",") != "cpu.prof" {
				t.Errorf("left %v, want the profile alone", ns)
			}
			if b := mustRead(t, prof); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("the profile does not start as gzip: % x", b[:min(len(b), 8)])
			}
		})
	}
}

// TestSideOutputNotOverAFileRead: --force lets no report be written over
// the CDX the run reads with --index-cdx, and review's page over the
// report or a WARC file it reads.
func TestSideOutputNotOverAFileRead(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	copyFile(t, samplePath, in)
	cdx, rep := filepath.Join(dir, "old.cdxj"), filepath.Join(dir, "rep.jsonl")
	if code, stderr := runCLI(t, "-q", "--cdxj", cdx, "--report", rep, in, filepath.Join(dir, "a.warc.gz")); code != exitOK {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	check := snapshot(t, in, cdx, rep)
	if code, stderr := runCLI(t, "-q", "--force", "--index-cdx", cdx, "--report", cdx, in, filepath.Join(dir, "b.warc.gz")); code != exitUsage || !strings.Contains(stderr, "--index-cdx file") {
		t.Errorf("--report onto the --index-cdx file: exit %d, %q", code, stderr)
	}
	for _, args := range [][]string{
		{"review", "-o", rep, "--force", rep},
		{"review", "-o", in, "--force", rep, in},
		{"review", "-o", in, "--force", rep, dir},
	} {
		if code, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "which review reads") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	check()
}

// TestOutputStaysWhenDirectorySyncFails: when syncing the directory after
// the rename fails, the output is complete and stays (with --force the
// file it replaced is gone already); the run fails and says so.
func TestOutputStaysWhenDirectorySyncFails(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.warc.gz"), filepath.Join(dir, "out.warc.gz")
	copyFile(t, samplePath, in)
	if err := os.WriteFile(out, []byte("an earlier output"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(f func(string) error) { syncOutputDir = f }(syncOutputDir)
	syncOutputDir = func(string) error { return errors.New("input/output error") }
	code, stderr := runCLI(t, "-q", "--force", in, out)
	if code != exitFailure || !strings.Contains(stderr, "syncing its directory") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	syncOutputDir = syncDir
	ref := filepath.Join(dir, "ref.warc.gz")
	if code, stderr := runCLI(t, "-q", in, ref); code != exitOK {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if got, want := mustRead(t, out), mustRead(t, ref); !bytes.Equal(got, want) {
		t.Errorf("the output is gone or not the run's (%d bytes, want %d)", len(got), len(want))
	}
}

// TestApplyUnsortedDecisions: decisions not sorted by key are refused,
// saying so, when a file's key comes again after another file's.
func TestApplyUnsortedDecisions(t *testing.T) {
	ins := stageFiles(t)
	lines := strings.SplitAfter(strings.TrimSuffix(string(decisionsFor(t, ins)), "\n"), "\n")
	slices.Reverse(lines)
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\n") + "\n"
	}
	code, _, stderr := step(t, []byte(strings.Join(lines, "")), "apply", "-q", filepath.Join(t.TempDir(), "out")+"/")
	if code != exitFailure || !strings.Contains(stderr, "not sorted") {
		t.Errorf("apply of decisions in reverse order: exit %d, %q", code, stderr)
	}
}

// TestLockCannotBeMade: an output whose lock file cannot be made (here a
// directory stands in its place) cannot be written safely: exit 2, as the
// README's table says, not 1, which means another run holds the output.
func TestLockCannotBeMade(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.warc.gz"), filepath.Join(dir, "out.warc.gz")
	copyFile(t, samplePath, in)
	if err := os.Mkdir(filepath.Join(dir, "."+filepath.Base(out)+".warcdedup-lock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runCLI(t, "-q", in, out); code != exitUsage || !strings.Contains(stderr, "lock") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
}

// refusals are the ways an output is refused before anything of it is
// written, with the exit status the README's table gives each: 2 for an
// output that exists (without --force) or cannot be written safely, 1 for
// one another run holds. block sets the refusal up for the output path.
var refusals = []struct {
	name  string
	block func(t *testing.T, path string)
	code  int
	msg   string
}{
	{"exists", func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}, exitUsage, "already exists"},
	{"is a directory", func(t *testing.T, path string) {
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}, exitUsage, "is a directory"},
	{"lock file cannot be made", func(t *testing.T, path string) {
		// A directory in its place: what root, whom permissions do not
		// stop, cannot open either.
		if err := os.Mkdir(lockName(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}, exitUsage, "lock file"},
	{"held by another run", func(t *testing.T, path string) {
		o, err := classify(path)
		if err != nil {
			t.Fatal(err)
		}
		// flock locks an open file, not a process: the command's own
		// open of the lock file finds it held.
		reg := newRegistry()
		if err := o.lockOutput(reg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { o.unlock(reg) })
	}, exitFailure, "another warcdedup run is writing it"},
}

// TestApplyOutputRefused: apply refuses an output, or its --cdxj file, with
// the main run's exit status for each refusal, and writes nothing.
func TestApplyOutputRefused(t *testing.T) {
	ins := stageFiles(t)
	dec := decisionsFor(t, ins)
	for _, r := range refusals {
		for _, which := range []string{"output", "--cdxj"} {
			t.Run(r.name+"/"+which, func(t *testing.T) {
				out, side := t.TempDir(), t.TempDir()
				cdx := filepath.Join(side, "out.cdxj")
				blocked := cdx
				if which == "output" {
					// The first output apply writes: nothing is written
					// before it is refused.
					blocked = filepath.Join(out, filepath.Base(firstApplied(t, dec)))
				}
				r.block(t, blocked)
				before, beforeSide := names(t, out), names(t, side)
				code, _, stderr := step(t, dec, "apply", "-q", "--cdxj", cdx, out+"/")
				if code != r.code || !strings.Contains(stderr, r.msg) || !strings.Contains(stderr, blocked) {
					t.Errorf("exit %d, %q; want %d and %q naming %s", code, stderr, r.code, r.msg, blocked)
				}
				if after := names(t, out); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("the output directory held %v, then %v", before, after)
				}
				if after := names(t, side); strings.Join(after, ",") != strings.Join(beforeSide, ",") {
					t.Errorf("the --cdxj file's directory held %v, then %v", beforeSide, after)
				}
			})
		}
	}
}

// firstApplied is the input apply writes first: the file of the first key of
// the decisions dec.
func firstApplied(t *testing.T, dec []byte) string {
	t.Helper()
	key, _, _ := strings.Cut(string(dec), "\t")
	for _, l := range strings.Split(string(dec), "\n") {
		if v, ok := strings.CutPrefix(l, key+"\t"+string(dedup.ValFile)); ok {
			b, err := b64.DecodeString(v)
			if err != nil {
				t.Fatal(err)
			}
			_, name, _, err := dedup.ParseFileLine(append([]byte{dedup.ValFile}, b...))
			if err != nil {
				t.Fatal(err)
			}
			return name
		}
	}
	t.Fatalf("no file's line for key %s", key)
	return ""
}

// roundInput runs map --rounds over ins and the rounds before the named
// one, and returns that round's input, sorted.
func roundInput(t *testing.T, ins []string, round string) []byte {
	t.Helper()
	code, lines, stderr := step(t, mapList(ins), "map", "-q", "--rounds")
	if code != exitOK {
		t.Fatalf("map --rounds: exit %d\n%s", code, stderr)
	}
	for _, r := range dedup.RoundNames {
		sorted := sortLines(strings.SplitAfter(strings.TrimSuffix(lines, "\n"), "\n"))
		if r == round {
			return []byte(sorted)
		}
		if code, lines, stderr = step(t, []byte(sorted), "reduce", "-q", "--round", r); code != exitOK {
			t.Fatalf("round %s: exit %d\n%s", r, code, stderr)
		}
	}
	t.Fatalf("no round %s", round)
	return nil
}

// TestReportRefused: the one-task reduce and the resolve round, which opens
// the report only once it has read its first groups, refuse a report with
// the main run's exit status for each refusal, and write nothing; a report
// that is one of the inputs is refused with --force too.
func TestReportRefused(t *testing.T) {
	ins, facts, _ := stepInputs(t)
	resolve := roundInput(t, ins, "resolve")
	type refusal struct {
		name   string
		report func(t *testing.T) string // sets the refusal up, returns the report's name
		force  bool
		code   int
		msg    string
	}
	var cases []refusal
	for _, r := range refusals {
		cases = append(cases, refusal{r.name, func(t *testing.T) string {
			rep := filepath.Join(t.TempDir(), "report.jsonl")
			r.block(t, rep)
			return rep
		}, false, r.code, r.msg})
	}
	cases = append(cases, refusal{"is an input", func(*testing.T) string { return ins[1] }, true, exitUsage, "is the input"})
	check := snapshot(t, ins...)
	for _, c := range cases {
		for _, cmd := range []struct {
			name  string
			input []byte
			args  []string
		}{
			{"reduce", []byte(facts), []string{"reduce", "-q"}},
			{"resolve", resolve, []string{"reduce", "-q", "--round", "resolve"}},
		} {
			t.Run(c.name+"/"+cmd.name, func(t *testing.T) {
				rep := c.report(t)
				dir := filepath.Dir(rep)
				before := names(t, dir)
				args := append(slices.Clone(cmd.args), "--report", rep)
				if c.force {
					args = append(args, "--force")
				}
				code, _, stderr := step(t, cmd.input, args...)
				if code != c.code || !strings.Contains(stderr, c.msg) || !strings.Contains(stderr, rep) {
					t.Errorf("exit %d, %q; want %d and %q naming %s", code, stderr, c.code, c.msg, rep)
				}
				if after := names(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
					t.Errorf("the report's directory held %v, then %v", before, after)
				}
			})
		}
	}
	check()
}

// TestApplyCDXJNotOverItsFiles: apply's --cdxj file, which replaces its
// name once every output is written, may be neither an input nor one of
// the outputs, --force or not: refused with 2 before any output is
// written.
func TestApplyCDXJNotOverItsFiles(t *testing.T) {
	ins := stageFiles(t)
	dec := decisionsFor(t, ins)
	first := firstApplied(t, dec)
	later := ins[2]
	if later == first {
		t.Fatal("the test wants a later input")
	}
	check := snapshot(t, ins...)
	for _, c := range []struct {
		name  string
		cdxj  func(out string) string
		force bool
		msg   string
		empty bool // the output directory stays empty: the first file is refused
	}{
		{"the first input", func(string) string { return first }, false, "is the input", true},
		{"the first input, --force", func(string) string { return first }, true, "is the input", true},
		{"a later input, --force", func(string) string { return later }, true, "is the input", false},
		{"the first output", func(out string) string { return filepath.Join(out, filepath.Base(first)) }, false, "is also the output", true},
		{"the first output, --force", func(out string) string { return filepath.Join(out, filepath.Base(first)) }, true, "is also the output", true},
		{"a later output", func(out string) string { return filepath.Join(out, filepath.Base(later)) }, false, "is also the output", true},
		{"a later output, --force", func(out string) string { return filepath.Join(out, filepath.Base(later)) }, true, "is also the output", true},
		{"a later input, --force, its own spelling", func(string) string { return filepath.Join(filepath.Dir(later), ".", filepath.Base(later)) }, true, "is the input", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			args := []string{"apply", "-q", "--cdxj", c.cdxj(out), out + "/"}
			if c.force {
				args = append(args, "--force")
			}
			code, _, stderr := step(t, dec, args...)
			if code != exitUsage || !strings.Contains(stderr, c.msg) {
				t.Errorf("exit %d, %q; want %d and %q", code, stderr, exitUsage, c.msg)
			}
			ns := names(t, out)
			if c.empty && len(ns) != 0 {
				t.Errorf("left %v", ns)
			}
			if slices.Contains(ns, filepath.Base(later)) || hasTemp(out) {
				t.Errorf("left %v, with the refused output or a temporary file", ns)
			}
		})
	}
	check()
}

// TestApplyNotOverAnotherInput: apply never writes an output over an input
// of its job, --force or not, whatever links lead there: an output name in
// OUTDIR that links to another input, or an input that links to a file in
// OUTDIR. It refuses before any output is written (exit 2), as the
// one-machine run refuses the same, and every input stays as it was.
func TestApplyNotOverAnotherInput(t *testing.T) {
	ins := stageFiles(t)
	for _, tc := range []struct {
		name string
		// setup makes the inputs (in dir/in) and the output directory
		// (dir/out) and returns the inputs in the order mapped.
		setup func(t *testing.T, dir string) []string
	}{
		{"an output that links to a later input", func(t *testing.T, dir string) []string {
			a, c := filepath.Join(dir, "in", "a.warc.gz"), filepath.Join(dir, "in", "c.warc.gz")
			copyFile(t, ins[0], a)
			copyFile(t, ins[1], c)
			if err := os.Symlink("../in/c.warc.gz", filepath.Join(dir, "out", "a.warc.gz")); err != nil {
				t.Fatal(err)
			}
			return []string{a, c}
		}},
		{"an input that links into OUTDIR", func(t *testing.T, dir string) []string {
			a, c := filepath.Join(dir, "in", "a.warc.gz"), filepath.Join(dir, "in", "c.warc.gz")
			copyFile(t, ins[0], a)
			copyFile(t, ins[1], filepath.Join(dir, "out", "a.warc.gz"))
			if err := os.Symlink("../out/a.warc.gz", c); err != nil {
				t.Fatal(err)
			}
			return []string{a, c}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"in", "out"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			inputs := tc.setup(t, dir)
			check := snapshot(t, append(inputs, filepath.Join(dir, "out", "a.warc.gz"))...)
			_, facts, _ := step(t, mapList(inputs), "map", "-q")
			code, decs, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
			if code != exitOK {
				t.Fatalf("reduce: exit %d\n%s", code, stderr)
			}
			code, _, stderr = step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decs, "\n"), "\n"))), "apply", "-q", "--force", filepath.Join(dir, "out")+"/")
			if code != exitUsage || !strings.Contains(stderr, "is the input") || !strings.Contains(stderr, "nothing written") {
				t.Errorf("apply: exit %d, %q; want 2, naming the input", code, stderr)
			}
			check()
			entries, err := os.ReadDir(filepath.Join(dir, "out"))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("OUTDIR holds %d entries, want the one it held", len(entries))
			}
		})
	}
}

// TestApplyDecisionsTwice: decisions given twice (sort dec dec) are refused
// for what they are, not as a decision at an offset where no record
// starts, before any file is written (exit 2); a decision repeated
// within a file's lines is refused as well (exit 1).
func TestApplyDecisionsTwice(t *testing.T) {
	ins := stageFiles(t)
	_, facts, _ := step(t, mapList(ins), "map", "-q")
	_, decs, _ := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
	lines := strings.SplitAfter(strings.TrimSuffix(decs, "\n"), "\n")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := step(t, []byte(sortLines(append(lines, lines...))), "apply", "-q", out+"/")
	if code != exitUsage || !strings.Contains(stderr, "the decisions were given twice") {
		t.Errorf("apply of every decision twice: exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("apply wrote %d files before refusing", len(entries))
	}
	var twice []string
	for _, l := range lines {
		twice = append(twice, l)
		if strings.Contains(l, "\tD") {
			twice = append(twice, l)
		}
	}
	code, _, stderr = step(t, []byte(sortLines(twice)), "apply", "-q", out+"/")
	if code != exitFailure || !strings.Contains(stderr, "two decisions for the record at offset") {
		t.Errorf("apply of every decision line twice: exit %d, %q", code, stderr)
	}
}

// TestApplyRefusesExistingFirst: an output that exists (without --force),
// or that is a directory (--force or not), is refused before any output is
// written, whichever file's it is: the files applied before it are not
// written either (exit 2). With --force every output is written.
func TestApplyRefusesExistingFirst(t *testing.T) {
	ins := stageFiles(t)
	dec := decisionsFor(t, ins)
	first := firstApplied(t, dec)
	var later string
	for _, in := range ins {
		if in != first {
			later = in
		}
	}
	out := t.TempDir()
	old := filepath.Join(out, filepath.Base(later))
	if err := os.WriteFile(old, []byte("an earlier output"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := step(t, dec, "apply", "-q", out+"/")
	if code != exitUsage || !strings.Contains(stderr, old+" already exists") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("exit %d, %q; want %d, naming %s", code, stderr, exitUsage, old)
	}
	if ns := names(t, out); !slices.Equal(ns, []string{filepath.Base(later)}) || string(mustRead(t, old)) != "an earlier output" {
		t.Errorf("after the refusal the directory holds %v", ns)
	}
	if code, _, stderr := step(t, dec, "apply", "-q", "--force", out+"/"); code != exitOK {
		t.Fatalf("--force: exit %d, %s", code, stderr)
	}
	if string(mustRead(t, old)) == "an earlier output" {
		t.Error("--force left the earlier output")
	}

	// An output that is a directory, --force or not: refused before
	// any output is written.
	out = t.TempDir()
	if err := os.Mkdir(filepath.Join(out, filepath.Base(later)), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"apply", "-q", out + "/"}
		if force {
			args = append(args, "--force")
		}
		code, _, stderr := step(t, dec, args...)
		if code != exitUsage || !strings.Contains(stderr, "is a directory") || !strings.Contains(stderr, "nothing written") {
			t.Errorf("--force %v: exit %d, %q", force, code, stderr)
		}
		if ns := names(t, out); !slices.Equal(ns, []string{filepath.Base(later)}) {
			t.Errorf("--force %v: the directory holds %v", force, ns)
		}
	}
}

// TestApplyTwoFileLines: a key holds one file's line; a second (a line
// moved from another key) is refused, not taken in the first one's place
// or left for it: a file with no decisions whose line moved would go
// unwritten without a word.
func TestApplyTwoFileLines(t *testing.T) {
	ins := stageFiles(t)
	lines := strings.SplitAfter(strings.TrimSuffix(string(decisionsFor(t, ins)), "\n"), "\n")
	perKey := map[string]int{}
	for _, l := range lines {
		k, _, _ := strings.Cut(l, "\t")
		perKey[k]++
	}
	// A file with no decisions (its line alone under its key), and
	// another file's line to put it before.
	alone, other := -1, -1
	for i, l := range lines {
		k, v, _ := strings.Cut(l, "\t")
		if !strings.HasPrefix(v, string(rune(dedup.ValFile))) {
			continue
		}
		if perKey[k] == 1 && alone < 0 {
			alone = i
		} else if other < 0 {
			other = i
		}
	}
	if alone < 0 || other < 0 {
		t.Fatalf("no file without decisions (%d) or no other file (%d)", alone, other)
	}
	k2, _, _ := strings.Cut(lines[other], "\t")
	_, v1, _ := strings.Cut(lines[alone], "\t")
	var moved []string
	for i, l := range lines {
		if i == other {
			moved = append(moved, k2+"\t"+v1)
		}
		if i != alone {
			moved = append(moved, l)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := step(t, []byte(strings.Join(moved, "")), "apply", "-q", out+"/")
	if code != exitFailure || !strings.Contains(stderr, "a second file's line") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
