// Command warcdedup removes duplicate captures from WARC files: every response
// whose payload was already captured earlier in the run becomes a revisit record
// pointing at the kept capture; every other record is copied byte for byte.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/warcio"
)

// Exit codes. A signal that ends a run (SIGINT, SIGTERM, SIGHUP) gives 128 and
// its number, as a shell reports a process it killed.
const (
	exitOK       = 0 // every input read cleanly and written
	exitFailure  = 1 // some input could not be read or its output written (that output is not written), or another run holds an output's lock
	exitUsage    = 2 // the command line was wrong, or names files the run may not write; nothing was written
	exitDamaged  = 3 // finished, but some input was damaged and carried over as it was (--lenient)
	exitInternal = 4 // a bug in warcdedup (a panic), named with the file and record it happened on
)

const usage = `warcdedup: remove duplicate captures from WARC files.

Usage:
  warcdedup [flags] IN.warc.gz OUT.warc.gz
  warcdedup [flags] IN... OUTDIR/
  warcdedup [flags] - -            (standard input to standard output)
  warcdedup index DIR              (what an index of earlier runs holds)
  warcdedup map | reduce | apply   (the steps of a cluster job: docs/scale.md; -h for each)

Every record of the input comes out in the same order: unchanged, byte for byte, or,
for an HTTP response whose payload is identical to an earlier capture in the run, as a
"revisit" record (WARC-Profile identical-payload-digest) that names the kept capture
in WARC-Refers-To, WARC-Refers-To-Target-URI and WARC-Refers-To-Date, so that replay
tools such as pywb serve the kept copy. The earliest capture is the one kept; a later
file may refer to a record in an earlier file of the same run.

HTML pages that are near duplicates of a kept page (the same text with other ads,
timestamps, session ids, or the same story in another site's frame) become revisit
records too, with WARC-Profile urn:x-warcdedup:revisit:near-duplicate:1 and fields
WARC-Dedup-Method, -Similarity, -Relation and -Payload-Digest (the page's own digest).
Pages are compared by their SpotSigs spot signatures (Theobald et al., SIGIR 2008),
without the signatures common to many pages of a site (its frame). --near=annotate
keeps such pages and adds a metadata record after each; --near=off keeps them as they
are. --report writes a JSON line per duplicate for curators. A page that holds most of
a kept page's text, or whose text is mostly in a kept page, without being a near
duplicate (a long article quoting a wire story whole) is never replaced: it is
reported ("kind":"containment"), and annotated with --near=annotate.

Inputs may be files or directories (walked in name order; *.open and *.invalid files,
which Heritrix leaves while writing, are skipped; one named is read, with a warning).
With several inputs or a directory, the last argument is an output directory and each
output keeps its input's name. Output is compressed (one gzip member per record) when
its name ends in .gz, or in .gz.open or .gz.invalid; standard output is compressed
unless --compress=no.

An output that is a regular file is written to a temporary file next to it, synced,
and renamed when complete; a symbolic link stays and the file it points to is
replaced. A character device, FIFO or pipe (/dev/null, >(cmd)) is written directly.
An input is never overwritten (also not through a link or standard input or output),
an existing output only with --force, and two runs never write one output at once
(the second fails). When one file fails, the others are still done; the failed ones
are listed at the end and their outputs are not written. On SIGINT, SIGTERM or
SIGHUP the unfinished output's temporary file is removed.

Exit status: 0 all clean; 1 some file failed (its output is not written), or another
run is writing an output; 2 usage error, or an output that is an input, exists
(without --force) or is a block device or socket (nothing was written); 3 finished,
but damaged input was carried over unchanged (--lenient); 4 internal error (a bug: please report it with the file and record it names);
128+N killed by signal N. Of several, 4 comes before 1 and 1 before 3.

Flags:
`

// maxProblemLines caps the warnings about nonconforming records: a crawler that
// writes one field wrong does so in every record.
const maxProblemLines = 20

type config struct {
	opts     dedup.Options
	report   string
	compress string
	quiet    bool
	dryRun   bool
	logJSON  bool
	prog     *progress // the progress line on a terminal, or nil
	verbose  bool
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	if len(args) > 0 && args[0] == "index" {
		return runIndexCommand(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "review" {
		return runReviewCommand(args[1:], stdout, stderr)
	}
	if len(args) > 0 {
		switch args[0] {
		case "map":
			return runMapCommand(args[1:], stdin, stdout, stderr)
		case "reduce":
			return runReduceCommand(args[1:], stdin, stdout, stderr)
		case "apply":
			return runApplyCommand(args[1:], stdin, stdout, stderr)
		}
	}
	fl := flag.NewFlagSet("warcdedup", flag.ContinueOnError)
	// The flag package's own messages are replaced: --help goes to standard
	// output with exit 0, a usage error is one line and a hint on standard
	// error with exit 2 (the whole help after every mistake hid the mistake).
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	help := func() {
		fmt.Fprint(stdout, usage)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		fl.SetOutput(io.Discard)
	}
	cfg := config{opts: dedup.DefaultOptions()}
	checkOptions := decisionFlags(fl, &cfg.opts)
	fl.StringVar(&cfg.compress, "compress", "auto", "gzip the output: auto (by the output name; yes for standard output), yes or no")
	fl.StringVar(&cfg.opts.TempDir, "tmp", "", "directory for temporary files: very large records, the kept records' references, the --cdxj lines being sorted (default: the system's)")
	fl.IntVar(&cfg.opts.Workers, "workers", 0, "CPUs to use, one page analyser each (0: all); the output is the same for any number")
	fl.StringVar(&cfg.report, "report", "", "write a JSON lines report of duplicates and clusters to this file")
	fl.BoolVar(&cfg.quiet, "q", false, "print errors only: no warnings, no summary")
	fl.BoolVar(&cfg.verbose, "v", false, "print a line for each file done")
	fl.BoolVar(&cfg.dryRun, "dry-run", false, "read and decide everything, write the --report and the summary, but no WARC file (also -n)")
	fl.BoolVar(&cfg.dryRun, "n", false, "the same as --dry-run")
	logFormat := fl.String("log-format", "text", "messages as text lines, or json: one JSON object a line (log/slog), the summary included")
	force := fl.Bool("force", false, "overwrite outputs (and the report) that exist")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile (pprof) of the run to this new file, once the run has finished (exit 0 or 3)")
	indexDir := fl.String("index", "", "deduplicate against what earlier runs with this index directory kept, and add what this run keeps to it")
	indexCDX := fl.String("index-cdx", "", "deduplicate exact copies against this CDX or CDXJ of earlier crawls (wget --warc-cdx, pywb, jwarc), as wget --warc-dedup does")
	cdxjPath := fl.String("cdxj", "", "write a CDXJ index of the outputs (pywb's, sorted, revisits as warc/revisit) to this file")
	version := fl.Bool("version", false, "print the version and exit")
	files, err := parseInterspersed(fl, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help()
			return exitOK
		}
		return usageError(stderr, err.Error())
	}
	if *version {
		fmt.Fprintln(stdout, versionString())
		return exitOK
	}
	if cfg.opts.Workers < 0 {
		fmt.Fprintf(stderr, "warcdedup: --workers %d: want 0 (all CPUs) or more\n", cfg.opts.Workers)
		return exitUsage
	}
	defer cpuBudget(cfg.opts.Workers)()
	defer func() { code = stopProfile(code, stderr) }()
	if code := startProfile(*cpuprofile, stderr); code >= 0 {
		return code
	}
	if code := checkOptions(stderr); code >= 0 {
		return code
	}
	if cfg.dryRun && *cdxjPath != "" {
		return usageError(stderr, "--cdxj indexes the WARC files a run writes, and --dry-run writes none")
	}
	log, err := newLogger(stderr, *logFormat, cfg.quiet)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	cfg.logJSON = *logFormat == "json"
	jobs, side, err := plan(files, *force, map[string]string{"report": cfg.report, "cdxj": *cdxjPath},
		map[string]string{"index-cdx": *indexCDX}, stdin, stdout)
	if err != nil {
		if _, ok := err.(shapeError); ok {
			return usageError(stderr, err.Error())
		}
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return exitUsage
	}
	if err := checkSides(jobs, side, *indexDir, *cdxjPath != "", cfg.dryRun, stdout); err != nil {
		return usageError(stderr, err.Error())
	}
	outs := make([]*output, 0, len(jobs)+1)
	for _, j := range jobs {
		if !cfg.dryRun { // a dry run writes no WARC file, and locks none
			outs = append(outs, j.out)
		}
	}
	rep, cdxjOut := side["report"], side["cdxj"]
	for _, o := range []*output{rep, cdxjOut} {
		if o != nil {
			outs = append(outs, o)
		}
	}
	reg := newRegistry()
	reg.expect(len(outs))
	interrupted := "interrupted; the unfinished outputs are removed, the finished ones are complete"
	if cfg.dryRun {
		// A dry run may have no output at all: reading the inputs is what
		// a signal stops.
		reg.expect(1)
		interrupted = "interrupted; a dry run writes no WARC file"
		if rep != nil {
			interrupted += ", and the unfinished report is removed"
		}
	}
	defer onSignal(reg, log, interrupted)()
	// What the run reads: its inputs, standard input when it is a file,
	// and the CDX it deduplicates against.
	for _, j := range jobs {
		if j.in == "-" {
			reg.protectFile(stdin)
		} else {
			reg.protect(j.in)
		}
	}
	if *indexCDX != "" {
		reg.protect(*indexCDX)
	}
	if err := prepare(outs, *force, reg); err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\nnothing was written\n", err)
		return prepareExit(err)
	}
	defer func() {
		for _, o := range outs {
			o.unlock(reg)
		}
	}()
	var damaged []string
	cfg.opts.Warn = func(err error) {
		damaged = append(damaged, err.Error())
		log.Warn("damaged input carried over unchanged", "err", err)
	}
	cfg.opts.Empty = func(file string) {
		log.Warn("input holds no WARC or ARC records; its output is a copy of it", "file", file)
	}
	nonconf := 0
	cfg.opts.Nonconforming = func(file string, rec *warcio.Record, ps []warcio.Problem, replaced bool) {
		nonconf++
		if nonconf > maxProblemLines {
			return
		}
		strs := make([]string, len(ps))
		for i, p := range ps {
			strs[i] = p.String()
		}
		what := "copied as it is"
		if replaced {
			what = "a duplicate, replaced by a revisit record"
		}
		log.Warn("record does not conform to the WARC standard; "+what,
			"file", file, "offset", rec.Offset, "record", rec.ID(), "problems", strings.Join(strs, "; "))
		if nonconf == maxProblemLines {
			log.Warn("further nonconforming records are counted, not listed")
		}
	}
	dupIDs := 0
	cfg.opts.DuplicateID = func(file string, rec *warcio.Record) {
		// Not damage: the record is copied or replaced as any other, and the
		// IDs made for records derived from it stay unique.
		dupIDs++
		if dupIDs > maxProblemLines {
			return
		}
		log.Warn("record repeats the WARC-Record-ID of an earlier record of the run; a revisit naming it is ambiguous",
			"file", file, "offset", rec.Offset, "record", rec.ID())
		if dupIDs == maxProblemLines {
			log.Warn("further repeated record IDs are counted, not listed")
		}
	}
	loud, _ := newLogger(stderr, *logFormat, false)
	cfg.opts.BrokenRevisit = brokenRevisitWarner(loud)
	var repW *writer
	if rep != nil {
		if repW, err = rep.create(reg, stdout, 0o644); err != nil {
			fmt.Fprintf(stderr, "warcdedup: --report: %v\n", err)
			return exitFailure
		}
		cfg.opts.Report = repW
		// A run refused from here on (the index locked or not one, the
		// CDX unreadable) leaves no temporary report.
		defer func() {
			if repW != nil {
				repW.abort()
			}
		}()
	}
	for _, j := range jobs {
		warnHeritrix(log, j.in)
	}
	if orderByDate(jobs) {
		log.Info("inputs are taken in the order of their first record's WARC-Date, so that the earliest capture is kept")
	}
	d := dedup.New(cfg.opts)
	var held []*dedup.Held
	if *indexDir != "" || *indexCDX != "" {
		held = holdOutputs(d, jobs)
	}
	var ix *index.Index
	if *indexDir != "" {
		ix, err = openIndex(*indexDir, cfg.opts.Config, d, cfg.dryRun)
		if cfg.dryRun && errors.Is(err, index.ErrNoIndex) {
			// A dry run against an index not made yet: nothing earlier
			// to deduplicate against, and no index to make.
			ix, err = nil, nil
		}
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\nnothing was written\n", err)
			if errors.Is(err, index.ErrFormat) {
				// Pages of another analysis would be compared on features
				// that mean something else: the index must be made again.
				fmt.Fprintf(stderr, "make a new index with this version: run it with --index NEWDIR over the crawls the index was built from, in order\n")
			}
			return indexExit(err)
		}
		if ix != nil {
			defer ix.Close()
			if n := ix.WithoutStays(); n > 0 && slices.ContainsFunc(held, func(h *dedup.Held) bool { return h != nil }) {
				// Their runs' captures kept whole beside their payload's
				// record are not listed: the output check cannot see them.
				log.Warn("the index holds runs written by an older warcdedup, which do not list the captures they kept whole beside their payload's kept record: an output written over (--force) may hold such captures, which later revisits name and this run cannot protect",
					"index", *indexDir, "runs", n)
			}
		}
	}
	if *indexCDX != "" {
		if err := seedCDX(*indexCDX, d); err != nil {
			fmt.Fprintf(stderr, "warcdedup: --index-cdx: %v\nnothing was written\n", err)
			if ix != nil {
				ix.Unmake() // an index this run made holds nothing
			}
			return exitUsage
		}
	}
	start := time.Now()
	if !cfg.quiet && !cfg.logJSON {
		var ins []string
		for _, j := range jobs {
			ins = append(ins, j.in)
		}
		cfg.prog = startProgress(stderr, ins, d.RecordsDone)
	}
	var failed []failure
	var done []string
	var written []*output
	for i, j := range jobs {
		d.SetOutput(j.out.name)
		if held != nil {
			d.BeginOutput(held[i])
		}
		before := d.Stats
		err := runJob(d, j, cfg, reg, stdin, stdout)
		if err == nil {
			done = append(done, inputName(j.in))
			written = append(written, j.out)
			if cfg.verbose {
				a := d.Stats
				log.Info(fmt.Sprintf("%s -> %s: %d exact and %d near revisits, %.1f MB of payloads no longer stored",
					inputName(j.in), j.out.name, a.Revisits-before.Revisits, a.NearRevisits-before.NearRevisits,
					float64(a.BytesSaved-before.BytesSaved)/1e6))
			}
		}
		if err == nil {
			continue
		}
		failed = append(failed, failure{j.in, err})
		ie, ok := asInternal(err)
		if !ok {
			log.Error(j.out.failedWhat(), "input", j.in, "err", err)
			continue
		}
		notRead := func(rest []job) {
			for _, r := range rest {
				failed = append(failed, failure{r.in, fmt.Errorf("not read after the internal error on %s", ie.file)})
			}
		}
		if ie.recovered && ie.file != inputName(j.in) {
			// dedup reads no file after a panic that may have left its
			// index inconsistent; that panic was reported with its file.
			failed = failed[:len(failed)-1]
			notRead(jobs[i:])
			break
		}
		log.Error("internal error (a bug in warcdedup: please report it with the file and record named here); "+j.out.failedWhat(),
			"input", j.in, "err", ie)
		fmt.Fprintf(stderr, "%s\n", ie.stack)
		if !ie.recovered {
			// The panic came from outside dedup's pipeline, in a state no
			// one checked: no later file is done.
			notRead(jobs[i+1:])
			break
		}
	}
	cfg.prog.end()
	if cfg.dryRun {
		reg.complete()
	}
	code = exitOK
	switch {
	case hasInternal(failed):
		code = exitInternal
	case len(failed) > 0:
		code = exitFailure
	case len(damaged) > 0:
		code = exitDamaged
	}
	if cdxjOut != nil {
		if err := writeCDXJ(cdxjOut, reg, stdout, written, cfg.opts.TempDir, func(m string) { log.Warn(m) }); err != nil {
			log.Error("writing the CDXJ index", "err", err)
			if code != exitInternal {
				code = exitFailure
			}
		}
	}
	if ix != nil && code != exitInternal && len(done) > 0 && !cfg.dryRun {
		// After every output is in place (see commitIndex).
		if n, err := commitIndex(ix, d, done); err != nil {
			log.Error("adding this run's kept records to the index; the index is as it was", "index", *indexDir, "err", err)
			code = exitFailure
		} else if !cfg.quiet {
			fmt.Fprintf(stderr, "index %s: added %d kept records\n", *indexDir, n)
		}
	} else if ix != nil {
		// Nothing added: an index this run made is not left behind empty.
		ix.Unmake()
	}
	if err := d.Close(); err != nil {
		log.Error("ending the run (report, temporary index file)", "err", err)
		if code != exitInternal {
			code = exitFailure
		}
		if repW != nil {
			repW.abort()
			repW = nil
		}
	}
	if repW != nil {
		if err := repW.finish(); err != nil {
			log.Error("writing the report", "err", err)
			if code != exitInternal {
				code = exitFailure
			}
		}
		repW = nil
	}
	if cfg.logJSON {
		logSummary(log, d, time.Since(start), cfg.dryRun, len(jobs), failed)
	} else {
		summary(stderr, d, time.Since(start), cfg.quiet, cfg.dryRun, len(jobs), failed)
	}
	return code
}

// inputName is an input's name in messages and in dedup's errors.
func inputName(in string) string {
	if in == "-" {
		return "<stdin>"
	}
	return in
}

// failure is an input that failed, and why.
type failure struct {
	in  string
	err error
}

func hasInternal(fs []failure) bool {
	for _, f := range fs {
		if _, ok := asInternal(f.err); ok {
			return true
		}
	}
	return false
}

// failedWhat says what became of the output of a file that failed.
func (o *output) failedWhat() string {
	if o.kind == outFile {
		return "failed; its output is not written"
	}
	return "failed; its output is incomplete"
}

// internalError is a panic: a bug in warcdedup, not a fault of the input.
type internalError struct {
	file   string
	offset int64 // -1 when not known
	record string
	value  any
	stack  []byte
	// recovered says the pipeline caught the panic and withdrew the file,
	// so that the run can go on with the next.
	recovered bool
}

func (e *internalError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "internal error on %s", e.file)
	if e.offset >= 0 {
		fmt.Fprintf(&b, " at offset %d", e.offset)
	}
	if e.record != "" {
		fmt.Fprintf(&b, " (record %s)", e.record)
	}
	fmt.Fprintf(&b, ": %v", e.value)
	return b.String()
}

// deduper is what runJob needs of a *dedup.Deduper.
type deduper interface {
	Run(in io.Reader, name string, out io.Writer, compress bool) error
	Withdraw()
}

// asInternal returns the internal error err is or wraps, if any.
func asInternal(err error) (*internalError, bool) {
	var ie *internalError
	if errors.As(err, &ie) {
		return ie, true
	}
	var pe *dedup.PanicError
	if errors.As(err, &pe) {
		return &internalError{file: pe.File, offset: pe.Offset, record: pe.RecordID, value: pe.Value, stack: pe.Stack, recovered: true}, true
	}
	return nil, false
}

// runJob deduplicates one input into its output. Whatever fails, no partial
// output of a regular file is left.
func runJob(d deduper, j job, cfg config, reg *registry, stdin io.Reader, stdout io.Writer) (err error) {
	name := inputName(j.in)
	defer func() {
		if v := recover(); v != nil {
			// A last resort: dedup turns its own panics into errors. Whatever
			// Run added of this file is taken back, if it succeeded.
			d.Withdraw()
			err = &internalError{file: name, offset: -1, value: v, stack: debug.Stack()}
		}
	}()
	var in io.Reader = stdin
	// The output gets the input's permissions, as gzip gives its output: the
	// temporary file is created 0600, and a WARC that only its writer can read
	// is of no use to a replay tool running as another user.
	perm := os.FileMode(0o644)
	if j.in != "-" {
		f, err := os.Open(j.in)
		if err != nil {
			return fmt.Errorf("input %s: %v", j.in, unwrapPath(err))
		}
		defer f.Close()
		in = cfg.prog.reader(f, j.in)
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	compress := gzipName(j.out.name) || j.out.kind == outStdout
	switch cfg.compress {
	case "yes":
		compress = true
	case "no":
		compress = false
	}
	if cfg.dryRun {
		// Decided as a run would, written nowhere: with nothing written
		// there is nothing to withdraw either. It fails as the run would.
		if err := d.Run(in, name, io.Discard, compress); err != nil {
			return err
		}
		if j.check != nil {
			return j.check()
		}
		return nil
	}
	w, err := j.out.create(reg, stdout, perm)
	if err != nil {
		return err
	}
	finished := false
	defer func() {
		if !finished {
			w.abort()
		}
	}()
	if err := d.Run(in, name, w, compress); err != nil {
		return err
	}
	if j.check != nil {
		if err := j.check(); err != nil {
			d.Withdraw()
			return err
		}
	}
	err = w.finish()
	finished = true // finish removes what it leaves when it fails
	if err != nil {
		// A later file must not refer to records of an output that is not
		// there.
		d.Withdraw()
		return err
	}
	return nil
}

// stopSignals are the signals that stop a command: SIGINT, SIGTERM and
// SIGHUP, less those the process was started ignoring. signal.Notify would
// make an ignored one stop the run: nohup ignores SIGHUP so that a run
// outlives its terminal, and a non-interactive shell starts background
// jobs ignoring SIGINT. Taken before main, as Notify changes what
// signal.Ignored reports.
var stopSignals = func() []os.Signal {
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}()

// onSignal makes SIGINT, SIGTERM and SIGHUP remove the command's temporary
// and lock files (and an unfinished --cpuprofile) and log msg, with the outputs finished and not, before the
// process exits with 128 and the signal's number, as a shell reports a
// process a signal ended; the returned function ends that. Every command
// takes it: a batch system stops a task so (Slurm's scancel and preemption
// send SIGTERM, and SIGKILL after a grace period, which leaves the files).
func onSignal(reg *registry, log *slog.Logger, msg string) (stop func()) {
	ch := make(chan os.Signal, 1)
	if len(stopSignals) > 0 { // Notify with none relays every signal
		signal.Notify(ch, stopSignals...)
	}
	handOverProfile()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				finished, unfinished, ok := reg.interrupt()
				if !ok {
					continue
				}
				interruptProfile()
				args := []any{"signal", s.String()}
				if len(finished) > 0 {
					args = append(args, "finished", finished)
				}
				if len(unfinished) > 0 {
					args = append(args, "not_finished", unfinished)
				}
				log.Error(msg, args...)
				n, _ := s.(syscall.Signal)
				os.Exit(128 + int(n))
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// summary says what the run wrote; the files that failed are listed also with -q.
func summary(w io.Writer, d *dedup.Deduper, el time.Duration, quiet, dryRun bool, files int, failed []failure) {
	defer func() {
		if len(failed) == 0 {
			return
		}
		fmt.Fprintf(w, "failed: %d of %d files:\n", len(failed), files)
		for _, f := range failed {
			// One line a file, starting with its name.
			msg := f.err.Error()
			if !strings.HasPrefix(msg, f.in+": ") {
				msg = f.in + ": " + msg
			}
			fmt.Fprintf(w, "  %s\n", msg)
		}
	}()
	if quiet {
		// As the warnings about them, their count is not silenced (as
		// reduce -q gives it).
		if n := d.Stats.BrokenRevisits; n > 0 {
			fmt.Fprintf(w, "input revisits naming a response this run replaced, with none like it left (replay cannot resolve them; see README): %d\n", n)
		}
		return
	}
	s := &d.Stats
	if dryRun {
		fmt.Fprintln(w, "dry run: no WARC file was written; what a run would have written:")
	}
	fmt.Fprintf(w, "records in:  %s\n", counts(s.In))
	fmt.Fprintf(w, "records out: %s\n", counts(s.Out))
	fmt.Fprintf(w, "revisits: %d exact, %d near (%d same-site, %d cross-site); annotations: %d; payloads no longer stored: %.1f MB\n",
		s.Revisits, s.NearRevisits, s.NearSameSite, s.NearCrossSite, s.Annotations, float64(s.BytesSaved)/1e6)
	if s.WeakEvidence > 0 {
		fmt.Fprintf(w, "near duplicates kept whole for weak evidence or similarity (see --report): %d\n", s.WeakEvidence)
	}
	if s.Seeded > 0 {
		fmt.Fprintf(w, "records kept by earlier runs (--index, --index-cdx): %d\n", s.Seeded)
	}
	if s.LaterKept+s.AlreadyKept > 0 {
		fmt.Fprintf(w, "duplicates kept whole because the kept copy is later or is the record itself: %d\n", s.LaterKept+s.AlreadyKept)
	}
	if s.Containments > 0 {
		fmt.Fprintf(w, "pages holding a kept page's text or held in one (kept whole, see --report): %d\n", s.Containments)
	}
	if n := s.Nonconforming - s.NonconformingReplaced; n > 0 {
		fmt.Fprintf(w, "records not conforming to the standard (copied as they are): %d\n", n)
	}
	if s.NonconformingReplaced > 0 {
		fmt.Fprintf(w, "records not conforming to the standard, duplicates replaced by revisit records: %d\n", s.NonconformingReplaced)
	}
	if s.DuplicateIDs > 0 {
		fmt.Fprintf(w, "records repeating an earlier record's WARC-Record-ID: %d\n", s.DuplicateIDs)
	}
	if s.BrokenRevisits > 0 {
		fmt.Fprintf(w, "input revisits naming a response this run replaced, with none like it left (replay cannot resolve them; see README): %d\n", s.BrokenRevisits)
	}
	if s.DigestConflicts > 0 {
		fmt.Fprintf(w, "same recorded payload digest but different bytes (both kept): %d\n", s.DigestConflicts)
	}
	if s.Damaged > 0 {
		fmt.Fprintf(w, "damaged regions carried over: %d (%d bytes)\n", s.Damaged, s.DamagedBytes)
	}
	mb := float64(s.BytesIn) / 1e6
	fmt.Fprintf(w, "read %.1f MB, wrote %.1f MB in %.2fs (%.1f MB/s)\n", mb, float64(s.BytesOut)/1e6, el.Seconds(), mb/el.Seconds())
}

// brokenRevisitWarner returns the callback that warns about each input
// revisit whose original the run replaced (dedup.Options.BrokenRevisit),
// listing the first maxProblemLines. The steps give it a logger that -q
// does not silence: a revisit whose replay breaks is no message to lose.
func brokenRevisitWarner(log *slog.Logger) func(file string, offset int64, id, uri, digest string) {
	n := 0
	return func(file string, offset int64, id, uri, digest string) {
		n++
		if n > maxProblemLines {
			return
		}
		log.Warn("input revisit names a response this run replaced, and no response with its URI and payload digest is left: replay tools cannot resolve it",
			"file", file, "offset", offset, "record", id, "refers_to", uri, "digest", digest)
		if n == maxProblemLines {
			log.Warn("further such revisits are counted, not listed")
		}
	}
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	total := 0
	for k, v := range m {
		keys = append(keys, k)
		total += v
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%d", total)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, m[k])
	}
	return b.String()
}

// usageError prints a usage error as one line and a hint, and returns the
// usage exit status.
func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "warcdedup: %s\nsee 'warcdedup --help'\n", msg)
	return exitUsage
}

// versionString is the module version and VCS revision the binary was built
// from: "(devel)" and the revision for a build from a clone, the tag for
// go install ...@version.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "warcdedup (unknown version)"
	}
	v := "warcdedup " + bi.Main.Version
	var rev, when, dirty string
	for _, st := range bi.Settings {
		switch st.Key {
		case "vcs.revision":
			rev = st.Value
		case "vcs.time":
			when = st.Value
		case "vcs.modified":
			if st.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (revision %s, %s%s)", rev, when, dirty)
	}
	return v + ", " + bi.GoVersion
}

// logSummary is the summary as one log record, for --log-format json.
func logSummary(log *slog.Logger, d *dedup.Deduper, el time.Duration, dryRun bool, files int, failed []failure) {
	s := &d.Stats
	var fs []string
	for _, f := range failed {
		fs = append(fs, f.in+": "+f.err.Error())
	}
	level := slog.LevelInfo
	if len(failed) > 0 {
		level = slog.LevelError
	}
	log.Log(context.Background(), level, "summary", "dry_run", dryRun, "files", files, "failed", fs,
		"records_in", s.In, "records_out", s.Out, "exact_revisits", s.Revisits, "near_revisits", s.NearRevisits,
		"near_same_site", s.NearSameSite, "near_cross_site", s.NearCrossSite, "annotations", s.Annotations,
		"kept_weak", s.WeakEvidence, "containments", s.Containments, "seeded", s.Seeded, "broken_revisits", s.BrokenRevisits,
		"payload_bytes_saved", s.BytesSaved, "bytes_in", s.BytesIn, "bytes_out", s.BytesOut, "seconds", el.Seconds())
}

// decisionFlags defines the flags that say how records are decided, which
// the steps of a cluster job take as a run on one machine does, on fl; the
// function it returns checks them once parsed, and returns an exit code if
// they are wrong (or -1).
func decisionFlags(fl *flag.FlagSet, o *dedup.Options) func(stderr io.Writer) int {
	fl.Int64Var(&o.MinSize, "min-size", o.MinSize, "smallest payload in bytes that is deduplicated")
	fl.BoolVar(&o.Lenient, "lenient", false, "carry damaged input to the output unchanged, with a warning, instead of failing the file")
	fl.BoolVar(&o.NoVerify, "no-verify", false, "do not check blocks against their WARC-Block-Digest")
	near := fl.String("near", "revisit", "near duplicates of HTML pages: revisit (replace by a revisit record), annotate (keep, add a metadata record) or off")
	method := fl.String("method", "spotsigs", "how near duplicates are found: spotsigs (SpotSigs, AF-SpotSigs for short pages) or henzinger (Henzinger's combined shingling B and simhash C)")
	fl.Float64Var(&o.SameSiteTau, "tau-same", o.SameSiteTau, "SpotSigs Jaccard at which a page duplicates a kept page of the same site")
	fl.Float64Var(&o.ShortTau, "tau-short", o.ShortTau, "AF-SpotSigs Jaccard for short pages of the same site")
	fl.Float64Var(&o.CrossSiteTau, "tau-cross", o.CrossSiteTau, "SpotSigs Jaccard at which a page duplicates a kept page of another site")
	fl.BoolVar(&o.FrameFilter, "frame-filter", o.FrameFilter, "judge pairs without the signatures common to many pages of a site (its frame)")
	fl.BoolVar(&o.MainText, "main-text", o.MainText, "take spot signatures from the running text of a page only, not its navigation, teasers and footers")
	fl.IntVar(&o.ShortSpots, "short-spots", o.ShortSpots, "pages with fewer spot signatures are short and compared by AF-SpotSigs")
	fl.IntVar(&o.BigramsBelow, "bigrams-below", o.BigramsBelow, "pages with fewer spot signatures are compared by the word bigrams of their main text with earlier captures of the same URL and pages of other sites, and pages with no running text by the bigrams of their whole text with earlier captures of the same URL only (0: never)")
	fl.Float64Var(&o.BigramsTau, "tau-bigrams", o.BigramsTau, "Jaccard of main-text word bigrams at which a page with few spot signatures duplicates a kept page")
	fl.Float64Var(&o.CrossBigramsTau, "tau-bigrams-cross", o.CrossBigramsTau, "the same for a kept page of another site, when most of the smaller page's bigrams are in the other's (its main text took some of its frame)")
	fl.IntVar(&o.MinEvidence, "min-evidence", o.MinEvidence, "a near duplicate of another site's page replaces it only if they share this many content signatures; with fewer it is kept and annotated (0: no minimum)")
	fl.Float64Var(&o.OtherURLTau, "tau-other-url", o.OtherURLTau, "a near duplicate of a page of the same site at another URL replaces it only at this similarity or more; under it the page is kept and reported")
	fl.IntVar(&o.OwnText, "own-text", o.OwnText, "a near duplicate of a page of the same site replaces it only if fewer than this many of the page's content signatures (about a paragraph), or under 1/32 of them up to twice this many, are not in the kept page (compared by word bigrams: seven times this many bigrams); with more the page is kept and reported; across sites, a pair whose two pages each hold this many and a sixth of their own, one of them over half, is kept (0: no limit)")
	return func(stderr io.Writer) int {
		if m, ok := dedup.ParseNearMode(*near); ok {
			o.Near = m
		} else {
			fmt.Fprintf(stderr, "warcdedup: --near is revisit, annotate or off, not %q\n", *near)
			return exitUsage
		}
		if m, ok := dedup.ParseMethod(*method); ok {
			o.Method = m
		} else {
			fmt.Fprintf(stderr, "warcdedup: --method is spotsigs or henzinger, not %q\n", *method)
			return exitUsage
		}
		for _, tau := range []float64{o.SameSiteTau, o.ShortTau, o.CrossSiteTau, o.BigramsTau, o.CrossBigramsTau} {
			if tau <= 0 || tau > 1 {
				fmt.Fprintf(stderr, "warcdedup: thresholds are in (0, 1], not %v\n", tau)
				return exitUsage
			}
		}
		if o.MinEvidence < 0 {
			fmt.Fprintf(stderr, "warcdedup: --min-evidence %d: want 0 (no minimum) or more\n", o.MinEvidence)
			return exitUsage
		}
		if o.OwnText < 0 {
			fmt.Fprintf(stderr, "warcdedup: --own-text %d: want 0 (no limit) or more\n", o.OwnText)
			return exitUsage
		}
		if err := o.Config.Check(); err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\n", strings.TrimPrefix(err.Error(), "near: "))
			return exitUsage
		}
		return -1
	}
}

// cpuBudget makes --workers N a CPU budget, as a batch job on a shared
// machine (a Slurm task's --cpus-per-task, a YARN container's vcores)
// needs: reading, analysing and writing are concurrent stages, and without
// the cap --workers 1 would still keep two CPUs busy. It returns the
// function that restores the previous setting; n <= 0 leaves it.
func cpuBudget(n int) (restore func()) {
	if n <= 0 {
		return func() {}
	}
	prev := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}
