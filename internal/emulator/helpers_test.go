package emulator_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
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
func smallDataset(nFree, nEurope int) *emulator.Dataset {
	str := func(s string) *string { return &s }
	ds := &emulator.Dataset{Plans: []emulator.Plan{
		{ID: planBasic, Name: "basic", DataMegaBytes: 1000, PeriodDays: 30, PeriodIterations: 1, CreatedAt: 1767225600},
		{ID: planEurope, Name: "europe", DataMegaBytes: 2000, PeriodDays: 15, PeriodIterations: 1, Label: str("europe"), CoverageProfileID: str("cov-eu"), CreatedAt: 1767225601},
		{ID: planAsia, Name: "asia", DataMegaBytes: 3000, PeriodDays: 15, PeriodIterations: 1, Label: str("asia"), CoverageProfileID: str("cov-apac"), CreatedAt: 1767225602},
		{ID: planArchived, Name: "old", DataMegaBytes: 1000, PeriodDays: 30, PeriodIterations: 1, Archived: true, CreatedAt: 1767225603},
		{ID: planAddon, Name: "addon", DataMegaBytes: 500, PeriodDays: 30, PeriodIterations: 1, Addon: true, CreatedAt: 1767225604},
		{ID: planRecurring, Name: "recurring", DataMegaBytes: 100, PeriodDays: 7, PeriodIterations: 3, ThrottledSpeedKbps: 512, Label: str("europe"), CoverageProfileID: str("cov-eu"), CreatedAt: 1767225605},
	}}
	n := uint64(1)
	for range nFree {
		ds.Esims = append(ds.Esims, emulator.Esim{ICCID: emulator.ICCID(n), CreatedAt: 1767225600 + int64(n)})
		n++
	}
	for range nEurope {
		ds.Esims = append(ds.Esims, emulator.Esim{ICCID: emulator.ICCID(n), Label: str("europe"), CreatedAt: 1767225600 + int64(n)})
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
