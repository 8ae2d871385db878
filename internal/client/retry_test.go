package client

// Tests of the retry rules of retry.go, numbered as there, and of reads
// (GET) sent again; the other rules' tests are in files of their own. The
// tests of how long a retry waits run in a synctest bubble, on the default
// waits and a fake clock; the tests over sockets retry after
// socketRetryWait.
//
// Rule 1 (reads retried on 5xx other than 501 and on transport errors,
// with backoff or Retry-After, capped; never on other 4xx, TLS certificate
// errors, a cancelled context, too many redirects, an invalid header or
// scheme, as in retryablehttp's default policy):
//   TestRetryAfterHTTPDate, TestRetryGET5xxThenSuccess,
//   TestRetryGETConnectionRefused, TestRetryGETDroppedConnection,
//   TestRetryGETTimeout, TestNoRetryGET501, TestNoRetry4xx,
//   TestNoRetryTLSCertificateError, TestNoRetryCancelledContext; how long
//   a retry waits: backoff_test.go.
// Rule 2 (never retried here: a 429, waited out by the pace until the
// deadline for any method, and the answers past it): retry_429_test.go.
// Rule 3 (a create retried only on failures before its request was
// written; never on 5xx, timeout or a dropped connection):
//   retry_create_test.go.
// Rule 4 (no attempt record: treated as a create):
//   TestRetryPolicyFailsClosedWithoutAttemptRecord (hostile_test.go).
// Rule 5 (at most MaxRetries retries, last answer returned):
//   TestMaxRetriesHonored.
// Every rule at the policy level: TestShouldRetryPolicy.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func TestShouldRetryPolicy(t *testing.T) {
	t.Parallel()
	refused := &url.Error{Op: "Post", URL: "http://x", Err: syscall.ECONNREFUSED}
	certErr := &url.Error{Op: "Get", URL: "https://x", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}
	schemeErr := &url.Error{Op: "Get", URL: "https://x", Err: http.ErrSchemeMismatch}
	// Cases retryablehttp's default policy knows and a hand-kept list missed.
	tooManyRedirects := &url.Error{Op: "Get", URL: "https://x", Err: errors.New("stopped after 10 redirects")}
	badHeader := &url.Error{Op: "Get", URL: "https://x", Err: errors.New(`net/http: invalid header field value for "Authorization"`)}
	badScheme := &url.Error{Op: "Get", URL: "ftp://x", Err: errors.New(`unsupported protocol scheme "ftp"`)}
	type tc struct {
		method  string
		written bool
		status  int   // 0: no answer
		err     error // transport error
		want    bool
	}
	cases := []tc{
		{"GET", true, 429, nil, false}, // the pace waits 429s out; one that reaches the policy is past its deadline
		{"GET", true, 500, nil, true},
		{"GET", true, 502, nil, true},
		{"GET", true, 503, nil, true},
		{"GET", true, 504, nil, true},
		{"GET", true, 501, nil, false},
		{"GET", true, 200, nil, false},
		{"GET", false, 0, refused, true},
		{"GET", true, 0, io.ErrUnexpectedEOF, true},
		{"GET", false, 0, certErr, false},
		{"GET", false, 0, schemeErr, false},
		{"GET", true, 0, tooManyRedirects, false},
		{"GET", false, 0, badHeader, false},
		{"GET", false, 0, badScheme, false},
		{"POST", false, 0, badHeader, false},
		{"POST", true, 429, nil, false},
		{"POST", true, 500, nil, false},
		{"POST", true, 502, nil, false},
		{"POST", true, 503, nil, false},
		{"POST", true, 504, nil, false},
		{"POST", false, 0, refused, true},
		{"POST", true, 0, io.ErrUnexpectedEOF, false},
		{"POST", false, 0, certErr, false},
	}
	for _, s := range []int{400, 401, 403, 404, 409, 412, 422} {
		cases = append(cases, tc{"GET", true, s, nil, false}, tc{"POST", true, s, nil, false})
	}
	for _, c := range cases {
		ctx, att := withAttempt(bg, c.method)
		att.begin(0)
		att.written.Store(c.written)
		var resp *http.Response
		if c.status != 0 {
			resp = &http.Response{StatusCode: c.status, Header: http.Header{}}
		}
		got, err := shouldRetry(ctx, resp, c.err)
		if got != c.want || err != nil {
			t.Errorf("%s written=%v status=%d err=%v: shouldRetry = %v, %v; want %v", c.method, c.written, c.status, c.err, got, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	ctx, _ = withAttempt(ctx, "GET")
	if got, err := shouldRetry(ctx, nil, context.Canceled); got || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: shouldRetry = %v, %v; want false, context.Canceled", got, err)
	}
	// An answer that came after the caller stopped (a create seen through)
	// is the outcome: not retried, and not replaced by the cancellation.
	if got, err := shouldRetry(ctx, &http.Response{StatusCode: 503}, nil); got || err != nil {
		t.Errorf("cancelled context with an answer: shouldRetry = %v, %v; want false, nil", got, err)
	}
}

// ---- Rule 1: reads sent again ----

func TestRetryAfterHTTPDate(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var calls counter
		c := startHandlerInProcess(t, func(w http.ResponseWriter, r *http.Request) {
			calls.add(r)
			if calls.total() == 1 {
				w.Header().Set("Retry-After", time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat))
				writeServiceError(w, 503, "internal", "maintenance")
				return
			}
			_, _ = io.WriteString(w, subscriptionJSON)
		}, nil)
		start := time.Now()
		if _, err := c.GetSubscription(bg, "sub_0123456789abcdef"); err != nil {
			t.Fatal(err)
		}
		// An HTTP date has whole seconds: the wait is up to a second short.
		if waited := time.Since(start); calls.total() != 2 || waited <= 29*time.Second || waited > 30*time.Second {
			t.Errorf("%d requests, waited %v; want one retry about 30s later, from an HTTP-date Retry-After on a 503", calls.total(), waited)
		}
	})
}

func TestRetryGET5xxThenSuccess(t *testing.T) {
	t.Parallel()
	for _, rule := range []emulator.FaultRule{
		{Action: "status", Status: 500}, {Action: "status", Status: 502},
		{Action: "status", Status: 503}, {Action: "status", Status: 504},
		{Action: "html"}, {Action: "empty"}, {Action: "empty", Status: 503},
	} {
		t.Run(fmt.Sprintf("%s-%d", rule.Action, rule.Status), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var sent []time.Time
				emu, c := startInProcess(t, emulator.Options{}, func(cfg *Config) {
					cfg.Transport = sendTimes{next: cfg.Transport, times: &sent}
				})
				rule.Method, rule.Times = "GET", 2
				emu.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{rule}})
				e, err := c.GetEsim(bg, state.ICCID(1))
				if err != nil || e.ICCID != state.ICCID(1) {
					t.Fatalf("GetEsim = %v, %v", e, err)
				}
				if len(sent) != 3 {
					t.Fatalf("requests = %d, want 3", len(sent))
				}
				// Without Retry-After: exponential from DefaultMinRetryWait, jittered in the upper half.
				w := []time.Duration{sent[1].Sub(sent[0]), sent[2].Sub(sent[1])}
				if w[0] < DefaultMinRetryWait/2 || w[0] > DefaultMinRetryWait || w[1] < DefaultMinRetryWait || w[1] > 2*DefaultMinRetryWait {
					t.Errorf("waits = %v, want one in [250ms,500ms] then one in [500ms,1s]", w)
				}
			})
		})
	}
}

func TestNoRetryGET501(t *testing.T) {
	t.Parallel()
	emu := startWithFaults(t, emulator.FaultRule{Method: "GET", Action: "status", Status: 501})
	c := newTestClient(t, emu.URL, nil)
	_, err := c.GetPlan(bg, "plan_001")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 501 {
		t.Fatalf("error = %v, want the 501", err)
	}
	if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 1 {
		t.Errorf("501 sent %d times; it is not retried", n)
	}
}

func TestRetryGETConnectionRefused(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, closedAddress(t), func(cfg *Config) { cfg.MaxRetries = ptr(2) })
	_, err := c.GetPlan(bg, "plan_001")
	var reqErr *RequestError
	if !errors.As(err, &reqErr) || reqErr.Attempts != 3 || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("error = %v, want a RequestError after 3 attempts wrapping ECONNREFUSED", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("error text %q should say how many attempts were made", err)
	}
}

func TestRetryGETDroppedConnection(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"drop", "reset"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			emu := startWithFaults(t, emulator.FaultRule{Method: "GET", Action: action, Times: 1})
			c := newTestClient(t, emu.URL, nil)
			if _, err := c.GetPlan(bg, "plan_002"); err != nil {
				t.Fatalf("GetPlan: %v", err)
			}
			if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 2 {
				t.Errorf("requests = %d; want one retry", n)
			}
		})
	}
}

// slowServer answers nothing until the client gives up.
func slowServer(t *testing.T, calls *counter) *httptest.Server {
	return startServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.add(r)
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
}

func TestRetryGETTimeout(t *testing.T) {
	t.Parallel()
	var calls counter
	srv := slowServer(t, &calls)
	// Long enough to dial on a loaded machine: at 100 ms, make test's load
	// once ran the third attempt out before it reached the server.
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.RequestTimeout = 400 * time.Millisecond; cfg.MaxRetries = ptr(2) })
	start := time.Now()
	_, err := c.GetSubscription(bg, "sub_1")
	var reqErr *RequestError
	if !errors.As(err, &reqErr) || reqErr.Attempts != 3 {
		t.Fatalf("error = %v, want a RequestError after 3 attempts", err)
	}
	if n := calls.get("GET /v1/subscriptions/sub_1"); n != 3 {
		t.Errorf("requests = %d; a GET that timed out is retried", n)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v; RequestTimeout bounds each attempt", d)
	}
	if reqErr.Timeout != 400*time.Millisecond {
		t.Errorf("RequestError.Timeout = %v, want the per-attempt limit that ran out, 400ms", reqErr.Timeout)
	}
}

// ---- Rule 1: never retried ----

func TestNoRetry4xx(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 409, 412, 422} {
		for _, method := range []string{"GET", "POST"} {
			t.Run(fmt.Sprintf("%s-%d", method, status), func(t *testing.T) {
				t.Parallel()
				var calls counter
				srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/v1/subscriptions" && r.Method == "GET" {
						// the collection, which a first 404 of an object is checked against
						writeJSONResponse(w, 200, map[string]any{"items": []any{}, "nextPage": nil})
						return
					}
					calls.add(r)
					writeServiceError(w, status, "someCode", "refused")
				})
				c := newTestClient(t, srv.URL, nil)
				if method == "POST" && status == 404 {
					return // a create path answering 404 is a wrong base URL: TestNotFoundOfAPathIsNoSuchPath
				}
				var err error
				if method == "GET" {
					_, err = c.GetSubscription(bg, "sub_1")
				} else {
					_, err = c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
				}
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != status || apiErr.Attempts != 1 || apiErr.Code != "someCode" {
					t.Fatalf("error = %v, want the %d", err, status)
				}
				var uncertain *UncertainCreateError
				if errors.As(err, &uncertain) {
					t.Errorf("a %d is a definite answer, not an uncertain create", status)
				}
				if calls.total() != 1 {
					t.Errorf("requests = %d; a %d is never retried", calls.total(), status)
				}
			})
		}
	}
}

func TestNoRetryTLSCertificateError(t *testing.T) {
	t.Parallel()
	var calls counter
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.add(r) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, nil) // default transport: the test CA is not trusted
	_, err := c.GetPlan(bg, "plan_001")
	var reqErr *RequestError
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &reqErr) || !errors.As(err, &certErr) || reqErr.Attempts != 1 {
		t.Fatalf("error = %v, want a RequestError with the certificate error after 1 attempt", err)
	}
	if calls.total() != 0 {
		t.Errorf("handler calls %d; a certificate error is never retried", calls.total())
	}
}

func TestNoRetryCancelledContext(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var calls counter
		c := startHandlerInProcess(t, func(w http.ResponseWriter, r *http.Request) {
			calls.add(r)
			writeServiceError(w, 503, "internal", "down")
		}, nil)
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		done := make(chan error)
		go func() {
			_, err := c.GetPlan(ctx, "plan_001")
			done <- err
		}()
		synctest.Wait() // the first answer has come and the call waits to retry
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if calls.total() != 1 {
			t.Errorf("requests = %d, want 1: nothing is sent once the context is cancelled", calls.total())
		}

		// A context cancelled before the call sends nothing.
		_, err := c.GetPlan(ctx, "plan_001")
		if !errors.Is(err, context.Canceled) || calls.total() != 1 {
			t.Errorf("error = %v after %d requests, want context.Canceled and no request", err, calls.total())
		}
	})
}

// ---- Rule 5: MaxRetries ----

func TestMaxRetriesHonored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		maxRetries   *int
		wantRequests int
	}{
		{"3", ptr(3), 4}, {"1", ptr(1), 2}, {"0", ptr(0), 1}, {"unset", nil, DefaultMaxRetries + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls counter
			srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.add(r)
				writeServiceError(w, 500, "internal", fmt.Sprintf("failure %d", calls.total()))
			})
			c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxRetries = tc.maxRetries })
			_, err := c.GetPlan(bg, "plan_001")
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Attempts != tc.wantRequests {
				t.Fatalf("error = %v, want the 500 after %d attempts", err, tc.wantRequests)
			}
			if want := fmt.Sprintf("failure %d", tc.wantRequests); apiErr.Message != want {
				t.Errorf("Message = %q, want the last answer's %q", apiErr.Message, want)
			}
			if calls.total() != tc.wantRequests {
				t.Errorf("requests = %d; want %d requests", calls.total(), tc.wantRequests)
			}
			if tc.wantRequests > 1 && !strings.Contains(err.Error(), fmt.Sprintf("[after %d attempts]", tc.wantRequests)) {
				t.Errorf("error text %q should count the attempts", err)
			}
		})
	}
}
