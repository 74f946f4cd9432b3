package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"syscall"
)

// The CPU profile (--cpuprofile FILE) is written, as an output is, to a
// temporary file beside FILE, and linked to FILE only once the command has
// finished and the profile is complete: a profile cut short by a signal, a
// crash or a failed run is never left under FILE. FILE must be new, as the
// profile starts before the outputs are planned and checked; a link, unlike a
// rename, fails if FILE has appeared since.
//
// A signal is handled from the moment the temporary file exists: until the
// command's own handler is in place (onSignal), by the profile's handler,
// which removes the temporary file; then by the command's, which removes it
// with the command's files (interruptProfile).
var prof struct {
	mu   sync.Mutex
	tmp  *os.File // the temporary file the profile is written to; nil when none
	path string   // FILE
	// stopEarly ends the profile's own signal handler; nil once the
	// command's has taken over.
	stopEarly func()
	// interrupted is set when a signal removed the temporary file, and the
	// process is exiting.
	interrupted bool
}

// startProfile starts a CPU profile into path ("" for none); it returns
// an exit code if it cannot, or -1. The command ends it with stopProfile.
func startProfile(path string, stderr io.Writer) int {
	if path == "" {
		return -1
	}
	// A new file only: the profile is begun before any output is planned,
	// so a path that names an input or an earlier output must not be
	// replaced, --force or not.
	if _, err := os.Lstat(path); err == nil {
		fmt.Fprintf(stderr, "warcdedup: --cpuprofile %s exists: the profile is written to a new file only\n", path)
		return exitUsage
	}
	prof.mu.Lock()
	defer prof.mu.Unlock()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+tempInfix+"*")
	if err != nil {
		// Before anything is read or written: an output that cannot be
		// written, as the README's exit status table has it.
		fmt.Fprintf(stderr, "warcdedup: --cpuprofile %s: %v\nnothing was written\n", path, unwrapPath(err))
		return exitUsage
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		fmt.Fprintf(stderr, "warcdedup: --cpuprofile %s: %v\n", path, err)
		return exitFailure
	}
	prof.tmp, prof.path = f, path
	prof.stopEarly = profileSignals(stderr)
	return -1
}

// profileSignals handles the stopSignals until the command's
// handler takes over (handOverProfile): the temporary profile is removed and
// the process exits with 128 and the signal's number.
func profileSignals(stderr io.Writer) (stop func()) {
	ch := make(chan os.Signal, 1)
	if len(stopSignals) > 0 { // Notify with none relays every signal
		signal.Notify(ch, stopSignals...)
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			prof.mu.Lock()
			if prof.stopEarly == nil {
				// The command's handler took over as the signal came:
				// it has the signal too, and handles it.
				prof.mu.Unlock()
				return
			}
			// prof.mu stays locked: nothing links the profile now.
			removeProfile()
			prof.interrupted = true
			fmt.Fprintf(stderr, "warcdedup: interrupted (%v); the CPU profile is not written\n", s)
			n, _ := s.(syscall.Signal)
			os.Exit(128 + int(n))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// handOverProfile ends the profile's signal handler once the command's is
// in place. Under prof.mu, so that of two handlers that both have a signal
// exactly one acts on it: the profile's before the command has made a file,
// or the command's.
func handOverProfile() {
	prof.mu.Lock()
	defer prof.mu.Unlock()
	if prof.stopEarly != nil {
		prof.stopEarly()
		prof.stopEarly = nil
	}
}

// interruptProfile removes the temporary profile for the command's signal
// handler, and keeps prof.mu locked, so that the profile is not linked to
// its name before the process exits.
func interruptProfile() {
	prof.mu.Lock()
	removeProfile()
	prof.interrupted = true
}

// removeProfile removes the temporary profile, if any; prof.mu is held.
func removeProfile() {
	if prof.tmp != nil {
		os.Remove(prof.tmp.Name())
	}
}

// stopProfile ends the CPU profile startProfile began, if any, when the
// command ends with code: the profile is synced and linked to its name if
// the command finished (0, or 3 for damaged input carried over), and
// removed if not. It returns the command's exit code, 1 if the profile
// could not be written.
func stopProfile(code int, stderr io.Writer) int {
	prof.mu.Lock()
	defer prof.mu.Unlock()
	if prof.stopEarly != nil {
		prof.stopEarly()
		prof.stopEarly = nil
	}
	if prof.tmp == nil || prof.interrupted {
		return code
	}
	pprof.StopCPUProfile()
	f, path := prof.tmp, prof.path
	prof.tmp, prof.path = nil, ""
	if code != exitOK && code != exitDamaged {
		f.Close()
		os.Remove(f.Name())
		return code
	}
	err := f.Chmod(0o644)
	if err == nil {
		err = syncFile(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = linkNew(f.Name(), path)
	}
	os.Remove(f.Name())
	if err == nil {
		err = syncOutputDir(filepath.Dir(path))
	}
	if err != nil {
		fmt.Fprintf(stderr, "warcdedup: --cpuprofile %s: %v\n", path, unwrapPath(err))
		return exitFailure
	}
	return code
}

// linkNew gives the file tmp the name path, which must not exist. A file
// system without hard links gets a rename: path was free when the profile
// began, and is checked again.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		return &fs.PathError{Op: "rename", Path: path, Err: fs.ErrExist}
	}
	return os.Rename(tmp, path)
}
