package diagnostics

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// What Terraform says about the journal of creates: the subscriptions a
// killed run left out of state, and what this run does with them. The
// interrupted-runs guide explains each.

const interruptedRunsGuide = "See the provider's Interrupted runs guide."

// Leftover is a subscription the journal names, for a message.
type Leftover struct {
	ID      string
	Request string // "plan_id plan_001", "plan { … }"
	Run     time.Time
}

// listLeftovers names each leftover, a line each, oldest run first.
func listLeftovers(ls []Leftover) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "\n  - %s (%s, run started %s)", l.ID, l.Request, l.Run.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// RecoveryPlanned: the plan of a create, where subscriptions a killed or
// lost run left out of state may serve it: those the journal names
// (journal, its path), with those of the lost run lostRunStarted names
// when it is set. The apply decides which it takes, once the whole plan
// has shown which a state holds.
func RecoveryPlanned(journal string, lostRunStarted time.Time, candidates []Leftover) diag.Diagnostic {
	source := "A run in this working directory ended without Terraform saving its state (a SIGKILL, a lost runner or an out-of-memory kill); " +
		"the provider's journal of creates, " + journal + ", names what the service created for it."
	if !lostRunStarted.IsZero() {
		source = fmt.Sprintf("lost_run_started_at names a run lost with its working directory, started %s; the service shows the unused subscriptions created since then, "+
			"and the provider's journal of creates, %s, keeps them for this recovery.", lostRunStarted.UTC().Format(time.RFC3339), journal)
	}
	return diag.NewWarningDiagnostic("Taking subscriptions a killed run left out of state",
		fmt.Sprintf("%s This plan has not found %s of them in state so far:%s\n\n"+
			"Applying this plan takes each of them that no instance of this state holds for a create of the same plan, instead of creating a new subscription "+
			"(each is checked at the service first: unused, and of that plan); the others are created as usual. The apply's output names every subscription taken. %s",
			source, count(len(candidates), "subscription"), listLeftovers(candidates), interruptedRunsGuide))
}

// RecoveryTook: a create took a leftover instead of sending.
func RecoveryTook(l Leftover, iccid string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Took a subscription a killed run left out of state",
		fmt.Sprintf("Instead of creating a new subscription, this create took %s (eSIM %s, %s), which a run killed before Terraform saved its state had created and no state held. "+
			"It is in this state now. %s", l.ID, iccid, l.Request, interruptedRunsGuide))
}

// RecoveryNotTaken: leftovers the journal names that this run will not
// take, and why; they keep running at the service until someone imports
// them.
func RecoveryNotTaken(why string, ls []Leftover) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Subscriptions a killed run may have left out of state",
		fmt.Sprintf("The provider's journal of creates names %s that a run killed before Terraform saved its state was given and that no state has been seen to hold:%s\n\n"+
			"They are not taken by this run: %s. If no state holds them, adopt them with import blocks, or apply again without what stopped their use. %s",
			count(len(ls), "subscription"), listLeftovers(ls), why, interruptedRunsGuide))
}

// Unanswered is a create the journal recorded as sent with no answer.
type Unanswered struct {
	Request string
	Sent    time.Time
}

// RecoveryUnanswered: creates sent whose answer the journal never
// recorded; the service may have made them, under ids nobody saw.
func RecoveryUnanswered(creates []Unanswered) diag.Diagnostic {
	var b strings.Builder
	for _, c := range creates {
		fmt.Fprintf(&b, "\n  - %s, sent %s", c.Request, c.Sent.UTC().Format(time.RFC3339))
	}
	return diag.NewWarningDiagnostic("Creates sent with no answer recorded",
		fmt.Sprintf("The provider's journal of creates records %s sent without an answer, the provider's process having ended first:%s\n\n"+
			"The service may have made a subscription for each, which no state holds. Look for unused subscriptions of that plan created within a minute of each time "+
			"(the mobileplan_subscriptions data source, newest first), and adopt them with import blocks. %s", count(len(creates), "create"), b.String(), interruptedRunsGuide))
}

// LostRunUnread: the service's list could not be read for the lost run
// the settings name; nothing of it is taken.
func LostRunUnread(err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The lost run's subscriptions could not be read",
		fmt.Sprintf("The provider could not list the service's subscriptions to find those of the run lost_run_started_at names (%v), so this run takes none of them and creates as usual. Plan again once the service answers. %s",
			Detail(err), interruptedRunsGuide))
}

// JournalRefused: a journal found in the working directory was set aside.
func JournalRefused(why string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The journal of creates was not used", why+" "+interruptedRunsGuide)
}

// JournalFailed: the journal cannot be kept; creates go on as without one.
func JournalFailed(err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The journal of creates cannot be kept",
		fmt.Sprintf("The provider could not write its journal of creates (%v). Creates go on, but if this run is killed before Terraform saves its state, "+
			"the next run cannot find what it created. %s", err, interruptedRunsGuide))
}
