package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func TestListDataSources_filterValuesChecked(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for _, row := range []struct{ typeName, attr, value, want string }{
		{"mobileplan_subscriptions", "state", "Expired", `value must be one of: \["ready" "active" "expired"\]`},
		{"mobileplan_esims", "smdp_state", "available", `must be an uppercase word such as AVAILABLE`},
	} {
		diags, _ := readData(t, srv, nil, row.typeName, map[string]tftypes.Value{row.attr: text(row.value)})
		expectErrorMatching(t, diags, `(?s)Invalid Attribute Value.*`+row.want)
	}
	expectNoRequests(t, srv, "invalid filters")
}

func TestListDataSources_pageFailure(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	// The token is revoked between the first and the second page.
	f.srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/esims", Action: "status", Status: 401, After: 1}}})
	diags, _ := readData(t, f.srv, nil, "mobileplan_esims", nil)
	expectErrorMatching(t, diags, errorPattern("Could not list eSIMs", "Listing stopped at page 2, after 25 items had been read",
		"HTTP 401 Unauthorized", "Code: unauthorized", "MOBILEPLAN_API_TOKEN").String())
}

// Each list is read by its pages, as few as its max_items needs: the
// requests the service saw for one read of each.
func TestListDataSources_requestCounts(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	cases := []struct {
		source string
		args   map[string]tftypes.Value
		route  string
		want   int
	}{
		{"mobileplan_plans", nil, "GET /v1/plans", ceilDiv(manyPlans, 25)},
		{"mobileplan_esims", nil, "GET /v1/esims", ceilDiv(manyEsims, 25)},
		{"mobileplan_subscriptions", nil, "GET /v1/subscriptions", ceilDiv(manySubscriptions, 25)},
		{"mobileplan_esims", map[string]tftypes.Value{"max_items": number(30)}, "GET /v1/esims", 2},
		{"mobileplan_plans", map[string]tftypes.Value{"max_items": number(5)}, "GET /v1/plans", 1},
	}
	for _, tc := range cases {
		before := f.srv.RequestCounts()[tc.route]
		if diags, _ := readData(t, f.srv, nil, tc.source, tc.args); len(diags) > 0 {
			t.Fatalf("%s %v: %s", tc.source, tc.args, prototest.DiagText(diags))
		}
		if got := f.srv.RequestCounts()[tc.route] - before; got != tc.want {
			t.Errorf("%s %v: %d requests, want %d", tc.source, tc.args, got, tc.want)
		}
	}
}

// A filter that matches nothing gives empty lists, not null ones, so that
// length() and for_each work on the result.
func TestListDataSources_noMatchIsEmpty(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	diags, value := readData(t, srv, nil, "mobileplan_esims", map[string]tftypes.Value{"label": text("nowhere")})
	if len(diags) > 0 {
		t.Fatal(prototest.DiagText(diags))
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"iccids", "esims"} {
		var items []tftypes.Value
		if err := attrs[name].As(&items); err != nil || attrs[name].IsNull() || len(items) != 0 {
			t.Errorf("%s is %v (%v), want an empty list", name, attrs[name], err)
		}
	}
}
