package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func getEsim(t *testing.T, srv *emulatortest.Server, iccid string) state.Esim {
	t.Helper()
	r := api(t, srv, "GET", "/v1/esims/"+iccid, "")
	mustStatus(t, r, 200)
	return decode[state.Esim](t, r)
}

func advance(t *testing.T, srv *emulatortest.Server, seconds int64) int64 {
	t.Helper()
	r := ctl(t, srv, "POST", "/_emulator/clock/advance", fmt.Sprintf(`{"seconds":%d}`, seconds))
	mustStatus(t, r, 200)
	return decode[map[string]int64](t, r)["now"]
}

func TestLifecycleActivateUseExpire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		plan     string
		lifetime int64 // periodDays x periodIterations days, in seconds
		bytes    int64
	}{
		{planBasic, 30 * 86400, 1000 * 1_000_000},
		{planRecurring, 7 * 3 * 86400, 100 * 1_000_000},
	} {
		t.Run(tc.plan, func(t *testing.T) {
			t.Parallel()
			// The wall clock stands still: only AdvanceClock moves the
			// emulator's, so "1 s before expireAt" stays so however long
			// a loaded machine (the race detector) takes between requests.
			stopped := time.Unix(1_790_000_000, 0)
			srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(2, 2), Now: func() time.Time { return stopped }})
			sub := create(t, srv, tc.plan)
			if sub.State != emulator.StateReady || sub.ActivatedAt != nil || sub.ExpireAt != nil || !equalAllowance(sub.PurchasedAllowance, sub.RemainingAllownace) {
				t.Fatalf("new subscription %+v", sub)
			}
			if es := getEsim(t, srv, sub.EsimICCID); es.SmdpState != "AVAILABLE" {
				t.Errorf("eSIM of a ready subscription in SM-DP+ state %q", es.SmdpState)
			}

			r := ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", "")
			mustStatus(t, r, 200)
			act := decode[emulator.Subscription](t, r)
			if act.State != emulator.StateActive || act.ActivatedAt == nil || act.ExpireAt == nil {
				t.Fatalf("after activate: %+v", act)
			}
			if now := srv.Now(); *act.ActivatedAt > now || *act.ActivatedAt < now-2 {
				t.Errorf("activatedAt %d, clock %d", *act.ActivatedAt, now)
			}
			if got := *act.ExpireAt - *act.ActivatedAt; got != tc.lifetime {
				t.Errorf("expireAt - activatedAt = %d s, want %d", got, tc.lifetime)
			}
			if got := getSub(t, srv, sub.ID); got.State != emulator.StateActive || !equalPtr(got.ExpireAt, act.ExpireAt) {
				t.Errorf("GET after activate: %+v", got)
			}
			if es := getEsim(t, srv, sub.EsimICCID); es.SmdpState != "INSTALLED" {
				t.Errorf("eSIM of an active subscription in SM-DP+ state %q, want INSTALLED", es.SmdpState)
			}
			requireError(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""), 409, "conflict")

			// Usage lowers the remaining allowance, never below zero.
			remaining := tc.bytes
			for _, use := range []int64{1, tc.bytes / 3, tc.bytes / 2, tc.bytes, 5} {
				r := ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/usage", fmt.Sprintf(`{"dataBytes":%d}`, use))
				mustStatus(t, r, 200)
				remaining = max(remaining-use, 0)
				got := decode[emulator.Subscription](t, r)
				if *got.RemainingAllownace.DataBytes != remaining {
					t.Errorf("after using %d: remaining %d, want %d", use, *got.RemainingAllownace.DataBytes, remaining)
				}
				if *got.PurchasedAllowance.DataBytes != tc.bytes {
					t.Errorf("purchased changed to %d", *got.PurchasedAllowance.DataBytes)
				}
				if g := getSub(t, srv, sub.ID); *g.RemainingAllownace.DataBytes != remaining {
					t.Errorf("GET after usage: remaining %d, want %d", *g.RemainingAllownace.DataBytes, remaining)
				}
			}

			// Time passes: active up to the second before expireAt, expired
			// from expireAt on, in the single GET and the list.
			now := srv.Now()
			if now < *act.ExpireAt-1 {
				now = advance(t, srv, *act.ExpireAt-1-now)
			}
			if got := getSub(t, srv, sub.ID).State; got != emulator.StateActive {
				t.Errorf("1 s before expireAt (clock %d, expireAt %d): state %q", now, *act.ExpireAt, got)
			}
			advance(t, srv, 1)
			exp := getSub(t, srv, sub.ID)
			if exp.State != emulator.StateExpired || !equalPtr(exp.ExpireAt, act.ExpireAt) || !equalPtr(exp.ActivatedAt, act.ActivatedAt) {
				t.Errorf("at expireAt: %+v", exp)
			}
			if list := listAll[emulator.Subscription](t, srv, "/v1/subscriptions", 10); len(list) != 1 || list[0].State != emulator.StateExpired {
				t.Errorf("list after expiry: %+v", list)
			}
			requireError(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/usage", `{"dataBytes":1}`), 409, "conflict")
			requireError(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""), 409, "conflict")

			// A subscription that was never activated stays ready however
			// much time passes.
			other := create(t, srv, tc.plan)
			advance(t, srv, 400*86400)
			if got := getSub(t, srv, other.ID); got.State != emulator.StateReady || got.ExpireAt != nil {
				t.Errorf("unused subscription after 400 days: %+v", got)
			}
		})
	}
}

func TestLifecycleUsageActivates(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0)})
	sub := create(t, srv, planBasic)
	r := ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/usage", `{"dataBytes":1000}`)
	mustStatus(t, r, 200)
	got := decode[emulator.Subscription](t, r)
	if got.State != emulator.StateActive || got.ActivatedAt == nil || *got.ExpireAt-*got.ActivatedAt != 30*86400 {
		t.Errorf("usage on a ready subscription: %+v", got)
	}
	if *got.RemainingAllownace.DataBytes != 1000*1_000_000-1000 {
		t.Errorf("remaining %d", *got.RemainingAllownace.DataBytes)
	}
}

func TestControlErrors(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(2, 0)})
	sub := create(t, srv, planBasic)
	es := sub.EsimICCID
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/_emulator/subscriptions/sub_nope/activate", "", 404, "notFound"},
		{"POST", "/_emulator/subscriptions/sub_nope/usage", `{"dataBytes":1}`, 404, "notFound"},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", `{"dataBytes":0}`, 400, "invalidRequest"},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", `{"dataBytes":-1}`, 400, "invalidRequest"},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", `{"dataBytes":1.5}`, 400, "invalidRequest"},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", `{"bytes":1}`, 400, "invalidRequest"},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", ``, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/location", `{"countryIso2":"DEU"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/location", `{"countryIso2":""}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/location", `{"countryIso2":"D1"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/location", `{"country":"DE"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/0000/location", `{"countryIso2":"DE"}`, 404, "notFound"},
		{"POST", "/_emulator/esims/" + es + "/smdp-state", `{"state":"released"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/smdp-state", `{"state":""}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/" + es + "/smdp-state", `{"state":"RE LEASED"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims/0000/smdp-state", `{"state":"RELEASED"}`, 404, "notFound"},
		{"POST", "/_emulator/esims", `{"count":0}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims", `{"count":100001}`, 400, "invalidRequest"},
		{"POST", "/_emulator/esims", `{"count":1,"labels":"x"}`, 400, "invalidRequest"},
		{"POST", "/_emulator/clock/advance", `{"seconds":0}`, 400, "invalidRequest"},
		{"POST", "/_emulator/clock/advance", `{"seconds":-60}`, 400, "invalidRequest"},
		{"PUT", "/_emulator/faults", `{"errorRate":"high"}`, 400, "invalidRequest"},
	} {
		t.Run(c.method+" "+c.path+" "+c.body, func(t *testing.T) {
			requireError(t, ctl(t, srv, c.method, c.path, c.body), c.status, c.code)
		})
	}
	// None of that changed anything.
	if got := getSub(t, srv, sub.ID); got.State != emulator.StateReady || !equalAllowance(got.PurchasedAllowance, got.RemainingAllownace) {
		t.Errorf("subscription changed: %+v", got)
	}
	if got := getEsim(t, srv, es); got.CountryISO2 != nil || got.SmdpState != "AVAILABLE" {
		t.Errorf("eSIM changed: %+v", got)
	}
}

func TestControlEsimLocationAndSmdpState(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(2, 0)})
	sub := create(t, srv, planBasic)
	free := state.ICCID(2)
	for _, iccid := range []string{sub.EsimICCID, free} {
		r := ctl(t, srv, "POST", "/_emulator/esims/"+iccid+"/location", `{"countryIso2":"de"}`)
		mustStatus(t, r, 200)
		if got := decode[state.Esim](t, r); got.CountryISO2 == nil || *got.CountryISO2 != "DE" {
			t.Errorf("location answer %+v", got)
		}
		if got := getEsim(t, srv, iccid); got.CountryISO2 == nil || *got.CountryISO2 != "DE" {
			t.Errorf("eSIM after location: %+v", got)
		}
		r = ctl(t, srv, "POST", "/_emulator/esims/"+iccid+"/smdp-state", `{"state":"RELEASED"}`)
		mustStatus(t, r, 200)
		if got := decode[state.Esim](t, r); got.SmdpState != "RELEASED" {
			t.Errorf("smdp-state answer %+v", got)
		}
		if got := getEsim(t, srv, iccid); got.SmdpState != "RELEASED" {
			t.Errorf("eSIM after smdp-state: %+v", got)
		}
	}
	// The assignment is untouched by either.
	if got := getEsim(t, srv, sub.EsimICCID); got.SubscriptionID == nil || *got.SubscriptionID != sub.ID {
		t.Errorf("assignment lost: %+v", got)
	}
}

func TestControlAddEsims(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0)})
	requireError(t, api(t, srv, "POST", "/v1/subscriptions", createBody(planAsia)), 412, "outOfInventory")
	before := listAll[state.Esim](t, srv, "/v1/esims", 25)

	r := ctl(t, srv, "POST", "/_emulator/esims", `{"count":2,"label":"asia"}`)
	mustStatus(t, r, 200)
	if got := decode[map[string]int](t, r); got["added"] != 2 {
		t.Errorf("answer %s", r.Body)
	}
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":3}`), 200)
	after := listAll[state.Esim](t, srv, "/v1/esims", 25)
	if len(after) != len(before)+5 || !slices.EqualFunc(before, after[:len(before)], func(a, b state.Esim) bool { return a.ICCID == b.ICCID }) {
		t.Fatalf("eSIMs %v after adding 5 to %v", ids(after, iccid), ids(before, iccid))
	}
	seen := map[string]bool{}
	for i, es := range after {
		if seen[es.ICCID] || !state.ValidICCID(es.ICCID) {
			t.Errorf("eSIM %d: ICCID %q duplicate or invalid", i, es.ICCID)
		}
		seen[es.ICCID] = true
		if i < len(before) {
			continue
		}
		wantLabel := (*string)(nil)
		if i < len(before)+2 {
			wantLabel = ptr("asia")
		}
		if !equalPtr(es.Label, wantLabel) || es.SmdpState != "AVAILABLE" || es.SubscriptionID != nil {
			t.Errorf("added eSIM %+v", es)
		}
	}
	// The create that was out of inventory now succeeds, as often as there
	// are new asia eSIMs.
	for range 2 {
		sub := create(t, srv, planAsia)
		if es := getEsim(t, srv, sub.EsimICCID); !equalPtr(es.Label, ptr("asia")) {
			t.Errorf("asia plan got eSIM %+v", es)
		}
	}
	requireError(t, api(t, srv, "POST", "/v1/subscriptions", createBody(planAsia)), 412, "outOfInventory")
	if st := srv.Stats(); st.FreeEsims != 1+3 || st.Subscriptions != 2 {
		t.Errorf("stats %+v", st)
	}
}

// An added eSIM's ICCID must not collide with one of the data set.
func TestControlAddEsimsAvoidsDatasetICCIDs(t *testing.T) {
	t.Parallel()
	ds := &state.Dataset{Esims: []state.Esim{{ICCID: state.ICCID(1_000_000)}, {ICCID: state.ICCID(1_000_001)}}}
	srv := emulatortest.Start(t, emulator.Options{Dataset: ds})
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":4}`), 200)
	all := listAll[state.Esim](t, srv, "/v1/esims", 25)
	seen := map[string]bool{}
	for _, es := range all {
		if seen[es.ICCID] {
			t.Errorf("ICCID %s twice", es.ICCID)
		}
		seen[es.ICCID] = true
	}
	if len(all) != 6 {
		t.Errorf("%d eSIMs, want 6", len(all))
	}
}

func TestControlClockAndReset(t *testing.T) {
	t.Parallel()
	ds := smallDataset(3, 1)
	srv := emulatortest.Start(t, emulator.Options{Dataset: ds})
	r := ctl(t, srv, "GET", "/_emulator/clock", "")
	mustStatus(t, r, 200)
	start := decode[map[string]int64](t, r)["now"]
	if wall := time.Now().Unix(); start < wall-2 || start > wall+2 {
		t.Errorf("clock %d, wall clock %d", start, wall)
	}
	if now := advance(t, srv, 7200); now < start+7200 || now > start+7202 {
		t.Errorf("after advancing 7200 s: %d, was %d", now, start)
	}
	sub := create(t, srv, planBasic)
	if sub.CreatedAt < start+7200 {
		t.Errorf("createdAt %d does not follow the advanced clock (%d)", sub.CreatedAt, start+7200)
	}
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""), 200)
	moveEsim(t, srv, state.ICCID(2), "US")
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims", `{"count":5}`), 200)
	api(t, srv, "POST", "/v1/subscriptions", `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`)

	r = ctl(t, srv, "POST", "/_emulator/reset", "")
	mustStatus(t, r, 204)
	if len(r.Body) != 0 {
		t.Errorf("204 with a body: %s", r.Body)
	}
	if now := srv.Now(); now > time.Now().Unix()+2 {
		t.Errorf("clock after reset %d is still ahead", now)
	}
	if st := srv.Stats(); st.Subscriptions != 0 || st.FreeEsims != 4 {
		t.Errorf("stats after reset %+v", st)
	}
	r = api(t, srv, "GET", "/v1/subscriptions/"+sub.ID, "")
	requireError(t, r, 404, "notFound")
	esims := listAll[state.Esim](t, srv, "/v1/esims", 25)
	plans := listAll[state.Plan](t, srv, "/v1/plans", 25)
	if !slices.Equal(ids(esims, iccid), ids(ds.Esims, iccid)) || !slices.Equal(ids(plans, planID), ids(ds.Plans, planID)) {
		t.Errorf("after reset: eSIMs %v plans %v", ids(esims, iccid), ids(plans, planID))
	}
	for _, es := range esims {
		if es.SubscriptionID != nil || es.CountryISO2 != nil || es.SmdpState != "AVAILABLE" {
			t.Errorf("eSIM after reset %+v", es)
		}
	}
	// The data set handed to New was not changed by any of it.
	if ds.Esims[0].SubscriptionID != nil || len(ds.Esims) != 4 || len(ds.Plans) != 6 {
		t.Error("the caller's Dataset was modified")
	}
}

func TestControlStats(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	create(t, srv, planBasic)
	api(t, srv, "GET", "/v1/plans", "")
	api(t, srv, "GET", "/v1/plans/x", "")
	send(t, "GET", srv.URL+"/v1/plans", noAuth, "") // counted even when refused
	r := ctl(t, srv, "GET", "/_emulator/stats", "")
	mustStatus(t, r, 200)
	var st emulator.Stats
	if err := json.Unmarshal(r.Body, &st); err != nil {
		t.Fatal(err)
	}
	if st.Subscriptions != 1 || st.FreeEsims != 2 || st.Webhooks != nil {
		t.Errorf("stats %s", r.Body)
	}
	want := map[string]int{"POST /v1/subscriptions": 1, "GET /v1/plans": 2, "GET /v1/plans/{id}": 1}
	for k, v := range want {
		if st.Requests[k] != v {
			t.Errorf("requests[%q] = %d, want %d (all: %v)", k, st.Requests[k], v, st.Requests)
		}
	}
}

// Control operations need no token and answer only on loopback: called
// from another address they answer 403 and change nothing.
func TestControlLoopbackOnly(t *testing.T) {
	t.Parallel()
	emu, err := emulator.New(emulator.Options{Token: "tok", Dataset: smallDataset(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emu.Close)
	const loopback, remote = "127.0.0.1:5555", "203.0.113.7:1234"
	r := serve(emu, "POST", "/v1/subscriptions", remote, "Bearer tok", createBody(planBasic))
	mustStatus(t, r, 200) // the API itself is for everyone with the token
	sub := decode[emulator.Subscription](t, r)

	calls := []struct {
		method, path, body string
		status             int // on loopback, without a token
	}{
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/usage", `{"dataBytes":5}`, 200},
		{"POST", "/_emulator/subscriptions/" + sub.ID + "/activate", "", 409}, // usage activated it
		{"POST", "/_emulator/esims/" + sub.EsimICCID + "/location", `{"countryIso2":"IT"}`, 200},
		{"POST", "/_emulator/esims/" + sub.EsimICCID + "/smdp-state", `{"state":"DISABLED"}`, 200},
		{"POST", "/_emulator/esims", `{"count":1}`, 200},
		{"GET", "/_emulator/clock", "", 200},
		{"POST", "/_emulator/clock/advance", `{"seconds":60}`, 200},
		{"GET", "/_emulator/faults", "", 200},
		{"PUT", "/_emulator/faults", `{"latencyMs":0}`, 200},
		{"DELETE", "/_emulator/faults", "", 204},
		{"GET", "/_emulator/stats", "", 200},
		{"POST", "/_emulator/reset", "", 204},
	}
	for _, c := range calls {
		for _, addr := range []string{remote, "198.51.100.1:80", "[2001:db8::1]:443", "10.0.0.1:1", "0.0.0.0:1"} {
			for _, authz := range []string{noAuth, "Bearer tok"} {
				requireError(t, serve(emu, c.method, c.path, addr, authz, c.body), http.StatusForbidden, "forbidden")
			}
		}
	}
	// Nothing the refused calls asked for happened.
	st := emu.Stats()
	if st.Subscriptions != 1 || st.FreeEsims != 1 {
		t.Errorf("after refused control calls: %+v", st)
	}
	got := decode[emulator.Subscription](t, serve(emu, "GET", "/v1/subscriptions/"+sub.ID, remote, "Bearer tok", ""))
	if got.State != emulator.StateReady {
		t.Errorf("subscription state %q after refused usage", got.State)
	}
	// The same calls from loopback (IPv4 and IPv6), without a token, work.
	for i, c := range calls {
		addr := loopback
		if i%2 == 1 {
			addr = "[::1]:5555"
		}
		if r := serve(emu, c.method, c.path, addr, noAuth, c.body); r.Status != c.status {
			t.Errorf("%s %s from %s: %d, want %d: %s", c.method, c.path, addr, r.Status, c.status, r.Body)
		}
	}
}

// Unknown control operations answer with the Error body, like the API.
func TestUnknownControlOperation(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	requireError(t, ctl(t, srv, "POST", "/_emulator/nothing-here", ""), 404, "notFound")
}
