package emulator_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// A rate of 0.5 per second is a bucket of one request that refills in two
// seconds: the second request of a quick pair is refused, whatever the
// machine's speed, and says how long to wait.
func TestRateLimitAnswers429WithRetryAfterAndCountsIt(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0), RateLimit: 0.5})
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), http.StatusOK)
	limited := api(t, srv, "GET", "/v1/plans/plan_001", "")
	requireError(t, limited, http.StatusTooManyRequests, "rateLimited")
	if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 2 {
		t.Errorf("Retry-After = %q, want whole seconds from 1 to 2", limited.Header.Get("Retry-After"))
	}
	// A request refused for its token takes nothing from the bucket and is
	// not counted as limited.
	requireError(t, send(t, "GET", srv.URL+"/v1/plans", "Bearer wrong", ""), http.StatusUnauthorized, "unauthorized")
	st := srv.Stats()
	if st.RateLimited != 1 {
		t.Errorf("stats rateLimited = %d, want 1", st.RateLimited)
	}
	if n := st.Requests["GET /v1/plans/{id}"]; n != 1 {
		t.Errorf("the limited request is counted %d times under requests, want 1", n)
	}
	stats := decode[map[string]any](t, ctl(t, srv, "GET", "/_emulator/stats", ""))
	if v, ok := stats["rateLimited"].(float64); !ok || v != 1 {
		t.Errorf("GET /_emulator/stats rateLimited = %v, want 1", stats["rateLimited"])
	}
}

func TestRateLimitOffByDefault(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0)})
	for range 50 {
		mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), http.StatusOK)
	}
	if n := srv.Stats().RateLimited; n != 0 {
		t.Errorf("rateLimited = %d with no limit set", n)
	}
}

func TestRateLimitRefusesNegative(t *testing.T) {
	t.Parallel()
	if _, err := emulator.New(emulator.Options{Token: "t", RateLimit: -1}); err == nil {
		t.Error("a negative rate limit was accepted")
	}
}
