package bench

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/matcher"
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

func TestClosePairs(t *testing.T) {
	got := ClosePairs(6, [][2]int{{0, 1}, {3, 1}, {4, 5}})
	want := [][2]int{{0, 1}, {0, 3}, {1, 3}, {4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ClosePairs = %v, want %v", got, want)
	}
	if got := ClosePairs(3, nil); got != nil {
		t.Errorf("no pairs closed to %v", got)
	}
}

// opMethod is fixedMethod with an operating point at 0.9.
type opMethod struct{ fixedMethod }

func (opMethod) Name() string            { return "op" }
func (opMethod) OperatingPoint() float64 { return 0.9 }

// TestOperatingPoint: a method with an operating point is shown there, not at
// its best threshold, and is also scored with its pairs closed.
func TestOperatingPoint(t *testing.T) {
	ls := fiveLabels()
	// At 0.9: 0-1 and 1-2 true, 2-3 false, 0-2 missed; closed, 0-1-2-3 is one
	// cluster. At 0.5 the missing pair is found: a better F1.
	m := opMethod{fixedMethod{[]matcher.Pair{{A: 0, B: 1, Sim: 0.95}, {A: 1, B: 2, Sim: 0.92}, {A: 2, B: 3, Sim: 0.93}, {A: 0, B: 2, Sim: 0.6}}}}
	rs, err := Compare(ls, nil, []Method{m})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || rs[0].Operating || !rs[1].Operating || rs[1].Closed || !rs[2].Closed || rs[2].Method != "op, closed" {
		t.Fatalf("results %+v", rs)
	}
	want := []Counts{{TP: 3, FP: 1}, {TP: 2, FP: 1, FN: 1}, {TP: 3, FP: 3}}
	for i, r := range rs {
		if c := *r.Score.Pairs[GroupAll]; c != want[i] {
			t.Errorf("%s at %v: %+v, want %+v", r.Method, r.Threshold, c, want[i])
		}
	}
	if b := best(rs); len(b) != 2 || b[0].Threshold != 0.9 || b[1].Method != "op, closed" {
		t.Errorf("best %+v", b)
	}
	var svg bytes.Buffer
	if err := WriteSVG(&svg, rs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg.String(), "closed") {
		t.Error("closed pairs plotted")
	}
}

// TestComparisonOther: the second set's reported, true and false pairs join
// each row at its threshold, and its false pairs are broken down by page type.
func TestComparisonOther(t *testing.T) {
	ls := fiveLabels()
	m := fixedMethod{[]matcher.Pair{{A: 0, B: 1, Sim: 0.95}, {A: 0, B: 2, Sim: 0.6}, {A: 3, B: 4, Sim: 0.7}}}
	rs, err := Compare(ls, nil, []Method{m})
	if err != nil {
		t.Fatal(err)
	}
	ols := fiveLabels()
	for i := range ols {
		ols[i].PageType = []string{"product", "product", "forum", "forum", "docs"}[i]
	}
	other, err := Compare(ols, nil, []Method{m})
	if err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Intro: "# t\n", Results: rs, Other: other, OtherName: "w", OtherTypes: PageTypes(ols), Pages: 5,
		Stages: []Stage{{Name: "extract", Pages: 5, CPU: 10 * time.Millisecond}}}
	var md bytes.Buffer
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"| w pairs reported | w true | w false |",
		// Best threshold 0.5: 3 pairs, 2 true, 1 false (B1-C1, forum and docs).
		"| fixed | 0.500 | 0.667 | 0.667 | 0.667 |",
		"| 3 | 2 | 1 |\n",
		"| method | threshold | same site | cross site | docs | forum | product |",
		"| fixed | 0.500 | 1 | 0 | 1 | 1 | 0 |",
		"| extract | 5 | 0.01 | 2.000 |",
		"| pair search: fixed | 5 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
