package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// What a user sees, through the terraform CLI: the errors and warnings of
// each setting, the environment variable, `terraform validate`, and a
// plan_id known only after apply.

// A rollout of 6 europe subscriptions with 4 europe eSIMs free, plus one on
// an archived plan.
const shortRollout = `
resource "mobileplan_subscription" "rollout" {
  for_each = toset(["lisbon", "madrid", "paris", "rome", "berlin", "vienna"])
  plan_id  = "plan_europe"
}

resource "mobileplan_subscription" "legacy" {
  plan_id = "plan_009"
}
`

func TestCLI_preflightShortInventoryOutput(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 4}, stock{"", 10})
	reqs := newRequests(t, srv)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(srv, "")+shortRollout)

	out, code := tf.Run(nil, "plan", "-input=false")
	flat := unwrap(out)
	if code != 1 {
		t.Fatalf("plan exited %d, want 1:\n%s", code, out)
	}
	if n := strings.Count(out, `Error: Not enough free eSIMs with label "europe"`); n != 2 {
		t.Errorf("%d label errors, want one for each of the 2 creates that do not fit:\n%s", n, out)
	}
	if n := strings.Count(out, `Error: Plan "plan_009" cannot be subscribed to`); n != 1 {
		t.Errorf("%d invalid-plan errors, want 1:\n%s", n, out)
	}
	for _, want := range []string{
		`This subscription is the 5th create in this Terraform plan whose mobile plan has the label "europe", and the account has 4 free eSIMs with that label`,
		`This subscription is the 6th create in this Terraform plan whose mobile plan has the label "europe"`,
		`with mobileplan_subscription.legacy`, `is archived`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("terraform plan with a short inventory:\n%s", out)
	reqs.expect("terraform plan", map[string]int{routePlan: 2, routeEsims: 1})

	// warn: the same findings as warnings; the plan goes on.
	reqs.mark()
	out, code = tf.Run([]string{"MOBILEPLAN_PREFLIGHT=warn"}, "plan", "-input=false")
	if code != 0 || !strings.Contains(out, `Warning: Not enough free eSIMs with label "europe"`) ||
		!strings.Contains(out, `Warning: Plan "plan_009" cannot be subscribed to`) || !strings.Contains(out, "Plan: 7 to add") ||
		!strings.Contains(unwrap(out), `preflight = "warn" lets the plan go on`) {
		t.Errorf("with MOBILEPLAN_PREFLIGHT=warn, plan exited %d:\n%s", code, out)
	}
	reqs.expect("terraform plan, warn", map[string]int{routePlan: 2, routeEsims: 1})

	// off: no reads, no findings.
	reqs.mark()
	out, code = tf.Run([]string{"MOBILEPLAN_PREFLIGHT=off"}, "plan", "-input=false")
	if code != 0 || strings.Contains(out, "Not enough free eSIMs") || strings.Contains(out, "cannot be subscribed to") || !strings.Contains(out, "Plan: 7 to add") {
		t.Errorf("with MOBILEPLAN_PREFLIGHT=off, plan exited %d:\n%s", code, out)
	}
	reqs.expect("terraform plan, off", map[string]int{})

	// The provider block wins over the environment.
	tf.Write("main.tf", acctest.ProviderBlock(srv, `  preflight = "error"`+"\n")+shortRollout)
	if out, code = tf.Run([]string{"MOBILEPLAN_PREFLIGHT=off"}, "plan", "-input=false"); code != 1 || !strings.Contains(out, "Error: Not enough free eSIMs") {
		t.Errorf("preflight = \"error\" in the block with MOBILEPLAN_PREFLIGHT=off: exit %d:\n%s", code, out)
	}
	tf.Write("main.tf", acctest.ProviderBlock(srv, "")+shortRollout)
	if out, code = tf.Run([]string{"MOBILEPLAN_PREFLIGHT=loud"}, "plan", "-input=false"); code != 1 ||
		!strings.Contains(out, "Error: Invalid MOBILEPLAN_PREFLIGHT") ||
		!strings.Contains(unwrap(out), `The MOBILEPLAN_PREFLIGHT environment variable is "loud"; it must be "error", "warn" or "off"`) {
		t.Errorf("MOBILEPLAN_PREFLIGHT=loud: exit %d:\n%s", code, out)
	}
	if n := srv.Stats().Subscriptions; n != 0 {
		t.Errorf("plans created %d subscriptions", n)
	}
}

// The service gives a plan without a label any free eSIM, so when the
// inventory suffices only if it picks the right ones, the plan warns.
func TestCLI_preflightWarnsWhenUnlabelledMayTakeLabelled(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 2}, stock{"asia", 1})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(srv, "")+`
resource "mobileplan_subscription" "eu" {
  plan_id = "plan_europe"
}

resource "mobileplan_subscription" "anywhere" {
  count   = 2
  plan_id = "plan_any"
}
`)
	out := tf.Must("plan", "-input=false")
	for _, want := range []string{"Warning: Subscriptions without a label may take eSIMs that labelled ones need", `possibly one labelled "europe"`, "Plan: 3 to add"} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Error:") {
		t.Errorf("a plan that can succeed failed:\n%s", out)
	}
}

// `terraform validate` sends nothing, and a plan_id known only after apply
// is skipped with a warning when the check is "error", silently otherwise.
func TestCLI_preflightValidateAndUnknownPlan(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 1})
	tf := newTerraformCLI(t)
	body := `
resource "terraform_data" "chosen_plan" {
  input = "plan_europe"
}

resource "mobileplan_subscription" "later" {
  plan_id = terraform_data.chosen_plan.output
}

resource "mobileplan_subscription" "short" {
  count   = 2
  plan_id = "plan_europe"
}
`
	tf.Write("main.tf", acctest.ProviderBlock(srv, "")+body)
	tf.Must("validate")
	if got := srv.RequestCounts(); len(got) != 0 {
		t.Errorf("terraform validate sent requests: %v", got)
	}

	reqs := newRequests(t, srv)
	out, code := tf.Run(nil, "plan", "-input=false")
	flat := unwrap(out)
	if code != 1 || !strings.Contains(flat, "Warning: Preflight skipped: plan known only after apply with mobileplan_subscription.later") ||
		!strings.Contains(flat, "nor count this subscription against the free eSIM inventory") {
		t.Errorf("plan with an unknown plan_id (exit %d) lacks the skip warning:\n%s", code, out)
	}
	// Only the two known creates are counted: the second does not fit.
	if n := strings.Count(out, `Error: Not enough free eSIMs with label "europe"`); n != 1 {
		t.Errorf("%d label errors, want 1:\n%s", n, out)
	}
	reqs.expect("plan with an unknown plan_id", map[string]int{routePlan: 1, routeEsims: 1})

	tf.Write("main.tf", acctest.ProviderBlock(srv, `  preflight = "warn"`+"\n")+body)
	out, code = tf.Run(nil, "plan", "-input=false")
	if code != 0 || strings.Contains(out, "Preflight skipped") || !strings.Contains(out, "Warning: Not enough free eSIMs") {
		t.Errorf("with preflight = \"warn\" (exit %d), the unknown plan_id should be skipped silently:\n%s", code, out)
	}
}

// `terraform apply` plans, then applies in a provider process of its own,
// whose plan of each create comes right before it is made: the plan has
// counted every create against the inventory with nothing created, so the
// apply reads the eSIM list no more; a mobileplan_esims data source of
// the plan reads the pages the preflight reads. Creates of 5 whose free
// eSIMs lie behind 500 of another label: one scan of 21 pages, by
// `terraform plan -out` with `terraform apply` of the saved plan, and by
// `terraform apply`.
// Each step subscribes to another plan: a create of the plan of an earlier
// apply's may take what that apply left (recovery), and is not counted.
func TestCLI_anApplyScansTheInventoryOnce(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"americas", 500}, stock{"europe", 5}, stock{"asia", 5}, stock{"global", 5})
	reqs := newRequests(t, srv)
	tf := newTerraformCLI(t)
	step := func(plans ...string) {
		var body string
		for _, p := range plans {
			body += fmt.Sprintf("resource \"mobileplan_subscription\" %q {\n  count   = 5\n  plan_id = %q\n}\n", p, p)
		}
		// The configuration lists the inventory too: the data source and
		// the preflight share the list's pages.
		tf.Write("main.tf", acctest.ProviderBlock(srv, "")+body+`
data "mobileplan_esims" "inventory" {}

output "esims" {
  value = length(data.mobileplan_esims.inventory.esims)
}
`)
	}
	step("plan_europe")
	tf.Must("plan", "-input=false", "-out=tfplan")
	tf.Must("apply", "-input=false", "tfplan")
	reqs.expect("terraform plan -out and the apply of the saved plan, 5 creates", map[string]int{routePlan: 2, routeEsims: ceilDiv(500+5, client.MaxPageSize), routePost: 5})

	reqs.mark()
	step("plan_europe", "plan_asia")
	tf.Must("apply", "-auto-approve", "-input=false")
	reqs.expect("terraform apply of 5 more creates", map[string]int{routePlan: 2, routeEsims: ceilDiv(500+10, client.MaxPageSize), routePost: 5})

	// With the journal off, the apply's process cannot know it is one: its
	// own plans read the list again, as the guide says.
	reqs.mark()
	step("plan_europe", "plan_asia", "plan_global")
	if out, code := tf.Run([]string{"MOBILEPLAN_JOURNAL=off"}, "apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply with the journal off exited %d:\n%s", code, out)
	}
	reqs.expect("terraform apply of 5 more creates with the journal off", map[string]int{routePlan: 2, routeEsims: 2 * ceilDiv(500+15, client.MaxPageSize), routePost: 5})
}
