// Command terraform-provider-mobileplan serves the mobileplan Terraform
// provider over plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"runtime/pprof"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// version and commit are set by the release build (goreleaser's ldflags).
var (
	version = "dev"
	commit  = ""
)

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers like delve")
	flag.Parse()
	quietUnlessLogging()
	tuneGC()
	if commit != "" {
		version += "+" + commit
	}

	// A CPU profile of a whole Terraform run, for `make bench`: Terraform
	// starts the provider, so an environment variable is the only way in.
	stopProfile := func() {}
	if path := os.Getenv("MOBILEPLAN_CPU_PROFILE"); path != "" {
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			var once sync.Once
			stopProfile = func() {
				once.Do(func() {
					pprof.StopCPUProfile()
					f.Close()
				})
			}
		}
	}
	defer stopProfile()
	removeSocketDir := ownSocketDir()
	defer removeSocketDir()

	// The provider's lifetime: every API call ends with it. It ends when
	// Terraform is gone, and the process exits right after, so that no
	// request not yet sent (a retry waiting out its backoff) is sent.
	lifetime, end := context.WithCancel(context.Background())
	go watchParent(func() {
		// Nothing is logged: stderr led to Terraform, and writing to it
		// now would end the process with SIGPIPE before the profile is saved.
		end()
		stopProfile()
		removeSocketDir()
		os.Exit(1)
	})

	var serveOpts []tf6server.ServeOpt
	if debug {
		serveOpts = append(serveOpts, tf6server.WithManagedDebug())
	}
	err := tf6server.Serve("registry.terraform.io/mobileplan/mobileplan", provider.NewProtocol6(lifetime, version), serveOpts...)
	if err != nil {
		log.Print(err.Error())
		stopProfile()
		removeSocketDir()
		os.Exit(1) //nolint:gocritic // stopProfile and removeSocketDir have just run

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
