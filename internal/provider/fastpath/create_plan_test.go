package fastpath_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// frameworkPlans counts the plans a wrapper leaves to the framework.
type frameworkPlans struct {
	protocol.Server
	n int
}

func (f *frameworkPlans) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	f.n++
	return f.Server.PlanResourceChange(ctx, req)
}

// TestCreatePlan_sameAsFramework is the proof of createPlan: the plans of
// creates of every kind (a plan id the service has, labelled or not,
// archived, an addon or missing; unknown; an inline plan, known or in
// part unknown; early_renewal_hours and timeouts set or unknown; random
// configurations of every shape the schema allows), with and without a
// prior identity, one after the other until the account's eSIMs run out,
// get from the wrapper exactly what the framework alone answers,
// preflight findings included, and the wrapper answers each itself.
func TestCreatePlan_sameAsFramework(t *testing.T) {
	t.Parallel()
	dataset := emulator.DefaultDataset(emulator.DefaultPlans, 12)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &dataset})
	framework := prototest.NewProtoHarness(t, providerserver.NewProtocol6(provider.New("test")())(), srv)
	served := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	wrapper := accelerator(t, served.Server)
	counted := &frameworkPlans{Server: *wrapper.Framework()}
	*wrapper.Framework() = counted

	h := served
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	unknown := func(name string) tftypes.Value {
		return tftypes.NewValue(h.Type.AttributeTypes[name], tftypes.UnknownValue)
	}
	planType := h.Type.AttributeTypes["plan"].(tftypes.Object)
	inline := func(coverage, mbs, days tftypes.Value) tftypes.Value {
		return tftypes.NewValue(planType, map[string]tftypes.Value{"coverage_id": coverage, "data_mbs": mbs, "period_days": days})
	}
	timeoutsType := h.Type.AttributeTypes["timeouts"].(tftypes.Object)
	var configs []tftypes.Value
	for _, id := range []string{"plan_004", "plan_001", "plan_002", "plan_007", "plan_010", "plan_999", "plan_004"} {
		configs = append(configs, h.Object(map[string]tftypes.Value{"plan_id": str(id)}))
	}
	configs = append(configs,
		h.Object(map[string]tftypes.Value{"plan_id": unknown("plan_id")}),
		h.Object(map[string]tftypes.Value{"plan": inline(str("cov-eu"), num(1024), num(30))}),
		h.Object(map[string]tftypes.Value{"plan": inline(str("cov-eu"), tftypes.NewValue(tftypes.Number, tftypes.UnknownValue), num(30))}),
		h.Object(map[string]tftypes.Value{"plan": unknown("plan")}),
		h.Object(map[string]tftypes.Value{"plan_id": str("plan_004"), "early_renewal_hours": num(48),
			"timeouts": tftypes.NewValue(timeoutsType, map[string]tftypes.Value{"create": str("2m")})}),
		h.Object(map[string]tftypes.Value{"plan_id": str("plan_004"), "early_renewal_hours": unknown("early_renewal_hours"),
			"timeouts": unknown("timeouts")}),
		h.Object(nil),
	)
	rng := rand.New(rand.NewPCG(36, 1))
	for range 100 {
		if v := prototest.RandomValue(rng, h.Type, true); !v.IsNull() && v.IsKnown() {
			configs = append(configs, v)
		}
	}
	// Enough creates of plan_004 to run the account out of eSIMs, and
	// then the rest again, out of eSIMs.
	for range 12 {
		configs = append(configs, configs[0])
	}
	configs = append(configs, configs[:20]...)

	ctx := context.Background()
	identityType := identityType(t, served.Server)
	identity := tftypes.NewValue(identityType, map[string]tftypes.Value{"id": str("sub_0123456789abcdef")})
	findings := map[string]int{}
	for i, config := range configs {
		req := func(h *prototest.ProtoHarness) *tfprotov6.PlanResourceChangeRequest {
			r := &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType, Config: h.DV(t, config),
				PriorState: h.DV(t, tftypes.NewValue(h.Type, nil)), ProposedNewState: h.DV(t, config)}
			switch i % 3 {
			case 1:
				r.PriorState = nil
			case 2:
				r.PriorIdentity = &tfprotov6.ResourceIdentityData{IdentityData: prototest.DynamicValue(t, identityType, identity)}
			}
			return r
		}
		want, err := framework.Server.PlanResourceChange(ctx, req(framework))
		if err != nil {
			t.Fatal(err)
		}
		before := counted.n
		got, err := served.Server.PlanResourceChange(ctx, req(served))
		if err != nil {
			t.Fatal(err)
		}
		if counted.n != before {
			t.Fatalf("config %d: the wrapper left a create to the framework", i)
		}
		t.Run(fmt.Sprintf("config %d", i), func(t *testing.T) { comparePlans(t, framework, want, got) })
		for _, d := range want.Diagnostics {
			findings[d.Summary]++
		}
	}
	// A proof only if the preflight found what it finds, errors and
	// warnings: a plan it cannot subscribe to, an unknown plan id, too few
	// eSIMs, labelled or not, and the risk of unlabelled creates.
	for _, finding := range []string{"cannot be subscribed to", "Preflight skipped", "Not enough free eSIMs", "Not enough free eSIMs with label", "may take eSIMs"} {
		found := false
		for summary := range findings {
			found = found || strings.Contains(summary, finding)
		}
		if !found {
			t.Errorf("no create found %q: %v", finding, findings)
		}
	}
}

// Each server plans its creates with the configuration its own Terraform
// gave it, as the framework's server does, however many servers one
// factory made: acceptance tests serve every command of a test from one.
func TestCreatePlan_eachServerItsOwnConfiguration(t *testing.T) {
	t.Parallel()
	empty := emulator.DefaultDataset(emulator.DefaultPlans, 0)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &empty})
	factory := provider.NewProtocol6("test")
	checked := prototest.NewProtoHarness(t, factory(), srv)
	settings := prototest.EmulatorSettings(srv)
	settings["preflight"] = "off"
	if _, diags := prototest.ConfigureServer(t, factory(), settings); len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	config := checked.DV(t, checked.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_004")}))
	resp, err := checked.Server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType,
		Config: config, PriorState: checked.DV(t, tftypes.NewValue(checked.Type, nil)), ProposedNewState: config})
	if err != nil {
		t.Fatal(err)
	}
	if text := prototest.DiagText(resp.Diagnostics); !strings.Contains(text, "Not enough free eSIMs") {
		t.Errorf("a server whose preflight is on planned a create with no eSIM left without a finding: %q", text)
	}
}
