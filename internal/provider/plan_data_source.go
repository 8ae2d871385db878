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

var _ datasource.DataSourceWithConfigure = (*lookupDataSource[client.Plan, planItemModel])(nil)

func newPlanDataSource() datasource.DataSource {
	return &lookupDataSource[client.Plan, planItemModel]{
		typeSuffix:  "_plan",
		what:        "plan",
		keyAttr:     "id",
		description: "One plan, by id. A plan that does not exist is an error.",
		attributes:  planAttributes(true),
		get: func(ctx context.Context, c *client.Client, id string) (*client.Plan, error) {
			return c.GetPlan(ctx, id)
		},
		convert: planModel,
	}
}

// planItemModel is a plan as the plan data sources show it: the details a
// subscription also shows of its plan, and what only the plan itself has.
type planItemModel struct {
	ID        types.String `tfsdk:"id"`
	Archived  types.Bool   `tfsdk:"archived"`
	Addon     types.Bool   `tfsdk:"addon"`
	CreatedAt types.Int64  `tfsdk:"created_at"`
	planDetailsModel
}

func planModel(p client.Plan) (planItemModel, diag.Diagnostics) {
	return planItemModel{
		ID:               types.StringValue(p.ID),
		Archived:         types.BoolValue(p.Archived),
		Addon:            types.BoolValue(p.Addon),
		CreatedAt:        types.Int64Value(p.CreatedAt),
		planDetailsModel: planDetails.of(&p),
	}, nil
}

// planAttributes are a plan's attributes as data sources show them;
// idRequired makes `id` the lookup key.
func planAttributes(idRequired bool) map[string]dschema.Attribute {
	attrs := planDetails.dataSourceAttributes(true, false)
	attrs["id"] = dschema.StringAttribute{MarkdownDescription: "Plan id.", Computed: true}
	attrs["archived"] = dschema.BoolAttribute{MarkdownDescription: "Archived plans cannot be subscribed to.", Computed: true}
	attrs["addon"] = dschema.BoolAttribute{MarkdownDescription: "Addon plans cannot be subscribed to; they attach to an existing subscription.", Computed: true}
	attrs["created_at"] = dschema.Int64Attribute{MarkdownDescription: "When the plan was created, in Unix seconds.", Computed: true}
	if idRequired {
		attrs["id"] = dschema.StringAttribute{MarkdownDescription: "Id of the plan to read.", Required: true, Validators: notEmpty()}
	}
	return attrs
}
