package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func TestAccSubscriptionsDataSource_parity(t *testing.T) {
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

// TestCLI_bulkImportExample runs examples/bulk-import against an account of
// 200 subscriptions and one created after the example's cutoff, one of them
// expired and one named as managed elsewhere: it adopts all the others, and
// only them. Each command reads the list once: its pages serve the data
// source, the imports and the refresh, at most 10 requests besides (9
// pages, where a GET each would be 200); no deprecation warning is
// printed; the plan afterwards is empty. make bench-import runs the
// example at 2,000 and more.
func TestCLI_bulkImportExample(t *testing.T) {
	t.Parallel()
	bulkImport(t, "bulk-import", 200)
}

// TestCLI_bulkImportSlicedExample runs examples/bulk-import-sliced as
// TestCLI_bulkImportExample runs examples/bulk-import, with 60
// subscriptions: each adopted into the slice of its id's last two
// characters.
func TestCLI_bulkImportSlicedExample(t *testing.T) {
	t.Parallel()
	bulkImport(t, "bulk-import-sliced", 60)
}

// bulkImport runs the example in examples/name against an account of
// existing subscriptions, as TestCLI_bulkImportExample says.
func bulkImport(t *testing.T, name string, existing int) {
	ds := emulator.DefaultDataset(manyPlans, 4*existing) // eSIMs of every label for the three plans
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	var ids []string
	iccids := map[string]string{} // id => its eSIM's ICCID
	for i := range existing {
		planID := []string{"plan_010", "plan_001", "plan_002"}[i%3] // no label (any eSIM), global, europe
		sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: planID})
		ids = append(ids, sub.ID)
		iccids[sub.ID] = sub.EsimICCID
	}
	cutoff := time.Unix(srv.Now()+1, 0).UTC().Format(time.RFC3339)
	expired, elsewhere := ids[3], ids[7]
	if err := srv.Activate(expired); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AdvanceClock(400 * 24 * 3600); err != nil {
		t.Fatal(err)
	}
	later := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_010"}).ID
	tf := newTerraformCLI(t, EnvBaseURL+"="+srv.URL, EnvAPIToken+"="+srv.Token)
	sliced := name == "bulk-import-sliced"
	files := []string{"main.tf"}
	if sliced {
		files = append(files, "slice/main.tf")
	}
	for _, file := range files {
		example, err := os.ReadFile(filepath.Join("..", "..", "examples", name, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tf.Dir, file)), 0o755); err != nil {
			t.Fatal(err)
		}
		tf.Write(file, string(example))
	}
	if sliced {
		tf.Must("get") // the slice module; the provider comes from dev_overrides
	}
	tf.Write("terraform.tfvars", fmt.Sprintf("adopt_created_before = %q\nmanaged_elsewhere = [%q]\n", cutoff, elsewhere))
	adopted := existing - 2
	pages := ceilDiv(existing+1, client.MaxPageSize)
	// run runs a command and checks what it cost and said.
	run := func(what string, args ...string) string {
		t.Helper()
		before := requestsTo(srv)
		out := tf.Must(args...)
		if n := requestsTo(srv) - before; n > pages+pagedRefreshAllowance {
			t.Errorf("%s sent %d requests, want at most the list's %d pages and %d more: %v", what, n, pages, pagedRefreshAllowance, srv.RequestCounts())
		} else {
			t.Logf("%s sent %d requests (%d pages in the list)", what, n, pages)
		}
		if strings.Contains(strings.ToLower(out), "deprecat") {
			t.Errorf("%s warns of something deprecated:\n%s", what, tail(out, 3000))
		}
		return out
	}
	out := run("the import's plan", "plan", "-input=false")
	if want := fmt.Sprintf("%d to import, 0 to add, 0 to change, 0 to destroy", adopted); !strings.Contains(out, want) {
		t.Fatalf("bulk import plan lacks %q:\n%s", want, tail(out, 3000))
	}
	out = run("the import's apply", "apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, fmt.Sprintf("%d imported, 0 added, 0 changed, 0 destroyed", adopted)) {
		t.Fatalf("bulk import apply:\n%s", tail(out, 3000))
	}
	out = run("the plan after it", "plan", "-input=false", "-detailed-exitcode")
	if !strings.Contains(out, "No changes.") {
		t.Errorf("the plan after the import is not empty:\n%s", tail(out, 3000))
	}
	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != existing+1 {
		t.Errorf("%d creates at the service, want only the fixture's %d", n, existing+1)
	}
	state := tf.Must("state", "list")
	if got := strings.Count(state, "mobileplan_subscription.adopted["); got != adopted {
		t.Errorf("state holds %d adopted subscriptions, want %d", got, adopted)
	}
	for _, id := range []string{expired, elsewhere, later} {
		if strings.Contains(state, id) {
			t.Errorf("%s was adopted", id)
		}
	}
	var output map[string]string
	if err := json.Unmarshal([]byte(tf.Must("output", "-json", "adopted")), &output); err != nil {
		t.Fatalf("output adopted: %v", err)
	}
	delete(iccids, expired)
	delete(iccids, elsewhere)
	seen := map[string]bool{}
	for id, iccid := range iccids {
		if iccid == "" || seen[iccid] {
			t.Fatalf("%s has no eSIM of its own (%q): the output's check would show nothing", id, iccid)
		}
		seen[iccid] = true
		if output[id] != iccid {
			t.Errorf("output adopted maps %s to %q, want its eSIM's ICCID %q", id, output[id], iccid)
		}
	}
	for id := range output {
		if _, ok := iccids[id]; !ok {
			t.Errorf("output adopted holds %s, which was not to be adopted", id)
		}
	}
	if !sliced {
		return
	}
	slices := map[string]bool{}
	for _, id := range ids {
		if id == expired || id == elsewhere {
			continue
		}
		slice := id[len(id)-2:]
		slices[slice] = true
		if address := fmt.Sprintf("module.slice[%q].mobileplan_subscription.adopted[%q]", slice, id); !strings.Contains(state, address) {
			t.Errorf("state has no %s", address)
		}
	}
	if len(slices) < 2 {
		t.Errorf("the %d subscriptions fell in %d slice: the test shows no slicing", adopted, len(slices))
	}
}

// requestsTo counts every /v1 request srv has served.
func requestsTo(srv *emulatortest.Server) int {
	n := 0
	for pattern, c := range srv.RequestCounts() {
		if strings.Contains(pattern, " /v1/") {
			n += c
		}
	}
	return n
}

// A configuration that reads a list's items whole (here an output of
// them) is warned of nothing on any CLI: OpenTofu marks the deprecated
// attribute in every item of a list whose schema marks it, warns of each,
// and reading the marked list costs it time that grows with the square of
// the items (2,000: 18 CPU-s, 1 without; 20,000: over 17 CPU-minutes).
// plan_details.name is described as deprecated in the list, not marked.
func TestCLI_aListReadWholeWarnsOfNothing(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(f.srv, "")+`
data "mobileplan_subscriptions" "all" {}

output "names" {
  value = [for s in data.mobileplan_subscriptions.all.subscriptions : s.plan_details.name]
}
`)
	out := tf.Must("plan", "-input=false")
	if strings.Contains(strings.ToLower(out), "deprecat") || !strings.Contains(out, "names") {
		t.Errorf("a plan reading the list whole warns of something deprecated, or shows no output:\n%s", tail(out, 3000))
	}
}
