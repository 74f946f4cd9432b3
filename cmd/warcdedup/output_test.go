package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// names lists the entries of dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	sort.Strings(ns)
	return ns
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStdinStdoutSameFile: standard input or output that is the file named as
// an output or input is refused, and the input is left as it was; one that is
// another file is not.
func TestStdinStdoutSameFile(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  func(in, other string) []string
		stdin bool // standard input is the input file
		// stdout: standard output is the input file opened for appending
		// (>> IN), or another file
		stdout, stdoutOther bool
		want                int
		msg                 string
	}{
		{name: "- IN < IN", args: func(in, _ string) []string { return []string{"-", in} }, stdin: true,
			want: exitUsage, msg: "is the file on standard input"},
		{name: "IN - >> IN", args: func(in, _ string) []string { return []string{in, "-"} }, stdout: true,
			want: exitUsage, msg: "standard output is the input"},
		{name: "- - < IN >> IN", args: func(string, string) []string { return []string{"-", "-"} }, stdin: true, stdout: true,
			want: exitUsage, msg: "standard output is the file on standard input"},
		{name: "- OTHER < IN", args: func(_, other string) []string { return []string{"-", other} }, stdin: true,
			want: exitOK},
		{name: "IN - > OTHER", args: func(in, _ string) []string { return []string{in, "-"} }, stdoutOther: true,
			want: exitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.warc.gz")
			copyFile(t, samplePath, in)
			other := filepath.Join(dir, "other.warc.gz")
			var stdin io.Reader
			var stdout io.Writer = io.Discard
			if c.stdin {
				f, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdin = f
			}
			if c.stdout || c.stdoutOther {
				p := in
				if c.stdoutOther {
					p = other
				}
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdout = f
			}
			var stderr bytes.Buffer
			code := run(append([]string{"-q"}, c.args(in, other)...), stdin, stdout, &stderr)
			if code != c.want || !strings.Contains(stderr.String(), c.msg) {
				t.Fatalf("exit %d, %q; want %d and %q", code, stderr.String(), c.want, c.msg)
			}
			if !bytes.Equal(mustRead(t, in), mustRead(t, samplePath)) {
				t.Fatal("the input changed")
			}
			if c.want == exitOK && !bytes.Equal(mustRead(t, other), mustRead(t, goldenPath)) {
				t.Fatal("the output is not the sample's")
			}
		})
	}
}

// TestSpecialOutputs: a character device, FIFO or pipe is written to, not
// replaced; a symbolic link stays and the file it points to gets the output;
// other special files are refused and left alone.
func TestSpecialOutputs(t *testing.T) {
	golden := mustRead(t, goldenPath)
	for _, c := range []struct {
		name string
		// setup makes the output in dir and returns its name, the extra
		// flags, and a check of what is there after the run.
		setup func(t *testing.T, dir string) (out string, flags []string, check func(t *testing.T))
		want  int
	}{
		{"character device", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "mynull")
			mknod(t, out, syscall.S_IFCHR|0o666, 1, 3) // /dev/null's numbers
			return out, nil, func(t *testing.T) { wantMode(t, out, os.ModeDevice|os.ModeCharDevice) }
		}, exitOK},
		{"/dev/null", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			if os.Geteuid() == 0 {
				// As root, a regression would replace the machine's
				// /dev/null; "character device" is the same case.
				t.Skip("not run as root")
			}
			return "/dev/null", nil, func(t *testing.T) { wantMode(t, "/dev/null", os.ModeDevice|os.ModeCharDevice) }
		}, exitOK},
		{"FIFO", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(out, 0o644); err != nil {
				t.Fatal(err)
			}
			// Opened for reading without waiting for a writer; the sample's
			// output fits the pipe's buffer, so the run does not wait for it
			// to be read.
			fd, err := syscall.Open(out, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			r := os.NewFile(uintptr(fd), out)
			t.Cleanup(func() { r.Close() })
			return out, []string{"--compress=yes"}, func(t *testing.T) {
				wantMode(t, out, os.ModeNamedPipe)
				var got []byte
				buf := make([]byte, 1<<16)
				for {
					n, err := syscall.Read(fd, buf)
					if n <= 0 || err != nil {
						break
					}
					got = append(got, buf[:n]...)
				}
				if !bytes.Equal(got, golden) {
					t.Errorf("read %d bytes from the FIFO, want the sample's %d", len(got), len(golden))
				}
			}
		}, exitOK},
		{"pipe as /dev/fd/N", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(r)
				got <- b
			}()
			t.Cleanup(func() { r.Close(); w.Close() })
			return "/dev/fd/" + strconv.Itoa(int(w.Fd())), []string{"--compress=yes"}, func(t *testing.T) {
				w.Close()
				if b := <-got; !bytes.Equal(b, golden) {
					t.Errorf("read %d bytes from the pipe, want the sample's %d", len(b), len(golden))
				}
			}
		}, exitOK},
		{"symbolic link to no file", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "link.warc.gz")
			if err := os.Mkdir(filepath.Join(dir, "t"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("t/target.warc.gz", out); err != nil {
				t.Fatal(err)
			}
			return out, nil, func(t *testing.T) {
				wantMode(t, out, os.ModeSymlink)
				if b := mustRead(t, filepath.Join(dir, "t", "target.warc.gz")); !bytes.Equal(b, golden) {
					t.Error("the link's target does not hold the output")
				}
				if ns := names(t, filepath.Join(dir, "t")); len(ns) != 1 {
					t.Errorf("beside the target: %v", ns)
				}
			}
		}, exitOK},
		{"symbolic link to a file, --force", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "link.warc.gz")
			target := filepath.Join(t.TempDir(), "target.warc.gz")
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, out); err != nil {
				t.Fatal(err)
			}
			return out, []string{"--force"}, func(t *testing.T) {
				wantMode(t, out, os.ModeSymlink)
				if b := mustRead(t, target); !bytes.Equal(b, golden) {
					t.Error("the link's target does not hold the output")
				}
				if ns := names(t, filepath.Dir(target)); len(ns) != 1 {
					t.Errorf("beside the target: %v", ns)
				}
			}
		}, exitOK},
		{"block device", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "myloop")
			mknod(t, out, syscall.S_IFBLK|0o600, 7, 0) // a loop device's numbers
			return out, nil, func(t *testing.T) { wantMode(t, out, os.ModeDevice) }
		}, exitUsage},
		{"socket", func(t *testing.T, dir string) (string, []string, func(*testing.T)) {
			out := filepath.Join(dir, "sock")
			l, err := net.Listen("unix", out)
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { l.Close() })
			return out, nil, func(t *testing.T) { wantMode(t, out, os.ModeSocket) }
		}, exitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out, flags, check := c.setup(t, dir)
			before := names(t, dir)
			code, msg := runCLI(t, append(append([]string{"-q"}, flags...), samplePath, out)...)
			if code != c.want {
				t.Fatalf("exit %d, want %d: %s", code, c.want, msg)
			}
			if c.want != exitOK && !strings.Contains(msg, out) {
				t.Errorf("message does not name the output: %s", msg)
			}
			check(t)
			if after := names(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
				t.Errorf("files beside the output: %v before, %v after", before, after)
			}
		})
	}
}

func mknod(t *testing.T, path string, mode uint32, major, minor int) {
	t.Helper()
	if err := syscall.Mknod(path, mode, major<<8|minor); err != nil {
		t.Skipf("mknod: %v (needs root)", err)
	}
}

func wantMode(t *testing.T, path string, typ os.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != typ {
		t.Errorf("%s is now %v, want %v", path, fi.Mode().Type(), typ)
	}
}

// TestExistingOutput: an output that exists is refused, as gzip refuses it,
// unless --force; a batch names every output that exists and writes none.
func TestExistingOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg := runCLI(t, "-q", samplePath, out)
	if code != exitUsage || !strings.Contains(msg, out+" already exists; use --force to overwrite") {
		t.Fatalf("exit %d, %q", code, msg)
	}
	if string(mustRead(t, out)) != "old" {
		t.Fatal("the existing output changed")
	}
	if code, msg := runCLI(t, "-q", "--force", samplePath, out); code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, msg)
	}
	if !bytes.Equal(mustRead(t, out), mustRead(t, goldenPath)) {
		t.Fatal("--force did not write the output")
	}

	src, outDir := t.TempDir(), t.TempDir()
	var ins []string
	for _, n := range []string{"a.warc.gz", "b.warc.gz", "c.warc.gz"} {
		ins = append(ins, filepath.Join(src, n))
		copyFile(t, samplePath, ins[len(ins)-1])
	}
	for _, n := range []string{"a.warc.gz", "c.warc.gz"} {
		if err := os.WriteFile(filepath.Join(outDir, n), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, msg = runCLI(t, append(append([]string{"-q"}, ins...), outDir)...)
	if code != exitUsage || !strings.Contains(msg, "2 outputs already exist") ||
		!strings.Contains(msg, filepath.Join(outDir, "a.warc.gz")) || !strings.Contains(msg, filepath.Join(outDir, "c.warc.gz")) {
		t.Fatalf("batch: exit %d, %q", code, msg)
	}
	if ns := names(t, outDir); strings.Join(ns, ",") != "a.warc.gz,c.warc.gz" {
		t.Fatalf("batch refused, but the output directory holds %v", ns)
	}
	if code, msg := runCLI(t, append(append([]string{"-q", "--force"}, ins...), outDir)...); code != exitOK {
		t.Fatalf("batch --force: exit %d: %s", code, msg)
	}
	if string(mustRead(t, filepath.Join(outDir, "c.warc.gz"))) == "old" {
		t.Fatal("batch --force did not overwrite")
	}
}

// TestMissingInputCreatesNothing: inputs are checked before anything is
// created: a missing one leaves no output directory behind.
func TestMissingInputCreatesNothing(t *testing.T) {
	for _, args := range [][]string{
		{"missing.warc.gz", "out.warc.gz"},
		{"missing.warc.gz", "out"},
		{"in.warc.gz", "missing.warc.gz", "out"},
		{"missing.warc.gz", "in.warc.gz", "missing2.warc.gz", "out"},
		{"-", "in.warc.gz", "out"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, samplePath, filepath.Join(dir, "in.warc.gz"))
			abs := make([]string, len(args))
			for i, a := range args {
				abs[i] = a
				if a != "-" {
					abs[i] = filepath.Join(dir, a)
				}
			}
			code, msg := runCLI(t, abs...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d: %s", code, exitUsage, msg)
			}
			for _, a := range args {
				if strings.HasPrefix(a, "missing") && !strings.Contains(msg, "input "+filepath.Join(dir, a)+": no such file") {
					t.Errorf("%s is not named: %s", a, msg)
				}
			}
			if ns := names(t, dir); strings.Join(ns, ",") != "in.warc.gz" {
				t.Errorf("left %v", ns)
			}
		})
	}
}

// waitFor polls until cond holds, failing the test after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// hasTemp says whether dir holds a temporary file of an output.
func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), "tmp") {
			return true
		}
	}
	return false
}

// TestIgnoredSignals: a run started ignoring SIGHUP (nohup) or SIGINT (a
// background job of a non-interactive shell) goes on when it comes, and
// writes its output; SIGTERM still stops it. With and without a profile,
// whose handler takes the signals first.
func TestIgnoredSignals(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start the run ignoring a signal")
	}
	for _, c := range []struct {
		sig     syscall.Signal
		profile bool
	}{{syscall.SIGHUP, false}, {syscall.SIGINT, false}, {syscall.SIGHUP, true}} {
		t.Run(fmt.Sprintf("%v profile %v", c.sig, c.profile), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.warc.gz")
			args := []string{"-c", fmt.Sprintf(`trap "" %d; exec "$0" "$@"`, int(c.sig)), os.Args[0], "-q", "-", out}
			if c.profile {
				args = append(args, "--cpuprofile", filepath.Join(t.TempDir(), "cpu.prof"))
			}
			cmd := exec.Command("sh", args...)
			cmd.Env = append(os.Environ(), mainEnv+"=1")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the temporary output", func() bool { return hasTemp(dir) })
			cmd.Process.Signal(c.sig)
			time.Sleep(200 * time.Millisecond)
			stdin.Write(mustRead(t, samplePath))
			stdin.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			if _, err := os.Stat(out); err != nil {
				t.Errorf("no output: %v", err)
			}
		})
	}
}

// TestSignalRemovesTemporaryFiles: SIGINT, SIGTERM and SIGHUP end a run with
// 128 and the signal's number, and leave neither the unfinished output's
// temporary file nor the lock file.
func TestSignalRemovesTemporaryFiles(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		want int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := command("-q", "-", filepath.Join(dir, "out.warc.gz"))
			// Standard input stays open and empty: the run waits in the
			// middle of its output.
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the temporary output", func() bool { return hasTemp(dir) })
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.want {
				t.Errorf("exit %d (%v), want %d: %s", code, cmd.ProcessState, c.want, stderr.String())
			}
			if ns := names(t, dir); len(ns) != 0 {
				t.Errorf("left %v", ns)
			}
		})
	}
}

// TestKilledRunsFilesRemoved: kill -9 leaves a temporary file; the next run
// for that output removes it, and not those of other outputs.
func TestKilledRunsFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	cmd := command("-q", "-", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the temporary output", func() bool { return hasTemp(dir) })
	cmd.Process.Kill()
	cmd.Wait()
	if !hasTemp(dir) {
		t.Fatal("kill -9 left no temporary file: the test tests nothing")
	}
	// Temporary files of other outputs, one named like a temporary file of
	// out: not this run's to remove.
	other := ".other.warc.gz" + tempInfix + "1"
	lookalike := ".out.warc.gz" + tempInfix + "1" + tempInfix + "2"
	if err := os.WriteFile(filepath.Join(dir, lookalike), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, other), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, msg := runCLI(t, "-q", samplePath, out); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if ns := names(t, dir); strings.Join(ns, ",") != other+","+lookalike+",out.warc.gz" {
		t.Fatalf("after the next run: %v", ns)
	}
}

// TestInputNamedAsTemporary: an input named as a killed run's temporary
// file of the output (given by name or on standard input), or a CDX so
// named, is read, not removed as one; so are the steps' inputs (a WARC,
// the facts, the decisions) named as temporary files of their outputs. (apply cannot meet one:
// such an input would be in the output directory, and its own output.)
func TestInputNamedAsTemporary(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, ".x.warc.gz"+tempInfix+"5")
	copyFile(t, samplePath, in)
	check := snapshot(t, in)
	if code, msg := runCLI(t, "-q", in, filepath.Join(dir, "x.warc.gz")); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	check()

	// The same file on standard input.
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stderr bytes.Buffer
	if code := run([]string{"-q", "--force", "-", filepath.Join(dir, "x.warc.gz")}, f, nil, &stderr); code != exitOK {
		t.Fatalf("standard input: exit %d: %s", code, stderr.String())
	}
	check()

	// A CDX to deduplicate against, so named.
	cdx := filepath.Join(dir, ".y.warc.gz"+tempInfix+"7")
	if err := os.WriteFile(cdx, []byte(" CDX N b a m s k r M S V g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check = snapshot(t, in, cdx)
	if code, msg := runCLI(t, "-q", "--index-cdx", cdx, samplePath, filepath.Join(dir, "y.warc.gz")); code != exitOK {
		t.Fatalf("--index-cdx: exit %d: %s", code, msg)
	}
	check()

	// The steps: an input WARC, the decisions and the facts on standard
	// input, each named like a temporary file of apply's --cdxj or
	// reduce's --report.
	steps := t.TempDir()
	warc := filepath.Join(steps, ".idx.cdxj"+tempInfix+"5")
	copyFile(t, samplePath, warc)
	_, facts, _ := step(t, mapList([]string{warc}), "map", "-q")
	sorted := sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))
	factsFile := filepath.Join(steps, ".rep.jsonl"+tempInfix+"6")
	if err := os.WriteFile(factsFile, []byte(sorted), 0o644); err != nil {
		t.Fatal(err)
	}
	ff, err := os.Open(factsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	var dec bytes.Buffer
	stderr.Reset()
	if code := run([]string{"reduce", "-q", "--report", filepath.Join(steps, "rep.jsonl")}, ff, &dec, &stderr); code != exitOK {
		t.Fatalf("reduce: exit %d: %s", code, stderr.String())
	}
	decFile := filepath.Join(steps, ".idx.cdxj"+tempInfix+"7")
	if err := os.WriteFile(decFile, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(dec.String(), "\n"), "\n"))), 0o644); err != nil {
		t.Fatal(err)
	}
	df, err := os.Open(decFile)
	if err != nil {
		t.Fatal(err)
	}
	defer df.Close()
	check = snapshot(t, warc, factsFile, decFile)
	stderr.Reset()
	if code := run([]string{"apply", "-q", "--cdxj", filepath.Join(steps, "idx.cdxj"), filepath.Join(steps, "out") + "/"}, df, nil, &stderr); code != exitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr.String())
	}
	check()
}

// TestConcurrentRunsOneOutput: a second run for an output that a run is
// writing fails at once, with exit 1, and touches nothing; the first finishes.
func TestConcurrentRunsOneOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	first := make(chan int)
	var stderr1 bytes.Buffer
	go func() { first <- run([]string{"-q", "-", out}, r, nil, &stderr1) }()
	waitFor(t, "the first run's temporary output", func() bool { return hasTemp(dir) })
	before := names(t, dir)
	for _, flags := range [][]string{{"-q"}, {"-q", "--force"}} {
		start := time.Now()
		code, msg := runCLI(t, append(flags, samplePath, out)...)
		if code != exitFailure || !strings.Contains(msg, "another warcdedup run is writing it") || !strings.Contains(msg, out) {
			t.Errorf("%v: second run: exit %d, %q", flags, code, msg)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("the second run took %v to fail", el)
		}
		if after := names(t, dir); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("%v: the second run changed the directory: %v, then %v", flags, before, after)
		}
	}
	if _, err := w.Write(mustRead(t, samplePath)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if code := <-first; code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, stderr1.String())
	}
	if !bytes.Equal(mustRead(t, out), mustRead(t, goldenPath)) {
		t.Fatal("the first run's output is not the sample's")
	}
	if ns := names(t, dir); strings.Join(ns, ",") != "out.warc.gz" {
		t.Fatalf("left %v", ns)
	}
}

// TestSyncBeforeRename: the output is synced before it is renamed onto its
// name and its directory after; a failing sync fails the file and leaves no
// output.
func TestSyncBeforeRename(t *testing.T) {
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.warc.gz")
	var synced []string
	syncFile = func(f *os.File) error {
		_, err := os.Stat(out)
		synced = append(synced, fmt.Sprintf("%s renamed=%v", filepath.Base(f.Name()), err == nil))
		return f.Sync()
	}
	if code, msg := runCLI(t, "-q", samplePath, out); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if len(synced) != 2 || !strings.HasPrefix(synced[0], ".out.warc.gz"+tempInfix) || !strings.HasSuffix(synced[0], " renamed=false") ||
		synced[1] != filepath.Base(dir)+" renamed=true" {
		t.Fatalf("synced %q; want the temporary file before the rename, the directory after", synced)
	}
	os.Remove(out)
	syncFile = func(f *os.File) error { return syscall.EIO }
	code, msg := runCLI(t, "-q", samplePath, out)
	if code != exitFailure || !strings.Contains(msg, out) || !strings.Contains(msg, "input/output error") {
		t.Fatalf("failing sync: exit %d, %q", code, msg)
	}
	if ns := names(t, dir); len(ns) != 0 {
		t.Fatalf("failing sync left %v", ns)
	}
}

// TestReportIsAnOutput: the --report file is checked and written as the
// outputs are: never an input, not overwritten without --force, complete or
// not there.
func TestReportIsAnOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	copyFile(t, samplePath, in)
	out := filepath.Join(dir, "out.warc.gz")
	code, msg := runCLI(t, "-q", "--report", in, in, out)
	if code != exitUsage || !strings.Contains(msg, "--report: output "+in+" is the input") {
		t.Errorf("report onto an input: exit %d, %q", code, msg)
	}
	if !bytes.Equal(mustRead(t, in), mustRead(t, samplePath)) {
		t.Fatal("the input changed")
	}
	rep := filepath.Join(dir, "report.jsonl")
	if err := os.WriteFile(rep, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg = runCLI(t, "-q", "--report", rep, in, out)
	if code != exitUsage || !strings.Contains(msg, rep+" already exists") || string(mustRead(t, rep)) != "old" {
		t.Errorf("existing report: exit %d, %q", code, msg)
	}
	if code, msg := runCLI(t, "-q", "--force", "--report", rep, in, out); code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, msg)
	}
	if b := mustRead(t, rep); !bytes.Contains(b, []byte(`"kind"`)) || b[len(b)-1] != '\n' {
		t.Errorf("report %q", b)
	}
	if ns := names(t, dir); strings.Join(ns, ",") != "in.warc.gz,out.warc.gz,report.jsonl" {
		t.Errorf("left %v", ns)
	}
}

// TestEmptyInput: an input without records (an empty file, or blank lines
// only) is not damage: the run succeeds without --lenient, warns, and the
// output is a copy of the input.
func TestEmptyInput(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"empty", ""},
		{"blank line", "\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.warc"), filepath.Join(dir, "out.warc")
			if err := os.WriteFile(in, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, msg := runCLI(t, in, out)
			if code != exitOK || !strings.Contains(msg, "holds no WARC or ARC records") || strings.Contains(msg, "damaged") {
				t.Fatalf("exit %d, %q", code, msg)
			}
			if got := string(mustRead(t, out)); got != tc.body {
				t.Fatalf("output %q, want %q", got, tc.body)
			}
		})
	}
}

// smallFilesystem returns a directory on a tmpfs of the given size, or skips
// where mounting one is not allowed (only root may).
func smallFilesystem(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// TestFullDiskSaysWhere: an output whose disk fills (ENOSPC) fails its file
// with a message naming the output, the offset in it where writing failed,
// and the input record being written (file, offset, record ID); neither
// the temporary file nor the lock file is left. For a run and apply.
func TestFullDiskSaysWhere(t *testing.T) {
	in := filepath.Join(t.TempDir(), "big.warc.gz")
	// Over a MiB decompressed, the run's write buffer: the disk fills
	// while a record is written, not on the last flush.
	recs := make([]testResponse, 600)
	for i := range recs {
		recs[i] = testResponse{id: uuid(i + 1), uri: fmt.Sprintf("http://example.com/%d", i), payload: strconv.Itoa(i)}
	}
	writeWARC(t, in, recs, 0)
	for _, c := range []struct {
		name string
		run  func(outDir string) (int, string)
	}{
		{"run", func(outDir string) (int, string) {
			return runCLI(t, "-q", "--compress", "no", in, filepath.Join(outDir, "big.warc.gz"))
		}},
		{"apply", func(outDir string) (int, string) {
			code, _, stderr := step(t, decisionsFor(t, []string{in}), "apply", "-q", "--compress", "no", outDir+"/")
			return code, stderr
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			outDir := smallFilesystem(t, "64k")
			out := filepath.Join(outDir, "big.warc.gz")
			code, msg := c.run(outDir)
			if code != exitFailure {
				t.Fatalf("exit %d, want %d: %s", code, exitFailure, msg)
			}
			for _, s := range []string{"output " + out + " at offset ", "writing record <urn:uuid:", " of " + in + " at offset ", "no space left on device"} {
				if !strings.Contains(msg, s) {
					t.Errorf("the message lacks %q: %s", s, msg)
				}
			}
			if ns := names(t, outDir); len(ns) != 0 {
				t.Errorf("left %v", ns)
			}
		})
	}
}
