package provider

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
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
	f := acctest.NewFiller(18, 2)
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
		v, err := p.ToTerraformValue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if missing := missingLeaves(answerLeaves("Plan", reflect.ValueOf(plan)), valueLeaves(v)); len(missing) > 0 {
			t.Fatalf("plan %d: %v not shown by any attribute of %s", i, missing, v)
		}
	}
}

// filler sets every field of a value, at any depth, to random values: a
// pointer nil or not, a map nil, empty or with entries, every string and
// number distinct from the others.
type filler struct {
	rng *rand.Rand
	n   int
}

func (f *filler) fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if f.rng.IntN(3) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i))
		}
	case reflect.String:
		f.n++
		v.SetString(fmt.Sprintf("s%d_%d", f.n, f.rng.IntN(1000)))
	case reflect.Int, reflect.Int32, reflect.Int64:
		// Distinct by the counter, large and negative by the rest.
		f.n++
		v.SetInt(int64(f.n)<<32 | f.rng.Int64N(1<<32) ^ -int64(f.rng.IntN(2)))
	case reflect.Bool:
		v.SetBool(f.rng.IntN(2) == 0)
	case reflect.Map:
		switch f.rng.IntN(3) {
		case 0:
			v.SetZero()
		default:
			m := reflect.MakeMap(v.Type())
			for range f.rng.IntN(3) {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				f.fill(k)
				f.fill(e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	default:
		panic("filler: no case for " + v.Type().String())
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
