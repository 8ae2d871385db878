//go:build unix

package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal/journaltest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// The recovery after a kill as a CI user meets it: every subscription the
// service bills and no state holds is taken or named with its id, at every
// plan and apply until it is dealt with, whatever died (the CLI, the
// provider with it) or broke (the count lowered, a journal damaged, moved
// to another checkout, or written by two applies at once).

// cliDiagnostic is one warning or error of a CLI's output.
type cliDiagnostic struct {
	severity, summary, text string
}

var (
	diagnosticHeader = regexp.MustCompile(`^(Warning|Error): (.*)$`)
	// What the CLIs print after their diagnostics, or between them.
	diagnosticEnd = regexp.MustCompile(`^(Plan: |Apply complete!|No changes\.|Terraform will perform|OpenTofu will perform|Terraform used the selected|OpenTofu used the selected|Changes to Outputs|─|(data\.|module\.)?[a-z][a-z0-9_]*\.[^ ]+: )`)
)

// diagnosticsIn are the warnings and errors of a CLI's output (-no-color),
// each with its whole text.
func diagnosticsIn(out string) []cliDiagnostic {
	var diags []cliDiagnostic
	var current *cliDiagnostic
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimLeft(line, "│╷╵ ")
		if m := diagnosticHeader.FindStringSubmatch(line); m != nil {
			diags = append(diags, cliDiagnostic{severity: m[1], summary: m[2], text: line})
			current = &diags[len(diags)-1]
			continue
		}
		if diagnosticEnd.MatchString(line) {
			current = nil
		}
		if current != nil {
			current.text += "\n" + line
		}
	}
	return diags
}

// expectOneWarningNames fails t unless exactly one warning's summary is
// summary (or, ending in a space, starts with it), and it names every one
// of ids.
func expectOneWarningNames(t *testing.T, out, summary string, ids []string) {
	t.Helper()
	var found []cliDiagnostic
	for _, d := range diagnosticsIn(out) {
		if d.severity == "Warning" && (d.summary == summary || strings.HasSuffix(summary, " ") && strings.HasPrefix(d.summary, summary)) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Errorf("%d warnings are %q, want one naming %v:\n%s", len(found), summary, ids, out)
		return
	}
	for _, id := range ids {
		if !strings.Contains(found[0].text, id) {
			t.Errorf("the warning %q does not name %s:\n%s", found[0].summary, id, found[0].text)
		}
	}
}

// expectNoWarningNames fails t if a warning names one of ids.
func expectNoWarningNames(t *testing.T, out string, ids []string) {
	t.Helper()
	for _, d := range diagnosticsIn(out) {
		for _, id := range ids {
			if strings.Contains(d.text, id) {
				t.Errorf("the warning %q names %s, which the state holds:\n%s", d.summary, id, d.text)
			}
		}
	}
}

// namedInWarnings are those of ids that a warning of out names.
func namedInWarnings(out string, ids []string) []string {
	var named []string
	for _, id := range ids {
		for _, d := range diagnosticsIn(out) {
			if d.severity == "Warning" && strings.Contains(d.text, id) {
				named = append(named, id)
				break
			}
		}
	}
	return named
}

// serviceSubscriptionIDs are the ids of every subscription at the service,
// sorted.
func serviceSubscriptionIDs(t *testing.T, k *killedRun) []string {
	t.Helper()
	var ids []string
	for s, err := range prototest.ServiceClient(t, k.srv).Subscriptions(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	return ids
}

// notIn are those of ids that held does not hold.
func notIn(ids, held []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(held, id) {
			out = append(out, id)
		}
	}
	return out
}

// The count lowered after a kill: the leftovers no create needs are billed
// and in no state. Each is named with its id by the apply and by every
// plan after it, until the provider block dismisses it; none is bought.
func TestCLI_leftoversNoCreateNeedsAreNamedUntilDismissed(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	// A remote backend, saved at most every 20 seconds: the kill leaves
	// every create out of state, as OpenTofu's local state does too.
	k := killMidApply(t, "http", 12, 4)
	k.settle(t)
	k.srv.SetFaults(emulator.Faults{})
	left := k.leftovers()
	if len(left) < 2 {
		t.Fatalf("the kill left %v out of state; the test needs two", left)
	}
	// The count lowered to what the state's instances need, and one more:
	// no instance is forgotten, a create or two take leftovers, the rest
	// are not needed.
	_, indexes := stateSubscriptions(t, k.tf)
	creates := indexes + 1 - k.inState
	if creates >= len(left) {
		t.Fatalf("the kill left %v out of state, and the lowered count needs %d creates", left, creates)
	}
	lowered := k.backend + fleetConfig(indexes+1)
	k.tf.Write("main.tf", lowered+cliProvider(k.srv))
	before := len(serviceSubscriptionIDs(t, k))
	out := k.tf.Must("apply", "-auto-approve", "-input=false")
	state := stateSubscriptionIDs(t, k.tf)
	unneeded := notIn(left, state)
	if len(unneeded) != len(left)-creates {
		t.Fatalf("after the apply of %d creates, %v of the leftovers %v are out of state; want all but %d", creates, unneeded, left, creates)
	}
	if after := len(serviceSubscriptionIDs(t, k)); after != before {
		t.Errorf("the apply bought %d subscriptions, with leftovers to take", after-before)
	}
	expectOneWarningNames(t, out, fmt.Sprintf("%d subscriptions billed and in no state after this apply", len(unneeded)), unneeded)
	expectNoWarningNames(t, out, k.stateBefore)

	// Every plan names them, until they are dismissed.
	for range 2 {
		out = k.tf.PlanExpect(0)
		expectOneWarningNames(t, out, fmt.Sprintf("%d subscriptions billed and in no state", len(unneeded)), unneeded)
		expectNoWarningNames(t, out, state)
	}
	k.tf.Write("main.tf", lowered+acctest.ProviderBlock(k.srv, "  dismissed_leftovers = "+hclList(unneeded)+"\n"))
	out = k.tf.PlanExpect(0)
	if named := namedInWarnings(out, unneeded); len(named) > 0 {
		t.Errorf("the plan after they were dismissed names %v:\n%s", named, out)
	}
	k.tf.Write("main.tf", lowered+cliProvider(k.srv))
	out = k.tf.PlanExpect(0)
	if named := namedInWarnings(out, unneeded); len(named) > 0 {
		t.Errorf("once dismissed, a plan without the setting names %v:\n%s", named, out)
	}
}

// The provider killed with its CLI (a whole machine or container lost)
// against a service answering late: the creates in flight have no answer
// on record. The next apply finds at the service what they made, and buys
// none of them twice, or names each with its id; so too against a service
// whose createdAt runs a day behind its Date header, where the answers of
// the killed run, not the Date header, place the clock of createdAt.
func TestCLI_providerKilledWithItsCLIBuysNothingTwice(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	for name, dateAhead := range map[string]time.Duration{"one clock": 0, "createdAt a day behind the Date header": 24 * time.Hour} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			providerKilledWithItsCLI(t, dateAhead)
		})
	}
}

func providerKilledWithItsCLI(t *testing.T, dateAhead time.Duration) {
	const count = 10
	k := kill(t, killSetup{backend: "local", count: count, after: 2, group: true, latency: 1500 * time.Millisecond, dateAhead: dateAhead})
	// The service acts on what it received: wait for the answer to every
	// create that arrived (the client is gone; the service is not).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, inFlight := k.front.creates("plan_001"); inFlight == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never answered the creates that arrived before the kill")
		}
	}
	k.srv.SetFaults(emulator.Faults{})
	otherIDs := stateSubscriptionIDs(t, k.other)
	// What the killed run made, its creates in flight included, whose
	// answers never came.
	made := notIn(serviceSubscriptionIDs(t, k), otherIDs)
	if len(made) <= k.inState {
		t.Fatalf("the kill left nothing out of state: %d made, %d in state", len(made), k.inState)
	}
	out := k.tf.Must("apply", "-auto-approve", "-input=false")
	state := stateSubscriptionIDs(t, k.tf)
	extra := notIn(notIn(serviceSubscriptionIDs(t, k), state), otherIDs)
	t.Logf("killed with %d made and %d in state; after the next apply, %d in state and %d more at the service", len(made), k.inState, len(state), len(extra))
	if len(extra) > 0 {
		t.Logf("the next apply:\n%s", out)
	}
	if len(state) != count {
		t.Errorf("%d in state, want %d", len(state), count)
	}
	if named := namedInWarnings(out, extra); len(named) != len(extra) {
		t.Errorf("%d bought twice, %v of them named:\n%s", len(extra), named, out)
	}
	expectNoWarningNames(t, out, k.stateBefore)
	// Dealt with: the next plan says nothing of it.
	out = k.tf.PlanExpect(0)
	if named := namedInWarnings(out, made); len(named) > 0 && len(extra) == 0 {
		t.Errorf("a plan after the recovery names %v:\n%s", named, out)
	}
}

// A hosted runner loses the working directory with the job; the journal,
// saved by a step that runs after a failed or cancelled one and restored
// into the next job's new checkout, at the same path or another, lets that
// job take what the killed one left.
func TestCLI_journalRestoredInANewCheckout(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 10
	for _, place := range []string{"the same path", "another path"} {
		t.Run(place, func(t *testing.T) {
			t.Parallel()
			k := killMidApply(t, "http", count, 3)
			k.settle(t)
			k.srv.SetFaults(emulator.Faults{})
			saved := t.TempDir()
			copyDir(t, filepath.Join(k.tf.Dir, ".terraform", "mobileplan"), saved)

			next := k.tf
			if place == "another path" {
				next = newTerraformCLI(t)
			}
			// The checkout made anew: nothing of the old one is left.
			for _, name := range []string{".terraform", ".terraform.lock.hcl", "main.tf", "plugins"} {
				if err := os.RemoveAll(filepath.Join(k.tf.Dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			next.Write("main.tf", k.config+cliProvider(k.srv))
			copyDir(t, saved, filepath.Join(next.Dir, ".terraform", "mobileplan"))
			initWithoutRegistry(t, next)
			otherIDs := stateSubscriptionIDs(t, k.other)
			out := next.Must("apply", "-auto-approve", "-input=false")
			state := stateSubscriptionIDs(t, next)
			if total := k.srv.Stats().Subscriptions; len(state) != count || total != count+len(otherIDs) {
				t.Errorf("after the apply in the new checkout: %d in state (want %d), %d at the service (want %d): %d bought twice\n%s",
					len(state), count, total, count+len(otherIDs), total-count-len(otherIDs), out)
			}
			next.ExpectNoChanges()
		})
	}
}

// copyDir copies the files of from into to, made if missing.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			copyDir(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A line appended to the journal after a kill that is not the provider's
// (a damaged disk block, a stray write): the records around it are intact
// and checksummed, and what they name is taken, not bought again.
func TestCLI_damagedJournalLineAfterAKill(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 10
	k := killMidApply(t, "local", count, 3)
	k.settle(t)
	k.srv.SetFaults(emulator.Faults{})
	path := filepath.Join(k.tf.Dir, ".terraform", "mobileplan", "default.journal")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("0badc0de {\"k\":\"made\",\"id\":\"sub_from_nowhere\"}\n")
	_ = f.Close()
	otherIDs := stateSubscriptionIDs(t, k.other)
	out := k.tf.Must("apply", "-auto-approve", "-input=false")
	state := stateSubscriptionIDs(t, k.tf)
	extra := notIn(notIn(serviceSubscriptionIDs(t, k), state), otherIDs)
	if len(state) != count {
		t.Errorf("%d in state, want %d", len(state), count)
	}
	if len(extra) > 0 {
		t.Errorf("the intact leftovers were bought again: %v at the service and in no state\n%s", extra, out)
	}
	if !strings.Contains(unwrap(out), "line") || !strings.Contains(unwrap(out), "damaged") {
		t.Errorf("nothing says the journal has a damaged line:\n%s", out)
	}
	// The id the line shows is none of the service's: never named as
	// billed, and the journal compacts on, command after command: its
	// records do not grow in number (in bytes they vary: a process's pid
	// and stamp take more digits or fewer from one command to the next).
	var records []int
	for range 3 {
		for _, d := range diagnosticsIn(out) {
			if strings.Contains(d.summary, "billed and in no state") && strings.Contains(d.text, "sub_from_nowhere") {
				t.Errorf("the damaged line's id, which the service never had, is named as billed:\n%s", d.text)
			}
		}
		out = k.tf.PlanExpect(0)
		journal, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, bytes.Count(journal, []byte("\n")))
	}
	if records[2] > records[1] {
		t.Errorf("the journal grows from one plan to the next: %v records", records)
	}
}

// Two applies at once in one working directory with -lock=false: both buy
// the whole count, and the state keeps one's. Every subscription of the
// other is named, at every plan, until dealt with.
func TestCLI_twoUnlockedAppliesNameEveryExtra(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 4
	srv := startEmulator(t)
	srv.SetFaults(emulator.Faults{LatencyMs: 400})
	tf := newTerraformCLI(t)
	config := fleetConfig(count)
	tf.Write("main.tf", config+cliProvider(srv))
	var wg sync.WaitGroup
	for range 2 {
		apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false", "-lock=false")
		wg.Go(func() { <-apply.exited })
	}
	wg.Wait()
	srv.SetFaults(emulator.Faults{})
	k := &killedRun{srv: srv}
	state := stateSubscriptionIDs(t, tf)
	extra := notIn(serviceSubscriptionIDs(t, k), state)
	t.Logf("%d in state, %d more at the service", len(state), len(extra))
	if len(extra) == 0 {
		t.Skip("the two applies did not overlap: nothing was bought twice")
	}
	for range 2 {
		out := tf.PlanExpect(0)
		expectOneWarningNames(t, out, fmt.Sprintf("%d subscriptions billed and in no state", len(extra)), extra)
		expectNoWarningNames(t, out, state)
	}
}

// An apply that ended the usual way whose state was never saved (the CLI
// killed as it saved, an upload that failed; here the state file lost):
// what it made is presumed held until the next plan, which reads the
// whole state and does not find it, and takes it for its creates.
func TestCLI_anApplyWhoseStateWasLostIsTakenBack(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fleetConfig(4))
	tf.Must("apply", "-auto-approve", "-input=false")
	made := stateSubscriptionIDs(t, tf)
	for _, f := range []string{"terraform.tfstate", "terraform.tfstate.backup"} {
		_ = os.Remove(filepath.Join(tf.Dir, f))
	}
	out := tf.Must("apply", "-auto-approve", "-input=false")
	if got := stateSubscriptionIDs(t, tf); !slices.Equal(got, made) || srv.Stats().Subscriptions != 4 {
		t.Errorf("after the state was lost: %v in state, %d at the service; want the 4 made before, %v:\n%s", got, srv.Stats().Subscriptions, made, out)
	}
	expectOneWarningNames(t, out, "Took 4 subscriptions no state held", made)
	tf.ExpectNoChanges()
}

// Two provider configurations of one working directory on two services
// that issue the same ids (a staging and a production deployment), the
// CLI killed mid-apply: the next apply leaves exactly the count at each
// service, and no warning names a subscription a state holds.
func TestCLI_twoServicesIssuingTheSameIDsBuyNothingTwice(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 6
	staging := emulatortest.Start(t, emulator.Options{SequentialIDs: true})
	production := emulatortest.Start(t, emulator.Options{SequentialIDs: true})
	config := `
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}
`
	for name, srv := range map[string]*emulatortest.Server{"staging": staging, "production": production} {
		srv.SetFaults(emulator.Faults{LatencyMs: 1000})
		config += fmt.Sprintf(`
provider "mobileplan" {
  alias                   = %[1]q
  base_url                = %[2]q
  api_token               = %[3]q
  max_requests_per_second = 5
}

resource "mobileplan_subscription" %[1]q {
  provider = mobileplan.%[1]s
  count    = %[4]d
  plan_id  = "plan_001"
}
`, name, srv.URL, srv.Token, count)
	}
	tf := newTerraformCLI(t)
	tf.Write("main.tf", config)
	apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
	for deadline := time.Now().Add(2 * time.Minute); staging.Stats().Subscriptions < 3 || production.Stats().Subscriptions < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the apply never made 3 at each service:\n%s", apply.out.String())
		}
	}
	providers := providerChildren(t, apply.cmd.Process.Pid, tf.ProviderPath())
	if err := syscall.Kill(apply.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-apply.exited
	// The providers see their creates in flight through, then exit.
	for deadline := time.Now().Add(time.Minute); len(alive(providers)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("killed: %d at staging, %d at production, %d in state", staging.Stats().Subscriptions, production.Stats().Subscriptions, len(stateSubscriptionIDs(t, tf)))
	staging.SetFaults(emulator.Faults{})
	production.SetFaults(emulator.Faults{})
	out := tf.Must("apply", "-auto-approve", "-input=false")
	if s, p, held := staging.Stats().Subscriptions, production.Stats().Subscriptions, stateSubscriptionIDs(t, tf); s != count || p != count || len(held) != 2*count {
		t.Errorf("after the next apply: %d at staging and %d at production (want %d each), %d in state (want %d):\n%s", s, p, count, len(held), 2*count, out)
	}
	// What the apply leaves billed and in no state: nothing. (Its plan may
	// name one configuration's leftovers from the other's process, as
	// made at another base_url, when that configuration's provider starts
	// after the report: true then, and taken by the apply.)
	for _, d := range diagnosticsIn(out) {
		if strings.Contains(d.summary, "billed and in no state after this apply") {
			t.Errorf("the apply names subscriptions billed and in no state after it, every one held:\n%s", d.text)
		}
	}
	tf.ExpectNoChanges()
}

// MOBILEPLAN_JOURNAL=off over a journal that names what a killed run left:
// the plan says so once, naming each, rather than buy them again in
// silence.
func TestCLI_aJournalTurnedOffSaysOnceWhatItNames(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fleetConfig(2))
	var ids []string
	for range 4 {
		ids = append(ids, prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"}).ID)
	}
	journaltest.KilledRun(t, filepath.Join(tf.Dir, ".terraform", "mobileplan", "default.journal"), journal.Home{Dir: tf.Dir, Workspace: "default"}, srv.URL, srv.Token,
		recovery.RequestOf(client.CreateSubscriptionRequest{PlanID: "plan_001"}), ids)
	out, code := tf.Run([]string{"MOBILEPLAN_JOURNAL=off"}, "plan", "-input=false", "-no-color")
	if code != 0 {
		t.Fatalf("the plan exited %d:\n%s", code, out)
	}
	expectOneWarningNames(t, out, "The journal of creates is off, and names 4 subscriptions or creates no state is known to hold", ids)
}

// A subscription a person took out of state right after the apply that
// made it (terraform state rm, no plan between) and imported into another
// configuration is never taken back: the next apply's create buys anew,
// and no warning names it.
func TestCLI_aSubscriptionRemovedFromStateIsNeverTakenBack(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fleetConfig(3))
	tf.Must("apply", "-auto-approve", "-input=false")
	before := stateSubscriptionIDs(t, tf)
	tf.Must("state", "rm", "mobileplan_subscription.fleet[2]")
	removed := notIn(before, stateSubscriptionIDs(t, tf))
	if len(removed) != 1 {
		t.Fatalf("state rm took %v out of the state", removed)
	}
	other := newTerraformCLI(t)
	other.Write("main.tf", cliProvider(srv)+fmt.Sprintf(`
import {
  to = mobileplan_subscription.moved
  id = %q
}

resource "mobileplan_subscription" "moved" {
  plan_id = "plan_001"
}
`, removed[0]))
	other.Must("apply", "-auto-approve", "-input=false")

	out := tf.Must("apply", "-auto-approve", "-input=false")
	state := stateSubscriptionIDs(t, tf)
	if slices.Contains(state, removed[0]) || len(state) != 3 || srv.Stats().Subscriptions != 4 {
		t.Errorf("after the next apply: %v in state, %d at the service; want 3 in state without %s, which the other configuration holds, and 4 at the service:\n%s",
			state, srv.Stats().Subscriptions, removed[0], out)
	}
	if named := namedInWarnings(out, removed); len(named) > 0 {
		t.Errorf("a warning names %s, which a person moved to another configuration:\n%s", removed[0], out)
	}
	tf.ExpectNoChanges()
}
