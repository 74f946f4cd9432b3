package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

type job struct {
	in  string // "-" for standard input
	out *output
	// check, if set, is called once the input is read and before the
	// output is put in place: an error keeps the output from being written.
	check func() error
}

// shapeError is a command line of the wrong shape: the usage text follows it.
type shapeError string

func (e shapeError) Error() string { return string(e) }

// existsError names the outputs that exist and may not be overwritten.
type existsError []string

func (e existsError) Error() string {
	if len(e) == 1 {
		return e[0] + " already exists; use --force to overwrite"
	}
	return fmt.Sprintf("%d outputs already exist; use --force to overwrite them:\n  %s", len(e), strings.Join(e, "\n  "))
}

// plan turns the arguments into (input, output) pairs, and checks all of them
// before anything is written or created: every input is there, no output is an
// input (also not through a link, standard input or standard output), exists
// (unless force) or is a file that cannot be written. sides are the files other
// flags write (--report, --cdxj), by flag name; each that is not "" is an
// output checked as the others, returned by flag name; reads are the files
// other flags read (--index-cdx), by flag name, which no output may be.
func plan(args []string, force bool, sides, reads map[string]string, stdin io.Reader, stdout io.Writer) ([]job, map[string]*output, error) {
	if len(args) < 2 {
		return nil, nil, shapeError("need an input and an output")
	}
	outArg := args[len(args)-1]
	ins := args[:len(args)-1]
	inInfo := map[string]fs.FileInfo{}
	var missing []string
	for _, in := range ins {
		if in == "-" {
			if len(ins) > 1 {
				return nil, nil, shapeError("standard input cannot be one of several inputs")
			}
			continue
		}
		fi, err := os.Stat(in)
		if err != nil {
			missing = append(missing, fmt.Sprintf("input %s: %v", in, unwrapPath(err)))
			continue
		}
		inInfo[in] = fi
	}
	if missing != nil {
		return nil, nil, errors.New(strings.Join(missing, "\n"))
	}
	outIsDir := strings.HasSuffix(outArg, string(os.PathSeparator))
	if fi, err := os.Stat(outArg); err == nil && fi.IsDir() {
		outIsDir = true
	}
	var pairs [][2]string
	switch {
	case ins[0] == "-" && outIsDir:
		return nil, nil, fmt.Errorf("standard input needs an output file, not the directory %s", outArg)
	case len(ins) == 1 && (ins[0] == "-" || !inInfo[ins[0]].IsDir() && !outIsDir):
		pairs = append(pairs, [2]string{ins[0], outArg})
	case outArg == "-":
		return nil, nil, shapeError("several inputs or a directory need an output directory, not standard output")
	default:
		if fi, err := os.Stat(outArg); err == nil && !fi.IsDir() {
			return nil, nil, fmt.Errorf("output directory %s is not a directory", outArg)
		}
		for _, in := range ins {
			if !inInfo[in].IsDir() {
				pairs = append(pairs, [2]string{in, rawJoin(outArg, filepath.Base(in))})
				continue
			}
			var files []string
			err := filepath.WalkDir(in, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !e.IsDir() && isWARCName(e.Name()) {
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				return nil, nil, fmt.Errorf("input %v", err)
			}
			sort.Strings(files)
			for _, f := range files {
				rel, _ := filepath.Rel(in, f)
				pairs = append(pairs, [2]string{f, rawJoin(outArg, rel)})
			}
		}
		if len(pairs) == 0 {
			return nil, nil, errors.New("no WARC files in the inputs")
		}
	}

	// Every input's identity, to find an output that would overwrite one.
	inputs := map[fileKey]string{}
	for _, p := range pairs {
		if p[0] == "-" {
			continue
		}
		fi, ok := inInfo[p[0]]
		if !ok {
			var err error
			if fi, err = os.Stat(p[0]); err != nil {
				return nil, nil, fmt.Errorf("input %s: %v", p[0], unwrapPath(err))
			}
		}
		if k, ok := keyOf(fi); ok {
			inputs[k] = "the input " + p[0]
		}
	}
	// Files other flags read (--index-cdx) are inputs too: --force does
	// not let a report be written over the index the run reads.
	for _, flag := range slices.Sorted(maps.Keys(reads)) {
		if reads[flag] == "" {
			continue
		}
		if fi, err := os.Stat(reads[flag]); err == nil {
			if k, ok := keyOf(fi); ok {
				inputs[k] = fmt.Sprintf("the --%s file %s", flag, reads[flag])
			}
		}
	}
	// Standard input or output counts only when it is a regular file: a
	// terminal or /dev/null is both in many a shell, and is overwritten by
	// nothing.
	if ins[0] == "-" {
		if k, ok := fileKeyOf(stdin); ok {
			inputs[k] = "the file on standard input"
		}
	}

	var jobs []job
	var outs []*output
	paths := map[string]string{}
	// Streams by identity: standard output and a name for the same pipe,
	// terminal or file (/dev/stdout, /proc/self/fd/1) would interleave two
	// outputs in one. /dev/null takes any number.
	streams := map[fileKey]string{}
	devNull, _ := streamKey("/dev/null")
	add := func(name, by string) (*output, error) {
		o, err := classify(name)
		if err != nil {
			return nil, err
		}
		if o.kind == outStdout {
			if k, ok := fileKeyOf(stdout); ok {
				if in, ok := inputs[k]; ok {
					return nil, fmt.Errorf("standard output is %s", in)
				}
			}
		} else if in, ok := inputs[o.key]; ok && o.key != (fileKey{}) {
			return nil, fmt.Errorf("output %s is %s", name, in)
		}
		if o.kind != outStream {
			// One file however it is spelled (dir/../dir/x, dir//x): the
			// run would write it twice.
			p := canonicalPath(o.path)
			if other, ok := paths[p]; ok {
				return nil, fmt.Errorf("%s and %s would both write %s", other, by, o.path)
			}
			paths[p] = by
		}
		var k fileKey
		ok := false
		if o.kind == outStdout {
			k, ok = streamKeyOf(stdout)
		} else {
			k, ok = streamKey(name)
		}
		if ok && k != devNull {
			if other, dup := streams[k]; dup {
				return nil, fmt.Errorf("%s and %s would both write %s", other, by, o.shown())
			}
			streams[k] = by
		}
		outs = append(outs, o)
		return o, nil
	}
	for _, p := range pairs {
		o, err := add(p[1], "the input "+p[0])
		if err != nil {
			return nil, nil, err
		}
		jobs = append(jobs, job{in: p[0], out: o})
	}
	side := map[string]*output{}
	for _, flag := range slices.Sorted(maps.Keys(sides)) {
		if sides[flag] == "" {
			continue
		}
		o, err := add(sides[flag], "--"+flag)
		if err != nil {
			return nil, nil, fmt.Errorf("--%s: %w", flag, err)
		}
		side[flag] = o
	}
	if !force {
		if err := existing(outs); err != nil {
			return nil, nil, err
		}
	}
	return jobs, side, nil
}

// existing returns an existsError naming every output that is a regular file
// already there.
func existing(outs []*output) error {
	var names []string
	for _, o := range outs {
		if o.kind != outFile {
			continue
		}
		if _, err := os.Lstat(o.path); err == nil {
			names = append(names, o.name)
		}
	}
	if names != nil {
		return existsError(names)
	}
	return nil
}

// fileKeyOf identifies standard input or output when it is a regular file.
func fileKeyOf(v any) (fileKey, bool) {
	if fi, ok := statOf(v); ok {
		return keyOf(fi)
	}
	return fileKey{}, false
}

// statOf is the FileInfo of standard input or output, if it is a file.
func statOf(v any) (fs.FileInfo, bool) {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return nil, false
	}
	fi, err := f.Stat()
	return fi, err == nil
}

// checkSides refuses outputs that --index and --cdxj cannot stand for:
//   - with --index, an output in the index's directory (written over the
//     index, --force or not), and a WARC output that is no file (a pipe, a
//     device, /dev/null): the index would hand later runs records kept
//     nowhere, and their revisits would name nothing;
//   - with --cdxj, two outputs of one base name: the index names each
//     output by its base name (as pywb's CDXJ does), and would name two.
func checkSides(jobs []job, side map[string]*output, indexDir string, cdxj, dryRun bool, stdout io.Writer) error {
	if indexDir != "" {
		outs := make([]*output, 0, len(jobs)+len(side))
		for _, j := range jobs {
			outs = append(outs, j.out)
		}
		for _, flag := range slices.Sorted(maps.Keys(side)) {
			outs = append(outs, side[flag])
		}
		if err := notInIndexDir(outs, indexDir); err != nil {
			return err
		}
		for _, j := range jobs {
			if dryRun {
				break
			}
			stream := j.out.kind == outStream
			switch j.out.kind {
			case outStdout:
				_, regular := fileKeyOf(stdout)
				stream = !regular
			case outStream:
				// A descriptor's name (/dev/stdout, /proc/self/fd/1) for a
				// file the shell opened is a file all the same.
				fi, err := os.Stat(j.out.name)
				stream = err != nil || !fi.Mode().IsRegular()
			}
			if stream {
				return fmt.Errorf("--index adds the records this run keeps, for later runs' revisits to name: output %s is a pipe or a device, not a file, so they may be kept nowhere; write it to a file", j.out.shown())
			}
		}
	}
	if cdxj {
		base := map[string]string{}
		for _, j := range jobs {
			b := filepath.Base(j.out.name)
			if other, ok := base[b]; ok {
				return fmt.Errorf("--cdxj names each output by its base name, and %s and %s are both %s: write them to separate runs or directories of their own", other, j.out.name, b)
			}
			base[b] = j.out.name
		}
	}
	return nil
}

// notInIndexDir refuses an output in the directory of an index (--index)
// or below it, or one that is a file of it through a link: --force or
// not, it would be written over the index, or among its files.
func notInIndexDir(outs []*output, indexDir string) error {
	if indexDir == "" {
		return nil
	}
	dir := rawDir(canonicalPath(indexDir + string(os.PathSeparator) + "x"))
	inIndex := map[fileKey]bool{}
	if ents, err := os.ReadDir(indexDir); err == nil {
		for _, e := range ents {
			if k, ok := streamKey(filepath.Join(indexDir, e.Name())); ok {
				inIndex[k] = true
			}
		}
	}
	for _, o := range outs {
		if o.kind == outStdout {
			continue
		}
		k, ok := streamKey(o.name)
		if p := canonicalPath(o.path); strings.HasPrefix(p, dir+string(os.PathSeparator)) || ok && inIndex[k] {
			return fmt.Errorf("output %s is in the index directory %s, whose files are the index: not written, --force or not", o.name, indexDir)
		}
	}
	return nil
}

// streamKey identifies the file name names, whatever its type (a pipe, a
// terminal, a regular file), following links.
func streamKey(name string) (fileKey, bool) {
	fi, err := os.Stat(name)
	if err != nil {
		return fileKey{}, false
	}
	return anyKeyOf(fi)
}

// streamKeyOf identifies standard output, whatever its type.
func streamKeyOf(v any) (fileKey, bool) {
	if fi, ok := statOf(v); ok {
		return anyKeyOf(fi)
	}
	return fileKey{}, false
}

// canonicalPath is path with its directory's links followed, as the
// kernel follows them, so that two spellings of one file compare equal.
// Links come before "..": "L/../x" is x beside L's target, not beside L,
// so the directory is not cleaned as text (filepath.Dir would) before its
// links are followed. Of a directory not made yet, the part that exists is
// followed and the rest is joined to it.
func canonicalPath(path string) string {
	if !filepath.IsAbs(path) {
		// From the working directory as the kernel has it: os.Getwd may
		// give $PWD, a spelling through links, where ".." would go
		// elsewhere than the kernel goes.
		if wd, err := os.Getwd(); err == nil {
			if p, err := filepath.EvalSymlinks(wd); err == nil {
				wd = p
			}
			path = rawJoin(wd, path)
		}
	}
	dir, rest := rawDir(path), []string{rawBase(path)}
	for {
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			if a, err := filepath.Abs(d); err == nil {
				d = a
			}
			return filepath.Join(append([]string{d}, rest...)...)
		}
		parent := rawDir(dir)
		if parent == dir {
			break
		}
		rest = append([]string{rawBase(dir)}, rest...)
		dir = parent
	}
	a, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return a
}

// rawDir is path up to its last separator, not cleaned: "." for a bare
// name, "/" for a name in the root.
func rawDir(path string) string {
	i := strings.LastIndexByte(path, os.PathSeparator)
	switch {
	case i < 0:
		return "."
	case i == 0:
		return string(os.PathSeparator)
	}
	// "a//b": the separators before the name are one; "//b" is in the root.
	if d := strings.TrimRight(path[:i], string(os.PathSeparator)); d != "" {
		return d
	}
	return string(os.PathSeparator)
}

// rawJoin is dir and name with one separator between them, not cleaned
// (filepath.Join would take "L/.." out as text before the kernel follows
// L).
func rawJoin(dir, name string) string {
	if strings.HasSuffix(dir, string(os.PathSeparator)) {
		return dir + name
	}
	return dir + string(os.PathSeparator) + name
}

// rawBase is path after its last separator.
func rawBase(path string) string { return path[strings.LastIndexByte(path, os.PathSeparator)+1:] }

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

// Heritrix adds a suffix to the name of a WARC file it is still writing, and
// renames one it gave up on after a write error.
const (
	openSuffix    = ".open"
	invalidSuffix = ".invalid"
)

// heritrixSuffix is the suffix Heritrix added to name, or "".
func heritrixSuffix(name string) string {
	for _, s := range []string{openSuffix, invalidSuffix} {
		if strings.HasSuffix(name, s) {
			return s
		}
	}
	return ""
}

// gzipName says whether an output of this name is gzipped (--compress=auto):
// its name ends in .gz, before any suffix Heritrix added. An input
// NAME.warc.gz.open keeps its name in an output directory, and is gzipped
// as the name says: the suffix is no reason to write plain text under a
// name that says gzip, which every later tool reads as one.
func gzipName(name string) bool {
	return strings.HasSuffix(strings.TrimSuffix(name, heritrixSuffix(name)), ".gz")
}

// warnHeritrix warns that input is a file Heritrix is still writing or
// gave up on (*.open, *.invalid), which a directory's walk skips: given by
// name, it is read as it is now.
func warnHeritrix(log *slog.Logger, input string) {
	switch heritrixSuffix(input) {
	case openSuffix:
		log.Warn("input is a file Heritrix is still writing (*.open): what it writes later is not in the output, "+
			"and a last record written in part is damage; run again on the finished file once Heritrix has renamed it", "file", input)
	case invalidSuffix:
		log.Warn("input is a file Heritrix gave up on after a write error (*.invalid): its last record may be damaged",
			"file", input)
	}
}

// prepare takes the lock of every regular-file output, creating the
// directories they go in, and removes the temporary files a killed run left of
// them. It fails, releasing what it took, when another run holds one of the
// locks or, unless force, an output appeared since plan looked.
func prepare(outs []*output, force bool, reg *registry) error {
	err := func() error {
		for _, o := range outs {
			if o.kind != outFile {
				continue
			}
			var missing []string // deepest first
			for d := filepath.Dir(o.path); ; d = filepath.Dir(d) {
				if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
					break
				}
				missing = append(missing, d)
			}
			if err := os.MkdirAll(filepath.Dir(o.path), 0o755); err != nil {
				return fmt.Errorf("output %s: %v", o.name, unwrapPath(err))
			}
			reg.madeDirs(missing)
			if err := o.lockOutput(reg); err != nil {
				return err
			}
		}
		if !force {
			if err := existing(outs); err != nil {
				return err
			}
		}
		return removeStale(outs, reg)
	}()
	if err != nil {
		for _, o := range outs {
			o.unlock(reg)
		}
	}
	return err
}

// prepareExit is the exit status of a command whose outputs prepare
// refused: 1 when another run holds one (trying again later may work), 2
// when one exists or cannot be written safely.
func prepareExit(err error) int {
	if errors.Is(err, errLocked) {
		return exitFailure
	}
	return exitUsage
}

// parseInterspersed parses flags wherever they are on the command line, as
// GNU tools do: "warcdedup IN OUT --force" forces, rather than naming an
// input "OUT" and an output "--force". After "--" every argument is a file
// name; "-" is standard input or output.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		rest := fl.Args()
		if len(rest) == 0 {
			return files, nil
		}
		// flag stops at the first argument that is not a flag, and after
		// "--", which it consumes: tell the two apart.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(files, rest...), nil
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}
