package dedup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// paragraphsOf are the paragraphs of a made-up story page (story).
func paragraphsOf(page string) string {
	_, rest, _ := strings.Cut(page, "</h1>")
	body, _, _ := strings.Cut(rest, "</article>")
	return body
}

// quotePage is a commentary page: own, then the wire story's paragraphs.
func quotePage(own, wire string) string {
	return "<!doctype html><html><head><title>Comment</title></head><body><article><h1>What the report means</h1>" +
		paragraphsOf(own) + paragraphsOf(wire) + "</article></body></html>"
}

// judgeQuote runs the wire story and then the page through one machine
// and returns the report's first line about the page and whether the page
// was replaced; it checks that the partitioned rounds replace the page
// alike.
func judgeQuote(t *testing.T, wire, page string) (Duplicate, bool) {
	t.Helper()
	in := responsesWARC(t, false,
		response{id: "<urn:uuid:wire>", uri: "http://wire.example/story", body: wire},
		response{id: "<urn:uuid:page>", uri: "http://paper.example/comment", body: page})
	var out, rep bytes.Buffer
	opts := DefaultOptions()
	opts.Report = &rep
	d := New(opts)
	if err := d.Run(bytes.NewReader(in), "in.warc", &out, false); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	var dup Duplicate
	line, _, _ := strings.Cut(rep.String(), "\n")
	if err := json.Unmarshal([]byte(line), &dup); err != nil {
		t.Fatalf("report %q: %v", rep.String(), err)
	}
	replaced := d.Stats.NearRevisits == 1
	facts := mapWARC(t, in, &opts)
	decided, _ := runRounds(t, opts, facts)
	_, decs := roundPairs(t, facts, decided)
	if got := decs["<urn:uuid:page>"].act == actNear; got != replaced {
		t.Errorf("the rounds replace the page: %v, one machine: %v", got, replaced)
	}
	return dup, replaced
}

// TestQuotedWireStory: a page of another site that quotes a kept wire
// story whole around more text of its own (an article, a commentary) holds
// the story: a containment, kept whole and reported, with the default
// settings and the partitioned rounds alike. A copy that only adds a local
// introduction is a near revisit of the story.
func TestQuotedWireStory(t *testing.T) {
	wire := story(41, 24, 0)
	for _, c := range []struct {
		name     string
		own      int
		wantKind string
	}{
		{"commentary around the story", 60, "containment"},
		{"the story with a local introduction", 4, "duplicate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dup, replaced := judgeQuote(t, wire, quotePage(story(42, c.own, 0), wire))
			if dup.Kind != c.wantKind || dup.RecordID != "<urn:uuid:page>" || replaced != (c.wantKind == "duplicate") {
				t.Errorf("report %+v, replaced %v: want a %s", dup, replaced, c.wantKind)
			}
			if c.wantKind == "containment" && dup.Direction != "contains" {
				t.Errorf("the page %s the story, want contains", dup.Direction)
			}
		})
	}
}

// TestQuotedShortStory: a page of several paragraphs of its own around a
// short kept story (three sentences, fewer signatures than a containment's
// smaller side) is kept whole, a containment; a copy of the story with a
// paragraph of other text is a near duplicate.
func TestQuotedShortStory(t *testing.T) {
	for _, c := range []struct {
		seed     uint64
		own      int // sentences of the page's own
		wantKind string
	}{
		{49, 6, "containment"},
		{50, 7, "containment"},
		{56, 7, "containment"},
		{50, 3, "duplicate"},
	} {
		t.Run(fmt.Sprintf("story %d, %d sentences of its own", c.seed, c.own), func(t *testing.T) {
			wire := story(c.seed, 3, 0)
			dup, replaced := judgeQuote(t, wire, quotePage(story(200+c.seed, c.own, 0), wire))
			if dup.KeptSignatures >= 20 {
				t.Fatalf("the story has %d signatures: not a short one", dup.KeptSignatures)
			}
			if dup.Kind != c.wantKind || replaced != (c.wantKind == "duplicate") {
				t.Errorf("report %+v, replaced %v: want a %s", dup, replaced, c.wantKind)
			}
		})
	}
}
