package process

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestTuneGC(t *testing.T) {
	// Not parallel: the settings are the process's.
	restore := func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	for name, c := range map[string]struct {
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		"nothing set":     {env: nil, wantPercent: gcPercent, wantLimit: gcMemoryLimit},
		"GOGC set":        {env: map[string]string{"GOGC": "100"}, wantPercent: 100, wantLimit: math.MaxInt64},
		"GOMEMLIMIT set":  {env: map[string]string{"GOMEMLIMIT": "1GiB"}, wantPercent: 100, wantLimit: math.MaxInt64},
		"both set, empty": {env: map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, wantPercent: gcPercent, wantLimit: gcMemoryLimit},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			// The state a user's settings would have made, here the defaults.
			percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
			defer restore(percent, limit)
			tuneGC()
			if got := debug.SetGCPercent(100); got != c.wantPercent {
				t.Errorf("GC percent %d, want %d", got, c.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
				t.Errorf("memory limit %d, want %d", got, c.wantLimit)
			}
		})
	}
}

// A live heap past the threshold hands over; one under it does not.
func TestWatchLiveHeap(t *testing.T) {
	const mib = 1 << 20
	over, under := make(chan struct{}), make(chan struct{})
	watchLiveHeap(8*mib, func() { close(over) })
	watchLiveHeap(1<<40, func() { close(under) })
	held := make([]byte, 32*mib)
	for i := range held {
		held[i] = byte(i)
	}
	deadline := time.Now().Add(10 * time.Second)
	for handedOver := false; !handedOver; {
		runtime.GC()
		select {
		case <-over:
			handedOver = true
		case <-time.After(10 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("no hand-over with 32 MiB live and a threshold of 8 MiB")
			}
		}
	}
	runtime.KeepAlive(held)
	select {
	case <-under:
		t.Error("handed over under the threshold")
	default:
	}
}

func TestGoDefaults(t *testing.T) {
	percent, limit := debug.SetGCPercent(gcPercent), debug.SetMemoryLimit(gcMemoryLimit)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	goDefaults()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d, want none", got)
	}
}

// The settings tuneGC makes give way to Go's default once more than half
// the memory limit stays live: a large workspace's provider no longer
// collects nearly all the time.
func TestTuneGCHandsOverPastHalfTheLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	settings := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	now := func() (uint64, uint64) {
		metrics.Read(settings)
		return settings[0].Value.Uint64(), settings[1].Value.Uint64()
	}
	tuneGC()
	if p, l := now(); p != gcPercent || l != gcMemoryLimit {
		t.Fatalf("after tuneGC: GOGC %d, limit %d; want %d, %d", p, l, gcPercent, gcMemoryLimit)
	}
	held := make([]byte, handOverLive+handOverLive/2)
	for i := range held {
		held[i] = byte(i)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the collection
		if p, l := now(); p == 100 && l == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			p, l := now()
			t.Fatalf("with %d MiB live: GOGC %d, limit %d; want Go's default (100, none)", len(held)>>20, p, l)
		}
	}
	runtime.KeepAlive(held)
}
