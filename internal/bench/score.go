package bench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/warcdedup/warcdedup/warcio"
)

// FieldOriginalID is an extension field a revisit may carry with the
// WARC-Record-ID of the response it replaces. Without it the scorer finds the
// response by WARC-Target-URI and WARC-Date, which a revisit keeps, and last
// by the record's position in its file.
const FieldOriginalID = "WARC-Dedup-Original-Record-ID"

// Decisions maps each labeled record reported as a duplicate to the record it
// was found to duplicate (both by their WARC-Record-IDs in the labels).
type Decisions struct {
	RefersTo map[string]string
	// Annotated holds the records in RefersTo that were kept and annotated
	// (a metadata record) rather than replaced by a revisit: a duplicate
	// found, but no page thrown away.
	Annotated map[string]bool
	// Contains maps the records kept whole and annotated as holding a kept
	// record's text, or as held in one (a containment), to that record. They
	// are not in RefersTo: a page that keeps text of its own is not a
	// duplicate of the other until WithContainments says so.
	Contains  map[string]string
	Seen      int // labeled records found in the output
	Unlabeled int // output records that are no labeled record (warcinfo, others)
	Unmapped  int // revisits or annotations whose record or target is not labeled
}

// labelIndex finds labels by record ID, by target URI and date, and by file
// and position.
type labelIndex struct {
	byID, byURIDate, byPos map[string]int
}

func newLabelIndex(ls []Label) *labelIndex {
	ix := &labelIndex{byID: map[string]int{}, byURIDate: map[string]int{}, byPos: map[string]int{}}
	for i, l := range ls {
		ix.byID[l.RecordID] = i
		ix.byURIDate[l.URI+"\x00"+l.Date] = i
		if l.File != "" {
			ix.byPos[fmt.Sprintf("%s\x00%d", l.File, l.Index)] = i
		}
	}
	return ix
}

// original returns the label of the response an output record stands for.
func (ix *labelIndex) original(h *warcio.Header, file string, pos int) (int, bool) {
	if i, ok := ix.byID[h.Get("WARC-Record-ID")]; ok {
		return i, true
	}
	if i, ok := ix.byID[h.Get(FieldOriginalID)]; ok {
		return i, true
	}
	uri := strings.Trim(h.Get("WARC-Target-URI"), "<>")
	if i, ok := ix.byURIDate[uri+"\x00"+h.Get("WARC-Date")]; ok {
		return i, true
	}
	i, ok := ix.byPos[fmt.Sprintf("%s\x00%d", file, pos)]
	return i, ok
}

// ReadDecisions reads warcdedup's output WARCs: every revisit record (exact or
// near duplicate) says that the response it replaces duplicates the record
// named in its WARC-Refers-To; every metadata record of --near=annotate says
// so of the record in its WARC-Refers-To with its near-duplicate-of line.
func ReadDecisions(files []string, ls []Label) (*Decisions, error) {
	ix := newLabelIndex(ls)
	d := &Decisions{RefersTo: map[string]string{}, Annotated: map[string]bool{}, Contains: map[string]string{}}
	for _, name := range files {
		if err := d.readFile(name, ls, ix); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func (d *Decisions) readFile(name string, ls []Label, ix *labelIndex) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	r := warcio.NewReader(bufio.NewReaderSize(f, 1<<20), name)
	base := filepath.Base(name)
	for pos := 0; ; pos++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		h := &rec.Header
		switch strings.ToLower(rec.Type()) {
		case "response":
			if _, ok := ix.original(h, base, pos); ok {
				d.Seen++
			} else {
				d.Unlabeled++
			}
		case "revisit":
			i, ok := ix.original(h, base, pos)
			if !ok {
				d.Unlabeled++
				continue
			}
			d.Seen++
			if !d.add(ls[i].RecordID, h.Get("WARC-Refers-To"), ix) {
				d.Unmapped++
			}
		case "metadata":
			dup := h.Get("WARC-Refers-To")
			if _, ok := ix.byID[dup]; !ok {
				d.Unlabeled++
				continue
			}
			b, err := io.ReadAll(io.LimitReader(r, 64<<10))
			if err != nil {
				return err
			}
			kept, holds := "", ""
			for _, line := range strings.Split(string(b), "\n") {
				k, v, ok := strings.Cut(line, ":")
				if !ok {
					continue
				}
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "near-duplicate-of":
					kept = strings.TrimSpace(v)
				case "contains-text-of", "text-contained-in":
					holds = strings.TrimSpace(v)
				}
			}
			switch {
			case kept == "" && holds != "":
				if _, ok := ix.byID[holds]; ok {
					d.Contains[dup] = holds
				} else {
					d.Unmapped++
				}
			case kept == "":
				d.Unlabeled++
			case !d.add(dup, kept, ix):
				d.Unmapped++
			default:
				d.Annotated[dup] = true
			}
		default:
			d.Unlabeled++
		}
	}
}

// Replaced returns the decisions that replaced a page by a revisit, without
// the pages kept and annotated: what precision of replaced pages is measured
// on, since only a replacement throws a page's own payload away.
func (d *Decisions) Replaced() *Decisions {
	r := *d
	r.RefersTo = make(map[string]string, len(d.RefersTo))
	for dup, kept := range d.RefersTo {
		if !d.Annotated[dup] {
			r.RefersTo[dup] = kept
		}
	}
	r.Annotated = map[string]bool{}
	return &r
}

// WithContainments returns the decisions with the containments added as
// duplicates found and kept whole: what recall of pairs found, replaced or
// not, is measured on.
func (d *Decisions) WithContainments() *Decisions {
	r := *d
	r.RefersTo = make(map[string]string, len(d.RefersTo)+len(d.Contains))
	r.Annotated = make(map[string]bool, len(d.Annotated)+len(d.Contains))
	for dup, kept := range d.Contains {
		r.RefersTo[dup] = kept
		r.Annotated[dup] = true
	}
	for dup, kept := range d.RefersTo {
		r.RefersTo[dup] = kept
		r.Annotated[dup] = d.Annotated[dup]
	}
	return &r
}

func (d *Decisions) add(dup, kept string, ix *labelIndex) bool {
	if _, ok := ix.byID[kept]; !ok {
		return false
	}
	d.RefersTo[dup] = kept
	return true
}

// Counts are pair counts: true positives, false positives, false negatives.
type Counts struct {
	TP, FP, FN int
}

// Precision is TP/(TP+FP), 1 when nothing was predicted.
func (c Counts) Precision() float64 {
	if c.TP+c.FP == 0 {
		return 1
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall is TP/(TP+FN), 1 when there was nothing to find.
func (c Counts) Recall() float64 {
	if c.TP+c.FN == 0 {
		return 1
	}
	return float64(c.TP) / float64(c.TP+c.FN)
}

// F1 is the harmonic mean of precision and recall.
func (c Counts) F1() float64 {
	p, r := c.Precision(), c.Recall()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// Strict counts the Stanford report's strict measure: a duplicate record is
// found only if the record it refers to is in its own cluster. A cluster of n
// records has n-1 duplicates, whichever of them a method keeps.
type Strict struct {
	Found      int // reported records that refer into their own cluster
	Duplicates int // records that are not the first of their cluster
	Reported   int // records reported as duplicates
}

// Recall is Found/Duplicates.
func (s Strict) Recall() float64 {
	if s.Duplicates == 0 {
		return 1
	}
	return float64(s.Found) / float64(s.Duplicates)
}

// Precision is Found/Reported: reported duplicates that refer into their own
// cluster.
func (s Strict) Precision() float64 {
	if s.Reported == 0 {
		return 1
	}
	return float64(s.Found) / float64(s.Reported)
}

// Groups of the breakdown. A pair belongs to the group of each of its two
// records' cases, to "short" when either record's story is short, to "zh"
// when either is Chinese (case 4), and to its site relation.
const (
	GroupAll       = "all"
	GroupShort     = "short"
	GroupChinese   = "zh"
	GroupSameSite  = "same-site"
	GroupCrossSite = "cross-site"
)

// CaseGroup names the group of case n.
func CaseGroup(n int) string { return fmt.Sprintf("case%d", n) }

// Score is the evaluation of one run against the labels.
type Score struct {
	Records  int // labeled records
	Seen     int // of them found in the output
	Reported int // reported as duplicates
	Unmapped int
	Pairs    map[string]*Counts // by group
	Strict   map[string]*Strict // by group
	// FalsePairs are the first MaxExamples false-positive pairs, MissedPairs
	// the first false negatives (indices into the labels), for inspection.
	FalsePairs, MissedPairs [][2]int
	SameFrame               struct {
		// Pairs of records of one site in different clusters (case 3: same frame,
		// different story), and how many of them were reported as duplicates.
		Pairs, Reported int
	}
}

// Rate is the fraction of same-site non-duplicate pairs reported.
func (s *Score) SameFrameRate() float64 {
	if s.SameFrame.Pairs == 0 {
		return 0
	}
	return float64(s.SameFrame.Reported) / float64(s.SameFrame.Pairs)
}

// MaxExamples bounds Score.FalsePairs and Score.MissedPairs.
const MaxExamples = 1000

// Evaluate scores decisions against labels. The predicted duplicate pairs are
// all pairs of records joined by a chain of refers-to links (the clusters
// the run found); the true pairs are all pairs of records of one label
// cluster. The order of ls is the crawl order: the first record of a cluster
// is its original, the others its duplicates.
func Evaluate(ls []Label, d *Decisions) *Score {
	s := &Score{Records: len(ls), Seen: d.Seen, Unmapped: d.Unmapped,
		Pairs: map[string]*Counts{}, Strict: map[string]*Strict{}}
	idx := map[string]int{}
	for i, l := range ls {
		idx[l.RecordID] = i
	}
	// Predicted components.
	u := newUnionFind(len(ls))
	find := u.find
	dups := make([]string, 0, len(d.RefersTo))
	for dup := range d.RefersTo {
		dups = append(dups, dup)
	}
	sort.Strings(dups)
	for _, dup := range dups {
		a, ok1 := idx[dup]
		b, ok2 := idx[d.RefersTo[dup]]
		if !ok1 || !ok2 {
			continue
		}
		s.Reported++
		u.union(a, b)
	}
	comp := map[int][]int{}
	clus := map[string][]int{}
	for i, l := range ls {
		r := find(i)
		comp[r] = append(comp[r], i)
		clus[l.Cluster] = append(clus[l.Cluster], i)
	}
	groups := func(a, b int) []string { return pairGroups(ls, a, b) }
	counts := func(g string) *Counts {
		c := s.Pairs[g]
		if c == nil {
			c = &Counts{}
			s.Pairs[g] = c
		}
		return c
	}
	roots := make([]int, 0, len(comp))
	for r := range comp {
		roots = append(roots, r)
	}
	sort.Ints(roots)
	for _, r := range roots {
		members := comp[r]
		for x := 0; x < len(members); x++ {
			for y := x + 1; y < len(members); y++ {
				a, b := members[x], members[y]
				same := ls[a].Cluster == ls[b].Cluster
				if !same && len(s.FalsePairs) < MaxExamples {
					s.FalsePairs = append(s.FalsePairs, [2]int{a, b})
				}
				for _, g := range groups(a, b) {
					if same {
						counts(g).TP++
					} else {
						counts(g).FP++
					}
				}
				if !same && ls[a].Site == ls[b].Site {
					s.SameFrame.Reported++
				}
			}
		}
	}
	sameSiteSame := 0
	names := make([]string, 0, len(clus))
	for c := range clus {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		members := clus[c]
		for x := 0; x < len(members); x++ {
			for y := x + 1; y < len(members); y++ {
				a, b := members[x], members[y]
				if ls[a].Site == ls[b].Site {
					sameSiteSame++
				}
				if find(a) != find(b) {
					if len(s.MissedPairs) < MaxExamples {
						s.MissedPairs = append(s.MissedPairs, [2]int{a, b})
					}
					for _, g := range groups(a, b) {
						counts(g).FN++
					}
				}
			}
		}
	}
	bySite := map[string]int{}
	for _, l := range ls {
		bySite[l.Site]++
	}
	for _, n := range bySite {
		s.SameFrame.Pairs += n * (n - 1) / 2
	}
	s.SameFrame.Pairs -= sameSiteSame
	// Strict measure, record by record.
	strict := func(g string) *Strict {
		c := s.Strict[g]
		if c == nil {
			c = &Strict{}
			s.Strict[g] = c
		}
		return c
	}
	first := map[string]int{}
	for i, l := range ls {
		if _, ok := first[l.Cluster]; !ok {
			first[l.Cluster] = i
		}
	}
	for i, l := range ls {
		f := first[l.Cluster]
		g := []string{GroupAll, CaseGroup(l.Case)}
		if l.Short {
			g = append(g, GroupShort)
		}
		if l.Lang == "zh" {
			g = append(g, GroupChinese)
		}
		if ls[f].Site == l.Site {
			g = append(g, GroupSameSite)
		} else {
			g = append(g, GroupCrossSite)
		}
		kept, reported := d.RefersTo[l.RecordID]
		k, known := idx[kept]
		reported = reported && known
		for _, name := range g {
			st := strict(name)
			if f != i {
				st.Duplicates++
			}
			if reported {
				st.Reported++
				if ls[k].Cluster == l.Cluster {
					st.Found++
				}
			}
		}
	}
	return s
}

// GroupOrder is the order of the groups in reports.
var GroupOrder = []string{GroupAll, CaseGroup(0), CaseGroup(1), CaseGroup(2), CaseGroup(3), CaseGroup(5),
	GroupShort, GroupChinese, GroupSameSite, GroupCrossSite}

// WriteText writes the score as a table.
func (s *Score) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "records %d (in output %d), reported duplicates %d, unmapped %d\n",
		s.Records, s.Seen, s.Reported, s.Unmapped)
	fmt.Fprintf(bw, "%-11s %8s %8s %8s %9s %7s %7s  %8s %8s %8s %8s\n",
		"group", "TP", "FP", "FN", "precision", "recall", "F1", "dups", "found", "s-recall", "s-prec")
	for _, g := range GroupOrder {
		c := s.Pairs[g]
		st := s.Strict[g]
		if c == nil && st == nil {
			continue
		}
		if c == nil {
			c = &Counts{}
		}
		if st == nil {
			st = &Strict{}
		}
		fmt.Fprintf(bw, "%-11s %8d %8d %8d %9.4f %7.4f %7.4f  %8d %8d %8.4f %8.4f\n",
			g, c.TP, c.FP, c.FN, c.Precision(), c.Recall(), c.F1(), st.Duplicates, st.Found, st.Recall(), st.Precision())
	}
	fmt.Fprintf(bw, "same frame, different story (same-site pairs of different clusters): %d of %d reported (%.4f%%)\n",
		s.SameFrame.Reported, s.SameFrame.Pairs, 100*s.SameFrameRate())
	for _, t := range s.Targets() {
		fmt.Fprintln(bw, t)
	}
	return bw.Flush()
}

// Targets checks the score against the benchmark's targets for the default
// configuration, one line each: "met" or "missed by" how much.
func (s *Score) Targets() []string {
	get := func(g string) Counts {
		if c := s.Pairs[g]; c != nil {
			return *c
		}
		return Counts{}
	}
	var out []string
	check := func(what string, got, want float64, atMost bool) {
		ok := got >= want
		if atMost {
			ok = got <= want
		}
		verdict := "met"
		if !ok {
			verdict = fmt.Sprintf("MISSED by %.4f", math.Abs(got-want))
		}
		op := ">="
		if atMost {
			op = "<="
		}
		out = append(out, fmt.Sprintf("target %-42s %s %.4f: %.4f %s", what, op, want, got, verdict))
	}
	check("same frame, different story reported", s.SameFrameRate(), 0.01, true)
	check("overall F1", get(GroupAll).F1(), 0.95, false)
	check("short pages F1", get(GroupShort).F1(), 0.90, false)
	check("Chinese pages F1", get(GroupChinese).F1(), 0.90, false)
	check("cross-site recall", get(GroupCrossSite).Recall(), 0.90, false)
	check("cross-site precision", get(GroupCrossSite).Precision(), 0.97, false)
	return out
}
