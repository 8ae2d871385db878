package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// These run a real CLI against an emulator limited to a few requests per
// second, on the wall clock: they prove the wiring (every request of every
// provider process goes through the pace, the setting and its variable
// reach it). The pace's figures, exact on a fake clock, are proven in
// internal/client/pace_test.go.

// An apply that meets the service's rate limit waits it out: every create
// succeeds, though the service answered some requests 429.
func TestAccSubscription_applyUnderARateLimitNeverFails(t *testing.T) {
	t.Parallel()
	srv := startRateLimited(t, 10, 40)
	testAcc(t, resource.TestStep{
		Config: subscriptionsConfig(srv, 25, "")})
	st := srv.Stats()
	if st.Subscriptions != 25 {
		t.Errorf("subscriptions = %d, want 25", st.Subscriptions)
	}
	if st.RateLimited == 0 {
		t.Error("no request was answered 429: the test did not meet the limit it is about")
	}
	t.Logf("%d requests answered 429", st.RateLimited)
}

// A ceiling at or under the service's limit is never refused: not in the
// plan's preflight, not in the creates, not in the refresh after them.
func TestAccProvider_maxRequestsPerSecondIsNeverRefused(t *testing.T) {
	t.Parallel()
	srv := startRateLimited(t, 5, 20)
	testAcc(t, resource.TestStep{Config: subscriptionsConfig(srv, 10, "max_requests_per_second = 4")})
	if st := srv.Stats(); st.RateLimited != 0 || st.Subscriptions != 10 {
		t.Errorf("%d answered 429, %d subscriptions; want none refused, 10 created", st.RateLimited, st.Subscriptions)
	}
}
