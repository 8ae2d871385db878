package diagnostics

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// NoticeableSlowdown is how long the service's rate limit must have held
// requests back before a run is told, without TF_LOG, that it was slowed.
const NoticeableSlowdown = 3 * time.Second

// RateLimitSlowed is the warning of a run that the service's rate limit
// slowed noticeably, with the totals of the provider process's every
// operation: the time requests were held back, and for which cause, the
// requests refused, and those that could not wait long enough, if any.
// Its summary is the same whatever the figures, so that Terraform folds it
// with any other into one.
func RateLimitSlowed(s client.RateLimitSlowdown) diag.Diagnostic {
	held := fmt.Sprintf("In this run, the provider's requests were held back for %s in all by the account's request quota", client.FormatWait(s.Held))
	switch rest := s.Held - s.HeldForRetryAfter; {
	case s.HeldForRetryAfter > 0 && rest > 0:
		held += fmt.Sprintf(": %s while the service's Retry-After closed it to every request, and %s spaced at the rate learned from its refusals", client.FormatWait(s.HeldForRetryAfter), client.FormatWait(rest))
	case s.HeldForRetryAfter > 0:
		held += ", while the service's Retry-After closed it to every request"
	default:
		held += ", spaced at the rate learned from the service's refusals"
	}
	outcome := "Each refused request was waited out and sent again, and nothing failed because of it."
	if s.GaveUp > 0 {
		deadline := "its deadline"
		if s.GaveUp > 1 {
			deadline = "their deadlines"
		}
		outcome = fmt.Sprintf("Each refused request was waited out and sent again, but %s could not wait long enough before %s: "+
			"each ended its operation with an error saying so, or at plan time skipped the preflight check with a warning.", count(s.GaveUp, "request"), deadline)
	}
	quota := ""
	if q := s.Quota; q != nil {
		quota = fmt.Sprintf("\n\nThe service reports a quota of %s requests a second for the account's token (%s fields)", formatRate(q.PerSecond), q.Form)
		if q.Used > 0 {
			quota += fmt.Sprintf("; this run's requests were accepted at %s a second, %.0f%% of it", formatRate(q.Used), 100*min(1, q.Used/q.PerSecond))
		}
		if q.Others {
			quota += ", and its remaining count showed other clients spending the rest: pipelines or people sharing this token"
		}
		quota += "."
	}
	return diag.NewWarningDiagnostic("The service's rate limit slowed this run",
		fmt.Sprintf("%s. The service refused %s with HTTP 429. %s%s\n\n"+
			"The quota is shared by every client of the account's token. "+
			"Set max_requests_per_second in the provider block (or MOBILEPLAN_MAX_REQUESTS_PER_SECOND) to this run's share of it, "+
			"so that requests are spaced under the limit instead of refused; a create's wait for the quota is bounded by its timeouts.create. "+
			"See the Rate limits guide.", held, count(s.Refused, "request"), outcome, quota))
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'g', 3, 64) }
