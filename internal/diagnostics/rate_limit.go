package diagnostics

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// NoticeableSlowdown is how long the service's rate limit must have held
// requests back before a run is told, without TF_LOG, that it was slowed.
const NoticeableSlowdown = 3 * time.Second

// RateLimitSlowed is the warning of a run that the service's rate limit
// slowed noticeably, with the totals of the provider process's every
// operation: the time requests were held back, by cause, the requests
// refused, those that could not wait long enough, if any, and the quota
// the service reported. Its advice follows what was seen: a quota others
// shared, one this run had alone, or one the service did not describe;
// and whether a ceiling was set. Its summary is the same whatever the
// figures, so that Terraform folds it with any other into one.
func RateLimitSlowed(s client.RateLimitSlowdown) diag.Diagnostic {
	var parts []string
	if s.HeldForRetryAfter > 0 {
		parts = append(parts, client.FormatWait(s.HeldForRetryAfter)+" while the service's Retry-After closed it to every request")
	}
	if s.HeldForCount > 0 {
		parts = append(parts, client.FormatWait(s.HeldForCount)+" spaced by the quota's remaining count, as the service reported it")
	}
	if rest := s.Held - s.HeldForRetryAfter - s.HeldForCount; rest > 0 {
		parts = append(parts, client.FormatWait(rest)+" spaced at the rate learned from the service's refusals")
	}
	held := fmt.Sprintf("In this run, the provider's requests were held back for %s in all by the account's request quota", client.FormatWait(s.Held))
	switch len(parts) {
	case 1:
		held += ", " + strings.SplitN(parts[0], " ", 2)[1]
	case 0:
	default:
		held += ": " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	refused := fmt.Sprintf("The service refused %s with HTTP 429.", count(s.Refused, "request"))
	if s.Refused > 0 {
		refused += " Each was waited out and sent again."
	}
	outcome := " Nothing failed because of the limit."
	if s.GaveUp > 0 {
		deadline := "its deadline"
		if s.GaveUp > 1 {
			deadline = "their deadlines"
		}
		outcome = fmt.Sprintf(" But %s could not wait long enough before %s: "+
			"each ended its operation with an error saying so, or at plan time skipped the preflight check with a warning.", count(s.GaveUp, "request"), deadline)
	}
	quota := ""
	if q := s.Quota; q != nil {
		quota = fmt.Sprintf("\n\nThe service reports a quota of %s for the account's token (%s fields)", q.Describe(), q.Form)
		if q.FixedWindow {
			quota += ", counted afresh at each window's end"
		}
		switch {
		case q.FixedWindow && q.Accepted > 0:
			quota += fmt.Sprintf("; it accepted %s of this run over %s", count(q.Accepted, "request"), client.FormatWait(q.Over))
		case q.Used > 0:
			quota += fmt.Sprintf("; this run's requests were accepted at %s a second, %.0f%% of it", client.FormatRate(q.Used), 100*min(1, q.Used/q.PerSecond))
		}
		if q.Others {
			quota += ", and its remaining count showed other clients spending it too: pipelines or people sharing this token"
		}
		quota += "."
	}
	return diag.NewWarningDiagnostic("The service's rate limit slowed this run",
		held+". "+refused+outcome+quota+"\n\n"+rateLimitNextStep(s)+" A create's wait for the quota is bounded by its timeouts.create. See the Rate limits guide.")
}

// rateLimitNextStep is what a person can do about the slowdown, from what
// the run saw.
func rateLimitNextStep(s client.RateLimitSlowdown) string {
	ceiling := "set max_requests_per_second in the provider block (or MOBILEPLAN_MAX_REQUESTS_PER_SECOND) to this run's share of it"
	if s.Ceiling > 0 {
		ceiling = fmt.Sprintf("lower this provider's max_requests_per_second (now %s) to this run's share of it", client.FormatRate(s.Ceiling))
	}
	switch q := s.Quota; {
	case q != nil && q.Others:
		return "The quota is shared by every client of the account's token. To have requests spaced under the limit instead of waiting or refused, " + ceiling + "."
	case q != nil:
		return "The count showed no other client spending the quota: this run alone needed more requests than it allows in that time, " +
			"and a run under it takes at least its requests divided by the quota. Spreading the work over runs further apart, or a larger quota, " +
			"would make it faster; max_requests_per_second would not."
	}
	return "The service does not say how much of its quota is left, so whether others share it is not known. " +
		"The quota is shared by every client of the account's token: if pipelines or people share this token, " + ceiling + "."
}
