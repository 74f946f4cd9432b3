//go:build !unix

package bench

import "time"

var processStart = time.Now()

// CPUTime is the wall time since the process started where the process's CPU
// time is not available.
func CPUTime() time.Duration { return time.Since(processStart) }
