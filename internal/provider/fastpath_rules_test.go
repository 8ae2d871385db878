package provider

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/dynamicplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float32planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int32planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/numberplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The rules package fastpath's plans rest on (its unchangedPlan and
// createPlan), checked on mobileplan_subscription itself: each test here
// fails on a change to the resource that would make the framework's plan
// of an unchanged subscription differ from what the accelerator answers,
// before such a change can reach a user through it.

// keepsStateModifiers are the types of the plan modifiers that, when the
// plan equals the prior state, leave it so: UseStateForUnknown of every
// attribute kind. It changes a value only when the plan's is unknown, and
// then to the state's.
var keepsStateModifiers = func() map[reflect.Type]bool {
	out := map[reflect.Type]bool{}
	for _, m := range []any{
		boolplanmodifier.UseStateForUnknown(), dynamicplanmodifier.UseStateForUnknown(),
		float32planmodifier.UseStateForUnknown(), float64planmodifier.UseStateForUnknown(),
		int32planmodifier.UseStateForUnknown(), int64planmodifier.UseStateForUnknown(),
		listplanmodifier.UseStateForUnknown(), mapplanmodifier.UseStateForUnknown(),
		numberplanmodifier.UseStateForUnknown(), objectplanmodifier.UseStateForUnknown(),
		setplanmodifier.UseStateForUnknown(), stringplanmodifier.UseStateForUnknown(),
	} {
		out[reflect.TypeOf(m)] = true
	}
	return out
}()

// unchangedPlanHazards lists what in s would make the framework's plan of
// an unchanged resource differ from its prior state: a default, a
// write-only attribute, a plan modifier other than UseStateForUnknown, at
// any depth of nested attributes and blocks. It reads the schema by field
// name, so an attribute kind a later framework adds is walked too. A schema
// version and state upgraders are no hazard: Terraform upgrades the state
// before it plans.
func unchangedPlanHazards(s rschema.Schema) []string {
	var out []string
	for _, name := range sortedKeys(s.Attributes) {
		walkPlanHazards(name, reflect.ValueOf(s.Attributes[name]), &out)
	}
	for _, name := range sortedKeys(s.Blocks) {
		walkPlanHazards(name, reflect.ValueOf(s.Blocks[name]), &out)
	}
	return out
}

func walkPlanHazards(at string, v reflect.Value, out *[]string) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		f, name := v.Field(i), v.Type().Field(i).Name
		switch name {
		case "Default":
			if !f.IsNil() {
				*out = append(*out, fmt.Sprintf("%s: has a default (%T)", at, f.Interface()))
			}
		case "WriteOnly":
			if f.Bool() {
				*out = append(*out, at+": is write-only")
			}
		case "PlanModifiers":
			for j := range f.Len() {
				m := f.Index(j)
				if m.IsNil() || !keepsStateModifiers[m.Elem().Type()] {
					*out = append(*out, fmt.Sprintf("%s: plan modifier %s is not UseStateForUnknown", at, m.Elem().Type()))
				}
			}
		case "Attributes", "Blocks":
			keys := f.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				walkPlanHazards(at+"."+k.String(), f.MapIndex(k), out)
			}
		case "NestedObject":
			walkPlanHazards(at, f, out)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func servedSubscriptionSchema(t *testing.T) rschema.Schema {
	t.Helper()
	r := subscriptionResourceAt(t, time.Now)
	var resp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	return resp.Schema
}

// subscriptionResourceAt is mobileplan_subscription as the provider makes
// it, configured by a provider whose clock is now, with a service address
// nothing listens on: a call of the service fails the test with a
// diagnostic.
func subscriptionResourceAt(t *testing.T, now func() time.Time) interface {
	resource.ResourceWithModifyPlan
	resource.ResourceWithIdentity
} {
	t.Helper()
	ctx := context.Background()
	p := New("test", withClock(now))()
	var sresp fwprovider.SchemaResponse
	p.Schema(ctx, fwprovider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	values := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(at, nil)
	}
	values["base_url"] = tftypes.NewValue(tftypes.String, "http://127.0.0.1:1")
	values["api_token"] = tftypes.NewValue(tftypes.String, "no-service")
	var cresp fwprovider.ConfigureResponse
	p.Configure(ctx, fwprovider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, values)}}, &cresp)
	if cresp.Diagnostics.HasError() {
		t.Fatal(cresp.Diagnostics)
	}
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var m resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "mobileplan"}, &m)
		if m.TypeName != subscriptionTypeName {
			continue
		}
		var resp resource.ConfigureResponse
		r.(resource.ResourceWithConfigure).Configure(ctx, resource.ConfigureRequest{ProviderData: cresp.ResourceData}, &resp)
		if resp.Diagnostics.HasError() {
			t.Fatal(resp.Diagnostics)
		}
		return r.(interface {
			resource.ResourceWithModifyPlan
			resource.ResourceWithIdentity
		})
	}
	t.Fatal("the provider has no " + subscriptionTypeName)
	return nil
}

func identitySchemaOf(t *testing.T, r resource.ResourceWithIdentity) identityschema.Schema {
	t.Helper()
	var resp resource.IdentitySchemaResponse
	r.IdentitySchema(context.Background(), resource.IdentitySchemaRequest{}, &resp)
	return resp.IdentitySchema
}

func TestSubscriptionSchema_keepsUnchangedPlansUnchanged(t *testing.T) {
	t.Parallel()
	if hazards := unchangedPlanHazards(servedSubscriptionSchema(t)); len(hazards) > 0 {
		t.Errorf("mobileplan_subscription's schema breaks unchangedPlan's rules; handle these in unchangedPlan or send such plans to the framework:\n%s",
			strings.Join(hazards, "\n"))
	}
}

// The walk finds each hazard, nested too, and passes what is allowed.
func TestUnchangedPlanHazards_findsEachHazard(t *testing.T) {
	t.Parallel()
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	s := rschema.Schema{
		Version: 3, // allowed: upgrades run before the plan
		Attributes: map[string]rschema.Attribute{
			"fine":      rschema.StringAttribute{Computed: true, PlanModifiers: keep},
			"defaulted": rschema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("x")},
			"secret":    rschema.StringAttribute{Optional: true, WriteOnly: true},
			"nested": rschema.SingleNestedAttribute{Computed: true, Attributes: map[string]rschema.Attribute{
				"replaced": rschema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			}},
			"items": rschema.ListNestedAttribute{Optional: true, NestedObject: rschema.NestedAttributeObject{
				Attributes:    map[string]rschema.Attribute{"deep": rschema.StringAttribute{Optional: true, WriteOnly: true}},
				PlanModifiers: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
			}},
		},
		Blocks: map[string]rschema.Block{
			"block": rschema.SingleNestedBlock{Attributes: map[string]rschema.Attribute{
				"inner": rschema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("y")},
			}},
		},
	}
	got := unchangedPlanHazards(s)
	for _, want := range []string{"block.inner: has a default", "defaulted: has a default", "items.deep: is write-only",
		"items: plan modifier", "nested.replaced: plan modifier", "secret: is write-only"} {
		if !slices.ContainsFunc(got, func(h string) bool { return strings.HasPrefix(h, want) }) {
			t.Errorf("no hazard %q in %q", want, got)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d hazards, want 6: %q", len(got), got)
	}
}

// ModifyPlan, given a plan equal to the prior state of a subscription that
// cannot be due for renewal (the states unchangedPlan answers), leaves the
// plan as it is and sets nothing, at any time: no diagnostic, no
// replacement, no deferral, no identity change, no private state (it gets
// none to write to, so a write would be a diagnostic). The resource's
// service is not there: a ModifyPlan that reached for it would fail.
func TestSubscriptionModifyPlan_doesNothingWhenPlanEqualsState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := servedSubscriptionSchema(t)
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	h := &prototest.ProtoHarness{Type: typ}
	identitySchema := identitySchemaOf(t, subscriptionResourceAt(t, time.Now))
	identityType := identitySchema.Type().TerraformType(ctx)
	rng := rand.New(rand.NewPCG(18, 1))
	checked := 0
	for i := 0; checked < 150; i++ {
		state := prototest.RandomValue(rng, typ, false)
		if state.IsNull() || renewalPossible(func(name string) bool { return isSet(state, name) }) {
			continue
		}
		checked++
		identity := tftypes.NewValue(identityType, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, fmt.Sprintf("sub_%d", i))})
		for j, config := range []tftypes.Value{h.ConfigOf(state), prototest.RandomValue(rng, typ, true)} {
			for _, now := range []int64{0, 1 << 50} {
				req := resource.ModifyPlanRequest{
					Config:             tfsdk.Config{Schema: s, Raw: config},
					State:              tfsdk.State{Schema: s, Raw: state},
					Plan:               tfsdk.Plan{Schema: s, Raw: state.Copy()},
					Identity:           &tfsdk.ResourceIdentity{Schema: identitySchema, Raw: identity},
					ClientCapabilities: resource.ModifyPlanClientCapabilities{DeferralAllowed: true},
				}
				resp := resource.ModifyPlanResponse{
					Plan:     tfsdk.Plan{Schema: s, Raw: state.Copy()},
					Identity: &tfsdk.ResourceIdentity{Schema: identitySchema, Raw: identity.Copy()},
				}
				subscriptionResourceAt(t, fixedClock(now)).ModifyPlan(ctx, req, &resp)
				switch {
				case !resp.Plan.Raw.Equal(state):
					t.Fatalf("state %d config %d: plan changed to %s", i, j, resp.Plan.Raw)
				case len(resp.Diagnostics) > 0:
					t.Fatalf("state %d config %d: diagnostics %v", i, j, resp.Diagnostics)
				case len(resp.RequiresReplace) > 0:
					t.Fatalf("state %d config %d: requires replace %v", i, j, resp.RequiresReplace)
				case resp.Deferred != nil:
					t.Fatalf("state %d config %d: deferred %v", i, j, resp.Deferred)
				case resp.Private != nil:
					t.Fatalf("state %d config %d: private state set", i, j)
				case !resp.Identity.Raw.Equal(identity):
					t.Fatalf("state %d config %d: identity changed to %s", i, j, resp.Identity.Raw)
				}
			}
		}
	}
}

func fixedClock(unix int64) func() time.Time { return func() time.Time { return time.Unix(unix, 0) } }

// Time alone makes a subscription due for renewal, so the plan that renews
// it has a prior state equal to its proposed one: the accelerator must
// leave every such plan to the framework. For random states and for states
// due in every way (expired, in the window, at its edge), whenever
// ModifyPlan renews at some time (the second after expire_at, or far in
// the future), the renewal rule the accelerator is given accepts the
// state, and the server the provider serves with that clock plans the
// renewal; ModifyPlan does renew many of them.
func TestUnchangedPlan_neverHidesARenewal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := servedSubscriptionSchema(t)
	typ := s.Type().TerraformType(ctx).(tftypes.Object)
	h := &prototest.ProtoHarness{Type: typ}
	rule := subscriptionSpeedUps(nil, nil).RenewalPossible
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	str := func(v string) tftypes.Value { return tftypes.NewValue(tftypes.String, v) }
	const expireAt = 1_800_000_000
	var states []tftypes.Value
	for _, c := range []struct {
		state string
		hours int64
	}{{"expired", 0}, {"active", 0}, {"active", 24}, {"active", 1 << 40}, {"ready", 5}} {
		states = append(states, h.Object(map[string]tftypes.Value{
			"id": str("sub_due"), "plan_id": str("plan_001"), "state": str(c.state), "expire_at": num(expireAt),
			"early_renewal_hours": num(c.hours), "ready_for_renewal": tftypes.NewValue(tftypes.Bool, false),
		}))
	}
	rng := rand.New(rand.NewPCG(27, 2))
	for len(states) < 400 {
		if v := prototest.RandomValue(rng, typ, false); !v.IsNull() {
			states = append(states, v)
		}
	}
	renewed := 0
	for i, state := range states {
		var attrs map[string]tftypes.Value
		_ = state.As(&attrs)
		clocks := []int64{1 << 50}
		var at int64
		if attrs["expire_at"].IsKnown() && !attrs["expire_at"].IsNull() && attrs["expire_at"].As(&at) == nil {
			clocks = append(clocks, at+1)
		}
		renewsAt := int64(-1)
		for _, now := range clocks {
			req := resource.ModifyPlanRequest{
				Config: tfsdk.Config{Schema: s, Raw: h.ConfigOf(state)},
				State:  tfsdk.State{Schema: s, Raw: state},
				Plan:   tfsdk.Plan{Schema: s, Raw: state.Copy()},
			}
			resp := resource.ModifyPlanResponse{Plan: tfsdk.Plan{Schema: s, Raw: state.Copy()}}
			subscriptionResourceAt(t, fixedClock(now)).ModifyPlan(ctx, req, &resp)
			if len(resp.RequiresReplace) > 0 {
				renewsAt = now
			}
		}
		if renewsAt < 0 {
			continue
		}
		renewed++
		if !rule(func(name string) bool { return isSet(state, name) }) {
			t.Errorf("state %d: the renewal rule refuses a state ModifyPlan renews: %s", i, state)
		}
		server := NewProtocol6("test", withClock(fixedClock(renewsAt)))()
		if _, diags := prototest.ConfigureServer(t, server, map[string]string{"base_url": "http://127.0.0.1:1", "api_token": "no-service"}); len(diags) > 0 {
			t.Fatal(prototest.DiagText(diags))
		}
		served := &prototest.ProtoHarness{Server: server, Type: typ}
		dv := served.DV(t, state)
		resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: subscriptionTypeName,
			Config: served.DV(t, h.ConfigOf(state)), PriorState: dv, ProposedNewState: &tfprotov6.DynamicValue{MsgPack: dv.MsgPack}})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.RequiresReplace) == 0 {
			t.Errorf("state %d: the served plan hides the renewal ModifyPlan makes at %d: %s", i, renewsAt, state)
		}
	}
	if renewed < 50 {
		t.Fatalf("ModifyPlan renewed only %d of %d states; the test would not see a hidden renewal", renewed, len(states))
	}
}

// The provider defers only when Terraform allows it and a connection
// setting is unknown, and then the plan of an unchanged subscription, which
// the accelerator would answer, is deferred by the served server as by the
// framework alone; with the provider block known, neither defers.
func TestProvider_defersUnchangedPlanOnlyWhenConfigureDefers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := servedSubscriptionSchema(t)
	h := &prototest.ProtoHarness{Type: s.Type().TerraformType(ctx).(tftypes.Object)}
	state := h.DV(t, h.Object(map[string]tftypes.Value{
		"id": tftypes.NewValue(tftypes.String, "sub_1"), "plan_id": tftypes.NewValue(tftypes.String, "plan_004"),
	}))
	config := h.DV(t, h.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_004")}))
	servers := map[string]func() tfprotov6.ProviderServer{
		"framework": providerserver.NewProtocol6(New("test")()),
		"served":    NewProtocol6("test"),
	}
	for _, block := range []string{"unknown", "valid"} {
		for name, newServer := range servers {
			server := newServer()
			schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			values := map[string]tftypes.Value{
				"base_url": tftypes.NewValue(tftypes.String, "http://127.0.0.1:1"), "api_token": tftypes.NewValue(tftypes.String, "token"),
			}
			if block == "unknown" {
				values["api_token"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
			}
			configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
				Config:             prototest.ProviderConfig(t, schemas, nil, values),
				ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: true},
			})
			if err != nil || len(configured.Diagnostics) > 0 {
				t.Fatalf("%s, %s provider block: configure: %v %s", name, block, err, prototest.DiagText(configured.Diagnostics))
			}
			resp, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: subscriptionTypeName, Config: config, PriorState: state, ProposedNewState: state,
				ClientCapabilities: &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case block == "valid" && resp.Deferred != nil:
				t.Errorf("%s, valid provider block: the plan of an unchanged subscription is deferred (%s)", name, resp.Deferred.Reason)
			case block == "unknown" && (resp.Deferred == nil || resp.Deferred.Reason != tfprotov6.DeferredReasonProviderConfigUnknown):
				t.Errorf("%s, unknown api_token: the plan of an unchanged subscription is not deferred for the provider configuration: %v", name, resp.Deferred)
			}
		}
	}
}

// Only Configure defers: no other code of the provider names a Deferred
// field. A resource or data source that deferred on its own would make the
// framework's plan differ from unchangedPlan's, which only a deferred
// Configure turns off.
func TestProvider_onlyConfigureDefers(t *testing.T) {
	t.Parallel()
	// The provider's files, whose resources the accelerator answers for.
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal("no provider source found", err)
	}
	fset := token.NewFileSet()
	found := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Deferred") {
				return true
			}
			if filepath.Base(name) == "provider_config.go" {
				found++
				return true
			}
			t.Errorf("%s: %s.%s: a deferral outside Configure makes the framework's plan differ from unchangedPlan's; handle it there first",
				fset.Position(sel.Pos()), exprString(sel.X), sel.Sel.Name)
			return true
		})
	}
	if found == 0 {
		t.Error("provider_config.go names no Deferred field: the test would not see where Configure defers")
	}
}

func exprString(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return fmt.Sprintf("%T", e)
}

// What subscriptionSpeedUps tells the accelerator is what the provider
// serves: the type name is a resource's, and every attribute a renewal
// depends on is one of its attributes, optional or computed, so a state can
// hold it null; the rule wants every one of them set.
func TestSubscriptionSpeedUps_nameWhatTheProviderServes(t *testing.T) {
	t.Parallel()
	contract := subscriptionSpeedUps(nil, nil)
	schemas, err := NewProtocol6("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schema := schemas.ResourceSchemas[contract.TypeName]
	if schema == nil {
		t.Fatalf("no resource %s", contract.TypeName)
	}
	attrs := map[string]*tfprotov6.SchemaAttribute{}
	for _, a := range schema.Block.Attributes {
		attrs[a.Name] = a
	}
	names := contract.RenewalAttributes
	if len(names) == 0 {
		t.Fatal("no attribute decides a renewal")
	}
	for _, name := range names {
		if a := attrs[name]; a == nil || a.Required {
			t.Errorf("%s: %+v, want an attribute of %s that a state may hold null", name, a, contract.TypeName)
		}
	}
	all := func(string) bool { return true }
	if !contract.RenewalPossible(all) {
		t.Error("the renewal rule refuses a state with every attribute set")
	}
	for _, unset := range names {
		if contract.RenewalPossible(func(name string) bool { return name != unset }) {
			t.Errorf("the renewal rule accepts a state without %s", unset)
		}
	}
}
