package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// The texts below are what users read; a refactor of the error types must
// leave every one of them as it is.
func TestDetailTexts(t *testing.T) {
	t.Parallel()
	api502 := &client.APIError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, StatusCode: 502, Status: "502 Bad Gateway", Attempts: 1}
	reqTimeout := &client.RequestError{Call: client.Call{Operation: "read plan plan_001", Method: "GET", Path: "/v1/plans/plan_001"}, Attempts: 3, Timeout: 100 * time.Millisecond, Err: errors.New("context deadline exceeded")}
	reqOnce := &client.RequestError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, Attempts: 1, Timeout: 30 * time.Second, Err: io.ErrUnexpectedEOF}
	reqRefused := &client.RequestError{Call: client.Call{Operation: "list plans", Method: "GET", Path: "/v1/plans"}, Attempts: 5, Err: errors.New("connection refused")}
	decode := &client.DecodeError{Call: client.Call{Operation: "read plan plan_001", Method: "GET", Path: "/v1/plans/plan_001"}, StatusCode: 200, Err: errors.New("unexpected end of JSON input"), BodyExcerpt: `{"id":"sub_trunc`}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"412 with everything", &client.APIError{
			Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, StatusCode: 412, Status: "412 Precondition Failed",
			Code: client.CodeOutOfInventory, Message: "no eSIM", DocsURL: "https://docs/x", Hint: "grow it", Attempts: 2,
			Details: []client.ErrorDetail{{Property: "planId", Message: "bad", Suggestion: "add eSIMs"}},
		}, "The service answered HTTP 412 Precondition Failed to POST /v1/subscriptions (after 2 attempts).\nCode: outOfInventory\nMessage: no eSIM\n" +
			"Detail: planId: bad (suggestion: add eSIMs)\nHint: grow it\nDocs: https://docs/x\n\n" +
			"No suitable eSIM is free in the account's inventory: a plan with a label needs a free eSIM with that label, and a plan without one (an inline plan included) any free eSIM. The account's eSIM inventory must grow (or choose a plan with another label) before this subscription can be created."},
		{"429 past its deadline", &client.APIError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, StatusCode: 429, Status: "429 Too Many Requests",
			Code: "rateLimited", Message: "slow down", RetryAfter: time.Hour},
			"The service answered HTTP 429 Too Many Requests to POST /v1/subscriptions.\nCode: rateLimited\nMessage: slow down\n\n" +
				"The service's rate limit refused the request until its deadline. Its last answer asked to wait 1h0m0s (Retry-After), longer than this request had left before its deadline. " +
				"A create may wait as long as its timeouts.create (default 10m), any other request 10 minutes. " +
				"A request answered 429 was not acted on, and one not sent did nothing, so applying again is safe, a create included. " +
				"If the account's quota is shared, set max_requests_per_second to this run's share, or lower -parallelism; see the Rate limits guide."},
		{"not sent: the service's Retry-After passes the deadline", &client.RequestError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, Attempts: 1, NotSent: true,
			Err: &client.RateLimitWaitError{RetryAfter: 90 * time.Second, Closed: 89500 * time.Millisecond, Waited: 20 * time.Second, Left: 400 * time.Millisecond}},
			"Not sent: create subscription (POST /v1/subscriptions) was never sent, so the service did nothing. It waited for the account's request quota until its deadline: " +
				"the service answered 429 and asked to wait 1m30s (Retry-After), which keeps every request back for 1m30s more; its deadline was 400ms away, too soon (it had waited 20s)." + rateLimitAdvice},
		{"not sent: behind its own ceiling", &client.RequestError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, Attempts: 1, NotSent: true,
			Err: &client.RateLimitWaitError{Ahead: 7, Rate: 0.3, Ceiling: true, Waited: 30 * time.Second}},
			"Not sent: create subscription (POST /v1/subscriptions) was never sent, so the service did nothing. It waited for the account's request quota until its deadline: " +
				"7 of this client's own requests were still ahead of it in its queue, spaced at 0.3 per second (the configured ceiling); its deadline came after it had waited 30s. " +
				"The ceiling is this provider's max_requests_per_second." + rateLimitAdvice},
		{"not sent: asked to stop", &client.RequestError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, Attempts: 1, Err: client.ErrStopped, NotSent: true},
			"Not sent: create subscription (POST /v1/subscriptions) was never sent, so the service did nothing. Terraform asked the provider to stop (an interrupt) first. " +
				"Creates already sent were seen through and recorded in state; applying again does the rest."},
		{"not sent: cancelled", &client.RequestError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, Attempts: 1, Err: context.Canceled, NotSent: true},
			"Not sent: create subscription (POST /v1/subscriptions) was never sent, so the service did nothing. Terraform asked the provider to stop (an interrupt) first. " +
				"Creates already sent were seen through and recorded in state; applying again does the rest."},
		{"a read abandoned in flight", &client.RequestError{Call: client.Call{Operation: "list eSIMs", Method: "GET", Path: "/v1/esims"}, Attempts: 1, Err: context.Canceled},
			"Terraform asked the provider to stop (an interrupt) while list eSIMs (GET /v1/esims) waited for its answer: the read was abandoned, which changes nothing at the service."},
		{"no such path", &client.NoSuchPathError{Call: client.Call{Operation: "read plan p", Method: "GET", Path: "/v1/plans/p"}, URL: "https://api.example.com/v1/v1/plans/p"},
			"The service at https://api.example.com/v1/v1/plans/p has no such path (HTTP 404) to read plan p: check base_url. It must be the service's root, " +
				"such as https://api.example.com, without /v1: every path the provider requests begins with /v1. Nothing is missing at the service."},
		{"401", &client.APIError{Call: client.Call{Operation: "read plan p", Method: "GET", Path: "/v1/plans/p"}, StatusCode: 401, Status: "401 Unauthorized", Code: "unauthorized", Message: "bad token"},
			"The service answered HTTP 401 Unauthorized to GET /v1/plans/p.\nCode: unauthorized\nMessage: bad token\n\nThe API token was refused. " + TokenHelp},
		{"html page", &client.APIError{Call: client.Call{Operation: "read plan p", Method: "GET", Path: "/v1/plans/p"}, StatusCode: 503, Status: "503 Service Unavailable", BodyExcerpt: "<html>down</html>", Attempts: 5},
			"The service answered HTTP 503 Service Unavailable to GET /v1/plans/p (after 5 attempts).\nThe answer was not a service error; it began: <html>down</html>\n\n" +
				"The service, or a gateway in front of it, failed. Try again later; if it persists, contact the service's support with the time of the failure."},
		{"uncertain 502", &client.UncertainCreateError{Err: api502},
			"The service answered HTTP 502 Bad Gateway to POST /v1/subscriptions.\nThe answer had an empty body, as a proxy or gateway in front of the service sends.\n\n" +
				"The service, or a gateway in front of it, failed. Try again later; if it persists, contact the service's support with the time of the failure.\n\n" + uncertainAdviceText},
		{"uncertain no answer", &client.UncertainCreateError{Err: reqOnce},
			"create subscription (POST /v1/subscriptions): no answer from the service: timed out after 30s (request_timeout): unexpected EOF\n\n" + uncertainAdviceText},
		{"uncertain unreadable", &client.UncertainCreateError{Err: &client.DecodeError{Call: client.Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}, StatusCode: 200, Err: errors.New("the answer has no subscription id")}},
			"create subscription (POST /v1/subscriptions): HTTP 200, but the answer could not be read: the answer has no subscription id; it began \"\"\n\n" + uncertainAdviceText},
		{"timeouts", reqTimeout,
			"read plan plan_001 (GET /v1/plans/plan_001): no answer from the service: each of 3 attempts timed out after 100ms (request_timeout): context deadline exceeded\n\n" +
				"Check base_url and that the service (or the emulator) is reachable from here."},
		{"refused", reqRefused,
			"list plans (GET /v1/plans): no answer from the service after 5 attempts: connection refused\n\nCheck base_url and that the service (or the emulator) is reachable from here."},
		{"decode", decode,
			`read plan plan_001 (GET /v1/plans/plan_001): HTTP 200, but the answer could not be read: unexpected end of JSON input; it began "{\"id\":\"sub_trunc"`},
		{"redirect", &client.RedirectError{Call: client.Call{Operation: "list plans", Method: "GET", Path: "/v1/plans"}, Status: 307, Target: "http://evil.example:80", Origin: "http://127.0.0.1:8080"},
			"list plans (GET /v1/plans): the service answered HTTP 307, a redirect to http://evil.example:80, another origin than the base URL's http://127.0.0.1:8080. " +
				"The provider follows redirects only within that origin, so that the API token is never sent elsewhere and https never falls back to http; " +
				"if the service has moved, set base_url to its new address"},
		{"page of API error", &client.PageError{Call: client.Call{Operation: "list eSIMs"}, Page: 2, ItemsRead: 25, Err: &client.APIError{Call: client.Call{Operation: "list eSIMs", Method: "GET", Path: "/v1/esims"}, StatusCode: 500, Status: "500 Internal Server Error", Code: "internal", Message: "boom"}},
			"Listing stopped at page 2, after 25 items had been read.\nThe service answered HTTP 500 Internal Server Error to GET /v1/esims.\nCode: internal\nMessage: boom\n\n" +
				"The service, or a gateway in front of it, failed. Try again later; if it persists, contact the service's support with the time of the failure."},
		{"page of no answer", &client.PageError{Call: client.Call{Operation: "list plans"}, Page: 3, ItemsRead: 50, Err: reqRefused},
			"Listing stopped at page 3, after 50 items had been read.\nlist plans (GET /v1/plans): no answer from the service after 5 attempts: connection refused\n\n" +
				"Check base_url and that the service (or the emulator) is reachable from here."},
	} {
		if got := Detail(tc.err); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// The reasons a list is stopped before the service ends it.
func TestDetailEndlessListTexts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{endlessRepeatedItems(), "the page brought only items already read, with a new cursor; stopping instead of reading the same items forever"},
		{endlessRepeatedCursor("c2"), `the service returned the cursor "c2" a second time; stopping instead of reading the same pages forever`},
		{endlessMaxPages(40), "the list did not end after 40 pages, the most the provider reads of one list; stopping instead of reading forever"},
	} {
		err := &client.PageError{Call: client.Call{Operation: "list plans"}, Page: 7, ItemsRead: 150, Err: tc.err}
		want := "Listing stopped at page 7, after 150 items had been read.\n" + tc.want
		if got := Detail(err); got != want {
			t.Errorf("got %q\nwant %q", got, want)
		}
	}
}

const uncertainAdviceText = "The service may have created the subscription even so. It was not retried, so that no second eSIM is used. " +
	"Look for it among the newest subscriptions (the mobileplan_subscriptions data source lists newest first), and if it is there, " +
	"bring it under Terraform with `terraform import <resource address> <subscription id>` or an import block instead of applying again."

func endlessRepeatedItems() error { return &client.EndlessListError{} }

func endlessRepeatedCursor(c string) error { return &client.EndlessListError{RepeatedCursor: c} }

func endlessMaxPages(n int) error { return &client.EndlessListError{MaxPages: n} }

// The rate-limit warning names the quota the service reports, as a count
// per window, this run's part of it, and whether others spent the rest;
// its advice follows what was seen, and never tells a run to set the
// ceiling it set, or a run alone to share; without the fields it says
// nothing of a quota.
func TestRateLimitSlowedSaysWhatWasSeen(t *testing.T) {
	t.Parallel()
	base := client.RateLimitSlowdown{Held: 12 * time.Second, HeldForRetryAfter: 2 * time.Second, Refused: 3}
	shared := base
	shared.Quota = &client.QuotaShare{Limit: 5, Window: time.Second, PerSecond: 5, Form: "RateLimit", Used: 1.7, Others: true}
	alone := base
	alone.Quota = &client.QuotaShare{Limit: 20, Window: time.Second, PerSecond: 20, Form: "X-RateLimit", Used: 19.6}
	window := client.RateLimitSlowdown{Held: 9 * time.Second, HeldForCount: 9 * time.Second,
		Quota: &client.QuotaShare{Limit: 50, Window: 10 * time.Second, PerSecond: 5, Form: "X-RateLimit", FixedWindow: true, Accepted: 100, Over: 10 * time.Second, Used: 9.9}}
	ceiling := shared
	ceiling.Ceiling = 2
	for name, tc := range map[string]struct {
		s           client.RateLimitSlowdown
		says, never []string
	}{
		"shared": {shared, []string{"a quota of 5 requests a second for the account's token (RateLimit fields)", "accepted at 1.7 a second, 34% of it", "other clients spending it too",
			"set max_requests_per_second in the provider block"}, []string{"no other client"}},
		"alone": {alone, []string{"a quota of 20 requests a second", "(X-RateLimit fields)", "accepted at 19.6 a second, 98% of it.", "no other client spending the quota", "max_requests_per_second would not"},
			[]string{"other clients spending", "to this run's share"}},
		"a window alone, no refusal": {window, []string{"held back for 9s in all by the account's request quota, spaced by the quota's remaining count", "a quota of 50 requests per 10s",
			"counted afresh at each window's end", "it accepted 100 requests of this run over 10s", "refused 0 requests", "Nothing failed"},
			[]string{"50 requests a second", "learned from the service's refusals", "other clients spending", "Each was waited out", "to this run's share"}},
		"a ceiling set": {ceiling, []string{"lower this provider's max_requests_per_second (now 2) to this run's share"}, []string{"set max_requests_per_second in the provider block"}},
		"none": {base, []string{"2s while the service's Retry-After closed it to every request and 10s spaced at the rate learned from the service's refusals", "does not say how much of its quota is left"},
			[]string{"reports a quota", "other clients spending"}},
	} {
		d := RateLimitSlowed(tc.s).Detail()
		for _, s := range tc.says {
			if !strings.Contains(d, s) {
				t.Errorf("%s: does not say %q:\n%s", name, s, d)
			}
		}
		for _, s := range tc.never {
			if strings.Contains(d, s) {
				t.Errorf("%s: says %q:\n%s", name, s, d)
			}
		}
	}
}

// The advice after a wait that ran out gives the client's bound on it, as
// the docs do (the client's TestDefaultMaxRateLimitWaitIsWhatTheDocsSay).
func TestRateLimitAdviceGivesTheDefaultWait(t *testing.T) {
	t.Parallel()
	minutes := int(client.DefaultMaxRateLimitWait / time.Minute)
	for _, says := range []string{fmt.Sprintf("(default %dm)", minutes), fmt.Sprintf("any other request %d minutes", minutes)} {
		if !strings.Contains(rateLimitAdvice, says) {
			t.Errorf("the advice %q does not say %q: DefaultMaxRateLimitWait is %v", rateLimitAdvice, says, client.DefaultMaxRateLimitWait)
		}
	}
}
