package recovery

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// Session is one provider process's recovery: the journal it keeps, what
// the seam told it of this run's state, and what the service showed.
// Its methods are safe for concurrent use, and a nil session does
// nothing (a provider served without a journal).
type Session struct {
	cfg     Config // its Dir, Hold and clock (Now, Sleep) among it
	tuning  journal.Tuning
	off     bool // MOBILEPLAN_JOURNAL=off
	offOnce sync.Once
	// failedSaid is set once the journal's failure was given in full:
	// every later create that it stops says so in a line.
	failedSaid atomic.Bool

	mu       sync.Mutex // guards what follows
	journal  *journal.Journal
	failed   error // why the journal cannot be kept: creates stop
	path     string
	service  string
	home     journal.Home
	lostRun  LostRun
	offset   time.Duration // the service's clock less this machine's, from the last look
	seen     map[string]bool
	gone     map[string]struct{}
	planned  map[string]int   // creates this process planned, by request
	allotted map[string]int   // of those, the ones the preflight counts as taken
	beside   []journal.Served // the other configurations of this run (lookBeside)
	kept     map[string]bool  // processes this run's state holds a subscription of (lookBeside)
	took     []diagnostics.Leftover
	// reportedIDs are what the report named or said the apply takes;
	// seenAfterReport, those of them this state was seen to hold after
	// it, not yet said; corrected, how many of those were.
	reportedIDs     map[string]bool
	seenAfterReport []string
	corrected       int
	reportedTakes   int // of took, those a report named
	svc             Service
	list            *listing                        // the service's list, as far as it was read
	fetched         map[string]*client.Subscription // what GETs showed; nil: the service has no such subscription
	reported        bool

	checkMu sync.Mutex // one check of the leftovers a process
	checked bool

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

// Config is what a session needs of its process.
type Config struct {
	// Dir is the working directory, whose journal it keeps.
	Dir string
	// Hold marks work the process must finish before it exits when
	// Terraform is gone (process.Hold).
	Hold func() (release func())
	// Limited says why the run cannot see its whole state (-target,
	// -exclude; "" when it can); AppliesPlanFile, whether it is the apply
	// of a saved plan (process.Limited, process.AppliesAPlanFile).
	Limited         func() string
	AppliesPlanFile func() bool
	// Stopping says whether the process is about to exit, its Terraform
	// gone (process.ParentGone): a create's answer is then written at
	// once rather than with the next record.
	Stopping func() bool
	// Now and Sleep are the clock; time.Now and time.Sleep when nil.
	Now   func() time.Time
	Sleep func(time.Duration)
}

// New is the recovery session of one provider process. With
// MOBILEPLAN_JOURNAL=off it keeps no journal.
func New(cfg Config) *Session {
	if cfg.Hold == nil {
		cfg.Hold = func() func() { return func() {} }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = time.Sleep
	}
	r := &Session{cfg: cfg, tuning: journal.DefaultTuning,
		off:  strings.EqualFold(strings.TrimSpace(os.Getenv(EnvJournal)), "off"),
		seen: map[string]bool{}, gone: map[string]struct{}{}, planned: map[string]int{}, allotted: map[string]int{},
		fetched: map[string]*client.Subscription{}, reportedIDs: map[string]bool{}}
	r.quiet.Store(true)
	return r
}

// LostRun is a run whose working directory is gone, as the settings name
// it: it started at Started and, unless Ended is zero, ended at Ended.
type LostRun struct {
	Started, Ended time.Time
}

// Open opens the journal for the service at service, once, with what the
// service (read through svc) shows of lost (if set), of creates with no
// answer on record and of the ids damaged lines show, and the ids the
// settings dismiss. It returns what opening
// found, for Configure to show.
func (r *Session) Open(ctx context.Context, service, token string, lost LostRun, dismissed []string, svc Service) diag.Diagnostics {
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
	r.path, r.home = journal.Locate(r.cfg.Dir)
	r.service, r.lostRun, r.svc, r.list = service, lost, svc, newListing(svc.List())
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
		diags.Append(r.lookForOpenCreates(ctx, j, creates)...)
	}
	if !lost.Started.IsZero() {
		diags.Append(r.recordLostRun(ctx, j, lost)...)
	}
	diags.Append(r.checkDamaged(ctx, j)...)
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
func (r *Session) offOver(service, token string) diag.Diagnostics {
	var said bool
	r.offOnce.Do(func() { said = true })
	if !said {
		return nil
	}
	path, home := journal.Locate(r.cfg.Dir)
	left, open, err := journal.Peek(path, home, service, token, r.cfg.Now())
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
func (r *Session) checkDamaged(ctx context.Context, j *journal.Journal) diag.Diagnostics {
	left, err := j.Leftovers()
	if err != nil {
		return nil
	}
	var gone []string
	for _, l := range left {
		if l.Origin != journal.OriginDamaged {
			continue
		}
		_, err := r.svc.Subscription(ctx, l.ID)
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
func (r *Session) openAfterOrphans(ctx context.Context, token string) (*journal.Journal, error) {
	deadline := r.cfg.Now().Add(r.tuning.OrphanWait)
	opts := journal.Options{Now: r.cfg.Now, LostRun: r.lostRun.Started, Token: token, Tuning: r.tuning}
	for logged := false; ; {
		j, err := journal.Open(r.path, r.home, r.service, opts)
		if err != nil {
			return nil, err
		}
		orphans := j.Orphans()
		if orphans == 0 || r.cfg.Now().After(deadline) {
			return j, nil
		}
		if !logged {
			logged = true
			tflog.Info(ctx, "Waiting for the provider of a killed run to record the creates it had sent", map[string]any{"journal": r.path, "processes": orphans})
		}
		_ = j.Close()
		r.cfg.Sleep(r.tuning.OrphanPoll)
	}
}
