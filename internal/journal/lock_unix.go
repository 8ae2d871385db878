//go:build unix

package journal

import (
	"os"
	"syscall"
)

// Every process that has the journal open holds a shared lock on it, so
// that one finding it free of others (an exclusive lock granted at once)
// may empty it.

func lockExclusiveNow(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

func lockShared(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }
