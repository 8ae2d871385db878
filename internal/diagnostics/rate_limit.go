package diagnostics

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// NoticeableSlowdown is how long the service's rate limit must have held
// requests back before a run is told, without TF_LOG, that it was slowed.
const NoticeableSlowdown = 3 * time.Second

// RateLimitSlowed is the warning of an operation that ended after the
// service's rate limit had slowed this run noticeably. Its summary is the
// same for every operation, so that Terraform folds them into one.
func RateLimitSlowed(s client.RateLimitSlowdown) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The service's rate limit slowed this run",
		fmt.Sprintf("So far in this run, the provider's requests waited %s for the account's request quota, and the service refused %s with HTTP 429; "+
			"each was waited out and sent again, and nothing failed because of it. The quota is shared by every client of the account's token. "+
			"Set max_requests_per_second in the provider block (or MOBILEPLAN_MAX_REQUESTS_PER_SECOND) to this run's share of it, "+
			"so that requests are spaced under the limit instead of refused; a create's wait for the quota is bounded by its timeouts.create. "+
			"See the Rate limits guide.", s.Held.Round(time.Second), count(s.Refused, "request")))
}
