// Command terraform-provider-mobileplan serves the mobileplan Terraform
// provider over plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// version is set by the release build (goreleaser's ldflags).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers like delve")
	flag.Parse()

	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/mobileplan/mobileplan",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
