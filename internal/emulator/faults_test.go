package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// The proxy page names the status it is sent with.
func TestFaultHTMLPageNamesItsStatus(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0)})
	for _, status := range []int{502, 503, 504, 429} {
		srv.SetFaults(rules(emulator.FaultRule{Action: "html", Status: status}))
		r := api(t, srv, "GET", "/v1/plans", "")
		mustStatus(t, r, status)
		want := fmt.Sprintf("<title>%d %s</title>", status, http.StatusText(status))
		if !strings.Contains(string(r.Body), want) || strings.Count(string(r.Body), fmt.Sprintf("%d %s", status, http.StatusText(status))) != 2 {
			t.Errorf("html fault with status %d: page %s, want title and heading %q", status, r.Body, want)
		}
	}
}

// freshClient opens a new connection per request, so that the transport
// never retries a request on its own after a connection was closed.
func freshClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

func rules(r ...emulator.FaultRule) emulator.Faults { return emulator.Faults{Rules: r} }

func TestFaultStatusAnswers(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	for _, c := range []struct {
		faults     emulator.Faults
		status     int
		code       string
		retryAfter string
	}{
		{rules(emulator.FaultRule{Action: "status", Status: 429}), 429, "rateLimited", "1"},
		{emulator.Faults{RetryAfterSeconds: 7, Rules: []emulator.FaultRule{{Action: "status", Status: 429}}}, 429, "rateLimited", "7"},
		{rules(emulator.FaultRule{Action: "status", Status: 500}), 500, "internal", ""},
		{rules(emulator.FaultRule{Action: "status", Status: 503}), 503, "internal", ""},
		{rules(emulator.FaultRule{Action: "status"}), 503, "internal", ""},
		{rules(emulator.FaultRule{Action: "status", Status: 404}), 404, "notFound", ""},
		{rules(emulator.FaultRule{Action: "status", Status: 400}), 400, "invalidRequest", ""},
		{rules(emulator.FaultRule{Action: "status", Status: 401}), 401, "unauthorized", ""},
	} {
		srv.SetFaults(c.faults)
		for _, m := range []struct{ method, path, body string }{
			{"GET", "/v1/plans", ""}, {"GET", "/v1/esims/" + state.ICCID(1), ""}, {"POST", "/v1/subscriptions", createBody(planBasic)},
		} {
			r := api(t, srv, m.method, m.path, m.body)
			requireError(t, r, c.status, c.code)
			if got := r.Header.Get("Retry-After"); got != c.retryAfter {
				t.Errorf("%d: Retry-After %q, want %q", c.status, got, c.retryAfter)
			}
			if c.status == 401 && r.Header.Get("WWW-Authenticate") == "" {
				t.Error("injected 401 without WWW-Authenticate")
			}
		}
	}
	srv.SetFaults(emulator.Faults{})
	if st := srv.Stats(); st.Subscriptions != 0 {
		t.Errorf("injected errors created %d subscriptions", st.Subscriptions)
	}
}

func TestFaultProxyAnswers(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})

	srv.SetFaults(rules(emulator.FaultRule{Action: "html"}))
	r := api(t, srv, "GET", "/v1/plans", "")
	mustStatus(t, r, 502)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(r.Body), "<html>") {
		t.Errorf("html fault: %q %s", ct, r.Body)
	}
	if !strings.Contains(string(r.Body), "502 Bad Gateway") {
		t.Errorf("default html fault page: %s", r.Body)
	}
	srv.SetFaults(rules(emulator.FaultRule{Action: "html", Status: 504}))
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 504)

	srv.SetFaults(rules(emulator.FaultRule{Action: "empty"}))
	r = api(t, srv, "GET", "/v1/plans", "")
	mustStatus(t, r, 502)
	if len(r.Body) != 0 {
		t.Errorf("empty fault has a body: %q", r.Body)
	}

	srv.SetFaults(rules(emulator.FaultRule{Action: "malformed"}))
	r = api(t, srv, "POST", "/v1/subscriptions", createBody(planBasic))
	mustStatus(t, r, 200)
	if json.Valid(r.Body) {
		t.Errorf("malformed fault answered valid JSON: %s", r.Body)
	}
	srv.SetFaults(emulator.Faults{})
	if st := srv.Stats(); st.Subscriptions != 0 {
		t.Errorf("a malformed answer is injected instead of processing; got %d subscriptions", st.Subscriptions)
	}
}

func TestFaultDropAfterProcessing(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	srv.SetFaults(rules(emulator.FaultRule{Action: "drop", Method: "POST"}))
	_, err := trySend(freshClient(), "POST", srv.URL+"/v1/subscriptions", "Bearer "+srv.Token, createBody(planBasic))
	if err == nil {
		t.Fatal("dropped POST got an answer")
	}
	if st := srv.Stats(); st.Subscriptions != 1 || st.FreeEsims != 2 {
		t.Errorf("after a dropped create: %+v, want the subscription created", st)
	}
	// GETs are not matched by the rule: the created subscription is there.
	subs := listAll[emulator.Subscription](t, srv, "/v1/subscriptions", 10)
	if len(subs) != 1 || subs[0].PlanID != planBasic {
		t.Errorf("subscriptions %+v", subs)
	}
	// A request without a token is refused before it could be processed,
	// so it is answered, not dropped.
	r, err := trySend(freshClient(), "POST", srv.URL+"/v1/subscriptions", noAuth, createBody(planBasic))
	if err != nil {
		t.Fatalf("unauthenticated POST under a drop rule: %v", err)
	}
	requireError(t, r, 401, "unauthorized")
	if st := srv.Stats(); st.Subscriptions != 1 {
		t.Errorf("%d subscriptions", st.Subscriptions)
	}
}

func TestFaultResetBeforeProcessing(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	srv.SetFaults(rules(emulator.FaultRule{Action: "reset"}))
	for _, m := range []string{"POST", "GET"} {
		if _, err := trySend(freshClient(), m, srv.URL+"/v1/subscriptions", "Bearer "+srv.Token, map[string]string{"POST": createBody(planBasic)}[m]); err == nil {
			t.Errorf("%s under a reset rule got an answer", m)
		}
	}
	if st := srv.Stats(); st.Subscriptions != 0 || st.FreeEsims != 3 {
		t.Errorf("after a reset create: %+v, want nothing created", st)
	}
}

func TestFaultErrorRate(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	for _, c := range []struct {
		name   string
		faults emulator.Faults
		method string
		pool   []int
	}{
		{"default-get-pool", emulator.Faults{ErrorRate: 1, Seed: 1}, "GET", []int{429, 500, 502, 503}},
		{"custom-get-pool", emulator.Faults{ErrorRate: 1, Seed: 2, Statuses: []int{500, 504}}, "GET", []int{500, 504}},
		{"default-post-pool", emulator.Faults{ErrorRate: 1, Seed: 3}, "POST", []int{429}},
		{"custom-post-pool", emulator.Faults{ErrorRate: 1, Seed: 4, PostStatuses: []int{429, 503}}, "POST", []int{429, 503}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.SetFaults(c.faults)
			seen := map[int]int{}
			for range 100 {
				body := ""
				if c.method == "POST" {
					body = createBody(planBasic)
				}
				r := api(t, srv, c.method, "/v1/subscriptions", body)
				if !slices.Contains(c.pool, r.Status) {
					t.Fatalf("status %d not in the pool %v", r.Status, c.pool)
				}
				code := "internal"
				if r.Status == 429 {
					code = "rateLimited"
					if r.Header.Get("Retry-After") == "" {
						t.Error("429 without Retry-After")
					}
				}
				requireError(t, r, r.Status, code)
				seen[r.Status]++
			}
			if len(seen) != len(c.pool) {
				t.Errorf("100 requests gave statuses %v, want every one of %v", seen, c.pool)
			}
		})
	}
	srv.SetFaults(emulator.Faults{})
	if st := srv.Stats(); st.Subscriptions != 0 {
		t.Errorf("injected errors created %d subscriptions", st.Subscriptions)
	}
	// ErrorRate 0 and Faults{}: everything passes.
	for range 20 {
		mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)
	}
}

// The same seed gives the same sequence of injected answers.
func TestFaultSeedRepeats(t *testing.T) {
	t.Parallel()
	run := func() []int {
		srv := emulatortest.Start(t, emulator.Options{})
		srv.SetFaults(emulator.Faults{ErrorRate: 0.5, Seed: 42})
		var out []int
		for range 60 {
			out = append(out, api(t, srv, "GET", "/v1/plans", "").Status)
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different answers:\n%v\n%v", a, b)
	}
	ok := 0
	for _, s := range a {
		if s == 200 {
			ok++
		}
	}
	if ok < 10 || ok > 50 {
		t.Errorf("ErrorRate 0.5: %d of 60 requests passed", ok)
	}
}

func TestFaultRuleMatchingAndTimes(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(5, 0)})
	srv.SetFaults(rules(
		emulator.FaultRule{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 500, Times: 2},
		emulator.FaultRule{Method: "post", PathPrefix: "/v1/subscriptions", Action: "status", Status: 429, Times: 1},
		emulator.FaultRule{PathPrefix: "/v1/plans", Action: "status", Status: 503}, // after the first rule is used up
	))
	statuses := func(method, path, body string, n int) []int {
		var out []int
		for range n {
			out = append(out, api(t, srv, method, path, body).Status)
		}
		return out
	}
	if got := statuses("GET", "/v1/plans/"+planBasic, "", 4); !slices.Equal(got, []int{500, 500, 503, 503}) {
		t.Errorf("GET /v1/plans/...: %v", got)
	}
	if got := statuses("POST", "/v1/subscriptions", createBody(planBasic), 3); !slices.Equal(got, []int{429, 200, 200}) {
		t.Errorf("POST: %v", got)
	}
	if got := statuses("GET", "/v1/esims", "", 2); !slices.Equal(got, []int{200, 200}) {
		t.Errorf("GET /v1/esims (no rule): %v", got)
	}
	// Faults are for the /v1 API: control operations and the document
	// are not affected.
	srv.SetFaults(rules(emulator.FaultRule{Action: "status", Status: 500}))
	mustStatus(t, ctl(t, srv, "GET", "/_emulator/stats", ""), 200)
	mustStatus(t, send(t, "GET", srv.URL+"/openapi.yaml", noAuth, ""), 200)
	// Setting faults again restarts the Times counts.
	srv.SetFaults(rules(emulator.FaultRule{Action: "status", Status: 500, Times: 1}))
	if got := statuses("GET", "/v1/plans", "", 2); !slices.Equal(got, []int{500, 200}) {
		t.Errorf("after SetFaults: %v", got)
	}
	srv.SetFaults(emulator.Faults{})
	if got := statuses("GET", "/v1/plans", "", 3); !slices.Equal(got, []int{200, 200, 200}) {
		t.Errorf("Faults{}: %v", got)
	}
}

func TestFaultLatency(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	srv.SetFaults(emulator.Faults{LatencyMs: 80})
	start := time.Now()
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("request took %v with 80 ms latency", d)
	}
	// A client that gives up does not keep the emulator busy; the next
	// request after Faults{} is quick again.
	hc := &http.Client{Timeout: 20 * time.Millisecond}
	if _, err := trySend(hc, "GET", srv.URL+"/v1/plans", "Bearer "+srv.Token, ""); err == nil {
		t.Error("a 20 ms client timeout did not fire against 80 ms latency")
	}
	srv.SetFaults(emulator.Faults{})
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)
}

func TestFaultControlEndpoints(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	r := ctl(t, srv, "PUT", "/_emulator/faults", `{"errorRate":1,"statuses":[502],"retryAfterSeconds":3,"rules":[{"method":"POST","action":"status","status":429}]}`)
	mustStatus(t, r, 200)
	got := decode[emulator.Faults](t, r)
	if got.ErrorRate != 1 || !slices.Equal(got.Statuses, []int{502}) || got.RetryAfterSeconds != 3 || len(got.Rules) != 1 || !slices.Equal(got.PostStatuses, []int{429}) {
		t.Errorf("PUT answered %+v", got)
	}
	if g := decode[emulator.Faults](t, ctl(t, srv, "GET", "/_emulator/faults", "")); g.ErrorRate != 1 || len(g.Rules) != 1 {
		t.Errorf("GET %+v", g)
	}
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 502)
	r = api(t, srv, "POST", "/v1/subscriptions", createBody("plan_001"))
	requireError(t, r, 429, "rateLimited")
	if r.Header.Get("Retry-After") != "3" {
		t.Errorf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	requireError(t, ctl(t, srv, "PUT", "/_emulator/faults", `{"errorrate":1,"bogus":true}`), 400, "invalidRequest")
	mustStatus(t, ctl(t, srv, "DELETE", "/_emulator/faults", ""), 204)
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)
	if g := decode[emulator.Faults](t, ctl(t, srv, "GET", "/_emulator/faults", "")); g.ErrorRate != 0 || len(g.Rules) != 0 {
		t.Errorf("after DELETE: %+v", g)
	}
}

// After lets the first N matching requests through: with Times, exactly the
// (N+1)th matching request fails, say the second page of a list.
func TestFaultRuleAfter(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	status := func(path string) int { return api(t, srv, "GET", path, "").Status }
	srv.SetFaults(rules(emulator.FaultRule{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 503, After: 2, Times: 1}))
	var got []int
	for i := range 5 {
		if i == 1 {
			// Requests the rule does not match do not count.
			mustStatus(t, api(t, srv, "GET", "/v1/esims", ""), 200)
		}
		got = append(got, status("/v1/plans"))
	}
	if !slices.Equal(got, []int{200, 200, 503, 200, 200}) {
		t.Errorf("After 2, Times 1: %v", got)
	}
	// Without Times the rule acts on every request after the first N.
	srv.SetFaults(rules(emulator.FaultRule{PathPrefix: "/v1/plans", Action: "status", Status: 500, After: 1}))
	got = nil
	for range 4 {
		got = append(got, status("/v1/plans"))
	}
	if !slices.Equal(got, []int{200, 500, 500, 500}) {
		t.Errorf("After 1: %v", got)
	}
	// The second page of a list fails, the first and a retry of the second
	// succeed.
	srv.SetFaults(rules(emulator.FaultRule{PathPrefix: "/v1/esims", Action: "status", Status: 502, After: 1, Times: 1}))
	first := getPage[state.Esim](t, srv, "/v1/esims", "", 5)
	r := api(t, srv, "GET", "/v1/esims?page="+url.QueryEscape(*first.NextPage)+"&pageSize=5", "")
	requireError(t, r, 502, "internal")
	second := getPage[state.Esim](t, srv, "/v1/esims", *first.NextPage, 5)
	if len(second.Items) != 5 || second.Items[0].ICCID == first.Items[0].ICCID {
		t.Errorf("second page after the injected failure: %v", ids(second.Items, iccid))
	}
}

// A rule with a path hits that path only: the list of subscriptions fails
// while reads of one subscription still answer.
func TestFaultRuleExactPath(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	sub := create(t, srv, planBasic)
	srv.SetFaults(rules(emulator.FaultRule{Method: "GET", Path: "/v1/subscriptions", Action: "status", Status: 503}))
	requireError(t, api(t, srv, "GET", "/v1/subscriptions", ""), 503, "internal")
	mustStatus(t, api(t, srv, "GET", "/v1/subscriptions/"+sub.ID, ""), 200)
	requireError(t, api(t, srv, "GET", "/v1/subscriptions?pageSize=25", ""), 503, "internal")
}

// A slow service has acted on a request when its client gives up waiting
// for the answer: the create made while the client waited is there.
func TestFaultLatencyActsOnWhatItReceived(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	srv.SetFaults(emulator.Faults{LatencyMs: 300})
	hc := &http.Client{Timeout: 50 * time.Millisecond}
	if _, err := trySend(hc, "POST", srv.URL+"/v1/subscriptions", "Bearer "+srv.Token, `{"planId":"plan_001"}`); err == nil {
		t.Fatal("a 50 ms client timeout did not fire against 300 ms latency")
	}
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("%d subscriptions after a create whose client gave up, want 1: the service acts on what it received", n)
	}
}
