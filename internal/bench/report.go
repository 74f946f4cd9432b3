package bench

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"time"
)

func pct(x float64) string { return fmt.Sprintf("%.3f", x) }

func groupF1(s *Score, g string) string {
	c := s.Pairs[g]
	if c == nil || c.TP+c.FN == 0 {
		return "-"
	}
	return pct(c.F1())
}

func groupRecall(s *Score, g string) string {
	c := s.Pairs[g]
	if c == nil || c.TP+c.FN == 0 {
		return "-"
	}
	return pct(c.Recall())
}

func all(s *Score) Counts {
	if c := s.Pairs[GroupAll]; c != nil {
		return *c
	}
	return Counts{}
}

// best returns, per method in order of first appearance, its result at its
// operating point when it has one, else the result with the highest overall
// F1 (the lowest threshold among ties).
func best(rs []Result) []Result {
	var order []string
	b := map[string]Result{}
	for _, r := range rs {
		cur, ok := b[r.Method]
		if !ok {
			order = append(order, r.Method)
		}
		if !ok || !cur.Operating && (r.Operating || all(r.Score).F1() > all(cur.Score).F1()+1e-12) {
			b[r.Method] = r
		}
	}
	out := make([]Result, len(order))
	for i, m := range order {
		out[i] = b[m]
	}
	return out
}

const tableHead = "| method | threshold | precision | recall | F1 | case 1 F1 | case 2 F1 | cross-site recall | case 5 recall | same frame reported | short F1 | zh F1 |"

func tableRow(bw io.Writer, name string, t string, s *Score) {
	a := all(s)
	cross := "-"
	if c := s.Pairs[GroupCrossSite]; c != nil {
		// Cross-site true pairs are all of case 2 or 5.
		cross = pct(c.Recall())
	}
	fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f%% | %s | %s |", name, t,
		pct(a.Precision()), pct(a.Recall()), pct(a.F1()), groupF1(s, CaseGroup(1)), groupF1(s, CaseGroup(2)),
		cross, groupRecall(s, CaseGroup(5)), 100*s.SameFrameRate(), groupF1(s, GroupShort), groupF1(s, GroupChinese))
}

// Comparison is what WriteMarkdown reports.
type Comparison struct {
	Intro   string
	Results []Result
	// Routed is warcdedup's own output scored, nil if not given.
	Routed *Score
	// Pages is the number of pages of the benchmark, for CPU per page.
	Pages int
	// Stages are the CPU times of the feature extraction stages.
	Stages []Stage
	// Other is a second labelled set (OtherName, e.g. wcxb) that every method
	// also ran on, and OtherRouted warcdedup's output for it: the tables add
	// its reported pairs, true and false, at the threshold each method shows
	// on the benchmark.
	OtherName   string
	Other       []Result
	OtherRouted *Score
	OtherTypes  []string // page types of the other set, for the false pairs by type
	// Seeds are the methods run again on benchmarks of other seeds.
	Seeds []SeedResult
}

// SeedResult is every method run on a benchmark of another seed, and
// warcdedup's output for it scored (nil if not given).
type SeedResult struct {
	Name    string
	Pages   int
	Results []Result
	Routed  *Score
}

// key names a method's result at one threshold, to find it again in another
// set's results.
func (r Result) key() string { return fmt.Sprintf("%s\x00%.6f", r.Method, r.Threshold) }

// Stage is the CPU time of a processing stage over some pages.
type Stage struct {
	Name  string
	Pages int
	CPU   time.Duration
}

// WriteMarkdown writes the comparison: the best threshold of each method, then
// every threshold. routed, if not nil, is warcdedup's own output scored.
func WriteMarkdown(w io.Writer, rs []Result, routed *Score, intro string) error {
	return (&Comparison{Intro: intro, Results: rs, Routed: routed}).WriteMarkdown(w)
}

// WriteMarkdown writes the comparison: each method at its operating point or
// best threshold, the CPU times, the other set's false pairs by page type,
// then every threshold.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, c.Intro)
	other := map[string]*Score{}
	for _, r := range c.Other {
		other[r.key()] = r.Score
	}
	head := func() {
		fmt.Fprint(bw, tableHead)
		if c.Other != nil || c.OtherRouted != nil {
			fmt.Fprintf(bw, " %s pairs reported | %s true | %s false |", c.OtherName, c.OtherName, c.OtherName)
		}
		fmt.Fprint(bw, "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		if c.Other != nil || c.OtherRouted != nil {
			fmt.Fprint(bw, "---:|---:|---:|")
		}
		fmt.Fprintln(bw)
	}
	otherCols := func(s *Score) {
		if c.Other == nil && c.OtherRouted == nil {
			return
		}
		if s == nil {
			fmt.Fprint(bw, " - | - | - |")
			return
		}
		a := all(s)
		fmt.Fprintf(bw, " %d | %d | %d |", a.TP+a.FP, a.TP, a.FP)
	}
	row := func(name, t string, s, o *Score) {
		tableRow(bw, name, t, s)
		otherCols(o)
		fmt.Fprintln(bw)
	}
	bests := best(c.Results)
	fmt.Fprint(bw, "\n## Each method at its operating point or best threshold (by overall F1)\n\n")
	head()
	if c.Routed != nil {
		row("**warcdedup (routed default)**", "defaults", c.Routed, c.OtherRouted)
	}
	for _, r := range bests {
		name := r.Method
		if r.Operating {
			name = "**" + name + "**"
		}
		row(name, fmt.Sprintf("%.3f", r.Threshold), r.Score, other[r.key()])
	}
	for _, sd := range c.Seeds {
		fmt.Fprintf(bw, "\n## The same at %s (%d pages), each method at the threshold above\n\n%s\n", sd.Name, sd.Pages, tableHead)
		fmt.Fprintln(bw, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		if sd.Routed != nil {
			tableRow(bw, "**warcdedup (routed default)**", "defaults", sd.Routed)
			fmt.Fprintln(bw)
		}
		at := map[string]Result{}
		for _, r := range sd.Results {
			at[r.key()] = r
		}
		for _, b := range bests {
			r, ok := at[b.key()]
			if !ok {
				continue
			}
			name := r.Method
			if r.Operating {
				name = "**" + name + "**"
			}
			tableRow(bw, name, fmt.Sprintf("%.3f", r.Threshold), r.Score)
			fmt.Fprintln(bw)
		}
	}
	if len(c.Stages) > 0 || c.Pages > 0 {
		fmt.Fprint(bw, "\n## CPU time\n\n| stage | pages | CPU s | CPU ms per page |\n|---|---:|---:|---:|\n")
		for _, st := range c.Stages {
			fmt.Fprintf(bw, "| %s | %d | %.2f | %.3f |\n", st.Name, st.Pages, st.CPU.Seconds(), perPage(st.CPU, st.Pages))
		}
		for _, r := range bests {
			if !r.Closed {
				fmt.Fprintf(bw, "| pair search: %s | %d | %.2f | %.3f |\n", r.Method, c.Pages, r.CPU.Seconds(), perPage(r.CPU, c.Pages))
			}
		}
	}
	if len(c.OtherTypes) > 0 {
		fmt.Fprintf(bw, "\n## %s: false pairs by page type and site\n\n"+
			"A false pair counts under the page type of each of its two pages.\n\n| method | threshold | same site | cross site |", c.OtherName)
		for _, t := range c.OtherTypes {
			fmt.Fprintf(bw, " %s |", t)
		}
		fmt.Fprint(bw, "\n|---|---:|---:|---:|")
		for range c.OtherTypes {
			fmt.Fprint(bw, "---:|")
		}
		fmt.Fprintln(bw)
		typeRow := func(name, t string, s *Score) {
			if s == nil {
				return
			}
			fp := func(g string) int {
				if x := s.Pairs[g]; x != nil {
					return x.FP
				}
				return 0
			}
			fmt.Fprintf(bw, "| %s | %s | %d | %d |", name, t, fp(GroupSameSite), fp(GroupCrossSite))
			for _, ty := range c.OtherTypes {
				fmt.Fprintf(bw, " %d |", fp(TypeGroup(ty)))
			}
			fmt.Fprintln(bw)
		}
		typeRow("warcdedup (routed default)", "defaults", c.OtherRouted)
		for _, r := range bests {
			typeRow(r.Method, fmt.Sprintf("%.3f", r.Threshold), other[r.key()])
		}
	}
	fmt.Fprint(bw, "\n## Every threshold\n\n")
	head()
	for _, r := range c.Results {
		row(r.Method, fmt.Sprintf("%.3f", r.Threshold), r.Score, other[r.key()])
	}
	return bw.Flush()
}

func perPage(d time.Duration, pages int) float64 {
	if pages == 0 {
		return 0
	}
	return d.Seconds() * 1000 / float64(pages)
}

// WriteSVG plots precision, recall and F1 against the threshold, one panel per
// method, like Figure 5 of the SIGIR 2008 paper.
func WriteSVG(w io.Writer, rs []Result) error {
	var methods []string
	by := map[string][]Result{}
	for _, r := range rs {
		if r.Closed {
			continue
		}
		if by[r.Method] == nil {
			methods = append(methods, r.Method)
		}
		by[r.Method] = append(by[r.Method], r)
	}
	const cols, pw, ph, m = 3, 300, 210, 40
	rows := (len(methods) + cols - 1) / cols
	width, height := cols*pw, rows*ph+30
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	legend := []struct{ name, color string }{{"precision", "#1f77b4"}, {"recall", "#d62728"}, {"F1", "#000000"}}
	for i, l := range legend {
		x := 10 + i*110
		fmt.Fprintf(bw, `<line x1="%d" y1="15" x2="%d" y2="15" stroke="%s" stroke-width="2"/><text x="%d" y="19">%s</text>`+"\n", x, x+25, l.color, x+30, l.name)
	}
	for i, name := range methods {
		ox, oy := (i%cols)*pw, 30+(i/cols)*ph
		x0, y0, x1, y1 := float64(ox+m), float64(oy+ph-30), float64(ox+pw-15), float64(oy+20)
		res := by[name]
		tmin, tmax := res[0].Threshold, res[len(res)-1].Threshold
		if tmax-tmin < 1e-9 {
			tmin, tmax = tmin-0.5, tmax+0.5
		}
		px := func(t float64) float64 { return x0 + (t-tmin)/(tmax-tmin)*(x1-x0) }
		py := func(v float64) float64 { return y0 - v*(y0-y1) }
		fmt.Fprintf(bw, `<text x="%.0f" y="%d" font-weight="bold">%s</text>`+"\n", x0, oy+14, html.EscapeString(name))
		fmt.Fprintf(bw, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", x0, y1, x1-x0, y0-y1)
		for _, v := range []float64{0, 0.5, 1} {
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", x0-4, py(v)+4, v)
			if v > 0 && v < 1 {
				fmt.Fprintf(bw, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, py(v), x1, py(v))
			}
		}
		for _, t := range []float64{tmin, (tmin + tmax) / 2, tmax} {
			fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px(t), y0+14, trimFloat(t))
		}
		fmt.Fprintf(bw, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">threshold</text>`+"\n", (x0+x1)/2, y0+26)
		for _, l := range legend {
			var pts []string
			for _, r := range res {
				a := all(r.Score)
				v := map[string]float64{"precision": a.Precision(), "recall": a.Recall(), "F1": a.F1()}[l.name]
				if len(res) == 1 {
					fmt.Fprintf(bw, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", px(r.Threshold), py(v), l.color)
				}
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(r.Threshold), py(v)))
			}
			if len(pts) == 1 {
				continue
			}
			fmt.Fprintf(bw, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), l.color)
		}
	}
	fmt.Fprint(bw, "</svg>\n")
	return bw.Flush()
}

func trimFloat(x float64) string {
	if math.Abs(x-math.Round(x)) < 1e-9 {
		return fmt.Sprintf("%.0f", x)
	}
	s := fmt.Sprintf("%.3f", x)
	return strings.TrimRight(s, "0")
}
