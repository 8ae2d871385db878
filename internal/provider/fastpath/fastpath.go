// Package fastpath holds measured speed-ups of a terraform-plugin-framework
// provider, each with the tests that prove it changes nothing but the
// cost:
//
//   - Accelerate: a protocol server in front of the framework's that
//     remembers configurations found valid and answers unchanged plans
//     (protocol.go) and plans of creates (create_plan.go) of the resources
//     it is told about, itself;
//   - ReleaseContexts: a protocol server in front of the framework's that
//     cuts each request's context from the framework once the request is
//     answered (contexts.go), so that what a refreshing plan keeps live no
//     longer grows with the workspace;
//   - States: State.Set and State.Get without the framework's reflection
//     (state_codec.go);
//   - EncodeLists: a protocol server in front of the framework's that
//     writes the items of list data sources into their answers one by one
//     (lists.go), instead of the framework's building the whole state.
//
// It knows no provider: what it must know of a resource, the provider
// declares in a Resource, and the provider composes the speed-ups
// (provider.NewProtocol6: EncodeLists in front of Accelerate in front of
// ReleaseContexts in front of the framework's server). Its servers embed protocol.Server, so that
// neither hides a service of the framework's. Without them the provider
// works the same, slower. Each speed-up says beside it when it can be
// deleted, and what shows its worth: BenchmarkProtocol (`make bench`)
// measures the provider's calls with and without the package,
// TestReleaseContexts_keepsNothingOfAnsweredRequests what a request
// leaves behind, and BenchmarkListDataSources a list of 20,000.
package fastpath

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// Resource is what the accelerator must be told of a resource to answer
// its plans without the framework. The provider declares it beside the
// rules it describes; the rules' own tests, in the provider, check that the
// resource keeps them.
type Resource struct {
	// TypeName is the resource's type name.
	TypeName string
	// RenewalAttributes are the top-level attributes that, with the clock,
	// can make a plan whose prior state equals its proposed one change:
	// the only ones the accelerator reads of such a state.
	RenewalAttributes []string
	// RenewalPossible reports whether a state may be due for a change of
	// time alone, given which RenewalAttributes are set (not null) in it.
	// Plans of states it accepts are the framework's.
	RenewalPossible func(isSet func(attribute string) bool) bool
	// PlanCreate does for the planned create of the resource with
	// configuration config (a value of its schema) what its ModifyPlan
	// does, which must change nothing in the plan; ok is false when the
	// framework must plan it, as before the provider is configured.
	PlanCreate func(ctx context.Context, config tftypes.Value) (diags diag.Diagnostics, ok bool)
	// ConfigureDeferred reports whether the provider's Configure deferred:
	// the framework then defers every plan, so the accelerator leaves them
	// all to it. Nil: the provider never defers.
	ConfigureDeferred func() bool
}

// Accelerate returns server with the speed-ups of this package in front of
// it for resources. A server without every optional service of the
// framework's is returned as it is: wrapping it would hide the ones it
// has.
func Accelerate(server tfprotov6.ProviderServer, resources ...Resource) tfprotov6.ProviderServer {
	full, ok := server.(protocol.Server)
	if !ok {
		return server
	}
	s := &protocolServer{Server: full, resources: map[string]*resource{}}
	for _, r := range resources {
		s.resources[r.TypeName] = &resource{Resource: r, renewalPossibleBySet: renewalTable(r)}
	}
	return s
}

// maxRenewalAttributes bounds the attributes whose every combination
// renewalTable asks RenewalPossible about.
const maxRenewalAttributes = 12

// renewalTable is r.RenewalPossible's answer for each combination of its
// RenewalAttributes set: at index set, bit i for RenewalAttributes[i]. The
// rule reads nothing else, so it is asked once here rather than on every
// unchanged plan, where calling it would cost an allocation each time. nil
// when r has none or too many: then every state counts as possible.
func renewalTable(r Resource) []bool {
	n := len(r.RenewalAttributes)
	if r.RenewalPossible == nil || n == 0 || n > maxRenewalAttributes {
		return nil
	}
	table := make([]bool, 1<<n)
	for set := range table {
		table[set] = r.RenewalPossible(func(name string) bool {
			i := slices.Index(r.RenewalAttributes, name)
			return i >= 0 && set&(1<<i) != 0
		})
	}
	return table
}
