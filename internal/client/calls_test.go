package client

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func TestCreateSubscriptionWithPlanID(t *testing.T) {
	t.Parallel()
	emu, c := startWithClient(t, nil)

	sub, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	if err != nil {
		t.Fatalf("CreateSubscription: %v", err)
	}
	// plan_001 of the default data set: global, 1024 MB, 7 days, no throttling.
	switch {
	case !strings.HasPrefix(sub.ID, "sub_"):
		t.Errorf("ID = %q", sub.ID)
	case sub.PlanID != "plan_001":
		t.Errorf("PlanID = %q, want plan_001", sub.PlanID)
	case !state.ValidICCID(sub.EsimICCID):
		t.Errorf("EsimICCID = %q is not a valid ICCID", sub.EsimICCID)
	case sub.State != StateReady:
		t.Errorf("State = %q, want ready", sub.State)
	case sub.CreatedAt <= 0:
		t.Errorf("CreatedAt = %d", sub.CreatedAt)
	case sub.Metadata == nil:
		t.Errorf("Metadata is nil, want the empty object the service sent")
	}
	p := sub.Plan
	if p.Name == nil || *p.Name != "global 1 GB / 7 days" || p.DataMegaBytes == nil || *p.DataMegaBytes != 1024 ||
		p.PeriodDays == nil || *p.PeriodDays != 7 || p.PeriodIterations == nil || *p.PeriodIterations != 1 ||
		p.ThrottledSpeedKbps == nil || *p.ThrottledSpeedKbps != 0 || p.Label == nil || *p.Label != "global" ||
		p.CoverageProfileID == nil || *p.CoverageProfileID != "cov-global" {
		t.Errorf("Plan = %s", dump(p))
	}
	if sub.PurchasedAllowance.DataBytes == nil || *sub.PurchasedAllowance.DataBytes != 1024*1_000_000 {
		t.Errorf("PurchasedAllowance = %s", dump(sub.PurchasedAllowance))
	}
	if !reflect.DeepEqual(sub.RemainingAllowance, sub.PurchasedAllowance) {
		t.Errorf("RemainingAllowance (wire name remainingAllownace) = %s, want %s", dump(sub.RemainingAllowance), dump(sub.PurchasedAllowance))
	}
	if got := emu.RequestCounts()["POST /v1/subscriptions"]; got != 1 {
		t.Errorf("POST count = %d, want 1", got)
	}
	if emu.Stats().Subscriptions != 1 {
		t.Errorf("emulator holds %d subscriptions, want 1", emu.Stats().Subscriptions)
	}
}

func TestCreateSubscriptionWithInlinePlan(t *testing.T) {
	t.Parallel()
	_, c := startWithClient(t, nil)

	sub, err := c.CreateSubscription(bg, CreateSubscriptionRequest{Plan: &InlinePlan{CoverageID: "cov-eu", DataMBs: 2048, PeriodDays: 10}})
	if err != nil {
		t.Fatalf("CreateSubscription: %v", err)
	}
	if !strings.HasPrefix(sub.PlanID, "plan_custom_") {
		t.Errorf("PlanID = %q, want the custom plan's id", sub.PlanID)
	}
	if sub.Plan.DataMegaBytes == nil || *sub.Plan.DataMegaBytes != 2048 || sub.Plan.PeriodDays == nil || *sub.Plan.PeriodDays != 10 ||
		sub.Plan.CoverageProfileID == nil || *sub.Plan.CoverageProfileID != "cov-eu" || sub.Plan.Label != nil {
		t.Errorf("Plan = %s", dump(sub.Plan))
	}
	plan, err := c.GetPlan(bg, sub.PlanID)
	if err != nil {
		t.Fatalf("GetPlan(%s): %v", sub.PlanID, err)
	}
	if plan.DataMegaBytes != 2048 || plan.PeriodDays != 10 || !plan.Subscribable() {
		t.Errorf("custom plan = %s", dump(plan))
	}
}

func TestCreateSubscriptionNeedsExactlyOnePlan(t *testing.T) {
	t.Parallel()
	emu, c := startWithClient(t, nil)
	for _, req := range []CreateSubscriptionRequest{
		{},
		{PlanID: "plan_001", Plan: &InlinePlan{CoverageID: "cov-eu", DataMBs: 1, PeriodDays: 1}},
	} {
		if _, err := c.CreateSubscription(bg, req); err == nil || !strings.Contains(err.Error(), "exactly one") {
			t.Errorf("CreateSubscription(%s) error = %v, want one naming the rule", dump(req), err)
		}
	}
	if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 0 {
		t.Errorf("%d POSTs reached the service; an invalid request must be refused before sending", n)
	}
}

func TestGetSubscriptionNullableFieldsAndActivation(t *testing.T) {
	t.Parallel()
	emu, c := startWithClient(t, nil)
	created, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	if err != nil {
		t.Fatal(err)
	}

	got, err := c.GetSubscription(bg, created.ID)
	if err != nil {
		t.Fatalf("GetSubscription: %v", err)
	}
	if !reflect.DeepEqual(got, created) {
		t.Errorf("GetSubscription = %s\nwant the created %s", dump(got), dump(created))
	}
	if got.ActivatedAt != nil || got.ExpireAt != nil {
		t.Errorf("activatedAt/expireAt = %v/%v, want nil (null) before activation", got.ActivatedAt, got.ExpireAt)
	}
	if got.PurchasedAllowance.VoiceSeconds != nil || got.PurchasedAllowance.SmsMessages != nil || got.RemainingAllowance.VoiceSeconds != nil {
		t.Errorf("voiceSeconds/smsMessages are null on the wire but decoded as %s", dump(got.PurchasedAllowance))
	}

	if err := emu.Activate(created.ID); err != nil {
		t.Fatal(err)
	}
	act, err := c.GetSubscription(bg, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if act.ActivatedAt == nil || act.ExpireAt == nil {
		t.Fatalf("after activation activatedAt/expireAt = %v/%v, want set", act.ActivatedAt, act.ExpireAt)
	}
	if want := *act.ActivatedAt + 7*86400; *act.ExpireAt != want {
		t.Errorf("expireAt = %d, want activatedAt + 7 days = %d", *act.ExpireAt, want)
	}
	if act.State != StateActive {
		t.Errorf("State = %q, want active", act.State)
	}
	// The emulator has no voice allowance: voiceSeconds stays null.
	if act.PurchasedAllowance.VoiceSeconds != nil {
		t.Errorf("voiceSeconds = %d, want nil", *act.PurchasedAllowance.VoiceSeconds)
	}
}

func TestGetSubscriptionNotFound(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, nil)
	c := newTestClient(t, emu.URL, nil)
	_, err := c.GetSubscription(bg, "sub_doesnotexist")
	if !IsNotFound(err) {
		t.Fatalf("error = %v, want IsNotFound", err)
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "notFound" || apiErr.Operation != "read subscription sub_doesnotexist" {
		t.Errorf("APIError = %s", dump(apiErr))
	}
	if n := emu.RequestCounts()["GET /v1/subscriptions/{id}"]; n != 1 {
		t.Errorf("404 was sent %d times; it must not be retried", n)
	}
}

func TestGetPlan(t *testing.T) {
	t.Parallel()
	_, c := startWithClient(t, nil)

	p, err := c.GetPlan(bg, "plan_003")
	if err != nil {
		t.Fatal(err)
	}
	// plan_003: i=2 → 5120 MB, 15 days, throttled to 512 kbps, label americas.
	if p.ID != "plan_003" || p.DataMegaBytes != 5120 || p.PeriodDays != 15 || p.ThrottledSpeedKbps == nil || *p.ThrottledSpeedKbps != 512 ||
		p.PeriodIterations == nil || *p.PeriodIterations != 1 || p.Label == nil || *p.Label != "americas" ||
		p.CoverageProfileID == nil || *p.CoverageProfileID != "cov-am" || p.Archived || p.Addon || !p.Subscribable() || p.CreatedAt == 0 {
		t.Errorf("plan_003 = %s", dump(p))
	}
	for id, check := range map[string]func(*Plan) bool{
		"plan_004": func(p *Plan) bool { return p.Label == nil && p.CoverageProfileID == nil && p.Subscribable() }, // no label
		"plan_006": func(p *Plan) bool { return p.Addon && !p.Subscribable() && *p.PeriodIterations == 3 },
		"plan_009": func(p *Plan) bool { return p.Archived && !p.Subscribable() },
	} {
		p, err := c.GetPlan(bg, id)
		if err != nil {
			t.Errorf("GetPlan(%s): %v", id, err)
			continue
		}
		if !check(p) {
			t.Errorf("%s = %s", id, dump(p))
		}
	}
	if _, err := c.GetPlan(bg, "plan_999"); !IsNotFound(err) {
		t.Errorf("GetPlan(plan_999) error = %v, want IsNotFound", err)
	}
}

func TestGetEsim(t *testing.T) {
	t.Parallel()
	_, c := startWithClient(t, nil)

	iccid := state.ICCID(2) // second eSIM of the data set: label europe
	e, err := c.GetEsim(bg, iccid)
	if err != nil {
		t.Fatal(err)
	}
	if e.ICCID != iccid || e.Label == nil || *e.Label != "europe" || e.SmdpState != "AVAILABLE" || e.SubscriptionID != nil || e.CountryISO2 != nil || e.CreatedAt == 0 {
		t.Errorf("GetEsim = %s", dump(e))
	}
	// The tenth has no label.
	if e10, err := c.GetEsim(bg, state.ICCID(10)); err != nil || e10.Label != nil {
		t.Errorf("GetEsim(10th) = %s, %v; want label null", dump(e10), err)
	}

	sub, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	if err != nil {
		t.Fatal(err)
	}
	assigned, err := c.GetEsim(bg, sub.EsimICCID)
	if err != nil {
		t.Fatal(err)
	}
	if assigned.SubscriptionID == nil || *assigned.SubscriptionID != sub.ID {
		t.Errorf("assigned eSIM subscriptionId = %v, want %s", assigned.SubscriptionID, sub.ID)
	}

	missing := state.ICCID(987654)
	_, err = c.GetEsim(bg, missing)
	if !IsNotFound(err) {
		t.Fatalf("GetEsim(unknown) error = %v, want IsNotFound", err)
	}
	if IsPreconditionFailed(err) || statusIs(err, http.StatusUnauthorized) {
		t.Errorf("a 404 is reported as another status: %v", err)
	}
	if !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), missing) {
		t.Errorf("error text %q should name the status and the ICCID", err)
	}
}

func TestIteratorsAgainstEmulator(t *testing.T) {
	t.Parallel()
	ds := dataset(32, 40)
	emu, c := startWithClient(t, ds)

	plans := mustCollect(t, c.Plans(bg), nil, 0)
	var planIDs, wantPlanIDs []string
	for _, p := range plans {
		planIDs = append(planIDs, p.ID)
	}
	for _, p := range ds.Plans {
		wantPlanIDs = append(wantPlanIDs, p.ID)
	}
	if !slices.Equal(planIDs, wantPlanIDs) {
		t.Errorf("Plans = %v\nwant %v", planIDs, wantPlanIDs)
	}

	esims := mustCollect(t, c.Esims(bg), nil, 0)
	if len(esims) != len(ds.Esims) {
		t.Fatalf("Esims returned %d, want %d", len(esims), len(ds.Esims))
	}
	for i, e := range esims {
		if e.ICCID != ds.Esims[i].ICCID {
			t.Fatalf("Esims[%d] = %s, want %s", i, e.ICCID, ds.Esims[i].ICCID)
		}
	}

	subs, err := Collect(c.Subscriptions(bg), nil, 0)
	if err != nil || len(subs) != 0 {
		t.Fatalf("Subscriptions of an empty account = %d items, %v", len(subs), err)
	}
	var created []string
	for _, plan := range []string{"plan_001", "plan_002", "plan_003"} {
		s, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: plan})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, s.ID)
	}
	subs, err = Collect(c.Subscriptions(bg), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range subs {
		got = append(got, s.ID)
	}
	slices.Reverse(created)
	if !slices.Equal(got, created) {
		t.Errorf("Subscriptions = %v, want newest first %v", got, created)
	}
	counts := emu.RequestCounts()
	for route, want := range map[string]int{"GET /v1/plans": 2, "GET /v1/esims": 2, "GET /v1/subscriptions": 2} {
		if counts[route] != want {
			t.Errorf("%s requests = %d, want %d", route, counts[route], want)
		}
	}
}

func TestCreatePreconditionFailedInvalidPlan(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, nil)
	c := newTestClient(t, emu.URL, nil)
	for _, tc := range []struct{ plan, message, suggestion string }{
		{"plan_009", "archived", "choose a plan that is not archived"},
		{"plan_006", "addon", "choose a base plan; addons attach to an existing subscription"},
		{"plan_999", "does not exist", "list the account's plans (GET /v1/plans) and use the id of one that is neither archived nor an addon"},
	} {
		_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: tc.plan})
		if !IsPreconditionFailed(err) {
			t.Errorf("%s: error = %v, want IsPreconditionFailed", tc.plan, err)
			continue
		}
		var uncertain *UncertainCreateError
		if errors.As(err, &uncertain) {
			t.Errorf("%s: a 412 is a definite refusal, not an uncertain create: %v", tc.plan, err)
		}
		var apiErr *APIError
		errors.As(err, &apiErr)
		if apiErr.StatusCode != 412 || apiErr.Code != "invalidPlan" || !strings.Contains(apiErr.Message, tc.message) ||
			apiErr.DocsURL != emulator.DocsBaseURL+"invalidPlan" || apiErr.Method != "POST" || apiErr.Path != "/v1/subscriptions" {
			t.Errorf("%s: APIError = %s", tc.plan, dump(apiErr))
		}
		if len(apiErr.Details) != 1 || apiErr.Details[0].Property != "planId" || !slices.Equal(suggestions(apiErr), []string{tc.suggestion}) {
			t.Errorf("%s: Details = %s", tc.plan, dump(apiErr.Details))
		}
		for _, part := range []string{"412", "invalidPlan", tc.plan} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s: error text %q lacks %q", tc.plan, err, part)
			}
		}
	}
	if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 3 {
		t.Errorf("3 refused creates made %d POSTs; a 412 must not be retried", n)
	}
	if emu.Stats().Subscriptions != 0 {
		t.Errorf("subscriptions = %d, want 0", emu.Stats().Subscriptions)
	}
}

func TestCreatePreconditionFailedOutOfInventory(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, dataset(10, 0))
	c := newTestClient(t, emu.URL, nil)

	_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	if !IsPreconditionFailed(err) {
		t.Fatalf("error = %v, want IsPreconditionFailed", err)
	}
	var apiErr *APIError
	errors.As(err, &apiErr)
	if apiErr.Code != CodeOutOfInventory || !strings.Contains(apiErr.Message, `"global"`) || apiErr.DocsURL != emulator.DocsBaseURL+"outOfInventory" {
		t.Errorf("APIError = %s", dump(apiErr))
	}
	if s := suggestions(apiErr); len(s) != 1 || !strings.Contains(s[0], "add eSIMs") {
		t.Errorf("Suggestions = %q", s)
	}

	// Growing the inventory makes the same create succeed.
	if _, err := emu.AddEsims(1, ptr("global")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"}); err != nil {
		t.Fatalf("after AddEsims: %v", err)
	}
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, nil)
	c := newTestClient(t, emu.URL, func(cfg *Config) { cfg.Token = "wrong-token" })
	_, err := c.GetPlan(bg, "plan_001")
	if !statusIs(err, http.StatusUnauthorized) {
		t.Fatalf("error = %v, want a 401", err)
	}
	if strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("error text leaks the token: %v", err)
	}
	if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 1 {
		t.Errorf("401 sent %d times; must not be retried", n)
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{
		{BaseURL: "", Token: "t"},
		{BaseURL: "ftp://example.com", Token: "t"},
		{BaseURL: "example.com/v1", Token: "t"},
		{BaseURL: "http://[::1", Token: "t"},
		{BaseURL: "https://example.com", Token: ""},
		{BaseURL: "https://example.com", Token: "t", MaxRetries: ptr(-1)},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
	c, err := New(Config{BaseURL: "https://api.example.com/base/", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if c.base.String() != "https://api.example.com/base" {
		t.Errorf("base = %s, want the trailing slash trimmed", c.base)
	}
}

func TestBaseURLWithPathPrefix(t *testing.T) {
	t.Parallel()
	var seen strList
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		seen.add(r.URL.EscapedPath())
		writeJSONResponse(w, 200, map[string]any{"id": "plan_001", "name": "x", "dataMegaBytes": 1, "periodDays": 1})
	})
	c := newTestClient(t, srv.URL+"/prefix/", nil)
	if _, err := c.GetPlan(bg, "plan_001"); err != nil {
		t.Fatal(err)
	}
	if want := []string{"/prefix/v1/plans/plan_001"}; !slices.Equal(seen.all(), want) {
		t.Errorf("paths = %q, want %q", seen.all(), want)
	}
}

// TestIDEscapedOnceInPath: an id is one path segment, percent-encoded once.
// The client escapes the id with url.PathEscape and then assigns the result
// to url.URL.Path, which URL.String() escapes a second time ('%' → "%25").
func TestIDEscapedOnceInPath(t *testing.T) {
	t.Parallel()
	var seen, ids strList
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Count(r.URL.Path, "/") < 3 { // the collection a first 404 is checked against
			writeJSONResponse(w, 200, map[string]any{"items": []any{}, "nextPage": nil})
			return
		}
		seen.add(r.URL.EscapedPath())
		ids.add(r.URL.Path)
		writeServiceError(w, 404, "notFound", "no such thing")
	})
	c := newTestClient(t, srv.URL, nil)
	_, _ = c.GetPlan(bg, "a/b c")
	_, _ = c.GetSubscription(bg, "sub 1%")
	if want := []string{"/v1/plans/a%2Fb%20c", "/v1/subscriptions/sub%201%25"}; !slices.Equal(seen.all(), want) {
		t.Errorf("escaped paths = %q, want %q", seen.all(), want)
	}
	if want := []string{"/v1/plans/a/b c", "/v1/subscriptions/sub 1%"}; !slices.Equal(ids.all(), want) {
		t.Errorf("decoded paths = %q, want %q", ids.all(), want)
	}
}
