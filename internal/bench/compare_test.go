package bench

import (
	"bytes"
	"strings"
	"testing"

	"warcdedup/features"
	"warcdedup/matcher"
)

func TestEvaluatePairs(t *testing.T) {
	ls := fiveLabels()
	// Direct pairs, not closed: A1A2 true; A1C1 and A3B1 false; A1A3 and A2A3
	// missed (A2C1 is not predicted, as it would be through a chain).
	s := EvaluatePairs(ls, [][2]int{{1, 0}, {0, 4}, {2, 3}, {0, 1}})
	if c := *s.Pairs[GroupAll]; c != (Counts{TP: 1, FP: 2, FN: 2}) {
		t.Errorf("all = %+v", c)
	}
	if s.SameFrame.Pairs != 5 || s.SameFrame.Reported != 1 {
		t.Errorf("same frame = %+v, want 1 of 5", s.SameFrame)
	}
}

// fixedMethod returns the pairs it was built with.
type fixedMethod struct{ pairs []matcher.Pair }

func (fixedMethod) Name() string          { return "fixed" }
func (fixedMethod) Thresholds() []float64 { return []float64{0.5, 0.9} }
func (m fixedMethod) Pairs([]features.Doc, float64) ([]matcher.Pair, error) {
	return m.pairs, nil
}

func TestCompareThresholds(t *testing.T) {
	ls := fiveLabels()
	m := fixedMethod{[]matcher.Pair{{A: 0, B: 1, Sim: 0.95}, {A: 0, B: 2, Sim: 0.6}, {A: 3, B: 4, Sim: 0.7}}}
	rs, err := Compare(ls, make([]features.Doc, len(ls)), []Method{m})
	if err != nil {
		t.Fatal(err)
	}
	want := []Counts{{TP: 2, FP: 1, FN: 1}, {TP: 1, FN: 2}}
	for i, r := range rs {
		if c := *r.Score.Pairs[GroupAll]; c != want[i] {
			t.Errorf("threshold %v: %+v, want %+v", r.Threshold, c, want[i])
		}
	}
	var md, svg bytes.Buffer
	if err := WriteMarkdown(&md, rs, nil, "# test\n"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| fixed | 0.500 | 0.667 | 0.667 | 0.667 |") {
		t.Errorf("markdown lacks the best row:\n%s", md.String())
	}
	if err := WriteSVG(&svg, rs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg.String(), "<svg") || strings.Count(svg.String(), "<polyline") != 3 {
		t.Errorf("svg: %s", svg.String())
	}
}

// TestMethodsOnCopies: every method finds two identical pages and none pairs
// two unrelated ones at its highest threshold.
func TestMethodsOnCopies(t *testing.T) {
	ex, err := features.NewExtractor(CompareConfig())
	if err != nil {
		t.Fatal(err)
	}
	story := "<html><body><p>The council said on Monday that it would close the bridge for repairs. " +
		"Drivers were told to use the ring road, which is expected to be busy during the works. " +
		"The mayor said the repairs were overdue and that the work would be finished by the summer.</p></body></html>"
	other := "<html><body><p>A new species of frog has been found in the rain forest by a team of biologists. " +
		"They say it is the smallest frog known and that it lives in the leaf litter of the forest floor. " +
		"The team will publish a description of the animal in a journal later this year.</p></body></html>"
	docs := []features.Doc{
		ex.Extract([]byte(story), "text/html", "http://a.example/1"),
		ex.Extract([]byte(story), "text/html", "http://b.example/2"),
		ex.Extract([]byte(other), "text/html", "http://c.example/3"),
	}
	for _, m := range Methods() {
		ts := m.Thresholds()
		ps, err := m.Pairs(docs, ts[len(ts)-1])
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if len(ps) != 1 || ps[0].A != 0 || ps[0].B != 1 {
			t.Errorf("%s at %v: %+v, want the one pair 0-1", m.Name(), ts[len(ts)-1], ps)
		}
	}
}
