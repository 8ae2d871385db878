package fastpath_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The codec's proof, through the provider's own resource: a server whose
// mobileplan_subscription stores and reads its state with States answers
// every Read and Create exactly as the one using the framework's State.Set
// and State.Get, new state and identity alike, on
//   - real subscriptions of the emulator in each stage of their life
//     (ready, active, with data used, expired, from a plan id and inline),
//   - 300 answers of a service with every field of the client's type filled
//     or left out, filled by reflection so that a new field is covered,
//     read from prior states with and without an inline plan and renewal,
//   - and random prior states of every shape the schema allows.
func TestStateCodec_sameStatesAsFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	answers := &fakeService{}
	fake := httptest.NewServer(answers)
	t.Cleanup(fake.Close)
	srv := emulatortest.Start(t, emulator.Options{})

	type pair struct{ framework, codec *prototest.ProtoHarness }
	servers := func(url string) pair {
		settings := map[string]string{"base_url": url, "api_token": emulatortest.Token}
		harness := func(server tfprotov6.ProviderServer) *prototest.ProtoHarness {
			schemas, diags := prototest.ConfigureServer(t, server, settings)
			if len(diags) > 0 {
				t.Fatal(prototest.DiagText(diags))
			}
			return &prototest.ProtoHarness{Server: server, Type: schemas.ResourceSchemas[prototest.SubscriptionType].ValueType().(tftypes.Object)}
		}
		return pair{
			framework: harness(providerserver.NewProtocol6(provider.New("test")())()),
			codec:     harness(provider.NewProtocol6("test")()),
		}
	}
	onEmulator, onFake := servers(srv.URL), servers(fake.URL)
	identity := identityType(t, onFake.framework.Server)

	compare := func(what string, p pair, read func(h *prototest.ProtoHarness) (state, id *tfprotov6.DynamicValue, diags []*tfprotov6.Diagnostic)) {
		t.Helper()
		wantState, wantID, wantDiags := read(p.framework)
		gotState, gotID, gotDiags := read(p.codec)
		if prototest.DiagText(gotDiags) != prototest.DiagText(wantDiags) {
			t.Fatalf("%s: diagnostics\n%s\nwant\n%s", what, prototest.DiagText(gotDiags), prototest.DiagText(wantDiags))
		}
		if len(wantDiags) > 0 {
			return
		}
		if got, want := p.codec.Value(t, gotState), p.framework.Value(t, wantState); !got.Equal(want) {
			t.Fatalf("%s: state\n%s\nwant what State.Set stores\n%s", what, got, want)
		}
		if !bytes.Equal(gotState.MsgPack, wantState.MsgPack) && !hasMap(p.codec.Value(t, gotState)) {
			t.Fatalf("%s: encodings differ", what)
		}
		gotIdentity, err1 := gotID.Unmarshal(identity)
		wantIdentity, err2 := wantID.Unmarshal(identity)
		if err1 != nil || err2 != nil || !gotIdentity.Equal(wantIdentity) {
			t.Fatalf("%s: identity %s, want %s (%v %v)", what, gotIdentity, wantIdentity, err1, err2)
		}
	}
	readOf := func(prior tftypes.Value) func(h *prototest.ProtoHarness) (*tfprotov6.DynamicValue, *tfprotov6.DynamicValue, []*tfprotov6.Diagnostic) {
		return func(h *prototest.ProtoHarness) (*tfprotov6.DynamicValue, *tfprotov6.DynamicValue, []*tfprotov6.Diagnostic) {
			resp, err := h.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: h.DV(t, prior)})
			if err != nil {
				t.Fatal(err)
			}
			return resp.NewState, identityData(resp.NewIdentity), resp.Diagnostics
		}
	}
	createOf := func(planned tftypes.Value) func(h *prototest.ProtoHarness) (*tfprotov6.DynamicValue, *tfprotov6.DynamicValue, []*tfprotov6.Diagnostic) {
		return func(h *prototest.ProtoHarness) (*tfprotov6.DynamicValue, *tfprotov6.DynamicValue, []*tfprotov6.Diagnostic) {
			resp, err := h.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{TypeName: prototest.SubscriptionType,
				PriorState: h.DV(t, tftypes.NewValue(h.Type, nil)), PlannedState: h.DV(t, planned), Config: h.DV(t, planned)})
			if err != nil {
				t.Fatal(err)
			}
			return resp.NewState, identityData(resp.NewIdentity), resp.Diagnostics
		}
	}

	for i, state := range lifecycleStates(t, srv, onEmulator.framework) {
		compare(fmt.Sprintf("real subscription %d", i), onEmulator, readOf(state))
	}

	h := onFake.framework
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	f := prototest.NewFiller(15, 4)
	for i := range 300 {
		var sub client.Subscription
		f.Fill(&sub)
		sub.ID = fmt.Sprintf("sub_%016x", i)
		answers.set(&sub)
		inputs := map[string]tftypes.Value{"id": str(sub.ID), "plan_id": str("plan_004")}
		if f.Rand.IntN(2) == 0 {
			inputs["plan"] = tftypes.NewValue(h.Type.AttributeTypes["plan"], map[string]tftypes.Value{
				"coverage_id": str("cov-eu"), "data_mbs": num(f.Rand.Int64N(1 << 40)), "period_days": num(30)})
			delete(inputs, "plan_id")
		}
		if f.Rand.IntN(2) == 0 {
			inputs["early_renewal_hours"] = num(f.Rand.Int64N(1000))
		}
		compare(fmt.Sprintf("answer %d, read", i), onFake, readOf(h.Object(inputs)))
		planned := map[string]tftypes.Value{}
		for name, typ := range h.Type.AttributeTypes {
			planned[name] = tftypes.NewValue(typ, tftypes.UnknownValue)
		}
		for name, v := range inputs {
			if name != "id" {
				planned[name] = v
			}
		}
		for _, name := range []string{"plan", "plan_id", "early_renewal_hours"} {
			if _, ok := inputs[name]; !ok && name != "plan_id" {
				planned[name] = tftypes.NewValue(h.Type.AttributeTypes[name], nil)
			}
		}
		compare(fmt.Sprintf("answer %d, create", i), onFake, createOf(tftypes.NewValue(h.Type, planned)))
	}

	rng := rand.New(rand.NewPCG(27, 1))
	for i := range 200 {
		prior := prototest.RandomValue(rng, h.Type, false)
		var attrs map[string]tftypes.Value
		if prior.IsNull() || prior.As(&attrs) != nil {
			continue
		}
		attrs["id"] = str(fmt.Sprintf("sub_%016x", i%300))
		compare(fmt.Sprintf("random state %d", i), onFake, readOf(tftypes.NewValue(h.Type, attrs)))
	}
}

func identityData(d *tfprotov6.ResourceIdentityData) *tfprotov6.DynamicValue {
	if d == nil {
		return nil
	}
	return d.IdentityData
}

// hasMap reports whether v holds a map of two entries or more: tftypes
// encodes map entries in Go's map order, so only the values compare.
func hasMap(v tftypes.Value) bool {
	var attrs map[string]tftypes.Value
	if v.As(&attrs) != nil {
		return false
	}
	var m map[string]tftypes.Value
	return attrs["metadata"].As(&m) == nil && len(m) > 1
}

// fakeService answers every GET of a subscription and every create with
// the subscription it was last given.
type fakeService struct {
	mu   sync.Mutex
	body []byte
}

func (f *fakeService) set(sub *client.Subscription) {
	b, err := json.Marshal(sub)
	if err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.body = b
	f.mu.Unlock()
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	body := f.body
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusCreated)
	}
	_, _ = w.Write(body)
}

// States gives what the framework gives on models it cannot map field for
// field (a missing attribute, an extra one, a field of another type, a
// field that is not a framework value, an untagged exported field), and on
// one it can, with embedded structs, and nulls and unknowns at every level.
func TestStates_sameAsFrameworkOnAnyModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema := rschema.Schema{Attributes: map[string]rschema.Attribute{
		"name":  rschema.StringAttribute{Optional: true},
		"count": rschema.Int64Attribute{Optional: true},
		"tags":  rschema.MapAttribute{Optional: true, ElementType: types.StringType},
		"inner": rschema.SingleNestedAttribute{Optional: true, Attributes: map[string]rschema.Attribute{"on": rschema.BoolAttribute{Optional: true}}},
	}}
	innerType := map[string]attr.Type{"on": types.BoolType}
	type base struct {
		Name types.String `tfsdk:"name"`
	}
	type good struct {
		base
		Count types.Int64  `tfsdk:"count"`
		Tags  types.Map    `tfsdk:"tags"`
		Inner types.Object `tfsdk:"inner"`
	}
	type missing struct {
		Name  types.String `tfsdk:"name"`
		Count types.Int64  `tfsdk:"count"`
		Tags  types.Map    `tfsdk:"tags"`
	}
	type extra struct {
		good
		Other types.String `tfsdk:"other"`
	}
	type wrongType struct {
		Name  types.Int64  `tfsdk:"name"`
		Count types.Int64  `tfsdk:"count"`
		Tags  types.Map    `tfsdk:"tags"`
		Inner types.Object `tfsdk:"inner"`
	}
	type plainField struct {
		Name  string       `tfsdk:"name"`
		Count types.Int64  `tfsdk:"count"`
		Tags  types.Map    `tfsdk:"tags"`
		Inner types.Object `tfsdk:"inner"`
	}
	type untagged struct {
		good
		Note string
	}
	values := []good{
		{base{types.StringValue("a")}, types.Int64Value(1), types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringValue("v")}), types.ObjectValueMust(innerType, map[string]attr.Value{"on": types.BoolValue(true)})},
		{base{types.StringNull()}, types.Int64Null(), types.MapNull(types.StringType), types.ObjectNull(innerType)},
		{base{types.StringValue("")}, types.Int64Value(-5), types.MapValueMust(types.StringType, map[string]attr.Value{}), types.ObjectValueMust(innerType, map[string]attr.Value{"on": types.BoolNull()})},
		// A plan's values (Create reads its plan with the codec).
		{base{types.StringUnknown()}, types.Int64Unknown(), types.MapUnknown(types.StringType), types.ObjectUnknown(innerType)},
		{base{types.StringValue("b")}, types.Int64Null(), types.MapUnknown(types.StringType), types.ObjectValueMust(innerType, map[string]attr.Value{"on": types.BoolUnknown()})},
	}
	codec := &fastpath.States{}
	for i, v := range values {
		models := map[string]any{"good": &v, "missing": &missing{v.Name, v.Count, v.Tags}, "extra": &extra{good: v, Other: types.StringValue("x")},
			"wrong type": &wrongType{types.Int64Value(3), v.Count, v.Tags, v.Inner}, "plain field": &plainField{"n", v.Count, v.Tags, v.Inner},
			"untagged": &untagged{good: v, Note: "n"}}
		for name, model := range models {
			want, got := tfsdk.State{Schema: schema}, tfsdk.State{Schema: schema}
			wantDiags, gotDiags := want.Set(ctx, model), codec.Set(ctx, &got, model)
			if wantDiags.HasError() != gotDiags.HasError() || (!wantDiags.HasError() && !got.Raw.Equal(want.Raw)) {
				t.Fatalf("value %d, %s model: Set gave %s %v, the framework %s %v", i, name, got.Raw, gotDiags, want.Raw, wantDiags)
			}
			if wantDiags.HasError() {
				continue
			}
			back := reflect.New(reflect.TypeOf(model).Elem()).Interface()
			fromFramework := reflect.New(reflect.TypeOf(model).Elem()).Interface()
			gotDiags, wantDiags = codec.Get(ctx, want, back), want.Get(ctx, fromFramework)
			if wantDiags.HasError() != gotDiags.HasError() || !reflect.DeepEqual(back, fromFramework) {
				t.Fatalf("value %d, %s model: Get gave %+v %v, the framework %+v %v", i, name, back, gotDiags, fromFramework, wantDiags)
			}
		}
	}
	// The mapping of a model that cannot be mapped is the framework's; of
	// one that can, the codec's own.
	for model, framework := range map[reflect.Type]bool{
		reflect.TypeFor[good](): false, reflect.TypeFor[missing](): true, reflect.TypeFor[extra](): true,
		reflect.TypeFor[wrongType](): true, reflect.TypeFor[plainField](): true, reflect.TypeFor[untagged](): true,
	} {
		if got := codec.LeftToFramework(ctx, schema, model); got != framework {
			t.Errorf("%s: left to the framework %t, want %t", model, got, framework)
		}
	}
}
