package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func TestAccSubscriptionDataSource_parity(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_002"})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{{
			Config: withProvider(srv, fmt.Sprintf(`data "mobileplan_subscription" "s" { id = %q }`, sub.ID)),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("plan_id"), knownvalue.StringExact("plan_002")),
				statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("esim_iccid"), knownvalue.StringExact(sub.EsimICCID)),
				statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("state"), knownvalue.StringExact("ready")),
				statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("plan_details", "data_megabytes"), knownvalue.Int64Exact(3072)),
			},
		}},
	})
}
