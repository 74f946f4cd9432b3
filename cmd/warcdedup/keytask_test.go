package main

import (
	"testing"
	"time"

	"github.com/warcdedup/warcdedup/dedup"
)

// TestKeyTaskSpread: the files of a job, keyed as map keys them (by the
// date of their first record and their place in the list), are spread
// over the apply tasks about evenly, for powers of two as for others.
func TestKeyTaskSpread(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const files = 1200
	for _, m := range []int{2, 3, 4, 8, 16} {
		n := make([]int, m)
		for i := range files {
			n[keyTask(dedup.FileKey(start.Add(time.Duration(i)*17*time.Minute), true, uint64(i)), m)]++
		}
		for task, c := range n {
			if want := files / m; c < want*3/4 || c > want*5/4 {
				t.Errorf("%d tasks: task %d takes %d of %d files (%v)", m, task, c, files, n)
				break
			}
		}
	}
}
