//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user and system) the process has used so far.
// Differences of it time a stage by the work it does rather than by the wall
// clock, which other jobs on a shared machine stretch. It counts every
// goroutine, the garbage collector's too, so a stage timed by it should run
// alone.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
