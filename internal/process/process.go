// Package process holds what the provider's process needs around the
// plugin server, and nothing of Terraform's schema. Start prepares it:
// the SDK's loggers off when no one asked for logs, a log line written
// once Terraform is gone lost rather than fatal (brokenpipe.go),
// garbage-collector settings that hand over to Go's own once the live heap
// grows (gc.go), a CPU and a heap profile on request
// (MOBILEPLAN_CPU_PROFILE, MOBILEPLAN_HEAP_PROFILE), a socket directory of
// its own (socketdir.go),
// and the watch that ends the process once Terraform is gone (parent.go):
// ParentGone is closed, and the process exits when the work held with
// Hold (a create sent, until its answer is recorded) is done. Beside it,
// Interrupted is closed at the process's first interrupt (interrupt.go),
// and ParentArgs reads Terraform's command line (parent_args.go): what
// Terraform tells its providers of neither -target nor -exclude, which
// Limited finds there, nor whether a process applies a saved plan,
// which AppliesAPlanFile does (command_line.go).
package process

import (
	"os"
	"runtime/pprof"
	"sync"
	"time"
)

// Start prepares the process and returns the function that releases what
// Start took. When Terraform is gone, ParentGone is closed, so that no
// request not yet sent (a retry waiting out its backoff) is sent; the
// process exits once the work held with Hold, a create already sent and
// its record, is done, or after drainLimit.
func Start() (stop func()) {
	quietUnlessLogging()
	ignoreBrokenPipes()
	tuneGC()
	stopProfile := startProfile(os.Getenv("MOBILEPLAN_CPU_PROFILE"))
	stopHeapProfile := startHeapProfile(os.Getenv("MOBILEPLAN_HEAP_PROFILE"))
	removeSocketDir := ownSocketDir()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			stopProfile()
			stopHeapProfile()
			removeSocketDir()
		})
	}

	go watchParent(func() {
		// Nothing is logged: stderr led to Terraform, which is gone.
		close(parentGone)
		// A create that took its hold just now decides whether to send
		// once the stop has reached its client: give that a moment.
		time.Sleep(stopSettle)
		held.drain(drainLimit)
		stop()
		os.Exit(1)
	})
	return stop
}

// drainLimit bounds how long the process outlives Terraform for the work
// it holds: a create's request has its own time limit (30 s by default),
// after which its record is written at once.
const drainLimit = 2 * time.Minute

// stopSettle is how long the process lets ParentGone's listeners stop
// their clients before it counts the work held.
const stopSettle = 100 * time.Millisecond

var parentGone = make(chan struct{})

// ParentGone is closed once Terraform, the process that started this one,
// is gone.
func ParentGone() <-chan struct{} { return parentGone }

var held holds

// Hold marks work that must end before the process exits when Terraform is
// gone (a create sent, until the service's answer is recorded), and
// returns the function that ends it.
func Hold() (release func()) { return held.add() }

// holds counts the work under way that the process waits for.
type holds struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed when n returns to 0; nil while n is 0
}

func (h *holds) add() func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		h.zero = make(chan struct{})
	}
	h.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.n--
			if h.n == 0 {
				close(h.zero)
				h.zero = nil
			}
		})
	}
}

// drain waits until no work is held, or limit has passed.
func (h *holds) drain(limit time.Duration) {
	h.mu.Lock()
	zero := h.zero
	h.mu.Unlock()
	if zero == nil {
		return
	}
	select {
	case <-zero:
	case <-time.After(limit):
	}
}

// startProfile writes a CPU profile of the whole process to path, for
// `make bench`: Terraform starts the provider, so an environment variable is
// the only way in. An empty path, or one that cannot be written, profiles
// nothing.
func startProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		_ = f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}

// quietUnlessLogging turns the plugin SDK's loggers off when nobody asked
// for logs. terraform-plugin-go starts every logger at TRACE unless told
// otherwise and ships each line as JSON over stderr, and Terraform discards
// them all unless TF_LOG (or TF_LOG_PROVIDER) is set. Measured in `make bench`,
// that encoding was a third of the provider's CPU time in a 500-resource
// refresh. Any of the variables below set by the user leaves logging as is.
func quietUnlessLogging() {
	vars := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_MOBILEPLAN"}
	for _, v := range append([]string{"TF_LOG", "TF_ACC_LOG_PATH"}, vars...) {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range vars {
		_ = os.Setenv(v, "OFF")
	}
}
