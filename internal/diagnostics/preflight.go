package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// Next steps shared by the 412 at apply and the preflight at plan time, so
// that both say the same thing.
const (
	// ChooseSubscribablePlan is the cure for an invalidPlan.
	ChooseSubscribablePlan = "Choose a plan that is neither archived nor an addon, for example from the mobileplan_plans data source with subscribable = true."
	// GrowInventory is the cure for outOfInventory.
	GrowInventory = "The account's eSIM inventory must grow (or choose a plan with another label) before this subscription can be created."
)

// Finding is what the plan-time preflight found about one planned create.
// The provider's `preflight` setting decides whether it is an error or a
// warning, so the text is kept apart from the severity.
type Finding struct {
	Summary string
	Detail  string
}

// Diagnostic attaches the finding to attr, as an error or, when warn is set,
// as a warning that says the plan goes on.
func (f Finding) Diagnostic(attr path.Path, warn bool) diag.Diagnostic {
	if warn {
		return diag.NewAttributeWarningDiagnostic(attr, f.Summary, f.Detail+"\n\n"+preflightWarnOnly)
	}
	return diag.NewAttributeErrorDiagnostic(attr, f.Summary, f.Detail+"\n\n"+preflightFoundIt)
}

const (
	preflightFoundIt  = `Found at plan time by the provider's preflight check, before anything was created. The provider setting preflight = "warn" reports this as a warning instead, and "off" skips the check.`
	preflightWarnOnly = `Found at plan time by the provider's preflight check; preflight = "warn" lets the plan go on, so unless this is fixed first, the service will refuse the subscription at apply.`
)

// PlanMissing: the plan_id names no plan of the account.
func PlanMissing(planID string) Finding {
	return planRefused(planID, fmt.Sprintf("Plan %q does not exist in the account (GET /v1/plans/%s answered HTTP 404).", planID, planID))
}

// PlanNotSubscribable: the plan exists but is archived or an addon.
func PlanNotSubscribable(p client.Plan) Finding {
	why := "is archived"
	if p.Addon {
		why = "is an addon plan; addons attach to an existing subscription"
	}
	return planRefused(p.ID, fmt.Sprintf("Plan %q (%s) %s.", p.ID, p.Name, why))
}

func planRefused(planID, fact string) Finding {
	return Finding{
		Summary: fmt.Sprintf("Plan %q cannot be subscribed to", planID),
		Detail: fact + " Creating this subscription would fail at apply with HTTP 412 Precondition Failed (invalidPlan).\n\n" +
			"The plan cannot be subscribed to: it does not exist, is archived, or is an addon plan. " + ChooseSubscribablePlan,
	}
}

// LabelShort: this create is number rank among the planned creates whose
// plan has label, and only free eSIMs with that label are left. Every
// create past the free ones gets this, so their number is the shortfall:
// nobody can know the total before Terraform has planned every resource.
func LabelShort(label string, rank, free int) Finding {
	return Finding{
		Summary: fmt.Sprintf("Not enough free eSIMs with label %q", label),
		Detail: fmt.Sprintf("This subscription is the %s create in this Terraform plan whose mobile plan has the label %q, and the account has %s with that label; "+
			"the service gives such a plan no other eSIM. %s Terraform shows this error for each create that does not fit.\n\n"+
			"Add eSIMs with label %q to the account's inventory, one for each of these errors, or choose a plan with another label for some of these subscriptions, before applying.",
			ordinal(rank), label, freeESIMs(free), applyOutcome(free), label),
	}
}

// TotalShort: every label fits, but this create is number rank in all and
// only free eSIMs are left, because plans without a label take any free
// eSIM, labelled ones included.
func TotalShort(rank, unlabelled, free int) Finding {
	return Finding{
		Summary: "Not enough free eSIMs",
		Detail: fmt.Sprintf("This subscription is the %s create in this Terraform plan, and the account has %s in all. "+
			"%d of these creates are on plans without a label (inline plans have none), which take any free eSIM, but only those the labelled creates leave. "+
			"%s Terraform shows this error for each create that does not fit.\n\n"+
			"Add eSIMs (any label) to the account's inventory, one for each of these errors, or create fewer subscriptions in this run, before applying.",
			ordinal(rank), freeESIMs(free), unlabelled, applyOutcome(free)),
	}
}

// UnlabelledMayTakeLabelled warns that the inventory suffices only if the
// service gives the unlabelled creates other eSIMs than the ones labelled
// creates need: it gives a plan without a label any free eSIM.
func UnlabelledMayTakeLabelled(label string, needed, free, unlabelled int, attr path.Path) diag.Diagnostic {
	return diag.NewAttributeWarningDiagnostic(attr, "Subscriptions without a label may take eSIMs that labelled ones need",
		fmt.Sprintf("This Terraform plan creates %s on plans with the label %q, which need eSIMs with that label (%s), and at least %d on plans without a label (inline plans have none), "+
			"which the service gives any free eSIM, possibly one labelled %q. There are enough free eSIMs for all of them, but only if the service gives the unlabelled subscriptions other eSIMs, "+
			"and it does not say which one it picks.\n\n"+
			"To be sure, add %s with label %q to the account's inventory, or apply the labelled subscriptions first (for example with -target), then the others.",
			count(needed, "subscription"), label, freeESIMs(free), unlabelled, label, count(needed+unlabelled-free, "eSIM"), label))
}

// applyOutcome says what applying a plan short of eSIMs would do.
func applyOutcome(free int) string {
	if free == 0 {
		return "Applying would fail for each of them with HTTP 412 Precondition Failed (outOfInventory)."
	}
	return fmt.Sprintf("Applying would create %d of them and then fail for the rest with HTTP 412 Precondition Failed (outOfInventory), leaving the rollout half done.", free)
}

// freeESIMs writes "1 free eSIM", "4 free eSIMs".
func freeESIMs(n int) string { return count(n, "free eSIM") }

// count writes "1 subscription", "2 subscriptions".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ordinal writes 1st, 2nd, 3rd, 4th, 11th, 21st...
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// PreflightReadFailed is the diagnostic of a read the preflight needed
// that failed, attached to attr: the check of this create could not run,
// which is not a finding. A read given up for the service's rate limit,
// the check's own time bound, or an interrupt is a warning whatever the
// preflight setting, since the plan itself is sound; any other failure
// (a refused token, an unreachable service, a wrong base_url) would fail
// the apply too, and is an error unless preflight = "warn".
func PreflightReadFailed(what string, err error, attr path.Path, warn bool) diag.Diagnostic {
	var noPath *client.NoSuchPathError
	var waitErr *client.RateLimitWaitError
	var apiErr *client.APIError
	var reqErr *client.RequestError
	summary := "Preflight could not read " + what
	switch {
	case errors.Is(err, client.ErrStopped) || errors.Is(err, context.Canceled):
		return diag.NewAttributeWarningDiagnostic(attr, "Preflight stopped: Terraform was interrupted",
			"The plan-time check of this create did not run: "+Detail(err))
	case errors.As(err, &waitErr) || (errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests):
		return diag.NewAttributeWarningDiagnostic(attr, "Preflight skipped: the service's rate limit",
			Detail(err)+"\n\nSo the plan-time check of this create did not run, and the plan goes on without it. "+
				fmt.Sprintf("Each of the check's reads waits for the account's quota for at most %s: ", client.FormatWait(PreflightRateLimitWait))+
				"the apply meets the same limit and waits it out, up to each create's timeouts.create.")
	case errors.Is(err, context.DeadlineExceeded) && (!errors.As(err, &reqErr) || reqErr.Timeout == 0):
		return diag.NewAttributeWarningDiagnostic(attr, "Preflight skipped: its reads ran out of time",
			Detail(err)+"\n\nSo the plan-time check of this create did not run, and the plan goes on without it. "+
				fmt.Sprintf("The check's reads may take at most %s, or the create's timeouts.create when that is shorter.", preflightBoundText))
	}
	next := "So the plan-time check of this create could not run."
	switch {
	case errors.As(err, &noPath):
		next = "So the plan-time check of this create could not run, and no create can succeed until base_url is corrected."
	case errors.As(err, &apiErr) && apiErr.StatusCode >= 500, errors.As(err, &reqErr):
		next += " Try again once the service answers."
	}
	detail := Detail(err) + "\n\n" + next
	if warn {
		return diag.NewAttributeWarningDiagnostic(attr, summary, detail+` preflight = "warn" lets the plan go on without it.`)
	}
	return diag.NewAttributeErrorDiagnostic(attr, summary, detail)
}

// PreflightReadBound is how long the preflight's reads for one create may
// take, waiting for the service's rate limit included, unless the
// create's own timeouts.create is shorter. The check is advice: a plan
// should not wait ten minutes (a request's default bound) on a service
// that refuses everything, when the apply would meet the same limit.
const PreflightReadBound = time.Minute

// PreflightRateLimitWait is how long each of the preflight's reads waits
// for the service's rate limit, its retries after a 429 included. A quota
// that holds a read longer holds the apply too, which waits it out: the
// plan, and the apply's own plan of each create, go on without the check
// rather than add their waits to the apply's.
const PreflightRateLimitWait = 2 * time.Second

var preflightBoundText = strings.TrimSuffix(PreflightReadBound.String(), "0s")

// UnknownPlanSkipped is the warning for a create whose plan_id is known only
// after apply: nothing can be checked for it at plan time.
func UnknownPlanSkipped() diag.Diagnostic {
	return diag.NewAttributeWarningDiagnostic(path.Root("plan_id"), "Preflight skipped: plan known only after apply",
		"The plan_id of this subscription comes from a value Terraform will know only during apply, so the provider could not check at plan time "+
			"that the plan can be subscribed to, nor count this subscription against the free eSIM inventory. The service checks both when it is created. "+
			`Set preflight = "warn" or "off" in the provider block to silence this warning.`)
}
