package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/warcdedup/warcdedup/internal/testshared"
	"github.com/warcdedup/warcdedup/warcio"
)

// mainEnv makes the test binary run as warcdedup: the tests that need a process
// of their own (signals, kill -9, standard input or output that is a file) start
// os.Args[0] with it set.
const mainEnv = "WARCDEDUP_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// command returns warcdedup with args as a process of its own.
func command(args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), mainEnv+"=1")
	return c
}

func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, nil, nil, &stderr)
	return code, stderr.String()
}

// oracleStats is what the oracle found.
type oracleStats struct{ records, unchanged, exact, near int }

// oracleRecord is a record as the oracle compares it.
type oracleRecord struct {
	h      *warcio.Header
	plain  []byte // the record's bytes in the decompressed stream
	block  []byte
	digest string // computed payload digest of an HTTP response, "" otherwise
	// padding: bytes that hold no record (blank lines, a gzip member of
	// newlines), compared like records but not counted as one, as the
	// independent checker does not count them.
	padding bool
}

func readRecords(path string) ([]oracleRecord, error) { return readRecordsLenient(path, false) }

// readRecordsLenient reads as readRecords does; lenient, it returns the
// bytes it cannot read as records as damaged ones, which the oracle holds
// to coming out as they went in, as the padding between records.
func readRecordsLenient(path string, lenient bool) ([]oracleRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := warcio.NewReader(f, path)
	r.KeepRaw = true
	r.Lenient = lenient
	var recs []oracleRecord
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
		o := oracleRecord{h: rec.Header.Clone(), padding: rec.Kind == warcio.KindPadding || rec.Kind == warcio.KindDamaged}
		if o.block, err = io.ReadAll(r); err != nil && !lenient {
			return nil, err
		}
		if rec.Type() == "response" && strings.HasPrefix(rec.Header.Get("Content-Type"), "application/http") {
			if p, err := warcio.ReadPayload(bytes.NewReader(o.block), nil); err == nil {
				o.digest = p.Digest
			}
		}
		raw, err := r.Finish()
		if err != nil {
			return nil, err
		}
		o.padding = o.padding || rec.Kind == warcio.KindDamaged // a short block, found by Finish
		o.plain, err = plainBytes(raw)
		raw.Release()
		if err != nil {
			return nil, err
		}
		recs = append(recs, o)
	}
}

func plainBytes(raw *warcio.Raw) ([]byte, error) {
	switch {
	case raw.Plain != nil:
		return io.ReadAll(raw.Plain.NewReader())
	case raw.FileIsMember:
		zr, err := gzip.NewReader(raw.File.NewReader())
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	}
	return nil, nil
}

// oracle is the tests' own check of outputs, independent of dedup's code: every
// record of each input is in its output, in its place, as the same bytes or, for
// a response, as a revisit with the response's target URI and an HTTP head for a
// block, naming by WARC-Refers-To, -Target-URI and -Date a record written
// earlier in the run; an exact revisit's kept record has the same payload.
func oracle(ins, outs []string) (oracleStats, error) { return oracleLenient(ins, outs, false) }

// oracleLenient is the oracle over files read leniently: damaged input must
// come out byte for byte, and the records around it as oracle holds them.
func oracleLenient(ins, outs []string, lenient bool) (oracleStats, error) {
	var st oracleStats
	type kept struct{ uri, date, digest string }
	seen := map[string][]kept{}
	for i, in := range ins {
		a, err := readRecordsLenient(in, lenient)
		if err != nil {
			return st, err
		}
		b, err := readRecordsLenient(outs[i], lenient)
		if err != nil {
			return st, err
		}
		if len(a) != len(b) {
			return st, fmt.Errorf("%s: %d records in, %d out", outs[i], len(a), len(b))
		}
		for j, x := range a {
			y := b[j]
			id := y.h.Get("WARC-Record-ID")
			if x.padding {
				if !bytes.Equal(x.plain, y.plain) {
					return st, fmt.Errorf("%s record %d: bytes between records changed", outs[i], j)
				}
				continue
			}
			st.records++
			if bytes.Equal(x.plain, y.plain) {
				st.unchanged++
				seen[id] = append(seen[id], kept{y.h.Get("WARC-Target-URI"), y.h.Get("WARC-Date"), x.digest})
				continue
			}
			where := fmt.Sprintf("%s record %d", outs[i], j)
			if y.h.Get("WARC-Type") != "revisit" || x.h.Get("WARC-Type") != "response" {
				return st, fmt.Errorf("%s: changed, and not a response turned revisit", where)
			}
			if y.h.Get("WARC-Target-URI") != x.h.Get("WARC-Target-URI") {
				return st, fmt.Errorf("%s: revisit of %s has target %s", where, x.h.Get("WARC-Target-URI"), y.h.Get("WARC-Target-URI"))
			}
			if !bytes.HasPrefix(y.block, []byte("HTTP/")) || !bytes.HasSuffix(y.block, []byte("\r\n\r\n")) {
				return st, fmt.Errorf("%s: revisit block is not an HTTP head", where)
			}
			// Real files repeat record IDs (pywb's samples hold one capture
			// in several files): of the records with the ID, URI and date a
			// revisit names, one with its payload will do.
			var ref *kept
			for _, k := range seen[y.h.Get("WARC-Refers-To")] {
				if k.uri == y.h.Get("WARC-Refers-To-Target-URI") && k.date == y.h.Get("WARC-Refers-To-Date") &&
					(ref == nil || k.digest == x.digest) {
					ref = &k
				}
			}
			if ref == nil {
				return st, fmt.Errorf("%s: WARC-Refers-To %s (%s %s) names no record written before", where,
					y.h.Get("WARC-Refers-To"), y.h.Get("WARC-Refers-To-Target-URI"), y.h.Get("WARC-Refers-To-Date"))
			}
			if strings.HasSuffix(y.h.Get("WARC-Profile"), "/revisit/identical-payload-digest") {
				st.exact++
				if ref.digest == "" || ref.digest != x.digest {
					return st, fmt.Errorf("%s: exact revisit of a record with another payload (%s, %s)", where, ref.digest, x.digest)
				}
			} else {
				st.near++
			}
			seen[id] = append(seen[id], kept{y.h.Get("WARC-Target-URI"), y.h.Get("WARC-Date"), x.digest})
		}
	}
	return st, nil
}

// checkOutputs fails the test when the oracle finds a problem.
func checkOutputs(t *testing.T, ins, outs []string) oracleStats {
	t.Helper()
	st, err := oracle(ins, outs)
	if err != nil {
		t.Fatalf("oracle: %v", err)
	}
	return st
}

// warccheck runs the independent checker (the shared folder's warccheck.py) over
// inputs and outputs in a subtest, which skips when the checker is absent, and
// fails when the checker finds a problem or counts otherwise than the oracle.
func warccheck(t *testing.T, ins, outs []string, want oracleStats) {
	t.Helper()
	t.Run("warccheck", func(t *testing.T) {
		args := append(append(append([]string{"compare"}, ins...), "--"), outs...)
		out, err := testshared.Checker(t, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("warccheck: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`stats (\{.*\}) problems (\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("warccheck said %s", out)
		}
		st := map[string]int{}
		if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("'"), []byte(`"`)), &st); err != nil {
			t.Fatal(err)
		}
		if p, _ := strconv.Atoi(string(m[2])); p != 0 {
			t.Fatalf("warccheck found %d problems:\n%s", p, out)
		}
		if got := (oracleStats{st["records"], st["unchanged"], st["exact"], st["near"]}); got != want {
			t.Errorf("warccheck counts %+v, the oracle %+v", got, want)
		}
	})
}

func TestSampleRevisits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.warc.gz")
	if code, msg := runCLI(t, samplePath, out); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	st := checkOutputs(t, []string{samplePath}, []string{out})
	// One exact duplicate (the pier page under a tracking URL), one near (its
	// re-capture with a new timestamp); the 404 pair and the short robots.txt are
	// left alone by design.
	if want := (oracleStats{records: 10, unchanged: 8, exact: 1, near: 1}); st != want {
		t.Fatalf("oracle %+v, want %+v", st, want)
	}
	warccheck(t, []string{samplePath}, []string{out}, st)
}

// TestOracle: the oracle finds what it is for, so that the tests relying on
// it can fail: a changed record, a record missing, a revisit that names no
// record written before.
func TestOracle(t *testing.T) {
	golden, err := readRecords(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(recs []oracleRecord) []oracleRecord) []oracleRecord {
		recs := make([]oracleRecord, len(golden))
		for i, r := range golden {
			recs[i] = r
			recs[i].plain = bytes.Clone(r.plain)
		}
		return f(recs)
	}
	for _, c := range []struct {
		name string
		recs []oracleRecord
		want string // in the error; "" for none
	}{
		{"golden", edit(func(r []oracleRecord) []oracleRecord { return r }), ""},
		{"changed", edit(func(r []oracleRecord) []oracleRecord {
			r[3].plain = bytes.Replace(r[3].plain, []byte("Library"), []byte("Lxbrary"), 1)
			return r
		}), "not a response turned revisit"},
		{"short", edit(func(r []oracleRecord) []oracleRecord { return r[:9] }), "10 records in, 9 out"},
		{"dangling", edit(func(r []oracleRecord) []oracleRecord {
			for i := range r {
				r[i].plain = bytes.Replace(r[i].plain, []byte("WARC-Refers-To: <urn:uuid:"), []byte("WARC-Refers-To: <urn:uuid:f"), 1)
			}
			return r
		}), "names no record written before"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b []byte
			for _, r := range c.recs {
				b = append(b, r.plain...)
			}
			out := filepath.Join(t.TempDir(), "out.warc")
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := oracle([]string{samplePath}, []string{out})
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("oracle said %v, want %q", err, c.want)
			}
		})
	}
}

// TestAllSharedWARCs runs the CLI over every file of the shared folder's real
// WARCs, one run per file, leniently, and checks each output with the oracle and
// the independent checker; where the input is damaged, the oracle reads
// both leniently, and where the checker cannot read it otherwise (ARC) the
// output must hold the input's bytes.
func TestAllSharedWARCs(t *testing.T) {
	root := testshared.Measure(t, "warcs")
	var all []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".lz4") {
			all = append(all, p)
		}
		return nil
	})
	if len(all) < 100 {
		t.Fatalf("%s holds %d files; the test was written for over 100", root, len(all))
	}
	dir := t.TempDir()
	revisits := 0
	for i, in := range all {
		out := filepath.Join(dir, strconv.Itoa(i)+".warc")
		if b, _ := os.ReadFile(in); len(b) > 1 && b[0] == 0x1f && b[1] == 0x8b {
			out += ".gz"
		}
		code, msg := runCLI(t, "--lenient", "-q", in, out)
		if code != exitOK && code != exitDamaged {
			t.Errorf("%s: exit %d: %s", in, code, msg)
			continue
		}
		if code == exitDamaged {
			// The checker cannot read damaged input: the damaged bytes
			// must come out as they went in, and each record as itself or
			// as a revisit of an earlier record with its payload.
			st, err := oracleLenient([]string{in}, []string{out}, true)
			if err != nil {
				t.Errorf("%s: damaged input: %v", in, err)
			}
			revisits += st.exact
			continue
		}
		if err := testshared.Checker(t, "records", in).Run(); err != nil {
			a, _ := os.ReadFile(in)
			b, _ := os.ReadFile(out)
			if !bytes.Equal(canonical(a), canonical(b)) {
				t.Errorf("%s: unreadable or damaged input, and the output does not hold the same bytes", in)
			}
			continue
		}
		st, err := oracle([]string{in}, []string{out})
		if err != nil {
			t.Errorf("oracle: %v", err)
			continue
		}
		warccheck(t, []string{in}, []string{out}, st)
		revisits += st.exact
	}
	t.Logf("%d files, %d exact revisits written", len(all), revisits)
	if revisits == 0 {
		t.Errorf("no file had an exact duplicate; aut example.warc.gz and pywb iana.warc.gz have some")
	}
}

// canonical returns a file's content with every gzip member that decompresses
// replaced by its content and everything from the first member that does not kept
// as stored: the same for an input and a pass-through output, however the output
// grouped records into members.
func canonical(b []byte) []byte {
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return b
	}
	var out bytes.Buffer
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		pos := len(b) - r.Len()
		zr, err := gzip.NewReader(r)
		if err == nil {
			zr.Multistream(false)
			var m bytes.Buffer
			if _, err = io.Copy(&m, zr); err == nil {
				out.Write(m.Bytes())
				continue
			}
		}
		out.Write(b[pos:])
		break
	}
	return out.Bytes()
}
