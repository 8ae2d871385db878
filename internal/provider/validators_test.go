package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// An empty key or filter is refused when the configuration is validated,
// before any request: an empty id would ask the service for the list's
// path, and an empty filter would silently match nothing. A plan of such a
// configuration makes two calls before it stops, ValidateProviderConfig
// and ValidateDataResourceConfig; each row makes them in-process.
func TestDataSources_emptyInputsRefused(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for _, row := range []struct{ dataSource, attribute string }{
		{"mobileplan_plan", "id"},
		{"mobileplan_esim", "iccid"},
		{"mobileplan_subscription", "id"},
		{"mobileplan_plans", "label"},
		{"mobileplan_plans", "coverage_profile_id"},
		{"mobileplan_esims", "label"},
		{"mobileplan_subscriptions", "plan_id"},
	} {
		t.Run(row.dataSource+"."+row.attribute, func(t *testing.T) {
			t.Parallel()
			server := testServer()
			schemas, diags := prototest.ConfigureServer(t, server, prototest.EmulatorSettings(srv))
			if len(diags) > 0 {
				t.Fatalf("configure: %s", prototest.DiagText(diags))
			}
			typ := schemas.DataSourceSchemas[row.dataSource].ValueType().(tftypes.Object)
			config := prototest.Object(typ, map[string]tftypes.Value{row.attribute: tftypes.NewValue(tftypes.String, "")})
			resp, err := server.ValidateDataResourceConfig(t.Context(), &tfprotov6.ValidateDataResourceConfigRequest{
				TypeName: row.dataSource,
				Config:   prototest.DynamicValue(t, typ, config),
			})
			if err != nil {
				t.Fatal(err)
			}
			expectErrorMatching(t, resp.Diagnostics, `(?s)Invalid Attribute Value Length.*at least 1`)
		})
	}
	t.Cleanup(func() { expectNoRequests(t, srv, "empty inputs") })
}
