//go:build unix

package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
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

// Ctrl-C while `terraform apply` plans ends the plan's reads. Terraform
// sends no StopProvider then: it lets the plan run to its end before it
// exits, and the preflight once read thirteen more pages of the eSIM list,
// 2 s each, after the signal. The provider takes the interrupt it receives
// with Terraform's process group as the stop: nothing is sent after it,
// and Terraform exits once the reads in flight are answered: 2.5 s alone,
// 4 to 8 s among this package's parallel tests under make test's load
// (two acceptance passes on 2 cores), 28 s when the reads went on. The
// requests after the signal are the exact check; the exit's bound allows
// for the load.
func TestCLI_interruptedPlanStopsReading(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const latency = 2 * time.Second
	ds := emulator.DefaultDataset(3, 400)
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token, Dataset: &ds})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emu.Close)
	var mu sync.Mutex
	var arrivals []time.Time
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}
	srv.SetFaults(emulator.Faults{LatencyMs: int(latency / time.Millisecond)})

	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fleet(200, planIDs(ds, func(p state.Plan) bool { return !p.Archived && !p.Addon })...))
	plan := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
	deadline := time.Now().Add(time.Minute)
	for srv.RequestCounts()["GET /v1/esims"] < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the preflight never read the eSIM list:\n%s", plan.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	signalled := time.Now()
	if err := syscall.Kill(-plan.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-plan.exited:
	case <-time.After(time.Minute):
		t.Fatalf("terraform still running a minute after the interrupt:\n%s", plan.out.String())
	}
	exitedAfter := time.Since(signalled)
	mu.Lock()
	var late []time.Duration
	for _, at := range arrivals {
		// Terraform takes a moment to ask the provider to stop.
		if after := at.Sub(signalled); after > 250*time.Millisecond {
			late = append(late, after.Round(time.Millisecond))
		}
	}
	mu.Unlock()
	t.Logf("terraform exited %v after the interrupt; %d requests in all, %d reached the service later than 250 ms after it", exitedAfter.Round(time.Millisecond), len(arrivals), len(late))
	if len(late) > 0 {
		t.Errorf("%d requests reached the service after the interrupt, at %v:\n%s", len(late), late, plan.out.String())
	}
	// The read in flight is answered within the latency; then the plan of
	// the rest ends without reading: 2.3 s on an idle machine, 5.3 s under
	// make test's load, where reading on took 28 s.
	if limit := latency + 8*time.Second; exitedAfter > limit {
		t.Errorf("terraform exited %v after the interrupt, want at most %v:\n%s", exitedAfter, limit, plan.out.String())
	}
}

// A plan against a service whose rate limit refuses everything ends within
// the preflight's bound, here the create's timeouts.create, with a warning
// that the check could not run, not a failed plan: the preflight is advice,
// and it once waited ten minutes (a request's own bound) saying nothing.
func TestCLI_planUnderAQuotaIsBoundedAndSaysSo(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	srv, tf := closedQuota(t, "5s")
	started := time.Now()
	plan := startBackground(t, tf, "plan", "-input=false")
	select {
	case <-plan.exited:
	case <-time.After(40 * time.Second):
		t.Fatalf("the plan was still waiting for the quota after 40 s, its bound 5 s:\n%s", plan.out.String())
	}
	took := time.Since(started)
	out := unwrap(plan.out.String())
	t.Logf("the plan took %v; %d requests answered 429", took.Round(time.Millisecond), srv.Stats().RateLimited)
	if code := plan.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("terraform plan exited %d, want 0: a rate limit is no reason to fail a plan:\n%s", code, out)
	}
	for _, want := range []string{"Warning: Preflight skipped: the service's rate limit", "the plan goes on without it", "Plan: 3 to add"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `preflight = "warn"`) {
		t.Errorf("the preflight hint is for findings, not for a check that did not run:\n%s", out)
	}
	if limit := 5*time.Second + 10*time.Second; took > limit {
		t.Errorf("the plan took %v, want at most %v: the bound and Terraform's own start", took, limit)
	}
}

// An apply against a service that admits nothing ends within its creates'
// timeouts.create and a few seconds: the plan's preflight, and the
// apply's own plan of each create, skip their check after a short wait
// instead of adding theirs to the creates' (with timeouts.create = "30s",
// such an apply once took 87 s: 30 s planning, 29 s re-planning, then the
// creates' 30 s).
func TestCLI_applyUnderAQuotaEndsWithinItsCreateTimeout(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	// The anchor, measured in the same run: the same apply against a
	// service that admits everything, what the CLI itself takes on this
	// machine under its load now.
	opened, open := closedQuota(t, "10s")
	opened.SetFaults(emulator.Faults{})
	started := time.Now()
	open.Must("apply", "-auto-approve", "-input=false")
	anchor := time.Since(started)

	srv, tf := closedQuota(t, "10s")
	started = time.Now()
	out, code := tf.Run(nil, "apply", "-auto-approve", "-input=false")
	took := time.Since(started)
	out = unwrap(out)
	t.Logf("the apply took %v (the same against an open service %v), exit %d; %d requests answered 429", took.Round(time.Millisecond), anchor.Round(time.Millisecond), code, srv.Stats().RateLimited)
	if code == 0 || !strings.Contains(out, "Error: Could not create subscription") || !strings.Contains(out, "Warning: Preflight skipped: the service's rate limit") {
		t.Errorf("want the creates failed at their timeout, after a preflight skipped:\n%s", tail(out, 4000))
	}
	// The creates' timeout, the preflight's bounded wait in the plan and
	// in the apply's plan of the creates, and 5 s for the 429s answered
	// meanwhile on a loaded machine (measured: 12 s alone, up to 21.6 s
	// under make test's load). Each plan waiting the creates' timeout, as
	// it once did, took three times that.
	if limit := anchor + 10*time.Second + 2*diagnostics.PreflightRateLimitWait + 5*time.Second; took > limit {
		t.Errorf("the apply took %v, want at most %v: the creates' timeout and the preflight's waits beyond the anchor's %v", took, limit, anchor)
	}
}

// closedQuota is a service whose rate limit refuses every request, and a
// configuration of 3 creates with the given timeouts.create.
func closedQuota(t *testing.T, createTimeout string) (*emulatortest.Server, *acctest.CLI) {
	t.Helper()
	srv := startEmulator(t)
	srv.SetFaults(emulator.Faults{RetryAfterSeconds: 1, Rules: []emulator.FaultRule{{PathPrefix: "/v1/", Action: "status", Status: 429}}})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fmt.Sprintf(`
resource "mobileplan_subscription" "phone" {
  count   = 3
  plan_id = "plan_001"
  timeouts {
    create = %q
  }
}
`, createTimeout))
	return srv, tf
}
