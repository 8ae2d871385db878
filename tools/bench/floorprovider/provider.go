package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// floorProvider has no configuration: nothing to validate, no client.
type floorProvider struct{}

func newProvider() provider.Provider { return floorProvider{} }

func (floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "floor"
	resp.Version = "bench"
}

func (floorProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Description: "The plugin floor of make bench."}
}

func (floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newFloorResource}
}

func (floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
