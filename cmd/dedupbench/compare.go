package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"warcdedup/features"
	"warcdedup/internal/bench"
)

func compare(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench compare", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("bench", "", "the folder written by dedupbench gen (required)")
	md := fl.String("md", "", "write the comparison as Markdown to this file (default: standard output)")
	svg := fl.String("svg", "", "write the precision/recall/F1 plot as SVG to this file")
	routed := fl.String("routed", "", "a folder of warcdedup's output for the benchmark WARCs, scored as the routed default")
	only := fl.String("methods", "", "comma-separated method names to run (default: all)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dedupbench compare -bench DIR [-md FILE] [-svg FILE] [-routed OUTDIR] [-methods LIST]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || fl.NArg() != 0 {
		fl.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "dedupbench compare: %v\n", err)
		return 1
	}
	ls, err := bench.ReadLabels(filepath.Join(*dir, "labels.jsonl"))
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	docs, err := bench.LoadDocs(*dir, ls, bench.CompareConfig())
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "features of %d pages in %s\n", len(docs), time.Since(start).Round(time.Millisecond))
	var methods []bench.Method
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[strings.ToLower(n)] = true
		}
	}
	all := bench.Methods()
	if mt := (bench.MainTextSpotSigs{}); len(want) == 0 || want[strings.ToLower(mt.Name())] {
		mdocs, err := bench.LoadDocs(*dir, ls, bench.MainTextConfig())
		if err != nil {
			return fail(err)
		}
		mt.Bags = make([]features.Bag, len(mdocs))
		for i := range mdocs {
			if mdocs[i].SpotComparable && mdocs[i].MainText {
				mt.Bags[i] = mdocs[i].Spots
			}
		}
		all = append(all[:1:1], append([]bench.Method{mt}, all[1:]...)...)
	}
	for _, m := range all {
		if len(want) == 0 || want[strings.ToLower(m.Name())] {
			methods = append(methods, m)
		}
	}
	var results []bench.Result
	for _, m := range methods {
		t := time.Now()
		rs, err := bench.Compare(ls, docs, []bench.Method{m})
		if err != nil {
			return fail(err)
		}
		results = append(results, rs...)
		fmt.Fprintf(stderr, "%s: %s\n", m.Name(), time.Since(t).Round(time.Millisecond))
	}
	var routedScore *bench.Score
	if *routed != "" {
		var outs []string
		for _, name := range uniqueFiles(ls) {
			outs = append(outs, filepath.Join(*routed, name))
		}
		d, err := bench.ReadDecisions(outs, ls)
		if err != nil {
			return fail(err)
		}
		routedScore = bench.Evaluate(ls, d)
	}
	intro := fmt.Sprintf("# Near-duplicate quality: methods compared on the issue-4 benchmark\n\n"+
		"%d labeled responses from `dedupbench gen` (internal/bench/README.md). Regenerate with:\n\n"+
		"```sh\ngo run ./cmd/dedupbench gen -out /tmp/bench\n"+
		"go run ./cmd/warcdedup /tmp/bench/*.warc.gz /tmp/bench-out/\n"+
		"go run ./cmd/dedupbench compare -bench /tmp/bench -routed /tmp/bench-out -md docs/quality.md -svg docs/quality.svg\n```\n\n"+
		"Each method's predicted pairs at a threshold are the pairs at or above it, taken as they are (no transitive closure), "+
		"over all pairs of pages, as Figure 5 of the SIGIR 2008 paper measures; the routed default row is warcdedup's own output, "+
		"whose clusters are closed through its refers-to chains (dedupbench score). Columns: pairwise precision, recall and F1 over all "+
		"pairs; F1 of the pairs touching case-1 and case-2 records; recall of the cross-site duplicate pairs (cases 2 and 5); "+
		"recall of the real pairs (case 5); the share of same-site pairs of different clusters reported (same frame, different story; "+
		"target at most 1%%); F1 of pairs touching short pages and Chinese pages (case 4).\n\n![precision, recall and F1 against the threshold](quality.svg)\n",
		len(ls))
	var buf bytes.Buffer
	if err := bench.WriteMarkdown(&buf, results, routedScore, intro); err != nil {
		return fail(err)
	}
	if *md == "" {
		stdout.Write(buf.Bytes())
	} else if err := os.WriteFile(*md, buf.Bytes(), 0o644); err != nil {
		return fail(err)
	}
	if *svg != "" {
		var sb bytes.Buffer
		if err := bench.WriteSVG(&sb, results); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(*svg, sb.Bytes(), 0o644); err != nil {
			return fail(err)
		}
	}
	return 0
}

func uniqueFiles(ls []bench.Label) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range ls {
		if !seen[l.File] {
			seen[l.File] = true
			out = append(out, l.File)
		}
	}
	return out
}
