// Command floorprovider is the plugin floor of `make bench`: the least a
// terraform-plugin-framework provider can cost. It has one resource,
// floor_resource, shaped like null_resource from
// hashicorp/terraform-provider-null: a computed id and a map of triggers
// that replaces the resource when it changes. It makes no network call and
// stores nothing beyond its state. Being a package of this module, it is
// built on exactly the framework version the mobileplan provider uses, so
// the difference between the two is our own cost, not the SDK's.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mobileplan/terraform-provider-mobileplan/tools/bench/internal/quiet"
)

func main() {
	quiet.UnlessLogging("TF_LOG_PROVIDER_FLOOR")
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address: "registry.terraform.io/bench/floor",
	})
	if err != nil {
		log.Fatal(err)
	}
}
