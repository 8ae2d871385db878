package provider

import (
	"strings"
	"testing"
)

// A run the service's rate limit slowed says so without TF_LOG, in one
// folded warning that names the setting that avoids the refusals; a run
// it did not slow says nothing.
func TestCLI_rateLimitSlowdownIsAWarning(t *testing.T) {
	t.Parallel()
	for name, perSecond := range map[string]float64{"slowed": 2, "not slowed": 0} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startRateLimited(t, perSecond, 40)
			tf := newTerraformCLI(t)
			tf.Write("main.tf", cliProvider(srv)+`
resource "mobileplan_subscription" "fleet" {
  count = 16
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 1024
    period_days = 30
  }
}
`)
			out := tf.Must("apply", "-auto-approve", "-input=false")
			warned := strings.Count(out, "Warning: The service's rate limit slowed this run")
			t.Logf("%d requests answered 429; the warning shown %d time(s)", srv.Stats().RateLimited, warned)
			switch {
			case perSecond == 0 && warned != 0:
				t.Errorf("warned of a rate limit the service does not have:\n%s", out)
			case perSecond > 0 && warned == 0:
				t.Errorf("no warning after creates at %v per second:\n%s", perSecond, out)
			case perSecond > 0 && !strings.Contains(out, "max_requests_per_second"):
				t.Errorf("the warning does not name max_requests_per_second:\n%s", out)
			}
			if perSecond > 0 && warned > 2 {
				// one per provider process (plan, apply) at most, the rest folded
				t.Errorf("the warning was shown %d times, want it folded:\n%s", warned, out)
			}
		})
	}
}
