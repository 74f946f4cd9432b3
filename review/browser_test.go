package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium returns the path of a Chromium to run headless, or skips the test.
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (Debian: apt-get install chromium): browser test skipped")
	return ""
}

// runChromium runs a headless Chromium on url with more flags and returns its
// standard output and how long it ran.
func runChromium(t testing.TB, bin, url string, flags ...string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", flags, err, stderr.String())
	}
	return string(out), took
}

var (
	selftestRE = regexp.MustCompile(`<output id="selftest"([^>]*)>`)
	attrRE     = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)
	detailsRE  = regexp.MustCompile(`<details ([^>]*)>`)
)

func attrs(s string) map[string]string {
	m := map[string]string{}
	for _, a := range attrRE.FindAllStringSubmatch(s, -1) {
		m[a[1]] = a[2]
	}
	return m
}

// selftest opens the page at file with #selftest and returns the selftest
// output's attributes, the rows' attributes and Chromium's running time.
func selftest(t testing.TB, bin, file string) (map[string]string, []map[string]string, time.Duration) {
	t.Helper()
	dom, took := runChromium(t, bin, "file://"+file+"#selftest", "--dump-dom")
	m := selftestRE.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no selftest output in the dumped DOM (%d bytes)", len(dom))
	}
	var rows []map[string]string
	for _, r := range detailsRE.FindAllStringSubmatch(dom, -1) {
		a := attrs(r[1])
		if _, h := a["hidden"]; !h && strings.Contains(" "+r[1]+" ", " hidden ") {
			a["hidden"] = ""
		}
		rows = append(rows, a)
	}
	return attrs(m[1]), rows, took
}

// TestBrowserSelftest opens the sample's page in headless Chromium: after
// load the page's self test selects the tier "replaced"; the rows of other
// tiers must be hidden, those of that tier shown. A screenshot of the page is
// kept in the test's temporary directory and in $WARCDEDUP_ARTIFACTS if set.
func TestBrowserSelftest(t *testing.T) {
	bin := chromium(t)
	report, texts := sample(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "review.html")
	if err := os.WriteFile(file, []byte(render(t, report, Options{Texts: textsOf(texts)})), 0o644); err != nil {
		t.Fatal(err)
	}
	out, rows, _ := selftest(t, bin, file)
	if out["data-tier"] != "replaced" {
		t.Errorf("self test selected tier %q, want replaced", out["data-tier"])
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows in the DOM, want 5", len(rows))
	}
	visible := 0
	for _, r := range rows {
		_, hidden := r["hidden"]
		if hidden == (r["data-t"] == "replaced") {
			t.Errorf("row of tier %q: hidden %v", r["data-t"], hidden)
		}
		if !hidden {
			visible++
		}
	}
	if visible != 2 || out["data-visible"] != "2" || out["data-total"] != "5" {
		t.Errorf("%d rows visible, the page says %s of %s; want 2 of 5", visible, out["data-visible"], out["data-total"])
	}
	shot := filepath.Join(dir, "review.png")
	runChromium(t, bin, "file://"+file+"#selftest", "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars")
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 1000 {
		t.Fatalf("no screenshot: %v (%d bytes)", err, len(png))
	}
	t.Logf("screenshot %s (%d bytes)", shot, len(png))
	if a := os.Getenv("WARCDEDUP_ARTIFACTS"); a != "" {
		if err := os.MkdirAll(a, 0o755); err == nil {
			if err := os.WriteFile(filepath.Join(a, "review.png"), png, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// bigReview writes a review page of the dedupbench benchmark's size (about
// 1,300 near duplicates, synthesized, with texts) and an empty one to dir.
func bigReview(t testing.TB, dir string) (big, empty string) {
	report, texts := synthetic(t, 1300)
	big, empty = filepath.Join(dir, "review.html"), filepath.Join(dir, "empty.html")
	if err := os.WriteFile(big, []byte(render(t, report, Options{Texts: textsOf(texts)})), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, []byte(render(t, "", Options{})), 0o644); err != nil {
		t.Fatal(err)
	}
	return big, empty
}

// TestBrowserBigReview: a page of the benchmark's size renders every row
// in Chromium and its self test reports a load time. How long it takes is
// BenchmarkBrowserRender's to measure, not a test's.
func TestBrowserBigReview(t *testing.T) {
	bin := chromium(t)
	if testing.Short() {
		t.Skip("1,300 decisions in Chromium: not in -short")
	}
	file, _ := bigReview(t, t.TempDir())
	out, rows, took := selftest(t, bin, file)
	if _, err := strconv.Atoi(out["data-load-ms"]); err != nil {
		t.Fatalf("no load time in the self test's output %v", out)
	}
	if len(rows) != 1300 {
		t.Errorf("%d rows, want 1300", len(rows))
	}
	t.Logf("load event after %s ms; Chromium ran %v", out["data-load-ms"], took.Round(time.Millisecond))
}

// BenchmarkBrowserRender measures the time from navigation to the load
// event of a review page of the benchmark's size, as the page reports it
// (load-ms), and Chromium's whole run against that of an empty page
// (chromium-ms, empty-ms). The target is 3 s to the load event.
func BenchmarkBrowserRender(b *testing.B) {
	bin := chromium(b)
	file, empty := bigReview(b, b.TempDir())
	var load, run, base float64
	for b.Loop() {
		_, _, e := selftest(b, bin, empty)
		out, _, took := selftest(b, bin, file)
		ms, err := strconv.Atoi(out["data-load-ms"])
		if err != nil {
			b.Fatalf("no load time in the self test's output %v", out)
		}
		load += float64(ms)
		run += float64(took.Milliseconds())
		base += float64(e.Milliseconds())
	}
	n := float64(b.N)
	b.ReportMetric(load/n, "load-ms")
	b.ReportMetric(run/n, "chromium-ms")
	b.ReportMetric(base/n, "empty-ms")
}
