package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/warcio"
)

// testResponse is a response record for writeWARC; its payload is over
// dedup's 1 KiB minimum, the same for the same payload key, and plain text, so
// that only exact duplicates are found.
type testResponse struct {
	id, uri, payload string
	date             string // WARC-Date; "" for a valid one
}

// writeWARC writes the responses as a compressed WARC file, less the last cut
// bytes.
func writeWARC(t *testing.T, path string, recs []testResponse, cut int) {
	t.Helper()
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	for i, r := range recs {
		body := strings.Repeat("payload "+r.payload+" ", 200)
		block := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		date := r.date
		if date == "" {
			date = fmt.Sprintf("2026-11-01T10:%02d:00Z", i)
		}
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "response"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:" + r.id + ">"},
			{Name: "WARC-Date", Value: date},
			{Name: "WARC-Target-URI", Value: r.uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if err := w.WriteRecord(h, []byte(block)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, buf.Bytes()[:buf.Len()-cut], 0o644); err != nil {
		t.Fatal(err)
	}
}

// uuid returns a record ID of n.
func uuid(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// TestBatchGoesOnAfterFailure: a damaged file fails alone. The others are
// written, the failed one is named with the reason at the end, the exit status
// is 1, and no later file refers to a record of the failed one (whose output
// is not there); the summary counts the written files only.
func TestBatchGoesOnAfterFailure(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	a, b, c := filepath.Join(src, "a.warc.gz"), filepath.Join(src, "b-trunc.warc.gz"), filepath.Join(src, "c.warc.gz")
	writeWARC(t, a, []testResponse{{id: uuid(1), uri: "http://a.example/1", payload: "A"}}, 0)
	// b's first record is read and indexed before the cut second one fails
	// the file.
	writeWARC(t, b, []testResponse{{id: uuid(2), uri: "http://b.example/1", payload: "B"},
		{id: uuid(3), uri: "http://b.example/2", payload: "B2"}}, 20)
	writeWARC(t, c, []testResponse{{id: uuid(4), uri: "http://c.example/b", payload: "B"},
		{id: uuid(5), uri: "http://c.example/a", payload: "A"}}, 0)
	var stderr bytes.Buffer
	code := run([]string{a, b, c, out}, nil, nil, &stderr)
	msg := stderr.String()
	if code != exitFailure {
		t.Fatalf("exit %d, want %d: %s", code, exitFailure, msg)
	}
	if ns := names(t, out); strings.Join(ns, ",") != "a.warc.gz,c.warc.gz" {
		t.Fatalf("outputs %v, want a and c", ns)
	}
	oa, oc := filepath.Join(out, "a.warc.gz"), filepath.Join(out, "c.warc.gz")
	// The oracle fails a revisit naming a record of no output before it.
	if st := checkOutputs(t, []string{a, c}, []string{oa, oc}); st.exact != 1 || st.unchanged != 2 {
		t.Fatalf("oracle %+v: want c's copy of b's record kept whole, its copy of a's a revisit", st)
	}
	recs, err := readRecords(oc)
	if err != nil {
		t.Fatal(err)
	}
	if recs[1].h.Get("WARC-Refers-To") != "<urn:uuid:"+uuid(1)+">" {
		t.Errorf("c's copy of a's record refers to %q", recs[1].h.Get("WARC-Refers-To"))
	}
	if !regexp.MustCompile(`failed: 1 of 3 files:\n  .*b-trunc\.warc\.gz: offset \d+.*gzip`).MatchString(msg) {
		t.Errorf("the end of the output does not name b and why:\n%s", msg)
	}
	// a's record, c's two: b's first record is not counted.
	if !strings.Contains(msg, "records in:  3 response=3\n") || !strings.Contains(msg, "revisits: 1 exact") {
		t.Errorf("the summary describes more than the written files:\n%s", msg)
	}
}

// TestBatchAllSharedWARCs: a strict batch over all the shared WARCs does every
// file, and names each that failed; the written outputs pass the oracle.
func TestBatchAllSharedWARCs(t *testing.T) {
	dir := testshared.Measure(t, "warcs")
	out := t.TempDir()
	var stderr bytes.Buffer
	code := run([]string{"-q", dir, out}, nil, nil, &stderr)
	msg := stderr.String()
	var ins, written []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isWARCName(d.Name()) {
			ins = append(ins, p)
		}
		return nil
	})
	m := regexp.MustCompile(`failed: (\d+) of (\d+) files:\n((?:  .*\n)*)`).FindStringSubmatch(msg)
	if code != exitFailure || m == nil || m[2] != fmt.Sprint(len(ins)) {
		t.Fatalf("exit %d, want %d and the list of failed files out of %d: %s", code, exitFailure, len(ins), msg)
	}
	failedList := m[3]
	var wins, wouts []string
	for _, in := range ins {
		rel, _ := filepath.Rel(dir, in)
		o := filepath.Join(out, rel)
		_, err := os.Stat(o)
		listed := strings.Contains(failedList, "  "+in+": ")
		switch {
		case err == nil && listed:
			t.Errorf("%s failed, and its output is there", in)
		case err != nil && !listed:
			t.Errorf("%s: no output, and not named as failed", in)
		case err == nil:
			written = append(written, in)
			if r, _ := readRecords(in); len(r) > 0 {
				wins, wouts = append(wins, in), append(wouts, o)
			}
		}
	}
	if len(written) < len(ins)/2 {
		t.Errorf("%d of %d files written", len(written), len(ins))
	}
	// The run takes its inputs in date order (orderByDate): a revisit may
	// refer to a record of a file later on the command line. The oracle
	// reads them in the run's order.
	jobs := make([]job, len(wins))
	for i := range wins {
		jobs[i] = job{in: wins[i], out: &output{name: wouts[i]}}
	}
	orderByDate(jobs)
	for i, j := range jobs {
		wins[i], wouts[i] = j.in, j.out.name
	}
	st := checkOutputs(t, wins, wouts)
	t.Logf("%d files, %d written, %s failed; the oracle: %+v", len(ins), len(written), m[1], st)
}

// TestInternalErrorExit: a panic (here in the command's own warning, on
// dedup's decision goroutine) fails its file with exit 4, naming the file,
// offset and record; the files before it are written, those after it not
// read, as dedup no longer trusts its index.
func TestInternalErrorExit(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	a, b, c := filepath.Join(src, "a.warc.gz"), filepath.Join(src, "b.warc.gz"), filepath.Join(src, "c.warc.gz")
	writeWARC(t, a, []testResponse{{id: uuid(1), uri: "http://a.example/1", payload: "A"}}, 0)
	writeWARC(t, b, []testResponse{{id: uuid(2), uri: "http://b.example/1", payload: "B"},
		{id: uuid(3), uri: "http://b.example/2", payload: "B2", date: "yesterday"}}, 0)
	writeWARC(t, c, []testResponse{{id: uuid(4), uri: "http://c.example/1", payload: "C"}}, 0)
	stderr := &panicWriter{on: "does not conform"}
	code := run([]string{a, b, c, out}, nil, nil, stderr)
	msg := stderr.String()
	if code != exitInternal {
		t.Fatalf("exit %d, want %d: %s", code, exitInternal, msg)
	}
	if ns := names(t, out); strings.Join(ns, ",") != "a.warc.gz" {
		t.Errorf("outputs %v, want a's", ns)
	}
	for _, want := range []string{
		"internal error on " + b + " at offset ", "(record <urn:uuid:" + uuid(3) + ">): warning refused",
		"failed: 2 of 3 files:", c + ": not read after the internal error on " + b,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("no %q in\n%s", want, msg)
		}
	}
}

// panicWriter panics when it is to write a text containing on.
type panicWriter struct {
	mu  sync.Mutex
	on  string
	buf bytes.Buffer
}

func (w *panicWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if bytes.Contains(p, []byte(w.on)) {
		panic("warning refused")
	}
	return w.buf.Write(p)
}

func (w *panicWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestRunJobRecovers: a panic outside dedup's pipeline (here in writing the
// output) is an internal error naming the file, and takes back what Run added.
func TestRunJobRecovers(t *testing.T) {
	dir := t.TempDir()
	o, err := classify(filepath.Join(dir, "out.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDeduper{}
	err = runJob(d, job{in: samplePath, out: o}, config{}, newRegistry(), nil, nil)
	ie, ok := asInternal(err)
	if !ok || ie.recovered || ie.file != samplePath || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("runJob returned %v", err)
	}
	if !d.withdrawn {
		t.Error("Withdraw was not called")
	}
	if ns := names(t, dir); len(ns) != 0 {
		t.Errorf("left %v", ns)
	}
}

type fakeDeduper struct{ withdrawn bool }

func (d *fakeDeduper) Run(in io.Reader, name string, out io.Writer, compress bool) error {
	out.Write([]byte("some"))
	panic("boom")
}

func (d *fakeDeduper) Withdraw() { d.withdrawn = true }

// TestWithdrawnWhenOutputFails: a file whose records were all read but whose
// output could not be completed (its sync failed) is taken back: a later file's
// copy of its record is kept whole, not made a revisit of a record no output
// holds.
func TestWithdrawnWhenOutputFails(t *testing.T) {
	defer func(f func(*os.File) error) { syncFile = f }(syncFile)
	src, out := t.TempDir(), t.TempDir()
	a, b := filepath.Join(src, "a.warc.gz"), filepath.Join(src, "b.warc.gz")
	writeWARC(t, a, []testResponse{{id: uuid(1), uri: "http://a.example/1", payload: "A"}}, 0)
	writeWARC(t, b, []testResponse{{id: uuid(2), uri: "http://b.example/1", payload: "A"}}, 0)
	syncFile = func(f *os.File) error {
		if strings.HasPrefix(filepath.Base(f.Name()), ".a.warc.gz") {
			return fmt.Errorf("sync refused")
		}
		return f.Sync()
	}
	code, msg := runCLI(t, a, b, out)
	if code != exitFailure || !strings.Contains(msg, "sync refused") {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if ns := names(t, out); strings.Join(ns, ",") != "b.warc.gz" {
		t.Fatalf("outputs %v, want b's alone", ns)
	}
	if st := checkOutputs(t, []string{b}, []string{filepath.Join(out, "b.warc.gz")}); st.unchanged != 1 {
		t.Fatalf("oracle %+v: b's record is not kept whole", st)
	}
	if !strings.Contains(msg, "records in:  1 response=1\n") {
		t.Errorf("the summary counts a's record:\n%s", msg)
	}
}

// TestDuplicateRecordIDs: a record that repeats an earlier record's
// WARC-Record-ID is warned about, naming file, offset and record, and counted;
// it is no damage (exit 0), and the warnings are capped as those about
// nonconforming records.
func TestDuplicateRecordIDs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.warc.gz")
	var recs []testResponse
	for i := range maxProblemLines + 5 {
		recs = append(recs, testResponse{id: uuid(1), uri: fmt.Sprintf("http://a.example/%d", i), payload: fmt.Sprint(i)})
	}
	writeWARC(t, in, recs, 0)
	code, msg := runCLI(t, in, filepath.Join(dir, "out.warc.gz"))
	if code != exitOK {
		t.Fatalf("exit %d, want %d: %s", code, exitOK, msg)
	}
	warned := strings.Count(msg, "repeats the WARC-Record-ID")
	if warned != maxProblemLines || !strings.Contains(msg, "file="+in) || !strings.Contains(msg, "record=<urn:uuid:"+uuid(1)+">") ||
		!strings.Contains(msg, "offset=") {
		t.Errorf("%d warnings naming file, offset and record, want %d:\n%s", warned, maxProblemLines, msg)
	}
	if !strings.Contains(msg, fmt.Sprintf("records repeating an earlier record's WARC-Record-ID: %d\n", len(recs)-1)) {
		t.Errorf("the summary does not count them:\n%s", msg)
	}
}
