package recovery

import (
	"maps"
	"slices"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// Saw records that this process's state holds subscription id: a Read
// of it, a plan of it (which, under -refresh=false, comes without a
// Read), its import, its create. What the process's end records of it
// tells later processes that a state holds it.
func (r *Session) Saw(id string) {
	if r == nil || id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.seen[id] && r.reportedIDs[id] {
		// The report named it before Terraform sent its Read (a pause
		// of the walk longer than the seam's grace): said again, true.
		r.seenAfterReport = append(r.seenAfterReport, id)
	}
	r.seen[id] = true
	delete(r.gone, id)
}

// Planning records that the process plans a subscription (a create, or
// an instance in state): a plan of the whole state, once it ends, vouches
// for what it did not find.
func (r *Session) Planning() {
	if r != nil {
		r.planning.Store(true)
	}
}

// Applied records that the process applies changes.
func (r *Session) Applied() {
	if r != nil {
		r.applied.Store(true)
	}
}

// Removed records that this process found subscription id gone at the
// service, or removed from state (a Delete).
func (r *Session) Removed(id string) {
	if r == nil || id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gone[id] = struct{}{}
	delete(r.seen, id)
}

// StateSize is how many subscriptions this process's state held at the
// last run here, as far as the reads so far show it (journal.StateSize);
// 0 without a journal.
func (r *Session) StateSize(id string) int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	return j.StateSize(id)
}

// limited says why this run cannot see the whole state ("" when it
// can), as the run's facts tell it (Config.Limited), once.
func (r *Session) limited() string {
	r.limitedOnce.Do(func() {
		if r.cfg.Limited != nil {
			r.limitedWhy = r.cfg.Limited()
		}
	})
	return r.limitedWhy
}

// ApplyWalk reports whether this process is the apply of a run, which
// takes and reports after its last create, rather than a plan, which
// reports after its last plan. `apply PLANFILE` is one; `terraform apply`
// runs the plan's provider process first, and its apply's after that one
// ended. Without a session, or with the journal off, only `apply PLANFILE`
// is known to be one.
func (r *Session) ApplyWalk() bool {
	if r == nil {
		return false
	}
	r.walkOnce.Do(func() {
		if r.cfg.AppliesPlanFile != nil && r.cfg.AppliesPlanFile() {
			r.apply = true
			return
		}
		r.mu.Lock()
		j := r.journal
		r.mu.Unlock()
		r.apply = j != nil && j.AfterSibling()
	})
	return r.apply
}

// run is what the decision reads of this process's run for leftover l,
// with creates of its request still to serve and the service's answer:
// whether this state holds it is one of those facts.
func (r *Session) run(l journal.Leftover, creates int, plan bool, at journal.Status) journal.Run {
	r.mu.Lock()
	service, home, account, beside := r.service, r.home, "", r.beside
	if r.journal != nil {
		account = r.journal.Account()
	}
	seen := l.Service == service && r.seen[l.ID]
	r.mu.Unlock()
	return journal.Run{Now: r.cfg.Now(), Service: service, Account: account, Home: home, Limited: r.limited(), Creates: creates, Plan: plan, AtService: at,
		Seen: seen, Beside: beside}
}

// lookBeside reads which services and accounts the other provider
// configurations of this run serve, and which processes this run's state
// shows were saved, for the decisions that follow.
func (r *Session) lookBeside(j *journal.Journal) {
	beside := j.Beside()
	r.mu.Lock()
	seen := slices.Collect(maps.Keys(r.seen))
	r.mu.Unlock()
	kept := j.GivenTo(seen)
	r.mu.Lock()
	r.beside, r.kept = beside, kept
	r.mu.Unlock()
}

// leftover is l with what this run's state shows of it: a presumed one
// whose process's state this run holds another subscription of was
// taken out of that state (Leftover.Kept).
func (r *Session) leftover(l journal.Leftover) journal.Leftover {
	r.mu.Lock()
	defer r.mu.Unlock()
	l.Kept = l.Kept || l.Presumed && r.kept[l.Process]
	return l
}

// End records that Terraform ended the process the usual way: whole when
// it planned subscriptions with nothing limiting the run and applied
// nothing, with what its state held.
func (r *Session) End() {
	if r == nil {
		return
	}
	r.mu.Lock()
	j := r.journal
	seen, gone := slices.Collect(maps.Keys(r.seen)), slices.Collect(maps.Keys(r.gone))
	r.mu.Unlock()
	if j == nil {
		return
	}
	applied := r.applied.Load()
	// An apply plans each create again, and reads no state: never whole.
	whole := r.planning.Load() && !applied && r.limited() == "" && !r.ApplyWalk()
	_ = j.End(whole, applied, seen, gone)
}
