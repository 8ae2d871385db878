package fastpath

import (
	"context"
	"errors"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// createPlan answers the plan of a new resource r (no prior state) without
// the framework. The framework would decode the
// configuration and the proposed state, walk every attribute three times
// (defaults, write-only attributes, plan modifiers, each looking every
// path up in the schema and setting the value back into the plan), call
// ModifyPlan, and encode the result: about 5,000 allocations per create,
// twice in an apply (its plan, and the re-plan before the create), for
// mobileplan_subscription. For a resource that keeps these rules, with no
// prior state:
//   - no attribute has a default or is write-only, so those walks change
//     nothing;
//   - every computed attribute null in the configuration becomes unknown
//     (the framework's MarkComputedNilsAsUnknown), and nothing else changes:
//     the only plan modifier, UseStateForUnknown, changes nothing without a
//     prior state;
//   - ModifyPlan changes nothing in the plan (r.PlanCreate, which this
//     calls for the diagnostics, does what it does);
//   - the provider defers only from Configure, whose deferral sends every
//     plan to the framework (PlanResourceChange), and sets no private state;
//   - the planned identity is the prior one Terraform sent, or a null one.
//
// The rules about modifiers, defaults and deferral are the tests that
// guard unchangedPlan (for mobileplan_subscription,
// provider/fastpath_rules_test.go);
// TestCreatePlan_sameAsFramework compares both answers on many
// configurations, preflight findings included. Anything else (a prior
// state, private state, provider_meta, a schema of another shape, a
// provider not yet configured) goes to the framework.
//
// Delete this fast path once the framework plans a create without walking
// every attribute: then BenchmarkProtocol's plan_create_framework_only
// costs about what plan_create does.
func (s *protocolServer) createPlan(ctx context.Context, r *resource, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	if r.PlanCreate == nil || len(req.PriorPrivate) > 0 || req.Config == nil || req.ProposedNewState == nil ||
		(req.ProviderMeta != nil && (len(req.ProviderMeta.MsgPack) > 0 || len(req.ProviderMeta.JSON) > 0)) ||
		(req.PriorState != nil && !isMsgPackNil(req.PriorState.MsgPack)) {
		return nil, false
	}
	r.createOnce.Do(func() { r.creates = s.createPlannerOf(ctx, r.TypeName) })
	c := r.creates
	if c == nil {
		return nil, false
	}
	identity, ok := s.plannedIdentity(ctx, r, req.PriorIdentity)
	if !ok {
		return nil, false
	}
	config, err := req.Config.Unmarshal(c.typ)
	if err != nil {
		return nil, false
	}
	proposed, err := req.ProposedNewState.Unmarshal(c.typ)
	if err != nil || proposed.IsNull() || !proposed.IsKnown() {
		return nil, false
	}
	planned, err := tftypes.Transform(proposed, c.markComputedNullsUnknown(config))
	if err != nil {
		return nil, false
	}
	plannedState, err := tfprotov6.NewDynamicValue(c.typ, planned)
	if err != nil {
		return nil, false
	}
	diags, ok := r.PlanCreate(ctx, config)
	if !ok {
		return nil, false
	}
	return &tfprotov6.PlanResourceChangeResponse{
		PlannedState:    &plannedState,
		PlannedIdentity: identity,
		Diagnostics:     protoDiagnostics(diags),
	}, true
}

// createPlanner is what createPlan needs of the resource's schema: its
// type, and which attributes are computed, by their path with dots
// (plan_details.name). Blocks' attributes are there as well; the blocks
// themselves are not, as they are not attributes.
type createPlanner struct {
	typ      tftypes.Object
	computed map[string]bool
}

// createPlannerOf reads the schema the framework serves; nil when it has a
// shape createPlan does not handle (nested attributes or blocks other than
// single ones, write-only attributes, dynamic types), which leaves creates
// to the framework.
func (s *protocolServer) createPlannerOf(ctx context.Context, typeName string) *createPlanner {
	resp, err := s.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || resp == nil || len(resp.Diagnostics) > 0 || resp.ResourceSchemas[typeName] == nil {
		return nil
	}
	schema := resp.ResourceSchemas[typeName]
	typ, ok := schema.ValueType().(tftypes.Object)
	if !ok {
		return nil
	}
	c := &createPlanner{typ: typ, computed: map[string]bool{}}
	if !c.addAttributes("", schema.Block.Attributes) {
		return nil
	}
	for _, b := range schema.Block.BlockTypes {
		if b.Nesting != tfprotov6.SchemaNestedBlockNestingModeSingle || len(b.Block.BlockTypes) > 0 || !c.addAttributes(b.TypeName+".", b.Block.Attributes) {
			return nil
		}
	}
	return c
}

func (c *createPlanner) addAttributes(prefix string, attrs []*tfprotov6.SchemaAttribute) bool {
	for _, a := range attrs {
		if a.WriteOnly || (a.Type != nil && a.Type.Is(tftypes.DynamicPseudoType)) {
			return false
		}
		c.computed[prefix+a.Name] = a.Computed
		if a.NestedType == nil {
			continue
		}
		if a.NestedType.Nesting != tfprotov6.SchemaObjectNestingModeSingle || !c.addAttributes(prefix+a.Name+".", a.NestedType.Attributes) {
			return false
		}
	}
	return true
}

// markComputedNullsUnknown is the framework's MarkComputedNilsAsUnknown
// for a schema without defaults: a computed attribute null in config is
// unknown in the plan. Values inside an attribute of a collection or
// object type, and blocks themselves, are left as they are.
func (c *createPlanner) markComputedNullsUnknown(config tftypes.Value) func(*tftypes.AttributePath, tftypes.Value) (tftypes.Value, error) {
	return func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		steps := p.Steps()
		if len(steps) == 0 {
			return v, nil
		}
		names := make([]string, 0, len(steps))
		for _, step := range steps {
			name, ok := step.(tftypes.AttributeName)
			if !ok {
				return v, nil // an element of a collection attribute
			}
			names = append(names, string(name))
		}
		key := strings.Join(names, ".")
		computed, isAttribute := c.computed[key]
		if !isAttribute {
			// A block, or inside an attribute of object type: not the
			// schema's attribute.
			return v, nil
		}
		configValue, _, err := tftypes.WalkAttributePath(config, p)
		if err != nil && !errors.Is(err, tftypes.ErrInvalidStep) {
			return v, err
		}
		cv, ok := configValue.(tftypes.Value)
		if !ok {
			return v, errors.New("unexpected value in the configuration")
		}
		if !cv.IsNull() || !computed {
			return v, nil
		}
		return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
	}
}

// protoDiagnostics are diags as the framework's server answers them.
func protoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: tfprotov6.DiagnosticSeverityInvalid}
		switch d.Severity() {
		case diag.SeverityError:
			pd.Severity = tfprotov6.DiagnosticSeverityError
		case diag.SeverityWarning:
			pd.Severity = tfprotov6.DiagnosticSeverityWarning
		}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = attributePath(withPath.Path())
		}
		out = append(out, pd)
	}
	return out
}

// attributePath is p as the protocol carries it. The preflight's paths
// are attribute names; an element step, which it never uses, is converted
// as the framework converts it.
func attributePath(p path.Path) *tftypes.AttributePath {
	var steps []tftypes.AttributePathStep
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(s))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(s))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(s))
		}
	}
	return tftypes.NewAttributePathWithSteps(steps)
}
