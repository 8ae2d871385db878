package emulator_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// openAPIValidator checks requests and answers against the document.
type openAPIValidator struct {
	doc    *openapi3.T
	router routers.Router
}

func newOpenAPIValidator(t testing.TB) *openAPIValidator {
	t.Helper()
	doc := loadOpenAPI(t)
	// The document's only server is "/", relative to wherever the service
	// is; route on the path alone.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &openAPIValidator{doc: doc, router: router}
}

var filterOptions = &openapi3filter.Options{
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
	IncludeResponseStatus: true, // a status the document does not list is an error
	MultiError:            true,
}

// exchange sends the request, then validates the answer (and, when
// validateRequest, the request) against the document. It returns the
// operation id, or "" for a request the document has no operation for.
func (v *openAPIValidator) exchange(t *testing.T, method, url, authz, body string, validateRequest bool) (string, response) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if authz != noAuth {
		req.Header.Set("Authorization", authz)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	route, pathParams, routeErr := v.router.FindRoute(req)
	r := send(t, method, url, authz, body)
	if routeErr != nil {
		return "", r
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route, Options: filterOptions}
	if validateRequest {
		if body != "" {
			req.Body = io.NopCloser(strings.NewReader(body))
		}
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			t.Errorf("request %s %s does not match the document: %v", method, url, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 r.Status,
		Header:                 r.Header,
		Body:                   io.NopCloser(bytes.NewReader(r.Body)),
		Options:                filterOptions,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("%s %s: answer %d does not match the document: %v\nbody: %s", method, url, r.Status, err, r.Body)
	}
	return route.Operation.OperationID, r
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "1.0" {
		t.Errorf("openapi %q, info.version %q", doc.OpenAPI, doc.Info.Version)
	}
	var ops []string
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, "/v1/") {
			t.Errorf("path %s lacks the /v1 prefix", path)
		}
		for method, op := range item.Operations() {
			ops = append(ops, method+" "+path)
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
			if op.Responses.Status(401) == nil {
				t.Errorf("%s %s does not document 401", method, path)
			}
		}
	}
	slices.Sort(ops)
	want := []string{
		"GET /v1/esims", "GET /v1/esims/{iccid}", "GET /v1/plans", "GET /v1/plans/{id}",
		"GET /v1/subscriptions", "GET /v1/subscriptions/{id}", "POST /v1/subscriptions",
	}
	if !slices.Equal(ops, want) {
		t.Errorf("operations %v, want the contract's %v", ops, want)
	}
	for _, name := range []string{
		"SubscriptionActivatedEvent", "SubscriptionAllowanceThresholdBreachedEvent", "AttachmentActivatedEvent",
		"AttachmentAllowanceConsumedEvent", "EsimLocationChangedEvent", "EsimSmdpStateChangedEvent",
	} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("no schema %s", name)
		}
	}
}

// TestOpenAPIResponses validates every answer of the contract table, and
// injected 429 and 500 answers of every operation, against the document.
func TestOpenAPIResponses(t *testing.T) {
	t.Parallel()
	v := newOpenAPIValidator(t)
	fx := newContractFixture(t)
	covered := map[string]map[int]bool{}
	note := func(op string, status int) {
		if covered[op] == nil {
			covered[op] = map[int]bool{}
		}
		covered[op][status] = true
	}
	for _, c := range contractCases(fx) {
		t.Run(c.name, func(t *testing.T) {
			authz := c.authz
			if authz == useToken {
				authz = "Bearer " + fx.srv.Token
			}
			op, r := v.exchange(t, c.method, fx.srv.URL+c.path, authz, c.body, c.status == 200 && !c.lenient)
			if r.Status != c.status {
				t.Errorf("status %d, want %d", r.Status, c.status)
			}
			switch {
			case op == "" && !c.undocumented:
				t.Errorf("the document has no operation for %s %s", c.method, c.path)
			case op != "" && c.undocumented:
				t.Errorf("%s %s is documented as %s", c.method, c.path, op)
			}
			note(op, r.Status)
		})
	}

	// States other than ready, and exhausted allowances, still match.
	t.Run("active-and-expired", func(t *testing.T) {
		sub := create(t, fx.srv, planEurope)
		mustStatus(t, ctl(t, fx.srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/usage", `{"dataBytes":99000000000}`), 200)
		moveEsim(t, fx.srv, sub.EsimICCID, "FR")
		mustStatus(t, ctl(t, fx.srv, "POST", "/_emulator/esims/"+sub.EsimICCID+"/smdp-state", `{"state":"RELEASED"}`), 200)
		for _, path := range []string{"/v1/subscriptions/" + sub.ID, "/v1/esims/" + sub.EsimICCID, "/v1/subscriptions?pageSize=25"} {
			v.exchange(t, "GET", fx.srv.URL+path, "Bearer "+fx.srv.Token, "", true)
		}
		mustStatus(t, ctl(t, fx.srv, "POST", "/_emulator/clock/advance", `{"seconds":99999999}`), 200)
		_, r := v.exchange(t, "GET", fx.srv.URL+"/v1/subscriptions/"+sub.ID, "Bearer "+fx.srv.Token, "", true)
		if got := decode[emulator.Subscription](t, r).State; got != emulator.StateExpired {
			t.Errorf("state %q, want expired", got)
		}
	})

	// Injected faults of each documented kind, on every operation.
	ops := []struct{ method, path, body string }{
		{"POST", "/v1/subscriptions", createBody(planBasic)},
		{"GET", "/v1/subscriptions", ""},
		{"GET", "/v1/subscriptions/" + fx.sub.ID, ""},
		{"GET", "/v1/plans", ""},
		{"GET", "/v1/plans/" + planBasic, ""},
		{"GET", "/v1/esims", ""},
		{"GET", "/v1/esims/" + fx.iccid, ""},
	}
	t.Run("injected", func(t *testing.T) {
		for _, status := range []int{429, 500} {
			for _, o := range ops {
				fx.srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: o.method, PathPrefix: o.path, Action: "status", Status: status, Times: 1}}})
				op, r := v.exchange(t, o.method, fx.srv.URL+o.path, "Bearer "+fx.srv.Token, o.body, false)
				if r.Status != status {
					t.Errorf("%s %s: status %d, want injected %d", o.method, o.path, r.Status, status)
				}
				note(op, r.Status)
			}
		}
		fx.srv.SetFaults(emulator.Faults{})
	})

	// Every operation was exercised, with every status it documents.
	for path, item := range v.doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code := range op.Responses.Map() {
				status, err := strconv.Atoi(code)
				if err != nil {
					continue
				}
				if !covered[op.OperationID][status] {
					t.Errorf("%s %s (%s): documented status %d never exercised", method, path, op.OperationID, status)
				}
			}
		}
	}
}

// The validation above would notice a broken answer: a few hand-broken
// answers fail it.
func TestOpenAPIValidatorRejectsBrokenAnswers(t *testing.T) {
	t.Parallel()
	v := newOpenAPIValidator(t)
	req, _ := http.NewRequest("GET", "http://127.0.0.1/v1/subscriptions/sub_1", nil)
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		t.Fatal(err)
	}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	for name, tc := range map[string]struct {
		status int
		header http.Header
		body   string
	}{
		"error-without-docsUrl":       {404, jsonHeader, `{"code":"notFound","message":"x"}`},
		"undocumented-status":         {409, jsonHeader, `{"code":"conflict","message":"x","docsUrl":null}`},
		"429-without-retry-after":     {429, jsonHeader, `{"code":"rateLimited","message":"x","docsUrl":null}`},
		"html":                        {500, http.Header{"Content-Type": {"text/html"}}, `<html></html>`},
		"subscription-bad-state":      {200, jsonHeader, `{"id":"s","esimIccid":"1","planId":"p","plan":{},"createdAt":1,"activatedAt":null,"expireAt":null,"purchasedAllowance":{"dataBytes":1,"voiceSeconds":null,"smsMessages":null},"remainingAllownace":{"dataBytes":1,"voiceSeconds":null,"smsMessages":null},"state":"paused","metadata":{}}`},
		"subscription-right-spelling": {200, jsonHeader, `{"id":"s","esimIccid":"1","planId":"p","plan":{},"createdAt":1,"activatedAt":null,"expireAt":null,"purchasedAllowance":{"dataBytes":1,"voiceSeconds":null,"smsMessages":null},"remainingAllowance":{"dataBytes":1,"voiceSeconds":null,"smsMessages":null},"state":"ready","metadata":{}}`},
		"negative-allowance":          {200, jsonHeader, `{"id":"s","esimIccid":"1","planId":"p","plan":{},"createdAt":1,"activatedAt":null,"expireAt":null,"purchasedAllowance":{"dataBytes":-1,"voiceSeconds":null,"smsMessages":null},"remainingAllownace":{"dataBytes":1,"voiceSeconds":null,"smsMessages":null},"state":"ready","metadata":{}}`},
	} {
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: filterOptions},
			Status:                 tc.status,
			Header:                 tc.header,
			Body:                   io.NopCloser(strings.NewReader(tc.body)),
			Options:                filterOptions,
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
