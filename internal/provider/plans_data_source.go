package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

func newPlansDataSource() datasource.DataSource { return &plansDataSource{} }

type plansDataSource struct{ client *client.Client }

type planModel struct {
	ID                 types.String `tfsdk:"id"`
	Name               types.String `tfsdk:"name"`
	DataMegabytes      types.Int64  `tfsdk:"data_megabytes"`
	PeriodDays         types.Int64  `tfsdk:"period_days"`
	PeriodIterations   types.Int64  `tfsdk:"period_iterations"`
	ThrottledSpeedKbps types.Int64  `tfsdk:"throttled_speed_kbps"`
	Label              types.String `tfsdk:"label"`
	CoverageProfileID  types.String `tfsdk:"coverage_profile_id"`
	Archived           types.Bool   `tfsdk:"archived"`
	Addon              types.Bool   `tfsdk:"addon"`
	CreatedAt          types.Int64  `tfsdk:"created_at"`
}

var planAttrTypes = map[string]attr.Type{
	"id": types.StringType, "name": types.StringType, "data_megabytes": types.Int64Type,
	"period_days": types.Int64Type, "period_iterations": types.Int64Type, "throttled_speed_kbps": types.Int64Type,
	"label": types.StringType, "coverage_profile_id": types.StringType, "archived": types.BoolType,
	"addon": types.BoolType, "created_at": types.Int64Type,
}

func newPlanModel(p client.Plan) (planModel, diag.Diagnostics) {
	return planModel{
		ID:                 types.StringValue(p.ID),
		Name:               types.StringValue(p.Name),
		DataMegabytes:      types.Int64Value(p.DataMegaBytes),
		PeriodDays:         types.Int64Value(p.PeriodDays),
		PeriodIterations:   types.Int64Value(valueOr(p.PeriodIterations, defaultPeriodIterations)),
		ThrottledSpeedKbps: types.Int64Value(valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps)),
		Label:              types.StringPointerValue(p.Label),
		CoverageProfileID:  types.StringPointerValue(p.CoverageProfileID),
		Archived:           types.BoolValue(p.Archived),
		Addon:              types.BoolValue(p.Addon),
		CreatedAt:          types.Int64Value(p.CreatedAt),
	}, nil
}

// planAttributes are a plan's attributes as data sources show them;
// idRequired makes `id` the lookup key.
func planAttributes(idRequired bool) map[string]dschema.Attribute {
	id := dschema.StringAttribute{MarkdownDescription: "Plan id.", Computed: true}
	if idRequired {
		id = dschema.StringAttribute{MarkdownDescription: "Id of the plan to read.", Required: true, Validators: notEmpty()}
	}
	attrs := dataSourceComputedAttributes(planDetailsDescriptions)
	attrs["name"] = dschema.StringAttribute{MarkdownDescription: "Name of the plan.", Computed: true}
	attrs["id"] = id
	attrs["archived"] = dschema.BoolAttribute{MarkdownDescription: "Archived plans cannot be subscribed to.", Computed: true}
	attrs["addon"] = dschema.BoolAttribute{MarkdownDescription: "Addon plans cannot be subscribed to; they attach to an existing subscription.", Computed: true}
	attrs["created_at"] = dschema.Int64Attribute{MarkdownDescription: "When the plan was created, in Unix seconds.", Computed: true}
	return attrs
}

type plansDataSourceModel struct {
	Label             types.String `tfsdk:"label"`
	CoverageProfileID types.String `tfsdk:"coverage_profile_id"`
	Subscribable      types.Bool   `tfsdk:"subscribable"`
	MaxItems          types.Int64  `tfsdk:"max_items"`
	IDs               types.List   `tfsdk:"ids"`
	Plans             types.List   `tfsdk:"plans"`
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
			"plans": dschema.ListNestedAttribute{
				MarkdownDescription: "The plans found.",
				Computed:            true,
				NestedObject:        dschema.NestedAttributeObject{Attributes: planAttributes(false)},
			},
		},
	}
}

func (d *plansDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *plansDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg plansDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	keep := func(p client.Plan) bool {
		return matches(cfg.Label, p.Label) && matches(cfg.CoverageProfileID, p.CoverageProfileID) &&
			(cfg.Subscribable.IsNull() || p.Subscribable() == cfg.Subscribable.ValueBool())
	}
	cfg.Plans, cfg.IDs = listing[client.Plan, planModel]{
		what: "plans", seq: d.client.Plans(ctx), keep: keep, maxItems: cfg.MaxItems,
		convert: newPlanModel, itemTypes: planAttrTypes, key: func(p planModel) types.String { return p.ID },
	}.read(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
