package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// Tests of a client facing a hostile or broken service.

const hostileToken = "tok_must_stay_home_4711"

// tokenRecorder is a second server that records whether it ever saw an
// Authorization header.
type tokenRecorder struct {
	requests atomic.Int64
	sawAuth  atomic.Bool
}

func (r *tokenRecorder) handler(w http.ResponseWriter, req *http.Request) {
	r.requests.Add(1)
	if req.Header.Get("Authorization") != "" {
		r.sawAuth.Store(true)
	}
	_, _ = io.WriteString(w, subscriptionJSON)
}

func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	var rec tokenRecorder
	plain := httptest.NewServer(http.HandlerFunc(rec.handler))
	t.Cleanup(plain.Close)
	otherTLS := httptest.NewTLSServer(http.HandlerFunc(rec.handler))
	t.Cleanup(otherTLS.Close)
	plainURL, _ := url.Parse(plain.URL)

	for name, target := range map[string]string{
		"https to http (downgrade)":   plain.URL,
		"https to another https port": otherTLS.URL,
		"another host name":           "http://localhost:" + plainURL.Port(),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			}))
			t.Cleanup(base.Close)
			c := newTestClient(t, base.URL, func(cfg *Config) {
				cfg.Token = hostileToken
				cfg.Transport = base.Client().Transport
			})
			_, err := c.GetSubscription(bg, "sub_1")
			var redirect *RedirectError
			if !errors.As(err, &redirect) {
				t.Fatalf("error = %v, want a RedirectError", err)
			}
			targetURL, _ := url.Parse(target)
			msg := err.Error()
			if !strings.Contains(msg, targetURL.Host) || !strings.Contains(msg, "HTTP 307") || !strings.Contains(msg, "read subscription sub_1") {
				t.Errorf("error %q should name the operation, the status and the target host %s", msg, targetURL.Host)
			}
			if strings.Contains(msg, hostileToken) {
				t.Errorf("error text leaks the token: %q", msg)
			}
			// CreateSubscription too: a redirect is an answer, not an
			// ambiguous failure, and is not retried.
			_, err = c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
			var uncertain *UncertainCreateError
			if !errors.As(err, &redirect) || errors.As(err, &uncertain) {
				t.Errorf("create: error = %v, want a RedirectError alone", err)
			}
		})
	}
	t.Cleanup(func() {
		if rec.sawAuth.Load() {
			t.Error("the token reached another origin")
		}
		if n := rec.requests.Load(); n != 0 {
			t.Errorf("the other origin got %d requests; a redirect to it must not be followed", n)
		}
	})
}

func TestRedirectWithinTheOriginKeepsWorking(t *testing.T) {
	t.Parallel()
	var authOnTarget atomic.Value
	base := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/subscriptions/old" {
			http.Redirect(w, r, "/v1/subscriptions/sub_0123456789abcdef", http.StatusMovedPermanently)
			return
		}
		authOnTarget.Store(r.Header.Get("Authorization"))
		_, _ = io.WriteString(w, subscriptionJSON)
	}))
	t.Cleanup(base.Close)
	c := newTestClient(t, base.URL, func(cfg *Config) {
		cfg.Token = hostileToken
		cfg.Transport = base.Client().Transport
	})
	sub, err := c.GetSubscription(bg, "old")
	if err != nil || sub.ID != "sub_0123456789abcdef" {
		t.Fatalf("GetSubscription = %+v, %v", sub, err)
	}
	if got := authOnTarget.Load(); got != "Bearer "+hostileToken {
		t.Errorf("Authorization after a same-origin redirect = %q", got)
	}
}

// Defence in depth: even a request that gets past the redirect policy
// carries the token only to the configured origin.
func TestAuthHeaderOnlyForTheConfiguredOrigin(t *testing.T) {
	t.Parallel()
	var got []string
	rt := newBearerAuth(&url.URL{Scheme: "https", Host: "api.example.com"}, "secret", roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = append(got, r.URL.String()+" "+r.Header.Get("Authorization"))
		return &http.Response{StatusCode: 204, Body: http.NoBody, Request: r}, nil
	}))
	for _, u := range []string{
		"https://api.example.com/v1/plans",
		"https://API.example.com:443/v1/plans",
		"http://api.example.com/v1/plans",
		"https://api.example.com:8443/v1/plans",
		"https://evil.example.com/v1/plans",
	} {
		req, _ := http.NewRequest("GET", u, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"https://api.example.com/v1/plans Bearer secret",
		"https://API.example.com:443/v1/plans Bearer secret",
		"http://api.example.com/v1/plans ",
		"https://api.example.com:8443/v1/plans ",
		"https://evil.example.com/v1/plans ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A request whose attempt record is missing may be anything, a create
// included: it is retried only when the service refused to act (429).
func TestRetryPolicyFailsClosedWithoutAttemptRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, tc := range map[string]struct {
		resp *http.Response
		err  error
		want bool
	}{
		"500":                 {resp: &http.Response{StatusCode: 500}},
		"503":                 {resp: &http.Response{StatusCode: 503}},
		"connection reset":    {err: &url.Error{Op: "Post", URL: "https://x/v1/subscriptions", Err: syscall.ECONNRESET}},
		"timeout after write": {err: context.DeadlineExceeded},
		"429":                 {resp: &http.Response{StatusCode: 429}},
	} {
		got, err := shouldRetry(ctx, tc.resp, tc.err)
		if got != tc.want || err != nil {
			t.Errorf("%s without an attempt record: retry = %v (%v), want %v", name, got, err, tc.want)
		}
	}
}

// pageServer serves /v1/plans with a fresh cursor on every page; items
// gives the ids of page n. It ends the list after 2,000 pages so that a
// client that never stops fails the test instead of hanging it.
func pageServer(t *testing.T, items func(n int) []string) (*httptest.Server, *atomic.Int64) {
	var pages atomic.Int64
	srv := startServer(t, func(w http.ResponseWriter, _ *http.Request) {
		n := int(pages.Add(1))
		var out []map[string]any
		for _, id := range items(n) {
			out = append(out, map[string]any{"id": id, "name": id})
		}
		var next any = fmt.Sprintf("cursor-%d", n)
		if n >= 2000 {
			next = nil
		}
		writeJSONResponse(w, 200, map[string]any{"items": out, "nextPage": next})
	})
	return srv, &pages
}

func TestPagingFreshCursorSameItemsStops(t *testing.T) {
	t.Parallel()
	srv, pages := pageServer(t, func(int) []string { return []string{"plan_001", "plan_002", "plan_003"} })
	c := newTestClient(t, srv.URL, nil)
	plans, err := Collect(c.Plans(bg), nil, 0)
	var pageErr *PageError
	if !errors.As(err, &pageErr) {
		t.Fatalf("error = %v after %d pages, want a PageError", err, pages.Load())
	}
	if pageErr.Page != 2 || pageErr.ItemsRead != 3 || len(plans) != 3 || pageErr.Operation != "list plans" {
		t.Errorf("PageError = %+v, %d items", pageErr, len(plans))
	}
	if msg := err.Error(); !strings.Contains(msg, "only items already read") {
		t.Errorf("error %q should say the page brought nothing new", msg)
	}
	if pages.Load() != 2 {
		t.Errorf("read %d pages, want 2", pages.Load())
	}
}

func TestPagingOverlappingPagesSkipDuplicates(t *testing.T) {
	t.Parallel()
	// A subscription created while paging newest first pushes the last
	// item of a page onto the next one.
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "" {
			writeJSONResponse(w, 200, map[string]any{"items": []map[string]any{{"id": "a"}, {"id": "b"}}, "nextPage": "p2"})
			return
		}
		writeJSONResponse(w, 200, map[string]any{"items": []map[string]any{{"id": "b"}, {"id": "c"}}, "nextPage": nil})
	})
	c := newTestClient(t, srv.URL, nil)
	subs, err := Collect(c.Subscriptions(bg), nil, 0)
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	if err != nil || strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("Collect = %v, %v; want a,b,c", ids, err)
	}
}

func TestPagingEndlessListStopsAtMaxPages(t *testing.T) {
	t.Parallel()
	srv, pages := pageServer(t, func(n int) []string { return []string{fmt.Sprintf("plan_%d_a", n), fmt.Sprintf("plan_%d_b", n)} })
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxPages = 40 })
	_, err := Collect(c.Plans(bg), nil, 0)
	var pageErr *PageError
	if !errors.As(err, &pageErr) {
		t.Fatalf("error = %v after %d pages, want a PageError", err, pages.Load())
	}
	if pageErr.Page != 40 || pageErr.ItemsRead != 80 || pages.Load() != 40 {
		t.Errorf("PageError = %+v after %d pages, want page 40 and 80 items", pageErr, pages.Load())
	}
	if msg := err.Error(); !strings.Contains(msg, "40 pages") {
		t.Errorf("error %q should name the bound", msg)
	}
	if d, _ := New(Config{BaseURL: "https://x", Token: "t"}); d.maxPages != DefaultMaxPages {
		t.Errorf("default bound = %d, want DefaultMaxPages", d.maxPages)
	}
}

func TestNewRefusesTokenWithControlCharacter(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{hostileToken + "\n", hostileToken + "\r\n", "s3cr3t\tx", "s3cr3t\x00", "s3cr3t\x7f"} {
		_, err := New(Config{BaseURL: "https://api.example.com", Token: tok})
		if err == nil {
			t.Errorf("New accepted a token with a control character (%q)", tok[len(tok)-1:])
			continue
		}
		if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), hostileToken) {
			t.Errorf("error text shows the token: %q", err)
		}
	}
}
