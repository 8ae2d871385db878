//go:build unix

package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// A run killed with SIGKILL mid-apply (an out-of-memory kill, a lost
// runner, a job timeout's last signal) leaves at the service what its CLI
// had not saved: with OpenTofu, or any remote backend, up to 20 seconds of
// creates; with Terraform's local state, the creates in flight. The next
// apply in the same working directory, with no step from the user, must
// leave exactly the configured count at the service and in state, taking
// what the killed run created instead of buying it again, and never take
// what another configuration on the same token holds.
func TestCLI_killedApplyIsRecoveredByTheNextApply(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 12
	for _, backend := range []string{"local", "http"} {
		// The moments: a few creates answered and more in flight; most
		// answered.
		for _, after := range []int{2, 7} {
			t.Run(fmt.Sprintf("%s state, killed after %d creates", backend, after), func(t *testing.T) {
				t.Parallel()
				killedApplyRecovered(t, backend, count, after, after > 2)
			})
		}
	}
}

// killedRun is a working directory whose apply was killed mid-way, with
// the service it ran against.
type killedRun struct {
	srv   *emulatortest.Server
	tf    *acctest.CLI
	other *acctest.CLI // another configuration on the same token
	// inState is how many subscriptions its state held after the kill,
	// atService how many it had at the service once the killed run's
	// provider had exited (settle).
	inState, atService int
	providers          []int // the killed run's provider processes
	// config is its configuration, without the provider block; started
	// is a moment just before the killed apply started.
	config  string
	started time.Time
}

// killMidApply applies count subscriptions in a new working directory with
// state in backend, beside another configuration applying on the same
// token, and kills the CLI alone once after of its creates were answered.
func killMidApply(t *testing.T, backend string, count, after int) *killedRun {
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	front := &answeredCreates{emu: emu, answers: map[string]int{}, arrivals: map[string]int{}}
	ts := httptest.NewServer(front)
	t.Cleanup(func() { ts.Close(); emu.Close() })
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}
	// Each answer comes a second after the service acted, so that creates
	// are in flight when the CLI is killed; each configuration sends at
	// most 5 requests a second, so that creates of one apply start apart.
	srv.SetFaults(emulator.Faults{LatencyMs: 1000})
	paced := acctest.ProviderBlock(srv, "  max_requests_per_second = 5\n")

	// Another configuration on the same token, applying at the same time,
	// of another plan, so that the moment of the kill counts this one's.
	other := newTerraformCLI(t)
	other.Write("main.tf", paced+`
resource "mobileplan_subscription" "other" {
  count   = 3
  plan_id = "plan_002"
}
`)
	otherApply := startBackground(t, other, "apply", "-auto-approve", "-input=false")

	tf := newTerraformCLI(t)
	config := backendBlock(t, backend) + fmt.Sprintf(`
resource "mobileplan_subscription" "fleet" {
  count   = %d
  plan_id = "plan_001"
}
`, count)
	tf.Write("main.tf", config+paced)
	if backend != "local" {
		initWithoutRegistry(t, tf)
	}
	started := time.Now().Add(-time.Second).Truncate(time.Second)
	apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
	binary := tf.ProviderPath()
	deadline := time.Now().Add(2 * time.Minute)
	// The moment: after creates answered, and others sent, in flight.
	for answered, inFlight := front.creates("plan_001"); answered < after || inFlight == 0; answered, inFlight = front.creates("plan_001") {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates never reached the service:\n%s", after, apply.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	providers := providerChildren(t, apply.cmd.Process.Pid, binary)
	// The CLI alone, as the kernel's out-of-memory killer or a runner's
	// last signal does: its provider is left to find Terraform gone.
	if err := apply.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-apply.exited
	<-otherApply.exited
	if code := otherApply.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the other configuration's apply exited %d:\n%s", code, otherApply.out.String())
	}
	return &killedRun{srv: srv, tf: tf, other: other, inState: len(stateSubscriptionIDs(t, tf)), providers: providers, config: config, started: started}
}

// settle waits for the killed run's provider to see its creates through
// and exit, and counts what the kill left out of state.
func (k *killedRun) settle(t *testing.T) {
	for deadline := time.Now().Add(time.Minute); len(alive(k.providers)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	k.atService = k.srv.Stats().Subscriptions - len(stateSubscriptionIDs(t, k.other))
	t.Logf("killed: %d subscriptions of this configuration at the service, %d in its state", k.atService, k.inState)
	if k.atService <= k.inState {
		t.Fatalf("the kill left nothing out of state: %d at the service, %d in state", k.atService, k.inState)
	}
}

func killedApplyRecovered(t *testing.T, backend string, count, after int, atOnce bool) {
	k := killMidApply(t, backend, count, after)
	tf, srv, other := k.tf, k.srv, k.other
	if !atOnce {
		k.settle(t)
	}
	otherIDs := stateSubscriptionIDs(t, other)

	// The next run, as a retried job on the same runner: at once, it waits
	// for the killed run's provider to record what it sees through.
	out := tf.Must("apply", "-auto-approve", "-input=false")
	ids := stateSubscriptionIDs(t, tf)
	total := srv.Stats().Subscriptions
	if len(ids) != count || total != count+len(otherIDs) {
		t.Errorf("after the next apply: %d in state (want %d), %d at the service (want %d: %d here, %d in the other configuration): %d bought twice\n%s",
			len(ids), count, total, count+len(otherIDs), count, len(otherIDs), total-count-len(otherIDs), out)
	}
	for _, id := range otherIDs {
		if slices.Contains(ids, id) {
			t.Errorf("%s, held by the other configuration, was taken", id)
		}
	}
	if again := stateSubscriptionIDs(t, other); !slices.Equal(again, otherIDs) {
		t.Errorf("the other configuration's state changed: %v, was %v", again, otherIDs)
	}
	plain := unwrap(out)
	if !strings.Contains(plain, "Taking subscriptions a killed run left out of state") {
		t.Errorf("the plan does not say it will take what the killed run left:\n%s", out)
	}
	if !strings.Contains(plain, "Took a subscription a killed run left out of state") {
		t.Errorf("the apply names no subscription it took:\n%s", out)
	}
	journal := tf.Read(".terraform/mobileplan/default.journal")
	if strings.Contains(journal, srv.Token) {
		t.Error("the journal holds the token")
	}
	if t.Failed() {
		t.Logf("journal after the next apply:\n%s", journal)
	}
	srv.SetFaults(emulator.Faults{})
	tf.ExpectNoChanges()
}

// An apply limited by -target cannot see every subscription its state
// holds: it takes nothing, creates as always, and names what the journal
// holds as possibly left out of state.
func TestCLI_targetedApplyAfterAKillTakesNothingAndSaysSo(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 8
	k := killMidApply(t, "local", count, 2)
	k.settle(t)
	out := k.tf.Must("apply", "-auto-approve", "-input=false", "-target=mobileplan_subscription.fleet")
	plain := unwrap(out)
	if strings.Contains(plain, "Took a subscription") {
		t.Errorf("a targeted apply took a subscription:\n%s", out)
	}
	if !strings.Contains(plain, "Subscriptions a killed run may have left out of state") || !strings.Contains(plain, "(-target)") {
		t.Errorf("the targeted apply does not name the leftovers and why it leaves them:\n%s", out)
	}
	otherIDs := stateSubscriptionIDs(t, k.other)
	if got, want := k.srv.Stats().Subscriptions, count+len(otherIDs)+k.atService-k.inState; got != want {
		t.Errorf("%d subscriptions at the service, want %d: the configuration's %d, the other's %d and the %d the kill left", got, want, count, len(otherIDs), k.atService-k.inState)
	}
}

// A hosted runner lost mid-apply takes its working directory, and the
// journal, with it; the state, in a remote backend, remains. A new
// working directory whose provider block names when the lost run started
// takes what it created, shown by the plan first, and nothing of the other
// configuration on the token, which created subscriptions of another plan
// in the same minutes.
func TestCLI_lostWorkingDirectoryIsRecoveredByNamingTheRun(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	const count = 10
	k := killMidApply(t, "http", count, 3)
	k.settle(t)
	otherIDs := stateSubscriptionIDs(t, k.other)

	fresh := newTerraformCLI(t)
	fresh.Write("main.tf", k.config+acctest.ProviderBlock(k.srv, fmt.Sprintf("  lost_run_started_at = %q\n", k.started.UTC().Format(time.RFC3339))))
	initWithoutRegistry(t, fresh)
	plan := unwrap(fresh.PlanExpect(2))
	if !strings.Contains(plan, "Taking subscriptions a killed run left out of state") || !strings.Contains(plan, "lost_run_started_at names a run lost") {
		t.Errorf("the plan does not name the lost run's subscriptions:\n%s", plan)
	}
	out := fresh.Must("apply", "-auto-approve", "-input=false")
	ids := stateSubscriptionIDs(t, fresh)
	if total := k.srv.Stats().Subscriptions; len(ids) != count || total != count+len(otherIDs) {
		t.Errorf("after the recovery: %d in state (want %d), %d at the service (want %d): %d bought twice\n%s",
			len(ids), count, total, count+len(otherIDs), total-count-len(otherIDs), out)
	}
	for _, id := range otherIDs {
		if slices.Contains(ids, id) {
			t.Errorf("%s, held by the other configuration, was taken", id)
		}
	}
	// Done: the setting goes, and the plan is empty.
	fresh.Write("main.tf", k.config+cliProvider(k.srv))
	fresh.ExpectNoChanges()
}

// answeredCreates fronts an emulator and counts the creates that arrived
// and those it answered, by plan.
type answeredCreates struct {
	emu      *emulator.Emulator
	mu       sync.Mutex
	arrivals map[string]int
	answers  map[string]int
}

func (a *answeredCreates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/subscriptions" {
		a.emu.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		PlanID string `json:"planId"`
	}
	_ = json.Unmarshal(body, &req)
	a.mu.Lock()
	a.arrivals[req.PlanID]++
	a.mu.Unlock()
	a.emu.ServeHTTP(w, r)
	a.mu.Lock()
	a.answers[req.PlanID]++
	a.mu.Unlock()
}

// creates are how many creates of planID were answered, and how many
// arrived and await their answer.
func (a *answeredCreates) creates(planID string) (answered, inFlight int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.answers[planID], a.arrivals[planID] - a.answers[planID]
}

// backendBlock is the terraform block of a state backend: local state
// (none), or an http backend served by the test on loopback, as a remote
// backend that saves state at most every 20 seconds during an apply.
func backendBlock(t *testing.T, backend string) string {
	if backend == "local" {
		return ""
	}
	state := &httpState{}
	ts := httptest.NewServer(state)
	t.Cleanup(ts.Close)
	return fmt.Sprintf(`
terraform {
  backend "http" {
    address = %q
  }
}
`, ts.URL+"/state")
}

// initWithoutRegistry runs terraform init, which a backend needs, with the
// provider under test found in a plugin directory instead of a registry:
// init installs providers even where dev_overrides replaces them.
func initWithoutRegistry(t *testing.T, tf *acctest.CLI) {
	t.Helper()
	plugins := filepath.Join(tf.Dir, "plugins")
	for _, host := range []string{"registry.terraform.io", "registry.opentofu.org"} {
		dir := filepath.Join(plugins, host, "mobileplan", "mobileplan", "0.0.1", runtime.GOOS+"_"+runtime.GOARCH)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tf.ProviderPath(), filepath.Join(dir, "terraform-provider-mobileplan_v0.0.1")); err != nil {
			t.Fatal(err)
		}
	}
	tf.Must("init", "-input=false", "-plugin-dir="+plugins)
}

// httpState is the state store of Terraform's http backend: GET, POST.
type httpState struct {
	mu   sync.Mutex
	body []byte
}

func (s *httpState) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		if s.body == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = w.Write(s.body)
	case http.MethodPost:
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.body = b
	case http.MethodDelete:
		s.body = nil
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

// stateSubscriptionIDs are the ids of the subscriptions the working
// directory's state holds, sorted: read from the state itself (the local
// file, or the http backend's address that init recorded), for a CLI run
// costs a second of CPU each.
func stateSubscriptionIDs(t *testing.T, tf *acctest.CLI) []string {
	t.Helper()
	var backend struct {
		Backend *struct {
			Type   string `json:"type"`
			Config struct {
				Address string `json:"address"`
			} `json:"config"`
		} `json:"backend"`
	}
	var raw []byte
	if b, err := os.ReadFile(filepath.Join(tf.Dir, ".terraform", "terraform.tfstate")); err == nil && json.Unmarshal(b, &backend) == nil &&
		backend.Backend != nil && backend.Backend.Type == "http" {
		resp, err := http.Get(backend.Backend.Config.Address)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ = io.ReadAll(resp.Body)
	} else if b, err := os.ReadFile(filepath.Join(tf.Dir, "terraform.tfstate")); err == nil {
		raw = b
	}
	var state struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Attributes struct {
					ID string `json:"id"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &state); err != nil {
			t.Fatalf("state: %v\n%s", err, raw)
		}
	}
	var ids []string
	for _, r := range state.Resources {
		if r.Type == subscriptionTypeName {
			for _, i := range r.Instances {
				ids = append(ids, i.Attributes.ID)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// An apply that nobody killed says nothing of the journal: Terraform plans
// each create again right before applying it, and with more creates than
// -parallelism, the creates of this very process were in flight then.
func TestCLI_anUninterruptedApplySaysNothingOfTheJournal(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(srv, "  max_requests_per_second = 4\n")+`
resource "mobileplan_subscription" "fleet" {
  count   = 12
  plan_id = "plan_001"
}
`)
	out := unwrap(tf.Must("apply", "-auto-approve", "-input=false", "-parallelism=3"))
	for _, summary := range []string{"Creates sent with no answer recorded", "killed run", "journal of creates"} {
		if strings.Contains(out, summary) {
			t.Errorf("an uninterrupted apply warns %q:\n%s", summary, out)
		}
	}
}
