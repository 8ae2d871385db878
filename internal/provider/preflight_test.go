package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Routes the preflight reads, as the emulator counts them.
const (
	routePlan  = "GET /v1/plans/{id}"
	routeEsims = "GET /v1/esims"
	routePost  = "POST /v1/subscriptions"
)

// stock is count free eSIMs with a label ("" for none).
type stock struct {
	label string
	count int
}

// inventoryDataset holds subscribable plans plan_<label> for each label
// (plan_any has none), the default data set's archived plan_009 and addon
// plan_006, and the eSIMs of stocks, in that order, which is also the order
// in which the emulator gives them out.
func inventoryDataset(stocks []stock) *state.Dataset {
	base := emulator.DefaultDataset(emulator.DefaultPlans, 0)
	ds := &state.Dataset{}
	for _, p := range base.Plans {
		if p.ID == "plan_006" || p.ID == "plan_009" {
			ds.Plans = append(ds.Plans, p)
		}
	}
	labels := []string{"europe", "americas", "asia", "global", "any"}
	for i, l := range labels {
		p := state.Plan{ID: "plan_" + l, Name: l + " 1 GB / 7 days", DataMegaBytes: 1024, PeriodDays: 7, PeriodIterations: 1, CreatedAt: 1767225600 + int64(i)}
		if l != "any" {
			p.Label = &labels[i]
		}
		ds.Plans = append(ds.Plans, p)
	}
	n := uint64(0)
	for _, st := range stocks {
		for range st.count {
			n++
			e := state.Esim{ICCID: state.ICCID(n), SmdpState: "AVAILABLE", CreatedAt: 1767225600}
			if st.label != "" {
				e.Label = &st.label
			}
			ds.Esims = append(ds.Esims, e)
		}
	}
	return ds
}

func repeat(id string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = id
	}
	return out
}

// requests measures what the emulator received since the last mark.
type requests struct {
	t      *testing.T
	srv    *emulatortest.Server
	before map[string]int
}

func (r *requests) mark() { r.before = r.srv.RequestCounts() }

// since returns the requests per route since the last mark, without zeros.
func (r *requests) since() map[string]int {
	now := r.srv.RequestCounts()
	out := map[string]int{}
	for k, v := range now {
		if d := v - r.before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// expect fails the test unless the preflight routes and creates saw exactly
// want since the last mark (routes left out of want must have seen none).
func (r *requests) expect(when string, want map[string]int) {
	r.t.Helper()
	got := r.since()
	for _, route := range []string{routePlan, routeEsims, routePost} {
		if got[route] != want[route] {
			r.t.Errorf("%s: %d × %s, want %d (all requests: %v)", when, got[route], route, want[route], got)
		}
	}
}

// countsCheck runs a function when Terraform has made a plan: the plan
// checks of a test step are the only hook between its terraform commands.
type countsCheck func()

func (f countsCheck) CheckPlan(_ context.Context, _ plancheck.CheckPlanRequest, _ *plancheck.CheckPlanResponse) {
	f()
}

func TestAccPreflight_planNotSubscribable(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 5}, stock{"", 5})
	cases := map[string]struct {
		planID string
		want   *regexp.Regexp
	}{
		"archived": {"plan_009", errorPattern(`Error: Plan "plan_009" cannot be subscribed to`, "with mobileplan_subscription.s0", `plan_id = "plan_009"`,
			`Plan "plan_009" (any 10 GB / 90 days (archived)) is archived.`, "would fail at apply with HTTP 412 Precondition Failed (invalidPlan)",
			"does not exist, is archived, or is an addon plan", "mobileplan_plans data source with subscribable = true",
			`Found at plan time by the provider's preflight check, before anything was created`, `preflight = "warn"`)},
		"addon": {"plan_006", errorPattern(`Error: Plan "plan_006" cannot be subscribed to`, `plan_id = "plan_006"`,
			`is an addon plan; addons attach to an existing subscription`, "subscribable = true")},
		"unknown": {"plan_nope", errorPattern(`Error: Plan "plan_nope" cannot be subscribed to`, `plan_id = "plan_nope"`,
			`Plan "plan_nope" does not exist in the account (GET /v1/plans/plan_nope answered HTTP 404)`, "subscribable = true")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			reqs := newRequests(t, srv)
			// Two resources on the same bad plan: one read, two errors.
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: providersFor(t),
				Steps: []resource.TestStep{{
					Config:      withProvider(srv, subscriptions(tc.planID, tc.planID, "plan_europe")),
					PlanOnly:    true,
					ExpectError: tc.want,
				}},
			})
			// The bad plan is never counted against the inventory; the
			// good create still scans it.
			reqs.expect("a plan with a bad plan_id", map[string]int{routePlan: 2, routeEsims: 1})
		})
	}
	if n := srv.Stats().Subscriptions; n != 0 {
		t.Errorf("the service holds %d subscriptions", n)
	}
}

func TestAccPreflight_labelShortfall(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 3}, stock{"americas", 10}, stock{"", 10})
	reqs := newRequests(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{{
			Config:   withProvider(srv, subscriptions(append(repeat("plan_europe", 4), "plan_americas")...)),
			PlanOnly: true,
			ExpectError: errorPattern(`Error: Not enough free eSIMs with label "europe"`, `plan_id = "plan_europe"`,
				`This subscription is the 4th create in this Terraform plan whose mobile plan has the label "europe", and the account has 3 free eSIMs with that label`,
				"Applying would create 3 of them and then fail for the rest with HTTP 412 Precondition Failed (outOfInventory), leaving the rollout half done",
				"Terraform shows this error for each create that does not fit",
				`Add eSIMs with label "europe" to the account's inventory, one for each of these errors, or choose a plan with another label`),
		}},
	})
	reqs.expect("one plan", map[string]int{routePlan: 2, routeEsims: 1}) // 23 eSIMs: one page
}

// Plans without a label take any free eSIM, labelled ones included, but
// only what the labelled creates leave.
func TestAccPreflight_unlabelledTakeWhatIsLeft(t *testing.T) {
	t.Parallel()
	// The emulator gives an unlabelled plan the first free eSIM of this
	// order: the asia ones, which no labelled create here needs.
	srv := startInventory(t, stock{"asia", 3}, stock{"", 1}, stock{"europe", 2}, stock{"americas", 1})
	reqs := newRequests(t, srv)
	fitsIDs := []string{"plan_europe", "plan_europe", "plan_americas", "plan_any", "inline", "plan_any", "inline"} // 3 labelled + 4 unlabelled = 7 free
	fits := subscriptions(fitsIDs...)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				PreConfig: reqs.mark,
				Config:    withProvider(srv, fits),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{countsCheck(func() {
						reqs.expect("plan of 7 creates", map[string]int{routePlan: 3, routeEsims: 1})
						reqs.mark()
					})},
					PostApplyPreRefresh: []plancheck.PlanCheck{countsCheck(func() {
						// Terraform plans each create again during apply,
						// with a new provider instance: the checks run once
						// more, at the same cost. The plan after apply
						// creates nothing and costs nothing.
						reqs.expect("apply of 7 creates and a plan of none", map[string]int{routePlan: 3, routeEsims: 1, routePost: 7})
					})},
				},
			},
			{
				Config:   withProvider(srv, subscriptions(append(fitsIDs, "inline")...)),
				PlanOnly: true,
				ExpectError: errorPattern(`Error: Not enough free eSIMs`, `with mobileplan_subscription.s7`,
					"This subscription is the 1st create in this Terraform plan, and the account has 0 free eSIMs in all",
					"1 of these creates are on plans without a label (inline plans have none), which take any free eSIM",
					"Applying would fail for each of them", "Add eSIMs (any label) to the account's inventory, one for each of these errors"),
			},
		},
	})
	if n := srv.Stats().FreeEsims; n != 0 {
		t.Errorf("%d eSIMs left free, want 0", n)
	}
}

// A plan that creates nothing reads nothing for the preflight.
func TestAccPreflight_noCreatesCostNothing(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 2})
	reqs := newRequests(t, srv)
	config := withProvider(srv, subscriptions("plan_europe"))
	noPreflightReads := countsCheck(func() {
		reqs.expect("a plan without creates", map[string]int{})
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: reqs.mark,
				Config:    config,
				PlanOnly:  true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh:  []plancheck.PlanCheck{noPreflightReads},
					PostApplyPostRefresh: []plancheck.PlanCheck{noPreflightReads},
				},
			},
			{
				// Destroying creates nothing either.
				PreConfig: reqs.mark,
				Config:    config,
				Destroy:   true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{noPreflightReads},
				},
			},
		},
	})
}

// Replacing a subscription takes another eSIM, so it is counted as a create.
func TestAccPreflight_replacementIsACreate(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 1})
	reqs := newRequests(t, srv)
	americas := "americas"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: withProvider(srv, `resource "mobileplan_subscription" "test" { plan_id = "plan_europe" }`)},
			{
				// The only eSIM stays with the subscription being replaced:
				// the service cannot delete it.
				PreConfig: reqs.mark,
				Config:    withProvider(srv, `resource "mobileplan_subscription" "test" { plan_id = "plan_any" }`),
				PlanOnly:  true,
				ExpectError: errorPattern(`Error: Not enough free eSIMs`, `plan_id = "plan_any"`,
					"This subscription is the 1st create in this Terraform plan, and the account has 0 free eSIMs in all",
					"Applying would fail for each of them"),
			},
			{
				PreConfig: func() {
					reqs.expect("the replacement's plan", map[string]int{routePlan: 1, routeEsims: 1})
					if _, err := srv.AddEsims(1, &americas); err != nil {
						t.Fatal(err)
					}
				},
				Config: withProvider(srv, `resource "mobileplan_subscription" "test" { plan_id = "plan_any" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
		},
	})
	if n := srv.Stats().Subscriptions; n != 2 {
		t.Errorf("the service holds %d subscriptions, want 2", n)
	}
}

func hclList(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// 100 creates over five plans, planned concurrently by Terraform: one read
// per plan, one scan, and exact counting (run with -race too).
func TestAccPreflight_hundredConcurrentCreates(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"", 20}, stock{"europe", 20}, stock{"americas", 20}, stock{"asia", 20}, stock{"global", 20}, stock{"africa", 10})
	reqs := newRequests(t, srv)
	config := withProvider(srv, fleet(100, "plan_any", "plan_europe", "plan_americas", "plan_asia", "plan_global"))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				PreConfig:          reqs.mark,
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{countsCheck(func() {
						reqs.expect("a plan of 100 creates over 5 plans and 110 eSIMs", map[string]int{routePlan: 5, routeEsims: 5})
					})},
				},
			},
			{
				// Someone else takes one asia eSIM: exactly one asia create
				// no longer fits.
				PreConfig: func() {
					prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_asia"})
					reqs.mark()
				},
				Config:   config,
				PlanOnly: true,
				ExpectError: errorPattern(`Error: Not enough free eSIMs with label "asia"`,
					`This subscription is the 20th create in this Terraform plan whose mobile plan has the label "asia", and the account has 19 free eSIMs with that label`,
					"Applying would create 19 of them", `Add eSIMs with label "asia"`),
			},
		},
	})
	reqs.expect("the short plan", map[string]int{routePlan: 5, routeEsims: 5})
}

// The counting itself, under 400 concurrent creates: each create that does
// not fit gets exactly one finding, and no plan is read twice.
func TestAccPreflight_countingUnderConcurrency(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"", 30}, stock{"europe", 100}, stock{"asia", 40})
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	p := newPreflight(c, c.SharedEsimPages(), preflightError)
	europe, asia := "europe", "asia"
	// 120 europe (100 free: 20 short), 120 asia (40 free: 80 short) and
	// 160 unlabelled: the 140 labelled creates that fit plus 160 is 300,
	// 130 more than the 170 free.
	labels := make([]*string, 0, 400)
	for range 120 {
		labels = append(labels, &europe, &asia)
	}
	for range 160 {
		labels = append(labels, nil)
	}
	results := make([]diag.Diagnostics, len(labels))
	var wg sync.WaitGroup
	for i, l := range labels {
		wg.Go(func() {
			if l != nil {
				if _, ok := p.subscribablePlan(t.Context(), "plan_"+*l, path.Root("plan_id"), &results[i]); !ok {
					t.Errorf("plan_%s not subscribable: %v", *l, results[i])
				}
			}
			p.reserve(t.Context(), l, path.Root("plan_id"), &results[i])
		})
	}
	wg.Wait()
	summaries := map[string]int{}
	for _, d := range results {
		for _, e := range d.Errors() {
			summaries[e.Summary()]++
		}
		if len(d.Errors()) > 1 {
			t.Errorf("one create got %d errors: %v", len(d.Errors()), d)
		}
	}
	want := map[string]int{`Not enough free eSIMs with label "europe"`: 20, `Not enough free eSIMs with label "asia"`: 80, "Not enough free eSIMs": 130}
	if !maps.Equal(summaries, want) {
		t.Errorf("errors %v, want %v", summaries, want)
	}
	got := srv.RequestCounts()
	if got[routePlan] != 2 || got[routeEsims] != ceilDiv(170, 25) {
		t.Errorf("requests %v, want 2 plan reads and %d eSIM pages", got, ceilDiv(170, 25))
	}
}

// off reads nothing and lets every create through to apply; warn reads and
// reports, but does not fail the plan (its warnings are checked in
// TestCLI_preflightShortInventoryOutput).
func TestAccPreflight_settings(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 1})
	reqs := newRequests(t, srv)
	short := subscriptions("plan_europe", "plan_europe", "plan_009", "plan_nope")
	for mode, want := range map[string]map[string]int{
		preflightOff:  {},
		preflightWarn: {routePlan: 3, routeEsims: 1},
	} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t),
			Steps: []resource.TestStep{{
				PreConfig:          reqs.mark,
				Config:             withPreflight(srv, mode, short),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{countsCheck(func() { reqs.expect("preflight = "+mode, want) })},
				},
			}},
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				Config:      withPreflight(srv, preflightError, short),
				PlanOnly:    true,
				ExpectError: errorPattern(`Not enough free eSIMs with label "europe"`),
			},
			{
				Config:      withPreflight(srv, "maybe", short),
				PlanOnly:    true,
				ExpectError: errorPattern(`preflight = "maybe"`, `Attribute preflight value must be one of: ["error" "warn" "off"]`),
			},
		},
	})
}

// archivingProxy serves an emulator, but once archive is set, answers
// every plan read with the plan archived: as when the account archives a
// plan that subscriptions were made from. The emulator has no such control.
type archivingProxy struct {
	emu     *emulator.Emulator
	archive atomic.Bool
}

func (a *archivingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !a.archive.Load() || r.Method != "GET" || !strings.HasPrefix(r.URL.Path, "/v1/plans/") {
		a.emu.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	a.emu.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code == 200 {
		var plan map[string]any
		if err := json.Unmarshal(body, &plan); err == nil {
			plan["archived"] = true
			body, _ = json.Marshal(plan)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// Existing subscriptions are never checked: one whose plan was archived
// after it was made plans cleanly, and only a new create is refused.
func TestAccPreflight_existingSubscriptionsNotChecked(t *testing.T) {
	t.Parallel()
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token, Dataset: inventoryDataset([]stock{{"europe", 3}})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emu.Close)
	proxy := &archivingProxy{emu: emu}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}
	reqs := newRequests(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: withProvider(srv, subscriptions("plan_europe"))},
			{
				PreConfig: func() {
					proxy.archive.Store(true)
					reqs.mark()
				},
				Config: withProvider(srv, subscriptions("plan_europe")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan(), countsCheck(func() {
						reqs.expect("a plan of an existing subscription on an archived plan", map[string]int{})
					})},
				},
			},
			{
				PreConfig: reqs.mark,
				Config:    withProvider(srv, subscriptions("plan_europe", "plan_europe")),
				PlanOnly:  true,
				ExpectError: errorPattern(`Error: Plan "plan_europe" cannot be subscribed to`, "with mobileplan_subscription.s1",
					`Plan "plan_europe" (europe 1 GB / 7 days) is archived.`),
			},
		},
	})
	reqs.expect("a plan adding one create on the archived plan", map[string]int{routePlan: 1})
}

// A read the preflight needs fails: the create that made it reports the
// service's answer on its plan_id; the others sharing it are not checked.
func TestAccPreflight_readFailure(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 5})
	reqs := newRequests(t, srv)
	config := fmt.Sprintf(`
provider "mobileplan" {
  base_url    = %q
  api_token   = %q
  max_retries = 0
}
%s`, srv.URL, srv.Token, subscriptions("plan_europe", "plan_europe", "plan_europe"))
	for route, tc := range map[string]struct {
		want  *regexp.Regexp
		reads map[string]int
	}{
		"/v1/esims": {errorPattern("Error: Preflight could not read the eSIM inventory", `plan_id = "plan_europe"`,
			"The service answered HTTP 503 Service Unavailable to GET /v1/esims", "So the plan-time check of this create could not run. Try again once the service answers."),
			map[string]int{routePlan: 1, routeEsims: 1}},
		"/v1/plans/": {errorPattern("Error: Preflight could not read plan plan_europe", `plan_id = "plan_europe"`,
			"The service answered HTTP 503 Service Unavailable to GET /v1/plans/plan_europe"), map[string]int{routePlan: 1}},
	} {
		srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: route, Action: "status", Status: 503}}})
		reqs.mark()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t),
			Steps: []resource.TestStep{{
				Config:      config,
				PlanOnly:    true,
				ExpectError: tc.want,
			}},
		})
		reqs.expect("failing "+route, tc.reads)
	}
}

// A plan's cost grows with its creates, not with the account: one create
// in an account of 1,400 eSIMs whose first 200 are taken reads the eSIM
// list only until it finds a free eSIM it may take (9 pages, not 56).
func TestAccPreflight_readsTheInventoryOnlyAsFarAsNeeded(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"", 200}, stock{"europe", 1200})
	for range 200 {
		prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_any"}) // takes an unlabelled eSIM
	}
	reqs := newRequests(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{{
			PreConfig:          reqs.mark,
			Config:             withProvider(srv, subscriptions("plan_europe")),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPreRefresh: []plancheck.PlanCheck{countsCheck(func() {
					reqs.expect("one create among 1,400 eSIMs, 200 taken", map[string]int{routePlan: 1, routeEsims: 200/client.MaxPageSize + 1})
				})},
			},
		}},
	})
}

// Free eSIMs deep in the list are found, and a shortfall there is reported
// as a full scan reports it: the reading goes on as long as a finding could
// change.
func TestAccPreflight_freeEsimsDeepInTheList(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 490}, stock{"asia", 1})
	pages := ceilDiv(491, client.MaxPageSize)
	reqs := newRequests(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				PreConfig:          reqs.mark,
				Config:             withProvider(srv, subscriptions("plan_asia")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{countsCheck(func() {
						reqs.expect("the one asia eSIM on the last page", map[string]int{routePlan: 1, routeEsims: pages})
					})},
				},
			},
			{
				PreConfig: reqs.mark,
				Config:    withProvider(srv, subscriptions("plan_asia", "plan_asia")),
				PlanOnly:  true,
				ExpectError: errorPattern(`Error: Not enough free eSIMs with label "asia"`,
					`the account has 1 free eSIM with that label`),
			},
		},
	})
	reqs.expect("two asia creates read the whole list once", map[string]int{routePlan: 1, routeEsims: pages})
}

// An apply re-plans each create just before it makes it, in the same
// provider instance as its creates. The unlabelled plan's creates take the
// unlabelled eSIMs first (every tenth of the list), then the others from
// its start, before the preflight has read the pages they are on: a
// preflight that went on counting during the apply would count each such
// eSIM as taken and its create as still to come, twice, and fail the apply
// half done with a shortfall the plan did not have. 50 creates on 52 free
// eSIMs (three pages) apply in full. The spare stays small: with 5 spare
// (50 on 55), a preflight counting during the apply passed too.
func TestAccPreflight_applyIsNotCheckedAgainstItsOwnCreates(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, 52)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	testAcc(t, resource.TestStep{
		Config: withProvider(srv, fleet(50, "plan_004")),
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectKnownValue("mobileplan_subscription.fleet[49]", tfjsonpath.New("state"), knownvalue.StringExact("ready")),
		},
	})
}
