package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
)

// The tests here start warcdedup as a process of its own, hold it in the
// middle of its work on an input the test has not finished giving it (a
// pipe or a FIFO kept open), and send it SIGTERM: every command must end
// with 128+15, leaving no temporary or lock file and no partial file under
// a final name.

// stdinPipe makes a pipe the standard input of cmd, not yet started. The
// test writes to w and keeps r, to see what the process has read.
func stdinPipe(t *testing.T, cmd *exec.Cmd) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	cmd.Stdin = r
	return r, w
}

// feed writes b to the process's standard input and waits until the
// process has read all of it: it is then past its start, with its signal
// handler in place, and, with w open, in the middle of its input.
func feed(t *testing.T, r, w *os.File, b []byte) {
	t.Helper()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the process to read its input", func() bool { return pipeUnread(t, r) == 0 })
}

// terminate sends SIGTERM to cmd, started, and returns its exit status; a
// process that goes on for 10 s after it is killed, and fails the test.
func terminate(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("still running 10 s after SIGTERM")
		cmd.Process.Kill()
		<-done
	}
	return cmd.ProcessState.ExitCode()
}

// wantTerminated checks the exit status and that dirs hold nothing.
func wantTerminated(t *testing.T, code int, stderr string, dirs ...string) {
	t.Helper()
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d: %s", code, 128+int(syscall.SIGTERM), stderr)
	}
	for _, d := range dirs {
		if ns := names(t, d); len(ns) != 0 {
			t.Errorf("left %v in %s", ns, d)
		}
	}
}

// stepInputs are the inputs of the steps of a cluster job over the staged
// files: the facts of map, sorted, and the lines of map --rounds, sorted.
func stepInputs(t *testing.T) (ins []string, facts, rounds string) {
	t.Helper()
	ins = stageFiles(t)
	code, out, stderr := step(t, mapList(ins), "map", "-q")
	if code != exitOK {
		t.Fatalf("map: exit %d\n%s", code, stderr)
	}
	facts = sortLines(strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n"))
	code, out, stderr = step(t, mapList(ins), "map", "-q", "--rounds")
	if code != exitOK {
		t.Fatalf("map --rounds: exit %d\n%s", code, stderr)
	}
	rounds = sortLines(strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n"))
	return ins, facts, rounds
}

// firstHalf is the first half of the lines of s.
func firstHalf(s string) []byte {
	lines := strings.SplitAfter(s, "\n")
	return []byte(strings.Join(lines[:len(lines)/2], ""))
}

// TestStepsSignal: map, reduce and a round of reduce, which write to
// standard output, end on SIGTERM in the middle of their input with
// 128+15, as a batch system that stops a task expects, and leave nothing in
// their temporary directory; reduce --report removes the unfinished report
// and its lock file.
func TestStepsSignal(t *testing.T) {
	ins, facts, rounds := stepInputs(t)
	for _, c := range []struct {
		name  string
		args  []string
		input []byte
		// report: the test gives --report FILE in a directory of its own,
		// which must hold the report's temporary and lock files when the
		// signal comes, and nothing after.
		report bool
	}{
		{"map", []string{"map", "-q"}, mapList(ins), false},
		{"reduce", []string{"reduce", "-q"}, firstHalf(facts), false},
		{"reduce --report", []string{"reduce", "-q"}, firstHalf(facts), true},
		{"reduce --round", []string{"reduce", "-q", "--round", "exact"}, firstHalf(rounds), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp, dir := t.TempDir(), t.TempDir()
			args := append(c.args, "--tmp", tmp)
			if c.report {
				args = append(args, "--report", filepath.Join(dir, "report.jsonl"))
			}
			cmd := command(args...)
			r, w := stdinPipe(t, cmd)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			feed(t, r, w, c.input)
			if c.report {
				if !hasTemp(dir) || !slices.Contains(names(t, dir), ".report.jsonl"+lockSuffix) {
					t.Fatalf("no temporary report and lock file: %v", names(t, dir))
				}
			}
			wantTerminated(t, terminate(t, cmd), stderr.String(), tmp, dir)
		})
	}
}

// TestDryRunSignal: a dry run without --report writes nothing, and yet
// ends on SIGTERM with 128+15 rather than reading on.
func TestDryRunSignal(t *testing.T) {
	tmp, dir := t.TempDir(), t.TempDir()
	cmd := command("-q", "-n", "--tmp", tmp, "-", filepath.Join(dir, "out.warc.gz"))
	r, w := stdinPipe(t, cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	feed(t, r, w, mustRead(t, samplePath))
	wantTerminated(t, terminate(t, cmd), stderr.String(), tmp, dir)
}

// TestApplySignal: apply ends on SIGTERM in the middle of a file with
// 128+15; the files it had written are there, whole, as an uninterrupted
// apply writes them, and no other file, temporary or lock; it names the
// files finished and the one not.
func TestApplySignal(t *testing.T) {
	ins, facts, _ := stepInputs(t)
	code, decisions, stderr := step(t, []byte(facts), "reduce", "-q")
	if code != exitOK {
		t.Fatalf("reduce: exit %d\n%s", code, stderr)
	}
	decisions = sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n"))
	whole := t.TempDir()
	if code, _, stderr := step(t, []byte(decisions), "apply", "-q", whole+"/"); code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}
	// Apply takes the files in the order of their keys; the third becomes
	// a FIFO the test writes half of the file to and keeps open, so that
	// apply stays in the middle of its output.
	var order []string
	for _, l := range strings.Split(strings.TrimSuffix(decisions, "\n"), "\n") {
		_, val, _ := strings.Cut(l, "\t")
		if val == "" || val[0] != dedup.ValFile {
			continue
		}
		b, err := b64.DecodeString(val[1:])
		if err != nil {
			t.Fatal(err)
		}
		_, name, _, err := dedup.ParseFileLine(append([]byte{val[0]}, b...))
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, name)
	}
	if len(order) != len(ins) {
		t.Fatalf("the decisions name %d files, want %d", len(order), len(ins))
	}
	held := order[2]
	data := mustRead(t, held)
	if err := os.Remove(held); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(held, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out := t.TempDir()
	cmd := command("apply", "-q", out+"/")
	cmd.Stdin = strings.NewReader(decisions)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The FIFO opens for writing, without blocking, once apply has opened
	// it for reading.
	var fifo *os.File
	waitFor(t, "apply to open "+held, func() bool {
		f, err := os.OpenFile(held, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		fifo = f
		return err == nil
	})
	defer fifo.Close()
	if _, err := fifo.Write(data[:len(data)/2]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the temporary output", func() bool { return hasTemp(out) })
	code = terminate(t, cmd)
	msg := errBuf.String()
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d: %s", code, 128+int(syscall.SIGTERM), msg)
	}
	var want, done []string
	for _, in := range order[:2] {
		want = append(want, filepath.Base(in))
		done = append(done, filepath.Join(out, filepath.Base(in)))
	}
	got := names(t, out)
	wantSorted := append([]string(nil), want...)
	slices.Sort(wantSorted)
	if strings.Join(got, ",") != strings.Join(wantSorted, ",") {
		t.Fatalf("left %v, want the finished %v alone", got, wantSorted)
	}
	for _, n := range want {
		if !bytes.Equal(mustRead(t, filepath.Join(out, n)), mustRead(t, filepath.Join(whole, n))) {
			t.Errorf("%s differs from an uninterrupted apply's", n)
		}
	}
	for _, s := range []string{
		fmt.Sprintf("finished=%v", done),
		fmt.Sprintf("not_finished=%v", []string{filepath.Join(out, filepath.Base(held))}),
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("the message lacks %q: %s", s, msg)
		}
	}
}

// TestReviewSignal: review ends on SIGTERM with 128+15 and leaves neither
// its page nor the page's temporary or lock file.
func TestReviewSignal(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "review.html")
	// The report is read from standard input, kept open: review waits for
	// the rest holding its page's lock.
	cmd := command("review", "-o", page, "/dev/stdin")
	_, w := stdinPipe(t, cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	waitFor(t, "the page's lock", func() bool { return exists(lockName(page)) })
	wantTerminated(t, terminate(t, cmd), stderr.String(), dir)
}

// TestCPUProfileSignal: a run with --cpuprofile ended by SIGTERM leaves
// neither the profile, which would be cut short, nor its temporary file.
func TestCPUProfileSignal(t *testing.T) {
	dir := t.TempDir()
	cmd := command("-q", "--cpuprofile", filepath.Join(dir, "cpu.prof"), "-", filepath.Join(dir, "out.warc.gz"))
	r, w := stdinPipe(t, cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	feed(t, r, w, mustRead(t, samplePath)[:1000])
	wantTerminated(t, terminate(t, cmd), stderr.String(), dir)
}

// TestReduceSignalAfterStaging: reduce --index interrupted after it staged
// what the job kept, while it writes its report's last lines (to a FIFO
// the test does not read), ends with 128+15 and discards the segment: the
// index is as it was.
func TestReduceSignalAfterStaging(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "copies.warc.gz")
	story := storyText(4, 12)
	var pages [][3]string
	for i := range 40 {
		pages = append(pages, [3]string{uuid(100 + i), fmt.Sprintf("http://site%d.example/story", i), story})
	}
	htmlWARC(t, in, 10, pages...)
	// One file: its report lines are written when the run ends, after
	// staging.
	code, out, stderr := step(t, mapList([]string{in}), "map", "-q")
	if code != exitOK {
		t.Fatalf("map: exit %d\n%s", code, stderr)
	}
	facts := sortLines(strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n"))
	whole := filepath.Join(dir, "report.jsonl")
	if code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--report", whole); code != exitOK {
		t.Fatalf("reduce: exit %d\n%s", code, stderr)
	}

	fifo := filepath.Join(dir, "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened without waiting for a writer; never read.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	held := shrinkPipe(t, r)
	if fi, err := os.Stat(whole); err != nil || fi.Size() <= int64(held) {
		t.Fatalf("the report (%v, %v) does not fill the pipe's %d bytes", fi.Size(), err, held)
	}
	idx := t.TempDir()
	cmd := command("reduce", "-q", "--index", idx, "--report", fifo)
	cmd.Stdin = strings.NewReader(facts)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Staged and writing the report, reduce cannot finish: the report is
	// more than the pipe holds.
	waitFor(t, "reduce to stage and write its report", func() bool {
		n := names(t, idx)
		return slices.Contains(n, "staged.json") && slices.Contains(n, "staged.wdx") && pipeUnread(t, r) > 0
	})
	code = terminate(t, cmd)
	stderr = errb.String()
	if code != 128+int(syscall.SIGTERM) || !strings.Contains(stderr, "staged in index "+idx+" is discarded") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if n := names(t, idx); !slices.Equal(n, []string{"MANIFEST", "lock"}) {
		t.Errorf("the index holds %v", n)
	}
}
