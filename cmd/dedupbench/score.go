package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/warcdedup/warcdedup/internal/bench"
)

// groupJSON is one group of the score in -json output.
type groupJSON struct {
	Group           string  `json:"group"`
	TP              int     `json:"tp"`
	FP              int     `json:"fp"`
	FN              int     `json:"fn"`
	Precision       float64 `json:"precision"`
	Recall          float64 `json:"recall"`
	F1              float64 `json:"f1"`
	Duplicates      int     `json:"duplicates"`
	Found           int     `json:"strict_found"`
	StrictRecall    float64 `json:"strict_recall"`
	StrictPrecision float64 `json:"strict_precision"`
}

type scoreJSON struct {
	Records           int         `json:"records"`
	Seen              int         `json:"seen"`
	Reported          int         `json:"reported"`
	Unmapped          int         `json:"unmapped"`
	Groups            []groupJSON `json:"groups"`
	SameFramePairs    int         `json:"same_frame_pairs"`
	SameFrameReported int         `json:"same_frame_reported"`
	SameFrameRate     float64     `json:"same_frame_rate"`
}

func toJSON(s *bench.Score) scoreJSON {
	out := scoreJSON{Records: s.Records, Seen: s.Seen, Reported: s.Reported, Unmapped: s.Unmapped,
		SameFramePairs: s.SameFrame.Pairs, SameFrameReported: s.SameFrame.Reported, SameFrameRate: s.SameFrameRate()}
	for _, g := range bench.GroupOrder {
		c, st := s.Pairs[g], s.Strict[g]
		if c == nil && st == nil {
			continue
		}
		if c == nil {
			c = &bench.Counts{}
		}
		if st == nil {
			st = &bench.Strict{}
		}
		out.Groups = append(out.Groups, groupJSON{g, c.TP, c.FP, c.FN, c.Precision(), c.Recall(), c.F1(),
			st.Duplicates, st.Found, st.Recall(), st.Precision()})
	}
	return out
}

func score(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench score", flag.ContinueOnError)
	fl.SetOutput(stderr)
	labels := fl.String("labels", "", "the labels.jsonl written by dedupbench gen (required)")
	asJSON := fl.Bool("json", false, "write the score as JSON")
	examples := fl.Int("examples", 0, "also list up to this many false-positive and missed pairs")
	replaced := fl.Bool("replaced", false, "score only pages replaced by revisits, not pages kept and annotated (precision of replaced pages)")
	contains := fl.Bool("containments", false, "also count pages kept whole and annotated as holding a kept page's text, or held in one (--near=annotate), as duplicates found")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dedupbench score -labels FILE [-json] OUT.warc.gz...")
		fmt.Fprintln(stderr, "OUT are warcdedup's output WARCs, in the order of the input files.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *labels == "" || fl.NArg() == 0 {
		fl.Usage()
		return 2
	}
	ls, err := bench.ReadLabels(*labels)
	if err != nil {
		fmt.Fprintf(stderr, "dedupbench score: %v\n", err)
		return 1
	}
	d, err := bench.ReadDecisions(fl.Args(), ls)
	if err != nil {
		fmt.Fprintf(stderr, "dedupbench score: %v\n", err)
		return 1
	}
	if *contains {
		d = d.WithContainments()
	}
	if *replaced {
		d = d.Replaced()
	}
	s := bench.Evaluate(ls, d)
	if *asJSON {
		b, _ := json.MarshalIndent(toJSON(s), "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else if err := s.WriteText(stdout); err != nil {
		return 1
	}
	pair := func(kind string, p [2]int) {
		a, b := ls[p[0]], ls[p[1]]
		fmt.Fprintf(stdout, "%s\t%s\tcase %d %s %s %s\t%s\tcase %d %s %s %s\n", kind,
			a.Cluster, a.Case, a.Variant, a.Source, a.URI, b.Cluster, b.Case, b.Variant, b.Source, b.URI)
	}
	for i := 0; i < *examples && i < len(s.FalsePairs); i++ {
		pair("false", s.FalsePairs[i])
	}
	for i := 0; i < *examples && i < len(s.MissedPairs); i++ {
		pair("missed", s.MissedPairs[i])
	}
	if s.Seen < s.Records {
		fmt.Fprintf(stderr, "dedupbench score: warning: %d of %d labeled records not found in the output\n", s.Records-s.Seen, s.Records)
	}
	return 0
}
