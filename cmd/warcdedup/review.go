package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/warcdedup/warcdedup/review"
)

// runReviewCommand is `warcdedup review REPORT.jsonl -o review.html
// [WARC or directory...]`: one self-contained HTML page listing every near
// duplicate of a --report with the kept page beside it, least confident
// first (package review). The main texts are read from the WARC files the
// report names (the inputs, as the run was given them) and from any WARC
// files or directories listed after the report.
//
// The page is an output as a run's are: checked, locked and written to a
// temporary file renamed onto it by the same functions (classify, prepare,
// create, finish), so that review and a run cannot write one file at once
// and an error or a signal leaves neither a partial page nor a lock file.
func runReviewCommand(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("warcdedup review", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "review.html", "the page to write (- for standard output)")
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
	o, err := classify(*out)
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: -o: %v\n", err)
		return exitUsage
	}
	readsPage := func(paths []string) bool {
		if in := readBy(o.key, paths); in != "" {
			fmt.Fprintf(stderr, "warcdedup: -o %s is %s, which review reads: not written\n", *out, in)
			return true
		}
		return false
	}
	if readsPage(pos) {
		return exitUsage
	}
	if !*force {
		if err := existing([]*output{o}); err != nil {
			fmt.Fprintf(stderr, "warcdedup: review: %v\n", err)
			return exitUsage
		}
	}
	in, err := os.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return exitUsage
	}
	defer in.Close()
	reg := newRegistry()
	reg.expect(1)
	log, _ := newLogger(stderr, "text", false)
	defer onSignal(reg, log, "interrupted; the page is not written")()
	reg.protect(pos[0])
	if err := prepare([]*output{o}, *force, reg); err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %v\nnothing was written\n", err)
		return prepareExit(err)
	}
	defer o.unlock(reg)
	rep, err := review.ReadReport(in)
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %s: %v\n", pos[0], err)
		return exitFailure
	}
	// The WARC files the report names are read too: known only now, and
	// with those found by base name where a named path is gone.
	paths := append(append([]string(nil), rep.Files...), pos[1:]...)
	if readsPage(review.Files(paths)) {
		return exitUsage
	}
	texts, err := review.WARCTexts(paths, rep.RecordIDs(), review.DefaultMaxText)
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %v\n", err)
		return exitFailure
	}
	lost := 0
	for _, id := range rep.RecordIDs() {
		if _, ok := texts(id); !ok {
			lost++
		}
	}
	if lost > 0 {
		// The report names its inputs as they were given, relative to
		// where warcdedup ran: from elsewhere they are not found. The
		// outputs hold revisits, not the replaced records.
		where := "the replaced records are in the run's inputs, not in its outputs: name the inputs or their directories after the report"
		if missing := review.Missing(paths); len(missing) > 0 {
			where = "not found: " + strings.Join(missing, ", ") + " (name the WARC files or their directories after the report)"
		}
		fmt.Fprintf(stderr, "warcdedup: review: warning: %d records not found, whose texts are not shown; %s\n", lost, where)
	}
	w, err := o.create(reg, stdout, 0o644)
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %v\n", err)
		return exitFailure
	}
	if err := review.WriteReport(rep, w, review.Options{Title: "warcdedup review of " + filepath.Base(pos[0]), Texts: texts}); err != nil {
		w.abort()
		fmt.Fprintf(stderr, "warcdedup: review: output %s: %v\n", o.shown(), err)
		return exitFailure
	}
	if err := w.finish(); err != nil {
		fmt.Fprintf(stderr, "warcdedup: review: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// readBy returns the file among paths (files, or directories walked) that is
// the file key, or "": a page written with --force must not replace the
// report or a WARC file it is made from.
func readBy(key fileKey, paths []string) string {
	if key == (fileKey{}) {
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
