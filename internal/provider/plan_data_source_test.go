package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestAccPlanDataSource(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: withProvider(srv, `data "mobileplan_plan" "p" { id = "plan_002" }`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("name"), knownvalue.StringExact("europe 3 GB / 7 days")),
				statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("label"), knownvalue.StringExact("europe")),
				statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("archived"), knownvalue.Bool(false)),
			},
		}},
	})
}
