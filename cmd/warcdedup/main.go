// Command warcdedup removes duplicate captures from WARC files: every response
// whose payload was already captured earlier in the run becomes a revisit record
// pointing at the kept capture; every other record is copied byte for byte.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"warcdedup/dedup"
	"warcdedup/warcio"
)

// Exit codes.
const (
	exitOK      = 0 // every input read cleanly and written
	exitFailure = 1 // a file could not be read or written; its output was removed
	exitUsage   = 2 // the command line was wrong
	exitDamaged = 3 // finished, but some input was damaged and carried over as it was (--lenient)
)

const usage = `warcdedup: remove duplicate captures from WARC files.

Usage:
  warcdedup [flags] IN.warc.gz OUT.warc.gz
  warcdedup [flags] IN... OUTDIR/
  warcdedup [flags] - -            (standard input to standard output)

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
which Heritrix leaves while writing, are skipped). With several inputs or a directory,
the last argument is an output directory and each output keeps its input's name.
Output is compressed (one gzip member per record) when its name ends in .gz; standard
output is compressed unless --compress=no. Output is written to a temporary file next
to the target and renamed when complete; an input is never overwritten.

Exit status: 0 all clean; 1 failure (the failed file's output is removed);
2 usage error; 3 finished, but damaged input was carried over unchanged (--lenient).

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
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("warcdedup", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprint(stderr, usage)
		fl.PrintDefaults()
	}
	cfg := config{opts: dedup.DefaultOptions()}
	fl.Int64Var(&cfg.opts.MinSize, "min-size", cfg.opts.MinSize, "smallest payload in bytes that is deduplicated")
	fl.BoolVar(&cfg.opts.Lenient, "lenient", false, "carry damaged input to the output unchanged, with a warning, instead of failing the file")
	fl.StringVar(&cfg.compress, "compress", "auto", "gzip the output: auto (by the output name; yes for standard output), yes or no")
	fl.StringVar(&cfg.opts.TempDir, "tmp", "", "directory for temporary files: very large records, the kept records' references (default: the system's)")
	fl.IntVar(&cfg.opts.Workers, "workers", 0, "CPUs to use, one page analyser each (0: all); the output is the same for any number")
	fl.BoolVar(&cfg.opts.NoVerify, "no-verify", false, "do not check blocks against their WARC-Block-Digest")
	near := fl.String("near", "revisit", "near duplicates of HTML pages: revisit (replace by a revisit record), annotate (keep, add a metadata record) or off")
	method := fl.String("method", "spotsigs", "how near duplicates are found: spotsigs (SpotSigs, AF-SpotSigs for short pages) or henzinger (Henzinger's combined shingling B and simhash C)")
	fl.Float64Var(&cfg.opts.SameSiteTau, "tau-same", cfg.opts.SameSiteTau, "SpotSigs Jaccard at which a page duplicates a kept page of the same site")
	fl.Float64Var(&cfg.opts.ShortTau, "tau-short", cfg.opts.ShortTau, "AF-SpotSigs Jaccard for short pages of the same site")
	fl.Float64Var(&cfg.opts.CrossSiteTau, "tau-cross", cfg.opts.CrossSiteTau, "SpotSigs Jaccard at which a page duplicates a kept page of another site")
	fl.BoolVar(&cfg.opts.FrameFilter, "frame-filter", cfg.opts.FrameFilter, "judge pairs without the signatures common to many pages of a site (its frame)")
	fl.BoolVar(&cfg.opts.MainText, "main-text", cfg.opts.MainText, "take spot signatures from the running text of a page only, not its navigation, teasers and footers")
	fl.IntVar(&cfg.opts.ShortSpots, "short-spots", cfg.opts.ShortSpots, "pages with fewer spot signatures are short and compared by AF-SpotSigs")
	fl.IntVar(&cfg.opts.BigramsBelow, "bigrams-below", cfg.opts.BigramsBelow, "pages with fewer spot signatures are compared by the word bigrams of their main text with earlier captures of the same URL and pages of other sites (0: never)")
	fl.Float64Var(&cfg.opts.BigramsTau, "tau-bigrams", cfg.opts.BigramsTau, "Jaccard of main-text word bigrams at which a page with few spot signatures duplicates a kept page")
	fl.StringVar(&cfg.report, "report", "", "write a JSON lines report of duplicates and clusters to this file")
	fl.BoolVar(&cfg.quiet, "q", false, "print no summary")
	cpuprofile := fl.String("cpuprofile", "", "write a CPU profile (pprof) of the run to this file")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if cfg.opts.Workers < 0 {
		fmt.Fprintf(stderr, "warcdedup: --workers %d: want 0 (all CPUs) or more\n", cfg.opts.Workers)
		return exitUsage
	}
	if n := cfg.opts.Workers; n > 0 {
		// --workers is a CPU budget, as a batch job on a shared machine needs:
		// reading, analysing and writing are concurrent stages, and without
		// the cap --workers 1 would still keep two CPUs busy.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\n", err)
			return exitFailure
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\n", err)
			return exitFailure
		}
		defer pprof.StopCPUProfile()
	}
	if m, ok := dedup.ParseNearMode(*near); ok {
		cfg.opts.Near = m
	} else {
		fmt.Fprintf(stderr, "warcdedup: --near is revisit, annotate or off, not %q\n", *near)
		return exitUsage
	}
	if m, ok := dedup.ParseMethod(*method); ok {
		cfg.opts.Method = m
	} else {
		fmt.Fprintf(stderr, "warcdedup: --method is spotsigs or henzinger, not %q\n", *method)
		return exitUsage
	}
	for _, tau := range []float64{cfg.opts.SameSiteTau, cfg.opts.ShortTau, cfg.opts.CrossSiteTau, cfg.opts.BigramsTau} {
		if tau <= 0 || tau > 1 {
			fmt.Fprintf(stderr, "warcdedup: thresholds are in (0, 1], not %v\n", tau)
			return exitUsage
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	jobs, err := plan(fl.Args())
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		fl.Usage()
		return exitUsage
	}
	var damaged []string
	cfg.opts.Warn = func(err error) {
		damaged = append(damaged, err.Error())
		log.Warn("damaged input carried over unchanged", "err", err)
	}
	nonconf := 0
	cfg.opts.Nonconforming = func(file string, rec *warcio.Record, ps []warcio.Problem) {
		nonconf++
		if nonconf > maxProblemLines {
			return
		}
		strs := make([]string, len(ps))
		for i, p := range ps {
			strs[i] = p.String()
		}
		log.Warn("record does not conform to the WARC standard; copied as it is",
			"file", file, "offset", rec.Offset, "record", rec.ID(), "problems", strings.Join(strs, "; "))
		if nonconf == maxProblemLines {
			log.Warn("further nonconforming records are counted, not listed")
		}
	}
	var rep *os.File
	if cfg.report != "" {
		if rep, err = os.Create(cfg.report); err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\n", err)
			return exitFailure
		}
		defer rep.Close()
		cfg.opts.Report = rep
	}
	d := dedup.New(cfg.opts)
	start := time.Now()
	for _, j := range jobs {
		if err := runJob(d, j, cfg, stdin, stdout); err != nil {
			log.Error("failed", "input", j.in, "err", err)
			summary(stderr, d, time.Since(start), cfg.quiet)
			return exitFailure
		}
	}
	if err := d.Close(); err != nil {
		log.Error("ending the run (report, temporary index file)", "err", err)
		return exitFailure
	}
	if rep != nil {
		if err := rep.Close(); err != nil {
			log.Error("writing the report", "err", err)
			return exitFailure
		}
	}
	summary(stderr, d, time.Since(start), cfg.quiet)
	if len(damaged) > 0 {
		return exitDamaged
	}
	return exitOK
}

type job struct{ in, out string }

// plan turns the arguments into (input, output) pairs.
func plan(args []string) ([]job, error) {
	if len(args) < 2 {
		return nil, errors.New("need an input and an output")
	}
	outArg := args[len(args)-1]
	ins := args[:len(args)-1]
	if len(ins) == 1 {
		st, err := os.Stat(ins[0])
		outIsDir := strings.HasSuffix(outArg, string(os.PathSeparator))
		if ost, err := os.Stat(outArg); err == nil && ost.IsDir() {
			outIsDir = true
		}
		if ins[0] == "-" || (err == nil && !st.IsDir() && !outIsDir) {
			if outArg != "-" && ins[0] != "-" && sameFile(ins[0], outArg) {
				return nil, fmt.Errorf("output %s is the input", outArg)
			}
			return []job{{ins[0], outArg}}, nil
		}
	}
	if outArg == "-" {
		return nil, errors.New("several inputs need an output directory, not standard output")
	}
	if err := os.MkdirAll(outArg, 0o755); err != nil {
		return nil, err
	}
	var jobs []job
	seen := map[string]bool{}
	for _, in := range ins {
		if in == "-" {
			return nil, errors.New("standard input cannot be one of several inputs")
		}
		st, err := os.Stat(in)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			jobs = append(jobs, job{in, filepath.Join(outArg, filepath.Base(in))})
			continue
		}
		var files []string
		err = filepath.WalkDir(in, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !isWARCName(e.Name()) {
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			rel, _ := filepath.Rel(in, f)
			jobs = append(jobs, job{f, filepath.Join(outArg, rel)})
		}
	}
	for _, j := range jobs {
		if seen[j.out] {
			return nil, fmt.Errorf("two inputs would write %s", j.out)
		}
		seen[j.out] = true
		if sameFile(j.in, j.out) {
			return nil, fmt.Errorf("output %s is the input", j.out)
		}
	}
	if len(jobs) == 0 {
		return nil, errors.New("no WARC files in the inputs")
	}
	return jobs, nil
}

// isWARCName says whether a file found in a directory is an input. Heritrix names
// files it is still writing *.open, and files it gave up on *.invalid.
func isWARCName(name string) bool {
	for _, ext := range []string{".warc", ".warc.gz", ".arc", ".arc.gz"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(sa, sb)
}

func runJob(d *dedup.Deduper, j job, cfg config, stdin io.Reader, stdout io.Writer) error {
	var in io.Reader = stdin
	name := "<stdin>"
	// The output gets the input's permissions, as gzip gives its output: the
	// temporary file is created 0600, and a WARC that only its writer can read
	// is of no use to a replay tool running as another user.
	perm := os.FileMode(0o644)
	if j.in != "-" {
		f, err := os.Open(j.in)
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, j.in
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	compress := strings.HasSuffix(j.out, ".gz") || j.out == "-"
	switch cfg.compress {
	case "yes":
		compress = true
	case "no":
		compress = false
	}
	if j.out == "-" {
		return d.Run(in, name, stdout, compress)
	}
	if err := os.MkdirAll(filepath.Dir(j.out), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(j.out), "."+filepath.Base(j.out)+".tmp-*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := d.Run(in, name, tmp, compress); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), j.out); err != nil {
		return err
	}
	ok = true
	return nil
}

func summary(w io.Writer, d *dedup.Deduper, el time.Duration, quiet bool) {
	if quiet {
		return
	}
	s := &d.Stats
	fmt.Fprintf(w, "records in:  %s\n", counts(s.In))
	fmt.Fprintf(w, "records out: %s\n", counts(s.Out))
	fmt.Fprintf(w, "revisits written: %d exact, %d near (%d same-site, %d cross-site); annotations: %d; payload bytes saved: %d\n",
		s.Revisits, s.NearRevisits, s.NearSameSite, s.NearCrossSite, s.Annotations, s.BytesSaved)
	if s.Containments > 0 {
		fmt.Fprintf(w, "pages holding a kept page's text or held in one (kept whole, see --report): %d\n", s.Containments)
	}
	if s.Nonconforming > 0 {
		fmt.Fprintf(w, "records not conforming to the standard (copied as they are): %d\n", s.Nonconforming)
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
