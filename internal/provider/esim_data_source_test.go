package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func TestAccEsimDataSource_parity(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_002"})
	testAccDataSource(t, srv, fmt.Sprintf(`data "mobileplan_esim" "e" { iccid = %q }`, sub.EsimICCID),
		statecheck.ExpectKnownValue("data.mobileplan_esim.e", at("subscription_id"), knownvalue.StringExact(sub.ID)),
		statecheck.ExpectKnownValue("data.mobileplan_esim.e", at("label"), knownvalue.StringExact("europe")),
	)
}
