// Command schemafloor is the same-schema floor of `make bench`: a provider
// on the same plugin framework whose one resource, mobileplan_subscription,
// has the mobileplan provider's schema exactly (taken from the provider at
// start-up, so it never drifts), and answers from memory. Create fills the
// computed attributes from a recorded subscription of the emulator
// (sample.json), so its state has ours' attributes and sizes; Read keeps
// the state as it is. It makes no network call and has none of package
// fastpath's short cuts, nor the provider's GC settings: it is what any
// framework provider of this schema costs, and the plugin floor
// (tools/bench/floorprovider) what any framework provider costs. Between
// the two is what the schema costs Terraform and the framework; above it,
// what is ours.
//
// It is served under the name mobileplan, so that its configuration is
// ours with another source address: Terraform finds it as
// terraform-provider-mobileplan in a directory of its own.
package main

import "github.com/mobileplan/terraform-provider-mobileplan/tools/bench/internal/floor"

// Schema is empty: the floor has no service to reach.
var floorProvider = floor.Provider{TypeName: "mobileplan", Description: "The same-schema floor of make bench.", Resource: newFloorSubscription}

func main() { floor.Serve(floorProvider, "TF_LOG_PROVIDER_MOBILEPLAN") }
