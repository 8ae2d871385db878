package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func TestAccPlansDataSource_parity(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	all := func(state.Plan) bool { return true }
	config := `
data "mobileplan_plans" "all" {}
data "mobileplan_plans" "europe" { label = "europe" }
data "mobileplan_plans" "americas" { coverage_profile_id = "cov-am" }
data "mobileplan_plans" "subscribable" { subscribable = true }
data "mobileplan_plans" "not_subscribable" { subscribable = false }
data "mobileplan_plans" "first_thirty" { max_items = 30 }
data "mobileplan_plans" "first_europe" {
  label     = "europe"
  max_items = 2
}
`
	europe := planIDs(f.dataset, func(p state.Plan) bool { return label(p.Label) == "europe" })
	testAccDataSource(t, f.srv, config,
		statecheck.ExpectKnownValue("data.mobileplan_plans.all", at("ids"), stringList(planIDs(f.dataset, all))),
		statecheck.ExpectKnownValue("data.mobileplan_plans.all", at("plans"), knownvalue.ListSizeExact(manyPlans)),
		statecheck.ExpectKnownValue("data.mobileplan_plans.all", at("plans").AtSliceIndex(8), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"id":                   knownvalue.StringExact("plan_009"),
			"name":                 knownvalue.StringExact("any 10 GB / 90 days (archived)"),
			"data_megabytes":       knownvalue.Int64Exact(10240),
			"period_days":          knownvalue.Int64Exact(90),
			"period_iterations":    knownvalue.Int64Exact(1),
			"throttled_speed_kbps": knownvalue.Int64Exact(0),
			"label":                knownvalue.Null(),
			"coverage_profile_id":  knownvalue.Null(),
			"archived":             knownvalue.Bool(true),
			"addon":                knownvalue.Bool(false),
			"created_at":           knownvalue.Int64Exact(1767225600 + 8*3600),
		})),
		statecheck.ExpectKnownValue("data.mobileplan_plans.europe", at("ids"), stringList(europe)),
		statecheck.ExpectKnownValue("data.mobileplan_plans.americas", at("ids"), stringList(planIDs(f.dataset, func(p state.Plan) bool {
			return p.CoverageProfileID != nil && *p.CoverageProfileID == "cov-am"
		}))),
		statecheck.ExpectKnownValue("data.mobileplan_plans.subscribable", at("ids"), stringList(planIDs(f.dataset, func(p state.Plan) bool { return !p.Archived && !p.Addon }))),
		statecheck.ExpectKnownValue("data.mobileplan_plans.not_subscribable", at("ids"), stringList(planIDs(f.dataset, func(p state.Plan) bool { return p.Archived || p.Addon }))),
		statecheck.ExpectKnownValue("data.mobileplan_plans.first_thirty", at("ids"), stringList(planIDs(f.dataset, all)[:30])),
		statecheck.ExpectKnownValue("data.mobileplan_plans.first_europe", at("ids"), stringList(europe[:2])),
	)
}
