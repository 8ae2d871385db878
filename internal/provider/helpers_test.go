package provider

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// errorPattern matches output holding each part in order. Terraform wraps
// diagnostic text at 80 columns, so a space in a part matches any run of
// white space.
func errorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

// testAcc runs steps as one acceptance test case of the in-process provider.
func testAcc(t *testing.T, steps ...resource.TestStep) {
	t.Helper()
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: providersFor(t), Steps: steps})
}

// testAccDataSource applies config (data sources, the provider block for srv
// added) and runs checks on the state it leaves.
func testAccDataSource(t *testing.T, srv *emulatortest.Server, config string, checks ...statecheck.StateCheck) {
	t.Helper()
	testAcc(t, resource.TestStep{Config: withProvider(srv, config), ConfigStateChecks: checks})
}

// testAccPlanError plans config (the provider block for srv added) and
// expects an error that want matches.
func testAccPlanError(t *testing.T, srv *emulatortest.Server, config string, want *regexp.Regexp) {
	t.Helper()
	testAcc(t, resource.TestStep{Config: withProvider(srv, config), PlanOnly: true, ExpectError: want})
}

// expectErrorMatching fails the test unless diags, a provider's answers
// to calls made in-process, hold an error and their text matches want:
// the in-process form of testAccPlanError.
func expectErrorMatching(t *testing.T, diags []*tfprotov6.Diagnostic, want string) {
	t.Helper()
	if !hasErrors(diags) || !regexp.MustCompile(want).MatchString(prototest.DiagText(diags)) {
		t.Errorf("want an error matching %s, got:\n%s", want, prototest.DiagText(diags))
	}
}

// expectNoRequests fails the test if srv has seen any request: inputs
// refused while the configuration is validated must never reach it.
func expectNoRequests(t *testing.T, srv *emulatortest.Server, what string) {
	t.Helper()
	if n := len(srv.RequestCounts()); n != 0 {
		t.Errorf("%s still sent requests: %v", what, srv.RequestCounts())
	}
}

var planCustom = regexp.MustCompile(`^plan_custom_`)

// A data set spanning several pages of 25 in every list.
const (
	manyPlans         = 60
	manyEsims         = 110
	manySubscriptions = 30
)

type listFixture struct {
	srv     *emulatortest.Server
	dataset state.Dataset
	subIDs  []string // newest first, as the service lists them
}

func startListFixture(t *testing.T) listFixture {
	t.Helper()
	ds := emulator.DefaultDataset(manyPlans, manyEsims)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	f := listFixture{srv: srv, dataset: ds}
	for i := range manySubscriptions {
		planID := []string{"plan_010", "plan_001", "plan_002"}[i%3] // no label (any eSIM), global, europe
		sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: planID})
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

func label(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// keysOf is the key of each item that keep accepts, in order: what a list
// data source should find.
func keysOf[T any](items []T, keep func(T) bool, key func(T) string) []string {
	var keys []string
	for _, it := range items {
		if keep(it) {
			keys = append(keys, key(it))
		}
	}
	return keys
}

func createdSubscription(t *testing.T, srv *emulatortest.Server, id string) *client.Subscription {
	t.Helper()
	sub, err := prototest.ServiceClient(t, srv).GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// unwrap joins Terraform's 80-column wrapping so phrases can be matched.
func unwrap(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func cliProvider(srv *emulatortest.Server) string {
	return acctest.ProviderBlock(srv, "")
}

// newTerraformCLI is a CLI running the provider users run, its calls
// traced under t's test when the run records or checks the one-CLI list.
func newTerraformCLI(t *testing.T, extraEnv ...string) *acctest.CLI {
	t.Helper()
	return acctest.NewCLI(t, acctest.ProductBinary, append(builtProviderTraceEnv(t), extraEnv...)...)
}

func planIDs(ds state.Dataset, keep func(state.Plan) bool) []string {
	return keysOf(ds.Plans, keep, func(p state.Plan) string { return p.ID })
}

// fleet is count subscriptions spread round-robin over plan ids.
func fleet(count int, planIDs ...string) string {
	return fmt.Sprintf(`
locals {
  plans = %s
}

resource "mobileplan_subscription" "fleet" {
  count   = %d
  plan_id = local.plans[count.index %% length(local.plans)]
}
`, hclList(planIDs), count)
}

func newRequests(t *testing.T, srv *emulatortest.Server) *requests {
	return &requests{t: t, srv: srv, before: srv.RequestCounts()}
}

// subscriptions is a configuration of one resource per plan id, named s0, s1...
func subscriptions(planIDs ...string) string {
	var b strings.Builder
	for i, id := range planIDs {
		if id == "inline" {
			fmt.Fprintf(&b, "resource \"mobileplan_subscription\" \"s%d\" {\n  plan = { coverage_id = \"cov-eu\", data_mbs = 100, period_days = 3 }\n}\n", i)
			continue
		}
		fmt.Fprintf(&b, "resource \"mobileplan_subscription\" \"s%d\" {\n  plan_id = %q\n}\n", i, id)
	}
	return b.String()
}

func startInventory(t testing.TB, stocks ...stock) *emulatortest.Server {
	t.Helper()
	return emulatortest.Start(t, emulator.Options{Dataset: inventoryDataset(stocks)})
}

// withProvider prefixes a configuration with a provider block pointing at srv.
func withProvider(srv *emulatortest.Server, body string) string {
	return fmt.Sprintf(`
provider "mobileplan" {
  base_url  = %q
  api_token = %q
}
%s`, srv.URL, srv.Token, body)
}

// startEmulator gives each test its own service.
func startEmulator(t *testing.T) *emulatortest.Server {
	t.Helper()
	return emulatortest.Start(t, emulator.Options{})
}

func startRateLimited(t *testing.T, perSecond float64, esims int) *emulatortest.Server {
	t.Helper()
	ds := emulator.DefaultDataset(3, esims)
	return emulatortest.Start(t, emulator.Options{Dataset: &ds, RateLimit: perSecond})
}

// subscriptionsConfig is n subscriptions on an inline plan, which any free
// eSIM can serve, with extra lines in the provider block.
func subscriptionsConfig(srv *emulatortest.Server, n int, providerLines string) string {
	return fmt.Sprintf(`
provider "mobileplan" {
  base_url  = %q
  api_token = %q
  %s
}
`, srv.URL, srv.Token, providerLines) + inlineFleet(n, "")
}

// inlineFleet is mobileplan_subscription.fleet: n subscriptions on an
// inline plan, which any free eSIM can serve, with extra lines in the
// resource block.
func inlineFleet(n int, resourceLines string) string {
	return fmt.Sprintf(`
resource "mobileplan_subscription" "fleet" {
  count = %d
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 1024
    period_days = 30
  }
%s}
`, n, resourceLines)
}

// readRaw is a ReadResource of state as Terraform sends it, returning the
// new state as the provider encodes it.
func readRaw(t *testing.T, h *prototest.ProtoHarness, state *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	t.Helper()
	resp, err := h.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: state})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("read: %v %s", err, prototest.DiagText(resp.Diagnostics))
	}
	return resp.NewState
}

// createdSubscriptionIDs are the ids of srv's subscriptions, newest first.
func createdSubscriptionIDs(t *testing.T, srv *emulatortest.Server) []string {
	t.Helper()
	var ids []string
	for s, err := range prototest.ServiceClient(t, srv).Subscriptions(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

// ids are the identities of results that carry no error.
func ids(t *testing.T, results []listed) []string {
	t.Helper()
	var out []string
	for _, r := range results {
		if hasErrors(r.diags) {
			t.Fatalf("result with errors: %s", prototest.DiagText(r.diags))
		}
		out = append(out, str(r.identity["id"]))
	}
	return out
}

func newListServer(t *testing.T, srv *emulatortest.Server) *listServer {
	t.Helper()
	server, ok := testServer().(listProviderServer)
	if !ok {
		t.Fatal("the provider server does not serve list resources")
	}
	schema, diags := prototest.ConfigureServer(t, server, prototest.EmulatorSettings(srv))
	if hasErrors(diags) {
		t.Fatalf("configure: %s", prototest.DiagText(diags))
	}
	return &listServer{t: t, server: server, schema: schema}
}

// providersAt are the provider factories of the in-process provider whose
// clock is srv's: moving srv's clock forward moves the provider's renewal
// window with it (withClock).
func providersAt(t *testing.T, srv *emulatortest.Server) map[string]func() (tfprotov6.ProviderServer, error) {
	return providersFor(t, withClock(func() time.Time { return time.Unix(srv.Now(), 0) }))
}

func at(name string, more ...string) tfjsonpath.Path {
	p := tfjsonpath.New(name)
	for _, m := range more {
		p = p.AtMapKey(m)
	}
	return p
}

// resetService makes srv forget every subscription, through its control
// endpoint, as a user of the emulator would.
func resetService(t *testing.T, srv *emulatortest.Server) {
	t.Helper()
	resp, err := http.Post(srv.URL+"/_emulator/reset", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reset: %s", resp.Status)
	}
}
