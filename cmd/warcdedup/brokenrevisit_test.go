package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/warcio"
)

// TestBrokenRevisitWarned: a crawl's revisit that names a response the run
// replaces by a revisit of another URI's capture (with no response of its
// URI and digest left) is warned about with its file, offset and ID, and
// counted in the summary; the revisits' file is copied unchanged.
func TestBrokenRevisitWarned(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "crawl-1.warc.gz"), filepath.Join(dir, "crawl-2.warc.gz")
	writeWARC(t, first, []testResponse{
		{id: uuid(1), uri: "http://cdn.example/report.txt", payload: "report"},
		{id: uuid(2), uri: "http://mirror.example/report.txt", payload: "report"},
	}, 0)
	body := strings.Repeat("payload report ", 200)
	sum := sha1.Sum([]byte(body))
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	for i, uri := range []string{"http://cdn.example/report.txt", "http://mirror.example/report.txt"} {
		h := &warcio.Header{Version: "WARC/1.1", Fields: []warcio.Field{
			{Name: "WARC-Type", Value: "revisit"},
			{Name: "WARC-Record-ID", Value: "<urn:uuid:" + uuid(10+i) + ">"},
			{Name: "WARC-Date", Value: "2026-12-01T10:00:00Z"},
			{Name: "WARC-Target-URI", Value: uri},
			{Name: "WARC-Profile", Value: dedup.ProfileIdentical11},
			{Name: "WARC-Payload-Digest", Value: "sha1:" + base32.StdEncoding.EncodeToString(sum[:])},
			{Name: "WARC-Refers-To-Target-URI", Value: uri},
			{Name: "Content-Type", Value: "application/http; msgtype=response"},
		}}
		if err := w.WriteRecord(h, []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(second, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := warcio.NewReader(bytes.NewReader(buf.Bytes()), second)
	var offsets []int64
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		offsets = append(offsets, rec.Offset)
		if _, err := r.Finish(); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	code, stderr := runCLI(t, first, second, out+"/")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "input revisit names a response this run replaced"); n != 1 {
		t.Errorf("%d warnings, want 1 (the mirror's revisit):\n%s", n, stderr)
	}
	want := "file=" + second + ", offset=" + strconv.FormatInt(offsets[1], 10) + ", record=<urn:uuid:" + uuid(11) + ">, refers_to=http://mirror.example/report.txt"
	if !strings.Contains(stderr, want) {
		t.Errorf("the warning does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stderr, "with none like it left (replay cannot resolve them; see README): 1\n") {
		t.Errorf("the summary does not count the revisit:\n%s", stderr)
	}
	if got := mustRead(t, filepath.Join(out, "crawl-2.warc.gz")); !bytes.Equal(got, buf.Bytes()) {
		t.Error("the revisits' file was changed")
	}
	// -q silences neither the warning nor its count, as reduce -q.
	code, stderr = runCLI(t, "-q", "--force", first, second, out+"/")
	if code != exitOK || !strings.Contains(stderr, want) || !strings.Contains(stderr, "see README): 1\n") {
		t.Errorf("-q: exit %d, the warning or its count missing:\n%s", code, stderr)
	}

	// The same over two runs with one index: the first run's replaced
	// capture is in the index, and the second run's revisit of it is told.
	ix := filepath.Join(dir, "index")
	if code, stderr := runCLI(t, "--index", ix, first, filepath.Join(dir, "out1")+"/"); code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	code, stderr = runCLI(t, "--index", ix, second, filepath.Join(dir, "out2")+"/")
	if code != exitOK || !strings.Contains(stderr, want) {
		t.Errorf("second run over the index: exit %d, the warning does not say %q:\n%s", code, want, stderr)
	}
	if code, stdout, _ := step(t, nil, "index", ix); code != exitOK || !strings.Contains(stdout, "1 replaced captures") {
		t.Errorf("warcdedup index: exit %d\n%s", code, stdout)
	}

	// The steps as the local script runs them, with -q, one-task and
	// partitioned: the warning is not silenced.
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed: scripts/mapreduce-local.sh is not run")
	}
	for _, flags := range [][]string{nil, {"-r"}} {
		mr := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command("bash", append(append([]string{"../../scripts/mapreduce-local.sh"}, flags...), first, second, mr+"/")...)
		cmd.Env = append(os.Environ(), mainEnv+"=1", "WARCDEDUP="+os.Args[0])
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) || !strings.Contains(string(out), "see README): 1\n") {
			t.Errorf("mapreduce-local.sh %v: %v, the warning or its count missing:\n%s", flags, err, out)
		}
	}
}
