package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

func newPlanDataSource() datasource.DataSource {
	return &lookupDataSource[client.Plan, planModel]{
		typeSuffix:  "_plan",
		what:        "plan",
		keyAttr:     "id",
		description: "One plan, by id. A plan that does not exist is an error.",
		attributes:  func() map[string]dschema.Attribute { return planAttributes(true) },
		get:         (*client.Client).GetPlan,
		convert:     func(p *client.Plan) (planModel, diag.Diagnostics) { return newPlanModel(*p) },
	}
}
