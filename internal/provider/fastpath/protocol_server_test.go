package fastpath_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// TestUnchangedPlan_sameAsFramework is the proof of unchangedPlan: on many
// subscriptions, real ones read from the service in each stage of their
// life (ready, active, with data used, expired, made from an inline plan)
// and random ones of every shape the schema allows, with configurations of
// every kind, with and without a prior identity, with and without deferral
// allowed, a plan whose proposed state equals the prior state gets from the
// wrapper exactly what the framework alone answers, private state byte for
// byte, and the wrapper does answer it itself.
func TestUnchangedPlan_sameAsFramework(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	framework := prototest.NewProtoHarness(t, providerserver.NewProtocol6(provider.New("test")())(), srv)
	served := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	wrapper := accelerator(t, served.Server)

	states := lifecycleStates(t, srv, served)
	rng := rand.New(rand.NewPCG(15, 2))
	for len(states) < 200 {
		if v := prototest.RandomValue(rng, served.Type, false); !v.IsNull() {
			states = append(states, v)
		}
	}

	ctx := context.Background()
	identityType := identityType(t, served.Server)
	for i, state := range states {
		configs := []tftypes.Value{
			served.ConfigOf(state),
			prototest.RandomValue(rng, served.Type, true),
			served.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
		}
		var id string
		if attrs := map[string]tftypes.Value{}; state.As(&attrs) == nil && attrs["id"].IsKnown() && !attrs["id"].IsNull() {
			_ = attrs["id"].As(&id)
		}
		identities := []*tftypes.Value{nil}
		for _, v := range []string{id, "sub_other"} {
			identity := tftypes.NewValue(identityType, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, v)})
			identities = append(identities, &identity)
		}
		for j, config := range configs {
			t.Run(fmt.Sprintf("state %d config %d", i, j), func(t *testing.T) {
				for k, identity := range identities {
					// Half the requests allow deferral, alternating.
					deferral := (i+j+k)%2 == 1
					// Terraform encodes both states with cty, which
					// orders map keys; tftypes does not, so the test
					// encodes once.
					req := func(h *prototest.ProtoHarness) *tfprotov6.PlanResourceChangeRequest {
						prior := h.DV(t, state)
						r := &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType, Config: h.DV(t, config),
							PriorState: prior, ProposedNewState: &tfprotov6.DynamicValue{MsgPack: bytes.Clone(prior.MsgPack)},
							ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: deferral}}
						if identity != nil {
							r.PriorIdentity = &tfprotov6.ResourceIdentityData{IdentityData: prototest.DynamicValue(t, identityType, *identity)}
						}
						return r
					}
					if wrapper.RenewalPossible(prototest.SubscriptionType, req(served).PriorState.MsgPack) {
						// Possibly due for renewal: the framework's
						// (TestUnchangedPlan_neverHidesARenewal).
						if _, ok := wrapper.UnchangedPlan(ctx, req(served)); ok {
							t.Fatalf("identity %d: the wrapper answered a plan that may renew", k)
						}
						continue
					}
					want, err := framework.Server.PlanResourceChange(ctx, req(framework))
					if err != nil {
						t.Fatal(err)
					}
					if _, ok := wrapper.UnchangedPlan(ctx, req(served)); !ok {
						t.Fatalf("identity %d deferral %t: the wrapper left an unchanged plan to the framework", k, deferral)
					}
					got, err := served.Server.PlanResourceChange(ctx, req(served))
					if err != nil {
						t.Fatal(err)
					}
					comparePlans(t, framework, want, got)
				}
			})
		}
	}
}

// Plans that change something, create or destroy are the framework's.
func TestUnchangedPlan_leavesEveryOtherPlanToTheFramework(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	h := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	wrapper := accelerator(t, h.Server)
	state := h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "sub_1")})
	other := h.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_other")})
	null := tftypes.NewValue(h.Type, nil)
	for name, c := range map[string]struct {
		prior, proposed tftypes.Value
		private         []byte
	}{
		"change":              {prior: state, proposed: other},
		"create":              {prior: null, proposed: other},
		"destroy":             {prior: state, proposed: null},
		"null both":           {prior: null, proposed: null},
		"with private state":  {prior: state, proposed: state, private: []byte(`{"k":"dg=="}`)},
		"another type's plan": {prior: state, proposed: state},
	} {
		req := &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType, Config: h.DV(t, other),
			PriorState: h.DV(t, c.prior), ProposedNewState: h.DV(t, c.proposed), PriorPrivate: c.private}
		if name == "another type's plan" {
			req.TypeName = "mobileplan_other"
		}
		if _, ok := wrapper.UnchangedPlan(context.Background(), req); ok {
			t.Errorf("%s: answered by the wrapper", name)
		}
	}
}

func comparePlans(t *testing.T, h *prototest.ProtoHarness, want, got *tfprotov6.PlanResourceChangeResponse) {
	t.Helper()
	if w, g := h.Value(t, want.PlannedState), h.Value(t, got.PlannedState); !w.Equal(g) {
		t.Errorf("planned state:\nframework %s\nwrapper   %s", w, g)
	}
	if prototest.DiagText(want.Diagnostics) != prototest.DiagText(got.Diagnostics) {
		t.Errorf("diagnostics:\nframework %s\nwrapper   %s", prototest.DiagText(want.Diagnostics), prototest.DiagText(got.Diagnostics))
	}
	if len(want.RequiresReplace) != 0 || len(got.RequiresReplace) != 0 {
		t.Errorf("requires replace: framework %v, wrapper %v", want.RequiresReplace, got.RequiresReplace)
	}
	if !bytes.Equal(want.PlannedPrivate, got.PlannedPrivate) {
		t.Errorf("private: framework %q, wrapper %q", want.PlannedPrivate, got.PlannedPrivate)
	}
	if !reflect.DeepEqual(want.PlannedIdentity, got.PlannedIdentity) || !reflect.DeepEqual(want.Deferred, got.Deferred) {
		t.Errorf("identity or deferral: framework %v %v, wrapper %v %v", want.PlannedIdentity, want.Deferred, got.PlannedIdentity, got.Deferred)
	}
}

// The wrapper's validation answers what the framework answers, for valid
// and invalid configurations, each asked twice, and it does remember the
// valid ones.
func TestValidateResourceConfig_sameAsFramework(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	framework := prototest.NewProtoHarness(t, providerserver.NewProtocol6(provider.New("test")())(), srv)
	served := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	wrapper := accelerator(t, served.Server)
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	inline := func(cov string, mbs, days int64) tftypes.Value {
		return tftypes.NewValue(served.Type.AttributeTypes["plan"], map[string]tftypes.Value{"coverage_id": str(cov), "data_mbs": num(mbs), "period_days": num(days)})
	}
	configs := []tftypes.Value{
		served.Object(map[string]tftypes.Value{"plan_id": str("plan_004")}),
		served.Object(map[string]tftypes.Value{"plan": inline("cov-eu", 1024, 30)}),
		served.Object(map[string]tftypes.Value{"plan_id": str("")}),
		served.Object(map[string]tftypes.Value{"plan": inline("", 0, 30)}),
		served.Object(map[string]tftypes.Value{"plan_id": str("plan_004"), "plan": inline("cov-eu", 1024, 30)}),
		served.Object(nil),
		served.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
	}
	rng := rand.New(rand.NewPCG(15, 5))
	for range 200 {
		if v := prototest.RandomValue(rng, served.Type, true); !v.IsNull() && v.IsKnown() {
			configs = append(configs, v)
		}
	}
	ctx := context.Background()
	valid := 0
	for i, config := range configs {
		want, err := framework.Server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: prototest.SubscriptionType, Config: framework.DV(t, config)})
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Diagnostics) == 0 {
			valid++
		}
		dv := served.DV(t, config)
		for range 2 {
			got, err := served.Server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: prototest.SubscriptionType, Config: dv})
			if err != nil {
				t.Fatal(err)
			}
			// The framework walks attributes in map order, so its
			// diagnostics come in any order.
			if w, g := sortedDiags(want.Diagnostics), sortedDiags(got.Diagnostics); w != g {
				t.Errorf("config %d:\nframework %s\nwrapper   %s", i, w, g)
			}
		}
	}
	if valid < 3 || wrapper.ValidConfigs() != valid {
		t.Errorf("%d configurations valid, %d remembered", valid, wrapper.ValidConfigs())
	}
}

func sortedDiags(diags []*tfprotov6.Diagnostic) string {
	lines := strings.SplitAfter(prototest.DiagText(diags), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}
