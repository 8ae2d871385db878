// Package provider maps the mobile-plan service onto Terraform: the provider
// configuration, the mobileplan_subscription resource and the data sources.
// It speaks to the service only through internal/client.
package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// PagedRefreshAllowance is how many requests, at most, a refresh reader that
// reads subscriptions from list pages (WithRefreshReader) may cost beyond
// one GET per subscription: `paged_refresh` documents it.
const PagedRefreshAllowance = 10

// Environment variables read when the provider block leaves a setting out.
const (
	EnvBaseURL   = "MOBILEPLAN_BASE_URL"
	EnvAPIToken  = "MOBILEPLAN_API_TOKEN"
	EnvPreflight = "MOBILEPLAN_PREFLIGHT"
	// EnvMaxRequestsPerSecond sets max_requests_per_second when the
	// provider block leaves it out.
	EnvMaxRequestsPerSecond = "MOBILEPLAN_MAX_REQUESTS_PER_SECOND"
)

var (
	_ provider.Provider                  = (*mobileplanProvider)(nil)
	_ provider.ProviderWithListResources = (*mobileplanProvider)(nil)
)

type mobileplanProvider struct {
	version string
	options
}

// New returns a constructor of the provider, as providerserver wants it.
func New(version string, opts ...Option) func() provider.Provider {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.states == nil {
		o.states = frameworkStates{}
	}
	return func() provider.Provider { return &mobileplanProvider{version: version, options: o} }
}

// NewProtocol6 returns the provider's protocol 6 server, as tf6server.Serve
// takes it.
func NewProtocol6(version string, opts ...Option) func() tfprotov6.ProviderServer {
	return providerserver.NewProtocol6(New(version, opts...)())
}

type providerModel struct {
	BaseURL        types.String  `tfsdk:"base_url"`
	APIToken       types.String  `tfsdk:"api_token"`
	MaxRetries     types.Int64   `tfsdk:"max_retries"`
	RequestTimeout types.String  `tfsdk:"request_timeout"`
	Preflight      types.String  `tfsdk:"preflight"`
	PagedRefresh   types.Bool    `tfsdk:"paged_refresh"`
	MaxRPS         types.Float64 `tfsdk:"max_requests_per_second"`
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
				MarkdownDescription: "Address of the service, such as `https://api.example.com`. Must be `https`, except for loopback hosts (`localhost`, `127.0.0.1`, `[::1]`) where the emulator runs. May also be set with the `" + EnvBaseURL + "` environment variable; a value in the provider block takes precedence, and an empty string counts as unset.",
				Optional:            true,
				Validators:          []validator.String{baseURLValidator{}},
			},
			"api_token": schema.StringAttribute{
				MarkdownDescription: "Access token of the account, sent as a bearer token. May also be set with the `" + EnvAPIToken + "` environment variable, which keeps it out of the configuration; a value in the provider block takes precedence, and an empty string counts as unset.",
				Optional:            true,
				Sensitive:           true,
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("How many times a failed request is retried (0 to 10, default %d). Reads are retried on server errors and network errors, honoring `Retry-After`; a create only when the connection failed before the request was sent, never after an ambiguous failure. "+
					"A rate limit (429) is not a failure and is not counted here: the request waits for the service's `Retry-After` and is sent again, for up to %s (see [Rate limits](guides/rate-limits.md)).", client.DefaultMaxRetries, client.DefaultMaxRateLimitWait),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 10)},
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "Time limit of each request attempt, as a Go duration such as `30s` or `2m` (default `" + client.DefaultRequestTimeout.String() + "`).",
				Optional:            true,
				Validators:          []validator.String{durationValidator{}},
			},
			"preflight": schema.StringAttribute{
				MarkdownDescription: "What `terraform plan` does when a planned subscription create would fail at apply: its plan does not exist, is archived or is an addon, or the free eSIM inventory cannot serve every create of the run. " +
					"`error` (the default) fails the plan, `warn` shows a warning, `off` skips the check and its reads (one read per distinct `plan_id`, and one scan of the eSIM list, per plan that creates subscriptions). " +
					"May also be set with the `" + EnvPreflight + "` environment variable; a value in the provider block takes precedence.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(preflightError, preflightWarn, preflightOff)},
			},
			"paged_refresh": schema.BoolAttribute{
				MarkdownDescription: fmt.Sprintf("Whether the refresh of `mobileplan_subscription` reads subscriptions from the service's list, %d a page, instead of with one request each (default `true`). "+
					"A subscription the pages do not bring is read on its own, so one that is gone is still found gone. The scan stops before it would cost more than %d requests beyond one request per subscription, "+
					"as when the configuration's subscriptions lie under many newer ones. Set `false` to read each subscription with its own request, as when the service counts list requests against a smaller quota than reads, "+
					"or to rule this out while investigating an unexpected refresh result. See [Refresh by Pages](#refresh-by-pages).", client.MaxPageSize, PagedRefreshAllowance),
				Optional: true,
			},
			"max_requests_per_second": schema.Float64Attribute{
				MarkdownDescription: "The most requests per second this provider sends, a number above 0 (`0.5` is one every two seconds). Unset, the provider finds the service's limit by itself: it slows down on the first `429` and grows back while requests succeed. " +
					"Set it at or under your share of the account's quota to have no request refused at all, as when pipelines share one token. " +
					"May also be set with the `" + EnvMaxRequestsPerSecond + "` environment variable; a value in the provider block takes precedence. See [Rate limits](guides/rate-limits.md).",
				Optional:   true,
				Validators: []validator.Float64{float64validator.AtLeast(0.001)},
			},
		},
	}
}

func (p *mobileplanProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	unknown := func(attr, env string, v interface{ IsUnknown() bool }) {
		if v.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(attr), "Unknown "+attr,
				fmt.Sprintf("The provider cannot be configured with a value known only after apply. Set %s to a value known at plan time, or leave it out and set the %s environment variable.", attr, env))
		}
	}
	unknown("base_url", EnvBaseURL, cfg.BaseURL)
	unknown("api_token", EnvAPIToken, cfg.APIToken)
	if resp.Diagnostics.HasError() {
		return
	}

	baseURL := valueOrEnv(cfg.BaseURL, EnvBaseURL)
	token := valueOrEnv(cfg.APIToken, EnvAPIToken)
	// A bad value from the provider block is shown at its line; one from the
	// environment has no line to point at (Terraform would print
	// "on <empty> line 0"), so the error names the variable instead.
	invalid := func(attr string, inBlock types.String, env, detail string) {
		summary := "Invalid " + attr
		if inBlock.ValueString() != "" {
			resp.Diagnostics.AddAttributeError(path.Root(attr), summary, detail)
			return
		}
		resp.Diagnostics.AddError(summary, "The value comes from the "+env+" environment variable. "+detail)
	}
	if baseURL == "" {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Missing base_url", "The provider needs the service's address. "+diagnostics.BaseURLHelp)
	} else if _, err := client.ParseBaseURL(baseURL); err != nil {
		invalid("base_url", cfg.BaseURL, EnvBaseURL, err.Error()+". "+diagnostics.BaseURLHelp)
	}
	if token == "" {
		resp.Diagnostics.AddAttributeError(path.Root("api_token"), "Missing api_token", "The provider needs an access token. "+diagnostics.TokenHelp)
	} else if err := client.CheckToken(token); err != nil {
		// Caught here, it is one clear error instead of five retries
		// reported as a network failure. The message never shows the token.
		invalid("api_token", cfg.APIToken, EnvAPIToken, capitalize(err.Error())+". "+tokenTrimHelp)
	}
	mode, diags := preflightMode(cfg.Preflight)
	resp.Diagnostics.Append(diags...)
	maxRPS, diags := maxRequestsPerSecond(cfg.MaxRPS)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The defaults are the client's (client.DefaultX), as the schema documents them.
	cc := client.Config{
		BaseURL:              baseURL,
		Token:                token,
		UserAgent:            fmt.Sprintf("terraform-provider-mobileplan/%s (+https://registry.terraform.io/providers/mobileplan/mobileplan) Terraform/%s", p.version, req.TerraformVersion),
		RequestTimeout:       client.DefaultRequestTimeout,
		MaxRequestsPerSecond: maxRPS,
	}
	maxRetries := client.DefaultMaxRetries
	if !cfg.MaxRetries.IsNull() && !cfg.MaxRetries.IsUnknown() {
		maxRetries = int(cfg.MaxRetries.ValueInt64())
		cc.MaxRetries = &maxRetries
	}
	if s := cfg.RequestTimeout.ValueString(); s != "" {
		cc.RequestTimeout, _ = time.ParseDuration(s) // checked by durationValidator
	}
	c, err := client.New(cc)
	if err != nil {
		resp.Diagnostics.AddError("Could not configure the mobileplan client", err.Error())
		return
	}
	pagedRefresh := cfg.PagedRefresh.IsNull() || cfg.PagedRefresh.IsUnknown() || cfg.PagedRefresh.ValueBool()
	tflog.Debug(ctx, "mobileplan provider configured", map[string]any{"base_url": baseURL, "max_retries": maxRetries, "request_timeout": cc.RequestTimeout.String(), "preflight": mode, "paged_refresh": pagedRefresh, "max_requests_per_second": maxRPS})
	data := &providerData{client: c, preflight: newPreflight(c, mode), subscriptions: oneGetEach{c}, states: p.states, now: p.now}
	if pagedRefresh && p.refresh != nil {
		data.subscriptions = p.refresh(c)
	}
	resp.DataSourceData, resp.ResourceData, resp.ListResourceData = data, data, data
}

const tokenTrimHelp = "Remove the character: read a token file with trimspace(file(\"token.txt\")) in the configuration, or with " +
	"export " + EnvAPIToken + "=\"$(tr -d '\\r\\n' < token.txt)\" in the shell."

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func valueOrEnv(v types.String, env string) string {
	if !v.IsNull() && v.ValueString() != "" {
		return v.ValueString()
	}
	return os.Getenv(env)
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

// maxRequestsPerSecond is the `max_requests_per_second` setting, or
// MOBILEPLAN_MAX_REQUESTS_PER_SECOND when the provider block leaves it out,
// or 0 (no ceiling). The block's value is checked by its validator at plan
// time; the variable's is checked here.
func maxRequestsPerSecond(v types.Float64) (float64, diag.Diagnostics) {
	var diags diag.Diagnostics
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root("max_requests_per_second"), "Unknown max_requests_per_second",
			"The provider cannot be configured with a value known only after apply. Set max_requests_per_second to a number known at plan time, or leave it out and set the "+EnvMaxRequestsPerSecond+" environment variable.")
		return 0, diags
	}
	if !v.IsNull() {
		return v.ValueFloat64(), diags
	}
	env := strings.TrimSpace(os.Getenv(EnvMaxRequestsPerSecond))
	if env == "" {
		return 0, diags
	}
	n, err := strconv.ParseFloat(env, 64)
	if err == nil {
		err = client.CheckMaxRequestsPerSecond(n)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("max_requests_per_second"), "Invalid "+EnvMaxRequestsPerSecond,
			fmt.Sprintf("The %s environment variable is %q; it must be a number of requests per second above 0, such as 5 or 0.5 (or unset, for no ceiling).", EnvMaxRequestsPerSecond, env))
		return 0, diags
	}
	return n, diags
}
