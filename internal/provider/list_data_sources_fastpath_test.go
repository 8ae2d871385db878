package provider

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// readList is a ReadDataSource of the list data source name through
// server, already configured against its service, with the filters given
// and every other attribute null.
func readList(t testing.TB, server tfprotov6.ProviderServer, schemas *tfprotov6.GetProviderSchemaResponse, name string, filters map[string]tftypes.Value) *tfprotov6.ReadDataSourceResponse {
	t.Helper()
	typ := schemas.DataSourceSchemas[name].ValueType().(tftypes.Object)
	resp, err := server.ReadDataSource(context.Background(), &tfprotov6.ReadDataSourceRequest{TypeName: name, Config: prototest.DynamicValue(t, typ, prototest.Object(typ, filters))})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// listedItems is the list attribute items of resp, a ReadDataSource
// answer of the list data source name.
func listedItems(t testing.TB, schemas *tfprotov6.GetProviderSchemaResponse, name, items string, resp *tfprotov6.ReadDataSourceResponse) []tftypes.Value {
	t.Helper()
	value, err := resp.State.Unmarshal(schemas.DataSourceSchemas[name].ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	var list []tftypes.Value
	if err := value.As(&attrs); err != nil || attrs[items].As(&list) != nil {
		t.Fatalf("%s: cannot read %s: %v", name, items, err)
	}
	return list
}

// The list data sources answer the same bytes with the speed-up that
// writes their items (fastpath.EncodeLists) as through the framework
// alone: every list, filtered or not, cut by max_items or not, over
// subscriptions ready, active with data used, expired and of inline plans,
// eSIMs with and without labels and subscriptions, and plans of every kind.
func TestListDataSources_sameAnswerWithAndWithoutFastpath(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	inline := prototest.CreateAt(t, f.srv, client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 2048, PeriodDays: 30}})
	for _, id := range []string{f.subIDs[0], f.subIDs[1], inline.ID} {
		if err := f.srv.Activate(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.srv.RecordUsage(f.subIDs[1], 1_000_000); err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.AdvanceClock(8 * 24 * 3600); err != nil { // the 7-day plans expire
		t.Fatal(err)
	}
	fast, plain := NewProtocol6("test")(), NewProtocol6("test", withoutSpeedUps())()
	schemas, diags := prototest.ConfigureServer(t, fast, prototest.EmulatorSettings(f.srv))
	if _, more := prototest.ConfigureServer(t, plain, prototest.EmulatorSettings(f.srv)); len(diags)+len(more) > 0 {
		t.Fatalf("configure: %s%s", prototest.DiagText(diags), prototest.DiagText(more))
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	for _, c := range []struct {
		name, items string
		filters     map[string]tftypes.Value
	}{
		{"mobileplan_subscriptions", "subscriptions", nil},
		{"mobileplan_subscriptions", "subscriptions", map[string]tftypes.Value{"state": str("expired")}},
		{"mobileplan_subscriptions", "subscriptions", map[string]tftypes.Value{"max_items": tftypes.NewValue(tftypes.Number, 7)}},
		{"mobileplan_subscriptions", "subscriptions", map[string]tftypes.Value{"plan_id": str("plan_none")}},
		{"mobileplan_esims", "esims", nil},
		{"mobileplan_esims", "esims", map[string]tftypes.Value{"assigned": tftypes.NewValue(tftypes.Bool, true)}},
		{"mobileplan_plans", "plans", nil},
		{"mobileplan_plans", "plans", map[string]tftypes.Value{"subscribable": tftypes.NewValue(tftypes.Bool, false)}},
	} {
		got, want := readList(t, fast, schemas, c.name, c.filters), readList(t, plain, schemas, c.name, c.filters)
		if len(got.Diagnostics)+len(want.Diagnostics) > 0 || got.State == nil || want.State == nil {
			t.Fatalf("%s %v: diagnostics %s / %s", c.name, c.filters, prototest.DiagText(got.Diagnostics), prototest.DiagText(want.Diagnostics))
		}
		if !bytes.Equal(got.State.MsgPack, want.State.MsgPack) {
			t.Errorf("%s %v: %d bytes with the speed-up, %d through the framework alone", c.name, c.filters, len(got.State.MsgPack), len(want.State.MsgPack))
		}
		t.Logf("%s %v: %d items, %d bytes", c.name, c.filters, len(listedItems(t, schemas, c.name, c.items, got)), len(got.State.MsgPack))
	}
}

// heapPeak runs f and returns the most heap in use while it ran above what
// was in use before, sampled every millisecond.
func heapPeak(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	<-sampled
	return peak - base
}

// Listing 2,000 subscriptions holds little more than the answer: through
// the framework alone its peak was 65 MB (33 KB a subscription, 683 MB at
// 20,000), with the speed-up 10 MB (5 KB, the service's own answers
// included: the emulator runs in this process). Not parallel: the heap is
// this test's alone.
func TestListDataSources_memoryGrowsWithTheAnswer(t *testing.T) {
	const n, perItem = 2000, 10 << 10
	srv := startInventory(t, stock{"", n})
	c := prototest.ServiceClient(t, srv)
	for range n {
		if _, err := c.CreateSubscription(context.Background(), client.CreateSubscriptionRequest{PlanID: "plan_any"}); err != nil {
			t.Fatal(err)
		}
	}
	server := NewProtocol6("test")()
	schemas, diags := prototest.ConfigureServer(t, server, prototest.EmulatorSettings(srv))
	if len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	var resp *tfprotov6.ReadDataSourceResponse
	peak := heapPeak(func() { resp = readList(t, server, schemas, "mobileplan_subscriptions", nil) })
	if len(resp.Diagnostics) > 0 || resp.State == nil {
		t.Fatal(prototest.DiagText(resp.Diagnostics))
	}
	t.Logf("%d subscriptions listed: heap peak %d KB above the start (%d bytes a subscription), an answer of %d KB", n, peak>>10, peak/n, len(resp.State.MsgPack)>>10)
	if peak > n*perItem {
		t.Errorf("listing %d subscriptions held %d MB at its peak, more than %d KB a subscription", n, peak>>20, perItem>>10)
	}
}
