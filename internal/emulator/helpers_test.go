package emulator_test

// The test kit of the HTTP tests (package emulator_test): serve and call
// for one request without a socket, fixtures of the contract's cases, and
// comparisons of the wire records. Tests inside the package use
// export_test.go's Serve; tests of the store itself live in package state.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// response is one answer of the emulator, read completely.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) String() string {
	return http.StatusText(r.Status) + " " + string(r.Body)
}

// noAuth, as the authz argument of send, sends no Authorization header.
const noAuth = ""

// send makes one request to url with the given Authorization header value
// (noAuth for none) and a JSON body (empty for none).
func send(tb testing.TB, method, url, authz, body string) response {
	tb.Helper()
	r, err := trySend(http.DefaultClient, method, url, authz, body)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

func trySend(hc *http.Client, method, url, authz, body string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return response{}, err
	}
	if authz != noAuth {
		req.Header.Set("Authorization", authz)
	}
	if body != "" || method == http.MethodPost || method == http.MethodPut {
		// Control operations take JSON only, body or not.
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, nil
}

// api calls a /v1 operation with the emulator's token.
func api(tb testing.TB, srv *emulatortest.Server, method, path, body string) response {
	tb.Helper()
	return send(tb, method, srv.URL+path, "Bearer "+srv.Token, body)
}

// ctl calls a control operation (no token).
func ctl(tb testing.TB, srv *emulatortest.Server, method, path, body string) response {
	tb.Helper()
	return send(tb, method, srv.URL+path, noAuth, body)
}

func decode[T any](tb testing.TB, r response) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(r.Body, &v); err != nil {
		tb.Fatalf("decoding %T from %s: %v", v, r, err)
	}
	return v
}

// moveEsim reports, through the control API, that the eSIM was seen in
// country (ISO 3166 alpha-2).
func moveEsim(tb testing.TB, srv *emulatortest.Server, iccid, country string) {
	tb.Helper()
	mustStatus(tb, ctl(tb, srv, "POST", "/_emulator/esims/"+iccid+"/location", `{"countryIso2":"`+country+`"}`), 200)
}

func mustStatus(tb testing.TB, r response, want int) {
	tb.Helper()
	if r.Status != want {
		tb.Fatalf("status %d, want %d; body %s", r.Status, want, r.Body)
	}
}

// requireError checks the status and that the body is an Error (code,
// message, docsUrl present, docsUrl a string or null) with the given code.
func requireError(tb testing.TB, r response, status int, code string) {
	tb.Helper()
	mustStatus(tb, r, status)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		tb.Errorf("Content-Type %q, want application/json", ct)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		tb.Fatalf("error body is not a JSON object: %v: %s", err, r.Body)
	}
	for _, k := range []string{"code", "message", "docsUrl"} {
		if _, ok := body[k]; !ok {
			tb.Errorf("error body lacks %q: %s", k, r.Body)
		}
	}
	if c, _ := body["code"].(string); c != code {
		tb.Errorf("code %q, want %q; body %s", body["code"], code, r.Body)
	}
	if m, _ := body["message"].(string); m == "" {
		tb.Errorf("message is empty or not a string: %s", r.Body)
	}
	switch u := body["docsUrl"].(type) {
	case nil, string:
		if s, ok := u.(string); ok && !strings.HasPrefix(s, "http") {
			tb.Errorf("docsUrl %q is not a URL", s)
		}
	default:
		tb.Errorf("docsUrl is %T, want string or null", u)
	}
}

// Plans of the small test data set.
const (
	planBasic     = "p_basic"     // no label: any free eSIM
	planEurope    = "p_europe"    // label europe
	planAsia      = "p_asia"      // label asia: the data set has no asia eSIM
	planArchived  = "p_archived"  // archived
	planAddon     = "p_addon"     // addon
	planRecurring = "p_recurring" // 7 days x 3 iterations, label europe
)

// smallDataset has the plans above, nFree unlabelled eSIMs and nEurope eSIMs
// labelled europe (serials 1.. in that order; plans without a label take the
// first free eSIM of any label, so the unlabelled ones go first).
func smallDataset(nFree, nEurope int) *state.Dataset {
	str := func(s string) *string { return &s }
	ds := &state.Dataset{Plans: []state.Plan{
		{ID: planBasic, Name: "basic", DataMegaBytes: 1000, PeriodDays: 30, PeriodIterations: 1, CreatedAt: 1767225600},
		{ID: planEurope, Name: "europe", DataMegaBytes: 2000, PeriodDays: 15, PeriodIterations: 1, Label: str("europe"), CoverageProfileID: str("cov-eu"), CreatedAt: 1767225601},
		{ID: planAsia, Name: "asia", DataMegaBytes: 3000, PeriodDays: 15, PeriodIterations: 1, Label: str("asia"), CoverageProfileID: str("cov-apac"), CreatedAt: 1767225602},
		{ID: planArchived, Name: "old", DataMegaBytes: 1000, PeriodDays: 30, PeriodIterations: 1, Archived: true, CreatedAt: 1767225603},
		{ID: planAddon, Name: "addon", DataMegaBytes: 500, PeriodDays: 30, PeriodIterations: 1, Addon: true, CreatedAt: 1767225604},
		{ID: planRecurring, Name: "recurring", DataMegaBytes: 100, PeriodDays: 7, PeriodIterations: 3, ThrottledSpeedKbps: 512, Label: str("europe"), CoverageProfileID: str("cov-eu"), CreatedAt: 1767225605},
	}}
	n := uint64(1)
	for range nFree {
		ds.Esims = append(ds.Esims, state.Esim{ICCID: state.ICCID(n), CreatedAt: 1767225600 + int64(n)})
		n++
	}
	for range nEurope {
		ds.Esims = append(ds.Esims, state.Esim{ICCID: state.ICCID(n), Label: str("europe"), CreatedAt: 1767225600 + int64(n)})
		n++
	}
	return ds
}

func createBody(planID string) string { return `{"planId":"` + planID + `"}` }

// create makes a subscription from planID and fails the test unless it is 200.
func create(tb testing.TB, srv *emulatortest.Server, planID string) emulator.Subscription {
	tb.Helper()
	r := api(tb, srv, "POST", "/v1/subscriptions", createBody(planID))
	mustStatus(tb, r, http.StatusOK)
	return decode[emulator.Subscription](tb, r)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// serve runs one request through the handler directly, from remoteAddr.
func serve(h http.Handler, method, target, remoteAddr, authz, body string) response {
	rec := emulator.Serve(h, method, target, remoteAddr, authz, body)
	return response{Status: rec.Code, Header: rec.Header(), Body: bytes.Clone(rec.Body.Bytes())}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func equalAllowance(a, b state.Allowance) bool {
	return equalPtr(a.DataBytes, b.DataBytes) && equalPtr(a.VoiceSeconds, b.VoiceSeconds) && equalPtr(a.SmsMessages, b.SmsMessages)
}

func equalPtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// contractCases is every path of the contract and every error code the /v1
// API gives. It is shared by the contract test and the OpenAPI validation.
func contractCases(fx contractFixture) []apiCase {
	ok := func(name, method, path, body string) apiCase {
		return apiCase{name: name, method: method, path: path, body: body, authz: useToken, status: 200}
	}
	fail := func(name, method, path, body string, status int, code string) apiCase {
		return apiCase{name: name, method: method, path: path, body: body, authz: useToken, status: status, code: code}
	}
	bad := func(name, body string) apiCase {
		return fail("create/400/"+name, "POST", "/v1/subscriptions", body, 400, "invalidRequest")
	}
	cases := []apiCase{
		ok("create/planId", "POST", "/v1/subscriptions", createBody(planBasic)),
		ok("create/planId-labelled", "POST", "/v1/subscriptions", createBody(planEurope)),
		ok("create/planId-recurring", "POST", "/v1/subscriptions", createBody(planRecurring)),
		ok("create/inline", "POST", "/v1/subscriptions", `{"plan":{"coverageId":"cov-x","dataMBs":512,"periodDays":10}}`),
		ok("create/inline-null-planId", "POST", "/v1/subscriptions", `{"planId":null,"plan":{"coverageId":"cov-x","dataMBs":1,"periodDays":1}}`),
		ok("create/unknown-fields-ignored", "POST", "/v1/subscriptions", `{"planId":"`+planBasic+`","metadata":{"a":"b"},"extra":1}`),

		bad("both", `{"planId":"`+planBasic+`","plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`),
		bad("neither", `{}`),
		bad("neither-nulls", `{"planId":null,"plan":null}`),
		bad("planId-number", `{"planId":12}`),
		bad("planId-bool", `{"planId":true}`),
		bad("planId-object", `{"planId":{"id":"p_basic"}}`),
		bad("planId-empty", `{"planId":""}`),
		bad("plan-string", `{"plan":"p_basic"}`),
		bad("plan-array", `{"plan":[1]}`),
		bad("plan-empty", `{"plan":{}}`),
		bad("coverageId-missing", `{"plan":{"dataMBs":1,"periodDays":1}}`),
		bad("coverageId-empty", `{"plan":{"coverageId":"","dataMBs":1,"periodDays":1}}`),
		bad("coverageId-number", `{"plan":{"coverageId":7,"dataMBs":1,"periodDays":1}}`),
		bad("dataMBs-missing", `{"plan":{"coverageId":"c","periodDays":1}}`),
		bad("dataMBs-zero", `{"plan":{"coverageId":"c","dataMBs":0,"periodDays":1}}`),
		bad("dataMBs-negative", `{"plan":{"coverageId":"c","dataMBs":-5,"periodDays":1}}`),
		bad("dataMBs-fraction", `{"plan":{"coverageId":"c","dataMBs":1.5,"periodDays":1}}`),
		bad("dataMBs-string", `{"plan":{"coverageId":"c","dataMBs":"10","periodDays":1}}`),
		bad("dataMBs-null", `{"plan":{"coverageId":"c","dataMBs":null,"periodDays":1}}`),
		bad("dataMBs-huge", `{"plan":{"coverageId":"c","dataMBs":1e400,"periodDays":1}}`),
		bad("periodDays-zero", `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":0}}`),
		bad("periodDays-fraction", `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":2.5}}`),
		bad("periodDays-missing", `{"plan":{"coverageId":"c","dataMBs":1}}`),
		bad("not-json", `planId=p_basic`),
		bad("truncated", `{"planId":"p_basic"`),
		bad("array", `[{"planId":"p_basic"}]`),
		bad("null", `null`),
		bad("string", `"p_basic"`),
		bad("empty", ``),
		bad("too-large", `{"planId":"`+planBasic+`","pad":"`+strings.Repeat("x", 70<<10)+`"}`),

		fail("create/412/missing-plan", "POST", "/v1/subscriptions", createBody("p_nope"), 412, "invalidPlan"),
		fail("create/412/archived-plan", "POST", "/v1/subscriptions", createBody(planArchived), 412, "invalidPlan"),
		fail("create/412/addon-plan", "POST", "/v1/subscriptions", createBody(planAddon), 412, "invalidPlan"),
		fail("create/412/out-of-inventory", "POST", "/v1/subscriptions", createBody(planAsia), 412, "outOfInventory"),

		ok("subscription/get", "GET", "/v1/subscriptions/"+fx.sub.ID, ""),
		fail("subscription/404", "GET", "/v1/subscriptions/sub_0000000000000000", "", 404, "notFound"),
		ok("plan/get", "GET", "/v1/plans/"+planEurope, ""),
		ok("plan/get-archived", "GET", "/v1/plans/"+planArchived, ""),
		fail("plan/404", "GET", "/v1/plans/p_nope", "", 404, "notFound"),
		ok("esim/get", "GET", "/v1/esims/"+fx.iccid, ""),
		ok("esim/get-free", "GET", "/v1/esims/"+state.ICCID(45), ""),
		fail("esim/404", "GET", "/v1/esims/"+state.ICCID(999), "", 404, "notFound"),
		fail("esim/404-malformed", "GET", "/v1/esims/not-an-iccid", "", 404, "notFound"),

		fail("unknown/path", "GET", "/v1/nothing-here", "", 404, "notFound"),
		fail("unknown/root", "GET", "/v1/", "", 404, "notFound"),
		fail("unknown/deeper", "GET", "/v1/subscriptions/"+fx.sub.ID+"/usage", "", 404, "notFound"),
		fail("unknown/delete-subscription", "DELETE", "/v1/subscriptions/"+fx.sub.ID, "", 404, "notFound"),
		fail("unknown/put-subscription", "PUT", "/v1/subscriptions/"+fx.sub.ID, `{"planId":"p_basic"}`, 404, "notFound"),
		fail("unknown/post-esims", "POST", "/v1/esims", `{}`, 404, "notFound"),
		fail("unknown/v2", "GET", "/v1/v2/subscriptions", "", 404, "notFound"),
	}
	for i := range cases {
		cases[i].undocumented = strings.HasPrefix(cases[i].name, "unknown/")
		cases[i].lenient = strings.Contains(cases[i].body, "null")
	}
	for _, list := range []string{"/v1/subscriptions", "/v1/plans", "/v1/esims"} {
		cases = append(cases,
			ok("list"+list, "GET", list, ""),
			ok("list"+list+"/pageSize=1", "GET", list+"?pageSize=1", ""),
			ok("list"+list+"/pageSize=25", "GET", list+"?pageSize=25", ""),
		)
		for _, size := range []string{"0", "26", "-1", "abc", "1.5", "", "1e1", "99999999999999999999"} {
			cases = append(cases, fail("list"+list+"/pageSize="+size, "GET", list+"?pageSize="+url.QueryEscape(size), "", 400, "invalidRequest"))
		}
		for _, cursor := range []string{"garbage", "AAAA", "%%%", "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
			cases = append(cases, fail("list"+list+"/page="+cursor, "GET", list+"?page="+url.QueryEscape(cursor), "", 400, "invalidRequest"))
		}
	}

	// Every /v1 path and method, documented or not, answers 401 without the
	// right token, before anything else is looked at.
	every := []struct{ method, path, body string }{
		{"POST", "/v1/subscriptions", createBody(planBasic)},
		{"POST", "/v1/subscriptions", `not json`},
		{"GET", "/v1/subscriptions", ""},
		{"GET", "/v1/subscriptions?pageSize=0", ""},
		{"GET", "/v1/subscriptions/" + fx.sub.ID, ""},
		{"GET", "/v1/subscriptions/sub_missing", ""},
		{"GET", "/v1/plans", ""},
		{"GET", "/v1/plans/" + planBasic, ""},
		{"GET", "/v1/plans/p_nope", ""},
		{"GET", "/v1/esims", ""},
		{"GET", "/v1/esims?page=garbage", ""},
		{"GET", "/v1/esims/" + fx.iccid, ""},
		{"GET", "/v1/esims/0", ""},
		{"GET", "/v1/nothing-here", ""},
		{"DELETE", "/v1/subscriptions/" + fx.sub.ID, ""},
		{"PATCH", "/v1/plans/" + planBasic, `{}`},
	}
	auths := []struct{ name, value string }{
		{"missing", noAuth},
		{"wrong", "Bearer not-the-token"},
		{"prefix-of-token", "Bearer " + fx.srv.Token[:len(fx.srv.Token)-1]},
		{"token-plus-suffix", "Bearer " + fx.srv.Token + "x"},
		{"empty-bearer", "Bearer "},
		{"no-scheme", fx.srv.Token},
		{"basic", "Basic " + fx.srv.Token},
	}
	for _, p := range every {
		for _, a := range auths {
			c := apiCase{
				name:   fmt.Sprintf("401/%s/%s %s", a.name, p.method, p.path),
				method: p.method, path: p.path, body: p.body, authz: a.value,
				status: 401, code: "unauthorized",
			}
			c.undocumented = strings.Contains(p.path, "nothing-here") || p.method == "DELETE" || p.method == "PATCH"
			cases = append(cases, c)
		}
	}
	return cases
}

func newContractFixture(t *testing.T) contractFixture {
	t.Helper()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(40, 5)})
	sub := create(t, srv, planBasic)
	return contractFixture{srv: srv, sub: sub, iccid: sub.EsimICCID}
}

func getSub(t *testing.T, srv *emulatortest.Server, id string) emulator.Subscription {
	t.Helper()
	r := api(t, srv, "GET", "/v1/subscriptions/"+id, "")
	mustStatus(t, r, 200)
	return decode[emulator.Subscription](t, r)
}

// loadOpenAPI loads and validates the embedded document.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(emulator.OpenAPIDocument())
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	return doc
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func newReceiver(t *testing.T, failFirst int, block bool) *receiver {
	t.Helper()
	rc := &receiver{secret: webhookSecret, failFirst: failFirst, entered: make(chan struct{}, 1000)}
	if block {
		rc.block = make(chan struct{})
	}
	rc.Server = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.Close)
	if block {
		// Runs before rc.Close (cleanups run last-in first-out).
		t.Cleanup(rc.release)
	}
	return rc
}
