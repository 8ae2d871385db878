//go:build unix

package journal

import (
	"os"
	"syscall"
)

// Every process that has the journal open holds a shared lock on it, so
// that one finding it free of others (an exclusive lock granted at once)
// may compact it.
func lockExclusiveNow(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

func lockShared(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_SH) }

// lockPath takes the exclusive lock of path, a file beside the journal,
// and returns what releases it: every open (and so every compaction) and
// every take happens under it.
func lockPath(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}
