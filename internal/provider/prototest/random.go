package prototest

import (
	"fmt"
	"math/rand/v2"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// RandomValue is a value of typ: null at any level, with maps of 0 to 3
// elements; with unknowns too when unknowns is set (a configuration).
func RandomValue(rng *rand.Rand, typ tftypes.Type, unknowns bool) tftypes.Value {
	switch r := rng.IntN(10); {
	case r == 0:
		return tftypes.NewValue(typ, nil)
	case r == 1 && unknowns:
		return tftypes.NewValue(typ, tftypes.UnknownValue)
	}
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, fmt.Sprintf("s%d", rng.IntN(5)))
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, rng.Int64N(1<<40))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, rng.IntN(2) == 0)
	case typ.Is(tftypes.Map{}):
		m := typ.(tftypes.Map)
		elems := map[string]tftypes.Value{}
		for i := range rng.IntN(4) {
			elems[fmt.Sprintf("k%d", i)] = RandomValue(rng, m.ElementType, unknowns)
		}
		return tftypes.NewValue(typ, elems)
	case typ.Is(tftypes.Object{}):
		o := typ.(tftypes.Object)
		attrs := map[string]tftypes.Value{}
		for name, t := range o.AttributeTypes {
			attrs[name] = RandomValue(rng, t, unknowns)
		}
		return tftypes.NewValue(typ, attrs)
	}
	panic("RandomValue: no case for " + typ.String())
}

// ConfigOf is the configuration Terraform would hold for state, a state
// of mobileplan_subscription: the inputs kept, every computed-only
// attribute null.
func (h *ProtoHarness) ConfigOf(state tftypes.Value) tftypes.Value {
	var attrs map[string]tftypes.Value
	if err := state.As(&attrs); err != nil || attrs == nil {
		return h.Object(nil)
	}
	in := map[string]tftypes.Value{"plan": attrs["plan"]}
	if attrs["plan"].IsNull() {
		in["plan_id"] = attrs["plan_id"]
	}
	return h.Object(in)
}
