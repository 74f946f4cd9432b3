package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isGzip says whether b starts as a gzip member does.
func isGzip(b []byte) bool { return len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b }

// TestHeritrixNames: a file Heritrix is still writing (NAME.warc.gz.open) or
// gave up on (NAME.warc.gz.invalid), given by name, is read with a warning
// and compressed as its name says without the suffix: an output named .gz
// is never plain text. It keeps its name in an output directory, and
// every other name is compressed as before.
func TestHeritrixNames(t *testing.T) {
	gz := mustRead(t, samplePath)
	plain := canonical(gz)
	src := t.TempDir()
	ref := filepath.Join(src, "ref.warc")
	if code, msg := runCLI(t, "-q", samplePath, ref); code != exitOK {
		t.Fatalf("reference run: exit %d: %s", code, msg)
	}
	want := mustRead(t, ref)
	const (
		stillWriting = "Heritrix is still writing"
		gaveUp       = "Heritrix gave up on"
	)
	for _, tc := range []struct {
		in      string // the input's name
		gzipped bool   // the input is gzipped
		out     string // the output's name; "" for an output directory
		flags   []string
		want    string // the output's name
		gzip    bool   // the output is gzipped
		warn    string // in the warning, "" for none
	}{
		{in: "a.warc.gz.open", gzipped: true, want: "a.warc.gz.open", gzip: true, warn: stillWriting},
		{in: "a.warc.open", want: "a.warc.open", warn: stillWriting},
		{in: "a.warc.gz.invalid", gzipped: true, want: "a.warc.gz.invalid", gzip: true, warn: gaveUp},
		{in: "a.warc.invalid", want: "a.warc.invalid", warn: gaveUp},
		{in: "a.warc.gz.open", gzipped: true, out: "b.warc.gz.open", want: "b.warc.gz.open", gzip: true, warn: stillWriting},
		{in: "a.warc.gz.open", gzipped: true, out: "b.warc", want: "b.warc", warn: stillWriting},
		{in: "a.warc.gz.open", gzipped: true, flags: []string{"--compress=no"}, want: "a.warc.gz.open", warn: stillWriting},
		{in: "a.warc.open", flags: []string{"--compress=yes"}, want: "a.warc.open", gzip: true, warn: stillWriting},
		{in: "a.warc.gz", gzipped: true, out: "b.warc.gz.open", want: "b.warc.gz.open", gzip: true},
		{in: "a.warc.gz", gzipped: true, want: "a.warc.gz", gzip: true},
		{in: "a.warc", want: "a.warc"},
		{in: "a.warc.gz", gzipped: true, out: "b.warc", want: "b.warc"},
		{in: "a.warc", out: "b.warc.gz", want: "b.warc.gz", gzip: true},
		{in: "a.open.warc", want: "a.open.warc"},
		{in: "a.warc.gz.opened", gzipped: true, want: "a.warc.gz.opened"},
	} {
		name := tc.in + "->" + tc.out + strings.Join(tc.flags, "")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in", tc.in)
			if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
				t.Fatal(err)
			}
			b := plain
			if tc.gzipped {
				b = gz
			}
			if err := os.WriteFile(in, b, 0o644); err != nil {
				t.Fatal(err)
			}
			outDir := filepath.Join(dir, "out")
			out := outDir + string(os.PathSeparator)
			if tc.out != "" {
				out = filepath.Join(outDir, tc.out)
				if err := os.Mkdir(outDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			code, msg := runCLI(t, append(append([]string{}, tc.flags...), in, out)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, msg)
			}
			if ns := names(t, outDir); len(ns) != 1 || ns[0] != tc.want {
				t.Fatalf("the output directory holds %v, want %s", ns, tc.want)
			}
			got := mustRead(t, filepath.Join(outDir, tc.want))
			if isGzip(got) != tc.gzip {
				t.Errorf("output gzipped: %v, want %v (it starts %q)", isGzip(got), tc.gzip, got[:min(8, len(got))])
			}
			if !bytes.Equal(canonical(got), want) {
				t.Errorf("the output's records differ from those of %s", samplePath)
			}
			warned := strings.Contains(msg, "warning: input is a file")
			if tc.warn == "" && warned {
				t.Errorf("a warning for a file Heritrix has finished:\n%s", msg)
			}
			if tc.warn != "" && (!strings.Contains(msg, tc.warn) || !strings.Contains(msg, "file="+in)) {
				t.Errorf("no warning naming %s that %s it:\n%s", in, tc.warn, msg)
			}
		})
	}
}

// TestApplyHeritrixNames: the apply step compresses an output named
// NAME.warc.gz.open as a run on one machine does, and map warns about it.
func TestApplyHeritrixNames(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in", "a.warc.gz.open")
	copyFile(t, samplePath, in)
	one := filepath.Join(dir, "one")
	if code, msg := runCLI(t, "-q", in, one+"/"); code != exitOK {
		t.Fatalf("one run: exit %d: %s", code, msg)
	}
	code, facts, stderr := step(t, mapList([]string{in}), "map")
	if code != exitOK {
		t.Fatalf("map: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Heritrix is still writing") || !strings.Contains(stderr, "file="+in) {
		t.Errorf("map does not warn about %s:\n%s", in, stderr)
	}
	_, decisions, _ := step(t, []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(facts, "\n"), "\n"))), "reduce", "-q")
	sorted := []byte(sortLines(strings.SplitAfter(strings.TrimSuffix(decisions, "\n"), "\n")))
	out := filepath.Join(dir, "out")
	if code, _, stderr := step(t, sorted, "apply", "-q", out+"/"); code != exitOK {
		t.Fatalf("apply: exit %d: %s", code, stderr)
	}
	got := mustRead(t, filepath.Join(out, "a.warc.gz.open"))
	if !isGzip(got) {
		t.Errorf("apply wrote a.warc.gz.open uncompressed (it starts %q)", got[:min(8, len(got))])
	}
	if !bytes.Equal(got, mustRead(t, filepath.Join(one, "a.warc.gz.open"))) {
		t.Error("apply's output differs from the one run's")
	}
}
