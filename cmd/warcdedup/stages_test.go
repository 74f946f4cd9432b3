package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/warcio"
)

// htmlWARC writes pages as a compressed WARC: each a response dated at
// minute i of the given hour, with the story in a frame of its site.
func htmlWARC(t *testing.T, path string, hour int, pages ...[3]string) {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	for i, p := range pages {
		id, uri, story := p[0], p[1], p[2]
		site := strings.Split(uri, "/")[2]
		body := fmt.Sprintf("<html><head><title>%s</title></head><body><nav><a href=/>Home</a> <a href=/news>News</a> %s</nav><article><h1>%s</h1><p>%s</p></article><footer>Copyright %s</footer></body></html>",
			site, site, uri, story, site)
		block := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:" + id + ">"},
			{Name: "WARC-Date", Value: fmt.Sprintf("2026-11-01T%02d:%02d:00Z", hour, i)},
			{Name: "WARC-Target-URI", Value: uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stageFiles makes a run's inputs: the repository's sample crawl and three
// crawls with exact and near duplicates within and across files and sites;
// the last file listed was captured first, so a run takes it first.
func stageFiles(t *testing.T) []string {
	dir := t.TempDir()
	in := func(n string) string { return filepath.Join(dir, n) }
	copyFile(t, "../../testdata/sample.warc.gz", in("sample.warc.gz"))
	a, b, c := storyText(1, 12), storyText(2, 12), storyText(3, 12)
	htmlWARC(t, in("day2.warc.gz"), 12,
		[3]string{uuid(21), "http://news.example/a", a + " Updated at noon."},
		[3]string{uuid(22), "http://wire.example/story-a", a},
		[3]string{uuid(23), "http://news.example/c", c})
	htmlWARC(t, in("day3.warc.gz"), 13,
		[3]string{uuid(31), "http://news.example/b", b},
		[3]string{uuid(32), "http://news.example/b?session=2", b},
		[3]string{uuid(33), "http://other.example/c-copy", c + " Reprinted with permission."})
	htmlWARC(t, in("day1.warc.gz"), 9,
		[3]string{uuid(11), "http://news.example/a", a},
		[3]string{uuid(12), "http://news.example/b", b + " First version."})
	return []string{in("sample.warc.gz"), in("day2.warc.gz"), in("day3.warc.gz"), in("day1.warc.gz")}
}

// TestMapReduceLocal: scripts/mapreduce-local.sh, a map task per file, sort,
// one reduce, apply tasks by key hash, writes the files and bytes that one
// run of warcdedup over the same inputs writes, with the default settings
// and with near duplicates annotated; with the partitioned rounds (-r), the
// same records but for the similarities near revisits and annotations
// record, with the default settings and with near duplicates annotated.
func TestMapReduceLocal(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	ins := stageFiles(t)
	for _, flags := range []string{"", "--near annotate --min-size 512", "-r", "-r --near annotate --min-size 512"} {
		t.Run(strings.ReplaceAll(flags, " ", "_"), func(t *testing.T) {
			one, mr := t.TempDir(), filepath.Join(t.TempDir(), "out")
			script := []string{"../../scripts/mapreduce-local.sh", "-t", "2"}
			if rest, ok := strings.CutPrefix(flags, "-r"); ok {
				// The partitioned rounds.
				script, flags = append(script, "-r"), strings.TrimSpace(rest)
			}
			idxDir := t.TempDir()
			oneIdx, mrIdx := filepath.Join(idxDir, "one.cdxj"), filepath.Join(idxDir, "mr.cdxj")
			args := append(append(strings.Fields(flags), "-q", "--cdxj", oneIdx), append(ins, one+"/")...)
			if code, stderr := runCLI(t, args...); code != exitOK {
				t.Fatalf("warcdedup: exit %d\n%s", code, stderr)
			}
			cmd := exec.Command("bash", append(script, append(ins, mr+"/")...)...)
			cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+os.Args[0], "WARCDEDUP_FLAGS="+flags, "WARCDEDUP_CDXJ="+mrIdx)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mapreduce-local.sh: %v\n%s", err, out)
			}
			want, got := names(t, one), names(t, mr)
			if strings.Join(want, " ") != strings.Join(got, " ") {
				t.Fatalf("files: one run wrote %v, the steps %v", want, got)
			}
			revisits, annotations := 0, 0
			for _, n := range want {
				a, b := mustRead(t, filepath.Join(one, n)), mustRead(t, filepath.Join(mr, n))
				if len(script) > 3 {
					sameRecords(t, filepath.Join(one, n), filepath.Join(mr, n))
				} else if !bytes.Equal(a, b) {
					t.Errorf("%s: the steps wrote %d bytes, one run %d, and they differ", n, len(b), len(a))
				}
				rs, err := readRecords(filepath.Join(one, n))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					switch {
					case r.h == nil:
					case r.h.Get("WARC-Type") == "revisit":
						revisits++
					case r.h.Get("WARC-Type") == "metadata" && r.h.Get("WARC-Refers-To") != "":
						annotations++
					}
				}
			}
			if revisits+annotations < 4 || strings.Contains(flags, "annotate") && annotations == 0 {
				t.Errorf("%d revisits and %d annotations: the inputs do not exercise the decisions", revisits, annotations)
			}
			if flags == "" {
				checkOutputs(t, runOrder(ins), outsIn(mr, runOrder(ins)))
			}
			// The apply tasks' CDXJ indexes, merged, are the run's --cdxj:
			// byte for byte, or, where the rounds record other similarities
			// (and so other record lengths), capture for capture.
			a, b := mustRead(t, oneIdx), mustRead(t, mrIdx)
			if len(script) > 3 {
				a, b = regexp.MustCompile(`(?m) \{.*$`).ReplaceAll(a, nil), regexp.MustCompile(`(?m) \{.*$`).ReplaceAll(b, nil)
			}
			if n := bytes.Count(a, []byte("\n")); n < 10 || !bytes.Equal(a, b) {
				t.Errorf("the steps' CDXJ index:\n%s\none run's (%d lines):\n%s", b, n, a)
			}
		})
	}
}

// runOrder is the order a run takes stageFiles' inputs in: by the date of
// their first record.
func runOrder(ins []string) []string { return []string{ins[0], ins[3], ins[1], ins[2]} }

// slurmCluster skips the test (fails it with WARCDEDUP_SLURM=1) unless a
// Slurm cluster here takes jobs.
func slurmCluster(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Slurm jobs")
	}
	out, err := exec.Command("sinfo", "-h", "-o", "%T").Output()
	up := false
	for _, s := range strings.Fields(string(out)) {
		up = up || s == "idle" || s == "mixed" || s == "allocated"
	}
	if err != nil || !up {
		msg := fmt.Sprintf("no Slurm cluster takes jobs here (sinfo: %v %q): scripts/slurm-single-node.sh starts one", err, out)
		if os.Getenv("WARCDEDUP_SLURM") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// TestMapReduceSlurm: scripts/mapreduce-slurm.sh, the steps as Slurm job
// arrays on a real cluster, writes the bytes one run writes; with the
// partitioned rounds (-r), the records. Runs that share a WORKDIR (and an
// index) take nothing of each other's: an output that exists is refused
// before any job is submitted; a failed map task, or a failed apply task,
// fails the run (and the rounds' run names the outputs written, says the
// index's staged segment is not committed, and does not commit it); and a
// run over one file writes that file only. Killed, the script says which
// outputs are written, and, once every apply task has finished, that the
// index's staged segment can be committed. It needs a cluster that takes jobs
// (scripts/slurm-single-node.sh starts one on this machine, as .ci/run
// does); with WARCDEDUP_SLURM=1 a missing cluster fails the test instead of
// skipping it.
func TestMapReduceSlurm(t *testing.T) {
	slurmCluster(t)
	bin := buildBinary(t)
	ins := stageFiles(t)
	one, mr := t.TempDir(), filepath.Join(t.TempDir(), "out")
	idxDir := t.TempDir()
	oneIdx, mrIdx := filepath.Join(idxDir, "one.cdxj"), filepath.Join(idxDir, "mr.cdxj")
	if code, stderr := runCLI(t, append(append([]string{"-q", "--cdxj", oneIdx}, ins...), one+"/")...); code != exitOK {
		t.Fatalf("warcdedup: exit %d\n%s", code, stderr)
	}
	work, index := t.TempDir(), filepath.Join(t.TempDir(), "index")
	cmd := exec.Command("bash", append([]string{"../../scripts/mapreduce-slurm.sh", "-t", "2"}, append(ins, mr+"/")...)...)
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "TMPDIR="+t.TempDir(), "WARCDEDUP_CDXJ="+mrIdx, "WORKDIR="+work, "WARCDEDUP_INDEX="+index)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mapreduce-slurm.sh: %v\n%s", err, out)
	}
	indexHolds := func() string {
		var o bytes.Buffer
		if code := run([]string{"index", index}, nil, &o, io.Discard); code != exitOK {
			t.Fatalf("warcdedup index: exit %d", code)
		}
		return regexp.MustCompile(`(?m)^(a cluster job staged .*|\d+ runs, \d+ kept records, \d+ near-duplicate pages)`).FindString(o.String())
	}
	committed := indexHolds()
	if !strings.HasPrefix(committed, "1 runs, ") {
		t.Errorf("after the first job the index holds %q", committed)
	}
	want, got := names(t, one), names(t, mr)
	if strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("files: one run wrote %v, the Slurm jobs %v", want, got)
	}
	for _, n := range want {
		if !bytes.Equal(mustRead(t, filepath.Join(one, n)), mustRead(t, filepath.Join(mr, n))) {
			t.Errorf("%s: the Slurm jobs wrote other bytes than one run", n)
		}
	}
	checkOutputs(t, runOrder(ins), outsIn(mr, runOrder(ins)))
	if a, b := mustRead(t, oneIdx), mustRead(t, mrIdx); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("the apply tasks' merged CDXJ index:\n%s\none run's:\n%s", b, a)
	}

	// The partitioned rounds, each a job array: the records one run
	// writes, but for the similarities near revisits record.
	mrr := filepath.Join(t.TempDir(), "out")
	cmd = exec.Command("bash", append([]string{"../../scripts/mapreduce-slurm.sh", "-r", "-t", "2"}, append(ins, mrr+"/")...)...)
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "TMPDIR="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mapreduce-slurm.sh -r: %v\n%s", err, out)
	}
	if got := names(t, mrr); strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("files: one run wrote %v, the Slurm rounds %v", want, got)
	}
	for _, n := range want {
		sameRecords(t, filepath.Join(one, n), filepath.Join(mrr, n))
	}

	// A damaged input fails its map task; the later steps do not run,
	// the script says which did not finish, and no output is written.
	bad := filepath.Join(t.TempDir(), "bad.warc.gz")
	b := mustRead(t, ins[1])
	if err := os.WriteFile(bad, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	mr2 := filepath.Join(t.TempDir(), "out")
	cmd = exec.Command("bash", "../../scripts/mapreduce-slurm.sh", "-t", "2", ins[0], bad, mr2+"/")
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "TMPDIR="+t.TempDir(), "WORKDIR="+work)
	o, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(o), "did not finish: map task 1 reduce") || !strings.Contains(string(o), "bad.warc.gz") {
		t.Errorf("a damaged input: %v\n%s", err, o)
	}
	if n := names(t, mr2); len(n) != 0 {
		t.Errorf("outputs written after a failed map task: %v", n)
	}

	// The rounds again over day2, into the first job's outputs: the output
	// that exists is refused before any job is submitted (exit 2), and the
	// index is as it was.
	day2 := mustRead(t, filepath.Join(mr, "day2.warc.gz"))
	cmd = exec.Command("bash", "../../scripts/mapreduce-slurm.sh", "-r", "-t", "2", ins[1], mr+"/")
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "TMPDIR="+t.TempDir(), "WORKDIR="+work, "WARCDEDUP_INDEX="+index)
	o, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(o), "day2.warc.gz already exists") {
		t.Errorf("an output that exists: %v, want exit 2\n%s", err, o)
	}
	if !bytes.Equal(day2, mustRead(t, filepath.Join(mr, "day2.warc.gz"))) {
		t.Error("the rounds' run changed an output that existed")
	}
	if h := indexHolds(); h != committed {
		t.Errorf("after a refused job the index holds %q, after the first %q", h, committed)
	}

	// An apply task that fails (task 0, by a wrapper: a full disk, an
	// output that appeared during the run) fails the rounds' run: the
	// script names the outputs the other task wrote, says to use none
	// until the job has run again, and leaves what the resolve round
	// staged in the index there, uncommitted.
	failing := filepath.Join(t.TempDir(), "warcdedup")
	if err := os.WriteFile(failing, []byte(`#!/usr/bin/env bash
if [[ $1 == apply && $SLURM_ARRAY_TASK_ID == 0 ]]; then
	echo "apply task 0 fails" >&2
	exit 1
fi
exec "$REAL" "$@"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	mrFail := filepath.Join(t.TempDir(), "out")
	cmd = exec.Command("bash", append([]string{"../../scripts/mapreduce-slurm.sh", "-r", "-t", "2"}, append(ins, mrFail+"/")...)...)
	cmd.Env = append(os.Environ(), "WARCDEDUP="+failing, "REAL="+bin, "TMPDIR="+t.TempDir(), "WORKDIR="+work, "WARCDEDUP_INDEX="+index)
	o, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(o), "did not finish: apply task 0") || !strings.Contains(string(o), "warcdedup index discard "+index) {
		t.Errorf("an apply task failing: %v\n%s", err, o)
	}
	told := regexp.MustCompile(`written, whole, in ` + regexp.QuoteMeta(mrFail) + `: ([^;]*); the other outputs are not written`).FindStringSubmatch(string(o))
	switch written := names(t, mrFail); {
	case len(written) == 0:
		if !strings.Contains(string(o), "no output is written") {
			t.Errorf("no output is written; the script says:\n%s", o)
		}
	case len(written) == len(ins):
		// Task 0 had no file.
		if !strings.Contains(string(o), "every output in "+mrFail+" is new since the job started, but an apply task failed") {
			t.Errorf("every output is written; the script says:\n%s", o)
		}
	case told == nil || strings.Join(slices.Sorted(slices.Values(strings.Fields(told[1]))), " ") != strings.Join(written, " ") ||
		!strings.Contains(string(o), "the job has run again"):
		t.Errorf("the outputs written are %v; the script says:\n%s", written, o)
	}
	if h := indexHolds(); !strings.HasPrefix(h, "a cluster job staged ") {
		t.Errorf("after a failed apply task the index holds %q, not a staged segment", h)
	}
	if code, stderr := runCLI(t, "index", "discard", index); code != exitOK {
		t.Fatalf("warcdedup index discard: exit %d\n%s", code, stderr)
	}
	if h := indexHolds(); h != committed {
		t.Errorf("after the failed job the index holds %q, after the first %q", h, committed)
	}

	// Killed while an apply task runs, the script cancels its jobs: the
	// task stops (a wrapper holds it until then), its outputs are not
	// written, and the script names the outputs the other tasks wrote and
	// ends with 128+15. The held task is one with files, among tasks of
	// which others have files too: the shares are read from the first
	// job's decisions (the one job under work that wrote a decisions file),
	// as apply takes them, by the hash of each file's key.
	decs, _ := filepath.Glob(filepath.Join(work, "warcdedup-slurm.*", "decisions"))
	if len(decs) != 1 {
		t.Fatalf("the first job's decisions: %v", decs)
	}
	var keys, files []string
	for _, l := range strings.Split(string(mustRead(t, decs[0])), "\n") {
		key, val, ok := strings.Cut(l, "\t")
		if !ok || val == "" || val[0] != dedup.ValFile {
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
		keys, files = append(keys, key), append(files, filepath.Base(name))
	}
	tasks, held := 0, 0
	var free []string // the outputs of the tasks not held
	for n := 2; n <= 5 && tasks == 0; n++ {
		for h := 0; h < n && tasks == 0; h++ {
			free = free[:0]
			for i, k := range keys {
				if keyTask(k, n) != h {
					free = append(free, files[i])
				}
			}
			if len(free) > 0 && len(free) < len(files) {
				tasks, held = n, h
			}
		}
	}
	if tasks == 0 {
		t.Fatalf("no number of apply tasks up to 5 shares the files %v among more than one", files)
	}
	slices.Sort(free)
	dir := t.TempDir()
	marks := filepath.Join(dir, "marks")
	if err := os.Mkdir(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	// Then killed after every apply task finished: every output is
	// written, and the script says so, and that the index's staged
	// segment can be committed. The wrapper holds the commit, which the
	// script makes after the apply job, until the script is killed, and
	// then does not make it: the script is stopped after the apply job
	// and before its commit, as by a signal that comes before sbatch
	// --wait has seen the job end.
	wrapper := filepath.Join(dir, "warcdedup")
	if err := os.WriteFile(wrapper, []byte(`#!/usr/bin/env bash
if [[ $HOLD == apply && $1 == apply && $SLURM_ARRAY_TASK_ID == "$HELD" ]]; then
	touch "$MARKS/start-$$"
	trap 'touch "$MARKS/stopped-$$"; exit 143' TERM
	for _ in {1..300}; do sleep 0.1; done
elif [[ $HOLD == commit && $1 == index && $2 == commit ]]; then
	touch "$MARKS/commit"
	for _ in {1..600}; do
		[[ -e $MARKS/release ]] && exit 0
		sleep 0.1
	done
	exit 1
fi
exec "$REAL" "$@"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	// killed runs the script over ins into a new directory, with hold,
	// and sends it SIGTERM once ready says so; it returns the outputs'
	// directory, the work directory and what the script said.
	killed := func(hold string, env []string, ready func(work string) bool) (string, string, string) {
		t.Helper()
		out, workdir := filepath.Join(t.TempDir(), "out"), t.TempDir()
		os.Remove(filepath.Join(marks, "release"))
		cmd := exec.Command("bash", append([]string{"../../scripts/mapreduce-slurm.sh", "-t", strconv.Itoa(tasks)}, append(ins, out+"/")...)...)
		cmd.Env = append(append(os.Environ(), "WARCDEDUP="+wrapper, "REAL="+bin, "MARKS="+marks, "HOLD="+hold, "HELD="+strconv.Itoa(held),
			"TMPDIR="+t.TempDir(), "WORKDIR="+workdir), env...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The cluster schedules the steps one after the other: the
		// apply tasks may take a while to start.
		for deadline := time.Now().Add(120 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			work, _ := filepath.Glob(filepath.Join(workdir, "warcdedup-slurm.*"))
			if len(work) == 1 && ready(work[0]) {
				cmd.Process.Signal(syscall.SIGTERM)
				os.WriteFile(filepath.Join(marks, "release"), nil, 0o644)
				cmd.Wait()
				if code := cmd.ProcessState.ExitCode(); code != 143 {
					t.Errorf("killed (%s held): exit %d\n%s", hold, code, log.String())
				}
				return out, work[0], log.String()
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s not reached in 120 s:\n%s", hold, log.String())
			}
		}
	}
	done := func(work string, n int) bool {
		_, err := os.Stat(filepath.Join(work, fmt.Sprintf("apply-%d.done", n)))
		return err == nil
	}
	mr4, _, o4 := killed("apply", nil, func(work string) bool {
		m, _ := filepath.Glob(filepath.Join(marks, "start-*"))
		for n := 0; n < tasks; n++ {
			if n != held && !done(work, n) {
				return false
			}
		}
		return len(m) > 0
	})
	waitFor(t, "the apply tasks stopped", func() bool {
		started, _ := filepath.Glob(filepath.Join(marks, "start-*"))
		stopped, _ := filepath.Glob(filepath.Join(marks, "stopped-*"))
		return len(stopped) == len(started)
	})
	if got := names(t, mr4); !slices.Equal(got, free) {
		t.Errorf("apply task %d of %d was cancelled, the others finished: the outputs are %v, not %v", held, tasks, got, free)
	}
	said := regexp.MustCompile(`written, whole, in ` + regexp.QuoteMeta(mr4) + `: ([^;]*); the other outputs are not written`).FindStringSubmatch(o4)
	var named []string
	if said != nil {
		named = strings.Fields(said[1])
		slices.Sort(named)
	}
	if !strings.Contains(o4, "are cancelled") || !strings.Contains(o4, fmt.Sprintf("had not finished: %d\n", held)) || !slices.Equal(named, free) {
		t.Errorf("killed with apply task %d of %d running, after %v were written:\n%s", held, tasks, free, o4)
	}
	mr5, work5, o5 := killed("commit", []string{"WARCDEDUP_INDEX=" + index, "WARCDEDUP_CDXJ=" + filepath.Join(dir, "mr5.cdxj")}, func(string) bool {
		_, err := os.Stat(filepath.Join(marks, "commit"))
		return err == nil
	})
	for n := 0; n < tasks; n++ {
		if !done(work5, n) {
			t.Fatalf("the script committed before apply task %d was done:\n%s", n, o5)
		}
	}
	if got := names(t, mr5); !slices.Equal(got, want) {
		t.Errorf("killed after the apply tasks finished, the outputs are %v, not %v", got, want)
	}
	if !strings.Contains(o5, "every output is written") || !strings.Contains(o5, "warcdedup index commit "+index+" adds") ||
		strings.Contains(o5, "discard") || !strings.Contains(o5, "CDXJ index "+filepath.Join(dir, "mr5.cdxj")+" is not written") {
		t.Errorf("killed after every apply task finished:\n%s", o5)
	}
	if h := indexHolds(); !strings.HasPrefix(h, "a cluster job staged ") {
		t.Errorf("killed before its commit, the index holds %q, not a staged segment", h)
	}
	// The commit the script says to make.
	if o, err := exec.Command(bin, "index", "commit", index).CombinedOutput(); err != nil {
		t.Fatalf("warcdedup index commit: %v\n%s", err, o)
	}
	if h := indexHolds(); !strings.HasPrefix(h, "2 runs, ") {
		t.Errorf("after the commit the index holds %q", h)
	}

	// A run over one file writes its output only.
	mr3 := filepath.Join(t.TempDir(), "out")
	cmd = exec.Command("bash", "../../scripts/mapreduce-slurm.sh", ins[3], mr3+"/")
	cmd.Env = append(os.Environ(), "WARCDEDUP="+bin, "TMPDIR="+t.TempDir(), "WORKDIR="+work)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mapreduce-slurm.sh over one file: %v\n%s", err, o)
	}
	if n := names(t, mr3); strings.Join(n, " ") != "day1.warc.gz" {
		t.Errorf("a run over day1.warc.gz wrote %v", n)
	}
}

// TestMapReduceIndex: two jobs of the steps, each deduplicating against an
// index and adding what it kept, write what two runs of warcdedup --index
// write; the second job's revisits point into the first's outputs, and the
// index holds what the runs' index holds. The first job keeps two near
// duplicates on two sites, a story and a mirror's copy of it captured
// before it but read after it (a page is no copy of one captured later),
// so the second job's rounds meet two index pages that share LSH bands.
func TestMapReduceIndex(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	ins := stageFiles(t)
	// A story of agency.example, then its copy on mirror.example, captured
	// two hours before it, in one file (two gzip members, each a record).
	dir := filepath.Dir(ins[0])
	mirror := filepath.Join(dir, "mirror.warc.gz")
	htmlWARC(t, mirror, 10, [3]string{uuid(41), "http://agency.example/story-d", storyText(6, 12)})
	htmlWARC(t, filepath.Join(dir, "copy.warc.gz"), 8, [3]string{uuid(42), "http://mirror.example/d", storyText(6, 12)})
	if err := os.WriteFile(mirror, append(mustRead(t, mirror), mustRead(t, filepath.Join(dir, "copy.warc.gz"))...), 0o644); err != nil {
		t.Fatal(err)
	}
	jobs := [][]string{{ins[3], mirror, ins[1]}, {ins[2]}} // day1, the mirror and day2, then day3
	for _, mode := range []string{"one-task", "rounds", "rounds-annotate"} {
		t.Run(mode, func(t *testing.T) {
			oneIdx, mrIdx := t.TempDir(), t.TempDir()
			script := []string{"../../scripts/mapreduce-local.sh"}
			var flags []string
			if mode != "one-task" {
				script = append(script, "-r")
			}
			if mode == "rounds-annotate" {
				flags = []string{"--near", "annotate", "--min-size", "512"}
			}
			var mrOuts []string
			for i, job := range jobs {
				one, mr := t.TempDir(), filepath.Join(t.TempDir(), "out")
				if code, stderr := runCLI(t, append(append(append([]string{"-q", "--index", oneIdx}, flags...), job...), one+"/")...); code != exitOK {
					t.Fatalf("warcdedup --index, job %d: exit %d\n%s", i+1, code, stderr)
				}
				cmd := exec.Command("bash", append(script, append(job, mr+"/")...)...)
				cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+os.Args[0], "WARCDEDUP_INDEX="+mrIdx, "WARCDEDUP_FLAGS="+strings.Join(flags, " "))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("mapreduce-local.sh, job %d: %v\n%s", i+1, err, out)
				}
				for _, n := range names(t, one) {
					if mode != "one-task" {
						sameRecords(t, filepath.Join(one, n), filepath.Join(mr, n))
					} else if !bytes.Equal(mustRead(t, filepath.Join(one, n)), mustRead(t, filepath.Join(mr, n))) {
						t.Errorf("job %d, %s: the steps wrote other bytes than warcdedup --index", i+1, n)
					}
				}
				mrOuts = append(mrOuts, outsIn(mr, job)...)
			}
			last := filepath.Dir(mrOuts[len(mrOuts)-1])
			_, into := revisits(t, last, filepath.Dir(mrOuts[0]))
			if mode == "rounds-annotate" {
				into = annotationsInto(t, last, filepath.Dir(mrOuts[0]))
			}
			if into == 0 {
				t.Error("no revisit or annotation of the second job points into the first job's outputs")
			}
			var a, b bytes.Buffer
			run([]string{"index", oneIdx}, nil, &a, io.Discard)
			run([]string{"index", mrIdx}, nil, &b, io.Discard)
			// "N kept records, M near-duplicate pages".
			count := func(s string) string {
				return regexp.MustCompile(`\d+ kept records, \d+ near-duplicate pages`).FindString(s)
			}
			if c := count(a.String()); c == "" || c != count(b.String()) {
				t.Errorf("the runs' index holds %q, the jobs' %q", c, count(b.String()))
			}
			// Each segment names as many inputs as its job had.
			inputs := func(s string) []string {
				var n []string
				for _, m := range regexp.MustCompile(`, from \S+( and \d+ more)?\n`).FindAllStringSubmatch(s, -1) {
					n = append(n, m[1])
				}
				return n
			}
			if x, y := inputs(a.String()), inputs(b.String()); len(x) != len(jobs) || !slices.Equal(x, y) {
				t.Errorf("the runs' segments name inputs %q, the jobs' %q", x, y)
			}
		})
	}
}

// TestMapReduceLocalApplyFails: when an apply task of
// scripts/mapreduce-local.sh fails, the script waits for the other tasks
// before it exits non-zero: none runs on, writing outputs after the script
// has ended. What the reduce staged in the index is left uncommitted, and
// the script says so, and names the outputs the other tasks wrote, not to
// be used until the job has run again.
func TestMapReduceLocalApplyFails(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	ins := stageFiles(t)
	dir := t.TempDir()
	marks, out := filepath.Join(dir, "marks"), filepath.Join(dir, "out")
	if err := os.Mkdir(marks, 0o755); err != nil {
		t.Fatal(err)
	}
	// The apply task the script waits for first (the first of its
	// apply-N files, named by the task's --cdxj cdxj-N) fails at once; the
	// others start two seconds late. Each marks its start and its end.
	wrapper := filepath.Join(dir, "warcdedup")
	if err := os.WriteFile(wrapper, []byte(`#!/usr/bin/env bash
[[ $1 == apply ]] || exec "$REAL" "$@"
prev="" cdxj=""
for a; do
	[[ $prev == --cdxj ]] && cdxj=$a
	prev=$a
done
touch "$MARKS/start-$$"
first=$(printf '%s\n' "${cdxj%/*}"/apply-* | head -n 1)
if [[ ${first##*-} == "${cdxj##*-}" ]]; then
	echo "apply task ${cdxj##*-} fails" >&2
	touch "$MARKS/end-$$"
	exit 1
fi
sleep 2
rc=0
"$REAL" "$@" || rc=$?
touch "$MARKS/end-$$"
exit $rc
`), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{"../../scripts/mapreduce-local.sh", "-t", "3"}, append(ins, out+"/")...)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+wrapper, "REAL="+os.Args[0], "MARKS="+marks,
		"WARCDEDUP_CDXJ="+filepath.Join(dir, "index.cdxj"), "WARCDEDUP_INDEX="+filepath.Join(dir, "index"))
	// The output goes to a file, not a pipe, whose end Go would wait for
	// (tasks left running would keep it open).
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	if o := mustRead(t, log.Name()); err == nil || !bytes.Contains(o, []byte("fails")) || !bytes.Contains(o, []byte("warcdedup index discard")) {
		t.Errorf("an apply task failing: %v\n%s", err, o)
	}
	var ix bytes.Buffer
	run([]string{"index", filepath.Join(dir, "index")}, nil, &ix, io.Discard)
	if !strings.HasPrefix(ix.String(), "a cluster job staged ") {
		t.Errorf("after a failed apply task the index holds:\n%s", ix.String())
	}
	starts, _ := filepath.Glob(filepath.Join(marks, "start-*"))
	if len(starts) < 2 {
		t.Fatalf("%d apply tasks: the test needs one that fails and one that does not", len(starts))
	}
	for _, s := range starts {
		if _, err := os.Stat(strings.Replace(s, "start-", "end-", 1)); err != nil {
			t.Errorf("an apply task was still running when the script ended: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.cdxj")); err == nil {
		t.Error("a failed run wrote its CDXJ index")
	}
	// The tasks that did not fail wrote their outputs (each task started
	// has files), which may name records of the failed task's: the script
	// names them, and says to use none before the job has run again.
	o := string(mustRead(t, log.Name()))
	said := regexp.MustCompile(`written, whole, in ` + regexp.QuoteMeta(out+"/") + `: ([^;]*); the other outputs are not written`).FindStringSubmatch(o)
	written := names(t, out)
	if said == nil || strings.Join(slices.Sorted(slices.Values(strings.Fields(said[1]))), " ") != strings.Join(written, " ") ||
		!strings.Contains(o, "may name records kept in them") || !strings.Contains(o, "the job has run again") {
		t.Errorf("the outputs written are %v; the script says:\n%s", written, o)
	}
}

// TestMapReduceLocalSignal: scripts/mapreduce-local.sh ended by SIGTERM,
// SIGINT or SIGHUP in its map, reduce or apply step stops every task it
// started and waits for them before it exits with 128 and the signal's
// number: no task is left running, writing outputs or into the index after
// the script has ended. Stopped in the apply step, it says that what the
// reduce kept is staged in the index, not committed.
func TestMapReduceLocalSignal(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the tasks left running are found in /proc")
	}
	ins := stageFiles(t)
	for _, c := range []struct {
		hold   string
		rounds bool
		sig    syscall.Signal
		one    bool // hold one task of the step, let the others finish
	}{
		{"map", false, syscall.SIGTERM, false},
		{"reduce", false, syscall.SIGINT, false},
		{"reduce", true, syscall.SIGHUP, false},
		{"apply", false, syscall.SIGTERM, false},
		{"apply", false, syscall.SIGTERM, true},
	} {
		name := c.hold + "-" + map[syscall.Signal]string{syscall.SIGHUP: "hup", syscall.SIGINT: "int", syscall.SIGTERM: "term"}[c.sig]
		if c.rounds {
			name += "-rounds"
		}
		if c.one {
			name += "-one"
		}
		t.Run(name, func(t *testing.T) {
			if signal.Ignored(c.sig) {
				// bash cannot trap a signal ignored when it starts.
				t.Skipf("%v is ignored here", c.sig)
			}
			dir := t.TempDir()
			marks, out, idx, tmp := filepath.Join(dir, "marks"), filepath.Join(dir, "out"), filepath.Join(dir, "index"), filepath.Join(dir, "tmp")
			for _, d := range []string{marks, tmp} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The tasks of the step held wait (up to ten seconds, then
			// run as they would) until they are sent SIGTERM, which
			// they mark, as warcdedup's steps handle it.
			wrapper := filepath.Join(dir, "warcdedup")
			if err := os.WriteFile(wrapper, []byte(`#!/usr/bin/env bash
[[ $1 == "$HOLD" ]] || exec "$REAL" "$@"
[[ -z $HOLDONE ]] || mkdir "$MARKS/held" 2>/dev/null || exec "$REAL" "$@"
touch "$MARKS/start-$$"
trap 'touch "$MARKS/stopped-$$"; exit 143' TERM
for _ in {1..100}; do sleep 0.1; done
touch "$MARKS/ran-$$"
exec "$REAL" "$@"
`), 0o755); err != nil {
				t.Fatal(err)
			}
			script := []string{"../../scripts/mapreduce-local.sh", "-t", "2"}
			if c.rounds {
				script = append(script, "-r")
			}
			// Every process the script starts carries tag in its
			// environment: those found after it ended were left running.
			tag := "WARCDEDUP_TEST_TASKS=" + dir
			cmd := exec.Command("bash", append(script, append(ins, out+"/")...)...)
			cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+wrapper, "REAL="+os.Args[0], "MARKS="+marks, "HOLD="+c.hold,
				"WARCDEDUP_INDEX="+idx, "TMPDIR="+tmp, tag)
			if c.one {
				cmd.Env = append(cmd.Env, "HOLDONE=1")
			}
			log, err := os.Create(filepath.Join(dir, "log"))
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			cmd.Stdout, cmd.Stderr = log, log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				for _, p := range tagged(tag) {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}()
			for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				if s, _ := filepath.Glob(filepath.Join(marks, "start-*")); len(s) > 0 {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("the script ended before its %s tasks started: %v\n%s", c.hold, err, mustRead(t, log.Name()))
				default:
				}
				if time.Since(start) > time.Minute {
					t.Fatalf("no %s task started in a minute", c.hold)
				}
			}
			// The other tasks of the step start together with the first.
			time.Sleep(300 * time.Millisecond)
			for start := time.Now(); c.one && time.Since(start) < 20*time.Second; time.Sleep(50 * time.Millisecond) {
				// The tasks not held write their outputs.
				if ws, _ := filepath.Glob(filepath.Join(out, "*.warc.gz")); len(ws) > 0 {
					time.Sleep(500 * time.Millisecond)
					break
				}
			}
			sent := time.Now()
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("the script did not end in a minute after %v", c.sig)
			}
			took := time.Since(sent)
			left := tagged(tag)
			o := mustRead(t, log.Name())
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(c.sig) {
				t.Errorf("after %v: %v, want exit %d\n%s", c.sig, err, 128+int(c.sig), o)
			}
			if len(left) > 0 {
				t.Errorf("after %v the script ended with %d of its processes running", c.sig, len(left))
			}
			if took > 5*time.Second {
				t.Errorf("the script took %v to end after %v: it did not stop its tasks", took, c.sig)
			}
			starts, _ := filepath.Glob(filepath.Join(marks, "start-*"))
			for _, s := range starts {
				if _, err := os.Stat(strings.Replace(s, "start-", "stopped-", 1)); err != nil {
					t.Errorf("a task of the %s step was not stopped: %v", c.hold, err)
				}
			}
			if ran, _ := filepath.Glob(filepath.Join(marks, "ran-*")); len(ran) > 0 {
				t.Errorf("%d tasks of the %s step ran", len(ran), c.hold)
			}
			ws, _ := filepath.Glob(filepath.Join(out, "*.warc*"))
			var written []string
			for _, in := range ins {
				if slices.Contains(ws, filepath.Join(out, filepath.Base(in))) {
					written = append(written, filepath.Base(in))
				}
			}
			switch {
			case len(written) != len(ws):
				t.Errorf("outputs written: %v, not named as inputs", ws)
			case !c.one && len(ws) > 0:
				t.Errorf("outputs written: %v", ws)
			case c.one && (len(written) == 0 || len(written) == len(ins)):
				t.Fatalf("with one apply task held, %d of %d outputs written: the case does not hold one task of several\n%s", len(written), len(ins), o)
			case c.one && !bytes.Contains(o, []byte("written, whole, in "+out+"/: "+strings.Join(written, " ")+"; the other outputs are not written")):
				t.Errorf("the script does not name the outputs written, %v\n%s", written, o)
			case c.hold == "apply" && !c.one && !bytes.Contains(o, []byte("no output is written")):
				t.Errorf("the script does not say that no output is written\n%s", o)
			}
			if n := names(t, tmp); len(n) > 0 {
				t.Errorf("left in TMPDIR: %v", n)
			}
			var ix bytes.Buffer
			if _, err := os.Stat(idx); err == nil {
				run([]string{"index", idx}, nil, &ix, io.Discard)
			}
			staged := strings.HasPrefix(ix.String(), "a cluster job staged ")
			said := bytes.Contains(o, []byte("warcdedup index discard "+idx))
			if staged != (c.hold == "apply") || said != staged {
				t.Errorf("stopped in the %s step: staged %v, said so %v\n%s", c.hold, staged, said, o)
			}
		})
	}
}

// tagged are the processes whose environment holds tag (NAME=VALUE).
func tagged(tag string) []int {
	var ps []int
	es, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, e := range es {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		for _, v := range bytes.Split(b, []byte{0}) {
			if string(v) == tag {
				if p, err := strconv.Atoi(filepath.Base(filepath.Dir(e))); err == nil {
					ps = append(ps, p)
				}
				break
			}
		}
	}
	return ps
}

// TestMapReduceCDXJRefused: the scripts check WARCDEDUP_CDXJ before any
// work, as warcdedup --cdxj checks its file: one of the inputs or outputs
// is refused even with -f, a file that exists without it (exit 2, the file
// as it was, no output written); with -f the file is replaced by the run's
// index. With a Slurm cluster, mapreduce-slurm.sh refuses the same before
// it submits a job.
func TestMapReduceCDXJRefused(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	ins := stageFiles(t)
	input := mustRead(t, ins[1])
	old := filepath.Join(t.TempDir(), "old.cdxj")
	if err := os.WriteFile(old, []byte("old lines\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(name, bin, cdxj string, opts ...string) *exec.Cmd {
		cmd := exec.Command("bash", append(append([]string{"../../scripts/" + name}, opts...), ins...)...)
		cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+bin, "WARCDEDUP_CDXJ="+cdxj, "TMPDIR="+t.TempDir())
		return cmd
	}
	refused := func(t *testing.T, name, bin, cdxj string, was []byte, opts ...string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		cmd := script(name, bin, cdxj, opts...)
		cmd.Args = append(cmd.Args, out+"/")
		o, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(o), "WARCDEDUP_CDXJ") {
			t.Errorf("%s %v, WARCDEDUP_CDXJ=%s: %v, want exit 2\n%s", name, opts, cdxj, err, o)
		}
		if b, err := os.ReadFile(cdxj); err != nil || !bytes.Equal(b, was) {
			t.Errorf("%s %v, WARCDEDUP_CDXJ=%s: the file is not as it was (%d bytes, %v)", name, opts, cdxj, len(b), err)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("%s refused WARCDEDUP_CDXJ=%s and wrote %d outputs", name, cdxj, len(ents))
		}
	}
	t.Run("local", func(t *testing.T) {
		self := os.Args[0]
		refused(t, "mapreduce-local.sh", self, ins[1], input)
		refused(t, "mapreduce-local.sh", self, ins[1], input, "-f")
		refused(t, "mapreduce-local.sh", self, old, []byte("old lines\n"))
		// An output, even with -f: the file there is left as it is.
		out := filepath.Join(t.TempDir(), "out")
		copyFile(t, old, filepath.Join(out, "day1.warc.gz"))
		cmd := script("mapreduce-local.sh", self, filepath.Join(out, "day1.warc.gz"), "-f")
		cmd.Args = append(cmd.Args, out+"/")
		if o, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(o), "inputs or outputs") {
			t.Errorf("WARCDEDUP_CDXJ an output: %v\n%s", err, o)
		}
		if b := mustRead(t, filepath.Join(out, "day1.warc.gz")); string(b) != "old lines\n" {
			t.Errorf("WARCDEDUP_CDXJ an output: the file there holds %d bytes", len(b))
		}
		// With -f the run's index replaces the old file, and the outputs
		// replace those that exist.
		mine := filepath.Join(t.TempDir(), "mine.cdxj")
		copyFile(t, old, mine)
		cmd = script("mapreduce-local.sh", self, mine, "-f")
		cmd.Args = append(cmd.Args, out+"/")
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("-f: %v\n%s", err, o)
		}
		if b := mustRead(t, mine); bytes.Contains(b, []byte("old lines")) || bytes.Count(b, []byte("\n")) < 10 {
			t.Errorf("with -f the CDXJ file holds:\n%s", b)
		}
		if ents, _ := os.ReadDir(filepath.Dir(mine)); len(ents) != 1 {
			t.Errorf("%d files beside the CDXJ index, want it alone", len(ents))
		}
		if n := names(t, out); len(n) != len(ins) {
			t.Errorf("with -f the run wrote %v", n)
		}
	})
	t.Run("slurm", func(t *testing.T) {
		slurmCluster(t)
		bin := buildBinary(t)
		refused(t, "mapreduce-slurm.sh", bin, ins[1], input, "-f")
		refused(t, "mapreduce-slurm.sh", bin, old, []byte("old lines\n"))
	})
}

// TestMapReduceOutputsRefused: both scripts check every output before the
// map step, as the one-machine run checks them all before it reads
// anything: an output that exists (without -f), one that is a directory
// (with -f too), one that is an input (with -f too, also through a link),
// two inputs of one base name, an output that exists with -f and an index,
// and an OUTDIR that is a file stop the job
// with exit 2 before any map task runs or any job is submitted. OUTDIR is
// left as it was, and WARCDEDUP_INDEX is not made. The Slurm script's
// sbatch and scancel are stand-ins that only note being run: no cluster is
// needed, and none is given work if the script does not refuse.
func TestMapReduceOutputsRefused(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: the scripts are not run")
	}
	ins := stageFiles(t)
	dir := t.TempDir()
	bin, marks := filepath.Join(dir, "bin"), filepath.Join(dir, "marks")
	for _, d := range []string{bin, marks} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The binary the scripts run notes each step it starts (but the index
	// listing a script may read); sbatch and scancel note being run, and
	// fail.
	stubs := map[string]string{
		"warcdedup": "#!/usr/bin/env bash\n[[ $1 == index ]] || touch \"$MARKS/$1-$$\"\nexec \"$REAL\" \"$@\"\n",
		"sbatch":    "#!/bin/sh\ntouch \"$MARKS/sbatch-$$\"\nexit 1\n",
		"scancel":   "#!/bin/sh\ntouch \"$MARKS/scancel-$$\"\nexit 1\n",
	}
	for n, body := range stubs {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// day2.warc.gz again, in another directory: its output is day2's.
	twin := filepath.Join(t.TempDir(), filepath.Base(ins[1]))
	copyFile(t, ins[1], twin)
	put := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		force bool
		// prep makes what OUTDIR (out, "" for a new one) holds, and
		// returns OUTDIR and the inputs.
		prep func(t *testing.T, out string) (string, []string)
		want string
		// flags is WARCDEDUP_FLAGS.
		flags string
	}{
		{"exists", false, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "day2.warc.gz"), "an unrelated file\n")
			return out, ins
		}, "day2.warc.gz already exists; use -f to overwrite; nothing written", ""},
		{"two exist", false, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "day1.warc.gz"), "an unrelated file\n")
			put(t, filepath.Join(out, "day3.warc.gz"), "another\n")
			return out, ins
		}, "2 outputs already exist; use -f to overwrite them", ""},
		{"directory", false, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "day3.warc.gz", "x"), "in a directory\n")
			return out, ins
		}, "day3.warc.gz is a directory; nothing written", ""},
		{"directory with -f", true, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "sample.warc.gz", "x"), "in a directory\n")
			return out, ins
		}, "sample.warc.gz is a directory; nothing written", ""},
		{"an input with -f", true, func(t *testing.T, out string) (string, []string) {
			return filepath.Dir(ins[0]), ins
		}, "is the input", ""},
		{"a link to an input with -f", true, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "day2.warc.gz"), "an unrelated file\n")
			if err := os.Symlink(ins[2], filepath.Join(out, "day1.warc.gz")); err != nil {
				t.Fatal(err)
			}
			return out, ins
		}, "day1.warc.gz is the input " + ins[2] + ": nothing written", ""},
		{"one base name", false, func(t *testing.T, out string) (string, []string) {
			return out, append(slices.Clone(ins), twin)
		}, ins[1] + " and " + twin + " would both write", ""},
		// With an index, an output written over may hold records the
		// index names, which the apply tasks cannot check.
		{"exists, -f and an index", true, func(t *testing.T, out string) (string, []string) {
			put(t, filepath.Join(out, "day2.warc.gz"), "an earlier job's output\n")
			return out, ins
		}, "day2.warc.gz already exists, and with WARCDEDUP_INDEX -f could write over records the index names", ""},
		{"OUTDIR a file", false, func(t *testing.T, out string) (string, []string) {
			put(t, out, "an unrelated file\n")
			return out, ins
		}, "is not a directory: nothing written", ""},
		// An index among the steps' flags: the script would neither commit
		// nor name what the reduce staged.
		{"an index in WARCDEDUP_FLAGS", false, func(t *testing.T, out string) (string, []string) {
			return out, ins
		}, "WARCDEDUP_FLAGS holds --index=", "--lenient --index=" + filepath.Join(t.TempDir(), "ix2")},
	} {
		for _, script := range []string{"mapreduce-local.sh", "mapreduce-slurm.sh"} {
			t.Run(script+"/"+c.name, func(t *testing.T) {
				out, in := c.prep(t, filepath.Join(t.TempDir(), "out"))
				was := tree(t, out)
				index := filepath.Join(t.TempDir(), "index")
				args := []string{"../../scripts/" + script}
				if c.force {
					args = append(args, "-f")
				}
				cmd := exec.Command("bash", append(append(args, in...), out+"/")...)
				cmd.Env = append(os.Environ(), mainEnv+"=1", "REAL="+os.Args[0], "MARKS="+marks,
					"WARCDEDUP="+filepath.Join(bin, "warcdedup"), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
					"WARCDEDUP_INDEX="+index, "TMPDIR="+t.TempDir(), "WORKDIR=", "WARCDEDUP_FLAGS="+c.flags)
				o, err := cmd.CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(o), c.want) {
					t.Errorf("%v, want exit 2 and %q\n%s", err, c.want, o)
				}
				if ran, _ := os.ReadDir(marks); len(ran) > 0 {
					var n []string
					for _, e := range ran {
						n = append(n, e.Name())
						os.Remove(filepath.Join(marks, e.Name()))
					}
					t.Errorf("steps ran before the refusal: %v", n)
				}
				if now := tree(t, out); !maps.Equal(was, now) {
					t.Errorf("OUTDIR held %v, now %v", slices.Sorted(maps.Keys(was)), slices.Sorted(maps.Keys(now)))
				}
				if _, err := os.Lstat(index); err == nil {
					t.Error("a refused job made WARCDEDUP_INDEX")
				}
			})
		}
	}
}

// tree is what is at p: for a file, its bytes (under ""); for a directory,
// each entry's, directories named with "/", links with their target.
func tree(t *testing.T, p string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p, q)
		switch {
		case d.IsDir():
			m[rel+"/"] = ""
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(q)
			m[rel] = "-> " + l
			return err
		default:
			b, err := os.ReadFile(q)
			m[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return m
}

// TestIndexSaysStaged: `warcdedup index DIR` on an index that holds a
// segment a job staged says to commit it only once every output of that
// job is written, and to discard it otherwise.
func TestIndexSaysStaged(t *testing.T) {
	ins := stageFiles(t)
	idx := t.TempDir()
	_, facts, _ := step(t, mapList(ins[3:4]), "map", "-q")
	if code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx); code != exitOK {
		t.Fatalf("reduce --index: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := step(t, nil, "index", idx)
	if code != exitOK {
		t.Fatalf("index: exit %d\n%s", code, stderr)
	}
	first, _, _ := strings.Cut(stdout, "\n")
	for _, want := range []string{
		"a cluster job staged ",
		"once every output of that job is written, warcdedup index commit " + idx + " adds them",
		"if any is not, warcdedup index discard " + idx + " removes them",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("warcdedup index says %q, not %q", first, want)
		}
	}
}

// outsIn names each input's output in dir.
func outsIn(dir string, ins []string) []string {
	var outs []string
	for _, in := range ins {
		outs = append(outs, filepath.Join(dir, filepath.Base(in)))
	}
	return outs
}

// step runs a step of warcdedup with stdin as its input.
func step(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, bytes.NewReader(stdin), &o, &e)
	return code, o.String(), e.String()
}

// TestStepErrors: the steps refuse what would give wrong output, name the
// file or line, and leave no output behind: unsorted facts, facts mapped
// with other settings, two files that would write one output, decisions
// applied to a file other than the one mapped, an output that exists.
func TestStepErrors(t *testing.T) {
	ins := stageFiles(t)
	list := mapList(ins)
	code, facts, stderr := step(t, list, "map", "-q")
	if code != exitOK {
		t.Fatalf("map: exit %d\n%s", code, stderr)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n")
	sorted := sortLines(lines)
	code, decisions, stderr := step(t, []byte(sorted), "reduce", "-q")
	if code != exitOK {
		t.Fatalf("reduce: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(decisions, "\tD") {
		t.Fatal("reduce made no decision")
	}

	// Facts in the order map wrote them: the last file listed was
	// captured first, and its lines come last.
	if code, _, stderr := step(t, []byte(facts), "reduce", "-q"); code != exitFailure || !strings.Contains(stderr, "not sorted") {
		t.Errorf("unsorted facts: exit %d, %q", code, stderr)
	}
	// The facts twice, sorted: refused as given twice, not as unsorted.
	if code, _, stderr := step(t, []byte(sortLines(append(slices.Clone(lines), lines...))), "reduce", "-q"); code != exitFailure || !strings.Contains(stderr, "given twice") {
		t.Errorf("facts twice: exit %d, %q", code, stderr)
	}
	if code, _, stderr := step(t, []byte(sorted), "reduce", "-q", "--tau-same", "0.9"); code != exitUsage || !strings.Contains(stderr, "other settings") {
		t.Errorf("other settings: exit %d, %q", code, stderr)
	}
	twice := fmt.Sprintf("0\t%s\n1\t%s\n", ins[1], ins[1])
	_, twiceFacts, _ := step(t, []byte(twice), "map", "-q")
	if code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(twiceFacts, "\n"), "\n"))), "reduce", "-q"); code != exitUsage || !strings.Contains(stderr, "would both write") {
		t.Errorf("one file twice: exit %d, %q", code, stderr)
	}
	if code, _, stderr := step(t, []byte("x\t"+ins[0]+"\n"), "map", "-q"); code != exitUsage || !strings.Contains(stderr, "not a position") {
		t.Errorf("bad position: exit %d, %q", code, stderr)
	}

	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n"))), "apply", "-q", out+"/"); code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}
	checkOutputs(t, runOrder(ins), outsIn(out, runOrder(ins)))
	// Applied again: the outputs exist.
	if code, _, stderr := step(t, []byte(decisions), "apply", "-q", out+"/"); code != exitUsage || !strings.Contains(stderr, "4 outputs already exist") {
		t.Errorf("outputs that exist: exit %d, %q", code, stderr)
	}
	// day2's file replaced by day3's under its name: the decisions are
	// not for it.
	copyFile(t, ins[2], ins[1])
	out2 := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := step(t, []byte(decisions), "apply", "-q", out2+"/"); code != exitFailure || !strings.Contains(stderr, "day2.warc.gz") {
		t.Errorf("another file: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out2, "day2.warc.gz")); err == nil {
		t.Error("apply left an output for a file whose decisions were not for it")
	}
	if hasTemp(out2) {
		t.Error("apply left a temporary file")
	}
}

func sortLines(lines []string) string {
	s := append([]string(nil), lines...)
	for i := range s {
		s[i] = strings.TrimSuffix(s[i], "\n")
	}
	// LC_ALL=C sort compares bytes, as sort.Strings does.
	slices.Sort(s)
	return strings.Join(s, "\n") + "\n"
}

// TestStagedIndexRefused: while a job's kept records are staged in an
// index, a run or another job with that index (one-task or partitioned)
// stops before writing anything, and says how to go on; after the commit
// both go on.
func TestStagedIndexRefused(t *testing.T) {
	ins := stageFiles(t)
	idx := t.TempDir()
	list := mapList(ins[3:4])
	_, facts, _ := step(t, list, "map", "-q")
	if code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx); code != exitOK {
		t.Fatalf("reduce --index: exit %d\n%s", code, stderr)
	}
	out := t.TempDir()
	code, stderr := runCLI(t, "-q", "--index", idx, ins[1], out+"/")
	if code != exitFailure || !strings.Contains(stderr, "warcdedup index commit") {
		t.Errorf("a run on an index with a staged segment: exit %d, %q", code, stderr)
	}
	if n := names(t, out); len(n) != 0 {
		t.Errorf("the run wrote %v", n)
	}
	if code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx); code != exitFailure || !strings.Contains(stderr, "staged") {
		t.Errorf("a second job: exit %d, %q", code, stderr)
	}
	// A job of the partitioned rounds stops at its map step.
	if code, _, stderr := step(t, list, "map", "-q", "--rounds", "--index", idx); code != exitFailure || !strings.Contains(stderr, "staged") {
		t.Errorf("map --rounds --index: exit %d, %q", code, stderr)
	}
	if code, _, stderr := step(t, list, "map", "-q", "--index", idx); code != exitUsage || !strings.Contains(stderr, "--rounds") {
		t.Errorf("map --index without --rounds: exit %d, %q", code, stderr)
	}
	if code, _, stderr := step(t, nil, "index", "commit", idx); code != exitOK {
		t.Fatalf("index commit: exit %d, %q", code, stderr)
	}
	if code, stderr := runCLI(t, "-q", "--index", idx, ins[1], out+"/"); code != exitOK {
		t.Errorf("after the commit: exit %d, %q", code, stderr)
	}
}

// TestStepProfile: each step writes a CPU profile with --cpuprofile, and
// its output is the same as without one.
func TestStepProfile(t *testing.T) {
	files := stageFiles(t)
	dir := t.TempDir()
	list := strings.Join(files, "\n") + "\n"
	var plain, profiled, stderr bytes.Buffer
	if code := runMapCommand([]string{"-q"}, strings.NewReader(list), &plain, &stderr); code != 0 {
		t.Fatalf("map: exit %d: %s", code, stderr.String())
	}
	prof := filepath.Join(dir, "map.prof")
	if code := runMapCommand([]string{"-q", "--cpuprofile", prof}, strings.NewReader(list), &profiled, &stderr); code != 0 {
		t.Fatalf("map --cpuprofile: exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(plain.Bytes(), profiled.Bytes()) {
		t.Error("map wrote other facts with --cpuprofile")
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Fatalf("no profile written: %v", err)
	}
	lines := strings.SplitAfter(plain.String(), "\n")
	slices.Sort(lines)
	var decisions bytes.Buffer
	rprof := filepath.Join(dir, "reduce.prof")
	if code := runReduceCommand([]string{"-q", "--cpuprofile", rprof}, strings.NewReader(strings.Join(lines, "")), &decisions, &stderr); code != 0 {
		t.Fatalf("reduce --cpuprofile: exit %d: %s", code, stderr.String())
	}
	if fi, err := os.Stat(rprof); err != nil || fi.Size() == 0 {
		t.Fatalf("no reduce profile written: %v", err)
	}
	if code := runMapCommand([]string{"--cpuprofile", filepath.Join(dir, "no", "such", "dir", "p")}, strings.NewReader(list), io.Discard, &stderr); code == 0 {
		t.Error("map with a profile it cannot write: exit 0")
	}
}

// TestCPUBudget: --workers N caps the CPUs a run or map task uses (Go's
// GOMAXPROCS) while it runs, and a negative budget is a usage error.
func TestCPUBudget(t *testing.T) {
	prev := runtime.GOMAXPROCS(0)
	restore := cpuBudget(1)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("cpuBudget(1): GOMAXPROCS %d, want 1", got)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Errorf("after restore: GOMAXPROCS %d, want %d", got, prev)
	}
	cpuBudget(0)()
	if got := runtime.GOMAXPROCS(0); got != prev {
		t.Errorf("cpuBudget(0) changed GOMAXPROCS to %d", got)
	}
	var stderr bytes.Buffer
	if code := runMapCommand([]string{"--workers", "-1"}, strings.NewReader(""), io.Discard, &stderr); code != exitUsage {
		t.Errorf("map --workers -1: exit %d, want %d (%s)", code, exitUsage, stderr.String())
	}
}

// runRounds runs the partitioned rounds over the lines of map --rounds,
// sorting between them as an engine does, and returns the decision lines;
// the resolve round writes a report to report, if it is set.
func runRounds(t *testing.T, mapped, report string, flags ...string) string {
	t.Helper()
	cur := mapped
	for _, round := range dedup.RoundNames {
		args := append([]string{"reduce", "-q", "--round", round}, flags...)
		if round == "resolve" && report != "" {
			args = append(args, "--report", report)
		}
		code, out, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(cur, "\n"), "\n"))), args...)
		if code != exitOK {
			t.Fatalf("reduce --round %s: exit %d\n%s", round, code, stderr)
		}
		cur = out
	}
	return cur
}

// TestRoundSteps: map --rounds, the rounds and apply write what one run
// writes on the stage files (the rounds' pairs are one machine's on them),
// with the default settings and with near duplicates annotated, and the
// steps refuse lines they are not made for.
func TestRoundSteps(t *testing.T) {
	ins := stageFiles(t)
	list := mapList(ins)
	var mapped string
	report := filepath.Join(t.TempDir(), "rounds.jsonl")
	for _, flags := range [][]string{nil, {"--near", "annotate", "--min-size", "512"}} {
		t.Run(strings.Join(append([]string{"flags"}, flags...), "_"), func(t *testing.T) {
			r := filepath.Join(t.TempDir(), "rounds.jsonl")
			if flags == nil {
				r = report
			}
			m := roundStepsAsOneRun(t, ins, list, r, flags)
			if flags == nil {
				mapped = m
			}
		})
	}
	if mapped == "" {
		t.FailNow()
	}

	sorted := sortLines(strings.SplitAfter(strings.TrimSuffix(mapped, "\n"), "\n"))
	_, facts, _ := step(t, list, "map", "-q")
	for _, tc := range []struct {
		name  string
		in    string
		args  []string
		code  int
		error string
	}{
		{"no such round", sorted, []string{"--round", "shuffle"}, exitUsage, "no round"},
		{"unsorted", mapped, []string{"--round", "exact"}, exitFailure, "not sorted"},
		{"other settings", sorted, []string{"--round", "exact", "--tau-same", "0.9"}, exitUsage, "other settings"},
		{"facts of the one-task reduce", sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n")), []string{"--round", "exact"}, exitFailure, "map --rounds"},
		{"round lines to the one-task reduce", sorted, nil, exitFailure, "reduce --round"},
		{"a report", sorted, []string{"--round", "exact", "--report", filepath.Join(t.TempDir(), "r.jsonl")}, exitUsage, "--report"},
		{"a report that exists", sorted, []string{"--round", "resolve", "--report", report}, exitUsage, "already exists"},
		{"not base64", "Eabc 0\t!!\n", []string{"--round", "exact"}, exitFailure, "line 1"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			code, _, stderr := step(t, []byte(tc.in), append([]string{"reduce", "-q"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.error) {
				t.Errorf("exit %d, %q; want exit %d and %q", code, stderr, tc.code, tc.error)
			}
		})
	}
}

// roundStepsAsOneRun runs map --rounds, the rounds and apply with flags
// over ins (list: the map's input lines) and checks that they write the
// records, and the report (written to report) the pairs, one run with flags
// writes; it returns the map's output.
func roundStepsAsOneRun(t *testing.T, ins []string, list []byte, report string, flags []string) string {
	t.Helper()
	code, mapped, stderr := step(t, list, append([]string{"map", "-q", "--rounds"}, flags...)...)
	if code != exitOK {
		t.Fatalf("map --rounds: exit %d\n%s", code, stderr)
	}
	decisions := runRounds(t, mapped, report, flags...)
	if !strings.Contains(decisions, "\tD") {
		t.Fatal("the rounds made no decision")
	}
	// The report names the duplicates and clusters the one-task reduce's
	// report names (its revisits and annotations: the rounds report no
	// containment or page kept on weak evidence that is not annotated).
	_, facts0, _ := step(t, list, append([]string{"map", "-q"}, flags...)...)
	oneReport := filepath.Join(t.TempDir(), "one.jsonl")
	if code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts0, "\n"), "\n"))), append([]string{"reduce", "-q", "--report", oneReport}, flags...)...); code != exitOK {
		t.Fatalf("reduce --report: exit %d\n%s", code, stderr)
	}
	if a, b := reportPairs(t, oneReport), reportPairs(t, report); a != b || !strings.Contains(a, "cluster") {
		t.Errorf("the rounds' report:\n%s\nthe one-task reduce's:\n%s", b, a)
	}
	out, one := filepath.Join(t.TempDir(), "out"), t.TempDir()
	if code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n"))), append([]string{"apply", "-q", out + "/"}, flags...)...); code != exitOK {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}
	if code, stderr := runCLI(t, append(append(append([]string{"-q"}, flags...), ins...), one+"/")...); code != exitOK {
		t.Fatalf("warcdedup: exit %d\n%s", code, stderr)
	}
	changed := 0
	for _, n := range names(t, one) {
		changed += sameRecords(t, filepath.Join(one, n), filepath.Join(out, n))
	}
	if changed < 4 {
		t.Errorf("%d revisits and annotations: the inputs do not exercise the rounds", changed)
	}
	if len(flags) == 0 {
		checkOutputs(t, runOrder(ins), outsIn(out, runOrder(ins)))
	}
	return mapped
}

// sameRecords checks that file b holds the records of file a, header and
// block, but for the similarity a near revisit records: the rounds take a
// page's site frame out as it was when the page was judged, one machine as
// it is when the later page is (docs/scale.md), and an annotation too. It
// returns the revisits and annotations.
func sameRecords(t *testing.T, a, b string) int {
	t.Helper()
	ra, err := readRecords(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := readRecords(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(ra) != len(rb) {
		t.Fatalf("%s: %d records, one run %d", filepath.Base(b), len(rb), len(ra))
	}
	// An annotation's block records the similarity too, and its digest
	// the block.
	annotation := func(r oracleRecord) bool {
		return r.h.Get("WARC-Type") == "metadata" && r.h.Get("WARC-Refers-To") != ""
	}
	head := func(r oracleRecord) string {
		var sb strings.Builder
		for _, f := range r.h.Fields {
			if f.Name != "WARC-Dedup-Similarity" && !(annotation(r) && f.Name == "WARC-Block-Digest") {
				fmt.Fprintf(&sb, "%s: %s\n", f.Name, f.Value)
			}
		}
		return sb.String()
	}
	block := func(r oracleRecord) []byte {
		if !annotation(r) {
			return r.block
		}
		return regexp.MustCompile(`(?m)^similarity: [0-9.]+\r$`).ReplaceAll(r.block, []byte("similarity: -\r"))
	}
	revisits := 0
	for i := range ra {
		if ra[i].h == nil || rb[i].h == nil {
			continue
		}
		if ha, hb := head(ra[i]), head(rb[i]); ha != hb || !bytes.Equal(block(ra[i]), block(rb[i])) {
			t.Errorf("%s, record %d: the rounds wrote\n%s%.400s\none run\n%s%.400s", filepath.Base(b), i, hb, block(rb[i]), ha, block(ra[i]))
		}
		if ra[i].h.Get("WARC-Type") == "revisit" || annotation(ra[i]) {
			revisits++
		}
	}
	return revisits
}

// reportPairs lists a report's revisits and annotations (record, kept
// record, method, file) and clusters (kept record, members), sorted.
func reportPairs(t *testing.T, path string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(mustRead(t, path))), "\n") {
		var d struct {
			Kind, File, RecordID, KeptID, Method, Action string
			Members                                      []string
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch {
		case (d.Kind == "duplicate" || d.Kind == "containment") && (d.Action == "revisit" || d.Action == "annotate"):
			method := d.Method
			if method != "exact" {
				method = "near"
			}
			lines = append(lines, fmt.Sprintf("%s %s %s -> %s (%s, %s)", d.Kind, d.Action, d.RecordID, d.KeptID, method, filepath.Base(d.File)))
		case d.Kind == "cluster":
			slices.Sort(d.Members)
			lines = append(lines, fmt.Sprintf("cluster %s: %v", d.KeptID, d.Members))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestApplyCDXJ: apply --cdxj writes the index of the files it wrote, as
// --cdxj of a run over the same files; an index file that exists is not
// overwritten without --force, and nothing is written then.
func TestApplyCDXJ(t *testing.T) {
	ins := stageFiles(t)
	list := mapList(ins)
	_, facts, _ := step(t, list, "map", "-q")
	_, decisions, _ := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
	sorted := []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n")))
	dir := t.TempDir()
	one := filepath.Join(dir, "one.cdxj")
	if code, stderr := runCLI(t, append(append([]string{"-q", "--cdxj", one}, ins...), filepath.Join(dir, "one")+"/")...); code != exitOK {
		t.Fatalf("warcdedup: exit %d\n%s", code, stderr)
	}
	idx := filepath.Join(dir, "apply.cdxj")
	if code, _, stderr := step(t, sorted, "apply", "-q", "--cdxj", idx, filepath.Join(dir, "out")+"/"); code != exitOK {
		t.Fatalf("apply --cdxj: exit %d\n%s", code, stderr)
	}
	if a, b := mustRead(t, one), mustRead(t, idx); !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("apply --cdxj wrote\n%s\nthe run's --cdxj\n%s", b, a)
	}
	out2 := filepath.Join(dir, "out2")
	if code, _, stderr := step(t, sorted, "apply", "-q", "--cdxj", idx, out2+"/"); code != exitUsage || !strings.Contains(stderr, "exists") {
		t.Errorf("apply --cdxj onto an existing file: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Errorf("apply wrote %s although its --cdxj file exists", out2)
	}
}

// mapList is the list a map step reads: a line for each input, its
// position and its path.
func mapList(ins []string) []byte {
	var b bytes.Buffer
	for i, in := range ins {
		fmt.Fprintf(&b, "%d\t%s\n", i, in)
	}
	return b.Bytes()
}

// annotationsInto counts the annotations in dir's outputs (metadata records
// of --near=annotate) that name a record of earlier's outputs as the kept
// page.
func annotationsInto(t *testing.T, dir, earlier string) int {
	t.Helper()
	ids := recordIDs(t, earlier)
	into := 0
	fs, _ := filepath.Glob(filepath.Join(dir, "*.warc*"))
	for _, f := range fs {
		rs, err := readRecords(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.h == nil || r.h.Get("WARC-Type") != "metadata" || r.h.Get("WARC-Refers-To") == "" {
				continue
			}
			// The block's first line: "near-duplicate-of: ID" or a
			// containment's.
			first, _, _ := strings.Cut(string(r.block), "\r\n")
			if _, id, ok := strings.Cut(first, ": "); ok && ids[id] {
				into++
			}
		}
	}
	return into
}

// TestApplyCDXJFIFO: an apply output that is a FIFO is written through and
// left out of --cdxj with a warning, as a run's --cdxj leaves it out; the
// index holds the other files.
func TestApplyCDXJFIFO(t *testing.T) {
	ins := stageFiles(t)
	_, facts, _ := step(t, mapList(ins), "map", "-q")
	_, decisions, _ := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(out, filepath.Base(ins[0]))
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan int64)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			done <- -1
			return
		}
		n, _ := io.Copy(io.Discard, f)
		f.Close()
		done <- n
	}()
	idx := filepath.Join(dir, "apply.cdxj")
	code, _, stderr := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n"))), "apply", "--cdxj", idx, out+"/")
	if n := <-done; code != exitOK || n <= 0 {
		t.Fatalf("apply with a FIFO output: exit %d, %d bytes through it\n%s", code, n, stderr)
	}
	b := mustRead(t, idx)
	if !strings.Contains(stderr, "is not a file and is not indexed") || bytes.Contains(b, []byte(filepath.Base(ins[0]))) || !bytes.Contains(b, []byte(filepath.Base(ins[1]))) {
		t.Errorf("stderr %q; index:\n%s", stderr, b)
	}
}

// TestArrayShareTold: map takes its share of the lines from a Slurm job
// array's variables when no flag says otherwise. A task whose share is
// empty warns, -q or not (a job that hands each task its own list would
// lose the files silently); --tasks 1 takes every line.
func TestArrayShareTold(t *testing.T) {
	ins := stageFiles(t)
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "0")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
	for _, tc := range []struct {
		name      string
		args      []string
		lines     []string
		facts     bool
		wantInErr string
	}{
		{"its own list of one file: none taken, warned", []string{"map", "-q"}, ins[:1], false, "took none of the 1 files given: SLURM_ARRAY_TASK_ID=1"},
		{"--tasks 1: every file taken", []string{"map", "-q", "--tasks", "1"}, ins[:1], true, ""},
		{"a share of the list, told", []string{"map"}, ins[:2], true, "took 1 of the 2 files given, as task 1 of 3"},
		{"an array with a step: the ID's place in it", []string{"map", "STEP"}, ins[:2], true, "took 1 of the 2 files given, as task 1 of 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args[len(tc.args)-1] == "STEP" {
				// --array=4-8:2: IDs 4, 6, 8; this task is 6, the second.
				t.Setenv("SLURM_ARRAY_TASK_ID", "6")
				t.Setenv("SLURM_ARRAY_TASK_MIN", "4")
				t.Setenv("SLURM_ARRAY_TASK_STEP", "2")
				tc.args = tc.args[:len(tc.args)-1]
			}
			code, out, stderr := step(t, []byte(strings.Join(tc.lines, "\n")+"\n"), tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if got := strings.Contains(out, ":\t"); got != tc.facts {
				t.Errorf("facts written: %v, want %v", got, tc.facts)
			}
			if tc.wantInErr == "" && stderr != "" || !strings.Contains(stderr, tc.wantInErr) {
				t.Errorf("stderr %q, want %q", stderr, tc.wantInErr)
			}
		})
	}
}

// TestStepsLenientDamage: a job that carries damaged input over
// (--lenient: here a file cut short) ends with 3, as one run does, once
// every output is written: apply exits 3, and so does mapreduce-local.sh,
// one-task and partitioned; the outputs are the run's, byte for byte.
func TestStepsLenientDamage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.warc.gz"), filepath.Join(dir, "b.warc.gz")
	writeWARC(t, a, []testResponse{{id: uuid(1), uri: "http://a.example/1", payload: "one"}, {id: uuid(2), uri: "http://a.example/2", payload: "two"}}, 0)
	writeWARC(t, b, []testResponse{{id: uuid(3), uri: "http://b.example/1", payload: "one"}, {id: uuid(4), uri: "http://b.example/2", payload: "three"}}, 50)
	one := filepath.Join(dir, "one")
	if code, stderr := runCLI(t, "-q", "--lenient", a, b, one+"/"); code != exitDamaged {
		t.Fatalf("one run: exit %d, want 3\n%s", code, stderr)
	}
	for _, flags := range [][]string{nil, {"-r"}} {
		mr := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command("bash", append(append([]string{"../../scripts/mapreduce-local.sh"}, flags...), a, b, mr+"/")...)
		cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+os.Args[0], "WARCDEDUP_FLAGS=--lenient")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitDamaged {
			t.Errorf("mapreduce-local.sh %v: %v, want exit 3\n%s", flags, err, out)
			continue
		}
		for _, n := range []string{"a.warc.gz", "b.warc.gz"} {
			if !bytes.Equal(mustRead(t, filepath.Join(mr, n)), mustRead(t, filepath.Join(one, n))) {
				t.Errorf("mapreduce-local.sh %v: %s differs from the run's", flags, n)
			}
		}
	}
}

// TestReduceFailsAfterStaging: a reduce --index that fails after it staged
// what the job kept (the report's last lines, or its sync, fail) discards
// the segment: the index is as it was (new, so none is left) and takes
// the next job. When the discard fails too, the reduce says that the
// index holds the segment and how to remove it.
func TestReduceFailsAfterStaging(t *testing.T) {
	// One file: a reduce writes its report lines when the run ends, after
	// staging (with more, those of each file come when the next begins).
	code, out, stderr := step(t, mapList([]string{samplePath}), "map", "-q")
	if code != exitOK {
		t.Fatalf("map: exit %d\n%s", code, stderr)
	}
	facts := sortLines(strings.SplitAfter(strings.TrimSuffix(out, "\n"), "\n"))
	discarded := func(t *testing.T, idx string, code int, stderr string) {
		t.Helper()
		if code != exitFailure || !strings.Contains(stderr, "staged in index "+idx+" is discarded") {
			t.Errorf("exit %d, %q", code, stderr)
		}
		// The index was new: as it was is no index at all (its lock
		// file stays).
		if n := names(t, idx); len(n) > 1 || len(n) == 1 && n[0] != "lock" {
			t.Errorf("the index's directory holds %v", n)
		}
		if code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx); code != exitOK {
			t.Errorf("the next job: exit %d, %q", code, stderr)
		}
	}
	t.Run("report-full", func(t *testing.T) {
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
			t.Skip("no /dev/full")
		}
		idx := t.TempDir()
		code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx, "--report", "/dev/full")
		if !strings.Contains(stderr, "no space left") {
			t.Errorf("the report did not fail: %q", stderr)
		}
		discarded(t, idx, code, stderr)
	})
	t.Run("report-sync", func(t *testing.T) {
		idx, dir := t.TempDir(), t.TempDir()
		defer func(f func(*os.File) error) { syncFile = f }(syncFile)
		syncFile = func(*os.File) error { return syscall.EIO }
		code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx, "--report", filepath.Join(dir, "report.jsonl"))
		discarded(t, idx, code, stderr)
		if n := names(t, dir); len(n) != 0 {
			t.Errorf("the failed reduce left %v", n)
		}
	})
	t.Run("discard-fails", func(t *testing.T) {
		idx, dir := t.TempDir(), t.TempDir()
		defer func(f func(*os.File) error) { syncFile = f }(syncFile)
		// The staged segment becomes a directory that is not empty,
		// which the discard cannot remove, whoever runs the test.
		syncFile = func(*os.File) error {
			p := filepath.Join(idx, "staged.wdx")
			if err := os.Remove(p); err != nil {
				t.Error(err)
			}
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Error(err)
			}
			if err := os.WriteFile(filepath.Join(p, "x"), nil, 0o644); err != nil {
				t.Error(err)
			}
			return syscall.EIO
		}
		code, _, stderr := step(t, []byte(facts), "reduce", "-q", "--index", idx, "--report", filepath.Join(dir, "report.jsonl"))
		if code != exitFailure || !strings.Contains(stderr, "still holds the segment this reduce staged") ||
			!strings.Contains(stderr, "warcdedup index discard "+idx+" removes it") {
			t.Errorf("exit %d, %q", code, stderr)
		}
	})
}

// TestMapEmptyMembers: a file with empty gzip members (before its first
// record, after its last) maps to facts of distinct keys, which reduce
// takes (it refuses a key twice); the job writes what a run writes.
func TestMapEmptyMembers(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.warc.gz")
	htmlWARC(t, rec, 9, [3]string{uuid(71), "http://news.example/a", storyText(7, 12)}, [3]string{uuid(72), "http://wire.example/a", storyText(7, 12)})
	var empty bytes.Buffer
	gzip.NewWriter(&empty).Close()
	in := filepath.Join(dir, "in.warc.gz")
	if err := os.WriteFile(in, slices.Concat(empty.Bytes(), mustRead(t, rec), empty.Bytes(), empty.Bytes()), 0o644); err != nil {
		t.Fatal(err)
	}
	var facts, decisions, stderr bytes.Buffer
	if code := run([]string{"map", "-q"}, strings.NewReader("0\t"+in+"\n"), &facts, &stderr); code != 0 {
		t.Fatalf("map: exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(facts.String()), "\n")
	slices.Sort(lines)
	if code := run([]string{"reduce", "-q"}, strings.NewReader(strings.Join(lines, "\n")+"\n"), &decisions, &stderr); code != 0 {
		t.Fatalf("reduce: exit %d: %s", code, stderr.String())
	}
	out, one := filepath.Join(dir, "out"), filepath.Join(dir, "one")
	if code := run([]string{"apply", "-q", out + "/"}, &decisions, io.Discard, &stderr); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"-q", in, one + "/"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr.String())
	}
	if !bytes.Equal(mustRead(t, filepath.Join(out, "in.warc.gz")), mustRead(t, filepath.Join(one, "in.warc.gz"))) {
		t.Error("the job's output is not the run's")
	}
}
