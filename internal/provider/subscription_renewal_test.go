package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// renewalCase is one subscription of the renewal tests: an inline plan of
// its own (data_mbs tells it apart at the service), early_renewal_hours
// (-1: unset), whether its eSIM is used, and whether it is due 9 days later.
type renewalCase struct {
	name       string
	dataMBs    int64
	periodDays int64
	hours      int64
	activate   bool
	due        bool
}

// Nine days after activation: a 10-day plan expires in a day, a 5-day plan
// has expired, a 30-day plan has three weeks left.
const renewalAdvance = 9 * 24 * 3600

var renewalCases = []renewalCase{
	{name: "in_window", dataMBs: 101, periodDays: 10, hours: 48, activate: true, due: true},
	{name: "expired_at_zero", dataMBs: 102, periodDays: 5, hours: 0, activate: true, due: true},
	{name: "outside_window", dataMBs: 103, periodDays: 30, hours: 48, activate: true},
	{name: "unset_expired", dataMBs: 104, periodDays: 5, hours: -1, activate: true},
	{name: "not_active", dataMBs: 105, periodDays: 1, hours: 1_000_000},
}

func renewalConfig(srv *emulatortest.Server, lifecycle string) string {
	var b strings.Builder
	for _, c := range renewalCases {
		hours := ""
		if c.hours >= 0 {
			hours = fmt.Sprintf("  early_renewal_hours = %d\n", c.hours)
		}
		fmt.Fprintf(&b, `
resource "mobileplan_subscription" %q {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = %d
    period_days = %d
  }
%s%s}
`, c.name, c.dataMBs, c.periodDays, hours, lifecycle)
	}
	return withProvider(srv, b.String())
}

// activateRenewalCases uses the eSIMs of the cases that say so, found at
// the service by their plan, then moves the service's clock (and so the
// provider's) renewalAdvance forward.
func activateRenewalCases(t *testing.T, srv *emulatortest.Server) {
	t.Helper()
	subs, err := client.Collect(prototest.ServiceClient(t, srv).Subscriptions(t.Context()), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range renewalCases {
		if !c.activate {
			continue
		}
		found := false
		for _, s := range subs {
			if s.Plan.DataMegaBytes != nil && *s.Plan.DataMegaBytes == c.dataMBs {
				found = true
				if err := srv.Activate(s.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if !found {
			t.Fatalf("no subscription of %s at the service", c.name)
		}
	}
	if _, err := srv.AdvanceClock(renewalAdvance); err != nil {
		t.Fatal(err)
	}
}

// Subscriptions due for renewal (inside the window; expired, with 0) are
// replaced by new ones with new ids and new eSIMs; those outside the
// window, without early_renewal_hours, or not yet active are left alone;
// the old ones stay at the service; and the plan after the apply is empty
// (resource.Test plans again after each apply and fails on a change).
func TestAccSubscription_renewal(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	addr := func(c renewalCase) string { return "mobileplan_subscription." + c.name }
	var planChecks []plancheck.PlanCheck
	type valueComparison = interface {
		AddStateValue(string, tfjsonpath.Path) statecheck.StateCheck
	}
	ids, iccids := map[string]valueComparison{}, map[string]valueComparison{}
	for _, c := range renewalCases {
		var same compare.ValueComparer = compare.ValuesSame()
		action := plancheck.ResourceActionNoop
		if c.due {
			action, same = plancheck.ResourceActionReplace, compare.ValuesDiffer()
		}
		ids[c.name], iccids[c.name] = statecheck.CompareValue(same), statecheck.CompareValue(same)
		planChecks = append(planChecks, plancheck.ExpectResourceAction(addr(c), action))
	}
	// Each step's checks: the id and eSIM of each case compared with the
	// previous step's, and ready_for_renewal false.
	checks := func() []statecheck.StateCheck {
		var out []statecheck.StateCheck
		for _, c := range renewalCases {
			out = append(out,
				ids[c.name].AddStateValue(addr(c), tfjsonpath.New("id")),
				iccids[c.name].AddStateValue(addr(c), tfjsonpath.New("esim_iccid")),
				statecheck.ExpectKnownValue(addr(c), tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)))
		}
		return out
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersAt(t, srv),
		Steps: []resource.TestStep{
			{
				// Nothing is due yet, not one being active: the plans
				// resource.Test makes after the apply, without and with
				// refresh, are empty.
				Config:            renewalConfig(srv, ""),
				ConfigStateChecks: checks(),
			},
			{
				PreConfig:         func() { activateRenewalCases(t, srv) },
				Config:            renewalConfig(srv, ""),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: planChecks},
				ConfigStateChecks: checks(),
			},
		},
	})
	// The two renewed ones are still at the service, with their
	// replacements: 5 + 2.
	if n := srv.Stats().Subscriptions; n != len(renewalCases)+2 {
		t.Errorf("the service holds %d subscriptions, want %d", n, len(renewalCases)+2)
	}
}

// Setting early_renewal_hours on a subscription already in state is an
// in-place update that calls no API, or a renewal when it is due then; and
// unsetting it again is in place too.
func TestAccSubscription_renewalOptionChangesInPlace(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := func(hours string) string {
		return withProvider(srv, fmt.Sprintf(`
resource "mobileplan_subscription" "s" {
  plan_id = "plan_001"
%s}
`, hours))
	}
	sameID := statecheck.CompareValue(compare.ValuesSame())
	addr := "mobileplan_subscription.s"
	var creates int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersAt(t, srv),
		Steps: []resource.TestStep{
			{Config: config(""), ConfigStateChecks: []statecheck.StateCheck{sameID.AddStateValue(addr, tfjsonpath.New("id"))}},
			{
				PreConfig: func() {
					creates = srv.RequestCounts()["POST /v1/subscriptions"]
					subs, err := client.Collect(prototest.ServiceClient(t, srv).Subscriptions(t.Context()), nil, 0)
					if err != nil || len(subs) != 1 {
						t.Fatalf("subscriptions %v %v", subs, err)
					}
					if err := srv.Activate(subs[0].ID); err != nil { // plan_001 lasts 7 days
						t.Fatal(err)
					}
				},
				Config: config("  early_renewal_hours = 24\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					sameID.AddStateValue(addr, tfjsonpath.New("id")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("early_renewal_hours"), knownvalue.Int64Exact(24)),
				},
			},
			{
				// Six and a half days later it expires within 24 hours.
				PreConfig: func() {
					if _, err := srv.AdvanceClock(6*24*3600 + 12*3600); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("  early_renewal_hours = 24\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
				}},
			},
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("early_renewal_hours"), knownvalue.Null()),
				},
			},
		},
	})
	if got := srv.RequestCounts()["POST /v1/subscriptions"] - creates; got != 1 {
		t.Errorf("%d creates after the first apply, want 1: the renewal's", got)
	}
}

// A negative early_renewal_hours is refused at plan time, on the
// attribute, before any request.
func TestSubscription_renewalHoursValidated(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	h := harnessAt(t, srv, nil)
	planned := planIn(t, h, tftypes.NewValue(h.Type, nil), map[string]tftypes.Value{"plan_id": text("plan_001"), "early_renewal_hours": number(-1)})
	expectErrorMatching(t, planned.Diagnostics, errorPattern("early_renewal_hours", "at least 0").String())
	if at := tftypes.NewAttributePath().WithAttributeName("early_renewal_hours"); len(planned.Diagnostics) == 0 || !planned.Diagnostics[0].Attribute.Equal(at) {
		t.Errorf("the refusal is not on the attribute:\n%s", prototest.DiagText(planned.Diagnostics))
	}
	expectNoRequests(t, srv, "a negative early_renewal_hours")
}

// Through the CLI, as a user sees it: the plan that renews an expired
// subscription warns that the new one takes a new eSIM, which the device
// must be given, and that the old one stays at the service; after the
// apply the old one is still at the service and the plan is empty. Expiry
// is the service's word here (state expired), so the built provider's wall
// clock does not matter.
func TestCLI_renewalWarns(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+`
resource "mobileplan_subscription" "phone" {
  plan_id             = "plan_001"
  early_renewal_hours = 0
}

output "id" {
  value = mobileplan_subscription.phone.id
}
`)
	tf.Must("apply", "-auto-approve", "-input=false")
	first := strings.TrimSpace(tf.Must("output", "-raw", "id"))
	old := createdSubscription(t, srv, first)
	if err := srv.Activate(first); err != nil {
		t.Fatal(err)
	}
	tf.ExpectNoChanges() // active, 7 days left: not due with 0
	if _, err := srv.AdvanceClock(8 * 24 * 3600); err != nil {
		t.Fatal(err)
	}
	out, _ := tf.Run(nil, "plan", "-input=false")
	for _, want := range []string{
		"must be replaced", "ready_for_renewal", "Warning: Renewing a subscription gives the device a new eSIM",
		first + " (eSIM " + old.EsimICCID + ") expired at", "a new subscription is created on a new eSIM, with a new ICCID",
		"the device must be given the new eSIM", "stays at the service", "lifecycle { destroy = false }",
	} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("renewal plan lacks %q:\n%s", want, out)
		}
	}
	tf.Must("apply", "-auto-approve", "-input=false")
	second := strings.TrimSpace(tf.Must("output", "-raw", "id"))
	if second == first {
		t.Fatalf("the renewal kept id %s", first)
	}
	if renewed := createdSubscription(t, srv, second); renewed.EsimICCID == old.EsimICCID {
		t.Errorf("the renewed subscription has the old eSIM %s", old.EsimICCID)
	}
	if still := createdSubscription(t, srv, first); still.State != client.StateExpired {
		t.Errorf("the old subscription is %s at the service, want still there, expired", still.State)
	}
	tf.ExpectNoChanges()
}

// prevent_destroy stops a renewal, which is a replacement: the plan fails
// and names the subscription, and nothing is created.
func TestAccSubscription_renewalStoppedByPreventDestroy(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := func(prevent bool) string {
		return withProvider(srv, fmt.Sprintf(`
resource "mobileplan_subscription" "s" {
  plan_id             = "plan_001"
  early_renewal_hours = 0
  lifecycle {
    prevent_destroy = %t
  }
}
`, prevent))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersAt(t, srv),
		Steps: []resource.TestStep{
			{Config: config(true)},
			{
				PreConfig: func() {
					if err := srv.Activate(createdSubscriptionIDs(t, srv)[0]); err != nil {
						t.Fatal(err)
					}
					if _, err := srv.AdvanceClock(8 * 24 * 3600); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config(true),
				ExpectError: regexp.MustCompile(`(Resource instance|Instance) cannot be destroyed`), // OpenTofu, Terraform
			},
			{Config: config(false), PlanOnly: true, ExpectNonEmptyPlan: true}, // leaves the test's destroy possible
		},
	})
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("the service holds %d subscriptions, want only the first", n)
	}
}

// unchangedPlanRequest is the ModifyPlan request of a refreshing plan that
// finds an active subscription, expiring at expireAt, unchanged; hours is
// its early_renewal_hours, nil when unset.
func unchangedPlanRequest(hours *int64, expireAt int64) (fwresource.ModifyPlanRequest, *fwresource.ModifyPlanResponse) {
	schema := subscriptionResourceSchema()
	typ := schema.Type().TerraformType(context.Background()).(tftypes.Object)
	set := map[string]tftypes.Value{
		"id":                  tftypes.NewValue(tftypes.String, "sub_0123456789abcdef"),
		"plan_id":             tftypes.NewValue(tftypes.String, "plan_004"),
		"esim_iccid":          tftypes.NewValue(tftypes.String, "8988247000000000100"),
		"state":               tftypes.NewValue(tftypes.String, client.StateActive),
		"expire_at":           tftypes.NewValue(tftypes.Number, expireAt),
		"early_renewal_hours": tftypes.NewValue(tftypes.Number, hours),
		"ready_for_renewal":   tftypes.NewValue(tftypes.Bool, false),
	}
	attrs := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		attrs[name] = tftypes.NewValue(t, nil)
		if v, ok := set[name]; ok {
			attrs[name] = v
		}
	}
	value := tftypes.NewValue(typ, attrs)
	req := fwresource.ModifyPlanRequest{
		Config: tfsdk.Config{Schema: schema, Raw: value},
		State:  tfsdk.State{Schema: schema, Raw: value},
		Plan:   tfsdk.Plan{Schema: schema, Raw: value},
	}
	return req, &fwresource.ModifyPlanResponse{Plan: req.Plan}
}

// Renewal is opt-in: a plan of a subscription without early_renewal_hours
// never reads the clock, whatever its expiry, and one with it does, and
// renews when due.
func TestModifyPlan_renewalReadsTheClockOnlyWhenOptedIn(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	expireAt := now.Add(time.Hour).Unix() // in any window of 2 hours or more
	for _, tc := range []struct {
		name        string
		hours       *int64
		clockReads  int
		wantRenewal bool
	}{
		{name: "unset", hours: nil},
		{name: "outside_window", hours: hoursOf(0), clockReads: 1},
		{name: "in_window", hours: hoursOf(2), clockReads: 1, wantRenewal: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reads := 0
			r := &subscriptionResource{now: func() time.Time { reads++; return now }}
			req, resp := unchangedPlanRequest(tc.hours, expireAt)
			r.ModifyPlan(context.Background(), req, resp)
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}
			if reads != tc.clockReads {
				t.Errorf("the clock was read %d times, want %d", reads, tc.clockReads)
			}
			if renewed := len(resp.RequiresReplace) > 0; renewed != tc.wantRenewal {
				t.Errorf("renewed: %v, want %v", renewed, tc.wantRenewal)
			}
		})
	}
}

// BenchmarkModifyPlan_unchanged is ModifyPlan of a refreshing plan that
// changes nothing, as the provider without package fastpath runs it for
// every subscription: renewal_off (no early_renewal_hours, the common
// case) against its anchors, plans_compared (the least ModifyPlan can do:
// compare plan and state) and renewal_not_due (early_renewal_hours set,
// outside the window: the renewal rule read in full, the clock included).
func BenchmarkModifyPlan_unchanged(b *testing.B) {
	now := time.Unix(1_800_000_000, 0)
	r := &subscriptionResource{now: func() time.Time { return now }}
	expireAt := now.Add(30 * 24 * time.Hour).Unix()
	ctx := context.Background()
	b.Run("plans_compared", func(b *testing.B) {
		req, _ := unchangedPlanRequest(nil, expireAt)
		b.ReportAllocs()
		for b.Loop() {
			if !req.Plan.Raw.Equal(req.State.Raw) {
				b.Fatal("the plan changed")
			}
		}
	})
	for name, hours := range map[string]*int64{"renewal_off": nil, "renewal_not_due": hoursOf(24)} {
		b.Run(name, func(b *testing.B) {
			req, resp := unchangedPlanRequest(hours, expireAt)
			b.ReportAllocs()
			for b.Loop() {
				*resp = fwresource.ModifyPlanResponse{Plan: req.Plan}
				r.ModifyPlan(ctx, req, resp)
				if resp.Diagnostics.HasError() || len(resp.RequiresReplace) > 0 {
					b.Fatal(resp.Diagnostics, resp.RequiresReplace)
				}
			}
		})
	}
}

func hoursOf(h int64) *int64 { return &h }
