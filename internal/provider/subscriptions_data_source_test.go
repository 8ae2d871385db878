package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestAccSubscriptionsDataSource(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	active := f.subIDs[4]
	if err := f.srv.Activate(active); err != nil {
		t.Fatal(err)
	}
	var fromPlan10 []string
	for _, id := range f.subIDs {
		if sub := createdSubscription(t, f.srv, id); sub.PlanID == "plan_010" {
			fromPlan10 = append(fromPlan10, id)
		}
	}
	config := `
data "mobileplan_subscriptions" "all" {}
data "mobileplan_subscriptions" "active" { state = "active" }
data "mobileplan_subscriptions" "ready" { state = "ready" }
data "mobileplan_subscriptions" "plan10" { plan_id = "plan_010" }
data "mobileplan_subscriptions" "newest" { max_items = 3 }
`
	testAccDataSource(t, f.srv, config,
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("ids"), stringList(f.subIDs)),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(4).AtMapKey("state"), knownvalue.StringExact("active")),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(4).AtMapKey("activated_at"), knownvalue.NotNull()),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.all", at("subscriptions").AtSliceIndex(0).AtMapKey("remaining_allowance").AtMapKey("voice_seconds"), knownvalue.Null()),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.active", at("ids"), stringList([]string{active})),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.ready", at("ids"), knownvalue.ListSizeExact(manySubscriptions-1)),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.plan10", at("ids"), stringList(fromPlan10)),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.newest", at("ids"), stringList(f.subIDs[:3])),
	)
}

// TestCLI_bulkImportExample runs examples/bulk-import against an account
// holding more subscriptions than one page, one of them expired and one
// named as managed elsewhere: it adopts all the others, and only them.
func TestCLI_bulkImportExample(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	expired, elsewhere := f.subIDs[3], f.subIDs[7]
	if err := f.srv.Activate(expired); err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.AdvanceClock(400 * 24 * 3600); err != nil {
		t.Fatal(err)
	}
	tf := newTerraformCLI(t, EnvBaseURL+"="+f.srv.URL, EnvAPIToken+"="+f.srv.Token)
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "bulk-import", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	tf.Write("main.tf", string(example))
	tf.Write("terraform.tfvars", fmt.Sprintf("managed_elsewhere = [%q]\n", elsewhere))
	adopted := manySubscriptions - 2
	out := tf.Must("plan", "-input=false")
	want := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", adopted)
	if !strings.Contains(out, want) {
		t.Fatalf("bulk import plan lacks %q:\n%s", want, out)
	}
	out = tf.Must("apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, fmt.Sprintf("%d imported, 0 added, 0 changed, 0 destroyed", adopted)) {
		t.Fatalf("bulk import apply:\n%s", out)
	}
	tf.ExpectNoChanges()
	if n := f.srv.RequestCounts()["POST /v1/subscriptions"]; n != manySubscriptions {
		t.Errorf("%d creates at the service, want only the fixture's %d", n, manySubscriptions)
	}
	state := tf.Must("state", "list")
	if got := strings.Count(state, "mobileplan_subscription.adopted["); got != adopted {
		t.Errorf("state holds %d adopted subscriptions, want %d:\n%s", got, adopted, state)
	}
	for _, id := range []string{expired, elsewhere} {
		if strings.Contains(state, id) {
			t.Errorf("%s was adopted:\n%s", id, state)
		}
	}
}
