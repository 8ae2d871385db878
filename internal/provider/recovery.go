package provider

import (
	"context"
	"fmt"
	"maps"
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
// its creates in the working directory (package journal, which holds the
// rules), and recovery is its one adapter to it:
//
//   - Configure opens it, waiting for a killed run's provider to record
//     the answers it sees through, looks at the service for what creates
//     with no answer on record made, and for what a lost run made;
//   - the protocol's seam tells it which subscriptions this state holds
//     (seen), and, at the run's end, has it name what it took and every
//     leftover it did not, with why (report);
//   - each create is recorded right before its request is written (the
//     client's SendRecorder) and when it is answered, and takes a
//     leftover instead when the decision (journal.Decide) says so and the
//     service shows it unused and of that plan;
//   - the process's end records what its state held: the state's size,
//     and, for every leftover, whether a state holds it.
//
// Without the journal (MOBILEPLAN_JOURNAL=off, or a provider served
// without KeepJournal, as in the in-process tests) nothing of this runs.
type recovery struct {
	dir        string
	hold       func() (release func())
	parentArgs func() ([]string, error)
	now        func() time.Time
	sleep      func(time.Duration) // the clock's wait
	tuning     journal.Tuning
	off        bool // MOBILEPLAN_JOURNAL=off
	offOnce    sync.Once
	// failedSaid is set once the journal's failure was given in full:
	// every later create that it stops says so in a line.
	failedSaid atomic.Bool

	mu            sync.Mutex // guards what follows
	journal       *journal.Journal
	failed        error // why the journal cannot be kept: creates stop
	path          string
	service       string
	home          journal.Home
	lostRun       lostRun
	offset        time.Duration // the service's clock less this machine's, from the last look
	seen          map[string]bool
	holds         map[string]struct{}
	gone          map[string]struct{}
	planned       map[string]int   // creates this process planned, by request
	allotted      map[string]int   // of those, the ones the preflight counts as taken
	beside        []journal.Served // the other configurations of this run (lookBeside)
	kept          map[string]bool  // processes this run's state holds a subscription of (lookBeside)
	took          []diagnostics.Leftover
	reportedTakes int                             // of took, those a report named
	fromService   map[string]*client.Subscription // what the service showed of leftovers
	goneIDs       map[string]bool
	reported      bool

	scanMu  sync.Mutex // one scan of the list a process
	scanned bool

	// quiet is set when the journal had nothing to say when it was
	// opened, which stays so (only a killed process, a look or a lost run
	// add leftovers, all before this process's plan).
	quiet    atomic.Bool
	planning atomic.Bool // the process planned subscriptions
	applied  atomic.Bool // the process applied changes

	usableOnce  sync.Once
	usable      map[string]int // usableFor's counts
	limitedOnce sync.Once
	limitedWhy  string
	walkOnce    sync.Once
	apply       bool
}

// EnvJournal, set to "off", turns the journal of creates off.
const EnvJournal = "MOBILEPLAN_JOURNAL"

func newRecovery(dir string, hold func() (release func()), parentArgs func() ([]string, error)) *recovery {
	r := &recovery{dir: dir, hold: hold, parentArgs: parentArgs, now: time.Now, sleep: time.Sleep, tuning: journal.DefaultTuning,
		off:  strings.EqualFold(strings.TrimSpace(os.Getenv(EnvJournal)), "off"),
		seen: map[string]bool{}, holds: map[string]struct{}{}, gone: map[string]struct{}{}, planned: map[string]int{}, allotted: map[string]int{},
		fromService: map[string]*client.Subscription{}, goneIDs: map[string]bool{}}
	r.quiet.Store(true)
	return r
}

// lostRun is a run whose working directory is gone, as the settings name
// it: it started at started and, unless ended is zero, ended at ended.
type lostRun struct {
	started, ended time.Time
}

// orphanWait bounds how long a process waits for the provider of a killed
// run to record the answers of the creates it had sent: each is bounded
// by request_timeout, 30 seconds by default.
const orphanWait = 2 * time.Minute

// orphanPoll is how often it looks again.
const orphanPoll = 200 * time.Millisecond

// open opens the journal for the service at service, once, with what the
// service shows of lost (if set) and of creates with no answer on record,
// through c, and the ids the settings dismiss. It returns what opening
// found, for Configure to show.
func (r *recovery) open(ctx context.Context, service, token string, lost lostRun, dismissed []string, c *client.Client) diag.Diagnostics {
	if r == nil {
		return nil
	}
	if r.off {
		return r.offOver(service, token)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journal != nil || r.failed != nil {
		return nil
	}
	r.path, r.home = journal.Locate(r.dir)
	r.service, r.lostRun = service, lost
	j, err := r.openAfterOrphans(ctx, token)
	if err != nil {
		r.failed = err
		tflog.Warn(ctx, "The journal of creates cannot be kept: creates will fail", map[string]any{"journal": r.path, "error": err.Error()})
		return nil
	}
	r.journal = j
	var diags diag.Diagnostics
	if why := j.SetAside(); why != "" {
		diags.Append(diagnostics.JournalSetAside(why))
	}
	if damaged := j.Damaged(); len(damaged) > 0 {
		var lines []int
		var ids []string
		for _, d := range damaged {
			lines = append(lines, d.Line)
			ids = append(ids, d.IDs...)
		}
		diags.Append(diagnostics.JournalDamaged(r.path, lines, ids))
	}
	// The creates a look at this service with this token can settle:
	// another account's, or another service's, are left to a process of
	// theirs.
	var creates []journal.OpenCreate
	for _, oc := range j.OpenCreates() {
		if oc.Service == service && oc.Account == j.Account() {
			creates = append(creates, oc)
		}
	}
	if len(creates) > 0 {
		diags.Append(r.lookForOpenCreates(ctx, j, c, creates)...)
	}
	if !lost.started.IsZero() {
		diags.Append(r.recordLostRun(ctx, j, c, lost)...)
	}
	diags.Append(r.checkDamaged(ctx, j, c)...)
	// After the looks: what they found this run may be dismissed too.
	if len(dismissed) > 0 {
		unknown, err := j.Dismiss(dismissed, journal.WhyDismissed)
		switch {
		case err != nil:
			r.failed = err // creates stop, and say so; reads go on
		case len(unknown) > 0:
			diags.Append(diagnostics.DismissedUnknown(unknown))
		}
	}
	left, err := j.Leftovers()
	if err != nil {
		r.failed = err
	}
	r.quiet.Store(len(left) == 0 && len(j.OpenCreates()) == 0 && len(diags) == 0)
	if !r.quiet.Load() {
		tflog.Info(ctx, "The journal of creates names subscriptions no state is known to hold", map[string]any{"journal": r.path, "leftovers": len(left)})
	}
	return diags
}

// offOver is what the journal, turned off, still names for this
// configuration: one warning, once per process, with every id and every
// create with no answer on record, since this run neither takes them nor
// records its own creates.
func (r *recovery) offOver(service, token string) diag.Diagnostics {
	var said bool
	r.offOnce.Do(func() { said = true })
	if !said {
		return nil
	}
	path, home := journal.Locate(r.dir)
	left, open, err := journal.Peek(path, home, service, token, r.now())
	if err != nil || len(left)+len(open) == 0 {
		return nil
	}
	named := make([]diagnostics.Leftover, 0, len(left))
	for _, l := range left {
		named = append(named, r.leftoverMessage(l, "", ""))
	}
	return diag.Diagnostics{diagnostics.JournalOffOverLeftovers(path, named, openCreatesOf(open))}
}

// checkDamaged asks the service for each id a damaged line of the journal
// shows: one it does not have is no subscription of its, and once every
// service the journal names says so, it is named no more. r.mu is held.
func (r *recovery) checkDamaged(ctx context.Context, j *journal.Journal, c *client.Client) diag.Diagnostics {
	left, err := j.Leftovers()
	if err != nil {
		return nil
	}
	var gone []string
	for _, l := range left {
		if l.Origin != journal.OriginDamaged {
			continue
		}
		_, err := c.GetSubscription(ctx, l.ID)
		switch {
		case client.IsNotFound(err):
			gone = append(gone, l.ID)
		case err != nil:
			tflog.Info(ctx, "Could not ask the service for an id a damaged line of the journal shows: it stays named", map[string]any{"id": l.ID, "error": err.Error()})
		}
	}
	if len(gone) == 0 {
		return nil
	}
	if _, err := j.Dismiss(gone, journal.WhyGone); err != nil {
		r.failed = err
	}
	return nil
}

// openAfterOrphans opens the journal once no provider of a killed run is
// still writing to it: the provider of a run killed a moment ago goes on
// for as long as its creates in flight take, and what it records after
// this run's plan began could not be vouched for.
func (r *recovery) openAfterOrphans(ctx context.Context, token string) (*journal.Journal, error) {
	deadline := r.now().Add(orphanWait)
	opts := journal.Options{Now: r.now, LostRun: r.lostRun.started, Token: token}
	for logged := false; ; {
		j, err := journal.Open(r.path, r.home, r.service, opts)
		if err != nil {
			return nil, err
		}
		orphans := j.Orphans()
		if orphans == 0 || r.now().After(deadline) {
			return j, nil
		}
		if !logged {
			logged = true
			tflog.Info(ctx, "Waiting for the provider of a killed run to record the creates it had sent", map[string]any{"journal": r.path, "processes": orphans})
		}
		_ = j.Close()
		r.sleep(orphanPoll)
	}
}

// listedOf is s as the journal's look reads it.
func listedOf(s client.Subscription) journal.Listed {
	l := journal.Listed{ID: s.ID, Created: time.Unix(s.CreatedAt, 0), Unused: s.State == client.StateReady && s.ActivatedAt == nil}
	if s.PlanID != "" {
		l.Requests = append(l.Requests, requestOf(client.CreateSubscriptionRequest{PlanID: s.PlanID}))
	}
	if inline, ok := inlinePlanOf(s.Plan); ok {
		l.Requests = append(l.Requests, requestOf(client.CreateSubscriptionRequest{Plan: &inline}))
	}
	return l
}

// lookForOpenCreates reads the service's list, newest first, back to the
// earliest time creates may have made a subscription, and records what
// they made. r.mu is held.
func (r *recovery) lookForOpenCreates(ctx context.Context, j *journal.Journal, c *client.Client, creates []journal.OpenCreate) diag.Diagnostics {
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
func (r *recovery) recordLostRun(ctx context.Context, j *journal.Journal, c *client.Client, lost lostRun) diag.Diagnostics {
	var window []journal.Listed
	var newest *journal.Listed
	var offset time.Duration
	var from, to time.Time
	for s, err := range c.Subscriptions(ctx) {
		if err != nil {
			return diag.Diagnostics{diagnostics.LostRunUnread(err)}
		}
		offset, _ = c.ServiceClockOffset()
		from, to = r.tuning.LostRunWindow(lost.started, lost.ended, r.now(), offset)
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
		from, to = r.tuning.LostRunWindow(lost.started, lost.ended, r.now(), offset)
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

// sawID records that this process's state holds subscription id: a Read
// of it, a plan of it (which, under -refresh=false, comes without a
// Read), its import, its create. What the process's end records of it
// tells later processes that a state holds it.
func (r *recovery) sawID(id string) {
	if r == nil || id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holds[id] = struct{}{}
	r.seen[id] = true
	delete(r.gone, id)
}

// held records a subscription this process's state holds (read, created,
// taken); removed, one it found gone or removed from state.
func (r *recovery) held(id string) { r.sawID(id) }

func (r *recovery) removed(id string) {
	if r == nil || id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gone[id] = struct{}{}
	delete(r.holds, id)
	delete(r.seen, id)
}

// stateSize is how many subscriptions this process's state held at the
// last run here, as far as the reads so far show it (journal.StateSize);
// 0 without a journal.
func (r *recovery) stateSize(id string) int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	return j.StateSize(id)
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
				r.limitedWhy = "this run is limited to some resources (-" + name + "), so it cannot see every subscription its state holds: plan or apply again without it"
				return
			}
		}
	})
	return r.limitedWhy
}

// valueFlags are the options of Terraform's and OpenTofu's plan and apply
// that may take their value as the next argument.
var valueFlags = []string{"var", "var-file", "target", "target-file", "exclude", "exclude-file", "replace", "state", "state-out", "backup",
	"parallelism", "lock-timeout", "out", "generate-config-out", "chdir"}

// applyWalk reports whether this process is the apply of a run, which
// takes and reports after its last create, rather than a plan, which
// reports after its last plan. `apply PLANFILE` is one; `terraform apply`
// runs the plan's provider process first, and its apply's after that one
// ended.
func (r *recovery) applyWalk() bool {
	r.walkOnce.Do(func() {
		if args, err := r.parentArgs(); err == nil && appliesAPlanFile(args) {
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

// appliesAPlanFile reports whether a CLI command line is apply (or
// destroy) of a saved plan: an argument after the command that is neither
// an option nor an option's value.
func appliesAPlanFile(args []string) bool {
	command := -1
	for i, a := range args {
		if i > 0 && !strings.HasPrefix(a, "-") {
			command = i
			break
		}
	}
	if command < 0 || (args[command] != "apply" && args[command] != "destroy") {
		return false
	}
	for i := command + 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && slices.Contains(valueFlags, name) {
				i++ // its value
			}
			continue
		}
		return true
	}
	return false
}

// run is what the decision reads of this process's run for leftover l,
// with creates of its request still to serve and the service's answer:
// whether this state holds it is one of those facts.
func (r *recovery) run(l journal.Leftover, creates int, plan bool, at journal.Status) journal.Run {
	r.mu.Lock()
	service, home, account, beside := r.service, r.home, "", r.beside
	if r.journal != nil {
		account = r.journal.Account()
	}
	seen := l.Service == service && r.seen[l.ID]
	r.mu.Unlock()
	return journal.Run{Now: r.now(), Service: service, Account: account, Home: home, Limited: r.limited(), Creates: creates, Plan: plan, AtService: at,
		Seen: seen, Beside: beside}
}

// lookBeside reads which services and accounts the other provider
// configurations of this run serve, and which processes this run's state
// shows were saved, for the decisions that follow.
func (r *recovery) lookBeside(j *journal.Journal) {
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
func (r *recovery) leftover(l journal.Leftover) journal.Leftover {
	r.mu.Lock()
	defer r.mu.Unlock()
	l.Kept = l.Kept || l.Presumed && r.kept[l.Process]
	return l
}

// planCreate is what the plan of a create with configuration config says
// of the journal: an error when the journal cannot be kept, since the
// create would fail; and it counts the create, which the run's report
// reads.
func (r *recovery) planCreate(ctx context.Context, config tfsdk.Config) diag.Diagnostics {
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
	request := requestOfConfig(ctx, config)
	r.mu.Lock()
	r.planned[request]++
	r.mu.Unlock()
	return nil
}

// mayTake reports whether the apply may serve one more planned create of
// configuration config with a leftover: fewer creates of its request
// were counted so far than there are leftovers the decision lets a plan
// take for it. The preflight then reserves no free eSIM for it. A
// leftover this plan later finds in state makes the count one too
// generous, and the apply may then meet the service's outOfInventory for
// that create: never a plan refused that the recovery makes possible.
func (r *recovery) mayTake(ctx context.Context, config tfsdk.Config) bool {
	if r == nil || r.off || r.quiet.Load() {
		return false
	}
	request := requestOfConfig(ctx, config)
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
func (r *recovery) usableFor(request string) int {
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

// take returns a leftover for a create of body, checked at the service
// (unused, of the same plan), and records that the create took it; nil
// when there is none to take. c reads the service: one scan of the list's
// pages for every leftover, then a GET for any the pages did not show. A
// check that gets no answer (the service unreachable, the run
// interrupted) is an error: the create then sends nothing, rather than buy
// a subscription that may be waiting for it, and the leftover stays for
// the next run.
func (r *recovery) take(ctx context.Context, c *client.Client, body client.CreateSubscriptionRequest) (*client.Subscription, error) {
	if r == nil || r.off || r.quiet.Load() {
		return nil, nil
	}
	r.mu.Lock()
	j := r.journal
	r.mu.Unlock()
	if j == nil {
		return nil, nil
	}
	if err := r.scan(ctx, c, j); err != nil {
		return nil, err
	}
	request := requestOf(body)
	var sub *client.Subscription
	l, ok, err := j.Take(request, func(candidates []journal.Leftover) (string, error) {
		for _, l := range candidates {
			if !journal.Decide(l, r.run(l, 1, false, journal.Unchecked), r.tuning).Take {
				continue
			}
			got, status, err := r.atService(ctx, c, l.ID, body)
			if err != nil {
				return "", err
			}
			if status == journal.Gone {
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

// scan reads the service's list, newest first, once per process, for the
// leftovers the journal names: they were made lately, so the list reaches
// them in a few pages (25 each), where a GET each costs a request each. It
// stops at the first subscription made before all of them, or once it
// has read as many pages as it has leftovers still to find; those are read
// by GET when a create needs them.
func (r *recovery) scan(ctx context.Context, c *client.Client, j *journal.Journal) error {
	r.scanMu.Lock()
	defer r.scanMu.Unlock()
	if r.scanned {
		return nil
	}
	left, err := j.Leftovers()
	if err != nil {
		return err
	}
	r.mu.Lock()
	offset := r.offset
	r.mu.Unlock()
	wanted := map[string]bool{}
	var earliest time.Time
	for _, l := range left {
		// What this service's list can show, of what the run may take or
		// name.
		if d := journal.Decide(l, r.run(l, 1, false, journal.Unchecked), r.tuning); l.Service != r.service || !l.AtService() || !d.Take && !d.Named() {
			continue
		}
		wanted[l.ID] = true
		made := l.Given
		if !l.Created.IsZero() {
			made = l.Created.Add(-offset)
		}
		if earliest.IsZero() || made.Before(earliest) {
			earliest = made
		}
	}
	read, pages := 0, 0
	for s, err := range c.Subscriptions(ctx) {
		if err != nil {
			return err
		}
		if read%client.MaxPageSize == 0 {
			pages++
		}
		read++
		if wanted[s.ID] {
			sub := s
			r.mu.Lock()
			r.fromService[s.ID] = &sub
			r.mu.Unlock()
			delete(wanted, s.ID)
		}
		offset, _ := c.ServiceClockOffset()
		if len(wanted) == 0 || time.Unix(s.CreatedAt, 0).Before(earliest.Add(offset-r.tuning.ClockSlack)) ||
			(read%client.MaxPageSize == 0 && pages >= len(wanted)) {
			break
		}
	}
	r.scanned = true
	tflog.Debug(ctx, "Read the service's list for the leftovers the journal names", map[string]any{"pages": pages, "not_listed": len(wanted)})
	return nil
}

// atService is leftover id as the service shows it, for a create of body:
// from the scan, or by its own GET.
func (r *recovery) atService(ctx context.Context, c *client.Client, id string, body client.CreateSubscriptionRequest) (*client.Subscription, journal.Status, error) {
	r.mu.Lock()
	sub, gone := r.fromService[id], r.goneIDs[id]
	r.mu.Unlock()
	if gone {
		return nil, journal.Gone, nil
	}
	if sub == nil {
		got, err := c.GetSubscription(ctx, id)
		switch {
		case client.IsNotFound(err):
			r.mu.Lock()
			r.goneIDs[id] = true
			r.mu.Unlock()
			return nil, journal.Gone, nil
		case err != nil:
			return nil, journal.Unchecked, err
		}
		sub = got
		r.mu.Lock()
		r.fromService[id] = got
		r.mu.Unlock()
	}
	switch {
	case sub.State != client.StateReady || sub.ActivatedAt != nil:
		return sub, journal.Used, nil
	case !fitFor(sub, body):
		return sub, journal.OtherPlan, nil
	}
	return sub, journal.Fit, nil
}

// statusFor is what the service showed of leftover l this run, if it was
// asked.
func (r *recovery) statusFor(l journal.Leftover) journal.Status {
	r.mu.Lock()
	sub, gone, service := r.fromService[l.ID], r.goneIDs[l.ID], r.service
	r.mu.Unlock()
	switch {
	case l.Service != service:
		return journal.Unchecked // this service's answers say nothing of another's
	case gone:
		return journal.Gone
	case sub == nil:
		return journal.Unchecked
	case sub.State != client.StateReady || sub.ActivatedAt != nil:
		return journal.Used
	}
	for _, request := range []string{l.Request, l.Also} {
		if slices.Contains(listedOf(*sub).Requests, request) {
			return journal.Fit
		}
	}
	return journal.OtherPlan
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

// create sends a create through send, with the context it must use:
// recorded in the journal right before its request is written (after the
// pace), and once it is answered; the process does not exit, when
// Terraform is gone, before the answer is recorded. When the journal
// cannot be written, nothing is sent and the diagnostics say why.
func (r *recovery) create(ctx context.Context, body client.CreateSubscriptionRequest, within time.Duration, send func(context.Context) (*client.Subscription, error)) (*client.Subscription, diag.Diagnostics, error) {
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
	release := r.hold()
	defer release()
	record := j.NewCreate(requestOf(body), within)
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
func (r *recovery) unwritable(err error) diag.Diagnostics {
	if r.failedSaid.Swap(true) {
		return diag.Diagnostics{diagnostics.JournalUnwritableAgain()}
	}
	return diag.Diagnostics{diagnostics.JournalUnwritable(r.path, err)}
}

// hasReport reports whether the run's end has anything to say of the
// journal.
func (r *recovery) hasReport() bool {
	if r == nil || r.off {
		return false
	}
	r.mu.Lock()
	took, reported, j := len(r.took) > r.reportedTakes, r.reported, r.journal
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

// report is what the run's end says of the journal, once: what the apply
// of this plan takes (a plan), what this apply took (an apply), and every
// leftover it does not take, with why, none of them an id this state
// holds. Each is one warning, with every id.
func (r *recovery) report(ctx context.Context, applyWalk bool) diag.Diagnostics {
	r.mu.Lock()
	if r.journal == nil {
		r.mu.Unlock()
		return nil
	}
	took := slices.Clone(r.took[r.reportedTakes:])
	r.reportedTakes = len(r.took)
	if r.reported {
		// A report was given, and a create took more since: Terraform
		// was slow to send it (a dependency, another provider's work).
		r.mu.Unlock()
		if len(took) == 0 {
			return nil
		}
		return diag.Diagnostics{diagnostics.RecoveryTookMore(took)}
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
		lostRunText = diagnostics.LostRunCannotTell(r.lostRun.started, r.offset)
	}
	byHeading := func(a, b diagnostics.Leftover) int { return strings.Compare(a.Source+a.Why, b.Source+b.Why) }
	slices.SortStableFunc(taking, byHeading)
	slices.SortStableFunc(named, byHeading)
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
func (r *recovery) leftoverMessage(l journal.Leftover, why, iccid string) diagnostics.Leftover {
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
func (r *recovery) why(reason journal.Reason, l journal.Leftover) string {
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

// end records that Terraform ended the process the usual way: whole when
// it planned subscriptions with nothing limiting the run and applied
// nothing, with what its state held.
func (r *recovery) end() {
	if r == nil {
		return
	}
	r.mu.Lock()
	j := r.journal
	holds, gone := slices.Collect(maps.Keys(r.holds)), slices.Collect(maps.Keys(r.gone))
	r.mu.Unlock()
	if j == nil {
		return
	}
	applied := r.applied.Load()
	// An apply plans each create again, and reads no state: never whole.
	whole := r.planning.Load() && !applied && r.limited() == "" && !r.applyWalk()
	_ = j.End(whole, applied, holds, gone)
}
