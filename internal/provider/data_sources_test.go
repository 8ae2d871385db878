package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// A data set spanning several pages of 25 in every list.
const (
	manyPlans         = 60
	manyEsims         = 110
	manySubscriptions = 30
)

type listFixture struct {
	srv     *emulatortest.Server
	dataset emulator.Dataset
	subIDs  []string // newest first, as the service lists them
}

func startListFixture(t *testing.T) listFixture {
	t.Helper()
	ds := emulator.DefaultDataset(manyPlans, manyEsims)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	f := listFixture{srv: srv, dataset: ds}
	for i := range manySubscriptions {
		planID := []string{"plan_010", "plan_001", "plan_002"}[i%3] // no label (any eSIM), global, europe
		sub := createOutsideTerraform(t, srv, client.CreateSubscriptionRequest{PlanID: planID})
		f.subIDs = append([]string{sub.ID}, f.subIDs...)
	}
	return f
}

func stringList(values []string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

func planIDs(ds emulator.Dataset, keep func(emulator.Plan) bool) []string {
	var ids []string
	for _, p := range ds.Plans {
		if keep(p) {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

func esimICCIDs(ds emulator.Dataset, keep func(emulator.Esim) bool) []string {
	var ids []string
	for _, e := range ds.Esims {
		if keep(e) {
			ids = append(ids, e.ICCID)
		}
	}
	return ids
}

func label(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func TestAccPlansDataSource(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	all := func(emulator.Plan) bool { return true }
	config := withProvider(f.srv, `
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
`)
	europe := planIDs(f.dataset, func(p emulator.Plan) bool { return label(p.Label) == "europe" })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
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
				statecheck.ExpectKnownValue("data.mobileplan_plans.americas", at("ids"), stringList(planIDs(f.dataset, func(p emulator.Plan) bool {
					return p.CoverageProfileID != nil && *p.CoverageProfileID == "cov-am"
				}))),
				statecheck.ExpectKnownValue("data.mobileplan_plans.subscribable", at("ids"), stringList(planIDs(f.dataset, func(p emulator.Plan) bool { return !p.Archived && !p.Addon }))),
				statecheck.ExpectKnownValue("data.mobileplan_plans.not_subscribable", at("ids"), stringList(planIDs(f.dataset, func(p emulator.Plan) bool { return p.Archived || p.Addon }))),
				statecheck.ExpectKnownValue("data.mobileplan_plans.first_thirty", at("ids"), stringList(planIDs(f.dataset, all)[:30])),
				statecheck.ExpectKnownValue("data.mobileplan_plans.first_europe", at("ids"), stringList(europe[:2])),
			},
		}},
	})
}

func TestAccEsimsDataSource(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	released := f.dataset.Esims[40].ICCID
	if err := f.srv.SetSmdpState(released, "RELEASED"); err != nil {
		t.Fatal(err)
	}
	assigned := map[string]bool{}
	for _, id := range f.subIDs {
		sub, _ := createdSubscription(t, f.srv, id)
		assigned[sub.EsimICCID] = true
	}
	all := func(emulator.Esim) bool { return true }
	config := withProvider(f.srv, `
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
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mobileplan_esims.all", at("iccids"), stringList(esimICCIDs(f.dataset, all))),
				statecheck.ExpectKnownValue("data.mobileplan_esims.all", at("esims").AtSliceIndex(40), knownvalue.ObjectExact(map[string]knownvalue.Check{
					"iccid":           knownvalue.StringExact(released),
					"label":           knownvalue.StringExact(label(f.dataset.Esims[40].Label)),
					"smdp_state":      knownvalue.StringExact("RELEASED"),
					"subscription_id": knownvalue.Null(),
					"country_iso2":    knownvalue.Null(),
					"created_at":      knownvalue.Int64Exact(f.dataset.Esims[40].CreatedAt),
				})),
				statecheck.ExpectKnownValue("data.mobileplan_esims.asia", at("iccids"), stringList(esimICCIDs(f.dataset, func(e emulator.Esim) bool { return label(e.Label) == "asia" }))),
				statecheck.ExpectKnownValue("data.mobileplan_esims.released", at("iccids"), stringList([]string{released})),
				statecheck.ExpectKnownValue("data.mobileplan_esims.assigned", at("iccids"), stringList(esimICCIDs(f.dataset, func(e emulator.Esim) bool { return assigned[e.ICCID] }))),
				statecheck.ExpectKnownValue("data.mobileplan_esims.free", at("iccids"), knownvalue.ListSizeExact(manyEsims-manySubscriptions)),
				statecheck.ExpectKnownValue("data.mobileplan_esims.free_asia", at("iccids"), stringList(esimICCIDs(f.dataset, func(e emulator.Esim) bool {
					return !assigned[e.ICCID] && label(e.Label) == "asia"
				}))),
				statecheck.ExpectKnownValue("data.mobileplan_esims.some", at("iccids"), stringList(esimICCIDs(f.dataset, all)[:26])),
			},
		}},
	})
}

func TestAccSubscriptionsDataSource(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	active := f.subIDs[4]
	if err := f.srv.Activate(active); err != nil {
		t.Fatal(err)
	}
	var fromPlan10 []string
	for _, id := range f.subIDs {
		if sub, _ := createdSubscription(t, f.srv, id); sub.PlanID == "plan_010" {
			fromPlan10 = append(fromPlan10, id)
		}
	}
	config := withProvider(f.srv, `
data "mobileplan_subscriptions" "all" {}
data "mobileplan_subscriptions" "active" { state = "active" }
data "mobileplan_subscriptions" "ready" { state = "ready" }
data "mobileplan_subscriptions" "plan10" { plan_id = "plan_010" }
data "mobileplan_subscriptions" "newest" { max_items = 3 }
`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("ids"), stringList(f.subIDs)),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(4).AtMapKey("state"), knownvalue.StringExact("active")),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(4).AtMapKey("activated_at"), knownvalue.NotNull()),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(0).AtMapKey("remaining_allowance").AtMapKey("voice_seconds"), knownvalue.Null()),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.active", at("ids"), stringList([]string{active})),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.ready", at("ids"), knownvalue.ListSizeExact(manySubscriptions-1)),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.plan10", at("ids"), stringList(fromPlan10)),
				statecheck.ExpectKnownValue("data.mobileplan_subscriptions.newest", at("ids"), stringList(f.subIDs[:3])),
			},
		}},
	})
}

func TestAccListDataSource_filterValuesChecked(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for config, want := range map[string]string{
		`data "mobileplan_subscriptions" "x" { state = "Expired" }`: `value must be one of: \["ready" "active" "expired"\]`,
		`data "mobileplan_esims" "x" { smdp_state = "available" }`:  `must be an uppercase word such as AVAILABLE`,
	} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			Steps: []resource.TestStep{{
				Config:      withProvider(srv, config),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value.*` + want),
			}},
		})
	}
	if n := len(srv.RequestCounts()); n != 0 {
		t.Errorf("invalid filters still sent requests: %v", srv.RequestCounts())
	}
}

func TestAccSingularDataSources(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := createOutsideTerraform(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_002"})
	config := withProvider(srv, fmt.Sprintf(`
data "mobileplan_plan" "p" { id = "plan_002" }
data "mobileplan_esim" "e" { iccid = %q }
data "mobileplan_subscription" "s" { id = %q }
`, sub.EsimICCID, sub.ID))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("name"), knownvalue.StringExact("europe 3 GB / 7 days")),
					statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("label"), knownvalue.StringExact("europe")),
					statecheck.ExpectKnownValue("data.mobileplan_plan.p", at("archived"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("data.mobileplan_esim.e", at("subscription_id"), knownvalue.StringExact(sub.ID)),
					statecheck.ExpectKnownValue("data.mobileplan_esim.e", at("label"), knownvalue.StringExact("europe")),
					statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("plan_id"), knownvalue.StringExact("plan_002")),
					statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("esim_iccid"), knownvalue.StringExact(sub.EsimICCID)),
					statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("state"), knownvalue.StringExact("ready")),
					statecheck.ExpectKnownValue("data.mobileplan_subscription.s", at("plan_details", "data_megabytes"), knownvalue.Int64Exact(3072)),
				},
			},
			{
				Config:      withProvider(srv, `data "mobileplan_plan" "p" { id = "plan_nope" }`),
				ExpectError: errorPattern(`Error: No plan "plan_nope"`, `The service has no plan with id "plan_nope"`, "HTTP 404 Not Found", "Code: notFound"),
			},
			{
				Config:      withProvider(srv, `data "mobileplan_esim" "e" { iccid = "8988247000000009999" }`),
				ExpectError: errorPattern(`Error: No eSIM "8988247000000009999"`, "HTTP 404 Not Found"),
			},
			{
				Config:      withProvider(srv, `data "mobileplan_subscription" "s" { id = "sub_gone" }`),
				ExpectError: errorPattern(`Error: No subscription "sub_gone"`, "HTTP 404 Not Found"),
			},
		},
	})
}

func TestAccListDataSource_pageFailure(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	// The token is revoked between the first and the second page.
	f.srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/esims", Action: "status", Status: 401, After: 1}}})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: withProvider(f.srv, `data "mobileplan_esims" "all" {}`),
			ExpectError: errorPattern("Error: Could not list eSIMs", "Listing stopped at page 2, after 25 items had been read",
				"HTTP 401 Unauthorized", "Code: unauthorized", "MOBILEPLAN_API_TOKEN"),
		}},
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
		tf.write("main.tf", cliProvider(f.srv)+fmt.Sprintf("data %q \"x\" {\n%s\n}\n", tc.source, tc.args))
		before := f.srv.RequestCounts()[tc.route]
		tf.must("plan", "-input=false")
		if got := f.srv.RequestCounts()[tc.route] - before; got != tc.want {
			t.Errorf("%s {%s}: %d requests, want %d", tc.source, tc.args, got, tc.want)
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// TestCLI_bulkImportExample runs examples/bulk-import against an account
// holding more subscriptions than one page.
func TestCLI_bulkImportExample(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	tf := newTerraformCLI(t, EnvBaseURL+"="+f.srv.URL, EnvAPIToken+"="+f.srv.Token)
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "bulk-import", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	tf.write("main.tf", string(example))
	out := tf.must("plan", "-input=false")
	want := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", manySubscriptions)
	if !strings.Contains(out, want) {
		t.Fatalf("bulk import plan lacks %q:\n%s", want, out)
	}
	out = tf.must("apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, fmt.Sprintf("%d imported, 0 added, 0 changed, 0 destroyed", manySubscriptions)) {
		t.Fatalf("bulk import apply:\n%s", out)
	}
	tf.expectNoChanges()
	if n := f.srv.RequestCounts()["POST /v1/subscriptions"]; n != manySubscriptions {
		t.Errorf("%d creates at the service, want only the fixture's %d", n, manySubscriptions)
	}
	state := tf.must("state", "list")
	if got := strings.Count(state, "mobileplan_subscription.adopted["); got != manySubscriptions {
		t.Errorf("state holds %d adopted subscriptions, want %d:\n%s", got, manySubscriptions, state)
	}
}

func createdSubscription(t *testing.T, srv *emulatortest.Server, id string) (*client.Subscription, error) {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sub, nil
}

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
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviders,
			Steps: []resource.TestStep{{
				Config:      withProvider(srv, config),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Value Length.*at least 1`),
			}},
		})
	}
	if n := len(srv.RequestCounts()); n != 0 {
		t.Errorf("empty inputs still sent requests: %v", srv.RequestCounts())
	}
}
