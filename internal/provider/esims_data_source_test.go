package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func esimICCIDs(ds state.Dataset, keep func(state.Esim) bool) []string {
	return keysOf(ds.Esims, keep, func(e state.Esim) string { return e.ICCID })
}

func TestAccEsimsDataSource_parity(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	released := f.dataset.Esims[40].ICCID
	if err := f.srv.SetSmdpState(released, "RELEASED"); err != nil {
		t.Fatal(err)
	}
	assigned := map[string]bool{}
	for _, id := range f.subIDs {
		sub := createdSubscription(t, f.srv, id)
		assigned[sub.EsimICCID] = true
	}
	all := func(state.Esim) bool { return true }
	config := `
data "mobileplan_esims" "all" {}
data "mobileplan_esims" "asia" { label = "asia" }
data "mobileplan_esims" "released" { smdp_state = "RELEASED" }
data "mobileplan_esims" "assigned" { assigned = true }
data "mobileplan_esims" "free" { assigned = false }
data "mobileplan_esims" "free_asia" {
  assigned = false
  label    = "asia"
}
data "mobileplan_esims" "some" { max_items = 26 }
`
	testAccDataSource(t, f.srv, config,
		statecheck.ExpectKnownValue("data.mobileplan_esims.all", at("iccids"), stringList(esimICCIDs(f.dataset, all))),
		statecheck.ExpectKnownValue("data.mobileplan_esims.all", at("esims").AtSliceIndex(40), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"iccid":           knownvalue.StringExact(released),
			"label":           knownvalue.StringExact(label(f.dataset.Esims[40].Label)),
			"smdp_state":      knownvalue.StringExact("RELEASED"),
			"subscription_id": knownvalue.Null(),
			"country_iso2":    knownvalue.Null(),
			"created_at":      knownvalue.Int64Exact(f.dataset.Esims[40].CreatedAt),
		})),
		statecheck.ExpectKnownValue("data.mobileplan_esims.asia", at("iccids"), stringList(esimICCIDs(f.dataset, func(e state.Esim) bool { return label(e.Label) == "asia" }))),
		statecheck.ExpectKnownValue("data.mobileplan_esims.released", at("iccids"), stringList([]string{released})),
		statecheck.ExpectKnownValue("data.mobileplan_esims.assigned", at("iccids"), stringList(esimICCIDs(f.dataset, func(e state.Esim) bool { return assigned[e.ICCID] }))),
		statecheck.ExpectKnownValue("data.mobileplan_esims.free", at("iccids"), knownvalue.ListSizeExact(manyEsims-manySubscriptions)),
		statecheck.ExpectKnownValue("data.mobileplan_esims.free_asia", at("iccids"), stringList(esimICCIDs(f.dataset, func(e state.Esim) bool {
			return !assigned[e.ICCID] && label(e.Label) == "asia"
		}))),
		statecheck.ExpectKnownValue("data.mobileplan_esims.some", at("iccids"), stringList(esimICCIDs(f.dataset, all)[:26])),
	)
}
