package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// mobileplan_plan reads one plan by id. Its model and attributes are also
// those of each item of mobileplan_plans.

var _ datasource.DataSourceWithConfigure = (*lookupDataSource[client.Plan, planModel])(nil)

func newPlanDataSource() datasource.DataSource {
	return &lookupDataSource[client.Plan, planModel]{
		typeSuffix:  "_plan",
		what:        "plan",
		keyAttr:     "id",
		description: "One plan, by id. A plan that does not exist is an error.",
		attributes:  planAttributes(true),
		get: func(ctx context.Context, c *client.Client, id string) (*client.Plan, error) {
			return c.GetPlan(ctx, id)
		},
		convert: newPlanModel,
	}
}

// planModel is a plan: the details a subscription also shows of its plan,
// and what only the plan itself has.
type planModel struct {
	ID types.String `tfsdk:"id"`
	planDetailsModel
	Archived  types.Bool  `tfsdk:"archived"`
	Addon     types.Bool  `tfsdk:"addon"`
	CreatedAt types.Int64 `tfsdk:"created_at"`
}

func newPlanModel(p client.Plan) (planModel, diag.Diagnostics) {
	return planModel{
		ID: types.StringValue(p.ID),
		planDetailsModel: planDetailsModel{
			Name:               types.StringValue(p.Name),
			DataMegabytes:      types.Int64Value(p.DataMegaBytes),
			PeriodDays:         types.Int64Value(p.PeriodDays),
			PeriodIterations:   types.Int64Value(valueOr(p.PeriodIterations, defaultPeriodIterations)),
			ThrottledSpeedKbps: types.Int64Value(valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps)),
			Label:              types.StringPointerValue(p.Label),
			CoverageProfileID:  types.StringPointerValue(p.CoverageProfileID),
		},
		Archived:  types.BoolValue(p.Archived),
		Addon:     types.BoolValue(p.Addon),
		CreatedAt: types.Int64Value(p.CreatedAt),
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
