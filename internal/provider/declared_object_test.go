package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

type declaredSample struct {
	Title types.String `tfsdk:"title" from:"Title" desc:"A title." planDesc:"The plan's title."`
	Count types.Int64  `tfsdk:"count" from:"Count" default:"7" desc:"A count."`
	Size  types.Int64  `tfsdk:"size" from:"Size" desc:"A size."`
	On    types.Bool   `tfsdk:"on" from:"On" desc:"A switch."`
}

// Values come from the client's field of the declared name, pointer or not;
// a nil pointer is the declared default, or null.
func TestDeclaredObject_valuesFromTheNamedFields(t *testing.T) {
	t.Parallel()
	d := declare[declaredSample](map[string]string{"size": "gone soon"})
	title, size := "t", int64(3)
	type pointers struct {
		Title       *string
		Count, Size *int64
		On          bool
	}
	type plain struct {
		On          bool
		Size, Count int64
		Title       string
	}
	for name, c := range map[string]struct {
		src  any
		want declaredSample
	}{
		"pointers set": {&pointers{Title: &title, Count: &size, Size: &size, On: true},
			declaredSample{types.StringValue("t"), types.Int64Value(3), types.Int64Value(3), types.BoolValue(true)}},
		"pointers nil": {&pointers{},
			declaredSample{types.StringNull(), types.Int64Value(7), types.Int64Null(), types.BoolValue(false)}},
		"plain fields": {&plain{On: true, Size: 5, Count: 0, Title: ""},
			declaredSample{types.StringValue(""), types.Int64Value(0), types.Int64Value(5), types.BoolValue(true)}},
	} {
		if got := d.of(c.src); got != c.want {
			t.Errorf("%s: %+v, want %+v", name, got, c.want)
		}
	}
	if a := d.resourceAttributes()["size"]; a.GetDeprecationMessage() != "gone soon" || a.GetMarkdownDescription() != "A size." {
		t.Errorf("resource attribute size: %q %q", a.GetMarkdownDescription(), a.GetDeprecationMessage())
	}
	if a := d.dataSourceAttributes(true, false)["title"]; a.GetMarkdownDescription() != "The plan's title." {
		t.Errorf("a plan's own title: %q", a.GetMarkdownDescription())
	}
	if a := d.dataSourceAttributes(true, false)["size"]; a.GetDeprecationMessage() != "" {
		t.Errorf("a plan's own size is deprecated: %q", a.GetDeprecationMessage())
	}
	if a := d.dataSourceAttributes(false, false)["size"]; a.GetDeprecationMessage() != "gone soon" {
		t.Errorf("one subscription's size is not deprecated: %q", a.GetDeprecationMessage())
	}
	if a := d.dataSourceAttributes(false, true)["size"]; a.GetDeprecationMessage() != "" || a.GetMarkdownDescription() != "A size." {
		t.Errorf("a list item's size: deprecated %q, described %q", a.GetDeprecationMessage(), a.GetMarkdownDescription())
	}
	if o := d.objectOf(&pointers{}); o.IsNull() || len(o.Attributes()) != 4 {
		t.Errorf("object %s", o)
	}
}

// A declaration that says too little, or a client type without the field,
// is a programming error: it panics at once rather than show nulls.
func TestDeclaredObject_badDeclarationsPanic(t *testing.T) {
	t.Parallel()
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	panics("no desc", func() {
		declare[struct {
			A types.String `tfsdk:"a" from:"A"`
		}](nil)
	})
	panics("not a framework value", func() {
		declare[struct {
			A string `tfsdk:"a" from:"A" desc:"x"`
		}](nil)
	})
	panics("default of a string", func() {
		declare[struct {
			A types.String `tfsdk:"a" from:"A" default:"1" desc:"x"`
		}](nil)
	})
	panics("no such field", func() {
		declare[declaredSample](nil).of(&struct{ Title string }{})
	})
}
