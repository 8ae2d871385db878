package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// A run killed before its CLI saved state (SIGKILL, a lost runner, an
// out-of-memory kill; OpenTofu and remote backends save at most every 20
// seconds) leaves subscriptions at the service that no state holds, and
// the next apply would buy each again. The provider keeps a journal of
// its creates in the working directory (package journal), and the next
// run takes those subscriptions instead:
//
//   - every create is recorded before it is sent and when it is answered;
//     when Terraform is gone, a create already sent is seen through and
//     recorded before the process exits;
//   - a process that Terraform ends the usual way records so: what it
//     created reached a state Terraform saved;
//   - a plan records each leftover it finds in its state (a Read or a
//     plan of an instance holding it, an import of it), and, at its end,
//     whether it saw the whole state (no -target or -exclude);
//   - an apply's create takes a leftover of the same request only when
//     the latest whole plan started after the leftover was given out and
//     did not see it, the apply itself is not limited to some resources,
//     and the service shows it unused and of that plan.
//
// So a subscription another workspace or configuration holds is never
// taken: the journal names only what this working directory's own runs
// created. When the provider cannot tell (a -target, a journal refused,
// a run older than journal.StaleAfter), it creates as always and names the
// leftovers in a warning.

// KeepJournal makes the provider keep its journal of creates for the
// working directory dir (main.go passes the process's). hold marks work
// the process must finish before it exits when Terraform is gone;
// parentArgs reads Terraform's command line, to find -target. The returned
// function ends the journal, and main.go calls it once Terraform has ended
// the provider the usual way.
func KeepJournal(dir string, hold func() (release func()), parentArgs func() ([]string, error)) (Option, func()) {
	r := &recovery{dir: dir, hold: hold, parentArgs: parentArgs}
	return func(o *options) { o.recovery = r }, r.end
}

// recovery is the journal as one provider process uses it. A nil
// *recovery (a provider served without KeepJournal, as in the in-process
// tests) keeps no journal and takes nothing.
type recovery struct {
	dir        string
	hold       func() (release func())
	parentArgs func() ([]string, error)

	mu       sync.Mutex
	journal  *journal.Journal // nil until opened, or when it cannot be kept
	problems diag.Diagnostics // what opening it found, for every create's plan
	// leftovers are the ids of the leftovers not seen so far, for
	// sightings to look for without a lock.
	leftovers atomic.Pointer[[]string]

	// quiet is set when the journal, as opened, had nothing to say: no
	// leftover, no unanswered create of another process, no problem. It
	// stays so (only a killed process or a lost run adds leftovers), and
	// spares every plan of a create reading the journal.
	quiet atomic.Bool

	planned atomic.Bool // the process planned or read subscriptions
	applied atomic.Bool // the process applied changes

	limitedOnce sync.Once
	limitedWhy  string

	lostStarted time.Time // lost_run_started_at, zero when unset

	allotted map[string]int // creates of each request this plan expects a leftover to serve (mayTake); guarded by mu
}

// lostRun is a run whose working directory is gone, as the settings name
// it: it started at started and, unless ended is zero, ended at ended.
type lostRun struct {
	started, ended time.Time
}

// open opens the journal for the service at service, once, recording what
// the service shows of lost, if set, through c.
func (r *recovery) open(ctx context.Context, service string, lost lostRun, c *client.Client) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journal != nil || r.problems != nil {
		return
	}
	path, id := journal.Locate(r.dir)
	j, err := r.openAfterOthers(ctx, path, id, service, lost.started)
	if err != nil {
		r.problems = diag.Diagnostics{diagnostics.JournalFailed(err)}
		return
	}
	r.journal = j
	r.lostStarted = lost.started
	if !lost.started.IsZero() {
		if err := recordLostRun(ctx, j, lost, c); err != nil {
			r.problems = append(r.problems, diagnostics.LostRunUnread(err))
		}
	}
	if why := j.Refused(); why != "" {
		r.problems = append(r.problems, diagnostics.JournalRefused(why))
	}
	left := j.Leftovers()
	r.quiet.Store(len(left) == 0 && len(j.Unanswered()) == 0 && len(r.problems) == 0)
	if !r.quiet.Load() {
		// This process may be the plan that vouches for what it did not
		// see: its start goes before anything it sees.
		if err := j.Begin(); err != nil {
			r.problems = append(r.problems, diagnostics.JournalFailed(err))
		}
		tflog.Info(ctx, "The journal of creates names subscriptions a killed run left out of state", map[string]any{"journal": path, "leftovers": len(left)})
	}
	r.refreshLeftovers()
}

// othersLimit bounds how long a process waits for the provider of a
// killed run to record the answers of the creates it had sent: each is
// bounded by request_timeout, 30 seconds by default.
const othersLimit = 2 * time.Minute

// openAfterOthers opens the journal once no provider of another run is
// still writing to it: the provider of a run killed a moment ago goes on
// for as long as its creates in flight take, and what it records after
// this run's plan began could not be vouched for, so it would be bought
// again.
func (r *recovery) openAfterOthers(ctx context.Context, path string, id journal.Identity, service string, lostRun time.Time) (*journal.Journal, error) {
	deadline := time.Now().Add(othersLimit)
	for logged := false; ; {
		j, err := journal.Open(path, id, service, lostRun, time.Now)
		if err != nil {
			return nil, err
		}
		others := j.Others()
		if others == 0 || time.Now().After(deadline) {
			return j, nil
		}
		if !logged {
			logged = true
			tflog.Info(ctx, "Waiting for the provider of a killed run to record the creates it had sent", map[string]any{"journal": path, "processes": others})
		}
		_ = j.Close()
		time.Sleep(othersPoll)
	}
}

// othersPoll is how often openAfterOthers looks again.
const othersPoll = 200 * time.Millisecond

// recordLostRun records in j the subscriptions the service made in lost's
// time that were never used: the list is newest first, so it is read
// until a subscription created before the run started.
func recordLostRun(ctx context.Context, j *journal.Journal, lost lostRun, c *client.Client) error {
	var subs []journal.LostSubscription
	for s, err := range c.Subscriptions(ctx) {
		if err != nil {
			return err
		}
		created := time.Unix(s.CreatedAt, 0)
		if created.Before(lost.started) {
			break
		}
		if (!lost.ended.IsZero() && created.After(lost.ended)) || s.State != client.StateReady || s.ActivatedAt != nil {
			continue
		}
		ls := journal.LostSubscription{ID: s.ID, Request: requestOf(client.CreateSubscriptionRequest{PlanID: s.PlanID})}
		if inline, ok := inlinePlanOf(s.Plan); ok {
			ls.Also = requestOf(client.CreateSubscriptionRequest{Plan: &inline})
		}
		subs = append(subs, ls)
	}
	return j.RecordLostRun(subs)
}

// refreshLeftovers republishes the ids sightings look for.
func (r *recovery) refreshLeftovers() {
	var ids []string
	if r.journal != nil {
		for _, l := range r.journal.Leftovers() {
			ids = append(ids, l.ID)
		}
	}
	r.leftovers.Store(&ids)
}

// sighted records that a state holds whichever leftovers state, a
// resource's state as Terraform sends it, names. The ids are the
// service's, long and random, so finding one among the bytes is enough:
// a false match only keeps a subscription from being taken.
func (r *recovery) sighted(ctx context.Context, state []byte) {
	if r == nil || len(state) == 0 {
		return
	}
	r.planned.Store(true)
	ids := r.leftovers.Load()
	if ids == nil || len(*ids) == 0 {
		return
	}
	for _, id := range *ids {
		if bytes.Contains(state, []byte(id)) {
			r.sightedID(ctx, id)
		}
	}
}

// sightedID records that a state holds subscription id.
func (r *recovery) sightedID(ctx context.Context, id string) {
	if r == nil || r.journal == nil {
		return
	}
	if was, err := r.journal.Seen(id); err != nil {
		tflog.Warn(ctx, "Could not record a subscription seen in state in the journal of creates", map[string]any{"id": id, "error": err.Error()})
	} else if was {
		tflog.Info(ctx, "A subscription the journal named as left out of state is in this state", map[string]any{"id": id})
		r.refreshLeftovers()
	}
}

// limited says why this run cannot see the whole state ("" when it can):
// Terraform tells its providers nothing of -target or -exclude, so the
// provider reads Terraform's command line and TF_CLI_ARGS.
func (r *recovery) limited() string {
	r.limitedOnce.Do(func() {
		args, err := r.parentArgs()
		if err != nil {
			r.limitedWhy = fmt.Sprintf("the provider cannot read Terraform's command line here (%v), so it cannot tell whether -target limits this run", err)
			return
		}
		for _, v := range []string{"TF_CLI_ARGS", "TF_CLI_ARGS_plan", "TF_CLI_ARGS_apply"} {
			args = append(args, strings.Fields(os.Getenv(v))...)
		}
		for _, a := range args {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			// -target and -exclude, and OpenTofu's -target-file and
			// -exclude-file.
			if strings.HasPrefix(a, "-") && (name == "target" || name == "exclude" || strings.HasPrefix(name, "target-") || strings.HasPrefix(name, "exclude-")) {
				r.limitedWhy = "this run is limited to some resources (-" + name + "), so it cannot see every subscription its state holds"
				return
			}
		}
	})
	return r.limitedWhy
}

// planWarnings are what the plan of a create with configuration config
// says about the journal: the leftovers of its request the apply may take,
// those it will not take and why, the creates sent with no answer, and
// what opening the journal found.
func (r *recovery) planWarnings(ctx context.Context, config tfsdk.Config) diag.Diagnostics {
	if r == nil {
		return nil
	}
	r.planned.Store(true)
	if r.quiet.Load() {
		return nil
	}
	request := requestOfConfig(ctx, config)
	r.mu.Lock()
	diags := slices.Clone(r.problems)
	j := r.journal
	r.mu.Unlock()
	if j == nil {
		return diags
	}
	var usable, old, elsewhere []diagnostics.Leftover
	for _, l := range j.Leftovers() {
		d := diagnostics.Leftover{ID: l.ID, Request: l.Request, Run: l.Run}
		switch {
		case l.Request != request && l.Also != request:
			continue // another create's, if any
		case j.Serves(l, request):
			usable = append(usable, d)
		case l.Service != j.Service():
			elsewhere = append(elsewhere, d)
		default:
			old = append(old, d)
		}
	}
	if len(usable) > 0 {
		if why := r.limited(); why != "" {
			diags.Append(diagnostics.RecoveryNotTaken(why, usable))
		} else {
			diags.Append(diagnostics.RecoveryPlanned(j.Path(), r.lostStarted, usable))
		}
	}
	if len(old) > 0 {
		diags.Append(diagnostics.RecoveryNotTaken(fmt.Sprintf("the run that created them started more than %s ago, and may have been dealt with by hand", formatDays(journal.StaleAfter)), old))
	}
	if len(elsewhere) > 0 {
		diags.Append(diagnostics.RecoveryNotTaken("they were created at another base_url than this run's", elsewhere))
	}
	if un := j.Unanswered(); len(un) > 0 {
		creates := make([]diagnostics.Unanswered, len(un))
		for i, u := range un {
			creates[i] = diagnostics.Unanswered{Request: u.Request, Sent: u.Sent}
		}
		diags.Append(diagnostics.RecoveryUnanswered(creates))
	}
	return diags
}

// mayTake reports whether the apply may serve one more planned create of
// configuration config with a leftover: fewer creates of its request were
// counted so far than there are usable leftovers of it not seen in state
// yet. The
// preflight then reserves no free eSIM for it. A leftover this plan
// later finds in state makes the count one too generous, and the apply
// may then meet the service's outOfInventory for that create: never a
// plan refused that the recovery makes possible.
func (r *recovery) mayTake(ctx context.Context, config tfsdk.Config) bool {
	if r == nil || r.quiet.Load() {
		return false
	}
	request := requestOfConfig(ctx, config)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journal == nil || r.limited() != "" {
		return false
	}
	usable := 0
	for _, l := range r.journal.Leftovers() {
		if r.journal.Serves(l, request) {
			usable++
		}
	}
	if r.allotted == nil {
		r.allotted = map[string]int{}
	}
	if r.allotted[request] >= usable {
		return false
	}
	r.allotted[request]++
	return true
}

func formatDays(d time.Duration) string { return fmt.Sprintf("%d days", int(d/(24*time.Hour))) }

// take returns a leftover for a create of body, checked at the service
// (unused, of the same plan), and records that the create took it; nil
// when there is none to take. c reads the service. A check that gets no
// answer (the service unreachable, the run interrupted) is an error: the
// create then sends nothing, rather than buy a subscription that may be
// waiting for it, and the leftover stays for the next run.
func (r *recovery) take(ctx context.Context, c *client.Client, body client.CreateSubscriptionRequest) (*client.Subscription, *diagnostics.Leftover, error) {
	if r == nil || r.journal == nil || r.limited() != "" {
		return nil, nil, nil
	}
	if ids := r.leftovers.Load(); ids == nil || len(*ids) == 0 {
		return nil, nil, nil // the common case: Claim would read the journal for nothing
	}
	var sub *client.Subscription
	l, ok, err := r.journal.Claim(requestOf(body), func(l journal.Leftover) (journal.Verdict, error) {
		got, err := c.GetSubscription(ctx, l.ID)
		switch {
		case client.IsNotFound(err):
			return journal.Unfit, nil
		case err != nil:
			return journal.Unfit, err
		case !fitFor(got, body):
			tflog.Info(ctx, "Not taking a subscription the journal named as left out of state: the service shows it used or of another plan", map[string]any{"id": l.ID})
			return journal.Unfit, nil
		}
		sub = got
		return journal.Take, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, nil
	}
	r.refreshLeftovers()
	return sub, &diagnostics.Leftover{ID: l.ID, Request: l.Request, Run: l.Run}, nil
}

// fitFor reports whether sub can stand for a new subscription of body: it
// was never used, and is of the same plan.
func fitFor(sub *client.Subscription, body client.CreateSubscriptionRequest) bool {
	if sub.State != client.StateReady || sub.ActivatedAt != nil {
		return false
	}
	if body.Plan == nil {
		return sub.PlanID == body.PlanID
	}
	inline, ok := inlinePlanOf(sub.Plan)
	return ok && inline == *body.Plan
}

// inlinePlanOf is the inline plan a subscription's plan is the same
// product as: one with the three configurable numbers, one period and no
// label, as the service makes from an inline plan.
func inlinePlanOf(p client.PlanForAttachment) (client.InlinePlan, bool) {
	if p.CoverageProfileID == nil || p.DataMegaBytes == nil || p.PeriodDays == nil || (p.PeriodIterations != nil && *p.PeriodIterations != 1) || p.Label != nil {
		return client.InlinePlan{}, false
	}
	return client.InlinePlan{CoverageID: *p.CoverageProfileID, DataMBs: *p.DataMegaBytes, PeriodDays: *p.PeriodDays}, true
}

// requestOfConfig is requestOf for a configuration of the resource; ""
// when its plan is not known yet.
func requestOfConfig(ctx context.Context, config tfsdk.Config) string {
	var planID types.String
	var inline types.Object
	if config.GetAttribute(ctx, path.Root("plan_id"), &planID).HasError() || config.GetAttribute(ctx, path.Root("plan"), &inline).HasError() {
		return ""
	}
	switch {
	case !planID.IsNull() && !planID.IsUnknown():
		return requestOf(client.CreateSubscriptionRequest{PlanID: planID.ValueString()})
	case !inline.IsNull() && !inline.IsUnknown():
		var in inlinePlanModel
		if inline.As(ctx, &in, basetypes.ObjectAsOptions{}).HasError() || in.CoverageID.IsUnknown() || in.DataMBs.IsUnknown() || in.PeriodDays.IsUnknown() {
			return ""
		}
		return requestOf(client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: in.CoverageID.ValueString(), DataMBs: in.DataMBs.ValueInt64(), PeriodDays: in.PeriodDays.ValueInt64()}})
	}
	return ""
}

// requestOf names what a create asks for, as the journal records it and
// messages show it.
func requestOf(body client.CreateSubscriptionRequest) string {
	if body.Plan == nil {
		return "plan_id " + body.PlanID
	}
	return fmt.Sprintf("plan { coverage_id = %q, data_mbs = %d, period_days = %d }", body.Plan.CoverageID, body.Plan.DataMBs, body.Plan.PeriodDays)
}

// create sends a create through send, recording it in the journal before
// it is sent and once it is answered. The process does not exit, when
// Terraform is gone, before the answer is recorded.
func (r *recovery) create(ctx context.Context, body client.CreateSubscriptionRequest, send func() (*client.Subscription, error)) (*client.Subscription, diag.Diagnostics, error) {
	if r == nil {
		sub, err := send()
		return sub, nil, err
	}
	release := r.hold()
	defer release()
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	if j == nil {
		sub, err := send()
		return sub, nil, err
	}
	var diags diag.Diagnostics
	request := requestOf(body)
	n, jerr := j.Sending(request)
	if jerr != nil {
		diags.Append(diagnostics.JournalFailed(jerr))
	}
	sub, err := send()
	switch {
	case err == nil:
		jerr = j.Created(n, request, sub.ID)
	case client.CreatedNothing(err):
		jerr = j.Unsent(n)
	default:
		jerr = nil // no answer: the service may have made it; the record stays open
	}
	if jerr != nil {
		diags.Append(diagnostics.JournalFailed(jerr))
	}
	return sub, diags, err
}

// end records that Terraform ended the process the usual way: whole when
// it planned subscriptions with nothing limiting the run and applied
// nothing.
func (r *recovery) end() {
	if r == nil {
		return
	}
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	if j == nil {
		return
	}
	applied := r.applied.Load()
	whole := r.planned.Load() && !applied && r.limited() == ""
	_ = j.End(whole, applied)
}
