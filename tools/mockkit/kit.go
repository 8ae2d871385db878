package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// kit is the mock kit as the CLIs read it: the defaults of each mock_resource
// and mock_data block, by resource or data source type.
type kit struct {
	resources   map[string]cty.Value
	dataSources map[string]cty.Value
}

var kitFileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "mock_resource", LabelNames: []string{"type"}},
	{Type: "mock_data", LabelNames: []string{"type"}},
}}

var mockBlockSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "defaults"}}}

// kitFiles lists the kit's files in the order the CLIs read a directory.
func kitFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tfmock.hcl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .tfmock.hcl file in %s", dir)
	}
	sort.Strings(files)
	return files, nil
}

// loadKit reads every .tfmock.hcl file of dir. A type mocked twice is an
// error, as it is to Terraform.
func loadKit(dir string) (*kit, error) {
	files, err := kitFiles(dir)
	if err != nil {
		return nil, err
	}
	k := &kit{resources: map[string]cty.Value{}, dataSources: map[string]cty.Value{}}
	parser := hclparse.NewParser()
	for _, name := range files {
		f, diags := parser.ParseHCLFile(name)
		if diags.HasErrors() {
			return nil, diags
		}
		content, diags := f.Body.Content(kitFileSchema)
		if diags.HasErrors() {
			return nil, diags
		}
		for _, block := range content.Blocks {
			into := k.dataSources
			if block.Type == "mock_resource" {
				into = k.resources
			}
			typeName := block.Labels[0]
			if _, dup := into[typeName]; dup {
				return nil, fmt.Errorf("%s: %s %q is mocked twice", block.DefRange, block.Type, typeName)
			}
			body, diags := block.Body.Content(mockBlockSchema)
			if diags.HasErrors() {
				return nil, diags
			}
			defaults := cty.EmptyObjectVal
			if attr, ok := body.Attributes["defaults"]; ok {
				v, diags := attr.Expr.Value(nil)
				if diags.HasErrors() {
					return nil, diags
				}
				defaults = v
			}
			into[typeName] = defaults
		}
	}
	return k, nil
}

// providerSchema is the schema the provider serves to the CLIs.
func providerSchema() (*tfprotov6.GetProviderSchemaResponse, error) {
	server, err := providerserver.NewProtocol6WithError(provider.New("mockkit")())()
	if err != nil {
		return nil, err
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return nil, fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return resp, nil
}

// checkKit lists what makes the kit stale against the schema: a resource or
// data source without a mock block, a computed attribute without a default
// (the mock would fill it blindly: an empty list, 0, a random string), a
// default for an attribute the schema does not have or of the wrong type,
// and an ICCID without a valid Luhn check digit.
//
// Only computed attributes need a default: the rest come from the
// configuration. So an attribute or block that only configures, such as
// timeouts, needs nothing, while a computed attribute nested in it would.
// An attribute both optional and computed must have none: OpenTofu refuses
// a mock value for an attribute the configuration sets ("Invalid
// mock/override field").
func checkKit(schema *tfprotov6.GetProviderSchemaResponse, k *kit) []string {
	var problems []string
	check := func(kind, block string, schemas map[string]*tfprotov6.Schema, mocks map[string]cty.Value) {
		for _, typeName := range slices.Sorted(maps.Keys(schemas)) {
			defaults, ok := mocks[typeName]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s %s: no %s block", kind, typeName, block))
				continue
			}
			problems = append(problems, checkBlock(typeName, schemas[typeName].Block, defaults)...)
		}
		for _, typeName := range slices.Sorted(maps.Keys(mocks)) {
			if _, ok := schemas[typeName]; !ok {
				problems = append(problems, fmt.Sprintf("%s %q: the provider has no %s of that name", block, typeName, kind))
			}
		}
	}
	check("resource", "mock_resource", schema.ResourceSchemas, k.resources)
	check("data source", "mock_data", schema.DataSourceSchemas, k.dataSources)
	return problems
}

func checkBlock(path string, block *tfprotov6.SchemaBlock, defaults cty.Value) []string {
	problems := checkAttributes(path, block.Attributes, defaults)
	for _, nested := range block.BlockTypes {
		if defaults.Type().IsObjectType() && defaults.Type().HasAttribute(nested.TypeName) {
			problems = append(problems, fmt.Sprintf("%s.%s: a default for a block, which the configuration sets", path, nested.TypeName))
			continue
		}
		for _, missing := range computedPaths(path+"."+nested.TypeName, nested.Block.Attributes) {
			problems = append(problems, missing+": computed inside a block, which a mock default cannot reach")
		}
	}
	return problems
}

// checkAttributes checks the defaults of one object (a mock block's, or one
// element of a nested attribute's) against the attributes it stands for.
func checkAttributes(path string, attrs []*tfprotov6.SchemaAttribute, defaults cty.Value) []string {
	if defaults.IsNull() || !defaults.Type().IsObjectType() {
		return []string{fmt.Sprintf("%s: the default is %s, not an object", path, defaults.Type().FriendlyName())}
	}
	var problems []string
	known := map[string]bool{}
	for _, a := range attrs {
		known[a.Name] = true
		at := path + "." + a.Name
		if !defaults.Type().HasAttribute(a.Name) {
			if a.Computed && !a.Optional {
				problems = append(problems, at+": computed, with no mock default")
			} else if a.NestedType != nil {
				problems = append(problems, missingNested(at, a.NestedType.Attributes)...)
			}
			continue
		}
		v := defaults.GetAttr(a.Name)
		if !a.Computed || a.Optional {
			problems = append(problems, at+": a default for an attribute the configuration sets")
			continue
		}
		problems = append(problems, checkValue(at, a, v)...)
	}
	for name := range defaults.Type().AttributeTypes() {
		if !known[name] {
			problems = append(problems, fmt.Sprintf("%s.%s: a default for an attribute the schema does not have", path, name))
		}
	}
	sort.Strings(problems)
	return problems
}

// missingNested reports the computed attributes under a nested attribute
// that only configures: the mock fills those blindly too.
func missingNested(path string, attrs []*tfprotov6.SchemaAttribute) []string {
	var problems []string
	for _, missing := range computedPaths(path, attrs) {
		problems = append(problems, missing+": computed inside a configured attribute, with no mock default")
	}
	return problems
}

func computedPaths(path string, attrs []*tfprotov6.SchemaAttribute) []string {
	var paths []string
	for _, a := range attrs {
		switch {
		case a.Computed && !a.Optional:
			paths = append(paths, path+"."+a.Name)
		case a.NestedType != nil:
			paths = append(paths, computedPaths(path+"."+a.Name, a.NestedType.Attributes)...)
		}
	}
	return paths
}

func checkValue(path string, a *tfprotov6.SchemaAttribute, v cty.Value) []string {
	if v.IsNull() {
		// A documented absence: no expiry before first use, no voice
		// allowance on a data plan.
		return nil
	}
	if a.NestedType == nil {
		want, err := ctyType(a)
		if err != nil {
			return []string{fmt.Sprintf("%s: %v", path, err)}
		}
		converted, err := convert.Convert(v, want)
		if err != nil {
			return []string{fmt.Sprintf("%s: %v", path, err)}
		}
		return checkICCIDs(path, a.Name, converted)
	}
	if a.NestedType.Nesting == tfprotov6.SchemaObjectNestingModeSingle {
		return checkAttributes(path, a.NestedType.Attributes, v)
	}
	// A list, set or map of objects. Terraform (1.11.4, as tested) takes
	// only an object here, and reads it as a template for elements the
	// mock never makes: the collection comes out empty. A tuple is refused
	// with "expected object type, found tuple".
	return checkAttributes(path+"[*]", a.NestedType.Attributes, v)
}

// checkICCIDs fails an ICCID the service could never have: 19 or 20
// digits, the last a Luhn check digit.
func checkICCIDs(path, name string, v cty.Value) []string {
	if !strings.Contains(name, "iccid") {
		return nil
	}
	var problems []string
	values := []cty.Value{v}
	if v.Type().IsListType() || v.Type().IsSetType() {
		values = v.AsValueSlice()
	}
	for _, iccid := range values {
		if iccid.Type() == cty.String && !iccid.IsNull() && !state.ValidICCID(iccid.AsString()) {
			problems = append(problems, fmt.Sprintf("%s: %q is not a valid ICCID (19 or 20 digits, Luhn check digit)", path, iccid.AsString()))
		}
	}
	return problems
}

func ctyType(a *tfprotov6.SchemaAttribute) (cty.Type, error) {
	// The JSON form is the one type syntax tftypes and cty share.
	raw, err := json.Marshal(a.Type)
	if err != nil {
		return cty.NilType, err
	}
	return ctyjson.UnmarshalType(raw)
}
