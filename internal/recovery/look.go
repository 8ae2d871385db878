package recovery

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// lookForOpenCreates reads the service's list, newest first, back to the
// earliest time creates may have made a subscription, and records what
// they made. r.mu is held.
func (r *Session) lookForOpenCreates(ctx context.Context, j *journal.Journal, creates []journal.OpenCreate) diag.Diagnostics {
	list := r.list
	if err := list.readOn(ctx, func() bool { return list.before(r.tuning.Earliest(creates, list.offset)) }); err != nil {
		return diag.Diagnostics{diagnostics.LookFailed(err, openCreatesOf(creates))}
	}
	listed, offset := list.snapshot()
	r.offset = offset
	looked := r.tuning.Look(creates, listed, offset, j.Known)
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
func (r *Session) recordLostRun(ctx context.Context, j *journal.Journal, lost LostRun) diag.Diagnostics {
	list := r.list
	window := func() (from, to time.Time) {
		return r.tuning.LostRunWindow(lost.Started, lost.Ended, r.cfg.Now(), list.offset)
	}
	if err := list.readOn(ctx, func() bool { from, _ := window(); return list.read > 0 && list.before(from) }); err != nil {
		return diag.Diagnostics{diagnostics.LostRunUnread(err)}
	}
	listed, offset := list.snapshot()
	r.offset = offset
	from, to := r.tuning.LostRunWindow(lost.Started, lost.Ended, r.cfg.Now(), offset)
	found := journal.InWindow(listed, from, to, j.Known)
	if len(journal.InWindow(listed, from, to, func(string) bool { return false })) == 0 {
		var id string
		var at time.Time
		for _, l := range listed {
			if l.Unused {
				id, at = l.ID, l.Created
				break
			}
		}
		now := r.cfg.Now()
		tflog.Info(ctx, "The lost run's window holds no unused subscription", map[string]any{"from": from, "to": to})
		return diag.Diagnostics{diagnostics.LostRunNothingInWindow(from, to, now.Add(offset), now, id, at)}
	}
	if err := j.RecordLostRun(found); err != nil {
		r.failed = err
	}
	return nil
}
