package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The provider's schema, as Terraform reads it, marks what the service
// deprecates: plan_details.name of a subscription, in the resource and in
// mobileplan_subscription. In the items of mobileplan_subscriptions its
// description says it, unmarked: OpenTofu's marks of every item cost a
// read of the list time that grows with the square of the items
// (declaredObject.dataSourceAttributes). A plan's own name (the plan data
// sources) and plan_id, the only way to know a subscription's plan, are
// not deprecated.
func TestProviderSchema_marksTheServicesDeprecations(t *testing.T) {
	t.Parallel()
	schemas, err := NewProtocol6("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	attribute := func(attrs []*tfprotov6.SchemaAttribute, name string) *tfprotov6.SchemaAttribute {
		for _, a := range attrs {
			if a.Name == name {
				return a
			}
		}
		t.Fatalf("no attribute %s", name)
		return nil
	}
	nested := func(a *tfprotov6.SchemaAttribute) []*tfprotov6.SchemaAttribute {
		if a.NestedType == nil {
			t.Fatalf("%s is not nested", a.Name)
		}
		return a.NestedType.Attributes
	}
	subscription := schemas.ResourceSchemas[prototest.SubscriptionType].Block.Attributes
	one := schemas.DataSourceSchemas["mobileplan_subscription"].Block.Attributes
	list := nested(attribute(schemas.DataSourceSchemas["mobileplan_subscriptions"].Block.Attributes, "subscriptions"))
	for where, attrs := range map[string][]*tfprotov6.SchemaAttribute{"resource": subscription, "data source": one, "list data source": list} {
		name := attribute(nested(attribute(attrs, "plan_details")), "name")
		if marked := where != "list data source"; name.Deprecated != marked || !strings.Contains(name.Description, "Deprecated by the service") {
			t.Errorf("%s: plan_details.name marked deprecated %v, want %v, described %q", where, name.Deprecated, marked, name.Description)
		}
		if planID := attribute(attrs, "plan_id"); planID.Deprecated {
			t.Errorf("%s: plan_id is deprecated", where)
		}
	}
	plan := schemas.DataSourceSchemas["mobileplan_plan"].Block.Attributes
	if name := attribute(plan, "name"); name.Deprecated {
		t.Error("mobileplan_plan: a plan's own name is deprecated")
	}
	if got := attribute(nested(attribute(subscription, "plan_details")), "name").Description; got == "" {
		t.Error("plan_details.name has no description")
	}
}
