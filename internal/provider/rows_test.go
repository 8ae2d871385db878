package provider

import (
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The in-process rows: a case whose subject is what the provider answers
// to a plan, an apply or a read of its own makes the calls a CLI command
// makes, in one provider instance configured as Terraform configures it
// (each command starts an instance of its own), and checks what Terraform
// itself checks of the answers: a plan that keeps the configuration's
// values, an apply that keeps the plan's known values. How a CLI renders
// the answers stays with the CLI tests; so do the refresh and upgrade
// calls before a plan (a row reads first where its case needs it), and
// identity. A CLI validates in an instance it has not configured; the rows
// validate in the configured one, which no validator of this provider
// tells apart.

// rowHarness is a configured provider instance the rows call, with the
// subscription's attributes that the provider may set (Computed), which
// Terraform's proposed new state and its checks read.
type rowHarness struct {
	*prototest.ProtoHarness
	computed map[string]bool
}

// configuredAt is a provider server of the composition the tests run,
// validated and configured as Terraform does against srv (its address and
// token, and settings besides), with its schemas. It reads no environment:
// a MOBILEPLAN_ variable of the shell running the tests changes no row.
func configuredAt(t *testing.T, srv *emulatortest.Server, settings map[string]tftypes.Value) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse) {
	t.Helper()
	server := testServer(withEnvironment(map[string]string{}))
	values := map[string]tftypes.Value{"base_url": text(srv.URL), "api_token": text(srv.Token)}
	maps.Copy(values, settings)
	schemas, diags := prototest.ConfigureServerWith(t, server, values)
	if len(diags) > 0 {
		t.Fatalf("configure: %s", prototest.DiagText(diags))
	}
	return server, schemas
}

// harnessAt is a provider instance configured against srv with settings
// besides its address and token (configuredAt).
func harnessAt(t *testing.T, srv *emulatortest.Server, settings map[string]tftypes.Value) *rowHarness {
	t.Helper()
	server, schemas := configuredAt(t, srv, settings)
	schema := schemas.ResourceSchemas[subscriptionTypeName]
	computed := map[string]bool{}
	for _, a := range schema.Block.Attributes {
		computed[a.Name] = a.Computed
	}
	return &rowHarness{ProtoHarness: &prototest.ProtoHarness{Server: server, Type: schema.ValueType().(tftypes.Object)}, computed: computed}
}

// encode is v as the protocol carries it; a value that does not fit the
// type fails t, without stopping it (rows call it from goroutines).
func (h *rowHarness) encode(t *testing.T, v tftypes.Value) (*tfprotov6.DynamicValue, bool) {
	dv, err := tfprotov6.NewDynamicValue(h.Type, v)
	if err != nil {
		t.Errorf("encoding %v: %v", v, err)
		return nil, false
	}
	return &dv, true
}

// proposed is Terraform's proposed new state for config over prior: the
// configuration's value of each attribute, but the prior value of a
// computed one the configuration leaves null; for a create, the
// configuration itself.
func (h *rowHarness) proposed(config, prior tftypes.Value) tftypes.Value {
	if prior.IsNull() || config.IsNull() {
		return config
	}
	var c, p map[string]tftypes.Value
	if config.As(&c) != nil || prior.As(&p) != nil {
		return config
	}
	out := maps.Clone(c)
	for name, v := range c {
		if v.IsNull() && h.computed[name] {
			out[name] = p[name]
		}
	}
	return tftypes.NewValue(h.Type, out)
}

// planIn plans a subscription as a CLI command does in h: first
// ValidateResourceConfig of the configuration attrs (every other attribute
// null), then, when that finds no error, PlanResourceChange. A null prior
// is a create; a prior state (as refreshed) is planned with the
// configuration attrs over it; nil attrs with a prior state is its
// destroy. Terraform's check of the answer is made too: a planned value
// that is not the configuration's where the configuration sets it, or
// where the provider may not set it, fails t ("Provider produced invalid
// plan"). It returns every diagnostic of both calls with the plan's answer.
func planIn(t *testing.T, h *rowHarness, prior tftypes.Value, attrs map[string]tftypes.Value) *tfprotov6.PlanResourceChangeResponse {
	t.Helper()
	config := tftypes.NewValue(h.Type, nil)
	var validated []*tfprotov6.Diagnostic
	if attrs != nil {
		config = h.Object(attrs)
		dv, ok := h.encode(t, config)
		if !ok {
			return &tfprotov6.PlanResourceChangeResponse{}
		}
		resp, err := h.Server.ValidateResourceConfig(t.Context(), &tfprotov6.ValidateResourceConfigRequest{TypeName: subscriptionTypeName, Config: dv})
		if err != nil {
			t.Error(err)
			return &tfprotov6.PlanResourceChangeResponse{}
		}
		if validated = resp.Diagnostics; hasErrors(validated) {
			return &tfprotov6.PlanResourceChangeResponse{Diagnostics: validated}
		}
	}
	configDV, ok1 := h.encode(t, config)
	priorDV, ok2 := h.encode(t, prior)
	proposedDV, ok3 := h.encode(t, h.proposed(config, prior))
	if !ok1 || !ok2 || !ok3 {
		return &tfprotov6.PlanResourceChangeResponse{}
	}
	planned, err := h.Server.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: subscriptionTypeName, Config: configDV, PriorState: priorDV, ProposedNewState: proposedDV,
	})
	if err != nil {
		t.Error(err)
		return &tfprotov6.PlanResourceChangeResponse{}
	}
	planned.Diagnostics = slices.Concat(validated, planned.Diagnostics)
	if !hasErrors(planned.Diagnostics) && planned.PlannedState != nil && !config.IsNull() {
		h.checkKeeps(t, "planned", config, planned.PlannedState, func(name string, v tftypes.Value) bool { return !v.IsNull() || !h.computed[name] })
	}
	return planned
}

// createIn makes the calls of a `terraform apply` that creates a
// subscription with attrs in h: the plan Terraform makes again before it
// applies (planIn), then, when that finds no error, ApplyResourceChange of
// the planned state. (The `terraform plan` before it, in an instance of
// its own, is planIn's or planCreates'.) Terraform's check of the answer
// is made too: a value the plan knew and the apply changed fails t
// ("Provider produced inconsistent result after apply"). It returns every
// diagnostic, and the state the apply answered, which Terraform would
// save (null when none).
func createIn(t *testing.T, h *rowHarness, attrs map[string]tftypes.Value) ([]*tfprotov6.Diagnostic, tftypes.Value) {
	t.Helper()
	none := tftypes.NewValue(h.Type, nil)
	planned := planIn(t, h, none, attrs)
	if hasErrors(planned.Diagnostics) || planned.PlannedState == nil {
		return planned.Diagnostics, none
	}
	applied, err := h.Server.ApplyResourceChange(t.Context(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: subscriptionTypeName, Config: h.DV(t, h.Object(attrs)), PriorState: h.DV(t, none), PlannedState: planned.PlannedState, PlannedPrivate: planned.PlannedPrivate,
	})
	if err != nil {
		t.Fatal(err)
	}
	diags := slices.Concat(planned.Diagnostics, applied.Diagnostics)
	state := h.Value(t, applied.NewState)
	if !hasErrors(diags) && !state.IsNull() {
		h.checkKeeps(t, "applied", h.Value(t, planned.PlannedState), applied.NewState, func(_ string, v tftypes.Value) bool { return v.IsFullyKnown() })
	}
	return diags, state
}

// checkKeeps fails t unless each attribute of want that keep selects has
// the same value in got.
func (h *rowHarness) checkKeeps(t *testing.T, what string, want tftypes.Value, got *tfprotov6.DynamicValue, keep func(name string, v tftypes.Value) bool) {
	t.Helper()
	gotValue, err := got.Unmarshal(h.Type)
	if err != nil {
		t.Errorf("%s state: %v", what, err)
		return
	}
	checkKept(t, what, want, gotValue, keep)
}

// checkKept fails t unless each attribute of want that keep selects has
// the same value in got, both objects.
func checkKept(t *testing.T, what string, want, got tftypes.Value, keep func(name string, v tftypes.Value) bool) {
	t.Helper()
	var w, g map[string]tftypes.Value
	if want.As(&w) != nil || got.As(&g) != nil {
		t.Errorf("%s state is no object: %v", what, got)
		return
	}
	for name, v := range w {
		if keep(name, v) && !g[name].Equal(v) {
			t.Errorf("the %s value of %s is %v, not %v: Terraform would refuse it", what, name, g[name], v)
		}
	}
}

// readData plans a data source as Terraform does, in one provider instance
// configured against srv (its address and token, and settings besides):
// ValidateDataResourceConfig, then, when that finds no error,
// ReadDataSource. Terraform's check of the answer is made too: a value the
// configuration sets that the answer does not keep fails t. It returns
// every diagnostic, and the data source's value (null when it was not
// read).
func readData(t *testing.T, srv *emulatortest.Server, settings map[string]tftypes.Value, typeName string, attrs map[string]tftypes.Value) ([]*tfprotov6.Diagnostic, tftypes.Value) {
	t.Helper()
	server, schemas := configuredAt(t, srv, settings)
	typ := schemas.DataSourceSchemas[typeName].ValueType().(tftypes.Object)
	configValue := prototest.Object(typ, attrs)
	config := prototest.DynamicValue(t, typ, configValue)
	validated, err := server.ValidateDataResourceConfig(t.Context(), &tfprotov6.ValidateDataResourceConfigRequest{TypeName: typeName, Config: config})
	if err != nil {
		t.Fatal(err)
	}
	if hasErrors(validated.Diagnostics) {
		return validated.Diagnostics, tftypes.NewValue(typ, nil)
	}
	read := readList(t, server, schemas, typeName, attrs)
	diags := slices.Concat(validated.Diagnostics, read.Diagnostics)
	if read.State == nil {
		return diags, tftypes.NewValue(typ, nil)
	}
	value, err := read.State.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !hasErrors(diags) {
		checkKept(t, typeName+" read", configValue, value, func(name string, _ tftypes.Value) bool { _, set := attrs[name]; return set })
	}
	return diags, value
}

// expectEmptyPlan fails t unless the plan of prior (as refreshed) with the
// configuration attrs, in h, is empty: no diagnostic, nothing to replace,
// the planned state the prior one.
func expectEmptyPlan(t *testing.T, h *rowHarness, prior tftypes.Value, attrs map[string]tftypes.Value) {
	t.Helper()
	planned := planIn(t, h, prior, attrs)
	if plannedState := h.Value(t, planned.PlannedState); len(planned.Diagnostics) > 0 || len(planned.RequiresReplace) > 0 || !plannedState.Equal(prior) {
		t.Errorf("the plan is not empty: %s replacing %v\nplanned %v\nprior   %v", prototest.DiagText(planned.Diagnostics), planned.RequiresReplace, plannedState, prior)
	}
}
