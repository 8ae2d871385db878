package provider

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// Values of the provider's `preflight` setting.
const (
	preflightError = "error"
	preflightWarn  = "warn"
	preflightOff   = "off"
)

// preflight checks, at plan time, that each planned create can succeed: its
// plan can be subscribed to, and a free eSIM is left for it once the other
// creates of the run have taken theirs.
//
// Terraform configures a new provider instance for each graph walk, so one
// preflight, made in Configure, lives exactly as long as a plan (or the
// re-plan of an apply). It is shared by every resource of that walk, which
// Terraform plans concurrently: the plan reads, the inventory reading and
// the counting are each done once and under locks. Nothing is read until a
// create asks, so a plan that creates nothing costs nothing, and the eSIM
// list only as far as the creates need.
type preflight struct {
	client *client.Client
	warn   bool // report findings as warnings instead of errors

	plansMu sync.Mutex
	plans   map[string]*planLookup

	mu         sync.Mutex // guards the inventory and the reservations below
	inventory  inventory
	byLabel    map[string]int
	unlabelled int
	total      int
	// riskReported: the warning that unlabelled creates may take eSIMs a
	// labelled create needs is given once per run.
	riskReported bool
	// applying: this instance has begun creating, so it is an apply's (see
	// startCreating) and the inventory is no longer counted.
	applying bool
}

// newPreflight returns the check for one provider instance, reading the
// eSIM list it shares with the instance's mobileplan_esims data sources,
// or nil when the setting is "off"; a nil *preflight checks nothing.
func newPreflight(c *client.Client, esims *client.SharedPages[client.Esim], mode string) *preflight {
	if mode == preflightOff {
		return nil
	}
	return &preflight{client: c, warn: mode == preflightWarn, plans: map[string]*planLookup{}, byLabel: map[string]int{},
		inventory: inventory{pages: esims.Reader(), freeByLabel: map[string]int{}}}
}

// preflightBound is how long one create's checks may read: the
// preflight's own bound, or the create's timeouts.create when that is
// shorter.
func preflightBound(ctx context.Context, limits timeouts.Value) (time.Duration, diag.Diagnostics) {
	if limits.IsNull() || limits.IsUnknown() {
		return diagnostics.PreflightReadBound, nil
	}
	create, diags := limits.Create(ctx, diagnostics.PreflightReadBound)
	return min(create, diagnostics.PreflightReadBound), diags
}

// planLookup is the one read of a plan id in this run.
type planLookup struct {
	once sync.Once
	plan *client.Plan
	err  error
}

// inventory is the free part of the account's eSIM inventory, as far as
// the eSIM list has been read: a plan's cost grows with its creates, not
// with the account, so the list is read only until the free eSIMs counted
// cover the creates reserved so far (see covered).
type inventory struct {
	pages       *client.SharedReader[client.Esim]
	pagesRead   int
	freeByLabel map[string]int
	free        int
	complete    bool // the whole list has been read
	err         error
}

// createFacts are what the recovery session knows of a create that the
// preflight's counting reads: a create the apply may serve with a
// subscription a killed run left out of state (takesLeftover) needs no
// free eSIM; and in an apply's process (applyWalk: recovery.Session's
// ApplyWalk), whose plan of each create comes right before it is made,
// the run's plan has counted every create already, with nothing created,
// so the eSIM list is not read again: one scan a run. A create whose
// plan_id only the apply knows was not counted; the service checks it.
type createFacts struct {
	takesLeftover func() bool
	applyWalk     func() bool
}

// counted reports whether the create is counted against the free eSIMs.
func (f createFacts) counted() bool { return !f.applyWalk() && !f.takesLeftover() }

// checkCreate runs the checks for one planned create: a new subscription,
// or the create half of a replacement (Terraform plans that again with no
// prior state). Findings go into diags, attached to plan_id or plan; a
// create reserves a free eSIM only when facts say it is counted.
func (p *preflight) checkCreate(ctx context.Context, config tfsdk.Config, facts createFacts, diags *diag.Diagnostics) {
	if p == nil {
		return
	}
	var planID types.String
	var inline types.Object
	var limits timeouts.Value
	diags.Append(config.GetAttribute(ctx, path.Root("plan_id"), &planID)...)
	diags.Append(config.GetAttribute(ctx, path.Root("plan"), &inline)...)
	diags.Append(config.GetAttribute(ctx, path.Root("timeouts"), &limits)...)
	if diags.HasError() {
		return
	}
	bound, timeoutDiags := preflightBound(ctx, limits)
	diags.Append(timeoutDiags...)
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	ctx = client.WithRateLimitWait(ctx, diagnostics.PreflightRateLimitWait)
	switch {
	case planID.IsUnknown():
		if !p.warn {
			diags.Append(diagnostics.UnknownPlanSkipped())
		}
	case !planID.IsNull():
		at := path.Root("plan_id")
		plan, ok := p.subscribablePlan(ctx, planID.ValueString(), at, diags)
		if ok && facts.counted() {
			p.reserve(ctx, plan.Label, at, diags)
		}
	case !inline.IsNull() && facts.counted():
		p.reserve(ctx, nil, path.Root("plan"), diags) // an inline plan has no label
	}
	// Neither set: the configuration validator already reports it.
}

// subscribablePlan reads the plan once per run and reports a plan the
// service would refuse. A failed read is reported only by the create that
// made it; the others sharing the plan id go on unchecked.
func (p *preflight) subscribablePlan(ctx context.Context, id string, at path.Path, diags *diag.Diagnostics) (*client.Plan, bool) {
	p.plansMu.Lock()
	lookup := p.plans[id]
	if lookup == nil {
		lookup = &planLookup{}
		p.plans[id] = lookup
	}
	p.plansMu.Unlock()

	readHere := false
	lookup.once.Do(func() {
		readHere = true
		lookup.plan, lookup.err = p.client.GetPlan(ctx, id)
	})
	switch {
	case client.IsNotFound(lookup.err):
		diags.Append(diagnostics.PlanMissing(id).Diagnostic(at, p.warn))
		return nil, false
	case lookup.err != nil:
		if readHere {
			diags.Append(diagnostics.PreflightReadFailed("plan "+id, lookup.err, at, p.warn))
		}
		return nil, false
	case !lookup.plan.Subscribable():
		diags.Append(diagnostics.PlanNotSubscribable(*lookup.plan).Diagnostic(at, p.warn))
		return nil, false
	}
	return lookup.plan, true
}

// startCreating tells the preflight that this provider instance is about
// to create a subscription: the walk is an apply's. An apply re-plans each
// create just before making it, in the same instance, while the creates
// before it are already taking eSIMs. The list is read lazily, so a page
// read from then on would show eSIMs this run's own creates took as taken,
// while those creates are still counted against the free ones: each twice,
// a shortfall the plan did not have, failing the apply half done. The plan
// has checked the inventory already, with nothing created, so from the
// first create on the preflight counts no more. It takes the lock, so a
// reading in progress ends before the create is sent. An apply's process
// that knows it is one counts nothing from the start (createFacts); this
// covers one that cannot know (the journal off, `terraform apply` without
// a saved plan).
func (p *preflight) startCreating() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.applying = true
	p.mu.Unlock()
}

// reserve counts one create against the free inventory. Each create that
// no longer fits gets the finding, with the counts so far: per label, the
// creates needing it must fit in its free eSIMs, and all creates must fit
// in all free eSIMs, since a plan without a label takes any of them. The
// highest count reported is the run's total.
//
// The list is read on only while the counts so far could change a finding
// (covered): every comparison below is then decided as it would be on the
// whole list, so the findings are those of a full scan.
func (p *preflight) reserve(ctx context.Context, label *string, at path.Path, diags *diag.Diagnostics) {
	var finding *diagnostics.Finding
	var risk diag.Diagnostic
	p.mu.Lock()
	if p.applying {
		p.mu.Unlock()
		return // checked by the plan (startCreating)
	}
	if p.inventory.err != nil {
		p.mu.Unlock()
		return // reported by the create whose read failed
	}
	if label != nil {
		p.byLabel[*label]++
	} else {
		p.unlabelled++
	}
	if err := p.readUntilCovered(ctx, label); err != nil {
		p.mu.Unlock()
		diags.Append(diagnostics.PreflightReadFailed("the eSIM inventory", err, at, p.warn))
		return
	}
	inv := &p.inventory
	if label != nil {
		if need, free := p.byLabel[*label], inv.freeByLabel[*label]; need > free {
			f := diagnostics.LabelShort(*label, need, free)
			finding = &f
		}
	}
	if finding == nil {
		// Only creates that fit their label count in the total: one that
		// does not is reported once, for its label.
		p.total++
	}
	if finding == nil && p.total > inv.free {
		f := diagnostics.TotalShort(p.total, p.unlabelled, inv.free)
		finding = &f
	}
	if finding == nil && !p.riskReported {
		if l, ok := p.contestedLabel(); ok {
			p.riskReported = true
			risk = diagnostics.UnlabelledMayTakeLabelled(l, p.byLabel[l], inv.freeByLabel[l], p.unlabelled, at)
		}
	}
	p.mu.Unlock()

	if finding != nil {
		diags.Append(finding.Diagnostic(at, p.warn))
	}
	if risk != nil {
		diags.Append(risk)
	}
}

// covered reports whether the free eSIMs counted so far decide every
// comparison reserve makes for a create of label, whatever the rest of the
// list holds: its label's free eSIMs cover its label's creates, all free
// eSIMs cover all creates (this one included), and, while unlabelled creates
// exist, each label's free eSIMs cover its creates plus the unlabelled ones
// (contestedLabel). The caller holds p.mu.
func (p *preflight) covered(label *string) bool {
	inv := &p.inventory
	if label != nil && inv.freeByLabel[*label] < p.byLabel[*label] {
		return false
	}
	if inv.free < p.total+1 {
		return false
	}
	if p.unlabelled > 0 && !p.riskReported {
		for l, need := range p.byLabel {
			if inv.freeByLabel[l] < need+p.unlabelled {
				return false
			}
		}
	}
	return true
}

// readUntilCovered reads the eSIM list on, a page at a time, until covered
// or the list ends. The caller holds p.mu, so concurrent creates wait for
// the reading and share what it found.
func (p *preflight) readUntilCovered(ctx context.Context, label *string) error {
	inv := &p.inventory
	before := inv.pagesRead
	for !inv.complete && !p.covered(label) {
		esims, more, err := inv.pages.Next(ctx)
		inv.pagesRead++
		for _, esim := range esims {
			if esim.SubscriptionID != nil {
				continue
			}
			inv.free++
			if esim.Label != nil {
				inv.freeByLabel[*esim.Label]++
			}
		}
		if err != nil {
			inv.err = err
			return err
		}
		inv.complete = !more
	}
	if inv.pagesRead > before {
		tflog.Debug(ctx, "preflight: read the eSIM inventory", map[string]any{"pages": inv.pagesRead, "complete": inv.complete, "free": inv.free, "free_by_label": inv.freeByLabel})
	}
	return nil
}

// contestedLabel finds a label whose free eSIMs suffice for the labelled
// creates, but not if the unlabelled creates take some of them too. The
// service gives an unlabelled plan any free eSIM and does not say which, so
// whether the run succeeds then depends on its choice. The caller holds p.mu.
func (p *preflight) contestedLabel() (string, bool) {
	inv := &p.inventory
	if p.unlabelled == 0 || p.total > inv.free {
		return "", false
	}
	for _, l := range slices.Sorted(maps.Keys(p.byLabel)) {
		if need, free := p.byLabel[l], inv.freeByLabel[l]; need <= free && need+p.unlabelled > free {
			return l, true
		}
	}
	return "", false
}
