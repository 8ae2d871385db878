// Command testprovider serves the provider with every speed-up of package
// fastpath, as main.go does, for fastpath's own CLI tests: they prove the
// speed-ups as Terraform drives them, whatever main.go composes.
package main

import (
	"log"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
)

func main() {
	if err := tf6server.Serve("registry.terraform.io/mobileplan/mobileplan", fastpath.NewProtocol6("test")); err != nil {
		log.Fatal(err.Error())
	}
}
