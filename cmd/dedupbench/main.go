// Command dedupbench builds warcdedup's near-duplicate quality benchmark
// from the shared corpus (with -scale, a large one for speed and memory) and scores
// warcdedup's output against its labels.
//
//	dedupbench gen   [-corpus DIR] [-out DIR] [-seed N] [-files N] [-recaptured N] [-syndicated N] [-scale N]
//	dedupbench score -labels FILE [-json] [-examples N] OUT.warc.gz...
//	dedupbench run -bench DIR [-warcdedup BIN] [-out DIR] [-- warcdedup flags...]
//	dedupbench compare -bench DIR [-md FILE] [-svg FILE] [-routed OUTDIR] [-methods LIST] [-anchor] [-wcxb DIR [-wcxb-routed OUTDIR]] [-bench2 DIR [-routed2 OUTDIR]]
//	dedupbench wcxb  [-corpus DIR] [-out DIR]
//	dedupbench records [-n N] [-out FILE]
//
// See internal/bench/README.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/warcdedup/warcdedup/internal/bench"
)

const usage = `dedupbench: the near-duplicate quality benchmark of warcdedup.

Usage:
  dedupbench gen   [flags]                     build labeled WARCs from the shared corpus
  dedupbench score -labels FILE [flags] OUT... score warcdedup's output WARCs against the labels
  dedupbench run -bench DIR [flags] [-- warcdedup flags]
                                              run warcdedup on the benchmark and score its output
  dedupbench compare -bench DIR [flags]       compare the papers' methods across thresholds (Markdown, SVG);
                                              -anchor adds datatrove/FineWeb's MinHash pipeline
  dedupbench wcxb [-corpus DIR] [-out DIR]    write the corpus's wcxb pages as a labelled WARC (for compare -wcxb)
  dedupbench records [-n N] [-out FILE]       write a WARC of N small image responses (per-record memory and speed)

Run "dedupbench gen -h" or "dedupbench score -h" for the flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "gen":
		return gen(args[1:], stdout, stderr)
	case "score":
		return score(args[1:], stdout, stderr)
	case "compare":
		return compare(args[1:], stdout, stderr)
	case "run":
		return runBench(args[1:], stdout, stderr)
	case "wcxb":
		return genWCXB(args[1:], stdout, stderr)
	case "records":
		return records(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "dedupbench: unknown command %q\n%s", args[0], usage)
	return 2
}

// defaultCorpus is ../shared/corpus relative to the module root, found by
// walking up from the working directory to go.mod.
func defaultCorpus() string {
	dir, err := os.Getwd()
	if err != nil {
		return "../shared/corpus"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "corpus")
		}
		if filepath.Dir(d) == d {
			return "../shared/corpus"
		}
	}
}

func gen(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench gen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var cfg bench.Config
	fl.StringVar(&cfg.Corpus, "corpus", defaultCorpus(), "the shared corpus folder")
	fl.StringVar(&cfg.Out, "out", "bench-out", "output folder for the WARCs, labels.jsonl and summary.json")
	fl.Uint64Var(&cfg.Seed, "seed", bench.DefaultSeed, "random seed; the same seed gives byte-identical output")
	fl.IntVar(&cfg.Files, "files", bench.DefaultFiles, "number of WARC files")
	fl.IntVar(&cfg.Recaptured, "recaptured", bench.DefaultRecaptured, "pages captured again (case 1 clusters); -1 for none")
	fl.IntVar(&cfg.Syndicated, "syndicated", bench.DefaultSyndicated, "stories copied into other frames (case 2 clusters); -1 for none")
	fl.IntVar(&cfg.MaxPages, "max-pages", 0, "sample this many corpus pages besides the real pairs (0: all)")
	fl.IntVar(&cfg.Scale, "scale", 1, "add scale-1 synthetic pages per corpus page whose main content can be located, "+
		"and multiply -recaptured and -syndicated by it (14: about 1 GB)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "dedupbench gen: unexpected arguments %q\n", fl.Args())
		return 2
	}
	sum, err := bench.Generate(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "dedupbench gen: %v\n", err)
		return 1
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}

func genWCXB(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench wcxb", flag.ContinueOnError)
	fl.SetOutput(stderr)
	corpus := fl.String("corpus", defaultCorpus(), "the shared corpus folder (its wcxb folder is read)")
	out := fl.String("out", "wcxb-out", "output folder for wcxb-00.warc.gz, labels.jsonl and summary.json")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 {
		fmt.Fprintf(stderr, "dedupbench wcxb: unexpected arguments %q\n", fl.Args())
		return 2
	}
	sum, err := bench.GenerateWCXB(*corpus, *out)
	if err != nil {
		fmt.Fprintf(stderr, "dedupbench wcxb: %v\n", err)
		return 1
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
