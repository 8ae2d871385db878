package provider

import (
	"context"
	"fmt"
	"iter"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// The list resource is what `terraform query` (Terraform 1.14 and later)
// calls to find existing subscriptions and write their configuration and
// import blocks. Like the mobileplan_subscriptions data source, it pages
// through the service's newest-first list and filters on the provider side,
// but it hands each match to Terraform as soon as it is found and reads the
// next page only when Terraform wants more than the pages so far held.

var (
	_ list.ListResource              = (*subscriptionListResource)(nil)
	_ list.ListResourceWithConfigure = (*subscriptionListResource)(nil)
)

func newSubscriptionListResource() list.ListResource { return &subscriptionListResource{} }

type subscriptionListResource struct{ client *client.Client }

type subscriptionListConfigModel struct {
	State         types.String `tfsdk:"state"`
	PlanID        types.String `tfsdk:"plan_id"`
	EsimICCID     types.String `tfsdk:"esim_iccid"`
	ExpiresBefore types.String `tfsdk:"expires_before"`
	CreatedBefore types.String `tfsdk:"created_before"`
}

func (l *subscriptionListResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = subscriptionTypeName
}

func (l *subscriptionListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = lschema.Schema{
		MarkdownDescription: "Finds the account's existing subscriptions for `terraform query` (Terraform 1.14 and later), newest first (the service's order), " +
			"each with its identity, so that `terraform query -generate-config-out=FILE` writes a `mobileplan_subscription` resource and an import block for each. " +
			"Filters are applied by the provider while it pages, since the service has no server-side filters; pages of 25 are read only as far as the list block's `limit` (default 100) needs.",
		Attributes: map[string]lschema.Attribute{
			"state": lschema.StringAttribute{
				MarkdownDescription: "Keep only subscriptions in this state: `ready`, `active` or `expired`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(client.StateReady, client.StateActive, client.StateExpired)},
			},
			"plan_id": lschema.StringAttribute{
				MarkdownDescription: "Keep only subscriptions made from this plan.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"esim_iccid": lschema.StringAttribute{
				MarkdownDescription: "Keep only the subscription of this eSIM.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"expires_before": lschema.StringAttribute{
				MarkdownDescription: expiresBeforeDescription,
				Optional:            true,
				Validators:          []validator.String{rfc3339Timestamp},
			},
			"created_before": lschema.StringAttribute{
				MarkdownDescription: createdBeforeDescription,
				Optional:            true,
				Validators:          []validator.String{rfc3339Timestamp},
			},
		},
	}
}

func (l *subscriptionListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.client = providerDataFrom(req.ProviderData, &resp.Diagnostics).client
}

func (l *subscriptionListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg subscriptionListConfigModel
	diags := req.Config.Get(ctx, &cfg)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	if l.client == nil {
		stream.Results = list.ListResultsStreamDiagnostics(diag.Diagnostics{diag.NewErrorDiagnostic("Provider not configured",
			"The mobileplan provider has no client to list subscriptions with; configure it with base_url and api_token.")})
		return
	}
	expiry := parseTimeFilter(cfg.ExpiresBefore, expiresBeforePath, expireAt, &diags)
	created := parseTimeFilter(cfg.CreatedBefore, createdBeforePath, createdAt, &diags)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	keep := func(s client.Subscription) bool {
		return matches(cfg.State, &s.State) && matches(cfg.PlanID, &s.PlanID) && matches(cfg.EsimICCID, &s.EsimICCID) && expiry.keep(&s) && created.keep(&s)
	}
	stream.Results = func(push func(list.ListResult) bool) {
		next, stop := iter.Pull2(l.client.Subscriptions(ctx))
		defer stop()
		var sent int64
		for {
			sub, err, ok := next()
			switch {
			case !ok:
				return
			case err != nil:
				push(list.ListResult{Diagnostics: diag.Diagnostics{diagnostics.APIError("Could not list subscriptions", err, path.Empty())}})
				return
			case !keep(sub):
				continue
			}
			result := subscriptionListResult(ctx, req, &sub)
			if sent++; req.Limit > 0 && sent >= req.Limit {
				// Terraform stops at its limit, silently: the last result
				// it takes says how many more match, from up to
				// listReadAhead more subscriptions of the list.
				if more, all := countMatching(next, keep, listReadAhead); more > 0 {
					result.Diagnostics.Append(diagnostics.ListCut(req.Limit, more, all, listReadAhead))
				}
				push(result)
				return
			}
			if !push(result) {
				return
			}
		}
	}
}

// listReadAhead is how many subscriptions past its limit a list reads to
// say how many more match: a hundred pages of 25, at a hundred requests,
// so that a fleet of some thousands is counted to its end and the limit
// the warning gives lists it all in one more run (at ten pages, a query
// of 2,000 took eight runs, each told "a limit above" a floor).
const listReadAhead = 100 * client.MaxPageSize

// countMatching reads up to most more subscriptions from next, and counts
// those keep accepts; all tells that the list ended within them. A page
// that fails ends the count where it stands.
func countMatching(next func() (client.Subscription, error, bool), keep func(client.Subscription) bool, most int) (matching int, all bool) {
	for range most {
		sub, err, ok := next()
		if !ok {
			return matching, true
		}
		if err != nil {
			return matching, false
		}
		if keep(sub) {
			matching++
		}
	}
	return matching, false
}

func subscriptionListResult(ctx context.Context, req list.ListRequest, sub *client.Subscription) list.ListResult {
	result := req.NewListResult(ctx)
	result.DisplayName = subscriptionDisplayName(sub)
	result.Diagnostics.Append(result.Identity.Set(ctx, subscriptionIdentityModel{ID: types.StringValue(sub.ID)})...)
	if !req.IncludeResource {
		return result
	}
	// `plan` stays null: the generated configuration names the plan by
	// plan_id, as an import of the subscription does.
	model, diags := subscriptionResourceModelOf(sub, noInputs())
	result.Diagnostics.Append(diags...)
	if diags.HasError() {
		return result
	}
	result.Diagnostics.Append(result.Resource.Set(ctx, &model)...)
	return result
}

// subscriptionDisplayName is what `terraform query` prints for a result:
// enough to tell subscriptions apart without looking them up.
func subscriptionDisplayName(sub *client.Subscription) string {
	plan := sub.PlanID
	if sub.Plan.Name != nil && *sub.Plan.Name != "" {
		plan += " (" + *sub.Plan.Name + ")"
	}
	return fmt.Sprintf("%s: %s, plan %s, eSIM %s", sub.ID, sub.State, plan, sub.EsimICCID)
}
