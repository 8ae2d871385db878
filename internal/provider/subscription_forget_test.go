package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// lifecycle { destroy = false } makes the CLI forget a resource instead of
// destroying it: OpenTofu 1.12 and Terraform 1.16 have it. The service
// cannot delete a subscription, so that is what a destroy does here anyway;
// with the setting the plan says so, and the provider is not asked, on a
// destroy. Terraform plans a deleted resource block as the provider's
// delete (1.16.0-rc2 and 1.16.4), and a renewal too before 1.16.3
// (renewalActions).

// requireDestroyFalse skips t under a CLI that does not know
// lifecycle { destroy = false } (such as Terraform 1.11, which refuses the
// configuration).
func requireDestroyFalse(t *testing.T) {
	t.Helper()
	acctest.SkipUnlessAcceptance(t)
	name, v := acctest.CLINameVersion(t)
	minimum := map[string]*version.Version{
		"OpenTofu":  version.Must(version.NewVersion("1.12.0")),
		"Terraform": version.Must(version.NewVersion("1.16.0")),
	}[name]
	if minimum == nil || v.Core().LessThan(minimum) {
		t.Skipf("%s %s has no lifecycle { destroy = false } (OpenTofu 1.12 and Terraform 1.16 have it)", name, v)
	}
}

// forgetError is what a destroy that forgets ends with: OpenTofu's error
// for instances left behind, nothing under Terraform.
func forgetError(t *testing.T) *regexp.Regexp {
	if name, _ := acctest.CLINameVersion(t); name == "OpenTofu" {
		return errorPattern("Destroy was successful but left behind forgotten instances")
	}
	return nil
}

// renewalActions is how a renewal under destroy = false is planned, as
// measured: OpenTofu forgets the old subscription, and so does Terraform
// from 1.16.3 (its changelog: "Fix handling of destroy=false around
// create_before_destroy instances", hashicorp/terraform#39169; measured on
// 1.16.4); Terraform before it plans a delete and a create, the delete the
// provider's, which leaves the subscription at the service (measured on
// 1.16.0-rc2).
func renewalActions(t *testing.T) tfjson.Actions {
	if forgetsOnReplace(t) {
		return tfjson.Actions{tfjson.ActionForget, tfjson.ActionCreate}
	}
	return tfjson.Actions{tfjson.ActionDelete, tfjson.ActionCreate}
}

// forgetsOnReplace tells whether the CLI forgets, rather than deletes, the
// old instance of a replacement under destroy = false.
func forgetsOnReplace(t *testing.T) bool {
	name, v := acctest.CLINameVersion(t)
	return name == "OpenTofu" || !v.Core().LessThan(terraformForgetsOnReplace)
}

// terraformForgetsOnReplace is the first Terraform whose changelog names
// the destroy = false fix for replacements (hashicorp/terraform#39169).
var terraformForgetsOnReplace = version.Must(version.NewVersion("1.16.3"))

// orphanActions is how a resource block deleted after a destroy = false
// apply is planned: OpenTofu keeps the setting in state and forgets;
// Terraform 1.16 plans the provider's delete (tested with 1.16.0-rc2).
func orphanActions(t *testing.T) tfjson.Actions {
	if name, _ := acctest.CLINameVersion(t); name == "OpenTofu" {
		return tfjson.Actions{tfjson.ActionForget}
	}
	return tfjson.Actions{tfjson.ActionDelete}
}

// deleteCounter is the provider server of providersAt that counts the
// ApplyResourceChange calls that destroy (a null planned state): the calls
// that reach the resource's Delete.
type deleteCounter struct {
	tfprotov6.ProviderServer
	deletes *atomic.Int32
}

func (c deleteCounter) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.PlannedState == nil || bytes.Equal(req.PlannedState.MsgPack, []byte{0xc0}) /* msgpack nil */ {
		c.deletes.Add(1)
	}
	return c.ProviderServer.ApplyResourceChange(ctx, req)
}

// countingProvidersAt are providersAt(t, srv) that count into deletes.
func countingProvidersAt(t *testing.T, srv *emulatortest.Server, deletes *atomic.Int32) map[string]func() (tfprotov6.ProviderServer, error) {
	t.Helper()
	server := testComposition(withClock(func() time.Time { return time.Unix(srv.Now(), 0) }))
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mobileplan": func() (tfprotov6.ProviderServer, error) {
			return deleteCounter{ProviderServer: server(), deletes: deletes}, nil
		},
	}
}

// writesTo are the requests srv has seen that are not reads.
func writesTo(srv *emulatortest.Server) map[string]int {
	out := map[string]int{}
	for route, n := range srv.RequestCounts() {
		if !strings.HasPrefix(route, "GET ") {
			out[route] = n
		}
	}
	return out
}

// A check that the resource is gone from state.
func notInState(addr string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		if _, ok := s.RootModule().Resources[addr]; ok {
			return fmt.Errorf("%s is still in state", addr)
		}
		return nil
	}
}

// Under lifecycle { destroy = false }, `destroy` forgets the subscription:
// the provider's Delete is never called, nothing but reads reaches the
// service, the subscription is out of state and still at the service.
func TestAccSubscription_destroyFalseForgets(t *testing.T) {
	t.Parallel()
	requireDestroyFalse(t)
	srv := startEmulator(t)
	var deletes atomic.Int32
	config := withProvider(srv, `
resource "mobileplan_subscription" "kept" {
  plan_id = "plan_001"
  lifecycle {
    destroy = false
  }
}
`)
	var writes map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: countingProvidersAt(t, srv, &deletes),
		Steps: []resource.TestStep{
			{Config: config},
			{
				// OpenTofu forgets, and then exits 1 to say that something
				// was left behind (unless -suppress-forget-errors);
				// Terraform 1.16 forgets and exits 0.
				PreConfig:   func() { writes = writesTo(srv) },
				Config:      config,
				Destroy:     true,
				ExpectError: forgetError(t),
			},
			{
				// It is out of state already: with a removed block,
				// nothing is left to forget.
				Config: withProvider(srv, `
removed {
  from = mobileplan_subscription.kept
  lifecycle {
    destroy = false
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
	if n := deletes.Load(); n != 0 {
		t.Errorf("the provider was asked to delete %d times", n)
	}
	if after := writesTo(srv); fmt.Sprint(after) != fmt.Sprint(writes) {
		t.Errorf("the destroy sent %v to the service, after %v", after, writes)
	}
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("the service holds %d subscriptions, want the forgotten one still there", n)
	}
}

// A renewal under lifecycle { destroy = false } creates the new
// subscription and forgets the old one, without asking the provider to
// delete it; the plan after the apply is empty. Deleting the resource block
// afterwards forgets the subscription too: the setting is kept in state,
// where prevent_destroy is not.
func TestAccSubscription_renewalUnderDestroyFalse(t *testing.T) {
	t.Parallel()
	requireDestroyFalse(t)
	srv := startEmulator(t)
	var deletes atomic.Int32
	addr := "mobileplan_subscription.phone"
	config := withProvider(srv, `
resource "mobileplan_subscription" "phone" {
  plan_id             = "plan_001"
  early_renewal_hours = 0
  lifecycle {
    destroy = false
  }
}
`)
	newID := statecheck.CompareValue(compare.ValuesDiffer())
	var deletesBefore int32
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: countingProvidersAt(t, srv, &deletes),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(addr, tfjsonpath.New("id"))}},
			{
				PreConfig: func() {
					id := createdSubscriptionIDs(t, srv)[0]
					if err := srv.Activate(id); err != nil {
						t.Fatal(err)
					}
					if _, err := srv.AdvanceClock(8 * 24 * 3600); err != nil { // plan_001 lasts 7 days
						t.Fatal(err)
					}
					deletesBefore = deletes.Load()
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectActions{addr, renewalActions(t)},
				}},
				ConfigStateChecks: []statecheck.StateCheck{newID.AddStateValue(addr, tfjsonpath.New("id"))},
			},
			{
				// Deleting the resource block: OpenTofu still forgets;
				// Terraform deletes, which here only leaves state.
				Config: withProvider(srv, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectActions{addr, orphanActions(t)},
				}},
			},
		},
	})
	var wantDeletes int32 // the provider's deletes, which only leave state
	for _, actions := range []tfjson.Actions{renewalActions(t), orphanActions(t)} {
		if actions[0] == tfjson.ActionDelete {
			wantDeletes++
		}
	}
	if n := deletes.Load() - deletesBefore; n != wantDeletes {
		t.Errorf("the renewal asked the provider to delete %d times, want %d", n, wantDeletes)
	}
	if n := srv.Stats().Subscriptions; n != 2 {
		t.Errorf("the service holds %d subscriptions, want the renewed one and its replacement", n)
	}
}

// A removed block with lifecycle { destroy = false } stops managing a
// subscription on purpose, on every CLI the provider is tested with
// (Terraform 1.11 and OpenTofu 1.12): the subscription leaves state
// without a call to Delete and stays at the service.
func TestAccSubscription_removedBlockForgets(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	var deletes atomic.Int32
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: countingProvidersAt(t, srv, &deletes),
		Steps: []resource.TestStep{
			{Config: withProvider(srv, `
resource "mobileplan_subscription" "old" {
  plan_id = "plan_001"
}
`)},
			{
				Config: withProvider(srv, `
removed {
  from = mobileplan_subscription.old
  lifecycle {
    destroy = false
  }
}
`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectActions{"mobileplan_subscription.old", tfjson.Actions{tfjson.ActionForget}},
				}},
				Check: notInState("mobileplan_subscription.old"),
			},
		},
	})
	if n := deletes.Load(); n != 0 {
		t.Errorf("the provider was asked to delete %d times", n)
	}
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("the service holds %d subscriptions, want the forgotten one still there", n)
	}
}

// expectActions is a plan check that addr's change has exactly the actions
// want, in order: plancheck has no action for "forget".
type expectActions struct {
	addr string
	want tfjson.Actions
}

func (e expectActions) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == e.addr {
			if fmt.Sprint(rc.Change.Actions) != fmt.Sprint(e.want) {
				resp.Error = fmt.Errorf("%s: actions %v, want %v", e.addr, rc.Change.Actions, e.want)
			}
			return
		}
	}
	resp.Error = fmt.Errorf("%s: no change in the plan, want %v", e.addr, e.want)
}

// Saved plans under lifecycle { destroy = false }, as CI pipelines run
// them (plan -out in one job, apply of that file in the next): a renewal
// and a destroy, each planned to a file, shown, then applied from it.
// What each CLI plans is what renewalActions says; the destroy forgets on
// both, OpenTofu then exiting 1 for what it left behind. The service keeps
// every subscription. OpenTofu saves a plan with a forget only from
// 1.12.4 (opentofu/opentofu#4324).
func TestCLI_savedPlansUnderDestroyFalse(t *testing.T) {
	t.Parallel()
	requireDestroyFalse(t)
	if name, v := acctest.CLINameVersion(t); name == "OpenTofu" && v.Core().LessThan(version.Must(version.NewVersion("1.12.4"))) {
		t.Skipf("OpenTofu %s cannot save a plan that forgets (1.12.4 can: opentofu/opentofu#4324)", v)
	}
	srv := emulatortest.Start(t, emulator.Options{})
	tf := newTerraformCLI(t)
	const addr = "mobileplan_subscription.phone"
	tf.Write("main.tf", acctest.ProviderBlock(srv, "")+`
resource "mobileplan_subscription" "phone" {
  plan_id             = "plan_001"
  early_renewal_hours = 0
  lifecycle {
    destroy = false
  }
}
`)
	tf.Must("apply", "-auto-approve", "-input=false")
	first := stateID(t, tf, addr)
	if err := srv.Activate(first); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AdvanceClock(8 * 24 * 3600); err != nil { // plan_001 lasts 7 days
		t.Fatal(err)
	}

	tf.PlanExpect(2, "-out=renew.tfplan")
	if got := savedActions(t, tf, "renew.tfplan", addr); fmt.Sprint(got) != fmt.Sprint(renewalActions(t)) {
		t.Errorf("the saved renewal plan has %v, want %v", got, renewalActions(t))
	}
	tf.Must("apply", "-input=false", "renew.tfplan")
	renewed := stateID(t, tf, addr)
	if renewed == first || renewed == "" {
		t.Errorf("after the saved renewal plan, state holds %q (before: %q)", renewed, first)
	}
	tf.ExpectNoChanges()

	tf.PlanExpect(2, "-destroy", "-out=destroy.tfplan")
	if got := savedActions(t, tf, "destroy.tfplan", addr); fmt.Sprint(got) != fmt.Sprint(tfjson.Actions{tfjson.ActionForget}) {
		t.Errorf("the saved destroy plan has %v, want forget", got)
	}
	out, code := tf.Run(nil, "apply", "-input=false", "destroy.tfplan")
	if want := forgetError(t); want == nil && code != 0 || want != nil && (code != 1 || !want.MatchString(out)) {
		t.Errorf("applying the saved destroy plan exited %d, want %v:\n%s", code, want, out)
	}
	if id := stateID(t, tf, addr); id != "" {
		t.Errorf("after the saved destroy plan, state still holds %s", id)
	}
	if n := srv.Stats().Subscriptions; n != 2 {
		t.Errorf("the service holds %d subscriptions, want the renewed one and its replacement, both kept", n)
	}
}

// stateID is addr's id in the state file, "" when it is not there.
func stateID(t *testing.T, tf *acctest.CLI, addr string) string {
	t.Helper()
	id, _ := acctest.StateFileInstances(t, tf.Read("terraform.tfstate"), prototest.SubscriptionType)[addr].Attributes["id"].(string)
	return id
}

// savedActions are addr's actions in the saved plan file.
func savedActions(t *testing.T, tf *acctest.CLI, file, addr string) tfjson.Actions {
	t.Helper()
	var plan tfjson.Plan
	if err := json.Unmarshal([]byte(tf.Must("show", "-json", file)), &plan); err != nil {
		t.Fatal(err)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Address == addr {
			return rc.Change.Actions
		}
	}
	return nil
}
