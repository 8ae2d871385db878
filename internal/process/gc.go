package process

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The provider's garbage collector settings when the user has set none.
// Most of what the provider allocates lives for one RPC, and its live heap
// stays small (8 MB at the peak of a refreshing plan of 5,000
// subscriptions, once the framework no longer holds every request's
// context: fastpath.ReleaseContexts), so Go's default (a collection each
// time the heap doubles) collected about 40 times per 500-resource plan, a
// fifth of the provider's CPU time. GOGC=400 lets the heap grow further
// between collections, and the memory limit caps that growth, so peak
// memory stays low; above the limit the collector works harder instead of
// the heap growing. Measured on a refreshing plan of 500 subscriptions 37 →
// 13 collections and 1.9 → 1.4 s of provider CPU. The limit was 64 MB while
// the framework held every request: at 32 MB, OpenTofu's refreshing plan of
// 5,000 peaks at 50 MB of RSS (63 MB at 48 MB, 67 at 64), for the same CPU.
//
// A workspace much larger than that may still keep more live than half the
// limit; the collector would then run nearly all the time (it did, at
// 2,000 subscriptions, before the contexts were released: a refreshing
// plan took 10.9 s of provider CPU against 4.2 s with Go's default). Once a
// collection leaves more than half the limit live, the process hands over
// to Go's default (GOGC=100, no limit), whose peak is then twice the live
// heap.
const (
	gcPercent     = 400
	gcMemoryLimit = 32 << 20 // bytes
	handOverLive  = gcMemoryLimit / 2
)

// tuneGC applies those settings unless GOGC or GOMEMLIMIT is set, which
// then rule as they do for any Go program.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(gcMemoryLimit)
	watchLiveHeap(handOverLive, goDefaults)
}

// goDefaults are the settings of a Go program that sets none.
func goDefaults() {
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(100)
}

// gcCycle is what a finalizer is set on to learn that a collection ran. It
// holds a pointer: the tiny allocator batches small pointer-free objects,
// whose finalizers may never run.
type gcCycle struct{ _ *byte }

// watchLiveHeap calls then, once, after the first collection that leaves
// more than threshold bytes live.
func watchLiveHeap(threshold uint64, then func()) {
	afterEachCollection(func(live uint64) bool {
		if live > threshold {
			then()
			return false
		}
		return true
	})
}

// afterEachCollection calls f with what each collection left live, for as
// long as f returns true, at the cost of one small object a collection.
func afterEachCollection(f func(live uint64) (again bool)) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&gcCycle{}, func(*gcCycle) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 && !f(sample[0].Value.Uint64()) {
				return
			}
			arm()
		})
	}
	arm()
}
