package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

var _ datasource.DataSourceWithConfigure = (*plansDataSource)(nil)

func newPlansDataSource() datasource.DataSource { return &plansDataSource{} }

// plansDataSource is mobileplan_plans: every plan, filtered by the provider.
type plansDataSource struct{ baseDataSource }

type plansDataSourceModel struct {
	Label             types.String    `tfsdk:"label"`
	CoverageProfileID types.String    `tfsdk:"coverage_profile_id"`
	Subscribable      types.Bool      `tfsdk:"subscribable"`
	MaxItems          types.Int64     `tfsdk:"max_items"`
	IDs               []string        `tfsdk:"ids"`
	Plans             []planItemModel `tfsdk:"plans"`
}

func (d *plansDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_plans"
}

func (d *plansDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		MarkdownDescription: "Every plan of the account, in the service's order, optionally filtered. " +
			"The custom plans the service makes from inline `plan` blocks of `mobileplan_subscription` are plans too, and are listed like any other." + filterNote,
		Attributes: map[string]dschema.Attribute{
			"label":               dschema.StringAttribute{MarkdownDescription: "Keep only plans with this compatibility label.", Optional: true, Validators: notEmpty()},
			"coverage_profile_id": dschema.StringAttribute{MarkdownDescription: "Keep only plans with this coverage profile.", Optional: true, Validators: notEmpty()},
			"subscribable": dschema.BoolAttribute{
				MarkdownDescription: "`true` keeps only plans a subscription can be made from (neither archived nor addon); `false` keeps only the others.",
				Optional:            true,
			},
			"max_items": maxItemsAttribute(),
			"ids":       keysAttribute("Ids of the plans found, in the same order as `plans`."),
			"plans":     itemsAttribute("The plans found.", planAttributes(false)),
		},
	}
}

func (d *plansDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	defer d.run.operation()(&resp.Diagnostics)
	var cfg plansDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	keep := func(p client.Plan) bool {
		return matches(cfg.Label, p.Label) && matches(cfg.CoverageProfileID, p.CoverageProfileID) &&
			(cfg.Subscribable.IsNull() || p.Subscribable() == cfg.Subscribable.ValueBool())
	}
	cfg.Plans, cfg.IDs = listing[client.Plan, planItemModel]{
		what: "plans", seq: d.client.Plans(ctx), keep: keep, maxItems: cfg.MaxItems,
		convert: planModel, key: func(p client.Plan) string { return p.ID }, itemType: itemType(planAttributes(false)),
	}.read(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
