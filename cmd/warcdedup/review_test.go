package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewCommand: `warcdedup review` makes one page of a run's report,
// with the sample's near duplicate and the kept page's text beside the
// duplicate's; an existing page is not overwritten without --force.
func TestReviewCommand(t *testing.T) {
	dir := t.TempDir()
	rep, page := filepath.Join(dir, "report.jsonl"), filepath.Join(dir, "review.html")
	if code, msg := runCLI(t, "-q", "--report", rep, samplePath, filepath.Join(dir, "out.warc.gz")); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	var stderr bytes.Buffer
	if code := run([]string{"review", rep, "-o", page}, nil, nil, &stderr); code != exitOK {
		t.Fatalf("review: exit %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"https://gazette.example/news/pier", "replaced", "<details"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if code := run([]string{"review", "-o", page, rep}, nil, nil, &stderr); code != exitUsage {
		t.Errorf("an existing page was overwritten without --force (exit %d)", code)
	}
	if code := run([]string{"review", "--force", "-o", page, rep}, nil, nil, &stderr); code != exitOK {
		t.Errorf("--force: exit %d: %s", code, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d files in the folder, want report, output and page only", len(ents))
	}
}
