package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// These run a real CLI against an emulator limited to a few requests per
// second, on the wall clock: they prove the wiring (every request of every
// provider process goes through the pace, the setting and its variable
// reach it). The pace's figures, exact on a fake clock, are proven in
// internal/client/pace_test.go. What they assert holds however fast or
// loaded the machine: a 429 that timing may or may not bring is never
// required, and a ceiling is asserted never refused only with a margin of
// seconds of network delay.

// An apply that meets the service's rate limit waits it out: every create
// succeeds, though the service answered some requests 429. The first
// creates are answered 429 whatever the machine's speed; the limiter may
// refuse more.
func TestAccSubscription_applyUnderARateLimitNeverFails(t *testing.T) {
	t.Parallel()
	const refused = 1
	srv := startRateLimited(t, 10, 40)
	srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "POST", Action: "status", Status: 429, Times: refused}}})
	testAcc(t, resource.TestStep{
		Config: subscriptionsConfig(srv, 25, "")})
	st := srv.Stats()
	if st.Subscriptions != 25 {
		t.Errorf("subscriptions = %d, want 25", st.Subscriptions)
	}
	if posts := srv.RequestCounts()["POST /v1/subscriptions"]; posts < 25+refused {
		t.Errorf("%d creates sent; want 25 and the %d answered 429 sent again", posts, refused)
	}
	t.Logf("%d requests answered 429 by the limiter", st.RateLimited)
}

// A ceiling under the service's limit is never refused: not in the plan's
// preflight, not in the creates, not in the refresh after them. At 3 a
// second against a bucket of 8 refilled at 8 a second, a 429 needs
// requests held back in transit for more than two seconds and then
// arriving together; without the ceiling, Terraform's 10 concurrent creates
// empty the bucket.
func TestAccProvider_maxRequestsPerSecondIsNeverRefused(t *testing.T) {
	t.Parallel()
	srv := startRateLimited(t, 8, 20)
	testAcc(t, resource.TestStep{Config: subscriptionsConfig(srv, 10, "max_requests_per_second = 3")})
	if st := srv.Stats(); st.RateLimited != 0 || st.Subscriptions != 10 {
		t.Errorf("%d answered 429, %d subscriptions; want none refused, 10 created", st.RateLimited, st.Subscriptions)
	}
}
