package process

import (
	"bytes"
	"os"
	"runtime/pprof"
	"strconv"
	"sync"
)

// startHeapProfile keeps, for `make bench`, what the collection that left
// the most live shows: a provider's peak is in the middle of a run, and its
// heap at exit says little. When the process ends it writes the most any
// collection left live, in bytes, to path.live; the heap profile taken at
// the last peak a tenth above the one before to path; and what the
// goroutines were doing then to path.goroutines: a heap held by requests in
// flight shows there. An empty path, or one that cannot be written, keeps
// nothing.
func startHeapProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	var (
		mu         sync.Mutex
		peak       uint64 // the most any collection left live
		profiled   uint64 // what was live when the profile kept was taken
		profile    bytes.Buffer
		goroutines bytes.Buffer
		stopped    bool
	)
	afterEachCollection(func(v uint64) bool {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return false
		}
		peak = max(peak, v)
		// A profile costs a walk of every sampled allocation: only for a
		// peak a tenth above the last one profiled. The runtime publishes
		// a cycle's heap profile once the next one ends, so the profile
		// kept is of the cycle before the peak's.
		if v > profiled+profiled/10 {
			profiled = v
			profile.Reset()
			_ = pprof.WriteHeapProfile(&profile)
			goroutines.Reset()
			_ = pprof.Lookup("goroutine").WriteTo(&goroutines, 1)
		}
		return true
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if peak == 0 {
			return
		}
		_ = os.WriteFile(path, profile.Bytes(), 0o600)
		_ = os.WriteFile(path+".live", []byte(strconv.FormatUint(peak, 10)+"\n"), 0o600)
		_ = os.WriteFile(path+".goroutines", goroutines.Bytes(), 0o600)
	}
}
