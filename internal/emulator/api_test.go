package emulator_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// useToken, as an apiCase's authz, sends the emulator's own token.
const useToken = "\x00token"

// apiCase is one request of the contract table and the answer it must get.
type apiCase struct {
	name   string
	method string
	path   string
	body   string
	authz  string // useToken, noAuth or a literal header value
	status int
	code   string // error code when status is not 200
	// undocumented marks requests the OpenAPI document has no operation for.
	undocumented bool
	// lenient marks a request the document does not allow but the emulator
	// accepts (null for an absent field).
	lenient bool
}

// contractFixture is an emulator holding one subscription to point at.
type contractFixture struct {
	srv   *emulatortest.Server
	sub   emulator.Subscription
	iccid string
}

func (c apiCase) do(t *testing.T, srv *emulatortest.Server) response {
	t.Helper()
	authz := c.authz
	if authz == useToken {
		authz = "Bearer " + srv.Token
	}
	return send(t, c.method, srv.URL+c.path, authz, c.body)
}

func TestContractEveryPathAndError(t *testing.T) {
	t.Parallel()
	fx := newContractFixture(t)
	for _, c := range contractCases(fx) {
		t.Run(c.name, func(t *testing.T) {
			r := c.do(t, fx.srv)
			if c.status == 200 {
				mustStatus(t, r, 200)
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				var v map[string]any
				if err := json.Unmarshal(r.Body, &v); err != nil {
					t.Fatalf("body is not a JSON object: %v", err)
				}
				return
			}
			requireError(t, r, c.status, c.code)
			if c.status == 401 && !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without a Bearer WWW-Authenticate challenge: %q", r.Header.Get("WWW-Authenticate"))
			}
		})
	}
	// Nothing that failed created anything: one fixture subscription plus
	// the six successful creates of the table.
	if got := fx.srv.Stats().Subscriptions; got != 1+6 {
		t.Errorf("Stats().Subscriptions = %d, want 7", got)
	}
}

func TestCreateWithPlanID(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 3)})
	before := srv.Now()
	for _, tc := range []struct {
		plan      string
		dataMB    int64
		label     *string
		wantIters int64
	}{
		{planBasic, 1000, nil, 1},
		{planEurope, 2000, ptr("europe"), 1},
		{planRecurring, 100, ptr("europe"), 3},
	} {
		r := api(t, srv, "POST", "/v1/subscriptions", createBody(tc.plan))
		mustStatus(t, r, 200)
		var raw map[string]any
		if err := json.Unmarshal(r.Body, &raw); err != nil {
			t.Fatal(err)
		}
		// Section 2.1: every field is required, nullable ones as null.
		want := []string{"activatedAt", "createdAt", "esimIccid", "expireAt", "id", "metadata", "plan", "planId", "purchasedAllowance", "remainingAllownace", "state"}
		if got := sortedKeys(raw); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("subscription keys %v, want %v", got, want)
		}
		if raw["activatedAt"] != nil || raw["expireAt"] != nil {
			t.Errorf("new subscription has activatedAt %v, expireAt %v; want null", raw["activatedAt"], raw["expireAt"])
		}
		sub := decode[emulator.Subscription](t, r)
		if sub.PlanID != tc.plan || sub.State != emulator.StateReady || !strings.HasPrefix(sub.ID, "sub_") {
			t.Errorf("got planId %q state %q id %q", sub.PlanID, sub.State, sub.ID)
		}
		if sub.CreatedAt < before || sub.CreatedAt > srv.Now() {
			t.Errorf("createdAt %d not within [%d, %d]", sub.CreatedAt, before, srv.Now())
		}
		if !state.ValidICCID(sub.EsimICCID) {
			t.Errorf("esimIccid %q is not a valid ICCID", sub.EsimICCID)
		}
		if sub.Plan.DataMegaBytes != tc.dataMB || sub.Plan.PeriodIterations != tc.wantIters || !equalPtr(sub.Plan.Label, tc.label) {
			t.Errorf("plan %+v", sub.Plan)
		}
		if sub.PurchasedAllowance.DataBytes == nil || *sub.PurchasedAllowance.DataBytes != tc.dataMB*1_000_000 {
			t.Errorf("purchased %v, want %d bytes", sub.PurchasedAllowance.DataBytes, tc.dataMB*1_000_000)
		}
		if !equalAllowance(sub.PurchasedAllowance, sub.RemainingAllownace) {
			t.Errorf("remainingAllownace %+v != purchasedAllowance %+v", sub.RemainingAllownace, sub.PurchasedAllowance)
		}
		if sub.Metadata == nil || len(sub.Metadata) != 0 {
			t.Errorf("metadata %v, want {}", sub.Metadata)
		}
		// The eSIM is assigned, with the plan's label, and the GET of the
		// subscription answers the same record.
		es := decode[state.Esim](t, api(t, srv, "GET", "/v1/esims/"+sub.EsimICCID, ""))
		if es.SubscriptionID == nil || *es.SubscriptionID != sub.ID {
			t.Errorf("eSIM %s subscriptionId %v, want %s", es.ICCID, es.SubscriptionID, sub.ID)
		}
		if tc.label != nil && !equalPtr(es.Label, tc.label) {
			t.Errorf("eSIM label %v, want %v", es.Label, *tc.label)
		}
		got := api(t, srv, "GET", "/v1/subscriptions/"+sub.ID, "")
		mustStatus(t, got, 200)
		if string(got.Body) != string(r.Body) {
			t.Errorf("GET answers\n%s\ncreate answered\n%s", got.Body, r.Body)
		}
	}
}

func TestCreateInlinePlan(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(2, 0)})
	var ids []string
	for i, cov := range []string{"cov-a", "cov-b"} {
		body := fmt.Sprintf(`{"plan":{"coverageId":%q,"dataMBs":%d,"periodDays":%d}}`, cov, 100*(i+1), 7*(i+1))
		sub := decode[emulator.Subscription](t, api(t, srv, "POST", "/v1/subscriptions", body))
		if sub.PlanID == "" || sub.PlanID == planBasic {
			t.Fatalf("planId %q, want the id of a new custom plan", sub.PlanID)
		}
		ids = append(ids, sub.PlanID)
		if sub.Plan.DataMegaBytes != int64(100*(i+1)) || sub.Plan.PeriodDays != int64(7*(i+1)) || !equalPtr(sub.Plan.CoverageProfileID, &cov) {
			t.Errorf("subscription plan %+v", sub.Plan)
		}
		if *sub.PurchasedAllowance.DataBytes != int64(100*(i+1))*1_000_000 {
			t.Errorf("purchased %d", *sub.PurchasedAllowance.DataBytes)
		}
		r := api(t, srv, "GET", "/v1/plans/"+sub.PlanID, "")
		mustStatus(t, r, 200)
		p := decode[state.Plan](t, r)
		if p.ID != sub.PlanID || p.DataMegaBytes != int64(100*(i+1)) || p.PeriodDays != int64(7*(i+1)) || p.PeriodIterations != 1 ||
			!equalPtr(p.CoverageProfileID, &cov) || p.Archived || p.Addon {
			t.Errorf("custom plan %+v", p)
		}
	}
	if ids[0] == ids[1] {
		t.Errorf("two inline plans share the id %q", ids[0])
	}
	// Inventory is now empty: an inline create fails with outOfInventory and
	// leaves no custom plan behind.
	plansBefore := countAll[state.Plan](t, srv, "/v1/plans")
	requireError(t, api(t, srv, "POST", "/v1/subscriptions", `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`), 412, "outOfInventory")
	if got := countAll[state.Plan](t, srv, "/v1/plans"); got != plansBefore {
		t.Errorf("a failed inline create left a plan behind: %d plans, had %d", got, plansBefore)
	}
	// The custom plans are ordinary plans: subscribing to one by id works
	// once there is inventory again.
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":1}`), 200)
	if sub := create(t, srv, ids[0]); sub.PlanID != ids[0] {
		t.Errorf("planId %q, want %q", sub.PlanID, ids[0])
	}
}

// TestCreateHugeInlinePlan: an inline plan the emulator accepts must give a
// subscription the OpenAPI document allows (purchasedAllowance.dataBytes
// minimum 0) and an expireAt that is after activatedAt.
func TestCreateHugeInlinePlan(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(4, 0)})
	for _, body := range []string{
		fmt.Sprintf(`{"plan":{"coverageId":"c","dataMBs":%d,"periodDays":30}}`, int64(math.MaxInt64)),
		fmt.Sprintf(`{"plan":{"coverageId":"c","dataMBs":%d,"periodDays":30}}`, int64(math.MaxInt64/1_000_000+1)),
		fmt.Sprintf(`{"plan":{"coverageId":"c","dataMBs":1,"periodDays":%d}}`, int64(math.MaxInt64)),
	} {
		r := api(t, srv, "POST", "/v1/subscriptions", body)
		if r.Status == 400 {
			requireError(t, r, 400, "invalidRequest")
			continue
		}
		mustStatus(t, r, 200)
		sub := decode[emulator.Subscription](t, r)
		if d := *sub.PurchasedAllowance.DataBytes; d < 0 {
			t.Errorf("BUG: %s: accepted, and purchasedAllowance.dataBytes overflowed to %d", body, d)
		}
		act := decode[emulator.Subscription](t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""))
		if act.ExpireAt == nil || act.ActivatedAt == nil || *act.ExpireAt <= *act.ActivatedAt {
			t.Errorf("BUG: %s: accepted, and after activation expireAt %v is not after activatedAt %v", body, deref(act.ExpireAt), deref(act.ActivatedAt))
		}
	}
}

func TestOutOfInventoryPerLabel(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 2)})
	create(t, srv, planEurope)
	create(t, srv, planRecurring) // same label
	requireError(t, api(t, srv, "POST", "/v1/subscriptions", createBody(planEurope)), 412, "outOfInventory")
	// An unlabelled eSIM is free but does not serve a labelled plan; it
	// does serve a plan without a label.
	if st := srv.Stats(); st.FreeEsims != 1 {
		t.Fatalf("FreeEsims = %d, want 1", st.FreeEsims)
	}
	create(t, srv, planBasic)
	requireError(t, api(t, srv, "POST", "/v1/subscriptions", createBody(planBasic)), 412, "outOfInventory")
	if st := srv.Stats(); st.Subscriptions != 3 || st.FreeEsims != 0 {
		t.Errorf("stats %+v", st)
	}
}

// A plan without a label takes an eSIM without a label
// while there is one, so it does not use up an eSIM a labelled plan needs
// (the provider's plan-time check counts on it); it falls back to a
// labelled eSIM only when no unlabelled one is free. The choice survives a
// restart and holds for eSIMs added later.
func TestUnlabelledPlanPrefersUnlabelledEsim(t *testing.T) {
	t.Parallel()
	ds := smallDataset(0, 2) // two europe eSIMs first in index order
	for n := uint64(3); n <= 4; n++ {
		ds.Esims = append(ds.Esims, state.Esim{ICCID: state.ICCID(n), CreatedAt: 1767225600 + int64(n)})
	}
	path := filepath.Join(t.TempDir(), "state.db")
	first := emulatortest.Start(t, emulator.Options{Dataset: ds, StatePath: path})
	if got := create(t, first, planBasic).EsimICCID; got != state.ICCID(3) {
		t.Errorf("first unlabelled create got eSIM %s, want the unlabelled %s", got, state.ICCID(3))
	}
	first.Close()
	srv := emulatortest.Start(t, emulator.Options{StatePath: path})
	if got := create(t, srv, planBasic).EsimICCID; got != state.ICCID(4) {
		t.Errorf("unlabelled create after restart got eSIM %s, want the unlabelled %s", got, state.ICCID(4))
	}
	for _, plan := range []string{planEurope, planRecurring} {
		r := api(t, srv, "POST", "/v1/subscriptions", createBody(plan))
		if r.Status != http.StatusOK {
			t.Fatalf("europe create %s after two unlabelled creates: %d %s, want 200", plan, r.Status, r.Body)
		}
	}

	// Nothing unlabelled is free: a plan without a label takes a labelled eSIM.
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":1,"label":"europe"}`), 200)
	fallback := create(t, srv, planBasic)
	if es := decode[state.Esim](t, api(t, srv, "GET", "/v1/esims/"+fallback.EsimICCID, "")); es.Label == nil || *es.Label != "europe" {
		t.Errorf("fallback create got eSIM %+v, want the added europe one", es)
	}
	// Added later, an unlabelled eSIM is still preferred to a labelled one
	// added before it.
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":1,"label":"europe"}`), 200)
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":1}`), 200)
	if es := decode[state.Esim](t, api(t, srv, "GET", "/v1/esims/"+create(t, srv, planBasic).EsimICCID, "")); es.Label != nil {
		t.Errorf("unlabelled create got eSIM %+v, want the added unlabelled one", es)
	}
	create(t, srv, planEurope)
}

func TestOpenAPIDocumentServed(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	r := send(t, "GET", srv.URL+"/openapi.yaml", noAuth, "")
	mustStatus(t, r, 200)
	if string(r.Body) != string(emulator.OpenAPIDocument()) {
		t.Error("GET /openapi.yaml differs from OpenAPIDocument()")
	}
	if !strings.HasPrefix(string(r.Body), "openapi: 3.0.3") {
		t.Errorf("document starts %q", r.Body[:20])
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", " ", "\t\n"} {
		if _, err := emulator.New(emulator.Options{Token: token}); err == nil {
			t.Errorf("New with token %q succeeded", token)
		}
	}
	for name, ds := range map[string]state.Dataset{
		"bad-iccid":      {Esims: []state.Esim{{ICCID: "1234"}}},
		"bad-luhn":       {Esims: []state.Esim{{ICCID: state.ICCID(1)[:18] + "0"}}},
		"dup-iccid":      {Esims: []state.Esim{{ICCID: state.ICCID(1)}, {ICCID: state.ICCID(1)}}},
		"dup-plan":       {Plans: []state.Plan{{ID: "a", DataMegaBytes: 1, PeriodDays: 1}, {ID: "a", DataMegaBytes: 1, PeriodDays: 1}}},
		"empty-plan-id":  {Plans: []state.Plan{{DataMegaBytes: 1, PeriodDays: 1}}},
		"plan-zero-data": {Plans: []state.Plan{{ID: "a", PeriodDays: 1}}},
	} {
		if name == "bad-luhn" && state.ValidICCID(ds.Esims[0].ICCID) {
			ds.Esims[0].ICCID = state.ICCID(1)[:18] + "1"
		}
		if _, err := emulator.New(emulator.Options{Token: "t", Dataset: &ds}); err == nil {
			t.Errorf("%s: New accepted the data set", name)
		}
	}
}

// countAll pages through a list with the largest page size and counts.
func countAll[T any](t *testing.T, srv *emulatortest.Server, list string) int {
	t.Helper()
	return len(listAll[T](t, srv, list, 25))
}

// The bearer scheme name is case-insensitive (RFC 7235); the token is not.
func TestAuthSchemeCaseInsensitive(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		mustStatus(t, send(t, "GET", srv.URL+"/v1/plans", scheme+" "+srv.Token, ""), 200)
	}
	requireError(t, send(t, "GET", srv.URL+"/v1/plans", "Bearer "+srv.Token+"x", ""), 401, "unauthorized")
	requireError(t, send(t, "GET", srv.URL+"/v1/plans", "Basic "+srv.Token, ""), 401, "unauthorized")
}

// Two emulators with SequentialIDs issue the same ids, in order.
func TestSequentialIDsAreTheSameAtTwoEmulators(t *testing.T) {
	var issued [2][]string
	for i := range issued {
		srv := emulatortest.Start(t, emulator.Options{SequentialIDs: true})
		for range 3 {
			issued[i] = append(issued[i], create(t, srv, "plan_001").ID)
		}
	}
	want := []string{"sub_0000000000000001", "sub_0000000000000002", "sub_0000000000000003"}
	if !slices.Equal(issued[0], want) || !slices.Equal(issued[1], want) {
		t.Errorf("issued %v and %v, want %v at each", issued[0], issued[1], want)
	}
}
