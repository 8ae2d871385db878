package provider

import (
	"context"
	"iter"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// The service has no server-side filters, so every list data source reads
// pages of 25 (the fewest requests the service allows), keeps the items its
// filters match, in the service's order, and stops paging as soon as
// max_items of them are found.

const filterNote = " Filters are applied by the provider while it pages through the whole list, since the service has no server-side filters; `max_items` stops the paging early."

func maxItemsAttribute() dschema.Int64Attribute {
	return dschema.Int64Attribute{
		MarkdownDescription: "Stop once this many matching items are found, without reading further pages. Default: no limit, every page is read.",
		Optional:            true,
		Validators:          []validator.Int64{int64validator.AtLeast(1)},
	}
}

func keysAttribute(desc string) dschema.ListAttribute {
	return dschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
}

// collect reads seq through the filter and limit, and converts what it kept.
func collect[T, M any](seq iter.Seq2[T, error], keep func(T) bool, maxItems types.Int64, convert func(T) (M, diag.Diagnostics)) ([]M, diag.Diagnostics, error) {
	items, err := client.Collect(seq, keep, int(maxItems.ValueInt64()))
	if err != nil {
		return nil, nil, err
	}
	var diags diag.Diagnostics
	out := make([]M, 0, len(items))
	for _, it := range items {
		m, d := convert(it)
		diags.Append(d...)
		out = append(out, m)
	}
	return out, diags, nil
}

// listResult builds the two computed attributes of a list data source: the
// items and their keys.
func listResult[M any](ctx context.Context, itemTypes map[string]attr.Type, items []M, key func(M) types.String) (types.List, types.List, diag.Diagnostics) {
	list, diags := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: itemTypes}, items)
	keys := make([]attr.Value, len(items))
	for i, it := range items {
		keys[i] = key(it)
	}
	keyList, d := types.ListValue(types.StringType, keys)
	diags.Append(d...)
	return list, keyList, diags
}

func listError(what string, err error) diag.Diagnostic {
	return diagnostics.APIError("Could not list "+what, err, path.Empty())
}

// matches reports whether an optional string filter accepts v.
func matches(filter types.String, v *string) bool {
	if filter.IsNull() || filter.IsUnknown() {
		return true
	}
	return v != nil && *v == filter.ValueString()
}
