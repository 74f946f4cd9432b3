package dedup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestReportClustersInRuns: the report's clusters, made from one line a
// duplicate sorted in runs (a budget of a few lines, so that runs are
// merged in levels), and a file's lines held in the temporary file, give
// what they give held in memory: the same bytes, no line of a withdrawn
// Run,
// largest first, ties in the order found, members in their order; a kept
// record ID with a tab and a backslash comes back as it was.
func TestReportClustersInRuns(t *testing.T) {
	var files [2][]response
	for i := range 40 {
		id := fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i)
		if i == 7 {
			id = "<urn:x-test:a\tb\\c>"
		}
		body := fmt.Sprintf("<html><body><p>payload %d %s</p></body></html>", i, strings.Repeat("x", 40))
		files[0] = append(files[0], response{id: id, uri: fmt.Sprintf("http://example.com/%d", i), ctype: "image/png", body: body})
		// Copies: 0 to 3 of each payload, in the second file.
		for c := range i % 4 {
			files[1] = append(files[1], response{id: fmt.Sprintf("<urn:uuid:00000000-0000-4000-9000-%06d%06d>", i, c),
				uri: fmt.Sprintf("http://mirror%d.example/%d", c, i), ctype: "image/png", body: body})
		}
	}
	// A third file, withdrawn after its Run: copies of the first file's
	// payloads that must leave no line.
	var withdrawn []response
	for i, r := range files[0][:10] {
		withdrawn = append(withdrawn, response{id: fmt.Sprintf("<urn:uuid:00000000-0000-4000-a000-%012d>", i),
			uri: "http://withdrawn.example/" + r.uri[len("http://"):], ctype: r.ctype, body: r.body})
	}
	run := func(budget, spool int) string {
		defer func(b, s int) { reportSortBudget, spoolAt = b, s }(reportSortBudget, spoolAt)
		reportSortBudget, spoolAt = budget, spool
		opts := DefaultOptions()
		opts.MinSize = 16
		opts.TempDir = t.TempDir()
		res := runSteps(t, opts, []runStep{
			{name: "a.warc", in: bytes.NewReader(responsesWARC(t, false, files[0]...))},
			{name: "b.warc", in: bytes.NewReader(responsesWARC(t, false, files[1]...))},
			{name: "c.warc", in: bytes.NewReader(responsesWARC(t, false, withdrawn...)), withdraw: true},
		})
		return res.rep
	}
	held, runs := run(0, 1<<20), run(300, 100)
	if held != runs {
		t.Fatalf("clusters sorted in runs, lines in the temporary file, differ from those held:\n%s\nheld:\n%s", runs, held)
	}
	if strings.Contains(held, "withdrawn.example") {
		t.Errorf("a withdrawn Run's duplicates are in the report:\n%s", held)
	}
	// Each duplicate in its kept record's cluster, in the order found; the
	// clusters largest first, ties in the order their first duplicate was
	// found.
	want := map[string][]string{}
	var order []string
	var sizes []int
	tabbed := false
	i := 0
	for _, l := range strings.Split(strings.TrimSpace(held), "\n") {
		var c struct {
			Cluster
			RecordID string `json:"record_id"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		switch c.Kind {
		case "duplicate":
			if want[c.KeptID] == nil {
				order = append(order, c.KeptID)
			}
			want[c.KeptID] = append(want[c.KeptID], c.RecordID)
		case "cluster":
			if m := want[c.KeptID]; c.Size != len(m)+1 || strings.Join(c.Members, " ") != strings.Join(m, " ") {
				t.Errorf("cluster of %q: size %d, members %v; its duplicates %v", c.KeptID, c.Size, c.Members, m)
			}
			if n := len(sizes); n > 0 && (c.Size > sizes[n-1] || c.Size == sizes[n-1] && slices.Index(order, c.KeptID) < i) {
				t.Errorf("cluster of %q (size %d) out of order", c.KeptID, c.Size)
			}
			i = slices.Index(order, c.KeptID)
			sizes = append(sizes, c.Size)
			tabbed = tabbed || c.KeptID == "<urn:x-test:a\tb\\c>"
		}
	}
	if len(sizes) != len(want) || len(sizes) < 10 || sizes[0] < 3 || !tabbed {
		t.Errorf("clusters of sizes %v, %d kept records with duplicates; the tabbed ID among them: %t", sizes, len(want), tabbed)
	}
}
