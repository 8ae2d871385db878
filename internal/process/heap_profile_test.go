package process

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The peak kept is the most any collection left live, not the last: 32 MB
// held, then 2 MB more (under the tenth that takes a new profile), then
// all let go.
func TestHeapProfileKeepsThePeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	stop := startHeapProfile(path)
	held := make([]byte, 32<<20)
	for i := range held {
		held[i] = byte(i)
	}
	runtime.GC()
	runtime.GC() // the finalizer of the first cycle runs; the second reads it
	more := make([]byte, 2<<20)
	for i := range more {
		more[i] = byte(i)
	}
	runtime.GC()
	runtime.GC()
	runtime.KeepAlive(held)
	runtime.KeepAlive(more)
	runtime.GC()
	runtime.GC()
	stop()
	live, err := os.ReadFile(path + ".live")
	if err != nil {
		t.Fatal(err)
	}
	peak, err := strconv.ParseUint(strings.TrimSpace(string(live)), 10, 64)
	if err != nil || peak < 34<<20 {
		t.Errorf("peak live heap %q, want at least the 34 MB held (%v)", live, err)
	}
	for _, suffix := range []string{"", ".goroutines"} {
		if info, err := os.Stat(path + suffix); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", path+suffix, err)
		}
	}
}

// Without a path, nothing is kept.
func TestHeapProfileOff(t *testing.T) {
	startHeapProfile("")()
}
