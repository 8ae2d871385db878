package process

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"sync"
)

// startHeapProfile keeps, for `make bench`, the heap profile of the
// collection that left the most live: a provider's peak is in the middle
// of a run, and its heap at exit says little. When the process ends it
// writes that profile to path, the peak live heap in bytes to path.live,
// and what the goroutines were doing then to path.goroutines: a heap held
// by requests in flight shows there. An empty path, or one that cannot be written, keeps nothing.
func startHeapProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	var (
		mu         sync.Mutex
		peak       uint64
		profile    bytes.Buffer
		goroutines bytes.Buffer
		stopped    bool
	)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) {
			metrics.Read(live)
			mu.Lock()
			defer mu.Unlock()
			if stopped {
				return
			}
			// A profile costs a walk of every sampled allocation: only
			// for a peak a tenth above the last.
			if v := live[0].Value.Uint64(); live[0].Value.Kind() == metrics.KindUint64 && v > peak+peak/10 {
				peak = v
				profile.Reset()
				_ = pprof.WriteHeapProfile(&profile)
				goroutines.Reset()
				_ = pprof.Lookup("goroutine").WriteTo(&goroutines, 1)
			}
			arm()
		})
	}
	arm()
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
