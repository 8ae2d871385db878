// Command terraform-provider-mobileplan serves the mobileplan Terraform
// provider over plugin protocol 6.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/process"
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
	if commit != "" {
		version += "+" + commit
	}

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	// Terraform sends no StopProvider in some phases of a run; the
	// process's interrupt stops the provider there too, and so does
	// Terraform's death.
	stop := process.Start()
	dir, err := os.Getwd()
	if err != nil {
		log.Fatal(err.Error())
	}
	journal, endJournal := provider.KeepJournal(dir, process.Hold, process.ParentArgs)
	err = tf6server.Serve("registry.terraform.io/mobileplan/mobileplan",
		provider.NewProtocol6(version, provider.StopWhen(process.Interrupted(), process.ParentGone()), journal), opts...)
	// Serve returns when Terraform ends the provider the usual way, after
	// the state of what it created was handed over.
	endJournal()
	stop()
	if err != nil {
		log.Fatal(err.Error())
	}
}
