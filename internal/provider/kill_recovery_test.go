//go:build unix

package provider

import (
	"bytes"
	"context"
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
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
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

// killSetup is how a test's apply is killed: the state's backend, the
// subscriptions it applies, how many of their creates are answered when
// it is killed, and whether its provider dies with it.
type killSetup struct {
	backend      string // "local" or "http"
	count, after int
	// group kills the CLI's whole process group, the provider with it, as
	// a lost machine does; else the CLI alone, as the kernel's
	// out-of-memory killer or a runner's last signal does.
	group bool
	// latency is how long each answer comes after the service acted
	// (default 1 s), so that creates are in flight at the kill.
	latency time.Duration
	// applied, when above 0, is an apply of that many the working
	// directory completes first, its state saved.
	applied int
	// dateAhead puts the Date header of every answer that far ahead of
	// the clock that dates createdAt, as a service whose front servers
	// keep another clock does.
	dateAhead time.Duration
	// esims, when above 0, is the size of the service's eSIM inventory
	// (else the emulator's default).
	esims int
}

// killedRun is a working directory whose apply was killed mid-way, with
// the service it ran against.
type killedRun struct {
	srv   *emulatortest.Server
	front *answeredCreates
	tf    *acctest.CLI
	other *acctest.CLI // another configuration on the same token
	// inState is how many subscriptions its state held after the kill,
	// atService how many it had at the service once the killed run's
	// provider had exited (settle).
	inState, atService int
	stateBefore        []string // what the state held after the kill
	left               []string // what the kill left out of state (settle)
	providers          []int    // the killed run's provider processes
	// config is its configuration, without the provider block, and
	// backend its terraform block alone; started is a moment just before
	// the killed apply started.
	config, backend string
	started         time.Time
}

// killMidApply applies count subscriptions in a new working directory with
// state in backend, beside another configuration applying on the same
// token, and kills the CLI alone once after of its creates were answered.
func killMidApply(t *testing.T, backend string, count, after int) *killedRun {
	return kill(t, killSetup{backend: backend, count: count, after: after})
}

// kill applies s.count subscriptions in a new working directory as s
// says, beside another configuration applying on the same token, and
// kills the apply once s.after of its creates were answered.
func kill(t *testing.T, s killSetup) *killedRun {
	opts := emulator.Options{Token: emulatortest.Token}
	if s.esims > 0 {
		ds := emulator.DefaultDataset(emulator.DefaultPlans, s.esims)
		opts.Dataset = &ds
	}
	emu, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	front := &answeredCreates{emu: emu, answers: map[string]int{}, arrivals: map[string]int{}, dateAhead: s.dateAhead}
	ts := httptest.NewServer(front)
	t.Cleanup(func() { ts.Close(); emu.Close() })
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}
	var env []string
	if s.group {
		// A provider killed with its CLI leaves its socket directory
		// behind: in a temporary directory of the test's own, short
		// enough for a socket's path.
		tmp, err := os.MkdirTemp("", "k")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(tmp) })
		env = append(env, "TMPDIR="+tmp)
	}
	tf := newTerraformCLI(t, env...)
	backendConfig := backendBlock(t, s.backend)
	config := backendConfig + fleetConfig(s.count)
	if s.backend != "local" {
		tf.Write("main.tf", config+acctest.ProviderBlock(srv, ""))
		initWithoutRegistry(t, tf)
	}
	started := time.Now().Add(-time.Second).Truncate(time.Second)
	if s.applied > 0 {
		// At the service's own pace: what the kill needs comes after.
		tf.Write("main.tf", backendConfig+fleetConfig(s.applied)+acctest.ProviderBlock(srv, ""))
		tf.Must("apply", "-auto-approve", "-input=false")
	}

	// Each answer comes a moment after the service acted, so that creates
	// are in flight when the CLI is killed; each configuration sends at
	// most 5 requests a second, so that creates of one apply start apart.
	if s.latency == 0 {
		s.latency = time.Second
	}
	srv.SetFaults(emulator.Faults{LatencyMs: int(s.latency / time.Millisecond)})
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
	tf.Write("main.tf", config+paced)
	before, _ := front.creates("plan_001")
	apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
	binary := tf.ProviderPath()
	deadline := time.Now().Add(2 * time.Minute)
	// The moment: after creates answered, and others sent, in flight.
	for answered, inFlight := front.creates("plan_001"); answered-before < s.after || inFlight == 0; answered, inFlight = front.creates("plan_001") {
		if time.Now().After(deadline) {
			t.Fatalf("%d creates never reached the service:\n%s", s.after, apply.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	providers := providerChildren(t, apply.cmd.Process.Pid, binary)
	target := apply.cmd.Process.Pid
	if s.group {
		target = -target
	}
	if err := syscall.Kill(target, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-apply.exited
	<-otherApply.exited
	if code := otherApply.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("the other configuration's apply exited %d:\n%s", code, otherApply.out.String())
	}
	repairCutState(t, tf)
	stateBefore := stateSubscriptionIDs(t, tf)
	return &killedRun{srv: srv, front: front, tf: tf, other: other, inState: len(stateBefore), stateBefore: stateBefore,
		providers: providers, config: config, backend: backendConfig, started: started}
}

// repairCutState does what the interrupted-runs guide tells a user whose
// local state file the kill cut short (Terraform writes it in place, and
// then refuses to read it): put back terraform.tfstate.backup, the state
// before that apply, or, with none, the empty state. The journal takes
// what the apply made since.
func repairCutState(t *testing.T, tf *acctest.CLI) {
	t.Helper()
	path := filepath.Join(tf.Dir, "terraform.tfstate")
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 || json.Valid(b) {
		return
	}
	t.Logf("the kill cut the local state short (%d bytes): putting back its backup", len(b))
	backup, err := os.ReadFile(path + ".backup")
	if err != nil {
		backup = nil
	}
	if err := os.WriteFile(path, backup, 0o600); err != nil {
		t.Fatal(err)
	}
}

// fleetConfig is count subscriptions of plan_001, the configuration the
// kill tests apply.
func fleetConfig(count int) string {
	return fmt.Sprintf(`
resource "mobileplan_subscription" "fleet" {
  count   = %d
  plan_id = "plan_001"
}
`, count)
}

// settle waits for the killed run's provider to see its creates through
// and exit, and counts what the kill left out of state.
func (k *killedRun) settle(t *testing.T) {
	for deadline := time.Now().Add(time.Minute); len(alive(k.providers)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	k.atService = k.srv.Stats().Subscriptions - len(stateSubscriptionIDs(t, k.other))
	k.left = notIn(k.made(t), k.stateBefore)
	t.Logf("killed: %d subscriptions of this configuration at the service, %d in its state", k.atService, k.inState)
	if k.atService <= k.inState {
		t.Fatalf("the kill left nothing out of state: %d at the service, %d in state", k.atService, k.inState)
	}
}

// made are the subscriptions of the killed run's plan at the service now,
// sorted: what the killed run made, its provider's creates after the kill
// included (it sends for up to parentPollInterval before it sees Terraform
// gone), until another configuration makes more of plan_001.
func (k *killedRun) made(t *testing.T) []string {
	t.Helper()
	var ids []string
	for s, err := range prototest.ServiceClient(t, k.srv).Subscriptions(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if s.PlanID == "plan_001" {
			ids = append(ids, s.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// leftovers are the subscriptions the killed run made and its state does
// not hold, as settle found them, sorted.
func (k *killedRun) leftovers() []string { return k.left }

func killedApplyRecovered(t *testing.T, backend string, count, after int, atOnce bool) {
	k := killMidApply(t, backend, count, after)
	tf, srv, other := k.tf, k.srv, k.other
	if !atOnce {
		k.settle(t)
	}
	otherIDs := stateSubscriptionIDs(t, other)
	// At once, the killed run's provider may make one more: the next apply
	// takes what was made when it starts, at least.
	before := notIn(k.made(t), k.stateBefore)

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
	// What the run took: in state now, made by the killed run, and not in
	// its state after the kill. Every one is named, in one warning; no
	// warning names a subscription the state held.
	var taken []string
	for _, id := range before {
		if slices.Contains(ids, id) {
			taken = append(taken, id)
		}
	}
	if len(taken) == 0 {
		t.Fatalf("the next apply took nothing of the killed run's %v:\n%s", before, out)
	}
	expectOneWarningNames(t, out, "Took ", taken)
	expectNoWarningNames(t, out, k.stateBefore)
	plain := unwrap(out)
	if !strings.Contains(plain, "Taking ") || !strings.Contains(plain, "no state holds") {
		t.Errorf("the plan does not say it will take what the killed run left:\n%s", out)
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
	if strings.Contains(plain, "Took ") {
		t.Errorf("a targeted apply took a subscription:\n%s", out)
	}
	expectOneWarningNames(t, out, fmt.Sprintf("%d subscriptions billed and in no state after this apply", len(k.leftovers())), k.leftovers())
	if !strings.Contains(plain, "(-target)") {
		t.Errorf("the targeted apply does not say why it leaves the leftovers:\n%s", out)
	}
	otherIDs := stateSubscriptionIDs(t, k.other)
	if got, want := k.srv.Stats().Subscriptions, count+len(otherIDs)+k.atService-k.inState; got != want {
		t.Errorf("%d subscriptions at the service, want %d: the configuration's %d, the other's %d and the %d the kill left", got, want, count, len(otherIDs), k.atService-k.inState)
	}
}

// A hosted runner lost mid-apply takes its working directory, and the
// journal, with it; the state, in a remote backend, remains. A new
// working directory whose provider block names when the lost run started
// takes what it created, shown by the plan first. The plan lists none of
// what the state holds in three runs (here the subscriptions of an earlier apply in the
// same minutes), and says that it cannot tell the lost run's creates from
// another configuration's of the same plan in that time; dismissed, the
// other configuration's are not taken. A window that matches nothing says
// so, with the service's clock.
func TestCLI_lostWorkingDirectoryIsRecoveredByNamingTheRun(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	// The state holds 30 and more, all made in the lost run's window.
	const count, applied = 40, 30
	// The window that holds nothing takes none of the kill's leftovers,
	// so its plan creates every instance the state lacks beside them: up
	// to count + (count - applied) of plan_001, with the two of another
	// configuration. A quarter of the eSIMs carry plan_001's label.
	const esims = 4 * (2*count - applied + 2 + 10)
	k := kill(t, killSetup{backend: "http", count: count, after: 3, applied: applied, esims: esims})
	k.settle(t)
	k.srv.SetFaults(emulator.Faults{})
	// Another configuration buys two of the same plan in the window.
	same := newTerraformCLI(t)
	same.Write("main.tf", cliProvider(k.srv)+`
resource "mobileplan_subscription" "same_plan" {
  count   = 2
  plan_id = "plan_001"
}
`)
	same.Must("apply", "-auto-approve", "-input=false")
	sameIDs := stateSubscriptionIDs(t, same)
	otherIDs := append(stateSubscriptionIDs(t, k.other), sameIDs...)
	held := stateSubscriptionIDs(t, k.tf) // saved in the remote state

	fresh := newTerraformCLI(t)
	lost := func(settings string) string {
		return k.config + acctest.ProviderBlock(k.srv, settings)
	}
	// A window that holds nothing: the plan says so, with the service's
	// clock and its newest unused subscription.
	fresh.Write("main.tf", lost("  lost_run_started_at = \"2020-01-01T00:00:00Z\"\n  lost_run_ended_at   = \"2020-01-01T01:00:00Z\"\n"))
	initWithoutRegistry(t, fresh)
	out := fresh.PlanExpect(2)
	if plain := unwrap(out); !strings.Contains(plain, "lost_run_started_at") || !strings.Contains(plain, sameIDs[len(sameIDs)-1]) && !strings.Contains(plain, sameIDs[0]) {
		t.Errorf("a lost run's window that matches nothing is not named with the newest unused subscription:\n%s", out)
	}

	fresh.Write("main.tf", lost(fmt.Sprintf("  lost_run_started_at = %q\n", k.started.UTC().Format(time.RFC3339))))
	// Three runs of the route, each reading every instance the state
	// holds: none of them is listed, in any run.
	for run := 1; run <= 3; run++ {
		out = fresh.PlanExpect(2)
		expectNoWarningNames(t, out, held)
		if named := namedInWarnings(out, k.leftovers()); len(named) != len(k.leftovers()) {
			t.Errorf("run %d: the plan names %v of the lost run's %v:\n%s", run, named, k.leftovers(), out)
		}
		if plain := unwrap(out); len(namedInWarnings(out, sameIDs)) != len(sameIDs) || !strings.Contains(plain, "cannot tell") {
			t.Errorf("run %d: the plan does not name the other configuration's subscriptions of the same plan, or say it cannot tell them apart:\n%s", run, out)
		}
	}
	fresh.Write("main.tf", lost(fmt.Sprintf("  lost_run_started_at = %q\n  dismissed_leftovers = %s\n", k.started.UTC().Format(time.RFC3339), hclList(sameIDs))))
	out = fresh.Must("apply", "-auto-approve", "-input=false")
	ids := stateSubscriptionIDs(t, fresh)
	if total := k.srv.Stats().Subscriptions; len(ids) != count || total != count+len(otherIDs) {
		t.Errorf("after the recovery: %d in state (want %d), %d at the service (want %d): %d bought twice\n%s",
			len(ids), count, total, count+len(otherIDs), total-count-len(otherIDs), out)
	}
	for _, id := range otherIDs {
		if slices.Contains(ids, id) {
			t.Errorf("%s, held by another configuration, was taken", id)
		}
	}
	if again := stateSubscriptionIDs(t, same); !slices.Equal(again, sameIDs) {
		t.Errorf("the other configuration's state changed: %v, was %v", again, sameIDs)
	}
	// Done: the settings go, and the plan is empty.
	fresh.Write("main.tf", k.config+cliProvider(k.srv))
	fresh.ExpectNoChanges()
}

// answeredCreates fronts an emulator and counts the creates that arrived
// and those it answered, by plan.
type answeredCreates struct {
	emu       *emulator.Emulator
	dateAhead time.Duration
	mu        sync.Mutex
	arrivals  map[string]int
	answers   map[string]int
}

func (a *answeredCreates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if a.dateAhead != 0 {
		w = &datedAhead{ResponseWriter: w, ahead: a.dateAhead}
	}
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

// datedAhead moves an answer's Date header ahead by ahead, as it is
// written.
type datedAhead struct {
	http.ResponseWriter
	ahead time.Duration
	moved bool
}

func (d *datedAhead) move() {
	if d.moved {
		return
	}
	d.moved = true
	if t, err := http.ParseTime(d.Header().Get("Date")); err == nil {
		d.Header().Set("Date", t.Add(d.ahead).UTC().Format(http.TimeFormat))
	}
}

func (d *datedAhead) WriteHeader(code int) { d.move(); d.ResponseWriter.WriteHeader(code) }

func (d *datedAhead) Write(b []byte) (int, error) { d.move(); return d.ResponseWriter.Write(b) }

func (d *datedAhead) Unwrap() http.ResponseWriter { return d.ResponseWriter }

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
	ids, _ := stateSubscriptions(t, tf)
	return ids
}

// stateSubscriptions are the ids of the subscriptions the working
// directory's state holds, sorted, and one more than the highest count
// index among them (0 when none).
func stateSubscriptions(t *testing.T, tf *acctest.CLI) (ids []string, indexes int) {
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
				IndexKey   any `json:"index_key"`
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
	for _, r := range state.Resources {
		if r.Type == subscriptionTypeName {
			for _, i := range r.Instances {
				ids = append(ids, i.Attributes.ID)
				if n, ok := i.IndexKey.(float64); ok {
					indexes = max(indexes, int(n)+1)
				}
			}
		}
	}
	slices.Sort(ids)
	return ids, indexes
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
