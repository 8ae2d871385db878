package recovery

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// PlanCreate is what the plan of a create whose request (RequestOf) is
// request says
// of the journal: an error when the journal cannot be kept, since the
// create would fail; and it counts the create, which the run's report
// reads.
func (r *Session) PlanCreate(request func() string) diag.Diagnostics {
	if r == nil || r.off {
		return nil
	}
	r.planning.Store(true)
	r.mu.Lock()
	failed := r.failed
	r.mu.Unlock()
	if failed != nil {
		if r.failedSaid.Swap(true) {
			return nil // the plan fails on the first; one error says why
		}
		return diag.Diagnostics{diagnostics.JournalUnwritable(r.path, failed)}
	}
	if r.quiet.Load() {
		return nil // nothing to take: the count is not needed, nor its cost
	}
	r.mu.Lock()
	r.planned[request()]++
	r.mu.Unlock()
	return nil
}

// MayTake reports whether the apply may serve one more planned create of
// the request requestOf names with a leftover: fewer creates of its request
// were counted so far than there are leftovers the decision lets a plan
// take for it. The preflight then reserves no free eSIM for it. A
// leftover this plan later finds in state makes the count one too
// generous, and the apply may then meet the service's outOfInventory for
// that create: never a plan refused that the recovery makes possible.
func (r *Session) MayTake(requestOf func() string) bool {
	if r == nil || r.off || r.quiet.Load() {
		return false
	}
	request := requestOf()
	usable := r.usableFor(request)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.allotted[request] >= usable {
		return false
	}
	r.allotted[request]++
	return true
}

// usableFor is how many leftovers a plan may take for creates of request,
// as the journal named them when first asked: counted once, not on every
// create's plan (5,000 leftovers presumed held after an apply of 5,000,
// and as many creates planned, would cost seconds).
func (r *Session) usableFor(request string) int {
	r.usableOnce.Do(func() {
		r.mu.Lock()
		j := r.journal
		r.mu.Unlock()
		usable := map[string]int{}
		if j != nil {
			left, _ := j.Leftovers()
			r.lookBeside(j)
			for _, l := range left {
				l = r.leftover(l)
				if journal.Decide(l, r.run(l, 1, true, journal.Unchecked), r.tuning).Take {
					usable[l.Request]++
					if l.Also != "" {
						usable[l.Also]++
					}
				}
			}
		}
		r.usable = usable
	})
	return r.usable[request]
}

// Take returns a leftover for a create of body, checked at the service
// (unused, of the same plan), and records that the create took it; nil
// when there is none to take. The service is read once: the list's pages
// for every leftover (check), then a GET for any the pages did not show.
// A check that gets no answer (the service unreachable, the run
// interrupted) is an error: the create then sends nothing, rather than
// buy a subscription that may be waiting for it, and the leftover stays
// for the next run.
func (r *Session) Take(ctx context.Context, body client.CreateSubscriptionRequest) (*client.Subscription, error) {
	if r == nil || r.off || r.quiet.Load() {
		return nil, nil
	}
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	if j == nil {
		return nil, nil
	}
	if err := r.check(ctx, j); err != nil {
		return nil, err
	}
	request := RequestOf(body)
	var sub *client.Subscription
	l, ok, err := j.Take(request, func(candidates []journal.Leftover) (string, error) {
		for _, l := range candidates {
			if !journal.Decide(l, r.run(l, 1, false, journal.Unchecked), r.tuning).Take {
				continue
			}
			got, err := r.atService(ctx, l.ID)
			if err != nil {
				return "", err
			}
			status := statusOf(got, request)
			if got == nil {
				status = journal.Gone
				_, _ = j.Dismiss([]string{l.ID}, journal.WhyGone)
			}
			if journal.Decide(l, r.run(l, 1, false, status), r.tuning).Take {
				sub = got
				return l.ID, nil
			}
			tflog.Info(ctx, "Not taking a subscription the journal names: the service shows it gone, used or of another plan", map[string]any{"id": l.ID})
		}
		return "", nil
	})
	if err != nil || !ok {
		return nil, err
	}
	tflog.Info(ctx, "Took a subscription no state held instead of creating one", map[string]any{"id": l.ID})
	r.mu.Lock()
	r.took = append(r.took, r.leftoverMessage(l, "", sub.EsimICCID))
	r.mu.Unlock()
	return sub, nil
}

// check reads the service's list on, once per process, as far as the
// leftovers a create may take or the run names: they were made lately,
// so the list reaches them in a few pages (25 each), where a GET each
// costs a request each. It stops at the first subscription made before
// all of them, or once it has read as many pages as there are leftovers
// to find; those are read by GET when a create needs them.
func (r *Session) check(ctx context.Context, j *journal.Journal) error {
	r.checkMu.Lock()
	defer r.checkMu.Unlock()
	if r.checked {
		return nil
	}
	left, err := j.Leftovers()
	if err != nil {
		return err
	}
	list := r.list
	var wanted []string
	var earliest time.Time // by this machine's clock
	for _, l := range left {
		// What this service's list can show, of what the run may take or
		// name.
		if d := journal.Decide(l, r.run(l, 1, false, journal.Unchecked), r.tuning); l.Service != r.service || !l.AtService() || !d.Take && !d.Named() {
			continue
		}
		wanted = append(wanted, l.ID)
		made := l.Given
		if !l.Created.IsZero() {
			_, offset := list.snapshot()
			made = l.Created.Add(-offset)
		}
		if earliest.IsZero() || made.Before(earliest) {
			earliest = made
		}
	}
	err = list.readOn(ctx, func() bool {
		missing := 0
		for _, id := range wanted {
			if _, ok := list.subs[id]; !ok {
				missing++
			}
		}
		return missing == 0 || list.before(earliest.Add(list.offset-r.tuning.ClockSlack)) || list.read >= missing
	})
	if err != nil {
		return err
	}
	r.checked = true
	tflog.Debug(ctx, "Read the service's list for the leftovers the journal names", map[string]any{"pages": list.read})
	return nil
}

// atService is subscription id as the service shows it: from the list,
// or by its own GET; nil when the service has no such subscription.
func (r *Session) atService(ctx context.Context, id string) (*client.Subscription, error) {
	if sub, ok := r.list.sub(id); ok {
		return &sub, nil
	}
	r.mu.Lock()
	sub, asked := r.fetched[id]
	r.mu.Unlock()
	if asked {
		return sub, nil
	}
	sub, err := r.svc.Subscription(ctx, id)
	switch {
	case client.IsNotFound(err):
		sub = nil
	case err != nil:
		return nil, err
	}
	r.mu.Lock()
	r.fetched[id] = sub
	r.mu.Unlock()
	return sub, nil
}

// statusFor is what the service showed of leftover l this run, if it was
// asked.
func (r *Session) statusFor(l journal.Leftover) journal.Status {
	if l.Service != r.service {
		return journal.Unchecked // this service's answers say nothing of another's
	}
	if sub, ok := r.list.sub(l.ID); ok {
		return statusOf(&sub, l.Request, l.Also)
	}
	r.mu.Lock()
	sub, asked := r.fetched[l.ID]
	r.mu.Unlock()
	switch {
	case !asked:
		return journal.Unchecked
	case sub == nil:
		return journal.Gone
	}
	return statusOf(sub, l.Request, l.Also)
}

// RequestOf names what a create asks for, as the journal records it and
// messages show it.
func RequestOf(body client.CreateSubscriptionRequest) string {
	if body.Plan == nil {
		return "plan_id " + body.PlanID
	}
	return fmt.Sprintf("plan { coverage_id = %q, data_mbs = %d, period_days = %d }", body.Plan.CoverageID, body.Plan.DataMBs, body.Plan.PeriodDays)
}

// Create sends a create through send, with the context it must use:
// recorded in the journal right before its request is written (after the
// pace), and once it is answered; the process does not exit, when
// Terraform is gone, before the answer is recorded. When the journal
// cannot be written, nothing is sent and the diagnostics say why.
func (r *Session) Create(ctx context.Context, body client.CreateSubscriptionRequest, within time.Duration, send func(context.Context) (*client.Subscription, error)) (*client.Subscription, diag.Diagnostics, error) {
	if r == nil || r.off {
		sub, err := send(ctx)
		return sub, nil, err
	}
	r.mu.Lock()
	j, failed := r.journal, r.failed
	r.mu.Unlock()
	if failed != nil {
		return nil, r.unwritable(failed), nil
	}
	if j == nil { // not configured: the framework reports that
		sub, err := send(ctx)
		return sub, nil, err
	}
	release := r.cfg.Hold()
	defer func() {
		// A process whose Terraform is gone exits once its holds are
		// released: what it queued must be in the file first.
		if r.cfg.Stopping != nil && r.cfg.Stopping() {
			_ = j.Flush()
		}
		release()
	}()
	record := j.NewCreate(RequestOf(body), within)
	sub, err := send(client.WithSendRecorder(ctx, record))
	var diags diag.Diagnostics
	switch {
	case err == nil:
		if jerr := record.Made(sub.ID, time.Unix(sub.CreatedAt, 0)); jerr != nil {
			diags.Append(diagnostics.JournalAnswerUnrecorded(sub.ID, jerr))
		}
	case client.IsSendRecordError(err):
		return nil, r.unwritable(err), nil
	case client.CreatedNothing(err):
		_ = record.Unmade()
	}
	// Otherwise no answer came: the service may have made it, and the
	// record stays open for a look.
	return sub, diags, err
}

// unwritable is the error of a create the journal's failure stops: in
// full the first time, then a line that points to it, since each create
// stopped must fail.
func (r *Session) unwritable(err error) diag.Diagnostics {
	if r.failedSaid.Swap(true) {
		return diag.Diagnostics{diagnostics.JournalUnwritableAgain()}
	}
	return diag.Diagnostics{diagnostics.JournalUnwritable(r.path, err)}
}
