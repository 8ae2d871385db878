package diagnostics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th", 112: "112th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// Counts of one read in the singular ("1 free eSIMs" was reported by a user).
func TestPreflightCountsOfOne(t *testing.T) {
	for name, tc := range map[string]struct {
		text      string
		want, not string
	}{
		"label short":  {LabelShort("europe", 2, 1).Detail, "the account has 1 free eSIM with that label", "1 free eSIMs"},
		"total short":  {TotalShort(2, 1, 1).Detail, "the account has 1 free eSIM in all", "1 free eSIMs"},
		"may take":     {UnlabelledMayTakeLabelled("europe", 1, 1, 1, path.Root("plan_id")).Detail(), "creates 1 subscription on plans", "1 subscriptions"},
		"may take add": {UnlabelledMayTakeLabelled("europe", 1, 1, 1, path.Root("plan_id")).Detail(), "add 1 eSIM with label", "1 eSIMs"},
	} {
		if !strings.Contains(tc.text, tc.want) || strings.Contains(tc.text, tc.not) {
			t.Errorf("%s: want %q and not %q in:\n%s", name, tc.want, tc.not, tc.text)
		}
	}
}

// A read the preflight could not make says what is true of its case: the
// preflight = "warn"/"off" hint belongs to findings, and "try again" to
// failures that may pass; a request never sent says so first; a rate
// limit, the check's own time bound or an interrupt never fail a plan.
func TestPreflightReadFailedSaysOnlyWhatIsTrue(t *testing.T) {
	t.Parallel()
	plan := client.Call{Operation: "read plan plan_001", Method: "GET", Path: "/v1/plans/plan_001"}
	for name, tc := range map[string]struct {
		err      error
		severity diag.Severity
		summary  string
		says     []string
		never    []string
	}{
		"401": {&client.APIError{Call: plan, StatusCode: 401, Status: "401 Unauthorized", Code: "unauthorized", Message: "bad token"},
			diag.SeverityError, "Preflight could not read plan plan_001", []string{"The API token was refused", "could not run."}, []string{"try again", "Try again", "preflight ="}},
		"connection refused": {&client.RequestError{Call: plan, Attempts: 5, Err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused")},
			diag.SeverityError, "Preflight could not read plan plan_001", []string{"no answer from the service", "Check base_url", "Try again once the service answers."}, []string{"preflight ="}},
		"wrong path": {&client.NoSuchPathError{Call: plan, URL: "https://api.example.com/v1/v1/plans/plan_001"},
			diag.SeverityError, "Preflight could not read plan plan_001", []string{"check base_url", "until base_url is corrected"}, []string{"try again", "Try again", "preflight ="}},
		"503": {&client.APIError{Call: plan, StatusCode: 503, Status: "503 Service Unavailable"},
			diag.SeverityError, "Preflight could not read plan plan_001", []string{"Try again once the service answers."}, []string{"preflight ="}},
		"429 at its deadline": {&client.APIError{Call: plan, StatusCode: 429, Status: "429 Too Many Requests", RetryAfter: 30 * time.Second},
			diag.SeverityWarning, "Preflight skipped: the service's rate limit", []string{"asked to wait 30s (Retry-After)", "the plan goes on without it", "at most 2s"}, []string{"try again", "preflight ="}},
		"queued past the bound": {&client.RequestError{Call: plan, NotSent: true, Err: &client.RateLimitWaitError{RetryAfter: time.Second, Closed: 800 * time.Millisecond, Waited: time.Minute}},
			diag.SeverityWarning, "Preflight skipped: the service's rate limit", []string{"Not sent: read plan plan_001 (GET /v1/plans/plan_001) was never sent", "the plan goes on without it"}, []string{"0s more", "preflight ="}},
		"interrupted": {&client.RequestError{Call: plan, NotSent: true, Err: client.ErrStopped},
			diag.SeverityWarning, "Preflight stopped: Terraform was interrupted", []string{"Not sent: read plan plan_001"}, []string{"Creates already sent", "no answer", "preflight ="}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := PreflightReadFailed("plan plan_001", tc.err, path.Root("plan_id"), false)
			if d.Severity() != tc.severity || d.Summary() != tc.summary {
				t.Errorf("%v %q, want %v %q", d.Severity(), d.Summary(), tc.severity, tc.summary)
			}
			for _, s := range tc.says {
				if !strings.Contains(d.Detail(), s) {
					t.Errorf("detail does not say %q:\n%s", s, d.Detail())
				}
			}
			for _, s := range tc.never {
				if strings.Contains(d.Detail(), s) {
					t.Errorf("detail says %q:\n%s", s, d.Detail())
				}
			}
		})
	}
	// With preflight = "warn", a failure that would fail the plan is a
	// warning that says the plan goes on.
	d := PreflightReadFailed("plan plan_001", &client.APIError{Call: plan, StatusCode: 401, Status: "401 Unauthorized"}, path.Root("plan_id"), true)
	if d.Severity() != diag.SeverityWarning || !strings.Contains(d.Detail(), `preflight = "warn" lets the plan go on without it`) {
		t.Errorf("with warn: %v\n%s", d.Severity(), d.Detail())
	}
}
