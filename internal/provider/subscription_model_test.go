package provider

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"testing"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Every field of the service's answer shows in what the provider makes of
// it, each in its own attribute: every string and number of a subscription
// (and every metadata key) appears in its data source value, and of a plan
// in the plan data source's. The answers are filled by reflection with
// values distinct from each other, so a field of the client's type that no
// attribute shows, or two attributes showing the same field, fail here
// without this test knowing the fields.
func TestSubscriptionValues_showEveryFieldOfTheAnswer(t *testing.T) {
	t.Parallel()
	f := prototest.NewFiller(18, 2)
	for i := range 300 {
		var sub client.Subscription
		f.Fill(&sub)
		item, diags := subscriptionItemModelOf(sub)
		shown := tfsdk.State{Schema: dschema.Schema{Attributes: subscriptionDataSourceAttributes(false)}}
		diags.Append(shown.Set(context.Background(), &item)...)
		if diags.HasError() {
			t.Fatal(diags)
		}
		v := shown.Raw
		if missing := missingLeaves(answerLeaves("Subscription", reflect.ValueOf(sub)), valueLeaves(v)); len(missing) > 0 {
			t.Fatalf("subscription %d: %v not shown by any attribute of %s", i, missing, v)
		}

		var plan client.Plan
		f.Fill(&plan)
		p, diags := planModel(plan)
		if diags.HasError() {
			t.Fatal(diags)
		}
		shownPlan := tfsdk.State{Schema: dschema.Schema{Attributes: planAttributes(false)}}
		if diags := shownPlan.Set(context.Background(), &p); diags.HasError() {
			t.Fatal(diags)
		}
		v = shownPlan.Raw
		if missing := missingLeaves(answerLeaves("Plan", reflect.ValueOf(plan)), valueLeaves(v)); len(missing) > 0 {
			t.Fatalf("plan %d: %v not shown by any attribute of %s", i, missing, v)
		}
	}
}

// leaf is a string or number of an answer and the field it is in.
type leaf struct{ field, value string }

// answerLeaves are the strings and numbers in v, and its map keys.
func answerLeaves(field string, v reflect.Value) []leaf {
	var out []leaf
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			out = answerLeaves(field, v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			out = append(out, answerLeaves(field+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
	case reflect.String:
		out = append(out, leaf{field, v.String()})
	case reflect.Int, reflect.Int32, reflect.Int64:
		out = append(out, leaf{field, fmt.Sprint(v.Int())})
	case reflect.Map:
		for _, k := range v.MapKeys() {
			out = append(out, append(answerLeaves(field+" key", k), answerLeaves(field+"[]", v.MapIndex(k))...)...)
		}
	}
	return out
}

// valueLeaves are the strings and numbers in v, and its map keys.
func valueLeaves(v tftypes.Value) []string {
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		_ = v.As(&s)
		return []string{s}
	case v.Type().Is(tftypes.Number):
		var n big.Float
		_ = v.As(&n)
		return []string{n.Text('f', 0)}
	case v.Type().Is(tftypes.Map{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		var out []string
		for k, e := range m {
			out = append(out, append([]string{k}, valueLeaves(e)...)...)
		}
		return out
	case v.Type().Is(tftypes.Object{}):
		var m map[string]tftypes.Value
		_ = v.As(&m)
		var out []string
		for _, e := range m {
			out = append(out, valueLeaves(e)...)
		}
		return out
	}
	return nil
}

// missingLeaves are the fields of want whose values, counted, got lacks.
func missingLeaves(want []leaf, got []string) []string {
	have := map[string]int{}
	for _, g := range got {
		have[g]++
	}
	var missing []string
	for _, w := range want {
		if have[w.value] == 0 {
			missing = append(missing, w.field)
			continue
		}
		have[w.value]--
	}
	return missing
}
