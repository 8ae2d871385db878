package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// The provider does its work the framework's way: Read obtains a
// subscription with one GET, and every resource stores and reads its state
// with State.Set and State.Get. An Option replaces one of those ways with
// another that must give the same result, faster. The measured speed-ups,
// with the proofs that they give the same result, live in package fastpath,
// which main.go puts together with this package; without them, everything
// works the same, slower.

// Option changes how the provider does its work, never what it does.
type Option func(*options)

type options struct {
	now     func() time.Time
	refresh func(*client.Client) SubscriptionReader
	states  StateCodec
}

// SubscriptionReader obtains a subscription by id, as the resource's Read
// needs it. Its errors are the client's: IsNotFound says the subscription
// is gone.
type SubscriptionReader interface {
	Subscription(ctx context.Context, id string) (*client.Subscription, error)
}

// StateCodec stores a model, a struct of tfsdk-tagged framework values, in
// a resource's state and reads it back: what State.Set and State.Get do.
type StateCodec interface {
	Get(ctx context.Context, state tfsdk.State, target any) diag.Diagnostics
	Set(ctx context.Context, state *tfsdk.State, val any) diag.Diagnostics
}

// WithClock makes now the clock renewal compares expire_at with, instead
// of the wall clock. The service's API has no clock to ask; tests give the
// emulator's, so that moving it forward moves the service's expiry and the
// provider's renewal window in step.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithRefreshReader makes refresh the way the resource's Read obtains
// subscriptions while `paged_refresh` is on: refresh is called once per
// configured provider instance, which Terraform makes for each plan or
// apply, with its client.
func WithRefreshReader(refresh func(*client.Client) SubscriptionReader) Option {
	return func(o *options) { o.refresh = refresh }
}

// WithStateCodec makes codec the way mobileplan_subscription stores and
// reads its state.
func WithStateCodec(codec StateCodec) Option {
	return func(o *options) { o.states = codec }
}

// oneGetEach reads each subscription with its own GET.
type oneGetEach struct{ client *client.Client }

func (g oneGetEach) Subscription(ctx context.Context, id string) (*client.Subscription, error) {
	return g.client.GetSubscription(ctx, id)
}

// frameworkStates is the framework's State.Get and State.Set.
type frameworkStates struct{}

func (frameworkStates) Get(ctx context.Context, state tfsdk.State, target any) diag.Diagnostics {
	return state.Get(ctx, target)
}

func (frameworkStates) Set(ctx context.Context, state *tfsdk.State, val any) diag.Diagnostics {
	return state.Set(ctx, val)
}
