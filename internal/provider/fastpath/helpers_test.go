package fastpath_test

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// accelerator is the speed-ups' server in server, the provider as served:
// behind the seam, which unwraps to it.
func accelerator(tb testing.TB, server tfprotov6.ProviderServer) *fastpath.ProtocolServer {
	tb.Helper()
	for {
		switch s := server.(type) {
		case *fastpath.ProtocolServer:
			return s
		case interface {
			Unwrap() tfprotov6.ProviderServer
		}:
			server = s.Unwrap()
		default:
			tb.Fatalf("served %T, with no fastpath server behind it: the fast path is off", server)
			return nil
		}
	}
}

// identityType is the type of mobileplan_subscription's identity, as server
// declares it.
func identityType(tb testing.TB, server tfprotov6.ProviderServer) tftypes.Type {
	tb.Helper()
	resp, err := server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(resp.Diagnostics) > 0 || resp.IdentitySchemas[prototest.SubscriptionType] == nil {
		tb.Fatalf("identity schema: %v %v", err, resp)
	}
	return resp.IdentitySchemas[prototest.SubscriptionType].ValueType()
}

// lifecycleStates are states of subscriptions the service made and changed
// on its own, read through h as Terraform would store them: made from a
// plan id and from an inline plan, ready, active, with data used and
// expired.
func lifecycleStates(t *testing.T, srv *emulatortest.Server, h *prototest.ProtoHarness) []tftypes.Value {
	t.Helper()
	inline := &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 2048, PeriodDays: 30}
	fromID := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"})
	other := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	fromInline := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{Plan: inline})
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	inlineValue := tftypes.NewValue(h.Type.AttributeTypes["plan"], map[string]tftypes.Value{
		"coverage_id": str(inline.CoverageID), "data_mbs": num(inline.DataMBs), "period_days": num(inline.PeriodDays),
	})
	var states []tftypes.Value
	readAll := func() {
		states = append(states,
			h.Read(t, h.Object(map[string]tftypes.Value{"id": str(fromID.ID)})),
			h.Read(t, h.Object(map[string]tftypes.Value{"id": str(other.ID)})),
			h.Read(t, h.Object(map[string]tftypes.Value{"id": str(fromInline.ID), "plan": inlineValue})))
	}
	readAll() // ready
	for _, id := range []string{fromID.ID, fromInline.ID} {
		if err := srv.Activate(id); err != nil {
			t.Fatal(err)
		}
	}
	readAll() // active
	for _, id := range []string{fromID.ID, fromInline.ID} {
		if err := srv.RecordUsage(id, 1_000); err != nil {
			t.Fatal(err)
		}
	}
	readAll() // data used
	if _, err := srv.AdvanceClock(31 * 24 * 3600); err != nil {
		t.Fatal(err)
	}
	readAll() // expired
	seen := map[string]bool{}
	for _, s := range states {
		var attrs map[string]tftypes.Value
		_ = s.As(&attrs)
		var state string
		_ = attrs["state"].As(&state)
		seen[state] = true
	}
	if !seen[client.StateReady] || !seen[client.StateActive] || !seen[client.StateExpired] {
		t.Fatalf("states seen %v, want ready, active and expired", seen)
	}
	return states
}
