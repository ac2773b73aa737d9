//go:build unix

package dissect

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used so far (user and
// system), and whether the platform says.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
