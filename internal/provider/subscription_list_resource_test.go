package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// These tests call the provider server's ListResource the way Terraform's
// `terraform query` does, with no CLI, so that paging, filters and limits of
// the list resource are exercised on every machine, whatever CLI it has.

const listRoute = "GET /v1/subscriptions"

// listProviderServer is a provider server with the list RPCs, which
// terraform-plugin-go v0.31 still keeps out of tfprotov6.ProviderServer.
type listProviderServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
}

// listServer is a provider server configured against one emulator.
type listServer struct {
	t      *testing.T
	server listProviderServer
	schema *tfprotov6.GetProviderSchemaResponse
}

// objectValue is a value of the schema's object type with the given
// attributes set and every other one null.
func objectValue(t *testing.T, schema *tfprotov6.Schema, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	typ, ok := schema.ValueType().(tftypes.Object)
	if !ok {
		t.Fatalf("schema type %T is not an object", schema.ValueType())
	}
	vals := map[string]tftypes.Value{}
	for name, attrType := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(attrType, nil)
		if v, ok := set[name]; ok {
			vals[name] = v
		}
	}
	for name := range set {
		if _, ok := typ.AttributeTypes[name]; !ok {
			t.Fatalf("the schema has no attribute %q", name)
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// listed is one result, decoded.
type listed struct {
	displayName string
	identity    map[string]tftypes.Value
	resource    map[string]tftypes.Value // nil unless include_resource
	diags       []*tfprotov6.Diagnostic
}

// list runs one ListResource call with the given filters and pulls every
// result, as Terraform does.
func (s *listServer) list(filters map[string]string, limit int64, includeResource bool) []listed {
	s.t.Helper()
	set := map[string]tftypes.Value{}
	for k, v := range filters {
		set[k] = tftypes.NewValue(tftypes.String, v)
	}
	stream, err := s.server.ListResource(context.Background(), &tfprotov6.ListResourceRequest{
		TypeName:        "mobileplan_subscription",
		Config:          objectValue(s.t, s.schema.ListResourceSchemas["mobileplan_subscription"], set),
		IncludeResource: includeResource,
		Limit:           limit,
	})
	if err != nil {
		s.t.Fatal(err)
	}
	resourceType := s.schema.ResourceSchemas["mobileplan_subscription"].ValueType()
	identityType := s.identityType()
	var out []listed
	for r := range stream.Results {
		l := listed{displayName: r.DisplayName, diags: r.Diagnostics}
		if r.Identity != nil {
			l.identity = s.decode(r.Identity.IdentityData, identityType)
		}
		if r.Resource != nil {
			l.resource = s.decode(r.Resource, resourceType)
		}
		out = append(out, l)
	}
	return out
}

func (s *listServer) identityType() tftypes.Type {
	s.t.Helper()
	resp, err := s.server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || hasErrors(resp.Diagnostics) {
		s.t.Fatalf("GetResourceIdentitySchemas: %v %s", err, prototest.DiagText(resp.Diagnostics))
	}
	schema, ok := resp.IdentitySchemas["mobileplan_subscription"]
	if !ok {
		s.t.Fatal("mobileplan_subscription has no identity schema")
	}
	return schema.ValueType()
}

func (s *listServer) decode(dv *tfprotov6.DynamicValue, typ tftypes.Type) map[string]tftypes.Value {
	s.t.Helper()
	if dv == nil {
		return nil
	}
	v, err := dv.Unmarshal(typ)
	if err != nil {
		s.t.Fatal(err)
	}
	if v.IsNull() {
		return nil
	}
	m := map[string]tftypes.Value{}
	if err := v.As(&m); err != nil {
		s.t.Fatal(err)
	}
	return m
}

func str(v tftypes.Value) string {
	var s string
	if v.IsNull() || !v.IsKnown() {
		return "<null>"
	}
	if err := v.As(&s); err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}

func hasErrors(diags []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

// requestsFor runs fn and counts the list requests the service saw.
func requestsFor(srv *emulatortest.Server, fn func()) int {
	before := srv.RequestCounts()[listRoute]
	fn()
	return srv.RequestCounts()[listRoute] - before
}

// At its limit the list reads on, at most listReadAhead subscriptions, to
// say in the last result how many more match: Terraform shows nothing of
// what its limit cut.
func TestListResource_saysWhatTheLimitCut(t *testing.T) {
	t.Parallel()
	f := startListFixture(t) // 30 subscriptions: two pages of 25
	s := newListServer(t, f.srv)
	for _, tc := range []struct {
		limit    int64
		want     int // results
		requests int
		cut      string // the last result's warning
	}{
		{limit: 30, want: 30, requests: 2},
		{limit: 25, want: 25, requests: 2, cut: "Only 25 subscriptions listed: 5 more match"},
		{limit: 5, want: 5, requests: 2, cut: "Only 5 subscriptions listed: 25 more match"},
		{limit: 100, want: 30, requests: 2}, // Terraform's default limit
		{limit: 0, want: 30, requests: 2},   // no limit
	} {
		var results []listed
		n := requestsFor(f.srv, func() { results = s.list(nil, tc.limit, false) })
		if got := ids(t, results); !slices.Equal(got, f.subIDs[:tc.want]) {
			t.Errorf("limit %d: listed %v, want the %d newest %v", tc.limit, got, tc.want, f.subIDs[:tc.want])
		}
		if n != tc.requests {
			t.Errorf("limit %d: %d list requests, want %d", tc.limit, n, tc.requests)
		}
		if got := cutWarning(results); got != tc.cut {
			t.Errorf("limit %d: the list's warning is %q, want %q", tc.limit, got, tc.cut)
		}
	}
}

// Over a fleet of some thousands, Terraform's default limit of 100 is
// warned of with the count to the list's end, and the limit the warning
// gives lists the whole fleet in the next run, with no warning; each run
// reads the list's pages once. (Read ten pages past the limit, it once
// said "at least 250 more ... a limit above 350": eight runs for 2,000.)
func TestListResource_aFleetIsListedAfterOneWarning(t *testing.T) {
	t.Parallel()
	const fleet = 2010
	ds := emulator.DefaultDataset(manyPlans, fleet) // plan_004 has no label: it takes an eSIM of any
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	for range fleet {
		prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_004"})
	}
	s := newListServer(t, srv)
	pages := ceilDiv(fleet, client.MaxPageSize)
	var results []listed
	if n := requestsFor(srv, func() { results = s.list(nil, 100, false) }); n != pages {
		t.Errorf("the default limit's run sent %d list requests, want the list's %d pages", n, pages)
	}
	if got, want := cutWarning(results), fmt.Sprintf("Only 100 subscriptions listed: %d more match", fleet-100); got != want {
		t.Fatalf("the warning is %q, want %q", got, want)
	}
	if detail := results[len(results)-1].diags[0].Detail; !strings.Contains(detail, fmt.Sprintf("limit = %d", fleet)) {
		t.Fatalf("the warning does not give the limit that lists them all: %s", detail)
	}
	if n := requestsFor(srv, func() { results = s.list(nil, fleet, false) }); n != pages {
		t.Errorf("the limit's run sent %d list requests, want the list's %d pages", n, pages)
	}
	if len(results) != fleet || cutWarning(results) != "" {
		t.Errorf("with limit = %d: %d listed, warning %q; want all %d and none", fleet, len(results), cutWarning(results), fleet)
	}
}

// cutWarning is the summary of the warnings results carry, "" for none.
func cutWarning(results []listed) string {
	var summaries []string
	for _, r := range results {
		for _, d := range r.diags {
			if d.Severity == tfprotov6.DiagnosticSeverityWarning {
				summaries = append(summaries, d.Summary)
			}
		}
	}
	return strings.Join(summaries, "; ")
}

// The read-ahead past the limit is bounded: it counts at most most
// subscriptions, and says whether the list ended within them.
func TestCountMatching(t *testing.T) {
	t.Parallel()
	subs := func(n int) func() (client.Subscription, error, bool) {
		i := 0
		return func() (client.Subscription, error, bool) {
			if i == n {
				return client.Subscription{}, nil, false
			}
			i++
			return client.Subscription{PlanID: fmt.Sprintf("plan_%03d", i%2)}, nil, true
		}
	}
	even := func(s client.Subscription) bool { return s.PlanID == "plan_000" }
	for _, tc := range []struct {
		name     string
		list     int
		matching int
		all      bool
	}{
		{"the list ends within the read-ahead", 10, 5, true},
		{"the list ends at the read-ahead", 2500, 1250, false},
		{"the list goes on", 10000, 1250, false},
		{"nothing past the limit", 0, 0, true},
	} {
		if matching, all := countMatching(subs(tc.list), even, listReadAhead); matching != tc.matching || all != tc.all {
			t.Errorf("%s: counted %d (all %v), want %d (all %v)", tc.name, matching, all, tc.matching, tc.all)
		}
	}
	if listReadAhead != 2500 {
		t.Errorf("listReadAhead = %d, want a hundred pages of 25 (2,500)", listReadAhead)
	}
}

// A consumer that stops pulling stops the paging, too.
func TestListResource_stopsWhenTerraformStopsPulling(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	s := newListServer(t, f.srv)
	n := requestsFor(f.srv, func() {
		stream, err := s.server.ListResource(context.Background(), &tfprotov6.ListResourceRequest{
			TypeName: "mobileplan_subscription",
			Config:   objectValue(t, s.schema.ListResourceSchemas["mobileplan_subscription"], nil),
		})
		if err != nil {
			t.Fatal(err)
		}
		for range stream.Results {
			break
		}
	})
	if n != 1 {
		t.Errorf("%d list requests for one result, want 1", n)
	}
}

func TestListResource_filters_parity(t *testing.T) {
	t.Parallel()
	f := startListFixture(t) // plans cycle plan_010, plan_001, plan_002, oldest first
	s := newListServer(t, f.srv)
	byPlan := map[string][]string{}
	for i, id := range f.subIDs {
		plan := []string{"plan_010", "plan_001", "plan_002"}[(len(f.subIDs)-1-i)%3]
		byPlan[plan] = append(byPlan[plan], id)
	}
	activated := f.subIDs[7]
	if err := f.srv.Activate(activated); err != nil {
		t.Fatal(err)
	}
	results := s.list(map[string]string{"esim_iccid": "none"}, 0, true)
	if len(results) != 0 {
		t.Errorf("an unknown eSIM matched %d subscriptions", len(results))
	}
	active := s.list(map[string]string{"state": "active"}, 0, true)
	if got := ids(t, active); !slices.Equal(got, []string{activated}) {
		t.Fatalf("state = active listed %v, want only %s", got, activated)
	}
	iccid := str(active[0].resource["esim_iccid"])

	for _, tc := range []struct {
		name     string
		filters  map[string]string
		limit    int64
		want     []string
		requests int
	}{
		{"plan_id", map[string]string{"plan_id": "plan_001"}, 0, byPlan["plan_001"], 2},
		{"plan_id with limit", map[string]string{"plan_id": "plan_001"}, 3, byPlan["plan_001"][:3], 2}, // and reads on to count the 7 cut
		{"state ready", map[string]string{"state": "ready"}, 0, slices.DeleteFunc(slices.Clone(f.subIDs), func(id string) bool { return id == activated }), 2},
		{"state and plan_id", map[string]string{"state": "active", "plan_id": "plan_999"}, 0, nil, 2},
		{"esim_iccid", map[string]string{"esim_iccid": iccid}, 1, []string{activated}, 2},
		{"expired", map[string]string{"state": "expired"}, 0, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			n := requestsFor(f.srv, func() { got = ids(t, s.list(tc.filters, tc.limit, false)) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			if n != tc.requests {
				t.Errorf("%d list requests, want %d", n, tc.requests)
			}
		})
	}
}

func TestListResource_validatesFilters(t *testing.T) {
	t.Parallel()
	s := newListServer(t, startEmulator(t))
	for _, tc := range []struct {
		filters map[string]string
		want    string
	}{
		{map[string]string{"state": "gone"}, `value must be one of`},
		{map[string]string{"plan_id": ""}, `length must be at least 1`},
		{map[string]string{"expires_before": "next week"}, `expires_before must be an RFC 3339 timestamp`},
	} {
		set := map[string]tftypes.Value{}
		for k, v := range tc.filters {
			set[k] = tftypes.NewValue(tftypes.String, v)
		}
		resp, err := s.server.ValidateListResourceConfig(context.Background(), &tfprotov6.ValidateListResourceConfigRequest{
			TypeName: "mobileplan_subscription",
			Config:   objectValue(t, s.schema.ListResourceSchemas["mobileplan_subscription"], set),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !hasErrors(resp.Diagnostics) || !regexp.MustCompile(tc.want).MatchString(prototest.DiagText(resp.Diagnostics)) {
			t.Errorf("%v: diagnostics %q, want an error matching %q", tc.filters, prototest.DiagText(resp.Diagnostics), tc.want)
		}
	}
}

func TestListResource_resultsCarryIdentityDisplayNameAndResource(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"})
	s := newListServer(t, srv)

	bare := s.list(nil, 0, false)
	if len(bare) != 1 {
		t.Fatalf("%d results, want 1", len(bare))
	}
	if got := str(bare[0].identity["id"]); got != sub.ID {
		t.Errorf("identity id %q, want %q", got, sub.ID)
	}
	wantName := fmt.Sprintf("%s: ready, plan plan_001 (global 1 GB / 7 days), eSIM %s", sub.ID, sub.EsimICCID)
	if bare[0].displayName != wantName {
		t.Errorf("display name %q, want %q", bare[0].displayName, wantName)
	}
	if bare[0].resource != nil {
		t.Errorf("include_resource = false returned a resource: %v", bare[0].resource)
	}

	full := s.list(nil, 0, true)
	if len(full) != 1 || hasErrors(full[0].diags) || len(full[0].diags) != 0 {
		t.Fatalf("include_resource = true: %d results, diagnostics %s", len(full), prototest.DiagText(full[0].diags))
	}
	res := full[0].resource
	for attr, want := range map[string]string{"id": sub.ID, "plan_id": "plan_001", "esim_iccid": sub.EsimICCID, "state": "ready"} {
		if got := str(res[attr]); got != want {
			t.Errorf("resource %s = %q, want %q", attr, got, want)
		}
	}
	if !res["plan"].IsNull() {
		t.Errorf("resource plan = %v, want null (the generated configuration uses plan_id)", res["plan"])
	}
	var details map[string]tftypes.Value
	if err := res["plan_details"].As(&details); err != nil || str(details["coverage_profile_id"]) != "cov-global" {
		t.Errorf("resource plan_details = %v (%v), want the plan's details", res["plan_details"], err)
	}
}

func TestListResource_pageFailureIsADiagnostic(t *testing.T) {
	t.Parallel()
	f := startListFixture(t)
	s := newListServer(t, f.srv)
	// The token is revoked between the first and the second page.
	f.srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/subscriptions", Action: "status", Status: 401, After: 1}}})
	results := s.list(nil, 0, false)
	if len(results) != 26 {
		t.Fatalf("%d results, want the 25 of page 1 and one error", len(results))
	}
	if got := ids(t, results[:25]); !slices.Equal(got, f.subIDs[:25]) {
		t.Errorf("page 1 listed %v, want %v", got, f.subIDs[:25])
	}
	last := results[25]
	if !hasErrors(last.diags) {
		t.Fatalf("the last result carries no error: %s", prototest.DiagText(last.diags))
	}
	text := prototest.DiagText(last.diags)
	for _, want := range []string{"Could not list subscriptions", "Listing stopped at page 2, after 25 items had been read", "HTTP 401", "unauthorized", "MOBILEPLAN_API_TOKEN"} {
		if !strings.Contains(text, want) {
			t.Errorf("paging error lacks %q:\n%s", want, text)
		}
	}
}
