package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Reliability under the faults a real service and network produce.

// Runs through the CLI: terraform-plugin-testing's state shim cannot read
// for_each instances with string keys.
func TestCLI_fiftyUnderRateLimitsAndErrors(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, 200)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	// 20% of requests fail before they are processed: GETs with 429 or 5xx,
	// POSTs with 429 (a 5xx to a POST is ambiguous and is tested apart).
	srv.SetFaults(emulator.Faults{LatencyMs: 15, ErrorRate: 0.2, RetryAfterSeconds: 1, Seed: 7,
		Statuses: []int{429, 500, 502, 503}, PostStatuses: []int{429}})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", fmt.Sprintf(`
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

provider "mobileplan" {
  base_url    = %q
  api_token   = %q
  max_retries = 10
}

resource "mobileplan_subscription" "fleet" {
  for_each = toset([for i in range(50) : format("phone-%%02d", i)])
  plan_id  = "plan_004"
}

output "ids" {
  value = sort([for s in mobileplan_subscription.fleet : s.id])
}
`, srv.URL, srv.Token))
	tf.Must("apply", "-auto-approve", "-input=false")
	tf.Must("apply", "-refresh-only", "-auto-approve", "-input=false")
	tf.ExpectNoChanges()

	inState := strings.Fields(strings.NewReplacer("[", " ", "]", " ", ",", " ", `"`, " ").Replace(tf.Must("output", "-json", "ids")))
	srv.SetFaults(emulator.Faults{})
	cl, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	var atService []string
	for sub, err := range cl.Subscriptions(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		atService = append(atService, sub.ID)
	}
	sort.Strings(atService)
	if len(inState) != 50 || strings.Join(inState, ",") != strings.Join(atService, ",") {
		t.Errorf("state holds %d subscriptions, the service %d; want the same 50 (no duplicate, no orphan)", len(inState), len(atService))
	}
	if posts := srv.RequestCounts()["POST /v1/subscriptions"]; posts <= 50 {
		t.Errorf("%d POSTs for 50 subscriptions: the injected 429s never hit a create", posts)
	}
}

func TestReliability_connectionDroppedAfterCreate(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "POST", PathPrefix: "/v1/subscriptions", Action: "drop", Times: 1}}})
	diags, _ := createIn(t, harnessAt(t, srv, nil), map[string]tftypes.Value{"plan_id": text("plan_001")})
	expectErrorMatching(t, diags, errorPattern("Could not create subscription", "create subscription (POST /v1/subscriptions): no answer from the service",
		"may have created the subscription", "was not retried", "mobileplan_subscriptions data source lists newest first", "terraform import").String())
	if posts := srv.RequestCounts()["POST /v1/subscriptions"]; posts != 1 {
		t.Errorf("%d POSTs reached the service, want exactly 1", posts)
	}
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("the service holds %d subscriptions, want the 1 created before the drop", n)
	}
}

// Each failure of a refresh is reported and leaves state as it was. The
// failures are steps of one run, each plan failing on its own: a plan
// writes no state, so a provider that dropped the subscription on a failure
// would plan its create without error, and the last step's empty plan with
// the same id shows the state the failures left.
func TestAccReliability_refreshFailuresKeepState(t *testing.T) {
	t.Parallel()
	failures := []struct {
		name string
		rule emulator.FaultRule
		want []string
	}{
		{"401 mid-run", emulator.FaultRule{Action: "status", Status: 401}, []string{"Could not read subscription", "HTTP 401 Unauthorized", "Code: unauthorized", "MOBILEPLAN_API_TOKEN"}},
		{"malformed JSON", emulator.FaultRule{Action: "malformed"}, []string{"Could not read subscription", "HTTP 200, but the answer could not be read", "unexpected end of JSON input"}},
		{"HTML 502 page", emulator.FaultRule{Action: "html"}, []string{"Could not read subscription", "HTTP 502 Bad Gateway", "(after 2 attempts)", "<title>502 Bad Gateway</title>", "gateway in front of it, failed"}},
		{"empty 502", emulator.FaultRule{Action: "empty"}, []string{"HTTP 502 Bad Gateway", "empty body"}},
		{"503 exhausted", emulator.FaultRule{Action: "status", Status: 503}, []string{"HTTP 503 Service Unavailable", "(after 2 attempts)", "Code: internal"}},
	}
	srv := startEmulator(t)
	config := fmt.Sprintf(`
provider "mobileplan" {
  base_url    = %q
  api_token   = %q
  max_retries = 1
}
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}`, srv.URL, srv.Token)
	sameID := statecheck.CompareValue(compare.ValuesSame())
	steps := []resource.TestStep{{
		Config:            config,
		ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(subAddr, at("id"))},
	}}
	for _, failure := range failures {
		// The list and the GET of one subscription: a refresh that finds
		// its page failing reads by GET, which fails too.
		rule := failure.rule
		rule.Method, rule.PathPrefix = "GET", "/v1/subscriptions"
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				t.Logf("refresh failing with %s", failure.name)
				srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{rule}})
			},
			Config:      config,
			ExpectError: errorPattern(failure.want...),
		})
	}
	steps = append(steps, resource.TestStep{
		PreConfig: func() { srv.SetFaults(emulator.Faults{}) },
		Config:    config,
		ConfigPlanChecks: resource.ConfigPlanChecks{
			PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
		},
		ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(subAddr, at("id"))},
	})
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: providersFor(t), Steps: steps})
}

// A 404 on refresh is the one failure that changes state: the
// subscription is gone, so it leaves state and is planned anew. Each
// subscription is read by its own GET here, where the fault is; the paged
// refresh's 404s are TestCLI_pagedRefreshGoneSubscription's.
func TestAccReliability_notFoundOnRefreshPlansCreate(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := fmt.Sprintf(`
provider "mobileplan" {
  base_url      = %q
  api_token     = %q
  paged_refresh = false
}
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}`, srv.URL, srv.Token)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/subscriptions/", Action: "status", Status: 404}}})
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionCreate)},
				},
			},
		},
	})
}

// swappableHandler lets a test restart the emulator behind the same URL.
type swappableHandler struct {
	current atomic.Pointer[emulator.Emulator]
}

func (s *swappableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.current.Load().ServeHTTP(w, r)
}

func TestReliability_emulatorRestartKeepsState(t *testing.T) {
	t.Parallel()
	statePath := filepath.Join(t.TempDir(), "emulator-state.json")
	opts := emulator.Options{Token: emulatortest.Token, StatePath: statePath}
	first, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var handler swappableHandler
	handler.current.Store(first)
	ts := httptest.NewServer(&handler)
	t.Cleanup(ts.Close)
	srv := &emulatortest.Server{Emulator: first, URL: ts.URL, Token: opts.Token}
	h := harnessAt(t, srv, nil)
	planType := h.Type.AttributeTypes["plan"].(tftypes.Object)
	var saved []tftypes.Value
	configs := []map[string]tftypes.Value{
		{"plan_id": text("plan_001")},
		{"plan": prototest.Object(planType, map[string]tftypes.Value{"coverage_id": text("cov-eu"), "data_mbs": number(10), "period_days": number(1)})},
	}
	for _, config := range configs {
		diags, state := createIn(t, h, config)
		if len(diags) > 0 {
			t.Fatal(prototest.DiagText(diags))
		}
		saved = append(saved, state)
	}
	first.Close()
	second, err := emulator.New(opts) // a new process would read the same file
	if err != nil {
		t.Fatal(err)
	}
	handler.current.Store(second)
	t.Cleanup(second.Close)
	// The next refresh reads each as it was saved, and its plan is empty.
	after := harnessAt(t, srv, nil)
	for i, state := range saved {
		read := after.Read(t, state)
		if !read.Equal(state) {
			t.Errorf("subscription %d after the restart:\n%v\nwant as saved:\n%v", i, read, state)
		}
		expectEmptyPlan(t, after, read, configs[i])
	}
	var attrs map[string]tftypes.Value
	var planID string
	if err := saved[1].As(&attrs); err != nil || attrs["plan_id"].As(&planID) != nil || !planCustom.MatchString(planID) {
		t.Errorf("the inline plan's subscription has plan_id %q (%v), want one of the service's custom plans", planID, err)
	}
}

// TLS verification is always on: the provider has no setting to turn it
// off, and a certificate the system does not trust is refused at once.
func TestSecurity_untrustedCertificateRefused(t *testing.T) {
	t.Parallel()
	srv := emulatortest.StartTLS(t, emulator.Options{}, nil) // httptest's certificate, self-signed
	diags, _ := readData(t, srv, nil, "mobileplan_plans", nil)
	expectErrorMatching(t, diags, errorPattern("Could not list plans", "no answer from the service", "certificate").String())
	if n := srv.RequestCounts()["GET /v1/plans"]; n != 0 {
		t.Errorf("%d requests got through an untrusted TLS connection", n)
	}
}
