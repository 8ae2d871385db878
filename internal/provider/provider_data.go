package provider

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// providerData is what the provider's Configure hands to every resource,
// data source and list resource: the client, the preflight of this provider
// instance (nil when it is off), and the ways of working its options chose.
// Before the provider is configured (during validation) there is none,
// which callers tolerate because no request is made then.
type providerData struct {
	client        *client.Client
	run           *operations
	preflight     *preflight
	subscriptions subscriptionReader
	states        stateCodec
	now           func() time.Time
	recovery      *recovery
}

// subscriptionReader obtains a subscription by id, as the resource's Read
// needs it: with one GET each (oneGetEach), or from the list's pages
// (paged_refresh.go) while `paged_refresh` is on. Its errors are the
// client's: IsNotFound says the subscription is gone.
type subscriptionReader interface {
	Subscription(ctx context.Context, id string) (*client.Subscription, error)
}

// stateCodec stores a model, a struct of tfsdk-tagged framework values, in
// a resource's state and reads it back: what State.Set and State.Get do.
// Get reads a plan too, as a state of the same schema whose values may be
// unknown: what Plan.Get does. The provider's is the framework's
// (frameworkStates), or package fastpath's, faster, where NewProtocol6
// composes it.
type stateCodec interface {
	Get(ctx context.Context, state tfsdk.State, target any) diag.Diagnostics
	Set(ctx context.Context, state *tfsdk.State, val any) diag.Diagnostics
}

// frameworkStates is the framework's State.Get and State.Set.
type frameworkStates struct{}

func (frameworkStates) Get(ctx context.Context, state tfsdk.State, target any) diag.Diagnostics {
	return state.Get(ctx, target)
}

func (frameworkStates) Set(ctx context.Context, state *tfsdk.State, val any) diag.Diagnostics {
	return state.Set(ctx, val)
}

// providerDataFrom takes the provider's data out of a Configure request's
// ProviderData; the zero value before the provider is configured.
func providerDataFrom(data any, diags *diag.Diagnostics) providerData {
	if data == nil {
		return providerData{}
	}
	d, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", "The provider handed over an unexpected type; this is a bug in the provider, please report it.")
		return providerData{}
	}
	return *d
}

// baseDataSource is embedded by every data source: the client, the run's
// operations, and the Configure that takes them from the provider.
type baseDataSource struct {
	client *client.Client
	run    *operations
}

func (d *baseDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data := providerDataFrom(req.ProviderData, &resp.Diagnostics)
	d.client, d.run = data.client, data.run
}

// operations are those of one configured provider, which Terraform runs
// in a process of its own for each graph walk (a plan, an apply): the
// run the rate-limit warning reports on.
//
// Terraform shows one warning of those with the same summary, whichever
// it picks, so a warning that every operation gave with the figures of
// its own moment showed some early operation's. Only an operation that
// ends with no other in flight gives it, with the totals of every
// operation so far: in a run, the last one.
type operations struct {
	client   *client.Client
	inFlight atomic.Int64
}

// operation marks an operation that may send requests as under way. The
// function it returns ends it, adding the rate-limit warning to diags when
// no other operation is in flight and the limit slowed the run noticeably.
// A nil *operations (an unconfigured provider) does nothing.
func (o *operations) operation() (end func(diags *diag.Diagnostics)) {
	if o == nil {
		return func(*diag.Diagnostics) {}
	}
	o.inFlight.Add(1)
	return func(diags *diag.Diagnostics) {
		if o.inFlight.Add(-1) != 0 {
			return
		}
		if s := o.client.RateLimitSlowdown(); s.Held >= diagnostics.NoticeableSlowdown {
			diags.Append(diagnostics.RateLimitSlowed(s))
		}
	}
}
