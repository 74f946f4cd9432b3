// Package testshared locates the material that tests run over beside the
// project's own test data: real WARC files, the corpus of web pages with gold
// main text, and an independent WARC checker, in a folder named shared next to
// the checkout (or WARCDEDUP_SHARED). Tests of every package are self-contained;
// the tests that use this folder are a layer on top, and each of them skips with
// the same message when it is absent, so a clone on its own passes.
package testshared

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Env names the folder when it is not beside the checkout.
const Env = "WARCDEDUP_SHARED"

var (
	once sync.Once
	root string
)

// find returns the shared folder: $WARCDEDUP_SHARED, or shared/ beside the
// module's root (the directory holding go.mod, found from the working
// directory, which go test sets to the package's), or "" when there is none.
func find() string {
	once.Do(func() {
		if d := os.Getenv(Env); d != "" {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				root, _ = filepath.Abs(d)
			}
			return
		}
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				d := filepath.Join(filepath.Dir(dir), "shared")
				if st, err := os.Stat(d); err == nil && st.IsDir() {
					root = d
				}
				return
			}
			up := filepath.Dir(dir)
			if up == dir {
				return
			}
			dir = up
		}
	})
	return root
}

// skipMessage is the one message every test over the shared folder skips with.
const skipMessage = "shared test material not found (../shared beside the checkout, or $" + Env + "): test over real WARCs and pages skipped"

// Available reports whether the shared folder is there.
func Available() bool { return find() != "" }

// Path returns the absolute path of rel inside the shared folder, and skips the
// test when the folder is absent. A missing rel in a present folder fails the
// test: the folder is there but not what the test was written for.
func Path(t testing.TB, rel string) string {
	t.Helper()
	r := find()
	if r == "" {
		t.Skip(skipMessage)
	}
	p := filepath.Join(r, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared folder %s has no %s: %v", r, rel, err)
	}
	return p
}

// Measure is Path for corpus-wide measurements, which take from seconds to
// minutes: they run in the full suite (CI's) and are skipped by go test -short.
func Measure(t testing.TB, rel string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("corpus-wide measurement: skipped with -short")
	}
	return Path(t, rel)
}

// WARCs is the folder of real WARC and ARC files.
func WARCs(t testing.TB) string { t.Helper(); return Path(t, "warcs") }

// Corpus is the folder of real web pages with gold main text.
func Corpus(t testing.TB) string { t.Helper(); return Path(t, "corpus") }

// Checker returns the command line that runs the independent WARC checker
// (tools/warccheck.py) with args; it skips when the folder or python3 is absent.
func Checker(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	script := Path(t, "tools/warccheck.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the independent WARC checker cannot run")
	}
	return exec.Command(py, append([]string{script}, args...)...)
}
