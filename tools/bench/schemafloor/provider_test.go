package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

var update = flag.Bool("update", false, "rewrite sample.json from the provider's state of a new subscription")

func TestMain(m *testing.M) { os.Exit(acctest.Main(m)) }

// The floor is a fair anchor only with the provider's schema exactly:
// every attribute, nested attribute, block, plan modifier flag and version
// as Terraform sees them, and the same identity.
func TestSchema_sameAsProvider(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	floor := providerserver.NewProtocol6(floorProvider)()
	ours := provider.NewProtocol6("test")()
	floorSchemas, err := floor.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ourSchemas, err := ours.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(floorSchemas.ResourceSchemas) != 1 {
		t.Errorf("the floor has %d resources, want only %s", len(floorSchemas.ResourceSchemas), subscriptionType)
	}
	got, want := floorSchemas.ResourceSchemas[subscriptionType], ourSchemas.ResourceSchemas[subscriptionType]
	if want == nil || !reflect.DeepEqual(got, want) {
		t.Errorf("the floor's %s schema differs from the provider's:\n%s\nwant\n%s", subscriptionType, jsonOf(t, got), jsonOf(t, want))
	}
	floorIDs, err := floor.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ourIDs, err := ours.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := floorIDs.IdentitySchemas[subscriptionType], ourIDs.IdentitySchemas[subscriptionType]; want == nil || !reflect.DeepEqual(got, want) {
		t.Errorf("identity schema %s, want %s", jsonOf(t, got), jsonOf(t, want))
	}
}

// A subscription the floor creates has what the provider stores for a
// new subscription of plan_004: the same attributes set and null, each
// as many bytes in the state file, so that Terraform handles as large a
// state. With -update, the sample is rewritten from the provider's state.
func TestCreate_stateLikeOurs(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	h := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	want := h.Read(t, h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, sub.ID)}))
	if *update {
		var out bytes.Buffer
		if err := json.Indent(&out, prototest.StateJSON(t, want), "", "  "); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("sample.json", append(out.Bytes(), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Skip("sample.json rewritten; run again without -update")
	}

	ctx := context.Background()
	floor := providerserver.NewProtocol6(floorProvider)()
	if _, diags := prototest.ConfigureServer(t, floor, nil); len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	fh := &prototest.ProtoHarness{Server: floor, Type: h.Type}
	config := fh.DV(t, fh.Object(map[string]tftypes.Value{"plan_id": tftypes.NewValue(tftypes.String, "plan_004")}))
	null := fh.DV(t, tftypes.NewValue(h.Type, nil))
	planned, err := floor.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: subscriptionType, PriorState: null, ProposedNewState: config, Config: config,
	})
	if err != nil || len(planned.Diagnostics) > 0 {
		t.Fatalf("plan: %v %s", err, prototest.DiagText(planned.Diagnostics))
	}
	applied, err := floor.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: subscriptionType, PriorState: null, PlannedState: planned.PlannedState, Config: config,
	})
	if err != nil || len(applied.Diagnostics) > 0 {
		t.Fatalf("apply: %v %s", err, prototest.DiagText(applied.Diagnostics))
	}
	sameShape(t, prototest.StateJSON(t, fh.Value(t, applied.NewState)), prototest.StateJSON(t, want))
	if applied.NewIdentity == nil {
		t.Error("no identity")
	}
}

// A subscription the floor imports, by id, reads back with what the
// provider stores for an imported subscription of plan_004: the import
// route of make bench-import costs the CLI as large a state.
func TestImport_stateLikeOurs(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	h := prototest.NewProtoHarness(t, provider.NewProtocol6("test")(), srv)
	want := h.Read(t, h.Object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, sub.ID)}))

	ctx := context.Background()
	floor := providerserver.NewProtocol6(floorProvider)()
	if _, diags := prototest.ConfigureServer(t, floor, nil); len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	fh := &prototest.ProtoHarness{Server: floor, Type: h.Type}
	imported, err := floor.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: subscriptionType, ID: sub.ID})
	if err != nil || len(imported.Diagnostics) > 0 || len(imported.ImportedResources) != 1 {
		t.Fatalf("import: %v %s", err, prototest.DiagText(imported.Diagnostics))
	}
	read, err := floor.ReadResource(ctx, &tfprotov6.ReadResourceRequest{
		TypeName: subscriptionType, CurrentState: imported.ImportedResources[0].State, CurrentIdentity: imported.ImportedResources[0].Identity,
	})
	if err != nil || len(read.Diagnostics) > 0 {
		t.Fatalf("read: %v %s", err, prototest.DiagText(read.Diagnostics))
	}
	got := sameShape(t, prototest.StateJSON(t, fh.Value(t, read.NewState)), prototest.StateJSON(t, want))
	if string(got["id"]) != fmt.Sprintf("%q", sub.ID) {
		t.Errorf("the floor read id %s, want %s", got["id"], sub.ID)
	}
	if read.NewIdentity == nil {
		t.Error("no identity")
	}
}

// sameShape checks that the floor's state has the provider's attributes,
// each as many bytes and null where the provider's is, and returns the
// floor's.
func sameShape(t *testing.T, floorJSON, ourJSON []byte) map[string]json.RawMessage {
	t.Helper()
	var gotAttrs, wantAttrs map[string]json.RawMessage
	mustUnmarshal(t, floorJSON, &gotAttrs)
	mustUnmarshal(t, ourJSON, &wantAttrs)
	for name, w := range wantAttrs {
		if g := gotAttrs[name]; len(g) != len(w) || (string(g) == "null") != (string(w) == "null") {
			t.Errorf("%s: the floor stores %s, the provider %s", name, g, w)
		}
	}
	if len(gotAttrs) != len(wantAttrs) {
		t.Errorf("the floor stores %d attributes, the provider %d", len(gotAttrs), len(wantAttrs))
	}
	return gotAttrs
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// What `make bench` leaves out to measure attributes' cost is left out of
// the schema, and the rest stays the provider's.
func TestSchema_without(t *testing.T) {
	t.Setenv("MOBILEPLAN_FLOOR_WITHOUT", "plan_details,timeouts")
	ctx := context.Background()
	schemas, err := providerserver.NewProtocol6(floorProvider)().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := provider.NewProtocol6("test")().GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(b *tfprotov6.SchemaBlock) map[string]bool {
		out := map[string]bool{}
		for _, a := range b.Attributes {
			out[a.Name] = true
		}
		for _, nb := range b.BlockTypes {
			out[nb.TypeName] = true
		}
		return out
	}
	got := names(schemas.ResourceSchemas[subscriptionType].Block)
	want := names(ours.ResourceSchemas[subscriptionType].Block)
	delete(want, "plan_details")
	delete(want, "timeouts")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("attributes and blocks %v, want %v", got, want)
	}
}
