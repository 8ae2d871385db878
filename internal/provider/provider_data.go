package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// What the provider's Configure hands over (provider.go): data sources get
// the *client.Client, resources a *resourceData. Both are nil before the
// provider is configured (during validation), which callers tolerate
// because no request is made then.

// resourceData is what Configure hands to resources: the client, and the
// preflight and paged refresh of this provider instance (each nil when it
// is off).
type resourceData struct {
	client    *client.Client
	preflight *preflight
	refresh   *pagedRefresh
}

// baseDataSource is embedded by every data source: the client, and the
// Configure that takes it from the provider.
type baseDataSource struct{ client *client.Client }

func (d *baseDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

// clientFrom takes the configured client out of ProviderData, whichever of
// the two forms it has.
func clientFrom(data any, diags *diag.Diagnostics) *client.Client {
	if data == nil {
		return nil
	}
	if d, ok := data.(*resourceData); ok {
		return d.client
	}
	c, ok := data.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data", "The provider handed over an unexpected client type; this is a bug in the provider, please report it.")
		return nil
	}
	return c
}

// preflightFrom takes the preflight out of ProviderData; nil, which checks
// nothing, before the provider is configured.
func preflightFrom(data any) *preflight {
	if d, ok := data.(*resourceData); ok {
		return d.preflight
	}
	return nil
}

// pagedRefreshFrom takes the paged refresh out of ProviderData; nil, which
// reads each subscription with its own GET, when it is off or the provider
// is not configured.
func pagedRefreshFrom(data any) *pagedRefresh {
	if d, ok := data.(*resourceData); ok {
		return d.refresh
	}
	return nil
}
