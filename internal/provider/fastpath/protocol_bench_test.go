package fastpath_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// BenchmarkProtocol measures, per subscription, the calls a refreshing plan
// and an apply make to the provider process, as Terraform makes them but in
// process: CPU and allocations of the framework and the provider, with the
// in-process emulator's share in read. Run with -benchmem; these numbers do
// not depend on the machine's load the way `make bench`'s wall times do.
func BenchmarkProtocol(b *testing.B) {
	srv := emulatortest.Start(b, emulator.Options{})
	sub := prototest.CreateAt(b, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	server := provider.NewProtocol6("bench")()
	h := prototest.NewProtoHarness(b, server, srv)
	framework := prototest.NewProtoHarness(b, providerserver.NewProtocol6(provider.New("bench")())(), srv).Server
	prior := h.Read(b, h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, sub.ID)}))
	config := h.DV(b, h.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_004")}))
	priorDV := h.DV(b, prior)
	proposedDV := &tfprotov6.DynamicValue{MsgPack: bytes.Clone(priorDV.MsgPack)}
	createPlan := h.DV(b, h.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_004")}))
	ctx := context.Background()
	check := func(b *testing.B, diags []*tfprotov6.Diagnostic, err error) {
		if err != nil || len(diags) > 0 {
			b.Fatalf("%v %s", err, prototest.DiagText(diags))
		}
	}

	// runEach runs call on each server, as the benchmark of its name.
	runEach := func(servers map[string]tfprotov6.ProviderServer, call func(tfprotov6.ProviderServer) ([]*tfprotov6.Diagnostic, error)) {
		for name, server := range servers {
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					diags, err := call(server)
					check(b, diags, err)
				}
			})
		}
	}

	runEach(map[string]tfprotov6.ProviderServer{"validate": server, "validate_framework_only": framework}, func(s tfprotov6.ProviderServer) ([]*tfprotov6.Diagnostic, error) {
		resp, err := s.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: prototest.SubscriptionType, Config: config})
		return resp.Diagnostics, err
	})
	b.Run("upgrade", func(b *testing.B) {
		raw := &tfprotov6.RawState{JSON: prototest.StateJSON(b, prior)}
		// Of the current version, as every plan after the first refresh
		// with this release sends it.
		schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			b.Fatal(err)
		}
		version := schemas.ResourceSchemas[prototest.SubscriptionType].Version
		b.ReportAllocs()
		for b.Loop() {
			resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: prototest.SubscriptionType, Version: version, RawState: raw})
			check(b, resp.Diagnostics, err)
		}
	})
	// The provider without this package, configured like h: the anchor of
	// each speed-up.
	plain := prototest.NewProtoHarness(b, providerserver.NewProtocol6(provider.New("bench")())(), srv).Server
	runEach(map[string]tfprotov6.ProviderServer{"read": server, "read_without_fastpath": plain}, func(s tfprotov6.ProviderServer) ([]*tfprotov6.Diagnostic, error) {
		resp, err := s.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: priorDV})
		return resp.Diagnostics, err
	})
	runEach(map[string]tfprotov6.ProviderServer{"plan_no_change": server, "plan_no_change_framework_only": framework}, func(s tfprotov6.ProviderServer) ([]*tfprotov6.Diagnostic, error) {
		resp, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType,
			Config: config, PriorState: priorDV, ProposedNewState: proposedDV})
		return resp.Diagnostics, err
	})
	// Past the account's eSIMs the preflight finds each create short of
	// one: its diagnostics are part of the answer, on both servers.
	null := h.DV(b, tftypes.NewValue(h.Type, nil))
	runEach(map[string]tfprotov6.ProviderServer{"plan_create": server, "plan_create_framework_only": framework}, func(s tfprotov6.ProviderServer) ([]*tfprotov6.Diagnostic, error) {
		_, err := s.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: prototest.SubscriptionType,
			Config: config, PriorState: null, ProposedNewState: createPlan})
		return nil, err
	})
}
