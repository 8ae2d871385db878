package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// BenchmarkListDataSources lists an account's subscriptions through
// mobileplan_subscriptions, as served (with the speed-up that writes the
// items, fastpath.EncodeLists), through the framework alone, and through
// the same-schema floor: a framework data source of the same schema
// answering the same subscriptions from memory, the least any framework
// provider of this schema pays. peak-MB is the heap's peak above its start
// (the emulator's answers included for the first two: it runs in this
// process).
func BenchmarkListDataSources(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		srv := startInventory(b, stock{"", n})
		c := prototest.ServiceClient(b, srv)
		for range n {
			if _, err := c.CreateSubscription(context.Background(), client.CreateSubscriptionRequest{PlanID: "plan_any"}); err != nil {
				b.Fatal(err)
			}
		}
		for _, route := range []struct {
			name   string
			server func() tfprotov6.ProviderServer
		}{
			{"served", NewProtocol6("test")},
			{"without_fastpath", NewProtocol6("test", withoutSpeedUps())},
			{"floor", func() tfprotov6.ProviderServer { return floorOf(b, c) }}, // its items in memory for its rows alone
		} {
			server := route.server()
			settings := prototest.EmulatorSettings(srv)
			if route.name == "floor" {
				settings = nil
			}
			schemas, diags := prototest.ConfigureServer(b, server, settings)
			if len(diags) > 0 {
				b.Fatal(prototest.DiagText(diags))
			}
			b.Run(fmt.Sprintf("%d/%s", n, route.name), func(b *testing.B) {
				var peak uint64
				for b.Loop() {
					peak = max(peak, heapPeak(func() {
						resp := readList(b, server, schemas, "mobileplan_subscriptions", nil)
						if len(resp.Diagnostics) > 0 || resp.State == nil {
							b.Fatal(prototest.DiagText(resp.Diagnostics))
						}
					}))
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				b.ReportMetric(float64(peak)/float64(n), "peak-B/sub")
			})
		}
	}
}

// floorOf is the same-schema floor's server, answering the subscriptions
// c lists.
func floorOf(b *testing.B, c *client.Client) tfprotov6.ProviderServer {
	b.Helper()
	var state subscriptionsDataSourceModel
	for s, err := range c.Subscriptions(context.Background()) {
		if err != nil {
			b.Fatal(err)
		}
		m, diags := subscriptionItemModelOf(s)
		if diags.HasError() {
			b.Fatal(diags)
		}
		state.Subscriptions = append(state.Subscriptions, m)
		state.IDs = append(state.IDs, s.ID)
	}
	return providerserver.NewProtocol6(&floorProvider{state: state})()
}

type floorProvider struct{ state subscriptionsDataSourceModel }

func (p *floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mobileplan"
}

func (p *floorProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}

func (p *floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *floorProvider) Resources(context.Context) []func() resource.Resource { return nil }

func (p *floorProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{func() datasource.DataSource { return floorDataSource{p} }}
}

// floorDataSource is mobileplan_subscriptions's schema, answering from
// memory through the framework.
type floorDataSource struct{ p *floorProvider }

func (d floorDataSource) Metadata(_ context.Context, _ datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = "mobileplan_subscriptions"
}

func (d floorDataSource) Schema(ctx context.Context, req datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	(&subscriptionsDataSource{}).Schema(ctx, req, resp)
}

func (d floorDataSource) Read(ctx context.Context, _ datasource.ReadRequest, resp *datasource.ReadResponse) {
	state := d.p.state
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}
