// Package provider maps the mobile-plan service onto Terraform: the provider
// configuration, the mobileplan_subscription resource and the data sources.
// It speaks to the service only through internal/client.
package provider

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// Environment variables read when the provider block leaves a setting out.
const (
	EnvBaseURL   = "MOBILEPLAN_BASE_URL"
	EnvAPIToken  = "MOBILEPLAN_API_TOKEN"
	EnvPreflight = "MOBILEPLAN_PREFLIGHT"
	// EnvMaxRequestsPerSecond sets max_requests_per_second when the
	// provider block leaves it out.
	EnvMaxRequestsPerSecond = "MOBILEPLAN_MAX_REQUESTS_PER_SECOND"
	// EnvCACertPEM sets ca_cert_pem when the provider block leaves it out.
	EnvCACertPEM = "MOBILEPLAN_CA_CERT_PEM"
)

// Environment variables of the run around the provider: what it adds to
// every request, so that requests on a shared token can be told apart.
const (
	EnvAppendUserAgent = "TF_APPEND_USER_AGENT"
	EnvTraceParent     = "TRACEPARENT"
	EnvTraceState      = "TRACESTATE"
)

var (
	_ provider.Provider                  = (*mobileplanProvider)(nil)
	_ provider.ProviderWithListResources = (*mobileplanProvider)(nil)
)

// NewProtocol6 returns the provider's protocol 6 server, as tf6server.Serve
// takes it: the framework's server, behind the measured speed-ups of
// package fastpath, behind the seam (protocol_server.go), which makes
// StopProvider stop the provider's clients and tells the journal of
// creates what the state holds. Each speed-up says beside it when it can
// go; without the lines that compose them, the provider works the same,
// slower.
func NewProtocol6(version string, opts ...Option) func() tfprotov6.ProviderServer {
	o := newOptions(opts)
	return func() tfprotov6.ProviderServer {
		p := newProvider(version, o)
		server := providerserver.NewProtocol6(p)()
		if !o.withoutSpeedUps {
			states := &fastpath.States{}
			p.states = states
			server = fastpath.Accelerate(fastpath.ReleaseContexts(server), subscriptionSpeedUps(p.planSubscriptionCreate, p.deferred.Load))
			server = fastpath.EncodeLists(server, states, listDataSources...)
		}
		return newSeam(server, &p.stop, o.recovery)
	}
}

// Option changes how the provider is served, never what it does.
type Option func(*options)

type options struct {
	now             func() time.Time    // renewal's clock; the tests set it
	getenv          func(string) string // the process's environment (os.Getenv); the tests give each provider its own
	stop            <-chan struct{}
	withoutSpeedUps bool              // the tests' parity run
	recovery        *recovery.Session // the journal of creates (KeepJournal)
}

func newOptions(opts []Option) options {
	o := options{now: time.Now, getenv: os.Getenv}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// withEnvironment gives the provider vars as its whole environment, in
// place of the process's: tests that configure it from MOBILEPLAN_*
// variables then run side by side, where t.Setenv would run them alone.
func withEnvironment(vars map[string]string) Option {
	return func(o *options) { o.getenv = func(name string) string { return vars[name] } }
}

// KeepJournal makes the provider keep the journal of creates of the
// working directory dir (main.go passes the process's), which also
// remembers the state's size for the paged refresh. hold marks work the
// process must finish before it exits when Terraform is gone; parentArgs
// reads Terraform's command line, to find -target. The returned function
// ends the journal, and main.go calls it once Terraform has ended the
// provider the usual way.
func KeepJournal(dir string, hold func() (release func()), parentArgs func() ([]string, error)) (Option, func()) {
	r := newSession(dir, hold, parentArgs)
	return func(o *options) { o.recovery = r }, r.End
}

// StopWhen makes the provider stop as on Terraform's StopProvider once
// one of stops is closed: nothing more is sent to the service, and a create
// already sent is seen through. main.go closes it at the process's
// interrupt, which reaches the provider in phases where Terraform sends
// no StopProvider (process.Interrupted).
func StopWhen(stops ...<-chan struct{}) Option {
	return func(o *options) { o.stop = firstOf(stops) }
}

// firstOf is closed once any of chans is.
func firstOf(chans []<-chan struct{}) <-chan struct{} {
	if len(chans) == 1 {
		return chans[0]
	}
	out := make(chan struct{})
	var once sync.Once
	for _, c := range chans {
		go func() {
			<-c
			once.Do(func() { close(out) })
		}()
	}
	return out
}

// New returns a constructor of the provider alone, as providerserver takes
// it: what the framework serves, without what NewProtocol6 adds.
func New(version string, opts ...Option) func() provider.Provider {
	o := newOptions(opts)
	return func() provider.Provider { return newProvider(version, o) }
}

type mobileplanProvider struct {
	version string
	now     func() time.Time
	getenv  func(string) string
	states  stateCodec
	// deferred is set when Configure deferred: the framework then defers
	// every plan and read, and the accelerator in front of it must leave
	// them to it (subscriptionSpeedUps).
	deferred atomic.Bool
	// configured is what the last Configure handed to the resources, for
	// planSubscriptionCreate; nil until then.
	configured atomic.Pointer[providerData]
	stop       stopSignal
	recovery   *recovery.Session
}

func newProvider(version string, o options) *mobileplanProvider {
	p := &mobileplanProvider{version: version, now: o.now, getenv: o.getenv, states: frameworkStates{}, recovery: o.recovery}
	if o.stop != nil {
		go func() {
			<-o.stop
			p.stop.stop()
		}()
	}
	return p
}

func (p *mobileplanProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mobileplan"
	resp.Version = p.version
}

func (p *mobileplanProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages eSIM mobile-plan subscriptions and reads plans, eSIMs and subscriptions of a mobile-plan service account.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Address of the service, such as `https://api.example.com`: its root, without `/v1` (refused; the provider adds it). Must be `https`, except for loopback hosts (`localhost`, any address in `127.0.0.0/8`, `[::1]`) where the emulator runs, since anywhere else the token would travel in clear text. Or `" + EnvBaseURL + "`: the block's value wins, and an empty string counts as unset.",
				Optional:            true,
				Validators:          []validator.String{validBaseURL},
			},
			"api_token": schema.StringAttribute{
				MarkdownDescription: "Access token of the account, sent as a bearer token. Or `" + EnvAPIToken + "`, which keeps it out of the configuration: the block's value wins, and an empty string counts as unset. From an ephemeral variable, it stays out of saved plans and state ([Authentication](#authentication)).",
				Optional:            true,
				Sensitive:           true,
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a failed request is retried (0 to 10, default %d). Reads are retried on server errors and network errors, honoring `Retry-After`; a create only when the connection failed before the request was sent, never after an ambiguous failure. "+
					"A rate limit (429) is not counted here: the request is sent again after the service's `Retry-After`, for up to %s ([Rate limits](guides/rate-limits.md)).", client.DefaultMaxRetries, client.DefaultMaxRateLimitWait),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 10)},
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "Time limit of each request attempt, as a Go duration such as `30s` or `2m` (default `" + client.DefaultRequestTimeout.String() + "`).",
				Optional:            true,
				Validators:          []validator.String{positiveDuration},
			},
			"preflight": schema.StringAttribute{
				MarkdownDescription: "What `terraform plan` does when a planned subscription create would fail at apply: its plan does not exist, is archived or is an addon, or the free eSIM inventory cannot serve every create of the run. " +
					"`error` (the default) fails the plan, `warn` shows a warning, `off` skips the check and its reads (one read per distinct `plan_id`, and one scan of the eSIM list, per plan that creates subscriptions). " +
					"Or `" + EnvPreflight + "`.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(preflightError, preflightWarn, preflightOff)},
			},
			"paged_refresh": schema.BoolAttribute{
				MarkdownDescription: fmt.Sprintf("Whether the refresh of `mobileplan_subscription` reads subscriptions from the service's list, %d a page, instead of with one request each (default `true`). "+
					"A subscription the pages do not bring is read on its own, so one that is gone is still found gone; the scan costs at most %d requests beyond one per subscription, and one per %d the state held at the last run here. "+
					"`false` reads each on its own, as when list requests count against a smaller quota. See [Refresh by Pages](#refresh-by-pages).", client.MaxPageSize, pagedRefreshAllowance, client.MaxPageSize),
				Optional: true,
			},
			"ca_cert_pem": schema.StringAttribute{
				MarkdownDescription: "PEM certificates of authorities to trust besides the system's, as of a proxy that intercepts TLS: `file(\"ca.pem\")`. " +
					"Or `" + EnvCACertPEM + "`. See [Proxies and private CAs](guides/proxies-and-private-cas.md).",
				Optional:   true,
				Validators: []validator.String{validCACertPEM},
			},
			"lost_run_started_at": schema.StringAttribute{
				MarkdownDescription: "Start (RFC 3339) of a run lost with its working directory, whose subscriptions this run takes ([how](guides/interrupted-runs.md#when-the-working-directory-is-lost-too)).",
				Optional:            true,
				Validators:          []validator.String{validInstant},
			},
			"dismissed_leftovers": schema.ListAttribute{
				MarkdownDescription: "Ids of subscriptions named as billed and in no state that are dealt with otherwise: never named or taken again ([how](guides/interrupted-runs.md#subscriptions-billed-and-in-no-state)).",
				Optional:            true,
				ElementType:         types.StringType,
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
			},
			"lost_run_ended_at": schema.StringAttribute{
				MarkdownDescription: "End (RFC 3339) of the run `lost_run_started_at` names.",
				Optional:            true,
				Validators:          []validator.String{validInstant},
			},
			"max_requests_per_second": schema.Float64Attribute{
				MarkdownDescription: "The most requests per second this provider sends, at least `0.001` (`0.5` is one every two seconds). Unset, the provider finds the service's limit by itself: it slows down on the first `429` and grows back while requests succeed. " +
					"Set it to your share of the account's quota, as when pipelines share one token, to keep under it from the first request on. " +
					"Or `" + EnvMaxRequestsPerSecond + "`. See [Rate limits](guides/rate-limits.md).",
				Optional:   true,
				Validators: []validator.Float64{float64validator.AtLeast(client.MinMaxRequestsPerSecond)},
			},
		},
	}
}

func (p *mobileplanProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newSubscriptionResource}
}

func (p *mobileplanProvider) ListResources(context.Context) []func() list.ListResource {
	return []func() list.ListResource{newSubscriptionListResource}
}

func (p *mobileplanProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newPlansDataSource, newPlanDataSource,
		newEsimsDataSource, newEsimDataSource,
		newSubscriptionsDataSource, newSubscriptionDataSource,
	}
}

// planSubscriptionCreate does for the planned create of a
// mobileplan_subscription with configuration config (a value of its
// schema) what the resource's ModifyPlan does, the preflight of the
// configuration Terraform gave this provider, for the accelerator that
// plans creates in front of the framework (subscriptionSpeedUps). ok is
// false before the provider is configured: then the framework must plan
// it.
func (p *mobileplanProvider) planSubscriptionCreate(ctx context.Context, config tftypes.Value) (diags diag.Diagnostics, ok bool) {
	data := p.configured.Load()
	if data == nil {
		return nil, false
	}
	planCreate(ctx, data.run, data.preflight, data.recovery, tfsdk.Config{Schema: subscriptionSchema(), Raw: config}, &diags)
	return diags, true
}

// subscriptionSchema is mobileplan_subscription's schema, made once.
var subscriptionSchema = sync.OnceValue(subscriptionResourceSchema)
