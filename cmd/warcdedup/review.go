package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/warcdedup/warcdedup/review"
)

// runReviewCommand is `warcdedup review REPORT.jsonl -o review.html
// [WARC or directory...]`: one self-contained HTML page listing every near
// duplicate of a --report with the kept page beside it, least confident
// first (package review). The main texts are read from the WARC files the
// report names (the inputs, as the run was given them) and from any WARC
// files or directories listed after the report.
func runReviewCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("warcdedup review", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "review.html", "the page to write")
	force := fl.Bool("force", false, "overwrite the page if it exists")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: warcdedup review [-o review.html] [--force] REPORT.jsonl [WARC or directory...]")
		fl.PrintDefaults()
	}
	pos, err := parseInterspersed(fl, args)
	if err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "warcdedup: review needs a report (warcdedup --report REPORT.jsonl ...); see 'warcdedup review -h'")
		return exitUsage
	}
	if fi, err := os.Stat(*out); err == nil {
		if !*force {
			fmt.Fprintf(stderr, "warcdedup: %s already exists; use --force to overwrite it\n", *out)
			return exitUsage
		}
		if in := readBy(fi, pos); in != "" {
			fmt.Fprintf(stderr, "warcdedup: -o %s is %s, which review reads: not written\n", *out, in)
			return exitUsage
		}
	}
	in, err := os.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return exitUsage
	}
	defer in.Close()
	// The page is written to a temporary file renamed onto it when complete;
	// a signal removes the temporary file, as it does a run's.
	reg := newRegistry()
	reg.expect(1)
	log, _ := newLogger(stderr, "text", false)
	defer onSignal(reg, log, "interrupted; the page is not written")()
	reg.begin(*out)
	tmp, err := reg.create(func() (*os.File, error) {
		return os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+tempInfix+"*")
	})
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return exitFailure
	}
	defer reg.remove(tmp.Name()) // a no-op once renamed
	err = review.Write(in, tmp, review.Options{Title: "warcdedup review of " + filepath.Base(pos[0]), ReadWARCs: true, WARCs: pos[1:]})
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = reg.rename(tmp.Name(), *out, *out)
	}
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// readBy returns the file among paths (files, or directories walked) that is
// the file fi, or "": a page written with --force must not replace the
// report or a WARC file it is made from.
func readBy(fi fs.FileInfo, paths []string) string {
	key, ok := keyOf(fi)
	if !ok {
		return ""
	}
	for _, p := range paths {
		found := ""
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if i, err := os.Stat(path); err == nil {
				if k, ok := keyOf(i); ok && k == key {
					found = path
					return filepath.SkipAll
				}
			}
			return nil
		})
		if found != "" {
			return found
		}
	}
	return ""
}
