package provider

import (
	"context"
	"fmt"
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
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
)

// The service has no server-side filters, so every list data source reads
// pages of 25 (the fewest requests the service allows), keeps the items its
// filters match, in the service's order, and stops paging as soon as
// max_items of them are found.

const filterNote = " Filters are applied by the provider while it pages through the whole list, since the service has no server-side filters; `max_items` stops the paging early."

func maxItemsAttribute() dschema.Int64Attribute {
	return dschema.Int64Attribute{
		MarkdownDescription: fmt.Sprintf("Stop once this many matching items are found, without reading further pages. Default: no limit, every page is read, up to %d pages of %d: a list that has not ended by then, or a page that brings only items already read, is taken as a broken service and reading stops with an error.", client.DefaultMaxPages, client.MaxPageSize),
		Optional:            true,
		Validators:          []validator.Int64{int64validator.AtLeast(1)},
	}
}

func keysAttribute(desc string) dschema.ListAttribute {
	return dschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
}

// itemsAttribute is the list of the items found, each with attrs.
func itemsAttribute(desc string, attrs map[string]dschema.Attribute) dschema.ListNestedAttribute {
	return dschema.ListNestedAttribute{
		MarkdownDescription: desc,
		Computed:            true,
		NestedObject:        dschema.NestedAttributeObject{Attributes: attrs},
	}
}

// listDataSources are the list data sources whose items the speed-up
// writes into their answers (fastpath.EncodeLists): each Read hands them
// over in listing.read.
var listDataSources = []fastpath.List{
	{TypeName: "mobileplan_subscriptions", Attribute: "subscriptions"},
	{TypeName: "mobileplan_esims", Attribute: "esims"},
	{TypeName: "mobileplan_plans", Attribute: "plans"},
}

// itemType is the object type of a list data source's items of attrs.
func itemType(attrs map[string]dschema.Attribute) attr.Type {
	return dschema.NestedAttributeObject{Attributes: attrs}.Type()
}

// listing describes one read of a list data source: the service's items T
// shown as models M, values of itemType.
type listing[T, M any] struct {
	what     string // e.g. "eSIMs", for the error summary
	seq      iter.Seq2[T, error]
	keep     func(T) bool
	maxItems types.Int64
	convert  func(T) (M, diag.Diagnostics)
	key      func(T) string
	itemType attr.Type
}

// read pages through the list, keeps what the filters match up to
// max_items, and returns the two computed attributes of a list data source:
// the items and their keys, both empty (not null) when nothing matched.
// Failures go to diags, with the page that failed. Where the speed-up
// serves the Read (fastpath.EncodeLists), each item goes to it as it is
// converted, and items is empty.
func (l listing[T, M]) read(ctx context.Context, diags *diag.Diagnostics) (items []M, keys []string) {
	found, err := client.Collect(l.seq, l.keep, int(l.maxItems.ValueInt64()))
	if err != nil {
		diags.Append(diagnostics.APIError("Could not list "+l.what, err, path.Empty()))
		return nil, nil
	}
	encoder := fastpath.ItemsOf(ctx)
	if encoder == nil {
		items = make([]M, 0, len(found))
	} else {
		items = []M{}
		encoder.Expect(len(found))
	}
	keys = make([]string, 0, len(found))
	for _, it := range found {
		m, d := l.convert(it)
		diags.Append(d...)
		if encoder == nil {
			items = append(items, m)
		} else {
			diags.Append(encoder.Add(ctx, l.itemType, m)...)
		}
		keys = append(keys, l.key(it))
	}
	return items, keys
}

// matches reports whether an optional string filter accepts v.
func matches(filter types.String, v *string) bool {
	if filter.IsNull() || filter.IsUnknown() {
		return true
	}
	return v != nil && *v == filter.ValueString()
}
