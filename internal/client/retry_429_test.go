package client

// Tests of a 429 and its Retry-After, for any method: the pace waits it
// out until the request's deadline, never spending MaxRetries, and what
// reaches the retry policy (retry.go's rule 2) is past that deadline.
// They run in a synctest bubble, on a fake clock; the shared pace itself
// is pace_test.go's.

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

func TestRetryGET429HonorsRetryAfter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 7, Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 429, Times: 1}}})
		start := time.Now()
		p, err := c.GetPlan(bg, "plan_001")
		if err != nil || p.ID != "plan_001" {
			t.Fatalf("GetPlan = %v, %v", p, err)
		}
		if waited := time.Since(start); waited != 7*time.Second {
			t.Errorf("waited %v, want exactly 7s from Retry-After", waited)
		}
		if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 2 {
			t.Errorf("requests = %d, want 2", n)
		}
	})
}

// A Retry-After longer than MaxRetryAfter (which caps 5xx backoff only) is
// waited out in full: a request sent earlier would only meet another 429.
func TestRetryAfterLongerThanCapWaitedOut(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, func(cfg *Config) { cfg.MaxRetryAfter = 5 * time.Second })
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 120, Rules: []emulator.FaultRule{{Method: "GET", Action: "status", Status: 429, Times: 2}}})
		start := time.Now()
		if _, err := c.GetPlan(bg, "plan_001"); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 240*time.Second {
			t.Errorf("waited %v, want 2 × 120s", waited)
		}
		if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 3 {
			t.Errorf("requests = %d, want 3", n)
		}
	})
}

// A Retry-After that ends past the request's deadline is not waited at
// all: the request ends at once with the service's 429 and its wait.
func TestRetryAfterPastDeadlineFailsAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 3600, Rules: []emulator.FaultRule{{Method: "GET", Action: "status", Status: 429}}})
		ctx, cancel := context.WithTimeout(bg, 20*time.Minute)
		defer cancel()
		start := time.Now()
		_, err := c.GetPlan(ctx, "plan_001")
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != time.Hour {
			t.Fatalf("error = %v, want the 429 with its Retry-After of 1h", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("waited %v, want none", waited)
		}
		if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 1 {
			t.Errorf("requests = %d, want 1", n)
		}
	})
}

func TestRetryPOST429(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "POST", Action: "status", Status: 429, Times: 1}}})
		start := time.Now()
		if _, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"}); err != nil {
			t.Fatalf("CreateSubscription: %v", err)
		}
		if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 2 {
			t.Errorf("POSTs = %d, want 2 (a 429 means the service did not act)", n)
		}
		if waited := time.Since(start); waited != time.Second {
			t.Errorf("waited %v, want 1s from Retry-After", waited)
		}
		if s := emu.Stats().Subscriptions; s != 1 {
			t.Errorf("subscriptions = %d, want 1", s)
		}
	})
}

// A create refused with 429 until its deadline is sent again for as long
// as the deadline allows, whatever MaxRetries says, and ends with the
// service's 429: a refusal, never an uncertain create.
func TestRetryPOST429UntilDeadline(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, func(cfg *Config) { cfg.MaxRetries = ptr(0) })
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 2, Rules: []emulator.FaultRule{{Method: "POST", Action: "status", Status: 429}}})
		ctx, cancel := context.WithTimeout(bg, 7*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_001"})
		var uncertain *UncertainCreateError
		if errors.As(err, &uncertain) {
			t.Errorf("a 429 is a refusal, not an uncertain create: %v", err)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 2*time.Second || apiErr.Code != "rateLimited" {
			t.Fatalf("error = %s, want the last 429", dump(apiErr))
		}
		// Sent at 0, 2, 4 and 6 s; the next would be at 8, past the deadline.
		if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 4 {
			t.Errorf("POSTs = %d, want 4", n)
		}
		if waited := time.Since(start); waited != 6*time.Second {
			t.Errorf("waited %v, want 6s", waited)
		}
	})
}
