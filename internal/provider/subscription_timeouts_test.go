package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// timeouts.create bounds how long a create waits for the service's quota:
// when the service asks to wait past it, the create ends at once, having
// sent nothing more, and says that applying again is safe.
func TestSubscription_createTimeoutBoundsTheWaitForTheQuota(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	srv.SetFaults(emulator.Faults{RetryAfterSeconds: 600, Rules: []emulator.FaultRule{{Method: "POST", Action: "status", Status: 429}}})
	h := harnessAt(t, srv, nil)
	timeoutsType := h.Type.AttributeTypes["timeouts"].(tftypes.Object)
	diags, _ := createIn(t, h, map[string]tftypes.Value{
		"plan_id":  text("plan_001"),
		"timeouts": prototest.Object(timeoutsType, map[string]tftypes.Value{"create": text("5s")}),
	})
	expectErrorMatching(t, diags, `(?s)HTTP 429.*asked to\s+wait\s+10m0s\s+\(Retry-After\),\s+longer\s+than\s+this\s+request\s+had\s+left.*timeouts\.create.*applying again is\s+safe`)
	if n, subs := srv.RequestCounts()["POST /v1/subscriptions"], srv.Stats().Subscriptions; n != 1 || subs != 0 {
		t.Errorf("%d creates sent and %d subscriptions; want the one refused and none", n, subs)
	}
}

// The block is kept in state as written, and changing it changes nothing
// at the service: an update in place that calls no API.
func TestAccSubscription_timeoutsInState(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := func(create string) string {
		return withProvider(srv, `
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
  timeouts {
    create = "`+create+`"
  }
}
`)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				Config: config("90s"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subAddr, tfjsonpath.New("timeouts").AtMapKey("create"), knownvalue.StringExact("90s")),
				},
			},
			{
				Config: config("20m"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subAddr, tfjsonpath.New("timeouts").AtMapKey("create"), knownvalue.StringExact("20m")),
				},
			},
		},
	})
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("%d subscriptions, want 1: changing timeouts creates nothing", n)
	}
}
