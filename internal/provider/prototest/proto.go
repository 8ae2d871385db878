package prototest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// SubscriptionType is the resource type ProtoHarness speaks of.
const SubscriptionType = "mobileplan_subscription"

// ProtoHarness drives a configured provider through its protocol server, as
// Terraform does, without the CLI: for the benchmarks of the calls every
// resource costs, and for tests comparing two servers call by call.
type ProtoHarness struct {
	Server tfprotov6.ProviderServer
	Type   tftypes.Object // mobileplan_subscription's
}

// NewProtoHarness configures server against srv.
func NewProtoHarness(tb testing.TB, server tfprotov6.ProviderServer, srv *emulatortest.Server) *ProtoHarness {
	tb.Helper()
	schemas, diags := ConfigureServer(tb, server, EmulatorSettings(srv))
	if len(diags) > 0 {
		tb.Fatalf("configure: %v", DiagText(diags))
	}
	return &ProtoHarness{Server: server, Type: schemas.ResourceSchemas[SubscriptionType].ValueType().(tftypes.Object)}
}

// ConfigureServer validates and configures a provider server as Terraform
// does, with the given string settings and every other one null. It returns
// the server's schemas and every diagnostic of both calls.
func ConfigureServer(tb testing.TB, server tfprotov6.ProviderServer, settings map[string]string) (*tfprotov6.GetProviderSchemaResponse, []*tfprotov6.Diagnostic) {
	tb.Helper()
	values := map[string]tftypes.Value{}
	for name, v := range settings {
		values[name] = tftypes.NewValue(tftypes.String, v)
	}
	return ConfigureServerWith(tb, server, values)
}

// ConfigureServerWith is ConfigureServer with settings of any type.
func ConfigureServerWith(tb testing.TB, server tfprotov6.ProviderServer, values map[string]tftypes.Value) (*tfprotov6.GetProviderSchemaResponse, []*tfprotov6.Diagnostic) {
	tb.Helper()
	ctx := context.Background()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	config := ProviderConfig(tb, schemas, nil, values)
	validated, err := server.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: config})
	if err != nil {
		tb.Fatal(err)
	}
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: config, TerraformVersion: "1.11.4"})
	if err != nil {
		tb.Fatal(err)
	}
	return schemas, append(validated.Diagnostics, configured.Diagnostics...)
}

// EmulatorSettings are the provider settings that reach srv.
func EmulatorSettings(srv *emulatortest.Server) map[string]string {
	return map[string]string{"base_url": srv.URL, "api_token": srv.Token}
}

// DiagText is diagnostics as a test failure shows them.
func DiagText(diags []*tfprotov6.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "[%v] %s: %s (at %v)\n", d.Severity, d.Summary, d.Detail, d.Attribute)
	}
	return b.String()
}

// ProviderConfig is a provider block of the schema: the values given, every
// other attribute null, or `others` when set.
func ProviderConfig(tb testing.TB, schemas *tfprotov6.GetProviderSchemaResponse, others any, values map[string]tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	ptyp := schemas.Provider.ValueType().(tftypes.Object)
	all := map[string]tftypes.Value{}
	for name, attrType := range ptyp.AttributeTypes {
		all[name] = tftypes.NewValue(attrType, others)
		if v, ok := values[name]; ok {
			all[name] = v
		}
	}
	return DynamicValue(tb, ptyp, tftypes.NewValue(ptyp, all))
}

// DynamicValue is v of typ as the protocol carries it.
func DynamicValue(tb testing.TB, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		tb.Fatal(err)
	}
	return &dv
}

// DV is a subscription value as the protocol carries it.
func (h *ProtoHarness) DV(tb testing.TB, v tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	return DynamicValue(tb, h.Type, v)
}

// Value is a subscription value the protocol carried; null for nil.
func (h *ProtoHarness) Value(tb testing.TB, dv *tfprotov6.DynamicValue) tftypes.Value {
	tb.Helper()
	if dv == nil {
		return tftypes.NewValue(h.Type, nil)
	}
	v, err := dv.Unmarshal(h.Type)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// Object is a subscription value with the given attributes set and every
// other one null.
func (h *ProtoHarness) Object(attrs map[string]tftypes.Value) tftypes.Value {
	return Object(h.Type, attrs)
}

// Object is a value of typ with the given attributes set and every other
// one null.
func Object(typ tftypes.Object, attrs map[string]tftypes.Value) tftypes.Value {
	values := map[string]tftypes.Value{}
	for name, t := range typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
		if v, ok := attrs[name]; ok {
			values[name] = v
		}
	}
	return tftypes.NewValue(typ, values)
}

// Read is a ReadResource of prior, returning the new state.
func (h *ProtoHarness) Read(tb testing.TB, prior tftypes.Value) tftypes.Value {
	tb.Helper()
	resp, err := h.Server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: SubscriptionType, CurrentState: h.DV(tb, prior)})
	if err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("read: %v %v", err, DiagText(resp.Diagnostics))
	}
	return h.Value(tb, resp.NewState)
}

// StateJSON is v as Terraform stores it in a state file, for
// UpgradeResourceState.
func StateJSON(tb testing.TB, v tftypes.Value) []byte {
	tb.Helper()
	b, err := json.Marshal(plainValue(tb, v))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func plainValue(tb testing.TB, v tftypes.Value) any {
	tb.Helper()
	if v.IsNull() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return s
	case v.Type().Is(tftypes.Number):
		var n big.Float
		_ = v.As(&n)
		i, _ := n.Int64()
		return i
	case v.Type().Is(tftypes.Bool):
		var b bool
		_ = v.As(&b)
		return b
	}
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		tb.Fatalf("plainValue: %s: %v", v.Type(), err)
	}
	out := map[string]any{}
	for k, e := range m {
		out[k] = plainValue(tb, e)
	}
	return out
}
