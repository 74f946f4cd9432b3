package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/warcdedup/warcdedup/features"
	"github.com/warcdedup/warcdedup/internal/bench"
	"github.com/warcdedup/warcdedup/matcher"
)

func compare(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench compare", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("bench", "", "the folder written by dedupbench gen (required)")
	md := fl.String("md", "", "write the comparison as Markdown to this file (default: standard output)")
	svg := fl.String("svg", "", "write the precision/recall/F1 plot as SVG to this file")
	routed := fl.String("routed", "", "a folder of warcdedup's output for the benchmark WARCs, scored as the routed default")
	only := fl.String("methods", "", "comma-separated method names to run (default: all)")
	anchor := fl.Bool("anchor", false, "add the anchor: datatrove/FineWeb's trafilatura main text, word 5-shingles, MinHash-LSH at Jaccard 0.5")
	wcxb := fl.String("wcxb", "", "a folder written by dedupbench wcxb: run every method there too and report its pairs, true and false")
	wcxbRouted := fl.String("wcxb-routed", "", "a folder of warcdedup's output for the -wcxb WARCs, scored as the routed default")
	bench2 := fl.String("bench2", "", "a benchmark of another seed (dedupbench gen -seed N): every method again there, at the threshold it shows on -bench")
	routed2 := fl.String("routed2", "", "a folder of warcdedup's output for the -bench2 WARCs, scored as the routed default")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dedupbench compare -bench DIR [-md FILE] [-svg FILE] [-routed OUTDIR] [-methods LIST] [-anchor] [-wcxb DIR [-wcxb-routed OUTDIR]] [-bench2 DIR [-routed2 OUTDIR]]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || fl.NArg() != 0 || *wcxbRouted != "" && *wcxb == "" || *routed2 != "" && *bench2 == "" {
		fl.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "dedupbench compare: %v\n", err)
		return 1
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[strings.ToLower(n)] = true
		}
	}
	ls, err := bench.ReadLabels(filepath.Join(*dir, "labels.jsonl"))
	if err != nil {
		return fail(err)
	}
	methods, stages, err := loadMethods(*dir, ls, want, *anchor, "", stderr)
	if err != nil {
		return fail(err)
	}
	cmp := &bench.Comparison{Pages: len(ls), Stages: stages}
	for _, m := range methods {
		t := time.Now()
		rs, err := bench.Compare(ls, nil, []bench.Method{m})
		if err != nil {
			return fail(err)
		}
		cmp.Results = append(cmp.Results, rs...)
		fmt.Fprintf(stderr, "%s: %s\n", m.Name(), time.Since(t).Round(time.Millisecond))
	}
	if *routed != "" {
		if cmp.Routed, err = scoreOutput(*routed, ls); err != nil {
			return fail(err)
		}
	}
	if *wcxb != "" {
		wls, err := bench.ReadLabels(filepath.Join(*wcxb, "labels.jsonl"))
		if err != nil {
			return fail(err)
		}
		wm, wst, err := loadMethods(*wcxb, wls, want, *anchor, "wcxb: ", stderr)
		if err != nil {
			return fail(err)
		}
		cmp.Stages = append(cmp.Stages, wst...)
		if cmp.Other, err = bench.Compare(wls, nil, wm); err != nil {
			return fail(err)
		}
		cmp.OtherName, cmp.OtherTypes = "wcxb", bench.PageTypes(wls)
		if *wcxbRouted != "" {
			if cmp.OtherRouted, err = scoreOutput(*wcxbRouted, wls); err != nil {
				return fail(err)
			}
		}
	}
	seed2 := 0
	if *bench2 != "" {
		sls, err := bench.ReadLabels(filepath.Join(*bench2, "labels.jsonl"))
		if err != nil {
			return fail(err)
		}
		if seed2, err = benchSeed(*bench2); err != nil {
			return fail(err)
		}
		prefix := fmt.Sprintf("seed %d: ", seed2)
		sm, sst, err := loadMethods(*bench2, sls, want, *anchor, prefix, stderr)
		if err != nil {
			return fail(err)
		}
		cmp.Stages = append(cmp.Stages, sst...)
		sr := bench.SeedResult{Name: fmt.Sprintf("seed %d", seed2), Pages: len(sls)}
		if sr.Results, err = bench.Compare(sls, nil, sm); err != nil {
			return fail(err)
		}
		if *routed2 != "" {
			if sr.Routed, err = scoreOutput(*routed2, sls); err != nil {
				return fail(err)
			}
		}
		cmp.Seeds = append(cmp.Seeds, sr)
	}
	cmp.Intro = compareIntro(len(ls), *anchor, *wcxb != "", seed2)
	var buf bytes.Buffer
	if err := cmp.WriteMarkdown(&buf); err != nil {
		return fail(err)
	}
	if *md == "" {
		stdout.Write(buf.Bytes())
	} else if err := os.WriteFile(*md, buf.Bytes(), 0o644); err != nil {
		return fail(err)
	}
	if *svg != "" {
		var sb bytes.Buffer
		if err := bench.WriteSVG(&sb, cmp.Results); err != nil {
			return fail(err)
		}
		if err := os.WriteFile(*svg, sb.Bytes(), 0o644); err != nil {
			return fail(err)
		}
	}
	return 0
}

// loadMethods extracts the features the wanted methods need from the
// labelled folder dir and returns the methods over them (bench.Methods, with
// SpotSigs over the main text second; the anchor's after them if asked for
// or named), and the CPU time of each extraction stage, named with prefix.
func loadMethods(dir string, ls []bench.Label, want map[string]bool, anchor bool, prefix string, stderr io.Writer) ([]bench.Method, []bench.Stage, error) {
	wanted := func(name string) bool { return len(want) == 0 || want[strings.ToLower(name)] }
	var stages []bench.Stage
	start := time.Now()
	docs, cpu, err := bench.LoadDocsTimed(dir, ls, bench.CompareConfig())
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "%sfeatures of %d pages in %s\n", prefix, len(docs), time.Since(start).Round(time.Millisecond))
	stages = append(stages, bench.Stage{Name: prefix + "features of every family (bench.CompareConfig)", Pages: len(ls), CPU: cpu})
	all := bench.Methods()
	if mt := (bench.MainTextSpotSigs{}); wanted(mt.Name()) {
		mdocs, cpu, err := bench.LoadDocsTimed(dir, ls, bench.MainTextConfig())
		if err != nil {
			return nil, nil, err
		}
		stages = append(stages, bench.Stage{Name: prefix + "warcdedup's analysis: main text, spot signatures (bench.MainTextConfig)", Pages: len(ls), CPU: cpu})
		mt.Bags = make([]features.Bag, len(mdocs))
		for i := range mdocs {
			if mdocs[i].SpotComparable && mdocs[i].MainText {
				mt.Bags[i] = mdocs[i].Spots
			}
		}
		all = append(all[:1:1], append([]bench.Method{mt}, all[1:]...)...)
	}
	var methods []bench.Method
	for _, m := range all {
		if wanted(m.Name()) {
			methods = append(methods, bindDocs{m, docs})
		}
	}
	named := false
	for _, m := range bench.AnchorMethods(nil) {
		named = named || len(want) > 0 && want[strings.ToLower(m.Name())]
	}
	if anchor || named {
		start := time.Now()
		a, err := bench.LoadAnchor(dir, ls)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(stderr, "%smain text of %d pages in %s (%d without text, %d with fewer than %d words)\n", prefix, len(ls),
			time.Since(start).Round(time.Millisecond), a.Failed, a.Unsigned, bench.ShingleWords)
		stages = append(stages, bench.Stage{Name: prefix + "anchor: main text by trafilatura", Pages: len(ls), CPU: a.ExtractCPU},
			bench.Stage{Name: prefix + "anchor: normalized words, 5-shingles", Pages: len(ls), CPU: a.ShingleCPU})
		for _, m := range bench.AnchorMethods(a.Sets) {
			if anchor && len(want) == 0 || wanted(m.Name()) {
				methods = append(methods, m)
			}
		}
	}
	return methods, stages, nil
}

// bindDocs is a method with its pages' features, so that methods over
// different extractions run through one bench.Compare call.
type bindDocs struct {
	bench.Method
	docs []features.Doc
}

func (b bindDocs) Pairs(_ []features.Doc, min float64) ([]matcher.Pair, error) {
	return b.Method.Pairs(b.docs, min)
}

// scoreOutput scores warcdedup's output folder for the labelled WARCs.
func scoreOutput(dir string, ls []bench.Label) (*bench.Score, error) {
	var outs []string
	for _, name := range uniqueFiles(ls) {
		outs = append(outs, filepath.Join(dir, name))
	}
	d, err := bench.ReadDecisions(outs, ls)
	if err != nil {
		return nil, err
	}
	return bench.Evaluate(ls, d), nil
}

// benchSeed is the seed a dedupbench gen folder was made with (its
// summary.json).
func benchSeed(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return 0, err
	}
	var sum struct {
		Seed *int `json:"seed"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.Seed == nil {
		return 0, fmt.Errorf("%s: no seed in summary.json", dir)
	}
	return *sum.Seed, nil
}

func compareIntro(records int, anchor, wcxb bool, seed2 int) string {
	cmd := "go run ./cmd/dedupbench compare -bench /tmp/bench -routed /tmp/bench-out"
	pre := "go run ./cmd/dedupbench gen -out /tmp/bench\ngo run ./cmd/warcdedup /tmp/bench/*.warc.gz /tmp/bench-out/\n"
	if anchor {
		cmd += " -anchor"
	}
	if wcxb {
		pre += "go run ./cmd/dedupbench wcxb -out /tmp/wcxb\ngo run ./cmd/warcdedup /tmp/wcxb/*.warc.gz /tmp/wcxb-out/\n"
		cmd += " -wcxb /tmp/wcxb -wcxb-routed /tmp/wcxb-out"
	}
	if seed2 != 0 {
		pre += fmt.Sprintf("go run ./cmd/dedupbench gen -seed %d -out /tmp/bench2\ngo run ./cmd/warcdedup /tmp/bench2/*.warc.gz /tmp/bench2-out/\n", seed2)
		cmd += " -bench2 /tmp/bench2 -routed2 /tmp/bench2-out"
	}
	cmd += " -md docs/quality.md -svg docs/quality.svg"
	s := fmt.Sprintf("# Near-duplicate quality: methods compared on the dedupbench benchmark\n\n"+
		"%d labeled responses from `dedupbench gen` (internal/bench/README.md). Regenerate with:\n\n"+
		"```sh\n%s%s\n```\n\n"+
		"Each method's predicted pairs at a threshold are the pairs at or above it, taken as they are (no transitive closure), "+
		"over all pairs of pages, as Figure 5 of the SIGIR 2008 paper measures; the routed default row is warcdedup's own output, "+
		"whose clusters are closed through its refers-to chains (dedupbench score). Columns: pairwise precision, recall and F1 over all "+
		"pairs; F1 of the pairs touching case-1 and case-2 records; recall of the cross-site duplicate pairs (cases 2 and 5); "+
		"recall of the real pairs (case 5); the share of same-site pairs of different clusters reported (same frame, different story; "+
		"target at most 1%%); F1 of pairs touching short pages and Chinese pages (case 4).\n", records, pre, cmd)
	if anchor {
		s += "\nThe anchor (bold: its recipe's threshold, not tuned here) is datatrove's near-duplicate pipeline as FineWeb runs it: " +
			"main text by trafilatura (go-trafilatura; precision focus, no comments, fallback extractors on), word 5-shingles of the " +
			"normalized text (lowercase, no accents, punctuation and symbols, Han and kana characters as words), MinHash-LSH with " +
			"112 values, candidates verified by the exact Jaccard similarity of the shingle sets at 0.5: 28 bands x 4 rows " +
			"(chosen for 0.5), datatrove's 14 x 8, and 14 x 8 as datatrove applies it (every candidate a duplicate). " +
			"\"closed\" rows close the pairs transitively, as a deduplicator keeping one page of each cluster applies them " +
			"(comparable to the routed default's row).\n"
	}
	if wcxb {
		s += "\nThe wcxb columns run every method, at the threshold shown, over the corpus's 1,138 modern non-news pages " +
			"(`dedupbench wcxb`), whose only duplicates are pages whose gold texts have a resemblance of at least 0.8 " +
			"(one pair): every other pair reported is two different pages merged.\n"
	}
	if seed2 != 0 {
		s += fmt.Sprintf("\nThe benchmark of seed %d (`dedupbench gen -seed %d`: the same corpus, other pages drawn for each case, "+
			"other copies, frames and re-captures) runs every method again at the threshold it shows on the first: thresholds "+
			"chosen on one seed, measured on another.\n", seed2, seed2)
	}
	return s + "\n![precision, recall and F1 against the threshold](quality.svg)\n"
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
