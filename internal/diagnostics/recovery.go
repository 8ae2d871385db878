package diagnostics

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// What Terraform says about the journal of creates: the subscriptions a
// killed run left out of state, and what this run does with them. The
// interrupted-runs guide explains each. A run's leftovers come in one
// warning each of taking, took and not taken, at the run's end, every id
// in it: Terraform shows the first of the warnings that share a summary
// and folds the rest, so each summary holds its count.

const interruptedRunsGuide = "See the provider's Interrupted runs guide."

// Leftover is a subscription the journal names, for a message.
type Leftover struct {
	ID      string
	Request string    // "plan_id plan_001", "plan { … }"
	Created time.Time // when it was made (the service's time, or when its answer came); zero when not known
	// Source says where it comes from: "a run killed on …", "a create
	// sent at … with no answer on record", "the lost run's window".
	Source string
	// Why it is not taken; "" when it is.
	Why string
	// ICCID, of one taken: its eSIM.
	ICCID string
	// Sent, of a create a look found nothing for: when it was sent.
	Sent time.Time
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (l Leftover) line() string {
	s := fmt.Sprintf("\n  - %s (%s", l.ID, l.Request)
	if l.ICCID != "" {
		s += ", eSIM " + l.ICCID
	}
	if !l.Created.IsZero() {
		s += ", created " + l.Created.UTC().Format(time.RFC3339)
	}
	if !l.Sent.IsZero() {
		s += ", sent " + l.Sent.UTC().Format(time.RFC3339)
	}
	return s + ")"
}

// lines names each leftover, a line each, under a heading for each source
// and reason they share, in the order they come.
func lines(ls []Leftover) string {
	var b strings.Builder
	var heading string
	for _, l := range ls {
		h := capitalize(l.Source)
		if l.Why != "" {
			h += "; not taken: " + l.Why
		}
		if h != heading {
			heading = h
			fmt.Fprintf(&b, "\n\n%s:", h)
		}
		b.WriteString(l.line())
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// RecoveryTaking: what the apply of this plan takes instead of creating,
// each a subscription no state holds, for a create of its plan. lostRun,
// when the route of a lost run found some, says what it cannot tell.
func RecoveryTaking(journal string, ls []Leftover, lostRun string) diag.Diagnostic {
	return diag.NewWarningDiagnostic(fmt.Sprintf("Taking %s no state holds", plural(len(ls), "subscription", "subscriptions")),
		fmt.Sprintf("The provider's journal of creates, %s, names subscriptions the service bills that no instance of this state holds. "+
			"Applying this plan takes each of these for a create of its plan, instead of buying a new one (each is checked at the service first: unused, and of that plan).%s\n\n%s"+
			"The apply names every subscription it takes. %s", journal, lines(ls), lostRun, interruptedRunsGuide))
}

// RecoveryTook: the subscriptions this apply took instead of creating.
func RecoveryTook(ls []Leftover) diag.Diagnostic {
	return diag.NewWarningDiagnostic(fmt.Sprintf("Took %s no state held", plural(len(ls), "subscription", "subscriptions")),
		fmt.Sprintf("Instead of buying new subscriptions, this apply took these, which the service bills and no state held; they are in this state now.%s\n\n%s",
			lines(ls), interruptedRunsGuide))
}

// RecoveryTookMore: subscriptions this apply took after its report was
// given, Terraform having been slow to send their creates.
func RecoveryTookMore(ls []Leftover) diag.Diagnostic {
	return diag.NewWarningDiagnostic(fmt.Sprintf("Took %s more no state held", plural(len(ls), "subscription", "subscriptions")),
		fmt.Sprintf("After the warning that named what this apply took, it took these too, which the service bills and no state held; they are in this state now, and no longer billed in no state as that warning may have said.%s\n\n%s",
			lines(ls), interruptedRunsGuide))
}

// RecoveryNamedWasHeld: subscriptions the run's warning named as billed
// and in no state (or to be taken), that this state was seen to hold
// after it: Terraform read them after a pause longer than the provider
// waits for the run's last call.
func RecoveryNamedWasHeld(ids []string) diag.Diagnostic {
	return diag.NewWarningDiagnostic(fmt.Sprintf("%s named above %s in this state", plural(len(ids), "subscription", "subscriptions"), map[bool]string{true: "is", false: "are"}[len(ids) == 1]),
		fmt.Sprintf("A warning of this run named these as billed and in no state, or as taken by the apply: %s. Terraform read them from this state after that warning was given, so they are held, and none of them is taken or needs dealing with. %s",
			strings.Join(ids, ", "), interruptedRunsGuide))
}

// RecoveryNamed: subscriptions the service bills that no state is known
// to hold and this run does not take, each with why; named at every plan
// and apply until they are taken, imported or dismissed. afterApply tells
// the apply's from the plan's.
func RecoveryNamed(ls []Leftover, afterApply bool, lostRun string) diag.Diagnostic {
	summary := fmt.Sprintf("%s billed and in no state", plural(len(ls), "subscription", "subscriptions"))
	if afterApply {
		summary += " after this apply"
	}
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = fmt.Sprintf("%q", l.ID)
	}
	return diag.NewWarningDiagnostic(summary,
		fmt.Sprintf("The provider's journal of creates names these subscriptions, which the service bills and no state the provider has seen holds, and this run does not take them.%s\n\n%s"+
			"Import each one you keep into the resource instance it belongs to (an import block with its id), or, if another configuration holds it or you let it go, dismiss it "+
			"in the provider block, after which it is named no more:\n\n  dismissed_leftovers = [%s]\n\n"+
			"Until then they are named at every plan and apply. %s", lines(ls), lostRun, strings.Join(ids, ", "), interruptedRunsGuide))
}

// NothingFound is why a create with no answer on record is named: a look
// at the service found nothing it could have made in its window, from to
// to by the service's clock, placed by the service's Date header (dated:
// its clock less this machine's) and, when known, by its run's answers
// (createdAt's clock less this machine's, from answersFrom to answersTo).
func NothingFound(from, to time.Time, dated, answersFrom, answersTo time.Duration, answersKnown bool) string {
	clocks := fmt.Sprintf("its Date header put its clock %s this machine's, and its run recorded no answer to place the clock of createdAt", describeOffset(dated))
	if answersKnown {
		clocks = fmt.Sprintf("its Date header put its clock %s this machine's; the answers of the create's own run put the clock of createdAt %s to %s this machine's, and the window follows them",
			describeOffset(dated), describeOffset(answersFrom), describeOffset(answersTo))
	}
	return fmt.Sprintf("the service lists no unused subscription of its plan created from %s to %s by its clock that no state holds (%s). "+
		"It may have made nothing (the request never arrived), or made one outside that window: if the service lists one you do not hold, import it; "+
		"either way, dismiss the create by the name given here",
		from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), clocks)
}

// LostRunCannotTell is what the lost-run route says of its window: every
// unused subscription of the service made in it that no state here holds,
// another configuration's creates of the same plan in that time included.
func LostRunCannotTell(started time.Time, offset time.Duration) string {
	return fmt.Sprintf("lost_run_started_at names a run lost with its working directory, started %s; the subscriptions marked as the lost run's are the unused ones "+
		"the service made in its window (by the service's clock, %s this machine's). The provider cannot tell them from another configuration's creates "+
		"of the same plan in that time: before you apply, dismiss those that are not this configuration's (dismissed_leftovers), and narrow the window with lost_run_ended_at.\n\n",
		started.UTC().Format(time.RFC3339), describeOffset(offset))
}

func describeOffset(d time.Duration) string {
	switch {
	case d > 0:
		return fmt.Sprintf("%s ahead of", d)
	case d < 0:
		return fmt.Sprintf("%s behind", -d)
	}
	return "the same as"
}

// LostRunNothingInWindow: the lost run's window holds no unused
// subscription, by the service's clock, which the Date header gives;
// newest names the newest unused one the list showed, if any.
func LostRunNothingInWindow(from, to time.Time, serviceNow, localNow time.Time, newest string, newestAt time.Time) diag.Diagnostic {
	newestText := "The service lists no unused subscription at all."
	if newest != "" {
		newestText = fmt.Sprintf("The newest unused subscription it lists is %s, created %s by its clock.", newest, newestAt.UTC().Format(time.RFC3339))
	}
	return diag.NewWarningDiagnostic("The lost run's window holds no subscription",
		fmt.Sprintf("lost_run_started_at and lost_run_ended_at name a window from %s to %s by the service's clock, and the service made no unused subscription in it, so this run takes nothing of a lost run. "+
			"The service's clock read %s (its Date header) when this machine's read %s. %s Check the times against the CI system's log of the lost run. %s",
			from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339), serviceNow.UTC().Format(time.RFC3339), localNow.UTC().Format(time.RFC3339), newestText, interruptedRunsGuide))
}

// LostRunUnread: the service's list could not be read for the lost run
// the settings name; nothing of it is taken.
func LostRunUnread(err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The lost run's subscriptions could not be read",
		fmt.Sprintf("The provider could not list the service's subscriptions to find those of the run lost_run_started_at names (%v), so this run takes none of them and creates as usual. Plan again once the service answers. %s",
			Detail(err), interruptedRunsGuide))
}

// OpenCreate is a create sent with no answer on record, for a message.
type OpenCreate struct {
	Request string
	Sent    time.Time
}

// LookFailed: creates were sent with no answer on record (the provider's
// process ended first, or its journal could not record the answer), and
// the service's list, which would show what they made, could not be read.
func LookFailed(err error, creates []OpenCreate) diag.Diagnostic {
	var b strings.Builder
	for _, c := range creates {
		fmt.Fprintf(&b, "\n  - %s, sent %s", c.Request, c.Sent.UTC().Format(time.RFC3339))
	}
	return diag.NewWarningDiagnostic(fmt.Sprintf("%s sent with no answer on record", plural(len(creates), "create", "creates")),
		fmt.Sprintf("The provider's journal of creates records these creates as sent, with no answer on record: the provider's process ended before it came, or could not record it:%s\n\n"+
			"The service may have made a subscription for each. The provider could not read the service's list to find them (%v); it looks again at the next plan or apply. %s",
			b.String(), Detail(err), interruptedRunsGuide))
}

// JournalSetAside: a journal of another format was found and set aside.
func JournalSetAside(why string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The journal of creates was not used", why+" "+interruptedRunsGuide)
}

// JournalDamaged: lines of the journal that are not what the provider
// wrote; the rest is used, and the ids such a line shows are named.
func JournalDamaged(journal string, lines []int, ids []string) diag.Diagnostic {
	nums := make([]string, len(lines))
	for i, n := range lines {
		nums[i] = fmt.Sprint(n)
	}
	what := "It shows no subscription id: if it recorded a create, the subscription is found by the guide's steps for subscriptions no state holds."
	if len(ids) > 0 {
		what = fmt.Sprintf("The ids it shows (%s) are asked of the service: one it does not have is no subscription of its and is dropped; the others are named, never taken, until they are dealt with.", strings.Join(ids, ", "))
	}
	return diag.NewWarningDiagnostic("The journal of creates has a damaged line",
		fmt.Sprintf("%s of the provider's journal of creates, %s, is not what the provider wrote (a damaged disk, or another program's write); the records around it are checksummed each and are used. %s %s",
			plural(len(lines), "line "+strings.Join(nums, ", "), "lines "+strings.Join(nums, ", ")), journal, what, interruptedRunsGuide))
}

// DismissedUnknown: ids dismissed_leftovers names that the journal does
// not name.
func DismissedUnknown(ids []string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("dismissed_leftovers names subscriptions the journal does not name",
		fmt.Sprintf("The journal of creates of this working directory does not name %s: nothing was dismissed for them. Once the subscriptions it named are dealt with, the setting can go. %s",
			strings.Join(ids, ", "), interruptedRunsGuide))
}

// JournalUnwritable: the journal cannot be written, so a create is not
// sent: bought unrecorded, it could be bought again after a kill.
func JournalUnwritable(journal string, err error) diag.Diagnostic {
	return diag.NewErrorDiagnostic("The journal of creates cannot be written",
		fmt.Sprintf("The provider records each create in its journal, %s, before it sends it, so that a run killed before Terraform saves its state costs nothing twice; "+
			"it could not write there (%v), so it creates nothing. Nothing was sent. Make the directory writable, or free disk space, and apply again. "+
			"To create without the journal, knowing that a killed run's creates are then bought again by the next run, set the environment variable MOBILEPLAN_JOURNAL=off. %s",
			journal, err, interruptedRunsGuide))
}

// JournalUnwritableAgain: a create after the first that the journal's
// failure stops; the first error said why, in full.
func JournalUnwritableAgain() diag.Diagnostic {
	return diag.NewErrorDiagnostic("Not created: the journal of creates cannot be written",
		"Nothing was sent for this subscription: the error \"The journal of creates cannot be written\" of this run says why, and what to do.")
}

// JournalOffOverLeftovers: the journal is turned off (MOBILEPLAN_JOURNAL=off)
// while it names subscriptions billed and in no state, or creates with no
// answer on record, that this run will not take.
func JournalOffOverLeftovers(journal string, ls []Leftover, creates []OpenCreate) diag.Diagnostic {
	var open strings.Builder
	for _, c := range creates {
		fmt.Fprintf(&open, "\n  - %s, sent %s", c.Request, c.Sent.UTC().Format(time.RFC3339))
	}
	what := lines(ls)
	if len(creates) > 0 {
		what += "\n\nCreates sent with no answer on record, which may each have made a subscription:" + open.String()
	}
	return diag.NewWarningDiagnostic(fmt.Sprintf("The journal of creates is off, and names %s no state is known to hold", plural(len(ls)+len(creates), "subscription or create", "subscriptions or creates")),
		fmt.Sprintf("MOBILEPLAN_JOURNAL=off turns the journal of creates off, but the journal of this working directory, %s, names these, which a killed run left billed and in no state the provider has seen:%s\n\n"+
			"With the journal off, this run neither takes them nor records its own creates: a create of their plan buys a new subscription. "+
			"Unset MOBILEPLAN_JOURNAL to take them, or import those you keep, and delete the journal once they are dealt with. %s", journal, what, interruptedRunsGuide))
}

// JournalAnswerUnrecorded: a create was answered and its subscription is
// in this state, but the journal could not record it.
func JournalAnswerUnrecorded(id string, err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic("The journal of creates could not record a create's answer",
		fmt.Sprintf("The service made subscription %s, which is in this state, but the journal of creates could not record it (%v). If this run is killed before Terraform saves its state, "+
			"the next run finds it by a look at the service. Creates that follow stop until the journal can be written. %s", id, err, interruptedRunsGuide))
}
