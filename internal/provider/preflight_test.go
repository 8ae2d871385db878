package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
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

// planCreates plans a create on each plan id as a terraform plan plans a
// configuration's new resources: in h, ten at a time (planIn). It returns
// each create's diagnostics.
func planCreates(t *testing.T, h *rowHarness, planIDs ...string) [][]*tfprotov6.Diagnostic {
	t.Helper()
	none := tftypes.NewValue(h.Type, nil)
	found := make([][]*tfprotov6.Diagnostic, len(planIDs))
	sem := make(chan struct{}, 10) // Terraform's default -parallelism
	var wg sync.WaitGroup
	for i, id := range planIDs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			found[i] = planIn(t, h, none, map[string]tftypes.Value{"plan_id": text(id)}).Diagnostics
		})
	}
	wg.Wait()
	return found
}

// The preflight of a plan's creates, in-process: what each finds, what it
// tells, and what it reads. Each row is one plan of one provider instance,
// as each terraform plan starts its own provider; the CLI's rendering of
// these diagnostics is TestCLI_preflightShortInventoryOutput's, under each
// CLI. Every finding is on the create's plan_id, where the CLI shows it.
func TestPreflight_plansOfCreates(t *testing.T) {
	t.Parallel()
	pages := ceilDiv(491, client.MaxPageSize)
	hundred := make([]string, 100)
	for i := range hundred {
		hundred[i] = []string{"plan_any", "plan_europe", "plan_americas", "plan_asia", "plan_global"}[i%5]
	}
	hundredStock := []stock{{"", 20}, {"europe", 20}, {"americas", 20}, {"asia", 20}, {"global", 20}, {"africa", 10}}
	short := []string{"plan_europe", "plan_europe", "plan_009", "plan_nope"}
	noRetries := map[string]tftypes.Value{"max_retries": number(0)}
	failingGETs := func(prefix string) func(*testing.T, *emulatortest.Server) {
		return func(_ *testing.T, srv *emulatortest.Server) {
			srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: prefix, Action: "status", Status: 503}}})
		}
	}
	// The unlabelled fifth of the hundred may take what a label needs: the
	// service does not say which free eSIM it gives.
	const mayTakeLabelled = "Subscriptions without a label may take eSIMs that labelled ones need"
	for _, row := range []struct {
		rule     string
		stock    []stock
		before   func(t *testing.T, srv *emulatortest.Server) // what the account does before the plan
		settings map[string]tftypes.Value
		creates  []string
		errors   map[string]int // summary: how many creates get it
		warnings map[string]int
		details  []string // each in the detail of a finding
		reads    map[string]int
	}{
		{
			rule: "an archived plan is refused, read once for its two creates; the good create still scans", stock: []stock{{"europe", 5}, {"", 5}},
			creates: []string{"plan_009", "plan_009", "plan_europe"},
			errors:  map[string]int{`Plan "plan_009" cannot be subscribed to`: 2},
			details: []string{`Plan "plan_009" (any 10 GB / 90 days (archived)) is archived.`, "would fail at apply with HTTP 412 Precondition Failed (invalidPlan)",
				"does not exist, is archived, or is an addon plan", "mobileplan_plans data source with subscribable = true",
				"Found at plan time by the provider's preflight check, before anything was created", `preflight = "warn"`},
			reads: map[string]int{routePlan: 2, routeEsims: 1},
		},
		{
			rule: "an addon plan is refused", stock: []stock{{"europe", 5}, {"", 5}},
			creates: []string{"plan_006", "plan_006", "plan_europe"},
			errors:  map[string]int{`Plan "plan_006" cannot be subscribed to`: 2},
			details: []string{"is an addon plan; addons attach to an existing subscription", "subscribable = true"},
			reads:   map[string]int{routePlan: 2, routeEsims: 1},
		},
		{
			rule: "an unknown plan is refused with the service's answer", stock: []stock{{"europe", 5}, {"", 5}},
			creates: []string{"plan_nope", "plan_nope", "plan_europe"},
			errors:  map[string]int{`Plan "plan_nope" cannot be subscribed to`: 2},
			details: []string{`Plan "plan_nope" does not exist in the account (GET /v1/plans/plan_nope answered HTTP 404)`, "subscribable = true"},
			reads:   map[string]int{routePlan: 2, routeEsims: 1},
		},
		{
			rule: "a label's shortfall fails the creates that do not fit, and says how many fit", stock: []stock{{"europe", 3}, {"americas", 10}, {"", 10}},
			creates: append(repeat("plan_europe", 4), "plan_americas"),
			errors:  map[string]int{`Not enough free eSIMs with label "europe"`: 1},
			details: []string{`This subscription is the 4th create in this Terraform plan whose mobile plan has the label "europe", and the account has 3 free eSIMs with that label`,
				"Applying would create 3 of them and then fail for the rest with HTTP 412 Precondition Failed (outOfInventory), leaving the rollout half done",
				"Terraform shows this error for each create that does not fit",
				`Add eSIMs with label "europe" to the account's inventory, one for each of these errors, or choose a plan with another label`},
			reads: map[string]int{routePlan: 2, routeEsims: 1}, // 23 eSIMs: one page
		},
		{
			rule: "100 concurrent creates over five plans read each plan once and scan once", stock: hundredStock,
			creates:  hundred,
			warnings: map[string]int{mayTakeLabelled: 1},
			reads:    map[string]int{routePlan: 5, routeEsims: 5},
		},
		{
			rule: "someone else takes one asia eSIM: exactly one asia create no longer fits", stock: hundredStock,
			before: func(t *testing.T, srv *emulatortest.Server) {
				prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_asia"})
			},
			creates:  hundred,
			errors:   map[string]int{`Not enough free eSIMs with label "asia"`: 1},
			warnings: map[string]int{mayTakeLabelled: 1},
			details: []string{`This subscription is the 20th create in this Terraform plan whose mobile plan has the label "asia", and the account has 19 free eSIMs with that label`,
				"Applying would create 19 of them", `Add eSIMs with label "asia"`},
			reads: map[string]int{routePlan: 5, routeEsims: 5},
		},
		{
			rule: "preflight = off reads nothing and lets every create through to apply", stock: []stock{{"europe", 1}},
			settings: map[string]tftypes.Value{"preflight": tftypes.NewValue(tftypes.String, preflightOff)},
			creates:  short,
			reads:    map[string]int{},
		},
		{
			rule: "preflight = warn reads and reports, but fails nothing", stock: []stock{{"europe", 1}},
			settings: map[string]tftypes.Value{"preflight": tftypes.NewValue(tftypes.String, preflightWarn)},
			creates:  short,
			warnings: map[string]int{`Not enough free eSIMs with label "europe"`: 1, `Plan "plan_009" cannot be subscribed to`: 1, `Plan "plan_nope" cannot be subscribed to`: 1},
			reads:    map[string]int{routePlan: 3, routeEsims: 1},
		},
		{
			rule: "preflight = error, the default, fails what warn reports", stock: []stock{{"europe", 1}},
			settings: map[string]tftypes.Value{"preflight": tftypes.NewValue(tftypes.String, preflightError)},
			creates:  short,
			errors:   map[string]int{`Not enough free eSIMs with label "europe"`: 1, `Plan "plan_009" cannot be subscribed to`: 1, `Plan "plan_nope" cannot be subscribed to`: 1},
			reads:    map[string]int{routePlan: 3, routeEsims: 1},
		},
		{
			rule: "a failed inventory read fails the create that needed it; the others sharing it are not checked", stock: []stock{{"europe", 5}},
			before:   failingGETs("/v1/esims"),
			settings: noRetries,
			creates:  repeat("plan_europe", 3),
			errors:   map[string]int{"Preflight could not read the eSIM inventory": 1},
			details: []string{"The service answered HTTP 503 Service Unavailable to GET /v1/esims",
				"So the plan-time check of this create could not run. Try again once the service answers."},
			reads: map[string]int{routePlan: 1, routeEsims: 1},
		},
		{
			rule: "a failed plan read fails the create that needed it", stock: []stock{{"europe", 5}},
			before:   failingGETs("/v1/plans/"),
			settings: noRetries,
			creates:  repeat("plan_europe", 3),
			errors:   map[string]int{"Preflight could not read plan plan_europe": 1},
			details:  []string{"The service answered HTTP 503 Service Unavailable to GET /v1/plans/plan_europe"},
			reads:    map[string]int{routePlan: 1},
		},
		{
			// A plan's cost grows with its creates, not with the account.
			rule: "one create among 1,400 eSIMs whose first 200 are taken reads until it finds a free one it may take", stock: []stock{{"", 200}, {"europe", 1200}},
			before: func(t *testing.T, srv *emulatortest.Server) {
				for range 200 {
					prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_any"}) // takes an unlabelled eSIM
				}
			},
			creates: []string{"plan_europe"},
			reads:   map[string]int{routePlan: 1, routeEsims: 200/client.MaxPageSize + 1},
		},
		{
			rule: "a free eSIM on the last page is found", stock: []stock{{"europe", 490}, {"asia", 1}},
			creates: []string{"plan_asia"},
			reads:   map[string]int{routePlan: 1, routeEsims: pages},
		},
		{
			rule: "a shortfall deep in the list is reported as a full scan reports it", stock: []stock{{"europe", 490}, {"asia", 1}},
			creates: []string{"plan_asia", "plan_asia"},
			errors:  map[string]int{`Not enough free eSIMs with label "asia"`: 1},
			details: []string{"the account has 1 free eSIM with that label"},
			reads:   map[string]int{routePlan: 1, routeEsims: pages},
		},
	} {
		t.Run(row.rule, func(t *testing.T) {
			t.Parallel()
			srv := startInventory(t, row.stock...)
			if row.before != nil {
				row.before(t, srv)
			}
			reqs := newRequests(t, srv)
			found := planCreates(t, harnessAt(t, srv, row.settings), row.creates...)
			errors, warnings := map[string]int{}, map[string]int{}
			var details strings.Builder
			for i, diags := range found {
				for _, d := range diags {
					switch d.Severity {
					case tfprotov6.DiagnosticSeverityError:
						errors[d.Summary]++
					case tfprotov6.DiagnosticSeverityWarning:
						warnings[d.Summary]++
					}
					details.WriteString(d.Detail + "\n")
					if at := tftypes.NewAttributePath().WithAttributeName("plan_id"); d.Attribute == nil || !d.Attribute.Equal(at) {
						t.Errorf("create %d (%s): %q is at %v, want %v", i, row.creates[i], d.Summary, d.Attribute, at)
					}
				}
			}
			if !maps.Equal(errors, row.errors) {
				t.Errorf("errors %v, want %v:\n%s", errors, row.errors, details.String())
			}
			if !maps.Equal(warnings, row.warnings) {
				t.Errorf("warnings %v, want %v:\n%s", warnings, row.warnings, details.String())
			}
			for _, want := range row.details {
				if !errorPattern(want).MatchString(details.String()) {
					t.Errorf("no finding says %q:\n%s", want, details.String())
				}
			}
			reqs.expect(row.rule, row.reads)
		})
	}
}

// An unknown preflight mode is refused with the modes there are, before
// any plan.
func TestPreflight_unknownModeRefused(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 1})
	values := map[string]tftypes.Value{"base_url": tftypes.NewValue(tftypes.String, srv.URL), "api_token": tftypes.NewValue(tftypes.String, srv.Token),
		"preflight": tftypes.NewValue(tftypes.String, "maybe")}
	_, diags := prototest.ConfigureServerWith(t, testServer(withEnvironment(map[string]string{})), values)
	expectErrorMatching(t, diags, errorPattern(`Attribute preflight value must be one of: ["error" "warn" "off"]`).String())
	if at := tftypes.NewAttributePath().WithAttributeName("preflight"); len(diags) == 0 || !diags[0].Attribute.Equal(at) {
		t.Errorf("the refusal is not on preflight:\n%s", prototest.DiagText(diags))
	}
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
func TestPreflight_noCreatesCostNothing(t *testing.T) {
	t.Parallel()
	srv := startInventory(t, stock{"europe", 2})
	config := map[string]tftypes.Value{"plan_id": text("plan_europe")}
	diags, saved := createIn(t, harnessAt(t, srv, nil), config)
	if len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	reqs := newRequests(t, srv)
	// Each plan in a provider instance of its own, as each command has,
	// after its refresh. (A plan equal to its prior state is answered by
	// the accelerator, through a CLI or not: it never reaches ModifyPlan.)
	h := harnessAt(t, srv, nil)
	expectEmptyPlan(t, h, h.Read(t, saved), config)
	reqs.expect("a plan without creates", map[string]int{})
	// Destroying creates nothing either: it only warns that the
	// subscription stays at the service.
	destroying := harnessAt(t, srv, nil)
	planned := planIn(t, destroying, destroying.Read(t, saved), nil)
	if text := prototest.DiagText(planned.Diagnostics); hasErrors(planned.Diagnostics) || !destroying.Value(t, planned.PlannedState).IsNull() ||
		!strings.Contains(text, "Destroying a subscription only removes it from state") {
		t.Errorf("the destroy plan: %v; want the subscription planned away with the warning that it stays at the service", text)
	}
	reqs.expect("a destroy plan", map[string]int{})
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
func TestPreflight_existingSubscriptionsNotChecked(t *testing.T) {
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
	config := map[string]tftypes.Value{"plan_id": text("plan_europe")}
	diags, saved := createIn(t, harnessAt(t, srv, nil), config)
	if len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	proxy.archive.Store(true)
	reqs := newRequests(t, srv)
	// One plan (one provider instance): the applied subscription, then a
	// second on the same plan.
	h := harnessAt(t, srv, nil)
	expectEmptyPlan(t, h, h.Read(t, saved), config)
	reqs.expect("a plan of an existing subscription on an archived plan", map[string]int{})
	expectErrorMatching(t, planCreates(t, h, "plan_europe")[0],
		errorPattern(`Plan "plan_europe" cannot be subscribed to`, `Plan "plan_europe" (europe 1 GB / 7 days) is archived.`).String())
	reqs.expect("a plan adding one create on the archived plan", map[string]int{routePlan: 1})
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
