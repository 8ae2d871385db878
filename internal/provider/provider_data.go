package provider

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// providerData is what the provider's Configure hands to every resource,
// data source and list resource: the client, the eSIM list its readers
// share (the preflight and mobileplan_esims), the preflight of this provider
// instance (nil when it is off), and the ways of working its options chose.
// Before the provider is configured (during validation) there is none,
// which callers tolerate because no request is made then.
type providerData struct {
	client        *client.Client
	run           *operations
	esims         *client.SharedPages[client.Esim]
	preflight     *preflight
	subscriptions subscriptionReader
	states        stateCodec
	now           func() time.Time
	recovery      *recovery.Session
}

// subscriptionReader obtains a subscription by id, as the resource's Read
// needs it: with one GET each (oneGetEach), or from the list's pages
// (paged_refresh.go) while `paged_refresh` is on. Its errors are the
// client's: IsNotFound says the subscription is gone. createdAt is the
// subscription's creation time as the state last saw it (Unix seconds), 0
// when unknown: the list is newest first, so it says how deep in the list
// the subscription lies.
type subscriptionReader interface {
	Subscription(ctx context.Context, id string, createdAt int64) (*client.Subscription, error)
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
// operations, the shared eSIM list, and the Configure that takes them from
// the provider.
type baseDataSource struct {
	client *client.Client
	run    *operations
	esims  *client.SharedPages[client.Esim]
}

func (d *baseDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	data := providerDataFrom(req.ProviderData, &resp.Diagnostics)
	d.client, d.run, d.esims = data.client, data.run, data.esims
}

// operations are those of one configured provider, which Terraform runs
// in a process of its own for each graph walk (a plan, an apply): the
// run the rate-limit warning reports on.
//
// Terraform shows the first of the warnings that share a summary, and
// folds the rest into "(and N more similar warnings)", so the warning
// must come once, at the run's end, with its totals. The provider is not
// told which operation is the last. An operation that ends with none other
// in flight waits up to lastOperationGrace for another to start: one
// that starts takes the warning over; none means the walk is done (or
// waits on this one's result), and the warning goes with this one.
// Terraform plans each create again right before applying it, and waits
// for that plan: in a process that has applied a create (an apply's walk),
// a plan is never the last operation, and gives no warning.
type operations struct {
	client *client.Client
	grace  time.Duration

	mu       sync.Mutex
	inFlight int
	applied  bool          // a create has run in this process
	started  chan struct{} // closed when an operation starts
	warned   [3]int64      // the figures of the last warning given: held, refused, given up
}

// lastOperationGrace is how long an operation that ends with none other in
// flight waits for another to start before it gives the rate-limit
// warning: Terraform starts the next ready operation within milliseconds,
// and a run the limit slowed by seconds pays this once, at its end.
const lastOperationGrace = 500 * time.Millisecond

func newOperations(c *client.Client) *operations {
	return &operations{client: c, grace: lastOperationGrace, started: make(chan struct{})}
}

// operation marks an operation that may send requests as under way. The
// function it returns ends it, adding the rate-limit warning to diags when
// it is the run's last (above) and the limit slowed the run noticeably.
// A nil *operations (an unconfigured provider) does nothing.
func (o *operations) operation() (end func(diags *diag.Diagnostics)) { return o.begin(kindOther) }

// planning is operation for a create's plan, and applying for a create.
func (o *operations) planning() (end func(diags *diag.Diagnostics)) { return o.begin(kindPlan) }
func (o *operations) applying() (end func(diags *diag.Diagnostics)) { return o.begin(kindApply) }

type operationKind int

const (
	kindOther operationKind = iota
	kindPlan
	kindApply
)

func (o *operations) begin(kind operationKind) (end func(diags *diag.Diagnostics)) {
	if o == nil {
		return func(*diag.Diagnostics) {}
	}
	o.mu.Lock()
	o.inFlight++
	o.applied = o.applied || kind == kindApply
	close(o.started)
	o.started = make(chan struct{})
	o.mu.Unlock()
	return func(diags *diag.Diagnostics) {
		o.mu.Lock()
		o.inFlight--
		idle, started := o.inFlight == 0 && (kind != kindPlan || !o.applied), o.started
		o.mu.Unlock()
		if !idle || o.client.RateLimitSlowdown().Held < diagnostics.NoticeableSlowdown {
			return
		}
		timer := time.NewTimer(o.grace)
		defer timer.Stop()
		select {
		case <-started:
			return
		case <-timer.C:
		}
		s := o.client.RateLimitSlowdown()
		figures := [3]int64{int64(s.Held), int64(s.Refused), int64(s.GaveUp)}
		o.mu.Lock()
		repeat := figures == o.warned || o.inFlight > 0
		if !repeat {
			o.warned = figures
		}
		o.mu.Unlock()
		if !repeat {
			diags.Append(diagnostics.RateLimitSlowed(s))
		}
	}
}
