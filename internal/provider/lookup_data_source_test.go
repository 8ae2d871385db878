package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A key that names nothing is an error naming the data source's object and
// the key, with the service's answer.
func TestAccLookupDataSource_notFound(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	testAcc(t,
		resource.TestStep{
			Config:      withProvider(srv, `data "mobileplan_plan" "p" { id = "plan_nope" }`),
			ExpectError: errorPattern(`Error: No plan "plan_nope"`, `The service has no plan with id "plan_nope"`, "HTTP 404 Not Found", "Code: notFound"),
		},
		resource.TestStep{
			Config:      withProvider(srv, `data "mobileplan_esim" "e" { iccid = "8988247000000009999" }`),
			ExpectError: errorPattern(`Error: No eSIM "8988247000000009999"`, "HTTP 404 Not Found"),
		},
		resource.TestStep{
			Config:      withProvider(srv, `data "mobileplan_subscription" "s" { id = "sub_gone" }`),
			ExpectError: errorPattern(`Error: No subscription "sub_gone"`, "HTTP 404 Not Found"),
		},
	)
}
