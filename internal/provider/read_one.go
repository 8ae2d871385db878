package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// readOne is the Read of every singular data source: take the key from the
// configuration, get the object, and report a missing one by name, attached
// to the key attribute.
func readOne[T, M any](ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse,
	keyAttr, what string, get func(context.Context, string) (*T, error), convert func(*T) (M, diag.Diagnostics)) {
	var key types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(keyAttr), &key)...)
	if resp.Diagnostics.HasError() {
		return
	}
	obj, err := get(ctx, key.ValueString())
	switch {
	case client.IsNotFound(err):
		resp.Diagnostics.AddAttributeError(path.Root(keyAttr), fmt.Sprintf("No %s %q", what, key.ValueString()),
			fmt.Sprintf("The service has no %s with %s %q. Check the value, or list what exists with the plural data source.\n\n%s", what, keyAttr, key.ValueString(), diagnostics.Detail(err)))
		return
	case err != nil:
		resp.Diagnostics.Append(diagnostics.APIError(fmt.Sprintf("Could not read %s %s", what, key.ValueString()), err, path.Empty()))
		return
	}
	model, diags := convert(obj)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
}
