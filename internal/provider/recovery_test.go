package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// Terraform tells its providers nothing of -target or -exclude: the
// provider reads them from the command line and TF_CLI_ARGS, and when it
// cannot read the command line it counts the run as limited.
func TestRecoveryLimited(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		err  error
		env  map[string]string
		want string // a phrase of the reason; "" for a whole run
	}{
		"whole":                 {args: []string{"terraform", "apply", "-auto-approve"}},
		"-target=":              {args: []string{"terraform", "apply", "-target=mobileplan_subscription.a"}, want: "(-target)"},
		"-target value":         {args: []string{"tofu", "plan", "-target", "mobileplan_subscription.a"}, want: "(-target)"},
		"--target":              {args: []string{"terraform", "apply", "--target=x"}, want: "(-target)"},
		"-exclude":              {args: []string{"tofu", "apply", "-exclude=x"}, want: "(-exclude)"},
		"-target-file":          {args: []string{"tofu", "apply", "-target-file=targets.txt"}, want: "(-target-file)"},
		"-exclude-file":         {args: []string{"tofu", "plan", "-exclude-file", "x.txt"}, want: "(-exclude-file)"},
		"TF_CLI_ARGS":           {args: []string{"terraform", "apply"}, env: map[string]string{"TF_CLI_ARGS": "-target=x"}, want: "(-target)"},
		"TF_CLI_ARGS_plan":      {args: []string{"terraform", "plan"}, env: map[string]string{"TF_CLI_ARGS_plan": "-lock=false -target=x"}, want: "(-target)"},
		"a value, not a flag":   {args: []string{"terraform", "apply", "-var", "target=x"}},
		"-targets are prefixed": {args: []string{"terraform", "apply", "-targetx"}},
		"unreadable":            {err: errors.New("no /proc"), want: "cannot read Terraform's command line"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, v := range []string{"TF_CLI_ARGS", "TF_CLI_ARGS_plan", "TF_CLI_ARGS_apply"} {
				t.Setenv(v, c.env[v])
			}
			r := &recovery{parentArgs: func() ([]string, error) { return c.args, c.err }}
			got := r.limited()
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("limited() = %q, want %q", got, c.want)
			}
		})
	}
}

// A leftover stands for a new subscription only when it was never used
// and is of the plan the create asks for, in either of its forms.
func TestLeftoverFitsOnlyAnUnusedSubscriptionOfTheSamePlan(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	str := func(v string) *string { return &v }
	byID := client.CreateSubscriptionRequest{PlanID: "plan_001"}
	inline := client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov_eu", DataMBs: 1024, PeriodDays: 30}}
	ready := client.Subscription{State: client.StateReady, PlanID: "plan_001",
		Plan: client.PlanForAttachment{CoverageProfileID: str("cov_eu"), DataMegaBytes: i64(1024), PeriodDays: i64(30)}}
	for name, c := range map[string]struct {
		change func(*client.Subscription)
		body   client.CreateSubscriptionRequest
		want   bool
	}{
		"by plan id":          {body: byID, want: true},
		"inline, same values": {body: inline, want: true},
		"another plan id":     {change: func(s *client.Subscription) { s.PlanID = "plan_002" }, body: byID},
		"active":              {change: func(s *client.Subscription) { s.State = client.StateActive }, body: byID},
		"activated once":      {change: func(s *client.Subscription) { s.ActivatedAt = i64(1) }, body: byID},
		"inline, other data":  {change: func(s *client.Subscription) { s.Plan.DataMegaBytes = i64(2048) }, body: inline},
		"inline, labelled":    {change: func(s *client.Subscription) { s.Plan.Label = str("europe") }, body: inline},
		"inline, two periods": {change: func(s *client.Subscription) { s.Plan.PeriodIterations = i64(2) }, body: inline},
	} {
		sub := ready
		if c.change != nil {
			c.change(&sub)
		}
		if got := fitFor(&sub, c.body); got != c.want {
			t.Errorf("%s: fitFor = %v, want %v", name, got, c.want)
		}
	}
}
