package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

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
	preflight     *preflight
	subscriptions subscriptionReader
	states        StateCodec
	now           func() time.Time
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

// baseDataSource is embedded by every data source: the client, and the
// Configure that takes it from the provider.
type baseDataSource struct{ client *client.Client }

func (d *baseDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = providerDataFrom(req.ProviderData, &resp.Diagnostics).client
}

// warnIfRateLimited adds the warning that the service's rate limit slowed
// this run, once it has noticeably: every operation that ends after that
// says so, and Terraform folds the identical summaries into one.
func warnIfRateLimited(c *client.Client, diags *diag.Diagnostics) {
	if c == nil {
		return
	}
	if s := c.RateLimitSlowdown(); s.Held >= diagnostics.NoticeableSlowdown {
		diags.Append(diagnostics.RateLimitSlowed(s))
	}
}
