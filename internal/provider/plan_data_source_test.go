package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestAccPlanDataSource_parity(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	testAccDataSource(t, srv, `data "mobileplan_plan" "p" { id = "plan_002" }`,
		statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("name"), knownvalue.StringExact("europe 3 GB / 7 days")),
		statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("label"), knownvalue.StringExact("europe")),
		statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("archived"), knownvalue.Bool(false)),
	)
}
