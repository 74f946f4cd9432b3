package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
	"github.com/warcdedup/warcdedup/index"
	"github.com/warcdedup/warcdedup/near"
	"github.com/warcdedup/warcdedup/warcio"
)

// openIndex opens --index DIR and seeds the Deduper with what earlier runs
// kept. The index stays locked until it is closed: a second run on it stops
// at once (exit 1) rather than wait for hours.
//
// With existing set (a dry run, which changes no index), an index that is
// not there is made nowhere: it fails with index.ErrNoIndex.
func openIndex(dir string, cfg near.Config, d *dedup.Deduper, existing bool) (*index.Index, error) {
	open := index.Open
	if existing {
		open = index.OpenExisting
	}
	ix, err := open(dir, index.Analysis(cfg))
	if err != nil {
		return nil, err
	}
	if err := refuseStaged(ix, dir); err != nil {
		ix.Close()
		return nil, err
	}
	if err := d.SeedFrom(ix.Load); err != nil {
		ix.Close()
		return nil, fmt.Errorf("loading index %s: %w", dir, err)
	}
	return ix, nil
}

// holdOutputs gives each job whose output is an existing file a check,
// when the run is seeded (--index, --index-cdx) and so writes over it only
// with --force: the run must write whole again every record of the file
// that the index or the CDX names as kept, as a run over the same input
// does. Otherwise those records would be in no file, and later runs'
// revisits of them would point at nothing (an index cannot take back what
// it holds). The file itself is read, before the seeds, for the records
// they name (dedup.Held): the index's names of outputs are as each run
// spelled them, from its own working directory. A file that does not read
// as WARC to its end is not written over: what follows may be such
// records. It returns each job's Held (nil where the file holds none).
func holdOutputs(d *dedup.Deduper, jobs []job) []*dedup.Held {
	held := make([]*dedup.Held, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if j.out.kind != outFile {
			continue
		}
		f, err := os.Open(j.out.name)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			f.Close()
			continue
		}
		h, err := d.HoldOutput(f, j.out.name)
		f.Close()
		out := j.out.shown()
		if err != nil {
			j.check = func() error {
				return fmt.Errorf("output %s does not read as WARC to its end (%v), so it cannot be checked for records the index names: write this run's outputs elsewhere, or remove it (the output is left as it was)", out, err)
			}
			continue
		}
		held[i] = h
		j.check = func() error {
			named, lost, first := h.Lost()
			if lost == 0 {
				return nil
			}
			return fmt.Errorf("output %s holds %d records an earlier run kept, which the index names for later runs' revisits, and this run would not write %d of them whole again into it (%s): the index's revisits would name records no longer where it says; write this run's outputs elsewhere (the output is left as it was)", out, named, lost, strings.Join(first, ", "))
		}
	}
	return held
}

// refuseStaged fails when the index holds a staged segment: what a cluster
// job kept, waiting for its outputs to be written.
func refuseStaged(ix *index.Index, dir string) error {
	seg, err := ix.Staged()
	if err == nil && seg != nil {
		err = fmt.Errorf("%w: %s holds %d kept records a cluster job staged: commit them once the job's outputs are all written (warcdedup index commit %s) or discard them (warcdedup index discard %s)",
			index.ErrStaged, dir, seg.Records-seg.Gone, dir, dir)
	}
	return err
}

// discardStaged returns what discards the segment a job's reduce staged in
// the index ix (in dir) when the reduce does not end well: its outputs
// will not be written, and a commit would give later runs revisits of
// records that are nowhere. It says on stderr, after who (the step), that
// the index is as it was or, if the discard fails, that the segment is
// there and how to remove it.
func discardStaged(ix *index.Index, dir, who string, stderr io.Writer) func() {
	return func() {
		if err := ix.DiscardStaged(); err != nil {
			fmt.Fprintf(stderr, "%s: index %s still holds the segment this reduce staged before it failed (discarding it: %v): do not commit it; warcdedup index discard %s removes it\n", who, dir, err, dir)
			return
		}
		fmt.Fprintf(stderr, "%s: the segment this reduce staged in index %s is discarded: the index is as it was\n", who, dir)
	}
}

// commitIndex adds what this run kept, in the outputs that were written, to
// the index. It runs after every output is in place: an index that names
// records of an output that is not there would give later runs revisits
// that point nowhere, while an index update that fails only costs later
// runs some duplicates.
func commitIndex(ix *index.Index, d *dedup.Deduper, inputs []string) (records int, err error) {
	w, err := ix.NewWriter(inputs)
	if err != nil {
		return 0, err
	}
	if err := d.Kept(func(r *index.Record) error {
		if !r.Gone {
			records++
		}
		return w.Add(r)
	}); err != nil {
		w.Abort()
		return 0, err
	}
	return records, w.Commit()
}

// indexExit is the exit status for an index that cannot be opened: a
// directory that is no index this run may use is a usage error, refused
// before anything is written.
func indexExit(err error) int {
	if errors.Is(err, index.ErrFormat) || errors.Is(err, index.ErrNotIndex) || errors.Is(err, index.ErrNoIndex) {
		return exitUsage
	}
	return exitFailure
}

// orderByDate sorts the jobs by the WARC-Date of each input's first record,
// so that the earliest capture of a payload is the kept one whatever the
// order of the command line; inputs whose date cannot be read (standard
// input, a file with no dated first record) keep their place relative to
// each other and go last. It says whether the order changed.
func orderByDate(jobs []job) bool {
	type dated struct {
		j  job
		t  time.Time
		ok bool
		i  int
	}
	ds := make([]dated, len(jobs))
	for i, j := range jobs {
		t, ok := firstDate(j.in)
		ds[i] = dated{j, t, ok, i}
	}
	sort.SliceStable(ds, func(a, b int) bool {
		if ds[a].ok != ds[b].ok {
			return ds[a].ok
		}
		return ds[a].ok && ds[a].t.Before(ds[b].t)
	})
	changed := false
	for i := range ds {
		changed = changed || ds[i].i != i
		jobs[i] = ds[i].j
	}
	return changed
}

// firstDate reads the WARC-Date of a file's first record.
func firstDate(name string) (time.Time, bool) {
	if name == "-" {
		return time.Time{}, false
	}
	f, err := os.Open(name)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return time.Time{}, false
	}
	r := warcio.NewReader(f, name)
	for range 2 { // a warcinfo record first, usually; its date is the file's
		rec, err := r.Next()
		if err != nil {
			return time.Time{}, false
		}
		if t, err := time.Parse(time.RFC3339Nano, rec.Header.Get("WARC-Date")); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// runIndexCommand is `warcdedup index DIR`: what an index holds.
func runIndexCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && (args[0] == "commit" || args[0] == "discard") {
		return runIndexStaged(args[0], args[1], stdout, stderr)
	}
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: warcdedup index DIR           (print what the index DIR holds)\n"+
			"       warcdedup index commit DIR    (add the segment a cluster job staged, once its outputs are written)\n"+
			"       warcdedup index discard DIR   (remove the segment a cluster job staged)")
		if len(args) == 1 {
			return exitOK
		}
		return exitUsage
	}
	dir := args[0]
	ix, err := index.OpenReadOnly(dir)
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return indexExit(err)
	}
	defer ix.Close()
	if seg, err := ix.Staged(); err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
	} else if seg != nil {
		// Committed before every output of the job is written, they would
		// give later runs revisits of records no file holds.
		fmt.Fprintf(stdout, "a cluster job staged %d kept records (%d pages) that are not in the index yet: once every output of that job is written, warcdedup index commit %s adds them; if any is not, warcdedup index discard %s removes them (committed, they would give later runs revisits of records never written)\n", seg.Records-seg.Gone, seg.Pages, dir, dir)
	}
	st := ix.Stats()
	fmt.Fprintf(stdout, "index %s: format %d, pages analysed as %q\n", dir, index.Format, ix.Analysis())
	fmt.Fprintf(stdout, "%d runs, %d kept records, %d near-duplicate pages, %d replaced captures (for input revisits that name them), %.1f MB on disk\n",
		st.Segments, st.Records-st.Gone, st.Pages, st.Gone, float64(st.Bytes)/1e6)
	for _, s := range ix.Segments() {
		fmt.Fprintf(stdout, "  %s  %s  %d records, %d pages, %.1f MB", s.Name, s.Created.Format(time.RFC3339), s.Records-s.Gone, s.Pages, float64(s.Bytes)/1e6)
		if s.Gone > 0 {
			fmt.Fprintf(stdout, ", %d replaced captures", s.Gone)
		}
		if len(s.Inputs) > 0 {
			fmt.Fprintf(stdout, ", from %s", s.Inputs[0])
			if len(s.Inputs) > 1 {
				fmt.Fprintf(stdout, " and %d more", len(s.Inputs)-1)
			}
		}
		fmt.Fprintln(stdout)
	}
	if err := ix.CheckSizes(); err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v: a run with this index refuses it; make the index again from the crawls it was built from\n", err)
		return exitFailure
	}
	return exitOK
}

// runIndexStaged is `warcdedup index commit|discard DIR`: they change an
// index, and make none.
func runIndexStaged(what, dir string, stdout, stderr io.Writer) int {
	ix, err := index.OpenExisting(dir, "")
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return indexExit(err)
	}
	defer ix.Close()
	if what == "discard" {
		if err := ix.DiscardStaged(); err != nil {
			fmt.Fprintf(stderr, "warcdedup: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	seg, err := ix.CommitStaged()
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: %v\n", err)
		return indexExit(err)
	}
	fmt.Fprintf(stdout, "index %s: added %d kept records (%d pages) as %s\n", dir, seg.Records-seg.Gone, seg.Pages, seg.Name)
	return exitOK
}

// seedCDX seeds the Deduper with the captures a CDX or CDXJ file lists.
func seedCDX(name string, d *dedup.Deduper) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	return index.ReadCDX(f, name, d.Seed)
}
