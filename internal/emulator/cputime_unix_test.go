//go:build unix

package emulator

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used, all threads
// together: on a shared machine it shows the work a restart does, which
// wall time alone hides behind the other load.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
