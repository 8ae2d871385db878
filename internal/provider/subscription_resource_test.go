package provider

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

const subAddr = "mobileplan_subscription.test"

var (
	subscriptionID = regexp.MustCompile(`^sub_[0-9a-f]{16}$`)
	iccidPattern   = regexp.MustCompile(`^[0-9]{19,20}$`)
)

// usageDataSource reads the usage of the subscription at subAddr, which
// only the data sources show; usageAddr is its address.
const (
	usageDataSource = `
data "mobileplan_subscription" "usage" {
  id = mobileplan_subscription.test.id
}
`
	usageAddr = "data.mobileplan_subscription.usage"
)

// newSubscriptionChecks are what every freshly created subscription shows,
// in a configuration with usageDataSource.
func newSubscriptionChecks() []statecheck.StateCheck {
	unused := knownvalue.Null()
	return []statecheck.StateCheck{
		statecheck.ExpectKnownValue(subAddr, at("id"), knownvalue.StringRegexp(subscriptionID)),
		statecheck.ExpectKnownValue(subAddr, at("esim_iccid"), knownvalue.StringRegexp(iccidPattern)),
		statecheck.ExpectKnownValue(subAddr, at("state"), knownvalue.StringExact("ready")),
		statecheck.ExpectKnownValue(subAddr, at("created_at"), knownvalue.NotNull()),
		statecheck.ExpectKnownValue(subAddr, at("activated_at"), unused),
		statecheck.ExpectKnownValue(subAddr, at("expire_at"), unused),
		statecheck.ExpectKnownValue(subAddr, at("metadata"), knownvalue.MapSizeExact(0)),
		statecheck.ExpectKnownValue(subAddr, at("purchased_allowance", "voice_seconds"), knownvalue.Null()),
		statecheck.ExpectKnownValue(subAddr, at("purchased_allowance", "sms_messages"), knownvalue.Null()),
		statecheck.CompareValuePairs(usageAddr, at("remaining_allowance"), subAddr, at("purchased_allowance"), compare.ValuesSame()),
	}
}

func TestAccSubscription_planID_parity(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := withProvider(srv, `
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}
`+usageDataSource)
	checks := append(newSubscriptionChecks(),
		statecheck.ExpectKnownValue(subAddr, at("plan_id"), knownvalue.StringExact("plan_001")),
		statecheck.ExpectKnownValue(subAddr, at("plan"), knownvalue.Null()),
		statecheck.ExpectKnownValue(subAddr, at("plan_details"), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"name":                 knownvalue.StringExact("global 1 GB / 7 days"),
			"data_megabytes":       knownvalue.Int64Exact(1024),
			"period_days":          knownvalue.Int64Exact(7),
			"period_iterations":    knownvalue.Int64Exact(1),
			"throttled_speed_kbps": knownvalue.Int64Exact(0),
			"label":                knownvalue.StringExact("global"),
			"coverage_profile_id":  knownvalue.StringExact("cov-global"),
		})),
		statecheck.ExpectKnownValue(subAddr, at("purchased_allowance", "data_bytes"), knownvalue.Int64Exact(1024*1_000_000)),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: checks,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				ResourceName:      subAddr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				ResourceName:    subAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				ResourceName:    subAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				GenerateConfig:  true,
				Config:          withProvider(srv, ""),
			},
		},
	})
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("the service holds %d subscriptions, want exactly 1", n)
	}
}

func TestAccSubscription_inlinePlan(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := withProvider(srv, `
resource "mobileplan_subscription" "test" {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 2048
    period_days = 14
  }
}
`+usageDataSource)
	checks := append(newSubscriptionChecks(),
		statecheck.ExpectKnownValue(subAddr, at("plan_id"), knownvalue.StringRegexp(regexp.MustCompile(`^plan_custom_`))),
		statecheck.ExpectKnownValue(subAddr, at("plan"), knownvalue.ObjectExact(map[string]knownvalue.Check{
			"coverage_id": knownvalue.StringExact("cov-eu"),
			"data_mbs":    knownvalue.Int64Exact(2048),
			"period_days": knownvalue.Int64Exact(14),
		})),
		statecheck.ExpectKnownValue(subAddr, at("plan_details", "coverage_profile_id"), knownvalue.StringExact("cov-eu")),
		statecheck.ExpectKnownValue(subAddr, at("plan_details", "data_megabytes"), knownvalue.Int64Exact(2048)),
		statecheck.ExpectKnownValue(subAddr, at("plan_details", "period_days"), knownvalue.Int64Exact(14)),
		statecheck.ExpectKnownValue(subAddr, at("plan_details", "label"), knownvalue.Null()),
		statecheck.ExpectKnownValue(subAddr, at("purchased_allowance", "data_bytes"), knownvalue.Int64Exact(2048*1_000_000)),
	)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: checks,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Read cannot know the subscription was made from an inline
				// plan, so `plan` is the one attribute import cannot fill.
				ResourceName:            subAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"plan"},
			},
			{
				// Imported into the inline form: an in-place update that
				// only records `plan`, never a replacement.
				ResourceName:       subAddr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionUpdate)},
				},
			},
			{
				ResourceName:    subAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				GenerateConfig:  true,
				Config:          withProvider(srv, ""),
			},
		},
	})
}

func TestSubscription_preconditionFailures(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, 0)
	scarce := "scarce"
	ds.Plans = append(ds.Plans, state.Plan{ID: "plan_scarce", Name: "scarce", DataMegaBytes: 100, PeriodDays: 1, Label: &scarce})
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	// The preflight would stop these at plan time; off, they reach the
	// service and its 412.
	for _, row := range []struct {
		planID string
		want   *regexp.Regexp
	}{
		{"plan_009", errorPattern("Could not create subscription",
			"HTTP 412 Precondition Failed to POST /v1/subscriptions", "Code: invalidPlan", `Message: plan "plan_009" is archived`,
			"suggestion: choose a plan that is not archived", "Docs: https://docs.mobileplan.example/errors/invalidPlan",
			"does not exist, is archived, or is an addon plan")},
		{"plan_006", errorPattern("Code: invalidPlan", `plan "plan_006" is an addon plan`)},
		{"plan_nope", errorPattern("Code: invalidPlan", `plan "plan_nope" does not exist`)},
		{"plan_scarce", errorPattern("HTTP 412 Precondition Failed", "Code: outOfInventory", `Message: no unassigned eSIM with label "scarce"`,
			"suggestion: add eSIMs", "Docs: https://docs.mobileplan.example/errors/outOfInventory", "inventory must grow")},
	} {
		// Each an apply of its own, as each resource.Test was.
		h := harnessAt(t, srv, map[string]tftypes.Value{"preflight": text(preflightOff)})
		diags, saved := createIn(t, h, map[string]tftypes.Value{"plan_id": text(row.planID)})
		expectErrorMatching(t, diags, row.want.String())
		if at := tftypes.NewAttributePath().WithAttributeName("plan_id"); !slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Attribute.Equal(at) }) {
			t.Errorf("%s: no error on plan_id, where the CLI shows the configured value:\n%s", row.planID, prototest.DiagText(diags))
		}
		if !saved.IsNull() {
			t.Errorf("%s: a refused create answered a state to save: %v", row.planID, saved)
		}
	}
	if n := srv.Stats().Subscriptions; n != 0 {
		t.Errorf("the service holds %d subscriptions after only refused creates", n)
	}
}

// A plan refuses a subscription configured with both plans, neither, or
// an inline plan's bad field, before any create. The provider's part of
// such a plan is ValidateResourceConfig, which fails: the rows make that
// call in-process. A required field of the inline plan left out is
// refused by the CLI itself, from the schema, so that case runs through
// the CLI.
func TestAccSubscription_planTimeErrors(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	t.Cleanup(func() {
		if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 0 {
			t.Errorf("plan-time errors sent %d create requests", n)
		}
	})
	h := prototest.NewProtoHarness(t, testServer(), srv)
	planType := h.Type.AttributeTypes["plan"].(tftypes.Object)
	inline := func(coverage string, dataMBs, periodDays int64) map[string]tftypes.Value {
		return map[string]tftypes.Value{"plan": prototest.Object(planType, map[string]tftypes.Value{
			"coverage_id": tftypes.NewValue(tftypes.String, coverage),
			"data_mbs":    tftypes.NewValue(tftypes.Number, dataMBs),
			"period_days": tftypes.NewValue(tftypes.Number, periodDays),
		})}
	}
	both := inline("c", 1, 1)
	both["plan_id"] = tftypes.NewValue(tftypes.String, "plan_001")
	for _, row := range []struct {
		name  string
		attrs map[string]tftypes.Value
		want  string
	}{
		{"both", both, `(?s)Invalid Attribute Combination.*Exactly one of these attributes must be configured: \[plan_id,plan\]`},
		{"neither", nil, `(?s)Missing Attribute Configuration.*Exactly one of these attributes must be configured: \[plan_id,plan\]`},
		{"empty id", map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "")}, `(?s)plan_id.*string length must be at least 1`},
		{"zero data", inline("c", 0, 1), `(?s)data_mbs.*value must be at least 1`},
		{"negative days", inline("c", 1, -3), `(?s)period_days.*value must be at least 1`},
		{"empty coverage", inline("", 1, 1), `(?s)coverage_id.*string length must be at least 1`},
	} {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			resp, err := h.Server.ValidateResourceConfig(t.Context(), &tfprotov6.ValidateResourceConfigRequest{
				TypeName: prototest.SubscriptionType,
				Config:   h.DV(t, h.Object(row.attrs)),
			})
			if err != nil {
				t.Fatal(err)
			}
			expectErrorMatching(t, resp.Diagnostics, row.want)
		})
	}
	t.Run("missing field", func(t *testing.T) {
		t.Parallel()
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t),
			Steps: []resource.TestStep{{
				Config:      withProvider(srv, "resource \"mobileplan_subscription\" \"test\" {\n"+`plan = { coverage_id = "c", data_mbs = 1 }`+"\n}"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)period_days.*required`),
			}},
		})
	})
}

func TestAccSubscription_goneAtServiceIsRecreated(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := withProvider(srv, `resource "mobileplan_subscription" "test" { plan_id = "plan_002" }`)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() { resetService(t, srv) }, // the service forgets every subscription
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subAddr, at("id"), knownvalue.StringRegexp(subscriptionID)),
				},
			},
		},
	})
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("after re-creation the service holds %d subscriptions, want 1", n)
	}
}

// Each change of what a subscription is bought from replaces it: a
// plan_id for another, a plan_id for an inline plan, an inline plan's
// attribute. The three changes are three subscriptions changed in one step.
func TestAccSubscription_changeReplaces(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	const (
		planIDChanged = "mobileplan_subscription.plan_id_changed"
		madeInline    = "mobileplan_subscription.made_inline"
		inlineChanged = "mobileplan_subscription.inline_changed"
	)
	config := func(planIDChangedTo, madeInlineBody, inlineDataMBs string) string {
		return withProvider(srv, fmt.Sprintf(`
resource "mobileplan_subscription" "plan_id_changed" { plan_id = %q }
resource "mobileplan_subscription" "made_inline" { %s }
resource "mobileplan_subscription" "inline_changed" {
  plan = { coverage_id = "cov-am", data_mbs = %s, period_days = 3 }
}`, planIDChangedTo, madeInlineBody, inlineDataMBs))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: config("plan_001", `plan_id = "plan_002"`, "100")},
			{
				// made_inline's inline plan differs from the one
				// inline_changed leaves, so that no create here matches a
				// subscription the same apply forgets.
				Config: config("plan_002", `plan = { coverage_id = "cov-am", data_mbs = 150, period_days = 3 }`, "200"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(planIDChanged, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectUnknownValue(planIDChanged, at("id")),
						plancheck.ExpectResourceAction(madeInline, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectUnknownValue(madeInline, at("plan_id")),
						plancheck.ExpectResourceAction(inlineChanged, plancheck.ResourceActionDestroyBeforeCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(planIDChanged, at("plan_id"), knownvalue.StringExact("plan_002")),
				},
			},
		},
	})
	// Nothing is ever deleted at the service: six creates, six subscriptions.
	if n := srv.Stats().Subscriptions; n != 6 {
		t.Errorf("the service holds %d subscriptions, want 6", n)
	}
}

func TestAccSubscription_refreshFollowsService_parity(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := withProvider(srv, `resource "mobileplan_subscription" "test" { plan_id = "plan_001" }`+usageDataSource)
	var id string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subAddr, at("id"), knownvalue.StringFunc(func(v string) error { id = v; return nil })),
				},
			},
			{
				// Activation and usage happen at the service; a refresh
				// brings the activation in, the data source the usage, and
				// the plan stays empty.
				PreConfig: func() {
					if err := srv.RecordUsage(id, 600_000_000); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(subAddr, at("state"), knownvalue.StringExact("active")),
					statecheck.ExpectKnownValue(subAddr, at("activated_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(subAddr, at("expire_at"), knownvalue.NotNull()),
					statecheck.ExpectKnownValue(usageAddr, at("remaining_allowance", "data_bytes"), knownvalue.Int64Exact(1024*1_000_000-600_000_000)),
				},
			},
		},
	})
}
