package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
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
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
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
		sub := acctest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: planID})
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
	sub, err := acctest.ServiceClient(t, srv).GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
