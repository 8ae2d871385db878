package provider

import (
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The nested objects of a subscription (plan_details, the allowances) are
// each declared once, as a struct of framework values, one field per
// attribute, whose tags say everything about it:
//
//	tfsdk       the attribute's name
//	from        the field of the client's type it shows: the same name in
//	            every client type the object is read from
//	desc        its description (plain text: a struct tag holds no backquote)
//	planDesc    its description among a plan's own attributes, when different
//	default     the number the service means when it leaves the field out
//
// The resource's and the data sources' schema attributes, and the values,
// are all made from that declaration, so a new attribute is one field.

// declaredObject is the object declared by the struct M.
type declaredObject[M any] struct {
	fields    []declaredField
	attrTypes map[string]attr.Type
	// deprecated are the attributes the service deprecates in this object,
	// with the message the schema gives them (DeprecationMessage).
	deprecated map[string]string
	sources    sync.Map // reflect.Type of a client struct -> []int, its field index per field
}

type declaredField struct {
	name, from, desc, planDesc string
	index                      int // in M
	kind                       reflect.Type
	def                        *int64
}

var (
	stringType = reflect.TypeFor[types.String]()
	int64Type  = reflect.TypeFor[types.Int64]()
	boolType   = reflect.TypeFor[types.Bool]()
)

// declare reads M's declaration. A declaration it cannot read is a
// programming error, found by every test: it panics.
func declare[M any](deprecated map[string]string) *declaredObject[M] {
	t := reflect.TypeFor[M]()
	d := &declaredObject[M]{attrTypes: map[string]attr.Type{}, deprecated: deprecated}
	for i := range t.NumField() {
		sf := t.Field(i)
		f := declaredField{name: sf.Tag.Get("tfsdk"), from: sf.Tag.Get("from"), desc: sf.Tag.Get("desc"), planDesc: sf.Tag.Get("planDesc"), index: i, kind: sf.Type}
		if f.name == "" || f.from == "" || f.desc == "" {
			panic(fmt.Sprintf("%s.%s: tfsdk, from and desc are required", t, sf.Name))
		}
		switch sf.Type {
		case stringType:
			d.attrTypes[f.name] = types.StringType
		case int64Type:
			d.attrTypes[f.name] = types.Int64Type
		case boolType:
			d.attrTypes[f.name] = types.BoolType
		default:
			panic(fmt.Sprintf("%s.%s: a %s is not a declared attribute's type", t, sf.Name, sf.Type))
		}
		if s, ok := sf.Tag.Lookup("default"); ok {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || sf.Type != int64Type {
				panic(fmt.Sprintf("%s.%s: default %q needs an Int64 and a number", t, sf.Name, s))
			}
			f.def = &n
		}
		d.fields = append(d.fields, f)
	}
	return d
}

func (d *declaredObject[M]) resourceAttributes() map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(d.fields))
	for _, f := range d.fields {
		dep := d.deprecated[f.name]
		switch f.kind {
		case int64Type:
			out[f.name] = rschema.Int64Attribute{MarkdownDescription: f.desc, Computed: true, DeprecationMessage: dep}
		case boolType:
			out[f.name] = rschema.BoolAttribute{MarkdownDescription: f.desc, Computed: true, DeprecationMessage: dep}
		default:
			out[f.name] = rschema.StringAttribute{MarkdownDescription: f.desc, Computed: true, DeprecationMessage: dep}
		}
	}
	return out
}

// dataSourceAttributes are the attributes as a data source shows them;
// inPlan gives the descriptions they have among a plan's own attributes,
// where the service deprecates nothing. inList leaves the deprecated ones
// unmarked (their descriptions say it): OpenTofu marks the value of a
// deprecated attribute in every item of a list, and then takes time that
// grows with the square of the items to read any of the list (a plan that
// outputs the length of 2,000 subscriptions' ids: 18 CPU-s, 1 without
// the marks; 20,000: over 17 CPU-minutes). Terraform warns of a deprecated
// attribute only where a configuration sets it, which a computed one never
// is.
func (d *declaredObject[M]) dataSourceAttributes(inPlan, inList bool) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(d.fields))
	for _, f := range d.fields {
		desc, dep := f.desc, d.deprecated[f.name]
		if inList {
			dep = ""
		}
		if inPlan {
			dep = ""
			if f.planDesc != "" {
				desc = f.planDesc
			}
		}
		switch f.kind {
		case int64Type:
			out[f.name] = dschema.Int64Attribute{MarkdownDescription: desc, Computed: true, DeprecationMessage: dep}
		case boolType:
			out[f.name] = dschema.BoolAttribute{MarkdownDescription: desc, Computed: true, DeprecationMessage: dep}
		default:
			out[f.name] = dschema.StringAttribute{MarkdownDescription: desc, Computed: true, DeprecationMessage: dep}
		}
	}
	return out
}

// of is the object's model of src, a pointer to a struct of the client's
// types holding every `from` field as a string, int64 or bool, or a pointer
// to one (nil: the default, or null).
func (d *declaredObject[M]) of(src any) M {
	var m M
	sv := reflect.ValueOf(src).Elem()
	mv := reflect.ValueOf(&m).Elem()
	for i, at := range d.sourceIndexes(sv.Type()) {
		f := d.fields[i]
		v := sv.Field(at)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				mv.Field(f.index).Set(reflect.ValueOf(f.null()))
				continue
			}
			v = v.Elem()
		}
		var value attr.Value
		switch v.Kind() {
		case reflect.String:
			value = types.StringValue(v.String())
		case reflect.Int64:
			value = types.Int64Value(v.Int())
		case reflect.Bool:
			value = types.BoolValue(v.Bool())
		}
		mv.Field(f.index).Set(reflect.ValueOf(value))
	}
	return m
}

// null is the field's value when the service leaves it out.
func (f declaredField) null() attr.Value {
	switch {
	case f.def != nil:
		return types.Int64Value(*f.def)
	case f.kind == int64Type:
		return types.Int64Null()
	case f.kind == boolType:
		return types.BoolNull()
	}
	return types.StringNull()
}

// sourceIndexes is where each field's `from` is in t, found once per type.
func (d *declaredObject[M]) sourceIndexes(t reflect.Type) []int {
	if at, ok := d.sources.Load(t); ok {
		return at.([]int)
	}
	at := make([]int, len(d.fields))
	for i, f := range d.fields {
		sf, ok := t.FieldByName(f.from)
		if !ok || len(sf.Index) != 1 {
			panic(fmt.Sprintf("%s has no field %s for %s", t, f.from, f.name))
		}
		at[i] = sf.Index[0]
	}
	d.sources.Store(t, at)
	return at
}

// object is m as the object attribute's value.
func (d *declaredObject[M]) object(m M) types.Object {
	mv := reflect.ValueOf(m)
	attrs := make(map[string]attr.Value, len(d.fields))
	for _, f := range d.fields {
		attrs[f.name] = mv.Field(f.index).Interface().(attr.Value)
	}
	return types.ObjectValueMust(d.attrTypes, attrs)
}

// objectOf is the object attribute's value for src (see of).
func (d *declaredObject[M]) objectOf(src any) types.Object { return d.object(d.of(src)) }
