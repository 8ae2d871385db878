package fastpath

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// renewalPossible answers what the resource's rule answers for the
// attributes a state sets, for every combination of them, whatever the
// other attributes hold; a resource with too many attributes for the table,
// or a state it cannot read, counts as possible.
func TestRenewalPossible_isTheRuleOfWhatTheStateSets(t *testing.T) {
	t.Parallel()
	attrs := []string{"a", "b", "c"}
	rule := func(isSet func(string) bool) bool { return isSet("a") && (isSet("b") || isSet("c")) }
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.Number, "b": tftypes.String, "c": tftypes.Bool, "other": tftypes.String}}
	r := &resource{Resource: Resource{TypeName: "t", RenewalAttributes: attrs, RenewalPossible: rule}}
	r.renewalPossibleBySet = renewalTable(r.Resource)
	values := map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.Number, 1), "b": tftypes.NewValue(tftypes.String, "x"), "c": tftypes.NewValue(tftypes.Bool, false)}
	for set := range 1 << len(attrs) {
		for _, other := range []any{nil, "o"} {
			state := map[string]tftypes.Value{"other": tftypes.NewValue(tftypes.String, other)}
			isSet := map[string]bool{}
			for i, name := range attrs {
				isSet[name] = set&(1<<i) != 0
				state[name] = tftypes.NewValue(typ.AttributeTypes[name], nil)
				if isSet[name] {
					state[name] = values[name]
				}
			}
			dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, state))
			if err != nil {
				t.Fatal(err)
			}
			want := rule(func(name string) bool { return isSet[name] })
			if got := r.renewalPossible(dv.MsgPack); got != want {
				t.Errorf("set %v, other %v: %t, the rule %t", isSet, other, got, want)
			}
		}
	}
	if !r.renewalPossible([]byte{0x01}) {
		t.Error("a state that is no map counts as impossible")
	}
	many := make([]string, maxRenewalAttributes+1)
	for i := range many {
		many[i] = fmt.Sprint("a", i)
	}
	never := func(func(string) bool) bool { return false }
	if table := renewalTable(Resource{RenewalAttributes: many, RenewalPossible: never}); table != nil {
		t.Errorf("a table of %d entries for %d attributes", len(table), len(many))
	}
	if (&resource{}).renewalPossible(nil) != true {
		t.Error("a resource without a table counts a state as impossible")
	}
}
