//go:build unix

package provider

import (
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"

	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// Ctrl-C in a terminal, or a CI runner cancelling a job, interrupts the
// whole process group mid-apply. Terraform then asks the provider to stop
// and waits for what is under way: a create already sent must end in
// state, or it is a subscription that runs and costs with no state
// holding it, and the next apply buys another. So after one interrupt, at
// any moment, the service holds exactly what state holds, and applying
// again brings the count to what the configuration says.
func TestCLI_interruptedApplyLeavesNothingOutsideState(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 12
	// The moments: the first create in flight; several done, some in
	// flight and the rest waiting for the service's rate limit.
	for _, after := range []int{1, 5} {
		t.Run(fmt.Sprintf("after %d creates reached the service", after), func(t *testing.T) {
			t.Parallel()
			srv := emulatortest.Start(t, emulator.Options{RateLimit: 3})
			// A slow service: each answer comes 1.5 s after the service
			// acted, so that creates are in flight at the interrupt.
			srv.SetFaults(emulator.Faults{LatencyMs: 1500})
			tf := newTerraformCLI(t)
			tf.Write("main.tf", cliProvider(srv)+fmt.Sprintf(`
resource "mobileplan_subscription" "fleet" {
  count   = %d
  plan_id = "plan_001"
}
`, count))
			apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
			out, cmd := apply.out, apply.cmd

			deadline := time.Now().Add(2 * time.Minute)
			for srv.RequestCounts()["POST /v1/subscriptions"]-srv.Stats().RateLimited < after {
				if time.Now().After(deadline) {
					t.Fatalf("%d creates never reached the service:\n%s", after, out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case <-apply.exited:
			case <-time.After(time.Minute):
				t.Fatalf("terraform still running a minute after the interrupt:\n%s", out.String())
			}

			inState := len(stateResources(t, tf))
			atService := srv.Stats().Subscriptions
			t.Logf("after the interrupt: %d subscriptions at the service, %d in state", atService, inState)
			if atService != inState {
				t.Errorf("the service holds %d subscriptions and state %d: %d run with no state holding them\n%s",
					atService, inState, atService-inState, out.String())
			}
			if atService == count {
				t.Errorf("the interrupt stopped nothing: all %d were created\n%s", count, out.String())
			}

			srv.SetFaults(emulator.Faults{})
			tf.Must("apply", "-auto-approve", "-input=false")
			if n := srv.Stats().Subscriptions; n != count {
				t.Errorf("applying again left %d subscriptions at the service, want %d", n, count)
			}
		})
	}
}

// stateResources are the resource instances of the working directory's
// state, by address.
func stateResources(t *testing.T, tf *acctest.CLI) []string {
	t.Helper()
	out, code := tf.Run(nil, "show", "-json")
	if code != 0 {
		t.Fatalf("terraform show -json exited %d:\n%s", code, out)
	}
	var shown struct {
		Values *struct {
			RootModule struct {
				Resources []struct {
					Address string `json:"address"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	if shown.Values == nil {
		return nil
	}
	var addrs []string
	for _, r := range shown.Values.RootModule.Resources {
		addrs = append(addrs, r.Address)
	}
	return addrs
}
