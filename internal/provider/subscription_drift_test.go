package provider

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Refresh is stable: through the provider server, as Terraform calls it,
// reading a subscription that did not change at the service returns the
// stored state byte for byte, and so does reading it after its eSIM used
// data, since usage is not in the resource. What the service changes on its
// own, once each, does show: activation sets state, activated_at and
// expire_at; expiry sets state. Nothing else changes.
func TestReadResource_refreshChangesOnlyWithTheLifecycle(t *testing.T) {
	t.Parallel()
	inline := &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 2048, PeriodDays: 30}
	for name, req := range map[string]client.CreateSubscriptionRequest{
		"plan_id": {PlanID: "plan_001"},
		"inline":  {Plan: inline},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// An emulator each: the clock moves for all its subscriptions.
			srv := emulatortest.Start(t, emulator.Options{})
			h := prototest.NewProtoHarness(t, testServer(), srv)
			sub := prototest.CreateAt(t, srv, req)
			prior := map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, sub.ID)}
			if req.Plan != nil {
				prior["plan"] = tftypes.NewValue(h.Type.AttributeTypes["plan"], map[string]tftypes.Value{
					"coverage_id": tftypes.NewValue(tftypes.String, inline.CoverageID),
					"data_mbs":    tftypes.NewValue(tftypes.Number, inline.DataMBs),
					"period_days": tftypes.NewValue(tftypes.Number, inline.PeriodDays),
				})
			}
			stored := readRaw(t, h, h.DV(t, h.Object(prior))) // what the apply stored

			unchanged := func(when string) {
				t.Helper()
				if got := readRaw(t, h, stored); !bytes.Equal(got.MsgPack, stored.MsgPack) {
					t.Fatalf("%s: the refreshed state differs from the stored one:\nstored  %s\nrefresh %s", when, h.Value(t, stored), h.Value(t, got))
				}
			}
			changes := func(when string, want ...string) {
				t.Helper()
				got := readRaw(t, h, stored)
				if diff := changedAttributes(t, h, stored, got); !slices.Equal(diff, want) {
					t.Fatalf("%s: attributes changed %v, want %v", when, diff, want)
				}
				stored = got
			}

			unchanged("nothing happened")
			if err := srv.Activate(sub.ID); err != nil {
				t.Fatal(err)
			}
			changes("activated", "activated_at", "expire_at", "state")
			unchanged("after the activation was refreshed")
			for _, n := range []int64{1_000, 500_000_000} {
				if err := srv.RecordUsage(sub.ID, n); err != nil {
					t.Fatal(err)
				}
				unchanged("data used")
			}
			advanceClockPast(t, srv, sub.ID)
			changes("expired", "state")
			unchanged("after the expiry was refreshed")
		})
	}
}

// changedAttributes are the names of the top-level attributes that differ.
func changedAttributes(t *testing.T, h *prototest.ProtoHarness, before, after *tfprotov6.DynamicValue) []string {
	t.Helper()
	var b, a map[string]tftypes.Value
	if err := h.Value(t, before).As(&b); err != nil {
		t.Fatal(err)
	}
	if err := h.Value(t, after).As(&a); err != nil {
		t.Fatal(err)
	}
	var diff []string
	for name, v := range b {
		if !v.Equal(a[name]) {
			diff = append(diff, name)
		}
	}
	slices.Sort(diff)
	return diff
}

// advanceClockPast moves the emulator's clock past the subscription's expiry.
func advanceClockPast(t *testing.T, srv *emulatortest.Server, id string) {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.GetSubscription(context.Background(), id)
	if err != nil || sub.ExpireAt == nil {
		t.Fatalf("subscription %s: %v, expire_at %v", id, err, sub)
	}
	if _, err := srv.AdvanceClock(*sub.ExpireAt - srv.Now() + 1); err != nil {
		t.Fatal(err)
	}
}
