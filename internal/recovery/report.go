package recovery

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// HasReport reports whether the run's end has anything to say of the
// journal.
func (r *Session) HasReport() bool {
	if r == nil || r.off {
		return false
	}
	r.mu.Lock()
	took, reported, j := len(r.took) > r.reportedTakes || len(r.seenAfterReport) > r.corrected, r.reported, r.journal
	r.mu.Unlock()
	if took {
		return true
	}
	if reported || r.quiet.Load() || j == nil {
		return false
	}
	// Once this state has shown every leftover (what the last apply made,
	// presumed held, most often), there is nothing to say, and nothing to
	// wait for.
	left, _ := j.Leftovers()
	if len(left) > 0 {
		r.lookBeside(j)
	}
	for _, l := range left {
		l = r.leftover(l)
		if d := journal.Decide(l, r.run(l, 1, true, r.statusFor(l)), r.tuning); d.Take || d.Named() {
			return true
		}
	}
	return false
}

// Report is what the run's end says of the journal, once: what the apply
// of this plan takes (a plan), what this apply took (an apply), and every
// leftover it does not take, with why, none of them an id this state
// holds. Each is one warning, with every id.
func (r *Session) Report(ctx context.Context, applyWalk bool) diag.Diagnostics {
	r.mu.Lock()
	if r.journal == nil {
		r.mu.Unlock()
		return nil
	}
	took := slices.Clone(r.took[r.reportedTakes:])
	r.reportedTakes = len(r.took)
	if r.reported {
		// A report was given, and since then a create took more
		// (Terraform was slow to send it: a dependency, another
		// provider's work), or this state was seen to hold what it
		// named (Terraform sent those Reads after a pause).
		held := slices.Clone(r.seenAfterReport[r.corrected:])
		r.corrected = len(r.seenAfterReport)
		r.mu.Unlock()
		var diags diag.Diagnostics
		if len(took) > 0 {
			diags.Append(diagnostics.RecoveryTookMore(took))
		}
		if len(held) > 0 {
			slices.Sort(held)
			diags.Append(diagnostics.RecoveryNamedWasHeld(held))
		}
		return diags
	}
	r.reported = true
	j, path, planned := r.journal, r.path, maps.Clone(r.planned)
	r.mu.Unlock()
	left, err := j.Leftovers()
	if err != nil {
		tflog.Warn(ctx, "Could not read the journal of creates for the run's report", map[string]any{"error": err.Error()})
	}
	r.lookBeside(j)
	var taking, named []diagnostics.Leftover
	fromLostRun := false
	for _, l := range left {
		l = r.leftover(l)
		request := l.Request
		if planned[request] == 0 && planned[l.Also] > 0 {
			request = l.Also
		}
		creates := 0
		if !applyWalk {
			creates = planned[request]
		}
		d := journal.Decide(l, r.run(l, creates, !applyWalk, r.statusFor(l)), r.tuning)
		switch {
		case d.Take:
			planned[request]--
			taking = append(taking, r.leftoverMessage(l, "", ""))
		case d.Named():
			named = append(named, r.leftoverMessage(l, r.why(d.Reason, l), ""))
		}
		fromLostRun = fromLostRun || l.Origin == journal.OriginLostRun && (d.Take || d.Named())
	}
	var lostRunText string
	if fromLostRun {
		lostRunText = diagnostics.LostRunCannotTell(r.lostRun.Started, r.offset)
	}
	byHeading := func(a, b diagnostics.Leftover) int { return strings.Compare(a.Source+a.Why, b.Source+b.Why) }
	slices.SortStableFunc(taking, byHeading)
	slices.SortStableFunc(named, byHeading)
	r.mu.Lock()
	for _, l := range append(slices.Clone(taking), named...) {
		r.reportedIDs[l.ID] = true
	}
	r.mu.Unlock()
	var diags diag.Diagnostics
	if len(taking) > 0 {
		diags.Append(diagnostics.RecoveryTaking(path, taking, lostRunText))
	}
	if len(took) > 0 {
		diags.Append(diagnostics.RecoveryTook(took))
	}
	if len(named) > 0 {
		if len(taking) > 0 {
			lostRunText = ""
		}
		diags.Append(diagnostics.RecoveryNamed(named, applyWalk, lostRunText))
	}
	return diags
}

// leftoverMessage is l as the messages name it.
func (r *Session) leftoverMessage(l journal.Leftover, why, iccid string) diagnostics.Leftover {
	m := diagnostics.Leftover{ID: l.ID, Request: l.Request, Created: l.Given, Why: why, ICCID: iccid}
	switch l.Origin {
	case journal.OriginCreate:
		m.Source = "made for a run started " + l.Run.UTC().Format(time.RFC3339) + " that ended without Terraform saving its state"
		if l.Presumed {
			m.Source = "made for a run started " + l.Run.UTC().Format(time.RFC3339) + " whose state, a later plan of the whole state found, did not keep it"
		}
	case journal.OriginFound:
		m.Created = l.Created
		m.Source = "found at the service for creates sent with no answer on record"
	case journal.OriginLostRun:
		m.Created = l.Created
		m.Source = "made in the lost run's window"
	case journal.OriginDamaged:
		m.Created = time.Time{}
		m.Request = "plan unknown"
		m.Source = fmt.Sprintf("shown by damaged line %d of the journal", l.Line)
	case journal.OriginUnfound:
		m.Created = time.Time{}
		m.Sent = l.Given
		m.Source = "a create sent with no answer on record, for which a look at the service found nothing"
	}
	return m
}

// why says why a leftover is not taken.
func (r *Session) why(reason journal.Reason, l journal.Leftover) string {
	switch reason {
	case journal.DamagedLine:
		return "the provider cannot tell what it recorded: check whether it is this configuration's"
	case journal.NothingFound:
		return diagnostics.NothingFound(l.Window[0], l.Window[1], l.DateOffset, l.Answers.From, l.Answers.To, l.Answers.Known)
	case journal.AnotherHome:
		return fmt.Sprintf("the journal names it for the workspace %q of %s, whose state may not be this one", l.Home.Workspace, l.Home.Dir)
	case journal.AnotherService:
		return fmt.Sprintf("it was made at %s, not at this run's base_url", l.Service)
	case journal.AnotherAccount:
		return "it was made with another api_token than this run's, for another account"
	case journal.Stale:
		return fmt.Sprintf("the run that made it started more than %d days ago, and may have been dealt with by hand", int(r.tuning.StaleAfter/(24*time.Hour)))
	case journal.MoreThanSent:
		return fmt.Sprintf("the service made %d unused subscriptions of its plan in the time %d creates with no answer on record were sent, so some are another configuration's, and which cannot be told", l.Found, l.Sends)
	case journal.UsedAtService:
		return "the service shows it in use: a device activated it"
	case journal.OtherPlanAtService:
		return "the service shows it of another plan"
	case journal.LimitedRun:
		return r.limited()
	case journal.NotVouched:
		return "no plan that read the whole state has run since it was made, so this run cannot tell that no instance of its state holds it: plan or apply again"
	case journal.NoCreate:
		return "no create of its plan in this run needs it"
	}
	return ""
}
