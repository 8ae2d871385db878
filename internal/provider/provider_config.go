package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// The provider's configuration is read here, and only here: the provider
// block, with the environment variables that stand in for its settings,
// checked and turned into what Configure hands to every resource and data
// source.

type providerModel struct {
	BaseURL        types.String  `tfsdk:"base_url"`
	APIToken       types.String  `tfsdk:"api_token"`
	MaxRetries     types.Int64   `tfsdk:"max_retries"`
	RequestTimeout types.String  `tfsdk:"request_timeout"`
	Preflight      types.String  `tfsdk:"preflight"`
	PagedRefresh   types.Bool    `tfsdk:"paged_refresh"`
	MaxRPS         types.Float64 `tfsdk:"max_requests_per_second"`
	CACertPEM      types.String  `tfsdk:"ca_cert_pem"`
	LostRunStarted types.String  `tfsdk:"lost_run_started_at"`
	LostRunEnded   types.String  `tfsdk:"lost_run_ended_at"`
	Dismissed      types.List    `tfsdk:"dismissed_leftovers"`
}

func (p *mobileplanProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	p.deferred.Store(false)
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Any setting may come from something another part of the run creates
	// (a Stacks component, a secret made in the same apply). A Terraform
	// that can defer is told to plan everything of this provider again
	// once they are known: the framework then defers every resource and
	// data source without calling them, so nothing is sent. Any other
	// Terraform gets an error on each unknown setting.
	for _, s := range settingsOf(cfg) {
		if !s.unknown {
			continue
		}
		if req.ClientCapabilities.DeferralAllowed {
			tflog.Debug(ctx, "mobileplan provider deferred: a setting is known only after apply", map[string]any{"setting": s.attr})
			resp.Deferred = &provider.Deferred{Reason: provider.DeferredReasonProviderConfigUnknown}
			p.deferred.Store(true)
			return
		}
		fix := fmt.Sprintf("Set %s to a value known at plan time, or leave it out and set the %s environment variable.", s.attr, s.env)
		if s.env == "" {
			fix = fmt.Sprintf("Set %s to a value known at plan time, or leave it out.", s.attr)
		}
		resp.Diagnostics.AddAttributeError(path.Root(s.attr), "Unknown "+s.attr, "The provider cannot be configured with a value known only after apply. "+fix)
	}
	if resp.Diagnostics.HasError() {
		return
	}

	baseURL := valueOrEnv(p.getenv, cfg.BaseURL, EnvBaseURL)
	token := valueOrEnv(p.getenv, cfg.APIToken, EnvAPIToken)
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
	caCertPEM := valueOrEnv(p.getenv, cfg.CACertPEM, EnvCACertPEM)
	if caCertPEM != "" {
		if err := client.CheckCACertPEM(caCertPEM); err != nil {
			invalid("ca_cert_pem", cfg.CACertPEM, EnvCACertPEM, capitalize(err.Error())+".")
		}
	}
	mode, diags := preflightMode(p.getenv, cfg.Preflight)
	resp.Diagnostics.Append(diags...)
	maxRPS, diags := maxRequestsPerSecond(p.getenv, cfg.MaxRPS)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The defaults are the client's (client.DefaultX), as the schema documents them.
	cc := client.Config{
		BaseURL:              baseURL,
		Token:                token,
		UserAgent:            userAgent(ctx, p.getenv, p.version, req.TerraformVersion),
		RequestTimeout:       client.DefaultRequestTimeout,
		MaxRequestsPerSecond: maxRPS,
		CACertPEM:            caCertPEM,
	}
	cc.TraceParent, cc.TraceState = traceContext(ctx, p.getenv)
	maxRetries := client.DefaultMaxRetries
	if !cfg.MaxRetries.IsNull() && !cfg.MaxRetries.IsUnknown() {
		maxRetries = int(cfg.MaxRetries.ValueInt64())
		cc.MaxRetries = &maxRetries
	}
	if s := cfg.RequestTimeout.ValueString(); s != "" {
		cc.RequestTimeout, _ = time.ParseDuration(s) // checked by positiveDuration
	}
	c, err := client.New(cc)
	if err != nil {
		resp.Diagnostics.AddError("Could not configure the mobileplan client", err.Error())
		return
	}
	p.stop.watch(c)
	pagedRefresh := cfg.PagedRefresh.IsNull() || cfg.PagedRefresh.IsUnknown() || cfg.PagedRefresh.ValueBool()
	tflog.Debug(ctx, "mobileplan provider configured", map[string]any{"base_url": baseURL, "max_retries": maxRetries, "request_timeout": cc.RequestTimeout.String(), "preflight": mode, "paged_refresh": pagedRefresh, "max_requests_per_second": maxRPS, "extra_ca_certificates": caCertPEM != ""})
	lost, diags := lostRunOf(cfg)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	var dismissed []string
	resp.Diagnostics.Append(cfg.Dismissed.ElementsAs(ctx, &dismissed, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(p.recovery.Open(ctx, baseURL, token, lost, dismissed, recovery.ServiceOf(c))...)
	esims := c.SharedEsimPages()
	data := &providerData{client: c, run: newOperations(c), esims: esims, preflight: newPreflight(c, esims, mode), subscriptions: oneGetEach{c}, states: p.states, now: p.now, recovery: p.recovery}
	if pagedRefresh {
		data.subscriptions = newPagedReader(c, p.recovery)
	}
	resp.DataSourceData, resp.ResourceData, resp.ListResourceData = data, data, data
	p.configured.Store(data)
}

// userAgent is the provider's User-Agent, with TF_APPEND_USER_AGENT's
// value after it, as the AWS provider and others do, so that a team can
// tell which pipeline sent a request on a shared token.
func userAgent(ctx context.Context, getenv func(string) string, version, terraformVersion string) string {
	ua := fmt.Sprintf("terraform-provider-mobileplan/%s (+https://registry.terraform.io/providers/mobileplan/mobileplan) Terraform/%s", version, terraformVersion)
	extra := strings.TrimSpace(getenv(EnvAppendUserAgent))
	if extra == "" {
		return ua
	}
	if strings.ContainsFunc(extra, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		tflog.Debug(ctx, EnvAppendUserAgent+" holds a control character; it is not sent")
		return ua
	}
	return ua + " " + extra
}

// traceContext is the W3C trace context of TRACEPARENT and TRACESTATE, as
// a CI system or Terragrunt that started a trace sets them: every request
// then carries that trace id. A malformed value sends nothing, and says
// why in the debug log.
func traceContext(ctx context.Context, getenv func(string) string) (*client.TraceParent, string) {
	value := getenv(EnvTraceParent)
	if value == "" {
		return nil, ""
	}
	parent, err := client.ParseTraceParent(value)
	if err != nil {
		tflog.Debug(ctx, EnvTraceParent+" is not a W3C traceparent; no trace context is sent", map[string]any{"reason": err.Error()})
		return nil, ""
	}
	state := getenv(EnvTraceState)
	if err := client.CheckTraceState(state); err != nil {
		tflog.Debug(ctx, EnvTraceState+" is not a W3C tracestate; it is not sent", map[string]any{"reason": err.Error()})
		state = ""
	}
	return &parent, state
}

// setting is one attribute of the provider block: its name, the
// environment variable that stands in for it ("" for none), and whether
// its value is known only after apply.
type setting struct {
	attr, env string
	unknown   bool
}

// settingsOf lists every attribute of cfg, in the schema's order of
// importance: where the service is and how to reach it first.
func settingsOf(cfg providerModel) []setting {
	return []setting{
		{"base_url", EnvBaseURL, cfg.BaseURL.IsUnknown()},
		{"api_token", EnvAPIToken, cfg.APIToken.IsUnknown()},
		{"ca_cert_pem", EnvCACertPEM, cfg.CACertPEM.IsUnknown()},
		{"max_retries", "", cfg.MaxRetries.IsUnknown()},
		{"request_timeout", "", cfg.RequestTimeout.IsUnknown()},
		{"preflight", EnvPreflight, cfg.Preflight.IsUnknown()},
		{"paged_refresh", "", cfg.PagedRefresh.IsUnknown()},
		{"max_requests_per_second", EnvMaxRequestsPerSecond, cfg.MaxRPS.IsUnknown()},
		{"lost_run_started_at", "", cfg.LostRunStarted.IsUnknown()},
		{"lost_run_ended_at", "", cfg.LostRunEnded.IsUnknown()},
		{"dismissed_leftovers", "", cfg.Dismissed.IsUnknown()},
	}
}

// lostRunOf is the lost run the settings name: zero when
// lost_run_started_at is unset. The validators checked the form, and
// Configure unknown values.
func lostRunOf(cfg providerModel) (recovery.LostRun, diag.Diagnostics) {
	var diags diag.Diagnostics
	var r recovery.LostRun // unknown values were deferred or refused with the connection's
	if s := cfg.LostRunStarted.ValueString(); s != "" {
		r.Started, _ = time.Parse(time.RFC3339, s)
	}
	if s := cfg.LostRunEnded.ValueString(); s != "" {
		if r.Started.IsZero() {
			diags.AddAttributeError(path.Root("lost_run_ended_at"), "lost_run_ended_at without lost_run_started_at", "Set lost_run_started_at to when the lost run started; lost_run_ended_at only narrows it.")
			return recovery.LostRun{}, diags
		}
		r.Ended, _ = time.Parse(time.RFC3339, s)
		if r.Ended.Before(r.Started) {
			diags.AddAttributeError(path.Root("lost_run_ended_at"), "lost_run_ended_at before lost_run_started_at", "The lost run cannot end before it started.")
			return recovery.LostRun{}, diags
		}
	}
	return r, diags
}

// oneGetEach reads each subscription with its own GET.
type oneGetEach struct{ client *client.Client }

func (g oneGetEach) Subscription(ctx context.Context, id string, _ int64) (*client.Subscription, error) {
	return g.client.GetSubscription(ctx, id)
}

const tokenTrimHelp = "Remove the character: read a token file with trimspace(file(\"token.txt\")) in the configuration, or with " +
	"export " + EnvAPIToken + "=\"$(tr -d '\\r\\n' < token.txt)\" in the shell."

func valueOrEnv(getenv func(string) string, v types.String, env string) string {
	if !v.IsNull() && v.ValueString() != "" {
		return v.ValueString()
	}
	return getenv(env)
}

// preflightMode is the `preflight` setting, or MOBILEPLAN_PREFLIGHT when the
// provider block leaves it out, or "error".
func preflightMode(getenv func(string) string, v types.String) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	mode := valueOrEnv(getenv, v, EnvPreflight)
	switch mode {
	case "":
		return preflightError, diags
	case preflightError, preflightWarn, preflightOff:
		return mode, diags
	}
	diags.AddAttributeError(path.Root("preflight"), "Invalid "+EnvPreflight,
		fmt.Sprintf("The %s environment variable is %q; it must be \"error\", \"warn\" or \"off\" (or unset, which means \"error\").", EnvPreflight, mode))
	return "", diags
}

// maxRequestsPerSecond is the `max_requests_per_second` setting, or
// MOBILEPLAN_MAX_REQUESTS_PER_SECOND when the provider block leaves it out,
// or 0 (no ceiling). The block's value is checked by its validator at plan
// time; the variable's is checked here.
func maxRequestsPerSecond(getenv func(string) string, v types.Float64) (float64, diag.Diagnostics) {
	var diags diag.Diagnostics
	if !v.IsNull() {
		return v.ValueFloat64(), diags
	}
	env := strings.TrimSpace(getenv(EnvMaxRequestsPerSecond))
	if env == "" {
		return 0, diags
	}
	n, err := strconv.ParseFloat(env, 64)
	if err == nil {
		err = client.CheckMaxRequestsPerSecond(n)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("max_requests_per_second"), "Invalid "+EnvMaxRequestsPerSecond,
			fmt.Sprintf("The %s environment variable is %q; it must be a number of requests per second of at least %v, such as 5 or 0.5 (or unset, for no ceiling).", EnvMaxRequestsPerSecond, env, client.MinMaxRequestsPerSecond))
		return 0, diags
	}
	return n, diags
}
