package fastpath_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// payloadKey holds what each request's context carries in these tests,
// as terraform-plugin-go's loggers are carried in Terraform's.
type payloadKey struct{}

// What a provider keeps of 200 requests it has answered (state upgrades,
// as a refresh sends one per instance), each with 64 KB reachable from its
// context: the framework alone keeps all of it until StopProvider; behind
// ReleaseContexts, and as the provider is served, almost nothing. Not
// parallel: it reads the process's live heap.
func TestReleaseContexts_keepsNothingOfAnsweredRequests(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{})
	const requests, payload = 200, 64 << 10
	for _, tc := range []struct {
		name            string
		server          tfprotov6.ProviderServer
		atLeast, atMost uint64 // kept a request, bytes
	}{
		{name: "the framework alone", server: providerserver.NewProtocol6(provider.New("test")())(), atLeast: payload * 9 / 10},
		{name: "behind ReleaseContexts", server: fastpath.ReleaseContexts(providerserver.NewProtocol6(provider.New("test")())()), atMost: 1024},
		{name: "as served", server: provider.NewProtocol6("test")(), atMost: 1024},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := prototest.NewProtoHarness(t, tc.server, srv)
			sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
			raw := &tfprotov6.RawState{JSON: prototest.StateJSON(t, h.Read(t, h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, sub.ID)})))}
			schemas, err := h.Server.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				t.Fatal(err)
			}
			version := schemas.ResourceSchemas[prototest.SubscriptionType].Version
			before := liveHeap()
			for range requests {
				ctx := context.WithValue(t.Context(), payloadKey{}, make([]byte, payload))
				resp, err := h.Server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: prototest.SubscriptionType, Version: version, RawState: raw})
				if err != nil || len(resp.Diagnostics) > 0 {
					t.Fatalf("upgrade: %v %s", err, prototest.DiagText(resp.Diagnostics))
				}
			}
			after := liveHeap()
			kept := uint64(0)
			if after > before {
				kept = (after - before) / requests
			}
			if kept < tc.atLeast || tc.atMost > 0 && kept > tc.atMost {
				t.Errorf("kept %d bytes a request answered; want %d to %d", kept, tc.atLeast, tc.atMost)
			}
			t.Logf("%s: %d bytes kept a request", tc.name, kept)
			runtime.KeepAlive(h)
		})
	}
}

// liveHeap is the heap that a full collection leaves.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
