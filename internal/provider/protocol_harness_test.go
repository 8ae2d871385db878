package provider

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// protoHarness drives a configured provider through its protocol server, as
// Terraform does, without the CLI: for the benchmarks of the calls every
// resource costs, and for tests comparing two servers call by call.
type protoHarness struct {
	server tfprotov6.ProviderServer
	typ    tftypes.Object // mobileplan_subscription's
}

// newProtoHarness configures server against srv.
func newProtoHarness(tb testing.TB, server tfprotov6.ProviderServer, srv *emulatortest.Server) *protoHarness {
	tb.Helper()
	schemas, diags := configureServer(tb, server, emulatorSettings(srv))
	if len(diags) > 0 {
		tb.Fatalf("configure: %v", diagText(diags))
	}
	return &protoHarness{server: server, typ: schemas.ResourceSchemas[subscriptionType].ValueType().(tftypes.Object)}
}

// providerConfig is a provider block of the schema: the values given, every
// other attribute null, or `others` when set.
func providerConfig(tb testing.TB, schemas *tfprotov6.GetProviderSchemaResponse, others any, values map[string]tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	ptyp := schemas.Provider.ValueType().(tftypes.Object)
	all := map[string]tftypes.Value{}
	for name, attrType := range ptyp.AttributeTypes {
		all[name] = tftypes.NewValue(attrType, others)
		if v, ok := values[name]; ok {
			all[name] = v
		}
	}
	return dynamicValue(tb, ptyp, tftypes.NewValue(ptyp, all))
}

func dynamicValue(tb testing.TB, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		tb.Fatal(err)
	}
	return &dv
}

func (h *protoHarness) dv(tb testing.TB, v tftypes.Value) *tfprotov6.DynamicValue {
	tb.Helper()
	return dynamicValue(tb, h.typ, v)
}

func (h *protoHarness) value(tb testing.TB, dv *tfprotov6.DynamicValue) tftypes.Value {
	tb.Helper()
	if dv == nil {
		return tftypes.NewValue(h.typ, nil)
	}
	v, err := dv.Unmarshal(h.typ)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// object is a subscription value with the given attributes set and every
// other one null.
func (h *protoHarness) object(attrs map[string]tftypes.Value) tftypes.Value {
	values := map[string]tftypes.Value{}
	for name, t := range h.typ.AttributeTypes {
		values[name] = tftypes.NewValue(t, nil)
		if v, ok := attrs[name]; ok {
			values[name] = v
		}
	}
	return tftypes.NewValue(h.typ, values)
}

// read is a ReadResource of prior, returning the new state.
func (h *protoHarness) read(tb testing.TB, prior tftypes.Value) tftypes.Value {
	tb.Helper()
	resp, err := h.server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{TypeName: subscriptionType, CurrentState: h.dv(tb, prior)})
	if err != nil || len(resp.Diagnostics) > 0 {
		tb.Fatalf("read: %v %v", err, diagText(resp.Diagnostics))
	}
	return h.value(tb, resp.NewState)
}

// stateJSON is v as Terraform stores it in a state file, for
// UpgradeResourceState.
func stateJSON(tb testing.TB, v tftypes.Value) []byte {
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
