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

var _ datasource.DataSourceWithConfigure = (*lookupDataSource[client.Plan, types.Object])(nil)

func newPlanDataSource() datasource.DataSource {
	return &lookupDataSource[client.Plan, types.Object]{
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

// planModel is a plan as the plan data sources show it (planShape).
func planModel(p client.Plan) (types.Object, diag.Diagnostics) {
	o, err := planShape.object(&p)
	if err != nil {
		return o, diag.Diagnostics{diag.NewErrorDiagnostic("Could not show plan "+p.ID, err.Error())}
	}
	return o, nil
}

// planAttributes are a plan's attributes as data sources show them;
// idRequired makes `id` the lookup key.
func planAttributes(idRequired bool) map[string]dschema.Attribute {
	attrs := planShape.dataSourceAttributes()
	if idRequired {
		attrs["id"] = dschema.StringAttribute{MarkdownDescription: "Id of the plan to read.", Required: true, Validators: notEmpty()}
	}
	return attrs
}
