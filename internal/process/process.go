// Package process holds what the provider's process needs around the
// plugin server and nothing of Terraform's schema: garbage-collector
// settings, a CPU profile on request, a socket directory of its own, and
// the watch that ends the provider when Terraform is gone.
package process

import (
	"os"
	"runtime/pprof"
	"sync"
)

// Start prepares the process and returns the function that releases what
// Start took. When Terraform is gone, the process exits at once, so that no
// request not yet sent (a retry waiting out its backoff) is sent.
func Start() (stop func()) {
	quietUnlessLogging()
	tuneGC()
	stopProfile := startProfile(os.Getenv("MOBILEPLAN_CPU_PROFILE"))
	removeSocketDir := ownSocketDir()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			stopProfile()
			removeSocketDir()
		})
	}

	go watchParent(func() {
		// Nothing is logged: stderr led to Terraform, and writing to it
		// now would end the process with SIGPIPE before the profile is saved.
		stop()
		os.Exit(1)
	})
	return stop
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
