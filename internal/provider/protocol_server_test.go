package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The seam reads a subscription's id from a state as Terraform sends it,
// whatever comes before it, and no id from a state without one.
func TestIdOfState(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"activated_at": tftypes.Number, "id": tftypes.String, "plan": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"coverage_id": tftypes.String}},
	}}
	state := func(id tftypes.Value) []byte {
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
			"activated_at": tftypes.NewValue(tftypes.Number, 1),
			"id":           id,
			"plan":         tftypes.NewValue(typ.AttributeTypes["plan"], map[string]tftypes.Value{"coverage_id": tftypes.NewValue(tftypes.String, "cov")}),
		}))
		if err != nil {
			t.Fatal(err)
		}
		return v.MsgPack
	}
	for name, c := range map[string]struct {
		state []byte
		want  string
	}{
		"an id":       {state(tftypes.NewValue(tftypes.String, "sub_0123")), "sub_0123"},
		"a null id":   {state(tftypes.NewValue(tftypes.String, nil)), ""},
		"an unknown":  {state(tftypes.NewValue(tftypes.String, tftypes.UnknownValue)), ""},
		"no state":    {nil, ""},
		"not msgpack": {[]byte("{}"), ""},
	} {
		if got := idOfState(c.state); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}
