package main

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/zclconf/go-cty/cty"
)

const repoRoot = "../.."

// The kit has a default for every computed attribute of every resource and
// data source the provider serves: an attribute added without one fails
// here, and so `make test`.
func TestKitCoversSchema(t *testing.T) {
	t.Parallel()
	schema, k := schemaAndKit(t)
	for _, problem := range checkKit(schema, k) {
		t.Error(problem)
	}
}

// What `go run ./tools/mockkit` writes is committed and current.
func TestOpenTofuFormsAreCurrent(t *testing.T) {
	t.Parallel()
	files, err := generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[tofuBlockFile]; !ok || len(files) < 2 {
		t.Fatalf("generate wrote %d files, want %s and a .tofutest.hcl per example test loading the kit", len(files), tofuBlockFile)
	}
	for _, name := range staleFiles(repoRoot, files) {
		t.Errorf("%s is out of date: run `go run ./tools/mockkit` (or make generate) and commit it", name)
	}
	for name, text := range files {
		if kitSource.Match(text) {
			t.Errorf("%s still loads the kit with source, which OpenTofu refuses", name)
		}
	}
}

// The staleness check itself: a computed attribute without a default is
// reported, at any depth, and so is a default the schema does not know;
// an attribute or block that only configures (timeouts, say) needs none.
func TestCheckKitReportsStaleness(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		change func(*tfprotov6.GetProviderSchemaResponse)
		want   string
	}{
		"computed attribute added to the resource": {
			change: func(s *tfprotov6.GetProviderSchemaResponse) {
				addAttribute(s.ResourceSchemas["mobileplan_subscription"].Block, &tfprotov6.SchemaAttribute{Name: "roaming_zone", Type: tftypes.String, Computed: true})
			},
			want: "mobileplan_subscription.roaming_zone: computed, with no mock default",
		},
		"computed attribute added inside a list of objects": {
			change: func(s *tfprotov6.GetProviderSchemaResponse) {
				plans := findAttribute(s.DataSourceSchemas["mobileplan_plans"].Block, "plans")
				plans.NestedType.Attributes = append(plans.NestedType.Attributes, &tfprotov6.SchemaAttribute{Name: "price_cents", Type: tftypes.Number, Computed: true})
			},
			want: "mobileplan_plans.plans[*].price_cents: computed, with no mock default",
		},
		"data source added": {
			change: func(s *tfprotov6.GetProviderSchemaResponse) {
				s.DataSourceSchemas["mobileplan_coverage"] = &tfprotov6.Schema{Block: &tfprotov6.SchemaBlock{}}
			},
			want: "data source mobileplan_coverage: no mock_data block",
		},
		"attribute removed": {
			change: func(s *tfprotov6.GetProviderSchemaResponse) {
				b := s.DataSourceSchemas["mobileplan_esim"].Block
				for i, a := range b.Attributes {
					if a.Name == "smdp_state" {
						b.Attributes = append(b.Attributes[:i], b.Attributes[i+1:]...)
						break
					}
				}
			},
			want: "mobileplan_esim.smdp_state: a default for an attribute the schema does not have",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			schema, k := schemaAndKit(t)
			tc.change(schema)
			problems := checkKit(schema, k)
			if len(problems) != 1 || problems[0] != tc.want {
				t.Fatalf("problems:\n  %s\nwant exactly:\n  %s", strings.Join(problems, "\n  "), tc.want)
			}
		})
	}

	t.Run("configuration-only timeouts need no default", func(t *testing.T) {
		t.Parallel()
		schema, k := schemaAndKit(t)
		resource := schema.ResourceSchemas["mobileplan_subscription"].Block
		timeouts := []*tfprotov6.SchemaAttribute{{Name: "create", Type: tftypes.String, Optional: true}}
		resource.BlockTypes = append(resource.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: "timeouts", Nesting: tfprotov6.SchemaNestedBlockNestingModeSingle,
			Block: &tfprotov6.SchemaBlock{Attributes: timeouts},
		})
		addAttribute(resource, &tfprotov6.SchemaAttribute{
			Name: "timeouts_attr", Optional: true,
			NestedType: &tfprotov6.SchemaObject{Nesting: tfprotov6.SchemaObjectNestingModeSingle, Attributes: timeouts},
		})
		if problems := checkKit(schema, k); len(problems) > 0 {
			t.Fatalf("problems for configuration-only attributes: %v", problems)
		}
	})

	t.Run("computed attribute inside a block", func(t *testing.T) {
		t.Parallel()
		schema, k := schemaAndKit(t)
		resource := schema.ResourceSchemas["mobileplan_subscription"].Block
		resource.BlockTypes = append(resource.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: "timeouts", Nesting: tfprotov6.SchemaNestedBlockNestingModeSingle,
			Block: &tfprotov6.SchemaBlock{Attributes: []*tfprotov6.SchemaAttribute{{Name: "effective", Type: tftypes.String, Computed: true}}},
		})
		problems := checkKit(schema, k)
		if len(problems) != 1 || !strings.Contains(problems[0], "mobileplan_subscription.timeouts.effective") {
			t.Fatalf("problems: %v", problems)
		}
	})

	t.Run("default for an attribute the configuration sets", func(t *testing.T) {
		t.Parallel()
		schema, k := schemaAndKit(t)
		k.resources["mobileplan_subscription"] = withString(t, k.resources["mobileplan_subscription"], "plan_id", "plan_001")
		problems := checkKit(schema, k)
		want := "mobileplan_subscription.plan_id: a default for an attribute the configuration sets"
		if len(problems) != 1 || problems[0] != want {
			t.Fatalf("problems: %v, want %q", problems, want)
		}
	})

	t.Run("ICCID without a valid check digit", func(t *testing.T) {
		t.Parallel()
		schema, k := schemaAndKit(t)
		k.resources["mobileplan_subscription"] = withString(t, k.resources["mobileplan_subscription"], "esim_iccid", "8988247000000000010")
		problems := checkKit(schema, k)
		if len(problems) != 1 || !strings.Contains(problems[0], "not a valid ICCID") {
			t.Fatalf("problems: %v", problems)
		}
	})
}

func schemaAndKit(t *testing.T) (*tfprotov6.GetProviderSchemaResponse, *kit) {
	t.Helper()
	schema, err := providerSchema()
	if err != nil {
		t.Fatal(err)
	}
	k, err := loadKit(repoRoot + "/" + kitDir)
	if err != nil {
		t.Fatal(err)
	}
	return schema, k
}

func addAttribute(b *tfprotov6.SchemaBlock, a *tfprotov6.SchemaAttribute) {
	b.Attributes = append(b.Attributes, a)
}

func withString(t *testing.T, v cty.Value, name, s string) cty.Value {
	t.Helper()
	attrs := v.AsValueMap()
	attrs[name] = cty.StringVal(s)
	return cty.ObjectVal(attrs)
}

func findAttribute(b *tfprotov6.SchemaBlock, name string) *tfprotov6.SchemaAttribute {
	for _, a := range b.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}
