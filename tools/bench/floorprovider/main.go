// Command floorprovider is the plugin floor of `make bench`: the least a
// terraform-plugin-framework provider can cost. It has one resource,
// floor_resource, shaped like null_resource from
// hashicorp/terraform-provider-null: a computed id and a map of triggers
// that replaces the resource when it changes. It makes no network call and
// stores nothing beyond its state. Being a package of this module, it is
// built on exactly the framework version the mobileplan provider uses, so
// the difference between the two is our own cost, not the SDK's.
package main

import "github.com/mobileplan/terraform-provider-mobileplan/tools/bench/internal/floor"

var floorProvider = floor.Provider{TypeName: "floor", Description: "The plugin floor of make bench.", Resource: newFloorResource}

func main() { floor.Serve(floorProvider, "TF_LOG_PROVIDER_FLOOR") }
