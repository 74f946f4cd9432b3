package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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
				pairs = append(pairs, [2]string{in, filepath.Join(outArg, filepath.Base(in))})
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
				pairs = append(pairs, [2]string{f, filepath.Join(outArg, rel)})
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
			if other, ok := paths[o.path]; ok {
				return nil, fmt.Errorf("%s and %s would both write %s", other, by, o.path)
			}
			paths[o.path] = by
		}
		outs = append(outs, o)
		return o, nil
	}
	for _, p := range pairs {
		o, err := add(p[1], "the input "+p[0])
		if err != nil {
			return nil, nil, err
		}
		jobs = append(jobs, job{p[0], o})
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
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return fileKey{}, false
	}
	fi, err := f.Stat()
	if err != nil {
		return fileKey{}, false
	}
	return keyOf(fi)
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
			if err := os.MkdirAll(filepath.Dir(o.path), 0o755); err != nil {
				return fmt.Errorf("output %s: %v", o.name, unwrapPath(err))
			}
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
