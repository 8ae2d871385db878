package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

var _ datasource.DataSourceWithConfigure = (*subscriptionsDataSource)(nil)

func newSubscriptionsDataSource() datasource.DataSource { return &subscriptionsDataSource{} }

// subscriptionsDataSource is mobileplan_subscriptions: every subscription,
// filtered by the provider. What it reads of the list also serves the
// refresh of this run (listedForRefresh).
type subscriptionsDataSource struct {
	baseDataSource
	subscriptions subscriptionReader
}

func (d *subscriptionsDataSource) Configure(ctx context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.baseDataSource.Configure(ctx, req, resp)
	d.subscriptions = providerDataFrom(req.ProviderData, &resp.Diagnostics).subscriptions
}

type subscriptionsDataSourceModel struct {
	State         types.String            `tfsdk:"state"`
	PlanID        types.String            `tfsdk:"plan_id"`
	ExpiresBefore types.String            `tfsdk:"expires_before"`
	CreatedBefore types.String            `tfsdk:"created_before"`
	MaxItems      types.Int64             `tfsdk:"max_items"`
	IDs           []string                `tfsdk:"ids"`
	Subscriptions []subscriptionItemModel `tfsdk:"subscriptions"`
}

func (d *subscriptionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_subscriptions"
}

func (d *subscriptionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		MarkdownDescription: "Every subscription of the account, newest first (the service's order), optionally filtered. " +
			"Feed `ids` to an `import` block with `for_each` to bring existing subscriptions under Terraform." + filterNote,
		Attributes: map[string]dschema.Attribute{
			"state": dschema.StringAttribute{
				MarkdownDescription: "Keep only subscriptions in this state: `ready`, `active` or `expired`.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(client.StateReady, client.StateActive, client.StateExpired)},
			},
			"plan_id":        dschema.StringAttribute{MarkdownDescription: "Keep only subscriptions made from this plan.", Optional: true, Validators: notEmpty()},
			"expires_before": dschema.StringAttribute{MarkdownDescription: expiresBeforeDescription, Optional: true, Validators: []validator.String{rfc3339Timestamp}},
			"created_before": dschema.StringAttribute{MarkdownDescription: createdBeforeDescription, Optional: true, Validators: []validator.String{rfc3339Timestamp}},
			"max_items":      maxItemsAttribute(),
			"ids":            keysAttribute("Ids of the subscriptions found, in the same order as `subscriptions`."),
			"subscriptions":  itemsAttribute("The subscriptions found, newest first.", subscriptionDataSourceAttributes(false)),
		},
	}
}

func (d *subscriptionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	defer d.run.operation()(&resp.Diagnostics)
	var cfg subscriptionsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	expiry := parseTimeFilter(cfg.ExpiresBefore, expiresBeforePath, expireAt, &resp.Diagnostics)
	created := parseTimeFilter(cfg.CreatedBefore, createdBeforePath, createdAt, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	keep := func(s client.Subscription) bool {
		return matches(cfg.State, &s.State) && matches(cfg.PlanID, &s.PlanID) && expiry.keep(&s) && created.keep(&s)
	}
	cfg.Subscriptions, cfg.IDs = listing[client.Subscription, subscriptionItemModel]{
		what: "subscriptions", seq: listedForRefresh(d.subscriptions, d.client.Subscriptions(ctx)), keep: keep, maxItems: cfg.MaxItems,
		convert: subscriptionItemModelOf, key: func(s client.Subscription) string { return s.ID }, itemType: itemType(subscriptionDataSourceAttributes(false)),
	}.read(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
