package provider

import (
	"regexp"
	"testing"
)

// An empty key or filter is refused when the configuration is validated,
// before any request: an empty id would ask the service for the list's
// path, and an empty filter would silently match nothing.
func TestAccDataSources_emptyInputsRefused(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for _, config := range []string{
		`data "mobileplan_plan" "x" { id = "" }`,
		`data "mobileplan_esim" "x" { iccid = "" }`,
		`data "mobileplan_subscription" "x" { id = "" }`,
		`data "mobileplan_plans" "x" { label = "" }`,
		`data "mobileplan_plans" "x" { coverage_profile_id = "" }`,
		`data "mobileplan_esims" "x" { label = "" }`,
		`data "mobileplan_subscriptions" "x" { plan_id = "" }`,
	} {
		testAccPlanError(t, srv, config, regexp.MustCompile(`(?s)Invalid Attribute Value Length.*at least 1`))
	}
	expectNoRequests(t, srv, "empty inputs")
}
