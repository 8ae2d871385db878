package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// The nested objects a subscription carries, plan_details and the two
// allowances, and the `plan` input, are each declared here once: every
// attribute with its description and its value in the client's type. The
// resource's and the data sources' schemas, the Terraform types and the
// values in state are all made from these declarations, so a new attribute
// is one line here.

// attrKind is the Terraform type of a computed attribute.
type attrKind int

const (
	stringAttr attrKind = iota
	int64Attr
	boolAttr
)

// computedAttr is one computed attribute of an object the service fills
// from a T: its name, type, description and value.
type computedAttr[T any] struct {
	name  string
	kind  attrKind
	desc  string
	value func(*T) tftypes.Value
}

// objectShape is an object of computed attributes filled from a T.
type objectShape[T any] struct {
	attrs []computedAttr[T]
	typ   tftypes.Object // its schema's
	// deprecated are the attributes the service deprecates, with the
	// message the schema gives them (DeprecationMessage).
	deprecated map[string]string
}

func newObjectShape[T any](attrs ...computedAttr[T]) *objectShape[T] {
	s := &objectShape[T]{attrs: attrs}
	s.typ = rschema.SingleNestedAttribute{Attributes: s.resourceAttributes()}.GetType().TerraformType(context.Background()).(tftypes.Object)
	return s
}

func (s *objectShape[T]) resourceAttributes() map[string]rschema.Attribute {
	return attributesOf(s, func(a computedAttr[T]) rschema.Attribute {
		dep := s.deprecated[a.name]
		switch a.kind {
		case int64Attr:
			return rschema.Int64Attribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
		case boolAttr:
			return rschema.BoolAttribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
		}
		return rschema.StringAttribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
	})
}

func (s *objectShape[T]) dataSourceAttributes() map[string]dschema.Attribute {
	return attributesOf(s, func(a computedAttr[T]) dschema.Attribute {
		dep := s.deprecated[a.name]
		switch a.kind {
		case int64Attr:
			return dschema.Int64Attribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
		case boolAttr:
			return dschema.BoolAttribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
		}
		return dschema.StringAttribute{MarkdownDescription: a.desc, Computed: true, DeprecationMessage: dep}
	})
}

// attributesOf is the shape's attributes as one kind of schema makes them.
func attributesOf[T, A any](s *objectShape[T], attribute func(computedAttr[T]) A) map[string]A {
	out := make(map[string]A, len(s.attrs))
	for _, a := range s.attrs {
		out[a.name] = attribute(a)
	}
	return out
}

// value is v as the object, a Terraform value of the shape's type.
func (s *objectShape[T]) value(v *T) tftypes.Value {
	attrs := make(map[string]tftypes.Value, len(s.attrs))
	for _, a := range s.attrs {
		attrs[a.name] = a.value(v)
	}
	return tftypes.NewValue(s.typ, attrs)
}

// object is v as the object, a framework value, for models.
func (s *objectShape[T]) object(v *T) (types.Object, error) {
	return objectFromTerraform(s.typ, s.value(v))
}

// objectFromTerraform is v, of type typ, as a framework object value.
func objectFromTerraform(typ tftypes.Object, v tftypes.Value) (types.Object, error) {
	o, err := types.ObjectType{AttrTypes: attrTypesOf(typ)}.ValueFromTerraform(context.Background(), v)
	if err != nil {
		return types.Object{}, err
	}
	return o.(types.Object), nil
}

// attrTypesOf is the framework's attribute types of an object schema's
// Terraform type.
func attrTypesOf(typ tftypes.Object) map[string]attr.Type {
	out := make(map[string]attr.Type, len(typ.AttributeTypes))
	for name, t := range typ.AttributeTypes {
		switch {
		case t.Is(tftypes.String):
			out[name] = types.StringType
		case t.Is(tftypes.Number):
			out[name] = types.Int64Type
		case t.Is(tftypes.Bool):
			out[name] = types.BoolType
		case t.Is(tftypes.Map{ElementType: tftypes.String}):
			out[name] = types.MapType{ElemType: types.StringType}
		case t.Is(tftypes.Object{}):
			out[name] = types.ObjectType{AttrTypes: attrTypesOf(t.(tftypes.Object))}
		default:
			panic("attrTypesOf: no framework type for " + t.String())
		}
	}
	return out
}

// planDetail is one attribute of plan_details, which a plan shows too: its
// value in a subscription's copy of the plan and in the plan itself.
type planDetail struct {
	computedAttr[client.PlanForAttachment]
	inPlan func(*client.Plan) tftypes.Value
	// planDesc replaces desc in the plan's own attributes when set.
	planDesc string
}

// Service defaults of plan fields the answer may leave out.
const (
	defaultPeriodIterations   = 1
	defaultThrottledSpeedKbps = 0
)

var planDetails = []planDetail{
	{computedAttr[client.PlanForAttachment]{"name", stringAttr, "Name of the plan. Deprecated by the service.",
		func(p *client.PlanForAttachment) tftypes.Value { return stringOrNull(p.Name) }},
		func(p *client.Plan) tftypes.Value { return stringValue(p.Name) }, "Name of the plan."},
	{computedAttr[client.PlanForAttachment]{"data_megabytes", int64Attr, "Data allocation in megabytes.",
		func(p *client.PlanForAttachment) tftypes.Value { return numberOrNull(p.DataMegaBytes) }},
		func(p *client.Plan) tftypes.Value { return numberValue(p.DataMegaBytes) }, ""},
	{computedAttr[client.PlanForAttachment]{"period_days", int64Attr, "Validity of one period in days.",
		func(p *client.PlanForAttachment) tftypes.Value { return numberOrNull(p.PeriodDays) }},
		func(p *client.Plan) tftypes.Value { return numberValue(p.PeriodDays) }, ""},
	{computedAttr[client.PlanForAttachment]{"period_iterations", int64Attr, "How many times the period repeats (the service's default is 1).",
		func(p *client.PlanForAttachment) tftypes.Value {
			return numberValue(valueOr(p.PeriodIterations, defaultPeriodIterations))
		}},
		func(p *client.Plan) tftypes.Value {
			return numberValue(valueOr(p.PeriodIterations, defaultPeriodIterations))
		}, ""},
	{computedAttr[client.PlanForAttachment]{"throttled_speed_kbps", int64Attr, "Speed after the data is used up, in kbit/s; 0 means no use is allowed afterwards.",
		func(p *client.PlanForAttachment) tftypes.Value {
			return numberValue(valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps))
		}},
		func(p *client.Plan) tftypes.Value {
			return numberValue(valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps))
		}, ""},
	{computedAttr[client.PlanForAttachment]{"label", stringAttr, "Plan-eSIM compatibility label; null when the plan has none.",
		func(p *client.PlanForAttachment) tftypes.Value { return stringOrNull(p.Label) }},
		func(p *client.Plan) tftypes.Value { return stringOrNull(p.Label) }, ""},
	{computedAttr[client.PlanForAttachment]{"coverage_profile_id", stringAttr, "Coverage profile of the plan.",
		func(p *client.PlanForAttachment) tftypes.Value { return stringOrNull(p.CoverageProfileID) }},
		func(p *client.Plan) tftypes.Value { return stringOrNull(p.CoverageProfileID) }, ""},
}

// planDetailsShape is plan_details, a subscription's copy of its plan.
var planDetailsShape = func() *objectShape[client.PlanForAttachment] {
	out := make([]computedAttr[client.PlanForAttachment], len(planDetails))
	for i, d := range planDetails {
		out[i] = d.computedAttr
	}
	s := newObjectShape(out...)
	s.deprecated = map[string]string{"name": planNameDeprecation}
	return s
}()

// planNameDeprecation: the service deprecates `name` of a subscription's
// plan (PlanForAttachment), not of the plan itself, which the plan data
// sources show without one.
const planNameDeprecation = "The service deprecates the name of a subscription's plan (plan.name); it may stop sending it, and this attribute would then be null. " +
	"Tell plans apart by plan_id, or read the name from the mobileplan_plan data source."

// planShape is a plan as the plan data sources show it: the details a
// subscription also shows of its plan, and what only the plan itself has.
var planShape = newObjectShape(func() []computedAttr[client.Plan] {
	out := []computedAttr[client.Plan]{
		{"id", stringAttr, "Plan id.", func(p *client.Plan) tftypes.Value { return stringValue(p.ID) }},
		{"archived", boolAttr, "Archived plans cannot be subscribed to.", func(p *client.Plan) tftypes.Value { return boolValue(p.Archived) }},
		{"addon", boolAttr, "Addon plans cannot be subscribed to; they attach to an existing subscription.",
			func(p *client.Plan) tftypes.Value { return boolValue(p.Addon) }},
		{"created_at", int64Attr, "When the plan was created, in Unix seconds.", func(p *client.Plan) tftypes.Value { return numberValue(p.CreatedAt) }},
	}
	for _, d := range planDetails {
		desc := d.desc
		if d.planDesc != "" {
			desc = d.planDesc
		}
		out = append(out, computedAttr[client.Plan]{d.name, d.kind, desc, d.inPlan})
	}
	return out
}()...)

// allowanceShape is purchased_allowance and remaining_allowance.
var allowanceShape = newObjectShape(
	computedAttr[client.Allowance]{"data_bytes", int64Attr, "Data allowance in bytes; null when the service reports none.",
		func(a *client.Allowance) tftypes.Value { return numberOrNull(a.DataBytes) }},
	computedAttr[client.Allowance]{"voice_seconds", int64Attr, "Voice in seconds; null when the plan has no voice.",
		func(a *client.Allowance) tftypes.Value { return numberOrNull(a.VoiceSeconds) }},
	computedAttr[client.Allowance]{"sms_messages", int64Attr, "Number of SMS messages; null when the plan has no SMS.",
		func(a *client.Allowance) tftypes.Value { return numberOrNull(a.SmsMessages) }},
)

// inlinePlanAttribute is the resource's `plan` input: a plan described in
// place. inlinePlanModel reads it.
func inlinePlanAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		MarkdownDescription: "A plan described inline; the service creates a custom plan from it. Exactly one of `plan_id` and `plan` must be set. Changing it replaces the subscription, unless it describes the same plan as `plan_details` (as after an import), which only records it in state.",
		Optional:            true,
		Attributes: map[string]rschema.Attribute{
			"coverage_id": rschema.StringAttribute{
				MarkdownDescription: "Id of the coverage profile, such as `cov-eu`; after an import it is compared with `plan_details.coverage_profile_id`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"data_mbs": rschema.Int64Attribute{
				MarkdownDescription: "Data allocation in megabytes; at least 1.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"period_days": rschema.Int64Attribute{
				MarkdownDescription: "Validity of the plan in days; at least 1.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
		},
	}
}

// inlinePlanModel is the `plan` input, read.
type inlinePlanModel struct {
	CoverageID types.String `tfsdk:"coverage_id"`
	DataMBs    types.Int64  `tfsdk:"data_mbs"`
	PeriodDays types.Int64  `tfsdk:"period_days"`
}

// The `plan` input's types, its schema's.
var (
	inlinePlanAttrTypes = inlinePlanAttribute().GetType().(types.ObjectType).AttrTypes
	inlinePlanType      = inlinePlanAttribute().GetType().TerraformType(context.Background()).(tftypes.Object)
)

func numberOrNull(p *int64) tftypes.Value {
	if p == nil {
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tftypes.NewValue(tftypes.Number, *p)
}

func stringOrNull(p *string) tftypes.Value {
	if p == nil {
		return tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(tftypes.String, *p)
}

func numberValue(n int64) tftypes.Value  { return tftypes.NewValue(tftypes.Number, n) }
func stringValue(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
func boolValue(b bool) tftypes.Value     { return tftypes.NewValue(tftypes.Bool, b) }

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
