package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// lookupDataSource is every singular data source (plan_data_source.go,
// esim_data_source.go, subscription_data_source.go): read one object of
// type T by the key attribute and show it as model M. A missing object is
// an error that names it, attached to the key.
type lookupDataSource[T, M any] struct {
	typeSuffix  string // e.g. "_plan"
	what        string // e.g. "plan", for messages
	keyAttr     string // e.g. "id"
	description string
	attributes  map[string]dschema.Attribute
	get         func(ctx context.Context, c *client.Client, key string) (*T, error)
	convert     func(T) (M, diag.Diagnostics)

	baseDataSource
}

func (d *lookupDataSource[T, M]) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + d.typeSuffix
}

func (d *lookupDataSource[T, M]) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{MarkdownDescription: d.description, Attributes: d.attributes}
}

func (d *lookupDataSource[T, M]) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	defer d.run.operation()(&resp.Diagnostics)
	var key types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(d.keyAttr), &key)...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj, err := d.get(ctx, d.client, key.ValueString())
	switch {
	case client.IsNotFound(err):
		resp.Diagnostics.AddAttributeError(path.Root(d.keyAttr), fmt.Sprintf("No %s %q", d.what, key.ValueString()),
			fmt.Sprintf("The service has no %s with %s %q. Check the value, or list what exists with the plural data source.\n\n%s", d.what, d.keyAttr, key.ValueString(), diagnostics.Detail(err)))
		return
	case err != nil:
		resp.Diagnostics.Append(diagnostics.APIError(fmt.Sprintf("Could not read %s %s", d.what, key.ValueString()), err, path.Empty()))
		return
	}
	model, diags := d.convert(*obj)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
