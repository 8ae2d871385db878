package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A key that names nothing is an error naming the data source's object and
// the key, with the service's answer.
func TestLookupDataSource_notFound(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for _, row := range []struct {
		typeName, key, value string
		want                 *regexp.Regexp
	}{
		{"mobileplan_plan", "id", "plan_nope", errorPattern(`No plan "plan_nope"`, `The service has no plan with id "plan_nope"`, "HTTP 404 Not Found", "Code: notFound")},
		{"mobileplan_esim", "iccid", "8988247000000009999", errorPattern(`No eSIM "8988247000000009999"`, "HTTP 404 Not Found")},
		{"mobileplan_subscription", "id", "sub_gone", errorPattern(`No subscription "sub_gone"`, "HTTP 404 Not Found")},
	} {
		diags, _ := readData(t, srv, nil, row.typeName, map[string]tftypes.Value{row.key: text(row.value)})
		expectErrorMatching(t, diags, row.want.String())
	}
}
