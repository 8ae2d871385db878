package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

func TestEveryRequestCarriesAuthAndUserAgent(t *testing.T) {
	t.Parallel()
	const token = "tok_9f8e7d6c5b4a"
	var calls counter
	var problems, seen strList
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.add(r)
		n := calls.total()
		seen.add(r.Method + " " + r.URL.Path)
		if got := r.Header.Get("Authorization"); got != "Bearer "+token {
			problems.add(r.Method + " " + r.URL.String() + ": Authorization = " + got)
		}
		if got := r.Header.Values("Authorization"); len(got) != 1 {
			problems.add("Authorization sent " + strings.Join(got, ", "))
		}
		if got := r.Header.Get("User-Agent"); got != testUserAgent {
			problems.add(r.Method + " " + r.URL.String() + ": User-Agent = " + got)
		}
		if got := r.Header.Get("Accept"); got != "application/json" {
			problems.add("Accept = " + got)
		}
		if r.Method == "POST" && r.Header.Get("Content-Type") != "application/json" {
			problems.add("POST Content-Type = " + r.Header.Get("Content-Type"))
		}
		switch {
		case n == 1: // the first answer is retried
			w.Header().Set("Retry-After", "1")
			writeServiceError(w, 429, "rateLimited", "slow down")
		case r.Method == "POST":
			body, _ := io.ReadAll(r.Body)
			if string(body) != `{"planId":"plan_001"}` {
				problems.add("POST body = " + string(body))
			}
			_, _ = io.WriteString(w, subscriptionJSON)
		case r.URL.Path == "/v1/esims" && r.URL.Query().Get("page") == "":
			_, _ = io.WriteString(w, `{"items":[{"iccid":"1"}],"nextPage":"n/2+"}`)
		case r.URL.Path == "/v1/esims":
			_, _ = io.WriteString(w, `{"items":[{"iccid":"2"}],"nextPage":null}`)
		default:
			writeServiceError(w, 404, "notFound", "no")
		}
	})
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Token = token })
	if _, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"}); err != nil {
		t.Fatal(err)
	}
	if esims, err := Collect(c.Esims(bg), nil, 0); err != nil || len(esims) != 2 {
		t.Fatalf("Esims = %d, %v", len(esims), err)
	}
	if _, err := c.GetPlan(bg, "plan_404"); !IsNotFound(err) {
		t.Fatal(err)
	}
	if want := 5; calls.total() != want {
		t.Errorf("requests = %d (%q), want %d", calls.total(), seen.all(), want)
	}
	for _, p := range problems.all() {
		t.Error(p)
	}
}

func TestRoundTrippersDoNotModifyTheCallersRequest(t *testing.T) {
	t.Parallel()
	var got http.Header
	rt := newBearerAuth(&url.URL{Scheme: "http", Host: "example.invalid"}, "secret", userAgent{value: "ua/1", next: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r.Header.Clone()
		return &http.Response{StatusCode: 204, Body: http.NoBody, Request: r}, nil
	})})
	req, _ := http.NewRequest("GET", "http://example.invalid/x", nil)
	if _, err := rt.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if got.Get("Authorization") != "Bearer secret" || got.Get("User-Agent") != "ua/1" {
		t.Errorf("sent headers = %v", got)
	}
	if len(req.Header) != 0 {
		t.Errorf("the caller's request was modified: %v", req.Header)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestLoggingNeverShowsTheToken(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	emu, c := startWithClient(t, nil)
	token := emulatortest.Token

	// Success, a 412, a 404, a retried 503, a list, a dropped POST, and a
	// refused connection.
	if _, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_001"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_009"}); !IsPreconditionFailed(err) {
		t.Fatal(err)
	}
	if _, err := c.GetSubscription(ctx, "sub_missing"); !IsNotFound(err) {
		t.Fatal(err)
	}
	emu.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{
		{Method: "GET", PathPrefix: "/v1/plans/", Action: "status", Status: 503, Times: 1},
		{Method: "POST", Action: "drop", Times: 1},
	}})
	if _, err := c.GetPlan(ctx, "plan_001"); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(c.Esims(ctx), nil, 30); err != nil {
		t.Fatal(err)
	}
	var uncertain *UncertainCreateError
	if _, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_001"}); !errors.As(err, &uncertain) {
		t.Fatal(err)
	}
	refused := newTestClient(t, closedAddress(t), func(cfg *Config) { cfg.MaxRetries = ptr(1) })
	if _, err := refused.GetPlan(ctx, "plan_001"); err == nil {
		t.Fatal("no error from a closed port")
	}

	out := buf.String()
	for _, secret := range []string{token, "Authorization", "authorization", "Bearer", "bearer"} {
		if strings.Contains(out, secret) {
			t.Errorf("log output contains %q:\n%s", secret, out)
		}
	}
	entries, err := tflogtest.MultilineJSONDecode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var withStatus, failed, retried int
	paths := map[string]bool{}
	for _, e := range entries {
		for _, field := range []string{"method", "path", "attempt", "duration_ms"} {
			if _, ok := e[field]; !ok {
				t.Errorf("log entry lacks %q: %v", field, e)
			}
		}
		if _, ok := e["status"]; ok {
			withStatus++
		}
		if _, ok := e["error"]; ok {
			failed++
		}
		if a, _ := e["attempt"].(float64); a >= 2 {
			retried++
		}
		if p, _ := e["path"].(string); p != "" {
			paths[e["method"].(string)+" "+p] = true
		}
		if e["@level"] != "debug" {
			t.Errorf("log entry level %v, want debug", e["@level"])
		}
	}
	// 2 creates + 1 read + 2 plan attempts + 2 pages + 1 dropped POST + 2 refused attempts.
	if len(entries) != 10 || withStatus != 7 || failed != 3 || retried != 2 {
		t.Errorf("entries = %d (status %d, failed %d, retried %d), want 10 (7, 3, 2):\n%s", len(entries), withStatus, failed, retried, out)
	}
	for _, p := range []string{"POST /v1/subscriptions", "GET /v1/subscriptions/sub_missing", "GET /v1/plans/plan_001", "GET /v1/esims"} {
		if !paths[p] {
			t.Errorf("no log entry for %s", p)
		}
	}
	for _, status := range []string{`"status":200`, `"status":412`, `"status":404`, `"status":503`} {
		if !strings.Contains(out, status) {
			t.Errorf("log output lacks %s", status)
		}
	}
}

func TestLoggingMasksTheTokenEvenInURLs(t *testing.T) {
	t.Parallel()
	// Should a token ever end up in a logged field (here: a path), the
	// logging layer's masks hide it.
	const token = "tok-in-the-path-123"
	var buf syncBuffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) { writeServiceError(w, 404, "notFound", "no") })
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Token = token })
	_, _ = c.GetPlan(ctx, token)
	if out := buf.String(); strings.Contains(out, token) || !strings.Contains(out, "***") {
		t.Errorf("log output = %s", out)
	}
}

func TestDefaultTransportVerifiesTLSAndPools(t *testing.T) {
	t.Parallel()
	tr := defaultTransport()
	if tr.TLSClientConfig != nil && tr.TLSClientConfig.InsecureSkipVerify {
		t.Error("TLS verification is off")
	}
	if tr.MaxIdleConnsPerHost < 10 || tr.Proxy == nil {
		t.Errorf("MaxIdleConnsPerHost = %d, proxy from environment set: %v", tr.MaxIdleConnsPerHost, tr.Proxy != nil)
	}
	c, err := New(Config{BaseURL: "https://example.com", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if c.timeout != DefaultRequestTimeout || c.retry.RetryMax != DefaultMaxRetries ||
		c.retry.RetryWaitMin != DefaultMinRetryWait || c.retry.RetryWaitMax != DefaultMaxRetryWait {
		t.Errorf("defaults not applied: timeout %v, retries %d, waits %v..%v", c.timeout, c.retry.RetryMax, c.retry.RetryWaitMin, c.retry.RetryWaitMax)
	}
}
