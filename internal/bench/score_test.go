package bench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warcdedup/warcdedup/warcio"
)

// fiveLabels: cluster a has three records (two on site s1, one on s2), b and
// c one each, all on s1 but A3.
func fiveLabels() []Label {
	mk := func(id, cl, site string, cse int) Label {
		return Label{RecordID: id, Cluster: cl, Site: site, Case: cse, URI: "http://" + site + "/" + id, Date: "2026-01-01T00:00:0" + id[1:2] + "Z"}
	}
	return []Label{
		mk("A1", "a", "s1", 2), mk("A2", "a", "s1", 2), mk("A3", "a", "s2", 2),
		mk("B1", "b", "s1", 3), mk("C1", "c", "s1", 3),
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name          string
		refers        map[string]string
		all           Counts
		p, r, f1      float64
		sRecall, sPre float64
		sameSite      Counts
		crossSite     Counts
		frameReported int
	}{
		{
			name:   "mixed",
			refers: map[string]string{"A2": "A1", "A3": "B1", "C1": "A1"},
			// Components {A1,A2,C1} and {A3,B1}: pairs A1A2 (true), A1C1, A2C1,
			// A3B1 (false); true pairs A1A3 and A2A3 missed.
			all: Counts{TP: 1, FP: 3, FN: 2}, p: 0.25, r: 1.0 / 3, f1: 2.0 / 7,
			// Duplicates A2, A3; A2 refers into its cluster, A3 does not; C1 is
			// reported too.
			sRecall: 0.5, sPre: 1.0 / 3,
			sameSite:  Counts{TP: 1, FP: 2},
			crossSite: Counts{FP: 1, FN: 2},
			// A1C1 and A2C1 are same-site pairs of different clusters.
			frameReported: 2,
		},
		{
			name:   "nothing reported",
			refers: map[string]string{},
			all:    Counts{FN: 3},
			p:      1, r: 0, f1: 0,
			sRecall: 0, sPre: 1,
			sameSite:  Counts{FN: 1},
			crossSite: Counts{FN: 2},
		},
		{
			name:   "perfect",
			refers: map[string]string{"A2": "A1", "A3": "A1"},
			all:    Counts{TP: 3},
			p:      1, r: 1, f1: 1,
			sRecall: 1, sPre: 1,
			sameSite:  Counts{TP: 1},
			crossSite: Counts{TP: 2},
		},
		{
			// A3 refers to A2, itself a duplicate: the chain joins all three.
			name:   "chain",
			refers: map[string]string{"A2": "A1", "A3": "A2"},
			all:    Counts{TP: 3},
			p:      1, r: 1, f1: 1,
			sRecall: 1, sPre: 1,
			sameSite:  Counts{TP: 1},
			crossSite: Counts{TP: 2},
		},
		{
			// Which record of a cluster is kept is the method's choice: A1
			// pointing at A2 is one of the cluster's two duplicates found.
			name:   "backwards",
			refers: map[string]string{"A1": "A2"},
			all:    Counts{TP: 1, FN: 2},
			p:      1, r: 1.0 / 3, f1: 0.5,
			sRecall: 0.5, sPre: 1,
			sameSite:  Counts{TP: 1},
			crossSite: Counts{FN: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := fiveLabels()
			s := Evaluate(ls, &Decisions{RefersTo: tt.refers, Seen: len(ls)})
			all := *s.Pairs[GroupAll]
			if all != tt.all {
				t.Errorf("all = %+v, want %+v", all, tt.all)
			}
			if !near(all.Precision(), tt.p) || !near(all.Recall(), tt.r) || !near(all.F1(), tt.f1) {
				t.Errorf("P/R/F1 = %v %v %v, want %v %v %v", all.Precision(), all.Recall(), all.F1(), tt.p, tt.r, tt.f1)
			}
			st := s.Strict[GroupAll]
			if !near(st.Recall(), tt.sRecall) || !near(st.Precision(), tt.sPre) {
				t.Errorf("strict recall/precision = %v %v, want %v %v", st.Recall(), st.Precision(), tt.sRecall, tt.sPre)
			}
			got := func(g string) Counts {
				if c := s.Pairs[g]; c != nil {
					return *c
				}
				return Counts{}
			}
			if c := got(GroupSameSite); c != tt.sameSite {
				t.Errorf("same-site = %+v, want %+v", c, tt.sameSite)
			}
			if c := got(GroupCrossSite); c != tt.crossSite {
				t.Errorf("cross-site = %+v, want %+v", c, tt.crossSite)
			}
			// Site s1 holds A1 A2 B1 C1: 6 pairs, one of them in a cluster.
			if s.SameFrame.Pairs != 5 || s.SameFrame.Reported != tt.frameReported {
				t.Errorf("same frame = %+v, want 5 pairs, %d reported", s.SameFrame, tt.frameReported)
			}
		})
	}
}

func TestEvaluateGroups(t *testing.T) {
	ls := fiveLabels()
	ls[2].Short = true // A3
	ls[4].Lang = "zh"  // C1
	s := Evaluate(ls, &Decisions{RefersTo: map[string]string{"A2": "A1", "A3": "B1", "C1": "A1"}})
	tests := []struct {
		group string
		want  Counts
	}{
		// Pairs with A3: A3B1 (false), A1A3 and A2A3 (missed).
		{GroupShort, Counts{FP: 1, FN: 2}},
		// Pairs with C1: A1C1 and A2C1, both false.
		{GroupChinese, Counts{FP: 2}},
		// Case 2 is cluster a; every pair but none touches it... all but none:
		// A1A2 true, A1C1 A2C1 A3B1 false (each has an a record), A1A3 A2A3 missed.
		{CaseGroup(2), Counts{TP: 1, FP: 3, FN: 2}},
		// Case 3 records are B1 and C1.
		{CaseGroup(3), Counts{FP: 3}},
	}
	for _, tt := range tests {
		c := s.Pairs[tt.group]
		if c == nil || *c != tt.want {
			t.Errorf("%s = %+v, want %+v", tt.group, c, tt.want)
		}
	}
	if st := s.Strict[GroupShort]; st == nil || st.Duplicates != 1 || st.Found != 0 || st.Reported != 1 {
		t.Errorf("strict short = %+v, want 1 duplicate, 0 found, 1 reported", st)
	}
}

// TestReadDecisions writes an output WARC the way warcdedup does (revisits
// with new record IDs) and checks that each is mapped back to its response.
func TestReadDecisions(t *testing.T) {
	ls := fiveLabels()
	for i := range ls {
		ls[i].RecordID = "<urn:uuid:" + ls[i].RecordID + ">"
		ls[i].File = "out.warc.gz"
		ls[i].Index = i + 1
	}
	var buf bytes.Buffer
	w := warcio.NewWriter(&buf, true)
	meta := "near-duplicate-of: " + ls[0].RecordID + "\r\nmethod: spotsigs\r\n"
	write := func(fields ...string) {
		t.Helper()
		h := &warcio.Header{Version: "WARC/1.1"}
		for i := 0; i+1 < len(fields); i += 2 {
			h.Fields = append(h.Fields, warcio.Field{Name: fields[i], Value: fields[i+1]})
		}
		block := []byte("HTTP/1.1 200 OK\r\n\r\n")
		if h.Get("WARC-Type") == "metadata" {
			block = []byte(meta)
		}
		if err := w.WriteRecord(h, block); err != nil {
			t.Fatal(err)
		}
	}
	resp := func(l Label) {
		write("WARC-Type", "response", "WARC-Record-ID", l.RecordID, "WARC-Date", l.Date, "WARC-Target-URI", l.URI)
	}
	write("WARC-Type", "warcinfo", "WARC-Record-ID", "<urn:uuid:info>", "WARC-Date", "2026-01-01T00:00:00Z")
	resp(ls[0])
	// A2: a revisit found by URI and date.
	write("WARC-Type", "revisit", "WARC-Record-ID", "<urn:uuid:new2>", "WARC-Date", ls[1].Date,
		"WARC-Target-URI", ls[1].URI, "WARC-Refers-To", ls[0].RecordID)
	// A3: by the extension field (URI and date changed).
	write("WARC-Type", "revisit", "WARC-Record-ID", "<urn:uuid:new3>", "WARC-Date", "2027-01-01T00:00:00Z",
		"WARC-Target-URI", "http://elsewhere/", FieldOriginalID, ls[2].RecordID, "WARC-Refers-To", ls[0].RecordID)
	// B1: by its position alone.
	write("WARC-Type", "revisit", "WARC-Record-ID", "<urn:uuid:new4>", "WARC-Date", "2027-01-01T00:00:00Z",
		"WARC-Target-URI", "http://elsewhere/", "WARC-Refers-To", ls[0].RecordID)
	// C1 kept, annotated as a near duplicate of A1.
	resp(ls[4])
	write("WARC-Type", "metadata", "WARC-Record-ID", "<urn:uuid:meta>", "WARC-Date", ls[4].Date,
		"WARC-Target-URI", ls[4].URI, "WARC-Refers-To", ls[4].RecordID, "Content-Type", "application/warc-fields")
	name := filepath.Join(t.TempDir(), "out.warc.gz")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDecisions([]string{name}, ls)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ls[1].RecordID: ls[0].RecordID, ls[2].RecordID: ls[0].RecordID,
		ls[3].RecordID: ls[0].RecordID, ls[4].RecordID: ls[0].RecordID}
	if len(d.RefersTo) != len(want) {
		t.Errorf("RefersTo = %v, want %v", d.RefersTo, want)
	}
	for k, v := range want {
		if d.RefersTo[k] != v {
			t.Errorf("RefersTo[%s] = %q, want %q", k, d.RefersTo[k], v)
		}
	}
	if d.Seen != 5 {
		t.Errorf("Seen = %d, want 5", d.Seen)
	}
	if len(d.Annotated) != 1 || !d.Annotated[ls[4].RecordID] {
		t.Errorf("Annotated = %v, want only %s", d.Annotated, ls[4].RecordID)
	}
	r := d.Replaced()
	if len(r.RefersTo) != 3 || r.RefersTo[ls[4].RecordID] != "" || r.RefersTo[ls[1].RecordID] != ls[0].RecordID {
		t.Errorf("Replaced().RefersTo = %v, want the three revisits only", r.RefersTo)
	}
	if len(d.RefersTo) != len(want) {
		t.Error("Replaced changed the decisions it was made from")
	}
	if len(d.Contains) != 0 {
		t.Errorf("Contains = %v, want none", d.Contains)
	}

	// A containment annotation: C1 kept whole, holding A1's text. It is a
	// duplicate found only with WithContainments, and never a replacement.
	buf.Reset()
	meta = "contains-text-of: " + ls[0].RecordID + "\r\ncontains-text-of-uri: " + ls[0].URI + "\r\ncontainment: 0.8\r\n"
	resp(ls[0])
	resp(ls[4])
	write("WARC-Type", "metadata", "WARC-Record-ID", "<urn:uuid:meta>", "WARC-Date", ls[4].Date,
		"WARC-Target-URI", ls[4].URI, "WARC-Refers-To", ls[4].RecordID, "Content-Type", "application/warc-fields")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = ReadDecisions([]string{name}, ls)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.RefersTo) != 0 || len(d.Annotated) != 0 || d.Unmapped != 0 {
		t.Errorf("RefersTo = %v, Annotated = %v, Unmapped = %d: want no duplicate", d.RefersTo, d.Annotated, d.Unmapped)
	}
	if len(d.Contains) != 1 || d.Contains[ls[4].RecordID] != ls[0].RecordID {
		t.Errorf("Contains = %v, want %s in %s", d.Contains, ls[4].RecordID, ls[0].RecordID)
	}
	c := d.WithContainments()
	if len(c.RefersTo) != 1 || c.RefersTo[ls[4].RecordID] != ls[0].RecordID || !c.Annotated[ls[4].RecordID] {
		t.Errorf("WithContainments: RefersTo = %v, Annotated = %v", c.RefersTo, c.Annotated)
	}
	if len(c.Replaced().RefersTo) != 0 {
		t.Error("a containment counted as a replaced page")
	}
	if len(d.RefersTo) != 0 {
		t.Error("WithContainments changed the decisions it was made from")
	}
}

func TestTargets(t *testing.T) {
	ls := fiveLabels()
	mixed := Evaluate(ls, &Decisions{RefersTo: map[string]string{"A2": "A1", "A3": "B1", "C1": "A1"}})
	ts := mixed.Targets()
	// 2 of 5 same-frame pairs reported; overall F1 2/7.
	if !strings.Contains(ts[0], "0.4000 MISSED by 0.3900") || !strings.Contains(ts[1], "0.2857 MISSED by 0.6643") {
		t.Errorf("targets of the mixed run:\n%s", strings.Join(ts, "\n"))
	}
	perfect := Evaluate(ls, &Decisions{RefersTo: map[string]string{"A2": "A1", "A3": "A1"}})
	for _, line := range perfect.Targets() {
		if !strings.HasSuffix(line, " met") {
			t.Errorf("perfect run: %s", line)
		}
	}
}
