package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/warcdedup/warcdedup/cdxj"
	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/internal/linesort"
	"github.com/warcdedup/warcdedup/internal/tempfile"
)

// The steps of a cluster job speak the contract of Hadoop Streaming, Spark's
// RDD.pipe and a Slurm job array with a sort in between: text lines on
// standard input, "key<TAB>value" lines on standard output, the engine
// sorting the lines by key (LC_ALL=C byte order) between the steps.
//
//	map     WARC paths ("PATH" or "POSITION<TAB>PATH" a line) -> facts
//	reduce  every fact of the run, sorted                       -> decisions
//	apply   the decisions of some files, sorted                 -> OUTDIR/FILE
//
// Keys order the records as a run on one machine takes them: files by the
// WARC-Date of their first record (undated ones last), then by their
// position in the list; records by their offset in the file. Values are
// base64 of the binary forms of dedup.Fact and dedup.Decision.

var b64 = base64.StdEncoding

// runKey is the key of a file (dedup.FileKey): keys sort as orderByDate
// orders the inputs of a run.
func runKey(path string, pos uint64) string {
	t, ok := firstDate(path)
	return dedup.FileKey(t, ok, pos)
}

// A map line's key is the file's key and ":"; a record's, the file's key,
// ":" and its offset in the decompressed file (dedup.RecordKey). The file's
// line, whose value is its name and the settings, sorts first.
func recordKey(file string, off int64) string { return dedup.RecordKey(file, off) }

// settings are the options Map and Judge must share: the decision of a
// record depends on them all.
func settings(o dedup.Options) string {
	return fmt.Sprintf("min-size=%d near=%d lenient=%t no-verify=%t tau=%g/%g/%g/%g/%g frame-filter=%t min-evidence=%d tau-other-url=%g own-text=%d %s",
		o.MinSize, o.Near, o.Lenient, o.NoVerify, o.SameSiteTau, o.ShortTau, o.CrossSiteTau, o.BigramsTau, o.CrossBigramsTau,
		o.FrameFilter, o.MinEvidence, o.OtherURLTau, o.OwnText, index.Analysis(o.Config))
}

// stepFlags are what the three steps share: the decision's flags and -q.
func stepFlags(name string, o *dedup.Options) (*flag.FlagSet, func(io.Writer) int, *bool) {
	fl := flag.NewFlagSet("warcdedup "+name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	check := decisionFlags(fl, o)
	quiet := fl.Bool("q", false, "print errors only")
	prof := fl.String("cpuprofile", "", "write a CPU profile (pprof) of the step to this new file, once the step has finished (exit 0 or 3)")
	// The profile starts once the flags are checked; the step's command
	// stops it (stopProfile) before it returns.
	return fl, func(w io.Writer) int {
		if code := check(w); code >= 0 {
			return code
		}
		return startProfile(*prof, w)
	}, quiet
}

// share is a task's share of a step's work when the steps partition it
// themselves, as the tasks of a Slurm job array must: task N of M takes the
// inputs whose number (map) or key's hash (apply) is N modulo M. Its flags
// default to the array's variables, so `srun warcdedup map` in an array
// job needs none.
type share struct {
	task, tasks int
	// env names the array variables the share was taken from, when no
	// flag set it: a task that takes none of its lines then says so, as a
	// job array that hands each task its own list would lose the rest.
	env string
}

func shareFlags(fl *flag.FlagSet) *share {
	s := &share{tasks: 1}
	if id, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_ID")); err == nil {
		if n, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_COUNT")); err == nil && n > 0 {
			lo, _ := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_MIN"))
			s.task, s.tasks = id-lo, n
			s.env = fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d, SLURM_ARRAY_TASK_MIN=%d, SLURM_ARRAY_TASK_COUNT=%d", id, lo, n)
			// An array with a step (--array=0-10:2) numbers its tasks
			// MIN, MIN+STEP, ...: task N is the N-th of them. One whose
			// IDs are listed unevenly (--array=1,5,7) maps to no number
			// and is refused (check), as is an ID off the step.
			if step, err := strconv.Atoi(os.Getenv("SLURM_ARRAY_TASK_STEP")); err == nil && step > 1 {
				s.task = -1
				if (id-lo)%step == 0 {
					s.task = (id - lo) / step
				}
				s.env += fmt.Sprintf(", SLURM_ARRAY_TASK_STEP=%d", step)
			}
		}
	}
	fl.IntVar(&s.task, "task", s.task, "this task's number, from 0 (default: $SLURM_ARRAY_TASK_ID - $SLURM_ARRAY_TASK_MIN when neither --task nor --tasks is given, else 0)")
	fl.IntVar(&s.tasks, "tasks", s.tasks, "how many tasks share the step (default: $SLURM_ARRAY_TASK_COUNT when neither --task nor --tasks is given, else 1)")
	return s
}

func (s *share) check(fl *flag.FlagSet) error {
	task, tasks := false, false
	fl.Visit(func(f *flag.Flag) {
		task, tasks = task || f.Name == "task", tasks || f.Name == "tasks"
	})
	if task || tasks {
		// The flags say how the work is shared: the array's variables do
		// not fill in the one not given.
		if !task {
			s.task = 0
		}
		if !tasks {
			s.tasks = 1
		}
		s.env = ""
	}
	if s.tasks < 1 || s.task < 0 || s.task >= s.tasks {
		return fmt.Errorf("--task %d of --tasks %d: want 0 <= task < tasks", s.task, s.tasks)
	}
	return nil
}

// took tells, on standard error, what share of the lines given the task
// took when the array's variables split them: none is a warning (quiet
// or not), since an array job that hands each task its own list loses
// every file a task skips.
func (s *share) took(step string, took, given int, quiet bool, stderr io.Writer) {
	switch {
	case s.env == "" || s.tasks <= 1:
	case took == 0 && given > 0:
		fmt.Fprintf(stderr, "warcdedup %s: warning: took none of the %d files given: %s split them among %d tasks, and task %d's share is empty; give --tasks 1 when each task has its own list\n",
			step, given, s.env, s.tasks, s.task)
	case !quiet:
		fmt.Fprintf(stderr, "warcdedup %s: took %d of the %d files given, as task %d of %d (%s)\n", step, took, given, s.task, s.tasks, s.env)
	}
}

// keyTask is the task of M a file's key goes to: FNV-1a, then MurmurHash3's
// finalizer. FNV-1a's low bits depend only on the low bits of the key's
// bytes, so without the finalizer a power of two of tasks split files'
// keys, which differ in a few digits, badly (2 tasks: all four files of a
// test job on one).
func keyTask(key string, m int) int {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int(h % uint32(m))
}

func parseStep(fl *flag.FlagSet, args []string, stdout, stderr io.Writer, usage string) ([]string, int) {
	files, err := parseInterspersed(fl, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		return nil, exitOK
	}
	if err != nil {
		return nil, usageError(stderr, err.Error())
	}
	return files, -1
}

const mapUsage = `usage: warcdedup map [flags] < PATHS > FACTS

Reads WARC paths on standard input, one a line ("PATH", or "POSITION<TAB>PATH"
as Hadoop's NLineInputFormat hands them), and writes a line for each record:
its key and what deciding it needs (its digests, its page's signatures).
With --rounds, the lines of the partitioned rounds (reduce --round exact).
The steps of a cluster job are documented in docs/scale.md.

`

// runMapCommand is `warcdedup map`: one task's WARC files to fact lines.
func runMapCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) (exit int) {
	opts := dedup.DefaultOptions()
	defer func() { exit = stopProfile(exit, stderr) }()
	fl, check, quiet := stepFlags("map", &opts)
	fl.IntVar(&opts.Workers, "workers", 0, "CPUs to use, one page analyser each (0: all)")
	fl.StringVar(&opts.TempDir, "tmp", "", "directory for temporary files (very large records)")
	rounds := fl.Bool("rounds", false, "write the lines of the partitioned rounds (reduce --round), not of the one-task reduce")
	indexDir := fl.String("index", "", "with --rounds: write the lines of the records this index holds too (one task of the job, its list of paths may be empty)")
	sh := shareFlags(fl)
	files, code := parseStep(fl, args, stdout, stderr, mapUsage)
	if code >= 0 {
		return code
	}
	if len(files) > 0 {
		return usageError(stderr, "map reads the paths of its WARC files on standard input")
	}
	if err := sh.check(fl); err != nil {
		return usageError(stderr, err.Error())
	}
	if opts.Workers < 0 {
		return usageError(stderr, fmt.Sprintf("--workers %d: want 0 (all CPUs) or more", opts.Workers))
	}
	if code := check(stderr); code >= 0 {
		return code
	}
	if *indexDir != "" && !*rounds {
		return usageError(stderr, "map --index is for the rounds (--rounds): the one-task reduce reads the index itself")
	}
	defer cpuBudget(opts.Workers)()
	// Map writes no file of its own, but an engine that stops a task with
	// SIGTERM must see it end as one a signal ended.
	reg := newRegistry()
	reg.expect(1)
	log, _ := newLogger(stderr, "text", *quiet)
	defer onSignal(reg, log, "interrupted; the facts written to standard output are incomplete")()
	set := settings(opts)
	out := bufio.NewWriterSize(stdout, 1<<20)
	var line []byte
	if *indexDir != "" {
		// Map only reads the index: one not made yet holds nothing, and
		// is not made here.
		ix, err := index.OpenExisting(*indexDir, index.Analysis(opts.Config))
		if errors.Is(err, index.ErrNoIndex) {
			ix, err = nil, nil
			if ents, _ := os.ReadDir(*indexDir); len(ents) > 0 {
				// Files and no index: Open refuses it (ErrNotIndex),
				// making nothing, as a run would.
				ix, err = index.Open(*indexDir, index.Analysis(opts.Config))
			}
		}
		if err == nil && ix != nil {
			if err = refuseStaged(ix, *indexDir); err != nil {
				ix.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup map: %v\n", err)
			return indexExit(err)
		}
		n := 0
		load := func(func(*index.Record) error) error { return nil }
		if ix != nil {
			load = ix.Load
		}
		err = load(func(r *index.Record) error {
			if r.Gone || r.Stays {
				// The partitioned rounds do not look for revisits of
				// captures earlier runs replaced (docs/scale.md), which is
				// what a capture kept whole beside its payload's kept
				// record is to a later run.
				return nil
			}
			n++
			return dedup.SeedLines(n, r, func(l dedup.Line) error {
				line = appendLine(line[:0], l)
				_, err := out.Write(line)
				return err
			})
		})
		if ix != nil {
			ix.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup map: index %s: %v\n", *indexDir, err)
			return exitFailure
		}
	}
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	given, took := 0, 0
	for n := uint64(0); sc.Scan(); n++ {
		path, pos := sc.Text(), n
		if p, rest, ok := strings.Cut(path, "\t"); ok {
			v, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "warcdedup map: line %d: %q is not a position (want PATH or POSITION<TAB>PATH)\n", n+1, p)
				return exitUsage
			}
			path, pos = rest, v
		}
		if path != "" {
			given++
		}
		if path == "" || n%uint64(sh.tasks) != uint64(sh.task) {
			continue
		}
		took++
		warnHeritrix(log, path)
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup map: input %s: %v\n", path, unwrapPath(err))
			return exitFailure
		}
		key := runKey(path, pos)
		if !*rounds {
			head := []byte(path + "\x00" + set)
			fmt.Fprintf(out, "%s:\t%s\n", key, b64.EncodeToString(head))
		}
		o := opts
		o.Warn = func(err error) { fmt.Fprintf(stderr, "warcdedup map: damaged input carried over unchanged: %v\n", err) }
		d := dedup.New(o)
		records := int64(0)
		err = d.Map(f, path, func(fc *dedup.Fact) error {
			records++
			if *rounds {
				return dedup.RoundFacts(recordKey(key, fc.Offset), fc, func(l dedup.Line) error {
					line = appendLine(line[:0], l)
					_, err := out.Write(line)
					return err
				})
			}
			b, err := fc.AppendBinary(nil)
			if err != nil {
				return err
			}
			line = append(line[:0], recordKey(key, fc.Offset)...)
			line = append(line, '\t')
			line = b64.AppendEncode(line, b)
			line = append(line, '\n')
			_, err = out.Write(line)
			return err
		})
		f.Close()
		d.Close()
		if err == nil && *rounds {
			// The file's line, for apply, once its records are counted,
			// and its name, for the resolve round.
			line = appendLine(line[:0], dedup.Line{Key: key, Val: dedup.FileLine(records, path, set)})
			if _, err = out.Write(line); err == nil {
				err = dedup.NameLine(key, path, func(l dedup.Line) error {
					line = appendLine(line[:0], l)
					_, err := out.Write(line)
					return err
				})
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup map: %v\n", err)
			return exitFailure
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "warcdedup map: reading the paths: %v\n", err)
		return exitFailure
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "warcdedup map: %v\n", err)
		return exitFailure
	}
	reg.complete()
	sh.took("map", took, given, *quiet, stderr)
	return exitOK
}

const reduceUsage = `usage: warcdedup reduce [flags] < FACTS > DECISIONS
       warcdedup reduce --round NAME [flags] < LINES > LINES

Reads the fact lines of every file of a run, sorted by key (LC_ALL=C sort),
and decides over each record as a run on one machine does: one task for the
whole run. Writes a line for each file and for each record that does not
stay as it is, keyed by the file, for warcdedup apply.

With --round, one task of one of the partitioned rounds (exact, site, bands,
join, verify, resolve, in that order): it reads the lines of its groups
(map --rounds, then each round's output; an engine sends each group, the
key up to its first space, whole to one task, sorted by key) and holds one
group at a time. The last round's lines go to warcdedup apply. The rounds
are documented in docs/scale.md.

`

// runReduceCommand is `warcdedup reduce`: the run's facts to decisions.
func runReduceCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) (exit int) {
	opts := dedup.DefaultOptions()
	defer func() { exit = stopProfile(exit, stderr) }()
	fl, check, quiet := stepFlags("reduce", &opts)
	fl.StringVar(&opts.TempDir, "tmp", "", "directory for the kept records' references")
	report := fl.String("report", "", "write the JSON lines report of duplicates and clusters to this file")
	indexDir := fl.String("index", "", "deduplicate against what earlier runs with this index kept, and stage what this job keeps there (warcdedup index commit DIR adds it, once every output is written)")
	force := fl.Bool("force", false, "overwrite the report if it exists")
	round := fl.String("round", "", "run one of the partitioned rounds ("+strings.Join(dedup.RoundNames, ", ")+") over the lines of warcdedup map --rounds or of the round before")
	files, code := parseStep(fl, args, stdout, stderr, reduceUsage)
	if code >= 0 {
		return code
	}
	if len(files) > 0 {
		return usageError(stderr, "reduce reads fact lines on standard input")
	}
	if *round != "" && *round != "resolve" && *report != "" {
		return usageError(stderr, "--report is of the resolve round (or of the one-task reduce)")
	}
	if code := check(stderr); code >= 0 {
		return code
	}
	if *round != "" {
		if *report != "" {
			// Refused before reading, as the one-task reduce refuses it;
			// the task that writes the report checks again when it does.
			o, err := classify(*report)
			if err == nil && !*force {
				err = existing([]*output{o})
			}
			if err != nil {
				fmt.Fprintf(stderr, "warcdedup reduce: --report: %v\n", err)
				return exitUsage
			}
		}
		return runRound(*round, opts, *indexDir, *report, *force, *quiet, stdin, stdout, stderr)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "warcdedup reduce: "+format+"\n", a...)
		return exitFailure
	}
	var (
		repW   *writer
		repOut *output
	)
	reg := newRegistry()
	// The decisions on standard output, and the report: neither is
	// complete before the last fact is read.
	reg.expect(1)
	log, _ := newLogger(stderr, "text", *quiet)
	// A segment staged in the index is discarded too (reg.undoable), which
	// says so itself.
	defer onSignal(reg, log, "interrupted; the decisions written to standard output are incomplete, an unfinished report is removed")()
	reg.protectFile(stdin) // the facts, read: never a killed run's temporary file
	if *report != "" {
		reg.expect(1)
		o, err := classify(*report)
		if err == nil {
			err = notStdin(o, stdin)
		}
		if err == nil {
			err = notInIndexDir([]*output{o}, *indexDir)
		}
		if err == nil {
			err = prepare([]*output{o}, *force, reg)
		}
		if err != nil {
			fmt.Fprintf(stderr, "warcdedup reduce: --report: %v\n", err)
			return prepareExit(err)
		}
		defer o.unlock(reg)
		if repW, err = o.create(reg, stdout, 0o644); err != nil {
			return fail("--report: %v", err)
		}
		repOut = o
		defer func() {
			if repW != nil {
				repW.abort()
			}
		}()
		opts.Report = repW
	}
	set := settings(opts)
	loud, _ := newLogger(stderr, "text", false)
	opts.BrokenRevisit = brokenRevisitWarner(loud)
	d := dedup.New(opts)
	var ix *index.Index
	if *indexDir != "" {
		var err error
		if ix, err = openIndex(*indexDir, opts.Config, d, false); err != nil {
			fmt.Fprintf(stderr, "warcdedup reduce: %v\n", err)
			return indexExit(err)
		}
		defer ix.Close()
		defer func() {
			if exit != exitOK {
				// A reduce that fails or is refused leaves no new, empty
				// index (what it staged is discarded before this).
				ix.Unmake()
			}
		}()
	}
	out := bufio.NewWriterSize(stdout, 1<<20)
	in := bufio.NewReaderSize(stdin, 1<<20)
	var inputs []string
	var (
		file, name, prev string
		records          int64
		bases            = map[string]string{}
		buf, line        []byte
		n                int
	)
	endFile := func() error {
		if file == "" {
			return nil
		}
		head := strconv.FormatInt(records, 10) + "\x00" + name
		_, err := fmt.Fprintf(out, "%s\tF%s\n", file, b64.EncodeToString([]byte(head)))
		return err
	}
	dupIDs := 0
	for {
		l, storage, err := readLine(in, line)
		line = storage
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail("reading the facts: %v", err)
		}
		n++
		key, val, ok := strings.Cut(strings.TrimRight(string(l), "\n"), "\t")
		if !ok {
			return fail("line %d: no key<TAB>value", n)
		}
		if key == prev {
			// A record's key names it once.
			return fail("line %d: key %s twice: a file's facts were given twice (a map task's output taken twice, or two inputs of one path)", n, key)
		}
		if key < prev {
			return fail("line %d: key %s after %s: the facts are not sorted by key (LC_ALL=C sort)", n, key, prev)
		}
		prev = key
		if !fileKeyed(key) || !strings.Contains(key, ":") {
			return fail("line %d: not a fact of warcdedup map (key %.40s): the lines of map --rounds go to reduce --round", n, key)
		}
		buf, err = b64.AppendDecode(buf[:0], []byte(val))
		if err != nil {
			return fail("line %d: %v", n, err)
		}
		if f, ok := strings.CutSuffix(key, ":"); ok {
			if err := endFile(); err != nil {
				return fail("%v", err)
			}
			p, s, _ := strings.Cut(string(buf), "\x00")
			if err := notAnInput(repOut, []string{p}); err != nil {
				fmt.Fprintf(stderr, "warcdedup reduce: --report: %v\n", err)
				return prepareExit(err)
			}
			if s != set {
				fmt.Fprintf(stderr, "warcdedup reduce: %s was mapped with other settings:\n  map:    %s\n  reduce: %s\n", p, s, set)
				return exitUsage
			}
			base := filepath.Base(p)
			if other, ok := bases[base]; ok {
				fmt.Fprintf(stderr, "warcdedup reduce: %s and %s would both write %s\n", other, p, base)
				return exitUsage
			}
			bases[base] = p
			inputs = append(inputs, p)
			file, name, records = f, p, 0
			// The index names a kept record's output by its name in the
			// apply step's directory; its offset there is not known here.
			d.SetOutput(base)
			continue
		}
		if file == "" || !strings.HasPrefix(key, file+":") {
			return fail("line %d: a record of a file whose line is missing (key %s)", n, key)
		}
		var fc dedup.Fact
		if err := fc.UnmarshalBinary(buf); err != nil {
			return fail("line %d: %v", n, err)
		}
		records++
		dec, err := d.Judge(name, &fc)
		if err != nil {
			return fail("%s: %v", name, err)
		}
		if dec.Repeat() > 0 {
			dupIDs++
		}
		if dec.Pass() {
			continue
		}
		line = append(line[:0], file...)
		line = append(line, "\tD"...)
		line = b64.AppendEncode(line, dec.AppendBinary(nil))
		line = append(line, '\n')
		if _, err := out.Write(line); err != nil {
			return fail("%v", err)
		}
	}
	if err := endFile(); err != nil {
		return fail("%v", err)
	}
	if err := out.Flush(); err != nil {
		return fail("%v", err)
	}
	staged := -1
	if ix != nil {
		w, err := ix.NewWriter(inputs)
		if err != nil {
			return fail("%v", err)
		}
		staged = 0
		if err := d.Kept(func(r *index.Record) error {
			if !r.Gone {
				staged++
			}
			return w.Add(r)
		}); err != nil {
			w.Abort()
			return fail("%v", err)
		}
		// Staged, the segment is the job's until the reduce ends well: a
		// reduce that fails or is interrupted from here on (the report's
		// last lines, its rename) discards it, so that the index is as it
		// was and a later job is not refused for it, nor commits the
		// records of outputs that will not be written.
		if err := reg.undoable(w.Stage, discardStaged(ix, *indexDir, "warcdedup reduce", stderr)); err != nil {
			return fail("%v", err)
		}
		defer func() {
			if exit != exitOK {
				reg.undoNow()
			}
		}()
	}
	if err := d.Close(); err != nil {
		return fail("ending the run: %v", err)
	}
	if repW != nil {
		err := repW.finish()
		repW = nil
		if err != nil {
			return fail("writing the report: %v", err)
		}
	}
	reg.complete()
	if n := d.Stats.BrokenRevisits; n > 0 {
		fmt.Fprintf(stderr, "warcdedup reduce: input revisits naming a response this run replaced, with none like it left (replay cannot resolve them; see README): %d\n", n)
	}
	if !*quiet {
		st := d.Stats
		fmt.Fprintf(stderr, "warcdedup reduce: %d files, %d records: %d exact and %d near revisits, %.1f MB of payloads no longer stored\n",
			len(bases), n-len(bases), st.Revisits, st.NearRevisits, float64(st.BytesSaved)/1e6)
		if staged >= 0 {
			fmt.Fprintf(stderr, "warcdedup reduce: staged %d kept records in index %s: run warcdedup index commit %s once every output is written\n", staged, *indexDir, *indexDir)
		}
		if dupIDs > 0 {
			fmt.Fprintf(stderr, "warcdedup reduce: %d records repeat the WARC-Record-ID of an earlier record of the run\n", dupIDs)
		}
	}
	return exitOK
}

const applyUsage = `usage: warcdedup apply [flags] OUTDIR/ < DECISIONS

Reads decision lines of one or more files, sorted by key, and writes each
file to OUTDIR under its own name, as a run on one machine writes it. The
file must be the one that was mapped, at the path given to warcdedup map.

`

// runApplyCommand is `warcdedup apply OUTDIR/`: decisions to output files.
func runApplyCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) (exit int) {
	opts := dedup.DefaultOptions()
	defer func() { exit = stopProfile(exit, stderr) }()
	fl, check, quiet := stepFlags("apply", &opts)
	fl.StringVar(&opts.TempDir, "tmp", "", "directory for temporary files (very large records)")
	compressFlag := fl.String("compress", "auto", "gzip the output: auto (by the output name), yes or no")
	force := fl.Bool("force", false, "overwrite outputs that exist (apply cannot tell which records of an existing output an index names: with decisions of a reduce given --index, write to a new OUTDIR)")
	cdxjPath := fl.String("cdxj", "", "write a CDXJ index of the files this task writes (pywb's, sorted) to this file; the tasks' indexes merge with LC_ALL=C sort -m")
	sh := shareFlags(fl)
	files, code := parseStep(fl, args, stdout, stderr, applyUsage)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		return usageError(stderr, "apply writes to one output directory")
	}
	if err := sh.check(fl); err != nil {
		return usageError(stderr, err.Error())
	}
	if code := check(stderr); code >= 0 {
		return code
	}
	if c := *compressFlag; c != "auto" && c != "yes" && c != "no" {
		return usageError(stderr, "--compress is auto, yes or no")
	}
	outDir := files[0]
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "warcdedup apply: "+format+"\n", a...)
		for _, v := range a {
			if err, ok := v.(error); ok {
				return applyExit(err)
			}
		}
		return exitFailure
	}
	log, err := newLogger(stderr, "text", *quiet)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	reg := newRegistry()
	// The decisions come on standard input, a file's at a time: until the
	// last is read the task is not done, whatever it has written.
	reg.expect(1)
	defer onSignal(reg, log, "interrupted; an unfinished output is removed, the finished ones are complete, the decisions not yet read are not applied")()
	// --cdxj: a task's index of what it wrote, its lines sorted in bounded
	// memory as the files are written, the file made once all are.
	var idx *output
	var lines *linesort.Sorter
	if *cdxjPath != "" {
		if idx, err = classify(*cdxjPath); err == nil {
			err = notStdin(idx, stdin)
		}
		if err != nil {
			return usageError(stderr, "--cdxj: "+err.Error())
		}
	}
	// The decisions on standard input, when they are a file, are read:
	// never taken for a killed run's temporary file.
	reg.protectFile(stdin)
	// The decisions are read twice: first into a temporary file, to learn
	// every input they name, so that no output replaces an input (through a
	// link in the output directory, or an input that links into it) and a
	// refusal comes before any output is written; then to apply them.
	spool, inputs, mine, err := spoolDecisions(stdin, opts.TempDir, sh)
	if err != nil {
		return fail("reading the decisions: %v", err)
	}
	defer spool.Close()
	if err := checkApplyOutputs(outDir, inputs, mine, idx, *force); err != nil {
		return fail("%v", err)
	}
	reg.protect(inputs...)
	if idx != nil {
		// Once the inputs are known: the stale files --cdxj's preparing
		// removes are never one of them.
		reg.expect(1)
		if err := prepare([]*output{idx}, *force, reg); err != nil {
			fmt.Fprintf(stderr, "warcdedup apply: --cdxj: %v\n", err)
			return prepareExit(err)
		}
		defer idx.unlock(reg)
		lines = linesort.New(opts.TempDir, cdxjSortBudget)
		defer lines.Close()
	}
	sh.took("apply", len(mine), len(inputs), *quiet, stderr)
	sc := bufio.NewScanner(spool)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var (
		file, name string
		prev       string // the last file key seen
		records    int64  = -1
		decs       []*dedup.Decision
		repeats    = map[int64]uint32{}  // from the rounds' exact round
		written    = map[string]string{} // output base name: its input
		n, done    int
		damaged    int // damaged regions carried over (--lenient)
	)
	start := time.Now()
	apply := func() error {
		if file == "" {
			return nil
		}
		if name == "" {
			return fmt.Errorf("decisions for %s without the file's line", file)
		}
		slices.SortFunc(decs, func(a, b *dedup.Decision) int { return cmp.Compare(a.Offset, b.Offset) })
		for i := 1; i < len(decs); i++ {
			if decs[i].Offset == decs[i-1].Offset {
				return fmt.Errorf("%s: two decisions for the record at offset %d: the decisions were given twice", name, decs[i].Offset)
			}
		}
		for _, dec := range decs {
			if c, ok := repeats[dec.Offset]; ok {
				dec.SetRepeat(c)
			}
		}
		clear(repeats)
		out := rawJoin(outDir, filepath.Base(name))
		// Two inputs of one base name would write one output, the second
		// over the first (with --force): the one-task reduce refuses them,
		// the partitioned rounds leave it to each apply task.
		if other, ok := written[filepath.Base(name)]; ok {
			return shapeError(fmt.Sprintf("%s and %s would both write %s: not written", other, name, out))
		}
		written[filepath.Base(name)] = name
		if idx != nil {
			// The index replaces its name once every file is written:
			// with --force too, not an input nor a file the task writes.
			if err := notAnInput(idx, []string{name}); err != nil {
				return fmt.Errorf("--cdxj: %w", err)
			}
			if sameName(idx, out) {
				return shapeError(fmt.Sprintf("--cdxj: %s is also the output of %s: not written", idx.name, name))
			}
		}
		err := applyFile(opts, name, out, *compressFlag, *force, records, decs, reg, stdout, &damaged)
		if err == nil && lines != nil {
			err = indexOutput(out, opts.TempDir, lines, func(m string) { log.Warn(m) })
		}
		done++
		file, name, records, decs = "", "", -1, decs[:0]
		return err
	}
	for sc.Scan() {
		n++
		key, val, ok := strings.Cut(sc.Text(), "\t")
		if !ok || val == "" {
			return fail("line %d: no key<TAB>value", n)
		}
		if sh.tasks > 1 && keyTask(key, sh.tasks) != sh.task {
			continue
		}
		if key != file {
			// A file's decisions must come together, after its line: a key
			// seen again after another was applied without them.
			if key < prev {
				return fail("line %d: key %.40s after %.40s: the decisions are not sorted (sort them with LC_ALL=C sort)", n, key, prev)
			}
			if err := apply(); err != nil {
				return fail("%v", err)
			}
			file, prev = key, key
		}
		b, err := b64.DecodeString(val[1:])
		if err != nil {
			return fail("line %d: %v", n, err)
		}
		switch val[0] {
		case dedup.ValFile:
			first := name
			if records, name, _, err = dedup.ParseFileLine(append([]byte{val[0]}, b...)); err != nil {
				return fail("line %d: %v", n, err)
			}
			if first != "" {
				// One key, one file: a second file's line would take the
				// place of the first, which would go unwritten unsaid.
				return fail("line %d: a second file's line (%s) under the key of %s: the decisions are not the ones reduce wrote", n, name, first)
			}
		case dedup.ValRepeat:
			off, c, err := dedup.ParseRepeat(append([]byte{val[0]}, b...))
			if err != nil {
				return fail("line %d: %v", n, err)
			}
			repeats[off] = c
		case 'D':
			dec := new(dedup.Decision)
			if err := dec.UnmarshalBinary(b); err != nil {
				return fail("line %d: %v", n, err)
			}
			decs = append(decs, dec)
		default:
			return fail("line %d: neither a file's line nor a decision", n)
		}
	}
	if err := sc.Err(); err != nil {
		return fail("reading the decisions: %v", err)
	}
	if err := apply(); err != nil {
		return fail("%v", err)
	}
	reg.complete()
	if lines != nil {
		w, err := idx.create(reg, stdout, 0o644)
		if err != nil {
			return fail("--cdxj: %v", err)
		}
		if _, err := lines.WriteTo(w); err != nil {
			w.abort()
			return fail("--cdxj: %v", err)
		}
		if err := w.finish(); err != nil {
			return fail("--cdxj: %v", err)
		}
	}
	if !*quiet {
		fmt.Fprintf(stderr, "warcdedup apply: %d files written to %s in %.1f s\n", done, outDir, time.Since(start).Seconds())
	}
	if damaged > 0 {
		// As a run that carried damage over ends (README, exit status).
		fmt.Fprintf(stderr, "warcdedup apply: damaged regions carried over unchanged: %d\n", damaged)
		return exitDamaged
	}
	return exitOK
}

// spoolDecisions copies the decision lines of in to a temporary file,
// rewound, and returns with it the path of every input their file lines
// name, and those of this task's files (sh).
func spoolDecisions(in io.Reader, tmp string, sh *share) (spool *os.File, inputs, mine []string, err error) {
	spool, err = tempfile.Open(tmp, "warcdedup-apply-*")
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			spool.Close()
		}
	}()
	w := bufio.NewWriterSize(spool, 1<<20)
	r := bufio.NewReaderSize(in, 1<<20)
	var long []byte
	for {
		l, storage, rerr := readLine(r, long)
		long = storage
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, nil, nil, rerr
		}
		if _, err := w.Write(l); err != nil {
			return nil, nil, nil, err
		}
		if l[len(l)-1] != '\n' {
			w.WriteByte('\n')
		}
		key, val, ok := bytes.Cut(bytes.TrimSuffix(l, []byte("\n")), []byte("\t"))
		if !ok || len(val) == 0 || val[0] != dedup.ValFile {
			continue // a malformed line fails where it is applied, with its number
		}
		b, derr := b64.DecodeString(string(val[1:]))
		if derr != nil {
			continue
		}
		if _, name, _, perr := dedup.ParseFileLine(append([]byte{dedup.ValFile}, b...)); perr == nil {
			inputs = append(inputs, name)
			if sh.tasks <= 1 || keyTask(string(key), sh.tasks) == sh.task {
				mine = append(mine, name)
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, nil, nil, err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return nil, nil, nil, err
	}
	return spool, inputs, mine, nil
}

// checkApplyOutputs refuses, before anything is written, an output of this
// task's inputs (mine) that is one of the job's inputs (as apply reads them
// all: an output that is a link to another input would replace it), and
// the --cdxj file idx if it is an input. The one-machine run refuses the
// same (plan).
func checkApplyOutputs(outDir string, inputs, mine []string, idx *output, force bool) error {
	// Each input is looked at once, whatever the number of outputs.
	read := map[fileKey]string{}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil {
			if k, ok := keyOf(fi); ok {
				read[k] = in
			}
		}
	}
	isInput := func(o *output) string {
		if o == nil || o.key == (fileKey{}) {
			return ""
		}
		return read[o.key]
	}
	// Two inputs of one base name would write one output: among all the
	// job's files, so that tasks sharing the work (--task) refuse them
	// alike, whichever tasks the two fall to.
	base := map[string]string{}
	for _, in := range inputs {
		if other, ok := base[filepath.Base(in)]; ok && other == in {
			return shapeError(fmt.Sprintf("%s twice among the decisions' files: the decisions were given twice; nothing written", in))
		} else if ok {
			return shapeError(fmt.Sprintf("%s and %s would both write %s: nothing written", other, in, filepath.Join(outDir, filepath.Base(in))))
		}
		base[filepath.Base(in)] = in
	}
	// An output that exists is refused before any is written, not at its
	// turn after the ones before it (it may still appear meanwhile: then
	// it is refused at its turn).
	var outs []*output
	for _, in := range mine {
		o, err := classify(rawJoin(outDir, filepath.Base(in)))
		if err != nil {
			// A directory, a socket: refused before any output is written.
			return refusedOutput{fmt.Errorf("%w; nothing written", err)}
		}
		if other := isInput(o); other != "" {
			return shapeError(fmt.Sprintf("output %s is the input %s: nothing written", o.name, other))
		}
		outs = append(outs, o)
	}
	if !force {
		if err := existing(outs); err != nil {
			return refusedOutput{fmt.Errorf("%w; nothing written", err)}
		}
	}
	if other := isInput(idx); other != "" {
		return shapeError(fmt.Sprintf("--cdxj: %s is the input %s: nothing written", idx.name, other))
	}
	if idx != nil && idx.kind == outFile {
		// Any task's output, not only this one's: another task may have
		// written it, or write it later.
		for _, in := range inputs {
			if canonicalPath(rawJoin(outDir, filepath.Base(in))) == canonicalPath(idx.path) {
				return shapeError(fmt.Sprintf("--cdxj: %s is also the output of %s: nothing written", idx.name, in))
			}
		}
	}
	return nil
}

// indexOutput adds the CDXJ lines of the output file path, named by its
// base name as --cdxj names it, to lines. An output that is no regular file
// (a FIFO) cannot be read back, and is left out with a warning, as a run's
// --cdxj leaves it out.
func indexOutput(path, tmp string, lines *linesort.Sorter, warn func(string)) error {
	// Stat before opening: opening a FIFO for reading waits for a writer.
	if fi, err := os.Stat(path); err != nil {
		return fmt.Errorf("--cdxj: %w", err)
	} else if !fi.Mode().IsRegular() {
		warn(fmt.Sprintf("--cdxj: %s is not a file and is not indexed", path))
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--cdxj: %w", err)
	}
	defer f.Close()
	if err := cdxj.Each(f, filepath.Base(path), cdxj.Options{TempDir: tmp}, lines.Add); err != nil {
		return fmt.Errorf("--cdxj: indexing %s: %w", path, err)
	}
	return nil
}

// refusedOutput is an output refused before anything of it was written:
// one that exists, cannot be written safely or is held by another run. Its
// exit status is prepareExit's, as the main run's.
type refusedOutput struct{ error }

func (e refusedOutput) Unwrap() error { return e.error }

// notStdin refuses an output that is the file standard input reads (the
// facts or decisions a step is reading), --force or not, as the run
// refuses it.
func notStdin(o *output, stdin io.Reader) error {
	if k, ok := fileKeyOf(stdin); ok && o.key == k {
		return shapeError(fmt.Sprintf("output %s is the file on standard input: not written", o.name))
	}
	return nil
}

// applyExit is apply's exit status for err, which stopped it: 2 for an
// output that is an input or another's, prepareExit's for a refused output,
// 1 for a file that failed.
func applyExit(err error) int {
	var shape shapeError
	if errors.As(err, &shape) {
		return exitUsage
	}
	var refused refusedOutput
	if errors.As(err, &refused) {
		return prepareExit(refused.error)
	}
	return exitFailure
}

// applyFile writes the file in to out as its decisions say: to a temporary
// file renamed onto out, which must not exist unless force.
func applyFile(opts dedup.Options, in, out, compressFlag string, force bool, records int64, decs []*dedup.Decision, reg *registry, stdout io.Writer, damaged *int) error {
	o, err := classify(out)
	if err != nil {
		return refusedOutput{err}
	}
	// The output directory may be the input's: a file is never written over
	// itself, --force or not (the one-machine run refuses the same).
	if fi, err := os.Stat(in); err == nil {
		if k, ok := keyOf(fi); ok && k == o.key {
			return shapeError(fmt.Sprintf("output %s is the input %s: not written", out, in))
		}
	}
	reg.expect(1)
	reg.protect(in)
	if err := prepare([]*output{o}, force, reg); err != nil {
		return refusedOutput{err}
	}
	defer o.unlock(reg)
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("input %s: %v", in, unwrapPath(err))
	}
	defer f.Close()
	perm := os.FileMode(0o644)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm()
	}
	compress := gzipName(out)
	switch compressFlag {
	case "yes":
		compress = true
	case "no":
		compress = false
	}
	w, err := o.create(reg, stdout, perm)
	if err != nil {
		return err
	}
	d := dedup.New(opts)
	defer d.Close()
	d.SetOutput(out) // named in its write errors
	next := func() (*dedup.Decision, error) {
		if len(decs) == 0 {
			return nil, io.EOF
		}
		dec := decs[0]
		decs = decs[1:]
		return dec, nil
	}
	if err := d.Apply(f, in, w, compress, records, next); err != nil {
		w.abort()
		return err
	}
	*damaged += d.Stats.Damaged
	return w.finish()
}

// appendLine appends a line between steps to dst: the key, a tab and the
// value in base64; the value of a line keyed by a file (for apply) keeps
// its first byte, the kind of line, as it is.
func appendLine(dst []byte, l dedup.Line) []byte {
	dst = append(dst, l.Key...)
	dst = append(dst, '\t')
	if fileKeyed(l.Key) && len(l.Val) > 0 {
		dst = append(dst, l.Val[0])
		dst = b64.AppendEncode(dst, l.Val[1:])
	} else {
		dst = b64.AppendEncode(dst, l.Val)
	}
	return append(dst, '\n')
}

// fileKeyed says whether a key is a file's (runKey): apply's lines.
func fileKeyed(key string) bool { return key != "" && key[0] >= '0' && key[0] <= '9' }

// parseLine reads a line written by appendLine (without its newline).
func parseLine(text []byte, buf []byte) (dedup.Line, []byte, error) {
	i := bytes.IndexByte(text, '\t')
	if i <= 0 {
		return dedup.Line{}, buf, errors.New("no key<TAB>value")
	}
	key, val := string(text[:i]), text[i+1:]
	if fileKeyed(key) && strings.IndexByte(key, ':') >= 0 {
		return dedup.Line{}, buf, fmt.Errorf("a record's facts (key %.40s): the rounds read the lines of warcdedup map --rounds", key)
	}
	buf = buf[:0]
	if fileKeyed(key) && len(val) > 0 {
		buf = append(buf, val[0])
		val = val[1:]
	}
	buf, err := b64.AppendDecode(buf, val)
	if err != nil {
		return dedup.Line{}, buf, err
	}
	return dedup.Line{Key: key, Val: buf}, buf, nil
}

// runRound is `warcdedup reduce --round NAME`: one task of a round.
func runRound(name string, opts dedup.Options, indexDir, reportPath string, force, quiet bool, stdin io.Reader, stdout, stderr io.Writer) int {
	// refused is why the report was refused, once it is: the round's exit
	// status is then prepareExit's, whatever error it comes back as.
	var refused error
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "warcdedup reduce --round %s: "+format+"\n", append([]any{name}, a...)...)
		if refused != nil {
			return prepareExit(refused)
		}
		return exitFailure
	}
	r, err := dedup.NewRound(name, opts)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	r.Settings = settings(opts)
	// With an index, the exact and site rounds hand on what they keep, and
	// the resolve round stages what the run kept in the index, for
	// warcdedup index commit once every output is written.
	var (
		ix     *index.Index
		w      *index.Writer
		staged int
	)
	// The index is opened by the task that takes the run's one resolve
	// group, once it has read the files' names; the round's other tasks
	// take files' lines only.
	indexWriter := func() error {
		if w != nil {
			return nil
		}
		if ix == nil {
			var err error
			if ix, err = index.Open(indexDir, index.Analysis(opts.Config)); err != nil {
				return err
			}
		}
		if err := refuseStaged(ix, indexDir); err != nil {
			return err
		}
		var err error
		w, err = ix.NewWriter(r.Inputs())
		return err
	}
	// The report, too, is written by the task that takes the resolve
	// group: it is created at its first line (lazyWriter).
	var (
		repW   *writer
		repOut *output
		reg    = newRegistry()
	)
	reg.expect(1)
	log, _ := newLogger(stderr, "text", quiet)
	defer onSignal(reg, log, "interrupted; the lines written to standard output are incomplete, an unfinished report is removed")()
	reg.protectFile(stdin) // the lines, read: never a killed run's temporary file
	loud, _ := newLogger(stderr, "text", false)
	r.BrokenRevisit = brokenRevisitWarner(loud)
	openReport := func() (io.Writer, error) {
		reg.expect(1)
		o, err := classify(reportPath)
		if err == nil {
			err = notAnInput(o, r.Inputs())
		}
		if err == nil {
			err = notStdin(o, stdin)
		}
		if err == nil {
			err = notInIndexDir([]*output{o}, indexDir)
		}
		if err == nil {
			err = prepare([]*output{o}, force, reg)
		}
		if err != nil {
			refused = err
			return nil, fmt.Errorf("--report: %w", err)
		}
		repOut = o
		if repW, err = o.create(reg, stdout, 0o644); err != nil {
			return nil, fmt.Errorf("--report: %w", err)
		}
		return repW, nil
	}
	rep := &lazyWriter{open: openReport}
	if reportPath != "" {
		r.SetReport(rep)
		defer func() {
			if repW != nil {
				repW.abort()
			}
			if repOut != nil {
				repOut.unlock(reg)
			}
		}()
	}
	if indexDir != "" {
		r.Index = true
		if name == "resolve" {
			defer func() {
				if w != nil {
					w.Abort()
				}
				if ix != nil {
					ix.Close()
				}
			}()
			r.Keep = func(rec *index.Record) error {
				if err := indexWriter(); err != nil {
					return err
				}
				staged++
				return w.Add(rec)
			}
		}
	}
	out := bufio.NewWriterSize(stdout, 1<<20)
	in := bufio.NewReaderSize(stdin, 1<<20)
	var (
		buf, obuf, long []byte
		n, written      int
	)
	emit := func(l dedup.Line) error {
		written++
		obuf = appendLine(obuf[:0], l)
		_, err := out.Write(obuf)
		return err
	}
	for {
		l, storage, err := readLine(in, long)
		long = storage
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail("reading the lines: %v", err)
		}
		n++
		var line dedup.Line
		if line, buf, err = parseLine(bytes.TrimSuffix(l, []byte("\n")), buf); err != nil {
			return fail("line %d: %v", n, err)
		}
		if err := r.Add(line, emit); err != nil {
			var se *dedup.SettingsError
			var ne *dedup.NameClashError
			if errors.As(err, &se) || errors.As(err, &ne) {
				fmt.Fprintf(stderr, "warcdedup reduce --round %s: %v\n", name, err)
				return exitUsage
			}
			if errors.Is(err, index.ErrStaged) || errors.Is(err, index.ErrFormat) || errors.Is(err, index.ErrNotIndex) {
				fmt.Fprintf(stderr, "warcdedup reduce --round %s: %v\n", name, err)
				return indexExit(err)
			}
			return fail("line %d: %v", n, err)
		}
	}
	if err := r.Flush(emit); err != nil {
		var ne *dedup.NameClashError
		if errors.As(err, &ne) {
			fmt.Fprintf(stderr, "warcdedup reduce --round %s: %v\n", name, err)
			return exitUsage
		}
		return fail("%v", err)
	}
	if err := out.Flush(); err != nil {
		return fail("%v", err)
	}
	if reportPath != "" && len(r.Inputs()) > 0 {
		if _, err := rep.Write(nil); err != nil {
			return fail("%v", err)
		}
		// The report was opened when the run's first files were read:
		// none of the rest may be the file it is to replace.
		if err := notAnInput(repOut, r.Inputs()); err != nil {
			refused = err
			return fail("--report: %v", err)
		}
		err := repW.finish()
		repW = nil
		if err != nil {
			return fail("writing the report: %v", err)
		}
	}
	if r.Keep != nil && len(r.Inputs()) > 0 {
		// The task that took the run's one resolve group stages what the
		// run kept.
		if err := indexWriter(); err != nil {
			fmt.Fprintf(stderr, "warcdedup reduce --round %s: %v\n", name, err)
			return indexExit(err)
		}
		// Staged last; a signal before the round counts itself done
		// discards it, as the one-task reduce does. The round has read
		// every file's name by now, not only those before the first
		// record it kept.
		w.SetInputs(r.Inputs())
		err := reg.undoable(w.Stage, discardStaged(ix, indexDir, "warcdedup reduce --round "+name, stderr))
		w = nil
		if err != nil {
			return fail("%v", err)
		}
	}
	reg.complete()
	if r.BrokenRevisits > 0 {
		fmt.Fprintf(stderr, "warcdedup reduce --round %s: input revisits naming a response this run replaced, with none like it left (replay cannot resolve them; see README): %d\n", name, r.BrokenRevisits)
	}
	if !quiet {
		fmt.Fprintf(stderr, "warcdedup reduce --round %s: %d lines in, %d out\n", name, n, written)
		if r.Keep != nil && len(r.Inputs()) > 0 {
			fmt.Fprintf(stderr, "warcdedup reduce --round %s: staged %d kept records in index %s: run warcdedup index commit %s once every output is written\n", name, staged, indexDir, indexDir)
		}
	}
	return exitOK
}

// notAnInput refuses an output o (nil for none) that is one of the inputs:
// with --force too, a report must not replace a file the job reads.
func notAnInput(o *output, inputs []string) error {
	if o == nil {
		return nil
	}
	if in := readBy(o.key, inputs); in != "" {
		return shapeError(fmt.Sprintf("output %s is the input %s: not written", o.name, in))
	}
	return nil
}

// sameName says whether o is the file name would write: the file there
// now, or the same path.
func sameName(o *output, name string) bool {
	if fi, err := os.Stat(name); err == nil {
		if k, ok := keyOf(fi); ok && k == o.key {
			return true
		}
	}
	a, err1 := filepath.Abs(o.path)
	b, err2 := filepath.Abs(name)
	return err1 == nil && err2 == nil && a == b
}

// readLine returns the next line of in, in long's storage when it is longer
// than in's buffer, and io.EOF after the last; a last line without a newline
// is a line.
func readLine(in *bufio.Reader, long []byte) (line, storage []byte, err error) {
	l, err := in.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long = append(long[:0], l...)
		for err == bufio.ErrBufferFull {
			l, err = in.ReadSlice('\n')
			long = append(long, l...)
		}
		l = long
	}
	if err == io.EOF && len(l) > 0 {
		err = nil
	}
	return l, long, err
}

// lazyWriter opens its writer at the first Write.
type lazyWriter struct {
	open func() (io.Writer, error)
	w    io.Writer
}

func (l *lazyWriter) Write(p []byte) (int, error) {
	if l.w == nil {
		w, err := l.open()
		if err != nil {
			return 0, err
		}
		l.w = w
	}
	return l.w.Write(p)
}
