// Package fastpath holds the provider's measured speed-ups, each with the
// tests that prove it changes nothing but the cost:
//
//   - Protocol: a protocol server in front of the framework's that
//     remembers configurations found valid and answers unchanged plans
//     (protocol.go) and plans of creates (create_plan.go) of
//     mobileplan_subscription itself;
//   - States: State.Set and State.Get without the framework's reflection
//     (state_codec.go).
//
// The provider works without either: main.go composes both with
// NewProtocol6, and provider.NewProtocol6 in its place serves the provider
// alone, slower (the paged refresh, which changes which requests are sent,
// is the provider's own, behind `paged_refresh`). What this package needs
// to know of the provider (the resource's type name, the attributes a
// renewal depends on, the renewal rule, what ModifyPlan does for a create)
// it reads from the provider's seam (provider/seam.go). Each speed-up says
// beside it when it can be deleted, and which benchmark shows it;
// `make bench` measures each against the provider without it.
package fastpath

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// NewProtocol6 is provider.NewProtocol6 with every speed-up of this
// package; opts come after them, and may replace them.
func NewProtocol6(version string, opts ...provider.Option) func() tfprotov6.ProviderServer {
	all := append([]provider.Option{provider.WithStateCodec(&States{})}, opts...)
	return Protocol(provider.New(version, all...))
}
