package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/warcdedup/warcdedup/internal/bench"
)

// runBench runs warcdedup on the benchmark's WARCs and scores its output, in
// one command.
func runBench(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("dedupbench run", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("bench", "", "the folder written by dedupbench gen (required)")
	bin := fl.String("warcdedup", "", "the warcdedup binary (default: built from ./cmd/warcdedup of this module)")
	out := fl.String("out", "", "folder for warcdedup's output (default: a temporary folder, removed)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dedupbench run -bench DIR [-warcdedup BIN] [-out DIR] [-- warcdedup flags...]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dir == "" {
		fl.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "dedupbench run: %v\n", err)
		return 1
	}
	ls, err := bench.ReadLabels(filepath.Join(*dir, "labels.jsonl"))
	if err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp("", "dedupbench-run-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "warcdedup")
		b := exec.Command("go", "build", "-o", *bin, "github.com/warcdedup/warcdedup/cmd/warcdedup")
		b.Stdout, b.Stderr = stderr, stderr
		if err := b.Run(); err != nil {
			return fail(fmt.Errorf("building warcdedup: %w", err))
		}
	}
	if *out == "" {
		*out = filepath.Join(tmp, "out")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail(err)
	}
	files := uniqueFiles(ls)
	cmdArgs := append([]string{}, fl.Args()...)
	var outs []string
	for _, f := range files {
		cmdArgs = append(cmdArgs, filepath.Join(*dir, f))
		outs = append(outs, filepath.Join(*out, f))
	}
	cmdArgs = append(cmdArgs, *out+string(filepath.Separator))
	c := exec.Command(*bin, cmdArgs...)
	c.Stdout, c.Stderr = stderr, stderr
	if err := c.Run(); err != nil {
		return fail(fmt.Errorf("%s: %w", *bin, err))
	}
	d, err := bench.ReadDecisions(outs, ls)
	if err != nil {
		return fail(err)
	}
	s := bench.Evaluate(ls, d)
	if err := s.WriteText(stdout); err != nil {
		return fail(err)
	}
	return 0
}
