package recovery

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// listedOf is s as the journal's look reads it.
func listedOf(s client.Subscription) journal.Listed {
	l := journal.Listed{ID: s.ID, Created: time.Unix(s.CreatedAt, 0), Unused: s.State == client.StateReady && s.ActivatedAt == nil}
	if s.PlanID != "" {
		l.Requests = append(l.Requests, RequestOf(client.CreateSubscriptionRequest{PlanID: s.PlanID}))
	}
	if inline, ok := inlinePlanOf(s.Plan); ok {
		l.Requests = append(l.Requests, RequestOf(client.CreateSubscriptionRequest{Plan: &inline}))
	}
	return l
}

// lookForOpenCreates reads the service's list, newest first, back to the
// earliest time creates may have made a subscription, and records what
// they made. r.mu is held.
func (r *Session) lookForOpenCreates(ctx context.Context, j *journal.Journal, c Service, creates []journal.OpenCreate) diag.Diagnostics {
	var seen []journal.Listed
	var offset time.Duration
	for s, err := range c.Subscriptions(ctx) {
		if err != nil {
			return diag.Diagnostics{diagnostics.LookFailed(err, openCreatesOf(creates))}
		}
		offset, _ = c.ServiceClockOffset()
		l := listedOf(s)
		if l.Created.Before(r.tuning.Earliest(creates, offset)) {
			break
		}
		seen = append(seen, l)
	}
	r.offset = offset
	looked := r.tuning.Look(creates, seen, offset, j.Known)
	if err := j.RecordLook(creates, looked); err != nil {
		r.failed = err
		return nil
	}
	tflog.Info(ctx, "Looked at the service for what creates with no answer on record made", map[string]any{"creates": len(creates), "found": len(looked.Found), "unfound": len(looked.Unfound)})
	return nil
}

func openCreatesOf(creates []journal.OpenCreate) []diagnostics.OpenCreate {
	out := make([]diagnostics.OpenCreate, len(creates))
	for i, c := range creates {
		out[i] = diagnostics.OpenCreate{Request: c.Request, Sent: c.Sent}
	}
	return out
}

// recordLostRun records in j the unused subscriptions the service made in
// lost's window, by the service's clock: the list is newest first, so it
// is read until one made before the window. r.mu is held.
func (r *Session) recordLostRun(ctx context.Context, j *journal.Journal, c Service, lost LostRun) diag.Diagnostics {
	var window []journal.Listed
	var newest *journal.Listed
	var offset time.Duration
	var from, to time.Time
	for s, err := range c.Subscriptions(ctx) {
		if err != nil {
			return diag.Diagnostics{diagnostics.LostRunUnread(err)}
		}
		offset, _ = c.ServiceClockOffset()
		from, to = r.tuning.LostRunWindow(lost.Started, lost.Ended, r.now(), offset)
		l := listedOf(s)
		if newest == nil && l.Unused {
			newest = &l
		}
		if l.Created.Before(from) {
			break
		}
		window = append(window, l)
	}
	if from.IsZero() { // the service lists nothing
		offset, _ = c.ServiceClockOffset()
		from, to = r.tuning.LostRunWindow(lost.Started, lost.Ended, r.now(), offset)
	}
	r.offset = offset
	found := journal.InWindow(window, from, to, j.Known)
	if len(journal.InWindow(window, from, to, func(string) bool { return false })) == 0 {
		var id string
		var at time.Time
		if newest != nil {
			id, at = newest.ID, newest.Created
		}
		now := r.now()
		tflog.Info(ctx, "The lost run's window holds no unused subscription", map[string]any{"from": from, "to": to})
		return diag.Diagnostics{diagnostics.LostRunNothingInWindow(from, to, now.Add(offset), now, id, at)}
	}
	if err := j.RecordLostRun(found); err != nil {
		r.failed = err
	}
	return nil
}
