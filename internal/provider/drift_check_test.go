package provider

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// The drift-detection guide tells CI users to run scripts/drift-check.sh
// and what it reports when. This runs the script as they would, under the
// CLI the tests run, against subscriptions that change at the service the
// ways the guide lists: data used, first use (activation), expiry.

// driftScript is scripts/drift-check.sh, from this package's directory.
func driftScript(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "scripts", "drift-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// driftCheck runs the script in tf's directory with JQ=jq, or JQ= (the
// route of machines that lack jq), and returns its exit status and output.
func driftCheck(t *testing.T, tf *acctest.CLI, jq string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", driftScript(t), tf.Dir, "-no-color")
	cmd.Env = append(tf.Env(), "TERRAFORM="+acctest.TerraformBinary(), "JQ="+jq)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("running %s: %v", driftScript(t), err)
	return 0, ""
}

// jqRoute names the script's route for JQ=jq: with jq when it is on PATH.
func jqRoute(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Log("jq is not on PATH: every run of drift-check.sh reads the plan's JSON without it")
		return "without jq"
	}
	return "with jq"
}

// exactRefreshExitCode reports whether the CLI the tests run gives
// `plan -refresh-only -detailed-exitcode` its documented meaning. Terraform
// before 1.15.0 compares refreshed numbers in a way that always differs, so
// it exits 2 with "No changes" for any resource that has a number
// attribute; OpenTofu does not.
func exactRefreshExitCode(t *testing.T) bool {
	t.Helper()
	name, v := acctest.CLINameVersion(t)
	return name == "OpenTofu" || !v.Core().LessThan(tfversion.Version1_15_0)
}

func TestCLI_driftCheckScript(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	// plan_001: global, 1 GB for 7 days.
	tf.Write("main.tf", cliProvider(srv)+`
resource "mobileplan_subscription" "phone" {
  count   = 3
  plan_id = "plan_001"
}

output "ids" {
  value = join(" ", mobileplan_subscription.phone[*].id)
}
`)
	tf.Must("apply", "-auto-approve", "-input=false")
	ids := strings.Fields(tf.Must("output", "-raw", "ids"))
	if len(ids) != 3 {
		t.Fatalf("want 3 subscription ids, got %q", ids)
	}

	exactExitCode := exactRefreshExitCode(t)
	if !exactExitCode {
		t.Log("plan -refresh-only -detailed-exitcode is not run: this CLI exits 2 from it even when nothing changed (the script's own plan shows a failing one)")
	}
	detailedExitCode := func(step string, want int) {
		t.Helper()
		if !exactExitCode {
			return
		}
		out, code := tf.Run(nil, "plan", "-refresh-only", "-detailed-exitcode", "-input=false")
		switch {
		case code == 1:
			t.Fatalf("%s: plan -refresh-only failed:\n%s", step, out)
		case code != want:
			t.Errorf("%s: plan -refresh-only -detailed-exitcode exited %d, want %d:\n%s", step, code, want, out)
		}
	}
	// The script's two routes take turns, so each reads the JSON of a
	// plan with drift and of one without, as this CLI writes them (a check
	// of both routes on every step ran every plan twice); the end of the
	// test checks that each did.
	routes := []struct{ jq, name string }{{"jq", jqRoute(t)}, {"", "without jq"}}
	checks := 0
	drifted := map[string]map[bool]bool{}
	// check runs the script by the next route; read says whether the run
	// was the one expected, and counts it for its route when it was.
	check := func(step string) (int, string, string, func(drift, ok bool)) {
		t.Helper()
		r := routes[checks%len(routes)]
		checks++
		code, out := driftCheck(t, tf, r.jq)
		read := func(drift, ok bool) {
			if !ok {
				return
			}
			if drifted[r.jq] == nil {
				drifted[r.jq] = map[bool]bool{}
			}
			drifted[r.jq][drift] = true
		}
		return code, out, step + " (" + r.name + ")", read
	}
	expectDrift := func(step string, wants ...string) {
		t.Helper()
		code, out, step, read := check(step)
		read(true, code == 2)
		if code != 2 {
			t.Errorf("%s: drift-check.sh exited %d, want 2 (drift):\n%s", step, code, out)
		}
		for _, want := range wants {
			if !strings.Contains(unwrap(out), want) {
				t.Errorf("%s: drift-check.sh output lacks %q:\n%s", step, want, out)
			}
		}
		detailedExitCode(step, 2)
	}
	expectNoDrift := func(step string) {
		t.Helper()
		code, out, step, read := check(step)
		read(false, code == 0 && strings.Contains(out, "No changes."))
		if code != 0 || !strings.Contains(out, "No changes.") {
			t.Errorf("%s: drift-check.sh exited %d, want 0 and a plan with no changes:\n%s", step, code, out)
		}
		detailedExitCode(step, 0)
	}
	// Recording the refreshed state is what an operator does once a drift
	// report is read.
	accept := func() {
		t.Helper()
		tf.Must("apply", "-refresh-only", "-auto-approve", "-input=false")
	}

	expectNoDrift("right after apply")

	if err := srv.Activate(ids[0]); err != nil {
		t.Fatal(err)
	}
	expectDrift("after activation", "mobileplan_subscription.phone[0] has changed", `~ state = "ready" -> "active"`, "+ activated_at", "+ expire_at")
	accept()
	expectNoDrift("after the activation was recorded")

	// Data use is telemetry: it must not be reported as drift.
	if err := srv.RecordUsage(ids[0], 1000); err != nil {
		t.Fatal(err)
	}
	expectNoDrift("after data use")

	// The first data use of a ready subscription is its activation.
	if err := srv.RecordUsage(ids[1], 1000); err != nil {
		t.Fatal(err)
	}
	expectDrift("after the first data use of a ready subscription", "mobileplan_subscription.phone[1] has changed", `~ state = "ready" -> "active"`)
	accept()

	// plan_001 runs for 7 days from activation.
	if _, err := srv.AdvanceClock(8 * 86400); err != nil {
		t.Fatal(err)
	}
	expectDrift("after expiry", "mobileplan_subscription.phone[0] has changed", "mobileplan_subscription.phone[1] has changed", `~ state = "active" -> "expired"`)
	accept()
	expectNoDrift("after the expiry was recorded")

	for _, r := range routes {
		if !drifted[r.jq][true] || !drifted[r.jq][false] {
			t.Errorf("drift-check.sh %s read a plan with drift: %v, one without: %v; want both, each as expected", r.name, drifted[r.jq][true], drifted[r.jq][false])
		}
	}
}
