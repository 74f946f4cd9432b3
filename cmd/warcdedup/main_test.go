package main

import (
	"io"

	"bytes"
	"encoding/json"
	"github.com/klauspost/compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const shared = "../../../shared/warcs"

// checkWithOracle runs the independent checker over inputs and outputs and returns
// its stats; any problem fails the test.
func checkWithOracle(t *testing.T, ins, outs []string) map[string]int {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed for the independent checker")
	}
	args := append([]string{"../../../shared/tools/warccheck.py", "compare"}, ins...)
	args = append(append(args, "--"), outs...)
	out, err := exec.Command("python3", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("warccheck: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`stats (\{.*\}) problems (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("warccheck said %s", out)
	}
	stats := map[string]int{}
	if err := json.Unmarshal(bytes.ReplaceAll(m[1], []byte("'"), []byte(`"`)), &stats); err != nil {
		t.Fatal(err)
	}
	if p, _ := strconv.Atoi(string(m[2])); p != 0 {
		t.Fatalf("warccheck found %d problems:\n%s", p, out)
	}
	return stats
}

func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stderr bytes.Buffer
	code := run(args, nil, nil, &stderr)
	return code, stderr.String()
}

func TestSampleRevisits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.warc.gz")
	if code, msg := runCLI(t, samplePath, out); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	st := checkWithOracle(t, []string{samplePath}, []string{out})
	// One exact duplicate (the pier page under a tracking URL), one near (its
	// re-capture with a new timestamp); the 404 pair and the short robots.txt are
	// left alone by design.
	if st["exact"] != 1 || st["near"] != 1 || st["records"] != 10 {
		t.Fatalf("checker stats %v, want 10 records, 1 exact and 1 near revisit", st)
	}
}

// TestAllSharedWARCs runs the CLI over every file in ../shared/warcs, one run per
// file, leniently, and checks each output with the independent checker; where the
// checker cannot read the input (ARC, damage) the output must equal the input.
func TestAllSharedWARCs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(shared, "*", "*"))
	var all []string
	filepath.WalkDir(shared, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".lz4") {
			all = append(all, p)
		}
		return nil
	})
	if len(files) == 0 || len(all) < 100 {
		t.Skip("shared WARCs not available")
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
		if err := exec.Command("python3", "../../../shared/tools/warccheck.py", "records", in).Run(); err != nil || code == exitDamaged {
			a, _ := os.ReadFile(in)
			b, _ := os.ReadFile(out)
			if !bytes.Equal(canonical(a), canonical(b)) {
				t.Errorf("%s: unreadable or damaged input, and the output does not hold the same bytes", in)
			}
			continue
		}
		st := checkWithOracle(t, []string{in}, []string{out})
		revisits += st["exact"]
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
