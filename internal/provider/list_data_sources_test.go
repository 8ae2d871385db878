package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

func TestAccListDataSource_filterValuesChecked(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for config, want := range map[string]string{
		`data "mobileplan_subscriptions" "x" { state = "Expired" }`: `value must be one of: \["ready" "active" "expired"\]`,
		`data "mobileplan_esims" "x" { smdp_state = "available" }`:  `must be an uppercase word such as AVAILABLE`,
	} {
		testAccPlanError(t, srv, config, regexp.MustCompile(`(?s)Invalid Attribute Value.*`+want))
	}
	expectNoRequests(t, srv, "invalid filters")
}

func TestAccListDataSource_pageFailure(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	// The token is revoked between the first and the second page.
	f.srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/esims", Action: "status", Status: 401, After: 1}}})
	testAcc(t, resource.TestStep{
		Config: withProvider(f.srv, `data "mobileplan_esims" "all" {}`),
		ExpectError: errorPattern("Error: Could not list eSIMs", "Listing stopped at page 2, after 25 items had been read",
			"HTTP 401 Unauthorized", "Code: unauthorized", "MOBILEPLAN_API_TOKEN"),
	})
}

// TestCLI_listRequestCounts reads each list once through `terraform plan`
// and counts the requests the service saw.
func TestCLI_listRequestCounts(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	cases := []struct {
		source, args, route string
		want                int
	}{
		{"mobileplan_plans", "", "GET /v1/plans", ceilDiv(manyPlans, 25)},
		{"mobileplan_esims", "", "GET /v1/esims", ceilDiv(manyEsims, 25)},
		{"mobileplan_subscriptions", "", "GET /v1/subscriptions", ceilDiv(manySubscriptions, 25)},
		{"mobileplan_esims", "max_items = 30", "GET /v1/esims", 2},
		{"mobileplan_plans", "max_items = 5", "GET /v1/plans", 1},
	}
	for _, tc := range cases {
		tf := newTerraformCLI(t)
		tf.Write("main.tf", cliProvider(f.srv)+fmt.Sprintf("data %q \"x\" {\n%s\n}\n", tc.source, tc.args))
		before := f.srv.RequestCounts()[tc.route]
		tf.Must("plan", "-input=false")
		if got := f.srv.RequestCounts()[tc.route] - before; got != tc.want {
			t.Errorf("%s {%s}: %d requests, want %d", tc.source, tc.args, got, tc.want)
		}
	}
}

// A filter that matches nothing gives empty lists, not null ones, so that
// length() and for_each work on the result.
func TestAccListDataSource_noMatchIsEmpty(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	testAccDataSource(t, srv, `data "mobileplan_esims" "none" { label = "nowhere" }`,
		statecheck.ExpectKnownValue("data.mobileplan_esims.none", at("iccids"), knownvalue.ListSizeExact(0)),
		statecheck.ExpectKnownValue("data.mobileplan_esims.none", at("esims"), knownvalue.ListSizeExact(0)),
	)
}
