package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func TestAccSubscription_query(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Query)
	srv := startEmulator(t)
	older := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_002"})
	newer := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"})
	if err := srv.Activate(older.ID); err != nil {
		t.Fatal(err)
	}
	id := func(s *client.Subscription) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"id": knownvalue.StringExact(s.ID)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			// The query step keeps this step's configuration, provider
			// block included.
			{Config: withProvider(srv, "")},
			{
				Query: true,
				Config: `
list "mobileplan_subscription" "all" {
  provider = mobileplan
}

list "mobileplan_subscription" "active" {
  provider         = mobileplan
  include_resource = true
  config {
    state = "active"
  }
}

list "mobileplan_subscription" "of_plan_001" {
  provider = mobileplan
  config {
    plan_id = "plan_001"
  }
}

list "mobileplan_subscription" "newest" {
  provider = mobileplan
  limit    = 1
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("mobileplan_subscription.all", 2),
					querycheck.ExpectIdentity("mobileplan_subscription.all", id(newer)),
					querycheck.ExpectIdentity("mobileplan_subscription.all", id(older)),
					querycheck.ExpectResourceDisplayName("mobileplan_subscription.all", queryfilter.ByResourceIdentity(id(newer)),
						knownvalue.StringExact(fmt.Sprintf("%s: ready, plan plan_001 (global 1 GB / 7 days), eSIM %s", newer.ID, newer.EsimICCID))),

					querycheck.ExpectLength("mobileplan_subscription.active", 1),
					querycheck.ExpectIdentity("mobileplan_subscription.active", id(older)),
					querycheck.ExpectResourceKnownValues("mobileplan_subscription.active", queryfilter.ByResourceIdentity(id(older)), []querycheck.KnownValueCheck{
						{Path: tfjsonpath.New("plan_id"), KnownValue: knownvalue.StringExact("plan_002")},
						{Path: tfjsonpath.New("esim_iccid"), KnownValue: knownvalue.StringExact(older.EsimICCID)},
						{Path: tfjsonpath.New("state"), KnownValue: knownvalue.StringExact("active")},
					}),

					querycheck.ExpectLength("mobileplan_subscription.of_plan_001", 1),
					querycheck.ExpectIdentity("mobileplan_subscription.of_plan_001", id(newer)),

					querycheck.ExpectLength("mobileplan_subscription.newest", 1),
					querycheck.ExpectIdentity("mobileplan_subscription.newest", id(newer)),
				},
			},
		},
	})
}

// TestCLI_queryGenerateConfigRoundTrip runs what the import guide tells
// users: terraform query -generate-config-out, plan, apply, plan again.
func TestCLI_queryGenerateConfigRoundTrip(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Query)
	tf := newTerraformCLI(t)
	f := startListFixture(t) // 30 subscriptions, two pages
	tf.Write("main.tf", cliProvider(f.srv))
	tf.Write("query.tfquery.hcl", `
list "mobileplan_subscription" "found" {
  provider = mobileplan
  limit    = 30
}
`)
	before := f.srv.RequestCounts()[listRoute]
	out := tf.Must("query", "-generate-config-out=generated.tf")
	if got := f.srv.RequestCounts()[listRoute] - before; got > 2 {
		t.Errorf("the query sent %d list requests, want at most ceil(30/25) = 2", got)
	}
	for _, id := range f.subIDs {
		if !strings.Contains(out, id) {
			t.Errorf("query output lacks %s:\n%s", id, out)
		}
	}
	generated := tf.Read("generated.tf")
	for _, want := range []string{`resource "mobileplan_subscription"`, "import {", "identity = {", `id = "` + f.subIDs[0] + `"`} {
		if !regexp.MustCompile(strings.ReplaceAll(regexp.QuoteMeta(want), " ", `\s+`)).MatchString(generated) {
			t.Errorf("generated config lacks %q:\n%s", want, generated)
		}
	}
	out = tf.Must("plan", "-input=false")
	if want := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", manySubscriptions); !strings.Contains(out, want) {
		t.Fatalf("plan of the generated configuration lacks %q:\n%s", want, out)
	}
	creates := f.srv.RequestCounts()["POST /v1/subscriptions"]
	out = tf.Must("apply", "-auto-approve", "-input=false")
	if want := fmt.Sprintf("%d imported, 0 added, 0 changed, 0 destroyed", manySubscriptions); !strings.Contains(out, want) {
		t.Fatalf("apply lacks %q:\n%s", want, out)
	}
	tf.ExpectNoChanges()
	if n := f.srv.RequestCounts()["POST /v1/subscriptions"] - creates; n != 0 {
		t.Errorf("importing sent %d create requests", n)
	}
}

// TestCLI_queryLimitSaysWhatItCut: `terraform query` over 150
// subscriptions with Terraform's default limit lists 100 and says that 50
// more match and which limit finds them, reading no page twice.
func TestCLI_queryLimitSaysWhatItCut(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Query)
	const existing = 150
	ds := emulator.DefaultDataset(manyPlans, 4*existing) // eSIMs of every label for the three plans
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	for i := range existing {
		prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: []string{"plan_010", "plan_001", "plan_002"}[i%3]})
	}
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv))
	tf.Write("query.tfquery.hcl", `
list "mobileplan_subscription" "all" {
  provider = mobileplan
}
`)
	before := srv.RequestCounts()[listRoute]
	out := tf.Must("query")
	if got, pages := srv.RequestCounts()[listRoute]-before, ceilDiv(existing, client.MaxPageSize); got > pages {
		t.Errorf("the query sent %d list requests, want at most the list's %d pages", got, pages)
	}
	if got := strings.Count(out, "sub_"); got < 100 {
		t.Errorf("the query shows %d subscription ids, want Terraform's default limit of 100:\n%s", got, tail(out, 2000))
	}
	for _, want := range []string{"Only 100 subscriptions listed: 50 more match", "limit = 150"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the query's output lacks %q:\n%s", want, tail(out, 2000))
		}
	}
}
