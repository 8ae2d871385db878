package provider

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// The provider does its work the framework's way: every resource stores
// and reads its state with State.Set and State.Get, and the protocol server
// is the framework's. An Option replaces one of those ways with another
// that must give the same result, faster. The measured speed-ups,
// with the proofs that they give the same result, live in package fastpath,
// which main.go puts together with this package; without them, everything
// works the same, slower.

// Option changes how the provider does its work, never what it does.
type Option func(*options)

type options struct {
	now    func() time.Time
	states StateCodec
	stop   <-chan struct{}
}

// subscriptionReader obtains a subscription by id, as the resource's Read
// needs it: with one GET each (oneGetEach), or from the list's pages
// (paged_refresh.go) while `paged_refresh` is on. Its errors are the
// client's: IsNotFound says the subscription is gone.
type subscriptionReader interface {
	Subscription(ctx context.Context, id string) (*client.Subscription, error)
}

// StateCodec stores a model, a struct of tfsdk-tagged framework values, in
// a resource's state and reads it back: what State.Set and State.Get do.
// Get reads a plan too, as a state of the same schema whose values may be
// unknown: what Plan.Get does.
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

// StopWhen makes the provider stop as on Terraform's StopProvider once
// stop is closed: nothing more is sent to the service, and a create
// already sent is seen through. main.go closes it at the process's
// interrupt, which reaches the provider in phases where Terraform sends
// no StopProvider (process.Interrupted).
func StopWhen(stop <-chan struct{}) Option {
	return func(o *options) { o.stop = stop }
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

// What a speed-up in front of the framework needs to know of
// mobileplan_subscription, read from here rather than written again.

// SubscriptionTypeName is mobileplan_subscription's type name.
const SubscriptionTypeName = "mobileplan_subscription"

// RenewalTimeAttributes are the attributes of mobileplan_subscription
// that, with the clock, decide a renewal (subscription_renewal.go): a plan
// whose prior state equals its proposed one changes with time alone only
// when RenewalPossible says so of them.
func RenewalTimeAttributes() []string { return slices.Clone(renewalTimeAttributes) }

var renewalTimeAttributes = []string{earlyRenewalHoursPath.String(), expireAtPath.String()}

// RenewalPossible reports whether a subscription may be due for renewal at
// some time, given which of RenewalTimeAttributes are set (not null) in its
// state: renewIfDue renews only when all of them are.
func RenewalPossible(isSet func(attribute string) bool) bool {
	for _, name := range renewalTimeAttributes {
		if !isSet(name) {
			return false
		}
	}
	return true
}

// PlanCreate does for the planned create of a mobileplan_subscription with
// configuration config (a value of its schema) what the resource's
// ModifyPlan does, the preflight of p's current configuration, for a
// speed-up that plans creates in front of the framework; ModifyPlan
// changes nothing in a create's plan. ok is false when p is not this
// package's provider or is not configured yet: then the framework must
// plan it.
func PlanCreate(ctx context.Context, p fwprovider.Provider, config tftypes.Value) (diags diag.Diagnostics, ok bool) {
	mp, isOurs := p.(*mobileplanProvider)
	if !isOurs {
		return nil, false
	}
	data := mp.configured.Load()
	if data == nil {
		return nil, false
	}
	planCreate(ctx, data.run, data.preflight, tfsdk.Config{Schema: subscriptionSchema(), Raw: config}, &diags)
	return diags, true
}

// subscriptionSchema is mobileplan_subscription's schema, made once.
var subscriptionSchema = sync.OnceValue(subscriptionResourceSchema)

// ConfigureDeferred reports whether p's Configure deferred, as it does when
// Terraform allows deferral and a connection setting is unknown: then the
// framework answers every plan and read deferred, and a speed-up in front
// of it must leave them to the framework.
func ConfigureDeferred(p fwprovider.Provider) bool {
	mp, isOurs := p.(*mobileplanProvider)
	return isOurs && mp.deferred.Load()
}
