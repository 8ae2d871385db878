// Command providerschema prints the provider's schema in the format of
// `terraform providers schema -json`, read from the provider server itself.
//
// `make generate` hands it to tfplugindocs (--providers-schema) instead of
// letting tfplugindocs ask the terraform CLI on PATH: a CLI older than 1.12
// leaves out resource identity, one older than 1.14 list resources, so the
// generated docs would depend on which CLI the machine has.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// providerAddress is the address tfplugindocs looks the provider up by.
const providerAddress = "registry.terraform.io/hashicorp/mobileplan"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "providerschema:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	server, err := providerserver.NewProtocol6WithError(provider.New("docs")())()
	if err != nil {
		return err
	}
	schema, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return err
	}
	if err := diagnosticsError(schema.Diagnostics); err != nil {
		return err
	}
	identities, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil {
		return err
	}
	if err := diagnosticsError(identities.Diagnostics); err != nil {
		return err
	}
	out := map[string]any{
		"format_version": "1.0",
		"provider_schemas": map[string]any{providerAddress: map[string]any{
			"provider":                  jsonSchema(schema.Provider),
			"resource_schemas":          jsonSchemas(schema.ResourceSchemas),
			"data_source_schemas":       jsonSchemas(schema.DataSourceSchemas),
			"list_resource_schemas":     jsonSchemas(schema.ListResourceSchemas),
			"resource_identity_schemas": jsonIdentitySchemas(identities.IdentitySchemas),
		}},
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func diagnosticsError(diags []*tfprotov6.Diagnostic) error {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return fmt.Errorf("%s: %s", d.Summary, d.Detail)
		}
	}
	return nil
}

func jsonSchemas(schemas map[string]*tfprotov6.Schema) map[string]any {
	out := map[string]any{}
	for name, s := range schemas {
		out[name] = jsonSchema(s)
	}
	return out
}

func jsonSchema(s *tfprotov6.Schema) map[string]any {
	return map[string]any{"version": s.Version, "block": jsonBlock(s.Block)}
}

func jsonBlock(b *tfprotov6.SchemaBlock) map[string]any {
	out := map[string]any{"description_kind": kind(b.DescriptionKind)}
	if b.Description != "" {
		out["description"] = b.Description
	}
	if b.Deprecated {
		out["deprecated"] = true
	}
	if len(b.Attributes) > 0 {
		out["attributes"] = jsonAttributes(b.Attributes)
	}
	if len(b.BlockTypes) > 0 {
		blocks := map[string]any{}
		for _, nb := range b.BlockTypes {
			nested := map[string]any{"nesting_mode": blockNesting(nb.Nesting), "block": jsonBlock(nb.Block)}
			if nb.MinItems > 0 {
				nested["min_items"] = nb.MinItems
			}
			if nb.MaxItems > 0 {
				nested["max_items"] = nb.MaxItems
			}
			blocks[nb.TypeName] = nested
		}
		out["block_types"] = blocks
	}
	return out
}

func jsonAttributes(attrs []*tfprotov6.SchemaAttribute) map[string]any {
	out := map[string]any{}
	for _, a := range attrs {
		m := map[string]any{"description_kind": kind(a.DescriptionKind)}
		if a.NestedType != nil {
			m["nested_type"] = map[string]any{
				"attributes":   jsonAttributes(a.NestedType.Attributes),
				"nesting_mode": objectNesting(a.NestedType.Nesting),
			}
		} else {
			m["type"] = a.Type
		}
		for key, set := range map[string]bool{
			"required": a.Required, "optional": a.Optional, "computed": a.Computed,
			"sensitive": a.Sensitive, "deprecated": a.Deprecated, "write_only": a.WriteOnly,
		} {
			if set {
				m[key] = true
			}
		}
		if a.Description != "" {
			m["description"] = a.Description
		}
		out[a.Name] = m
	}
	return out
}

func jsonIdentitySchemas(schemas map[string]*tfprotov6.ResourceIdentitySchema) map[string]any {
	out := map[string]any{}
	for name, s := range schemas {
		attrs := map[string]any{}
		for _, a := range s.IdentityAttributes {
			m := map[string]any{"type": a.Type}
			if a.Description != "" {
				m["description"] = a.Description
			}
			if a.RequiredForImport {
				m["required_for_import"] = true
			}
			if a.OptionalForImport {
				m["optional_for_import"] = true
			}
			attrs[a.Name] = m
		}
		out[name] = map[string]any{"version": s.Version, "attributes": attrs}
	}
	return out
}

func kind(k tfprotov6.StringKind) string {
	if k == tfprotov6.StringKindMarkdown {
		return "markdown"
	}
	return "plain"
}

func blockNesting(n tfprotov6.SchemaNestedBlockNestingMode) string {
	switch n {
	case tfprotov6.SchemaNestedBlockNestingModeSingle:
		return "single"
	case tfprotov6.SchemaNestedBlockNestingModeList:
		return "list"
	case tfprotov6.SchemaNestedBlockNestingModeSet:
		return "set"
	case tfprotov6.SchemaNestedBlockNestingModeMap:
		return "map"
	case tfprotov6.SchemaNestedBlockNestingModeGroup:
		return "group"
	default:
		return "invalid"
	}
}

func objectNesting(n tfprotov6.SchemaObjectNestingMode) string {
	switch n {
	case tfprotov6.SchemaObjectNestingModeSingle:
		return "single"
	case tfprotov6.SchemaObjectNestingModeList:
		return "list"
	case tfprotov6.SchemaObjectNestingModeSet:
		return "set"
	case tfprotov6.SchemaObjectNestingModeMap:
		return "map"
	default:
		return "invalid"
	}
}
