package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// outKind says how an output is written.
type outKind int

const (
	// outStdout is standard output ("-").
	outStdout outKind = iota
	// outFile is a regular file: written to a temporary file beside it, which
	// is renamed onto it when complete, so that a reader never sees half a WARC
	// and a failed run leaves what was there before.
	outFile
	// outStream is a character device, a FIFO or a pipe (bash's >(cmd) names
	// one /dev/fd/N), or a file the caller opened and named by its descriptor:
	// written directly, as there is nothing to rename onto.
	outStream
)

// output is one file the run writes.
type output struct {
	name string // as given on the command line
	path string // where it is written: name with the symbolic links of its last element followed
	kind outKind
	key  fileKey  // the file there now, if it is a regular file
	lock *os.File // held while the run may write path
}

// shown is the output's name in messages.
func (o *output) shown() string {
	if o.kind == outStdout {
		return "<stdout>"
	}
	return o.name
}

// anyKeyOf identifies a file of any type (a pipe, a terminal).
func anyKeyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), st.Ino}, true
}

// fileKey identifies a file: two names with the same key are one file.
type fileKey struct{ dev, ino uint64 }

func keyOf(fi fs.FileInfo) (fileKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), st.Ino}, true
}

// descriptorPath matches names of an open file descriptor. Following such a
// link by readlink gives "pipe:[N]" or the name the file had when it was
// opened, which is not where the caller wants the output.
var descriptorPath = regexp.MustCompile(`^/(dev|proc/(self|thread-self|[0-9]+))/fd/[0-9]+$`)

// classify finds how the output name is to be written. It creates nothing.
func classify(name string) (*output, error) {
	o := &output{name: name, path: name}
	if name == "-" {
		o.kind = outStdout
		return o, nil
	}
	fi, err := os.Stat(name)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("output %s is a directory", name)
	case err == nil && fi.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		o.kind = outStream
		return o, nil
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("output %s is a %s, not a regular file, character device or pipe: not written", name, typeName(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("output %s: %v", name, unwrapPath(err))
	}
	if err == nil {
		o.key, _ = keyOf(fi)
	}
	path, err := resolve(name)
	switch {
	case err != nil:
		return nil, err
	case path == "":
		// A regular file the caller opened, named by its descriptor: the
		// caller chose to write it.
		o.kind = outStream
	default:
		// As the kernel resolves it: the lock, the temporary file and the
		// directories made go beside the file the name names, also when a
		// link is followed by ".." (filepath.Dir of "L/../d/x" is "d").
		o.kind, o.path = outFile, outPath(path)
	}
	return o, nil
}

func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// resolve follows the symbolic links of name's last element, so that the
// output replaces the file a link points to and the link stays; the
// directories on the way need no resolving, as a rename within one works
// whatever it is called. It returns "" for a name of an open descriptor.
func resolve(name string) (string, error) {
	p := name
	for range 40 {
		if descriptorPath.MatchString(filepath.Clean(p)) {
			return "", nil
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("output %s: %v", name, unwrapPath(err))
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("output %s: %v", name, unwrapPath(err))
		}
		if !filepath.IsAbs(t) {
			// Not cleaned as text: "../x" is beside the link's directory
			// as the kernel finds it, which a link before the ".." may
			// put elsewhere than filepath.Join would.
			d := rawDir(p)
			if !strings.HasSuffix(d, string(os.PathSeparator)) {
				d += string(os.PathSeparator)
			}
			t = d + t
		}
		p = t
	}
	return "", fmt.Errorf("output %s: too many levels of symbolic links", name)
}

// outPath is where the output named path is written: path as it is when
// cleaning it as text names the file the kernel opens (no link before a
// ".."), which keeps a relative name short (in a directory deeper than
// PATH_MAX an absolute one cannot be opened); the path resolved link by
// link (canonicalPath) when it does not.
func outPath(path string) string {
	if !strings.Contains(path, "..") {
		return path // cleaning removes "." and repeated separators only
	}
	if c := canonicalPath(path); c != canonicalPath(filepath.Clean(path)) {
		return c
	}
	return path
}

// unwrapPath returns the cause of a *fs.PathError, whose message would repeat
// the operation and the name the caller already gives.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Beside each regular-file output, while the run may write it, are a lock file
// and the temporary file the output is written to. Their names start with a dot
// and the output's name, so that they sort with it and ls hides them.
const (
	lockSuffix = ".warcdedup-lock"
	tempInfix  = ".warcdedup-tmp-"
)

func lockName(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+lockSuffix)
}

// isTempOf says whether a file name in path's directory is a temporary file of
// path: CreateTemp puts decimal digits in place of the pattern's "*", and a
// temporary file of an output named "x.warcdedup-tmp-1" is not one of "x".
func isTempOf(file, path string) bool {
	rest, ok := strings.CutPrefix(file, "."+filepath.Base(path)+tempInfix)
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// errLocked says another run holds an output's lock.
var errLocked = errors.New("another warcdedup run is writing it")

// lockOutput takes the lock on o beside its path (flock, which the kernel
// releases when the holder dies, so a lock file left by kill -9 locks nothing).
// A run removes its lock file when done; one that opened the file just before
// it was removed would lock a file no one else sees, so after locking it checks
// that the name still leads to the locked file, and else starts again.
func (o *output) lockOutput(reg *registry) error {
	name := lockName(o.path)
	for {
		f, err := reg.create(func() (*os.File, error) {
			return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		})
		if errors.Is(err, syscall.EMFILE) {
			return fmt.Errorf("output %s: lock file: %v (a run keeps the lock file of each of its outputs open: raise the limit, ulimit -n, or split the batch)", o.name, unwrapPath(err))
		}
		if err != nil {
			return fmt.Errorf("output %s: lock file: %v", o.name, unwrapPath(err))
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			// Not ours to remove: the run holding it will.
			reg.forget(name)
			f.Close()
			return fmt.Errorf("output %s: %w (it holds %s)", o.name, errLocked, name)
		}
		if err != nil {
			reg.forget(name)
			f.Close()
			return fmt.Errorf("output %s: locking %s: %v", o.name, name, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(name)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			o.lock = f
			return nil
		}
		reg.forget(name)
		f.Close()
	}
}

// unlock removes the lock file and then releases the lock: removed first, so
// that a run waiting for it finds the name gone and makes a new one.
func (o *output) unlock(reg *registry) {
	if o.lock == nil {
		return
	}
	reg.remove(lockName(o.path))
	o.lock.Close()
	o.lock = nil
	reg.removeMade()
}

// removeStale removes the temporary files of outputs whose lock the run holds,
// left by a run that was killed without a chance to remove them (kill -9, a
// crash, a power cut): while the lock is held no other run writes them.
func removeStale(outs []*output, reg *registry) error {
	byDir := map[string][]*output{}
	for _, o := range outs {
		if o.lock != nil {
			d := filepath.Dir(o.path)
			byDir[d] = append(byDir[d], o)
		}
	}
	for dir, dirOuts := range byDir {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		names := map[string][]string{}
		for _, e := range ents {
			// The last infix: the output's own name may hold one.
			if i := strings.LastIndex(e.Name(), tempInfix); i > 0 && e.Type().IsRegular() {
				base := e.Name()[1:i]
				names[base] = append(names[base], e.Name())
			}
		}
		for _, o := range dirOuts {
			for _, n := range names[filepath.Base(o.path)] {
				if isTempOf(n, o.path) && !reg.kept(filepath.Join(dir, n)) {
					if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
						return err
					}
				}
			}
		}
	}
	return nil
}

// registry holds the files a run must not leave behind, temporary outputs and
// lock files, so that an interrupted run can remove them before it exits.
type registry struct {
	mu    sync.Mutex
	files map[string]bool
	// pending counts what the command has still to do (expect): its outputs
	// not yet complete, and the reading of an input of unknown length. Once
	// it is 0 a signal changes nothing: everything is written, and the run
	// ends on its own with the status that says so.
	pending int
	// finished names the outputs complete, in order, and unfinished those
	// begun and not complete: what an interrupted run says of its outputs.
	finished, unfinished []string
	// keep are the files the command reads (its inputs): removeStale never
	// takes one for a killed run's temporary file, whatever its name.
	keep map[fileKey]bool
	// made are the directories prepare made for outputs, deepest first:
	// removed again, when empty, once no output holds them (a run refused
	// or failed leaves no empty directory behind).
	made []string
	// undo holds what undoes the changes the command made outside its
	// outputs (a segment staged in an index) while it is not done: an
	// interrupted command runs them, as it removes its temporary files.
	undo []func()
}

// madeDirs notes directories made for outputs, deepest first.
func (r *registry) madeDirs(dirs []string) {
	r.mu.Lock()
	r.made = append(r.made, dirs...)
	r.mu.Unlock()
}

// removeMade removes the directories made for outputs that are empty.
func (r *registry) removeMade() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removeMadeLocked()
}

func (r *registry) removeMadeLocked() {
	left := r.made[:0]
	for _, d := range r.made {
		if err := os.Remove(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, d)
		}
	}
	r.made = left
}

func newRegistry() *registry { return &registry{files: map[string]bool{}, keep: map[fileKey]bool{}} }

// protect notes files the command reads, which are never removed.
func (r *registry) protect(paths ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			if k, ok := keyOf(fi); ok {
				r.keep[k] = true
			}
		}
	}
}

// protectFile notes a file the command reads through a descriptor
// (standard input), when it is a regular file.
func (r *registry) protectFile(v any) {
	if k, ok := fileKeyOf(v); ok {
		r.mu.Lock()
		r.keep[k] = true
		r.mu.Unlock()
	}
}

// kept says whether the file at path is one the command reads.
func (r *registry) kept(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	k, ok := keyOf(fi)
	r.mu.Lock()
	defer r.mu.Unlock()
	return ok && r.keep[k]
}

// expect counts n more things the command must do before a signal may be
// ignored; complete, or a complete output, counts one of them done.
func (r *registry) expect(n int) {
	r.mu.Lock()
	r.pending += n
	r.mu.Unlock()
}

// complete counts one thing the command was to do, other than an output,
// as done.
func (r *registry) complete() {
	r.mu.Lock()
	r.pending--
	r.mu.Unlock()
}

// begin records that the output name is being written.
func (r *registry) begin(name string) {
	r.mu.Lock()
	r.unfinished = append(r.unfinished, name)
	r.mu.Unlock()
}

// done counts the output name as complete; r.mu is held.
func (r *registry) done(name string) {
	if i := slices.Index(r.unfinished, name); i >= 0 {
		r.unfinished = slices.Delete(r.unfinished, i, i+1)
	}
	r.finished = append(r.finished, name)
	r.pending--
}

// create makes a file with open and registers its name in one step, so that a
// signal cannot come between them.
func (r *registry) create(open func() (*os.File, error)) (*os.File, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := open()
	if err == nil {
		r.files[f.Name()] = true
	}
	return f, err
}

func (r *registry) forget(name string) {
	r.mu.Lock()
	delete(r.files, name)
	r.mu.Unlock()
}

// remove removes a registered file.
func (r *registry) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	os.Remove(name)
	delete(r.files, name)
}

// rename renames a registered temporary file onto its target, the output
// name, in one step, so that an interrupted run removes either the temporary
// file or nothing, and names the output finished exactly when it is.
func (r *registry) rename(tmp, target, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	delete(r.files, tmp)
	r.done(name)
	return nil
}

// written counts the output name, written directly, as complete.
func (r *registry) written(name string) {
	r.mu.Lock()
	r.done(name)
	r.mu.Unlock()
}

// undoable runs do with the registry locked and, if it succeeds, keeps
// undo to undo it: a signal then comes either before do or after undo is
// kept, never between them. An interrupted command runs undo; a command
// that fails later runs it with undoNow.
func (r *registry) undoable(do func() error, undo func()) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := do(); err != nil {
		return err
	}
	r.undo = append(r.undo, undo)
	return nil
}

// undoNow runs what undoes the command's changes (undoable), latest first,
// once.
func (r *registry) undoNow() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runUndo()
}

// runUndo runs r.undo, latest first, and forgets it; r.mu is held.
func (r *registry) runUndo() {
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i]()
	}
	r.undo = nil
}

// interrupt removes every registered file, undoes the command's changes
// (undoable) and keeps the registry locked, so that nothing creates or
// renames a file before the process exits, and returns the outputs finished
// and those that are not; it does nothing and returns false when the
// command has nothing left to do.
func (r *registry) interrupt() (finished, unfinished []string, ok bool) {
	r.mu.Lock()
	if r.pending <= 0 {
		r.mu.Unlock()
		return nil, nil, false
	}
	for name := range r.files {
		os.Remove(name)
	}
	r.removeMadeLocked()
	r.runUndo()
	return r.finished, r.unfinished, true
}

// syncFile is fsync; tests replace it to see what is synced, and to make it fail.
var syncFile = (*os.File).Sync

// writer is an output being written.
type writer struct {
	io.Writer
	o    *output
	f    *os.File // the temporary file or the stream; nil for standard output
	reg  *registry
	perm fs.FileMode
}

// create opens o for writing; a regular file gets perm when complete.
func (o *output) create(reg *registry, stdout io.Writer, perm fs.FileMode) (*writer, error) {
	w := &writer{o: o, reg: reg, perm: perm}
	reg.begin(o.shown())
	switch o.kind {
	case outStdout:
		w.Writer = stdout
		return w, nil
	case outStream:
		flag := os.O_WRONLY
		if fi, err := os.Stat(o.path); err == nil && fi.Mode().IsRegular() {
			// A file the caller opened (>> f, named /dev/stdout): written
			// after what it holds, as the caller's own descriptor would.
			flag |= os.O_APPEND
		}
		f, err := os.OpenFile(o.path, flag, 0)
		if err != nil {
			return nil, fmt.Errorf("output %s: %v", o.name, unwrapPath(err))
		}
		w.Writer, w.f = f, f
		return w, nil
	}
	f, err := reg.create(func() (*os.File, error) {
		return os.CreateTemp(filepath.Dir(o.path), "."+filepath.Base(o.path)+tempInfix+"*")
	})
	if err != nil {
		return nil, fmt.Errorf("output %s: %v", o.name, unwrapPath(err))
	}
	w.Writer, w.f = f, f
	return w, nil
}

// finish completes the output: a regular file is synced, renamed onto its
// name and its directory synced, so that after a crash the name holds either
// the whole new file or what it held before. On failure nothing of the new
// output is left.
func (w *writer) finish() error {
	if w.f == nil {
		w.reg.written(w.o.shown())
		return nil
	}
	if w.o.kind == outStream {
		if err := w.f.Close(); err != nil {
			return fmt.Errorf("output %s: %v", w.o.name, unwrapPath(err))
		}
		w.reg.written(w.o.shown())
		return nil
	}
	tmp := w.f.Name()
	err := w.f.Chmod(w.perm)
	if err == nil {
		err = syncFile(w.f)
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.reg.rename(tmp, w.o.path, w.o.shown())
	}
	if err != nil {
		w.reg.remove(tmp)
		return fmt.Errorf("output %s: %v", w.o.name, unwrapPath(err))
	}
	if err := syncOutputDir(filepath.Dir(w.o.path)); err != nil {
		// The file is complete and synced; only whether its rename survives
		// a crash is unknown. It stays: removing it would lose the output,
		// and with --force the earlier file it replaced as well.
		return fmt.Errorf("output %s is written, but syncing its directory failed (the rename may not survive a crash): %v", w.o.name, unwrapPath(err))
	}
	return nil
}

// abort ends an output that failed: a temporary file is removed; what was
// written to a stream stays written.
func (w *writer) abort() {
	if w.f == nil {
		return
	}
	w.f.Close()
	if w.o.kind == outFile {
		w.reg.remove(w.f.Name())
	}
}

// syncOutputDir syncs an output's directory after the rename (a variable so
// that tests can make it fail).
var syncOutputDir = syncDir

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = syncFile(d)
	if errors.Is(err, syscall.EINVAL) {
		// A file system that cannot sync a directory makes the rename
		// durable on its own terms.
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
