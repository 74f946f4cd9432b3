package linesort

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSorter: lines sorted in runs and merged come out as sort.Strings sorts
// them (LC_ALL=C), whatever the budget: all held, one run, and more runs
// than a Sorter keeps (merged in levels); no run file is left in the
// directory.
func TestSorter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var lines []string
	for i := range 3000 {
		// Shared prefixes, repeats, bytes above ASCII, empty lines, long
		// lines: what bytewise order and a line reader must get right.
		var b strings.Builder
		b.WriteString([]string{"com,example)/", "com,example)/a", "org,wiki)/é", "", "中国,163)/"}[rng.IntN(5)])
		for range rng.IntN(4) {
			b.WriteByte(byte('a' + rng.IntN(3)))
		}
		if i%500 == 0 {
			b.WriteString(strings.Repeat("x", 100_000))
		}
		lines = append(lines, b.String())
	}
	want := slices.Clone(lines)
	slices.Sort(want)
	defer func(n int) { maxFanIn = n }(maxFanIn)
	maxFanIn = 4
	for _, tc := range []struct {
		name     string
		budget   int
		wantRuns int // spills, at least
	}{{"held", 1 << 30, 0}, {"one run", 150_000, 1}, {"many runs", 2_000, 3*maxFanIn + 1}} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			s := New(dir, tc.budget)
			for _, l := range lines {
				if err := s.Add(l); err != nil {
					t.Fatal(err)
				}
			}
			if s.spills < tc.wantRuns || len(s.runs) >= maxFanIn {
				t.Fatalf("%d runs written, %d kept; want %d or more written, under %d kept", s.spills, len(s.runs), tc.wantRuns, maxFanIn)
			}
			var out bytes.Buffer
			n, err := s.WriteTo(&out)
			if err != nil {
				t.Fatal(err)
			}
			if int(n) != out.Len() {
				t.Errorf("WriteTo says %d bytes, wrote %d", n, out.Len())
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if !slices.Equal(got, want) {
				t.Fatalf("%d lines out, %d in; not sort.Strings' order", len(got), len(want))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
				t.Errorf("files left after Close: %v", left)
			}
		})
	}
}

// TestSorterErrors: a line with a line break is refused; a run that cannot
// be written fails Add and WriteTo, and Close still removes what was written.
func TestSorterErrors(t *testing.T) {
	s := New(t.TempDir(), 0)
	if err := s.Add("a\nb"); err == nil {
		t.Error("a line with a line break was taken")
	}
	dir := filepath.Join(t.TempDir(), "runs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s = New(dir, 10)
	if err := s.Add("a line longer than the budget"); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("another line past the budget"); err == nil {
		t.Error("Add with no directory for its run did not fail")
	}
	if _, err := s.WriteTo(&bytes.Buffer{}); err == nil {
		t.Error("WriteTo after a failed run did not fail")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
