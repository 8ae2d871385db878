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
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

func main() {
	quietUnlessLogging()
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address: "registry.terraform.io/bench/floor",
	})
	if err != nil {
		log.Fatal(err)
	}
}

// quietUnlessLogging turns the plugin SDK's loggers off when no TF_LOG*
// variable is set, as the mobileplan provider's main does: terraform-plugin-go
// otherwise encodes every SDK log line at TRACE, for Terraform to throw away.
// A floor that paid for that encoding would flatter us.
func quietUnlessLogging() {
	vars := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER", "TF_LOG_PROVIDER_FLOOR"}
	for _, v := range append([]string{"TF_LOG", "TF_ACC_LOG_PATH"}, vars...) {
		if os.Getenv(v) != "" {
			return
		}
	}
	for _, v := range vars {
		_ = os.Setenv(v, "OFF")
	}
}
