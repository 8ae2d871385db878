package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The paged refresh as Terraform drives it: one provider process per
// command, up to ten Reads at once, and the requests each refresh sends,
// counted by the emulator.

// refreshFleet applies n subscriptions made by Terraform (count), then creates
// newer ones outside it, as other clients of the account do.
func refreshFleet(t *testing.T, n, newer int, settings string) (*emulatortest.Server, *acctest.CLI) {
	t.Helper()
	acctest.SkipUnlessAcceptance(t)
	ds := emulator.DefaultDataset(emulator.DefaultPlans, n+newer+10) // spare eSIMs for re-creates
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(srv, settings)+fmt.Sprintf(`
resource "mobileplan_subscription" "fleet" {
  count   = %d
  plan_id = "plan_004"
}
`, n))
	tf.Must("apply", "-auto-approve", "-input=false")
	for range newer {
		prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	}
	return srv, tf
}

// during runs a command and counts the requests it sent.
func during(srv interface{ RequestCounts() map[string]int }, run func()) refreshRequests {
	before := srv.RequestCounts()
	run()
	after := srv.RequestCounts()
	return refreshRequests{lists: after[listRoute] - before[listRoute], gets: after[getRoute] - before[getRoute]}
}

// refreshRequests are the requests of one command: pages of the list, and
// GETs of one subscription.
type refreshRequests struct{ lists, gets int }

func (r refreshRequests) String() string {
	return fmt.Sprintf("%d list pages and %d GETs", r.lists, r.gets)
}

// 60 subscriptions under 30 newer ones: every page once, ceil(90/25) = 4,
// and at most the allowance besides.
func TestCLI_pagedRefreshReadsTheFleetByPages(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 60, 30, "")
	got := during(srv, func() { tf.PlanExpect(0) })
	if got.lists != 4 || got.lists+got.gets > 4+pagedRefreshAllowance {
		t.Errorf("a refreshing plan of 60 subscriptions sent %s; want the 4 pages of the list and at most %d requests in all", got, 4+pagedRefreshAllowance)
	}
	t.Logf("refresh of 60 under 30 newer: %s", got)
}

// A subscription that the service no longer has is not on any page; its
// own GET finds it gone, and it is planned anew with the warning.
func TestCLI_pagedRefreshGoneSubscription(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 30, 0, "")
	const gone = "sub_00000000deadbeef"
	raw := tf.Read("terraform.tfstate")
	fleet := acctest.StateFileInstances(t, raw, prototest.SubscriptionType)
	id, _ := fleet[prototest.SubscriptionType+".fleet[7]"].Attributes["id"].(string)
	if len(fleet) != 30 || id == "" {
		t.Fatalf("state: %d subscriptions, fleet[7] id %q; want 30 and an id", len(fleet), id)
	}
	tf.Write("terraform.tfstate", strings.ReplaceAll(raw, id, gone))
	var out string
	got := during(srv, func() { out = tf.PlanExpect(2) })
	for _, want := range []string{"Warning: Subscription no longer exists", "The service has no subscription " + gone, "Plan: 1 to add, 0 to change, 0 to destroy."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if got.lists != 2 || got.gets < 1 || got.lists+got.gets > 2+pagedRefreshAllowance {
		t.Errorf("the refresh sent %s; want the 2 pages of the list, and a GET for the gone subscription", got)
	}
}

// A change made at the service shows in a refresh-only plan, read from the
// pages.
func TestCLI_pagedRefreshSeesChangesAtTheService(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 30, 0, "")
	subs, err := client.Collect(prototest.ServiceClient(t, srv).Subscriptions(t.Context()), nil, 0)
	if err != nil || len(subs) != 30 {
		t.Fatalf("listing: %d subscriptions, %v", len(subs), err)
	}
	oldest := subs[len(subs)-1].ID // on the second page
	if err := srv.Activate(oldest); err != nil {
		t.Fatal(err)
	}
	got := during(srv, func() { tf.PlanExpect(2, "-refresh-only", "-out=refresh.tfplan") })
	var plan struct {
		Drift []struct {
			Change struct {
				Before, After map[string]any
			} `json:"change"`
		} `json:"resource_drift"`
	}
	if err := json.Unmarshal([]byte(tf.Must("show", "-json", "refresh.tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Drift) != 1 {
		t.Fatalf("the refresh-only plan shows %d changed subscriptions, want 1", len(plan.Drift))
	}
	d := plan.Drift[0].Change
	if d.Before["id"] != oldest || d.Before["state"] != "ready" || d.After["state"] != "active" || d.After["activated_at"] == nil {
		t.Errorf("drift %v -> %v; want %s from ready to active, with activated_at", d.Before, d.After, oldest)
	}
	if got.lists != 2 || got.lists+got.gets > 2+pagedRefreshAllowance {
		t.Errorf("the refresh sent %s; want the 2 pages of the list", got)
	}
}

// Ten subscriptions under a thousand newer ones: the scan gives up after at
// most its allowance of pages, far from the 41 of the whole list, and each
// subscription is read by its GET.
func TestCLI_pagedRefreshSmallStateInLargeAccount(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 10, 1000, "")
	got := during(srv, func() { tf.PlanExpect(0) })
	if got.lists < 1 || got.lists > pagedRefreshAllowance || got.gets != 10 {
		t.Errorf("the refresh sent %s; want 1 to %d pages and a GET each", got, pagedRefreshAllowance)
	}
}

// A page that fails, retries exhausted, ends the scan without an error:
// what it would have brought is read by GET.
func TestCLI_pagedRefreshFailedPageFallsBack(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 60, 0, "  max_retries = 0\n")
	srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", Path: "/v1/subscriptions", Action: "status", Status: 503, After: 1, Times: 1}}})
	var out string
	got := during(srv, func() { out = tf.PlanExpect(0) })
	if strings.Contains(out, "Error") {
		t.Errorf("the plan reports an error:\n%s", out)
	}
	if got.lists != 2 || got.gets < 60-25 || got.gets > 60 {
		t.Errorf("the refresh sent %s; want 2 pages (the second failing) and a GET for each subscription the first did not bring", got)
	}
}

// Turned off, each subscription is read by its own GET, as before.
func TestCLI_pagedRefreshOff(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 30, 0, "  paged_refresh = false\n")
	got := during(srv, func() { tf.PlanExpect(0) })
	if got.lists != 0 || got.gets != 30 {
		t.Errorf("the refresh sent %s; want one GET each (30) and no list", got)
	}
}

// 100 subscriptions: the apply's process leaves which subscriptions it
// created in the journal of creates, and each refreshing plan after it
// reads the 4 pages of the list and nothing else, in every run, whatever
// order Terraform sends its Reads in; so does the plan after an apply that
// forgets ten. At 4 pages the scan's allowance alone covers the list: what
// the remembered size of the state adds, the same pages in every order of
// Reads over 2,000 subscriptions, is
// TestPagedReader_largeRefreshSameRequestsInEveryOrder's, in-process.
func TestCLI_pagedRefreshOfALargeStateSameRequestsEveryRun(t *testing.T) {
	t.Parallel()
	srv, tf := refreshFleet(t, 100, 0, "")
	if journal := tf.Read(".terraform/mobileplan/default.journal"); strings.Count(journal, `"holds":"`) != 1 {
		t.Errorf("after the apply, the journal of creates holds %d records of the state's subscriptions, want 1:\n%s", strings.Count(journal, `"holds":"`), journal)
	}
	for run := range 3 {
		got := during(srv, func() { tf.PlanExpect(0) })
		if got.lists != 4 || got.gets != 0 {
			t.Errorf("refreshing plan %d sent %s; want the 4 pages of the list and no GET", run+1, got)
		}
	}
	tf.Write("main.tf", strings.Replace(tf.Read("main.tf"), "count   = 100", "count   = 90", 1))
	tf.Must("apply", "-auto-approve", "-input=false")
	if got := during(srv, func() { tf.PlanExpect(0) }); got.lists != 4 || got.gets != 0 {
		t.Errorf("after forgetting 10, the refreshing plan sent %s; want the 4 pages and no GET", got)
	}
}

// Two configurations of the provider in one workspace, each a process of
// its own on an account of its own: 150 subscriptions on one, 5 on the
// other under 1,000 newer ones it does not manage. Each remembers only its
// own part of the state: the 150 are read by their 6 pages and nothing
// else, and the 5 do not borrow the 150's pages paid in advance (that
// would be 11 pages of the thousand, for 5 Reads), but cost at most 5
// pages and their 5 GETs, as a small state under many newer ones does.
func TestCLI_pagedRefreshTwoConfigurationsEachItsOwn(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	dsBig := emulator.DefaultDataset(emulator.DefaultPlans, 160)
	big := emulatortest.Start(t, emulator.Options{Dataset: &dsBig})
	dsSmall := emulator.DefaultDataset(emulator.DefaultPlans, 1100)
	small := emulatortest.Start(t, emulator.Options{Dataset: &dsSmall})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(big, "")+fmt.Sprintf(`
provider "mobileplan" {
  alias     = "small"
  base_url  = %q
  api_token = %q
}

resource "mobileplan_subscription" "big" {
  count   = 150
  plan_id = "plan_004"
}

resource "mobileplan_subscription" "small" {
  provider = mobileplan.small
  count    = 5
  plan_id  = "plan_004"
}
`, small.URL, small.Token))
	tf.Must("apply", "-auto-approve", "-input=false")
	for range 1000 {
		prototest.CreateAt(t, small, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	}
	for run := range 2 {
		var gotSmall refreshRequests
		gotBig := during(big, func() { gotSmall = during(small, func() { tf.PlanExpect(0) }) })
		if gotBig.lists != 6 || gotBig.gets != 0 {
			t.Errorf("plan %d: the 150 took %s; want their 6 pages and no GET", run+1, gotBig)
		}
		if gotSmall.lists > 5 || gotSmall.gets != 5 {
			t.Errorf("plan %d: the 5 under 1,000 newer took %s; want at most 5 pages and a GET each", run+1, gotSmall)
		}
	}
}
