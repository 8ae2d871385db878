package provider

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// A setting known only after apply, through the protocol
// server the CLI talks to: released CLIs allow deferral only in their
// experimental builds, so no CLI test can ask for it.

// connectionSettings are srv's settings, the one named unknown.
func connectionSettings(srv *emulatortest.Server, unknown string) map[string]tftypes.Value {
	values := map[string]tftypes.Value{
		"base_url":  tftypes.NewValue(tftypes.String, srv.URL),
		"api_token": tftypes.NewValue(tftypes.String, srv.Token),
	}
	if unknown != "" {
		values[unknown] = tftypes.NewValue(providerSettingTypes()[unknown], tftypes.UnknownValue)
	}
	return values
}

// providerSettingTypes are the provider block's attributes and their
// types, as the provider serves them: every setting, including one added
// later, is in the deferral tests' tables.
func providerSettingTypes() map[string]tftypes.Type {
	schemas, err := NewProtocol6("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		panic(err)
	}
	return schemas.Provider.ValueType().(tftypes.Object).AttributeTypes
}

// providerSettings are the names of the provider block's attributes, sorted.
func providerSettings() []string {
	return slices.Sorted(maps.Keys(providerSettingTypes()))
}

// configureWith configures a new server of the composition the tests run
// with values, deferral allowed or not, and returns the server, its
// schemas and the answer.
func configureWith(t *testing.T, values map[string]tftypes.Value, deferralAllowed bool) (tfprotov6.ProviderServer, *tfprotov6.GetProviderSchemaResponse, *tfprotov6.ConfigureProviderResponse) {
	t.Helper()
	ctx := context.Background()
	server := testServer()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	config := prototest.ProviderConfig(t, schemas, nil, values)
	validated, err := server.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: config})
	if err != nil || len(validated.Diagnostics) > 0 {
		t.Fatalf("validate: %v %s", err, prototest.DiagText(validated.Diagnostics))
	}
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		Config: config, TerraformVersion: "1.11.4",
		ClientCapabilities: &tfprotov6.ConfigureProviderClientCapabilities{DeferralAllowed: deferralAllowed},
	})
	if err != nil {
		t.Fatal(err)
	}
	return server, schemas, configured
}

// nullObject is a value of typ with every attribute null but those given.
func nullObject(typ tftypes.Object, values map[string]tftypes.Value) tftypes.Value {
	all := map[string]tftypes.Value{}
	for name, attrType := range typ.AttributeTypes {
		all[name] = tftypes.NewValue(attrType, nil)
		if v, ok := values[name]; ok {
			all[name] = v
		}
	}
	return tftypes.NewValue(typ, all)
}

// With deferral allowed and any setting unknown, Configure defers without
// a diagnostic, and every read and plan of the
// provider is deferred for its configuration, with nothing sent to the
// service: a data source's read, a create's plan, the plan of an unchanged
// subscription (which package fastpath answers itself otherwise), the
// refresh of one, and an import.
func TestConfigure_unknownSettingDefersEverything(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, setting := range providerSettings() {
		t.Run(setting, func(t *testing.T) {
			t.Parallel()
			srv := startEmulator(t)
			server, schemas, configured := configureWith(t, connectionSettings(srv, setting), true)
			if len(configured.Diagnostics) > 0 {
				t.Fatalf("configure with %s unknown answered diagnostics:\n%s", setting, prototest.DiagText(configured.Diagnostics))
			}
			want := tfprotov6.DeferredReasonProviderConfigUnknown
			deferred := func(what string, got *tfprotov6.Deferred, diags []*tfprotov6.Diagnostic) {
				t.Helper()
				if len(diags) > 0 {
					t.Errorf("%s answered diagnostics:\n%s", what, prototest.DiagText(diags))
				}
				if got == nil || got.Reason != want {
					t.Errorf("%s: deferred %v, want reason %v", what, got, want)
				}
			}

			read := readPlansDeferralAllowed(ctx, t, server, schemas)
			deferred("read of mobileplan_plans", read.Deferred, read.Diagnostics)

			h := &prototest.ProtoHarness{Server: server, Type: schemas.ResourceSchemas[prototest.SubscriptionType].ValueType().(tftypes.Object)}
			config := h.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_001")})
			state := h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "sub_1"), "plan_id": tftypes.NewValue(tftypes.String, "plan_001")})
			planCaps := &tfprotov6.PlanResourceChangeClientCapabilities{DeferralAllowed: true}
			create, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: prototest.SubscriptionType, Config: h.DV(t, config),
				PriorState: h.DV(t, tftypes.NewValue(h.Type, nil)), ProposedNewState: h.DV(t, config), ClientCapabilities: planCaps,
			})
			if err != nil {
				t.Fatal(err)
			}
			deferred("plan of a create", create.Deferred, create.Diagnostics)
			unchanged, err := server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: prototest.SubscriptionType, Config: h.DV(t, config),
				PriorState: h.DV(t, state), ProposedNewState: h.DV(t, state), ClientCapabilities: planCaps,
			})
			if err != nil {
				t.Fatal(err)
			}
			deferred("plan of an unchanged subscription", unchanged.Deferred, unchanged.Diagnostics)
			refresh, err := server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
				TypeName: prototest.SubscriptionType, CurrentState: h.DV(t, state),
				ClientCapabilities: &tfprotov6.ReadResourceClientCapabilities{DeferralAllowed: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			deferred("refresh", refresh.Deferred, refresh.Diagnostics)
			imported, err := server.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{
				TypeName: prototest.SubscriptionType, ID: "sub_1",
				ClientCapabilities: &tfprotov6.ImportResourceStateClientCapabilities{DeferralAllowed: true},
			})
			if err != nil {
				t.Fatal(err)
			}
			deferred("import", imported.Deferred, imported.Diagnostics)

			expectNoRequests(t, srv, "a provider deferred for its configuration")
		})
	}
}

// The control of the test above: the same calls with every setting known
// reach the service and are not deferred, so the count of requests there
// could see one.
func TestConfigure_knownConnectionDoesNotDefer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := startEmulator(t)
	server, schemas, configured := configureWith(t, connectionSettings(srv, ""), true)
	if len(configured.Diagnostics) > 0 {
		t.Fatalf("configure with every setting known answered diagnostics:\n%s", prototest.DiagText(configured.Diagnostics))
	}
	read := readPlansDeferralAllowed(ctx, t, server, schemas)
	if read.Deferred != nil || len(read.Diagnostics) > 0 {
		t.Errorf("read of mobileplan_plans: deferred %v, diagnostics:\n%s", read.Deferred, prototest.DiagText(read.Diagnostics))
	}
	if len(srv.RequestCounts()) == 0 {
		t.Error("the read sent no request: the deferral test's count would not see one")
	}
}

// Without deferral allowed, as every released CLI runs, an unknown
// setting is an error on that setting (the protocol's answer to Configure
// carries no deferral: the error is what stops the run).
func TestConfigure_unknownSettingWithoutDeferralIsAnError(t *testing.T) {
	t.Parallel()
	for _, setting := range providerSettings() {
		t.Run(setting, func(t *testing.T) {
			t.Parallel()
			srv := startEmulator(t)
			_, _, configured := configureWith(t, connectionSettings(srv, setting), false)
			diags := configured.Diagnostics
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError || diags[0].Summary != "Unknown "+setting ||
				!diags[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName(setting)) {
				t.Fatalf("want one error on %s, got:\n%s", setting, prototest.DiagText(diags))
			}
			expectNoRequests(t, srv, "a provider refused for its configuration")
		})
	}
}

// readPlansDeferralAllowed reads mobileplan_plans, with no filter, from a
// Terraform that allows deferral.
func readPlansDeferralAllowed(ctx context.Context, t *testing.T, server tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse) *tfprotov6.ReadDataSourceResponse {
	t.Helper()
	dsType := schemas.DataSourceSchemas["mobileplan_plans"].ValueType().(tftypes.Object)
	read, err := server.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{
		TypeName: "mobileplan_plans", Config: prototest.DynamicValue(t, dsType, nullObject(dsType, nil)),
		ClientCapabilities: &tfprotov6.ReadDataSourceClientCapabilities{DeferralAllowed: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	return read
}
