package fastpath

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// States is State.Set and State.Get without the framework's reflection
// over the model on every call. In a refreshing plan the framework's two
// calls in Read were 18% of the provider's CPU time: for each attribute
// they build a path, look its type up in the schema, convert through
// reflection and collect diagnostics. States works out once per model type
// which field holds which attribute, with which type, and then only calls
// each field's ToTerraformValue (Set) or its type's ValueFromTerraform
// (Get), the same conversions the framework ends in.
//
// A model States cannot map field for field onto the schema (a field that
// is not a framework value, a missing or extra attribute, a field of
// another type than the schema's) is the framework's: States then calls
// State.Set or State.Get, so the answer never differs, only its cost.
// TestStates_sameAsFrameworkOnAnyModel and TestStateCodec_sameStatesAsFramework
// compare the two.
//
// A model type is taken to belong to one schema, as a resource's model
// does: the mapping is kept by model type.
//
// Delete States once the framework's State.Get and State.Set work out the
// model's fields once per type instead of reflecting on every call: then
// BenchmarkProtocol's read_without_fastpath costs about what read does.
type States struct {
	mappings sync.Map // reflect.Type -> *modelMapping
}

// modelMapping is which field of a model holds which attribute.
type modelMapping struct {
	typ    tftypes.Object // the schema's
	fields []modelField
	// framework is set when the model does not map field for field onto
	// the schema: its states are the framework's to make.
	framework bool
}

type modelField struct {
	name  string
	index []int
	typ   attr.Type // the schema's
}

// Set stores val, a model or a pointer to one, in state.
func (s *States) Set(ctx context.Context, state *tfsdk.State, val any) diag.Diagnostics {
	v := reflect.Indirect(reflect.ValueOf(val))
	if v.Kind() != reflect.Struct {
		return state.Set(ctx, val)
	}
	m := s.mapping(ctx, state.Schema, v.Type())
	if m.framework {
		return state.Set(ctx, val)
	}
	raw, diags := m.value(ctx, v)
	if diags.HasError() {
		return diags
	}
	state.Raw = raw
	return nil
}

// value is v, a model m maps, as a value of the schema's type.
func (m *modelMapping) value(ctx context.Context, v reflect.Value) (tftypes.Value, diag.Diagnostics) {
	attrs := make(map[string]tftypes.Value, len(m.fields))
	for _, f := range m.fields {
		tv, err := v.FieldByIndex(f.index).Interface().(attr.Value).ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, errorDiags("Could not store "+f.name, err)
		}
		attrs[f.name] = tv
	}
	if err := tftypes.ValidateValue(m.typ, attrs); err != nil {
		return tftypes.Value{}, errorDiags("Could not store the state", err)
	}
	return tftypes.NewValue(m.typ, attrs), nil
}

// Get reads state into target, a pointer to a model.
func (s *States) Get(ctx context.Context, state tfsdk.State, target any) diag.Diagnostics {
	p := reflect.ValueOf(target)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct || state.Raw.IsNull() || !state.Raw.IsKnown() {
		return state.Get(ctx, target)
	}
	v := p.Elem()
	m := s.mapping(ctx, state.Schema, v.Type())
	if m.framework {
		return state.Get(ctx, target)
	}
	var attrs map[string]tftypes.Value
	if err := state.Raw.As(&attrs); err != nil {
		return errorDiags("Could not read the state", err)
	}
	for _, f := range m.fields {
		av, err := f.typ.ValueFromTerraform(ctx, attrs[f.name])
		if err != nil {
			return errorDiags("Could not read "+f.name, err)
		}
		v.FieldByIndex(f.index).Set(reflect.ValueOf(av))
	}
	return nil
}

func errorDiags(summary string, err error) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic(summary, err.Error())}
}

// schemaType is what States needs of a state's schema.
type schemaType interface {
	Type() attr.Type
}

func (s *States) mapping(ctx context.Context, schema schemaType, model reflect.Type) *modelMapping {
	if m, ok := s.mappings.Load(model); ok {
		return m.(*modelMapping)
	}
	m, _ := s.mappings.LoadOrStore(model, newModelMapping(ctx, schema, model))
	return m.(*modelMapping)
}

func newModelMapping(ctx context.Context, schema schemaType, model reflect.Type) *modelMapping {
	objType, ok := schema.Type().(attr.TypeWithAttributeTypes)
	if !ok {
		return &modelMapping{framework: true}
	}
	tfType, ok := schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return &modelMapping{framework: true}
	}
	m := &modelMapping{typ: tfType}
	attrTypes := objType.AttributeTypes()
	if err := m.addFields(ctx, model, nil, attrTypes); err != nil || len(m.fields) != len(attrTypes) {
		return &modelMapping{framework: true}
	}
	return m
}

var attrValueType = reflect.TypeFor[attr.Value]()

// addFields maps the fields of t, a struct at index within the model, and
// of the structs it embeds.
func (m *modelMapping) addFields(ctx context.Context, t reflect.Type, index []int, attrTypes map[string]attr.Type) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		at := append(append([]int{}, index...), i)
		name, tagged := sf.Tag.Lookup("tfsdk")
		switch {
		case !tagged && sf.Anonymous && sf.Type.Kind() == reflect.Struct:
			if err := m.addFields(ctx, sf.Type, at, attrTypes); err != nil {
				return err
			}
			continue
		case !tagged || name == "-":
			if sf.IsExported() {
				return fmt.Errorf("field %s has no tfsdk tag", sf.Name)
			}
			continue
		}
		typ, ok := attrTypes[name]
		if !ok {
			return fmt.Errorf("the schema has no attribute %s", name)
		}
		if !sf.Type.Implements(attrValueType) || reflect.TypeOf(typ.ValueType(ctx)) != sf.Type {
			return fmt.Errorf("field %s is a %s, not the schema's %T", sf.Name, sf.Type, typ.ValueType(ctx))
		}
		m.fields = append(m.fields, modelField{name: name, index: at, typ: typ})
	}
	return nil
}
