package state

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// snapshot is everything the store holds, including the cursor key so that
// cursors handed out before a restart stay valid. It is what a restart
// reads back from the database, and also the layout of the JSON state file
// of earlier versions, which is migrated at start.
type snapshot struct {
	Version       int             `json:"version"`
	CursorKey     []byte          `json:"cursorKey"`
	ClockOffset   int64           `json:"clockOffset"`
	CustomPlans   int             `json:"customPlans"`
	Plans         []Plan          `json:"plans"`
	Esims         []Esim          `json:"esims"`
	Subscriptions []*Subscription `json:"subscriptions"`
}

const snapshotVersion = 1

// loadInto replaces c with the snapshot, which must have passed validate.
func (snap *snapshot) loadInto(s *content) {
	s.load(Dataset{Plans: snap.Plans, Esims: snap.Esims}, snap.Subscriptions, snap.CustomPlans, snap.ClockOffset)
	s.cursorKey = snap.CursorKey
}

// minCursorKey is the shortest cursor key a state may hold: shorter keys
// would make cursors forgeable.
const minCursorKey = 16

// validate checks a restored state before any handler sees it: everything
// the handlers rely on without checking (every subscription's eSIM and plan
// exist, one subscription per eSIM, seq equal to position, allowances
// present) is checked here, and the first problem is named.
func (snap *snapshot) validate() error {
	switch {
	case len(snap.CursorKey) < minCursorKey:
		return fmt.Errorf("cursorKey is missing or shorter than %d bytes", minCursorKey)
	case snap.Plans == nil:
		return errors.New("the plans are missing")
	case snap.Esims == nil:
		return errors.New("the esims are missing")
	case snap.CustomPlans < 0:
		return fmt.Errorf("customPlans %d is negative", snap.CustomPlans)
	case snap.ClockOffset < 0 || snap.ClockOffset > MaxClockOffsetSeconds:
		return fmt.Errorf("clockOffset %d is outside 0 to %d seconds", snap.ClockOffset, int64(MaxClockOffsetSeconds))
	}
	// The inventory's own checks and the subscriptions' checks build
	// separate maps of up to 200,000 entries; they run side by side, and the
	// inventory's problem, if any, is the one named.
	inventory := make(chan error, 1)
	go func() { inventory <- (Dataset{Plans: snap.Plans, Esims: snap.Esims}).Validate() }()
	subsErr := snap.validateSubscriptions()
	if err := <-inventory; err != nil {
		return err
	}
	return subsErr
}

// validateSubscriptions checks the subscriptions against the plans and
// eSIMs, and the eSIMs' links back to them.
func (snap *snapshot) validateSubscriptions() error {
	plans := make(map[string]bool, len(snap.Plans))
	for i, p := range snap.Plans {
		plans[p.ID] = true
		if n, ok := strings.CutPrefix(p.ID, CustomPlanPrefix); ok {
			if k, err := strconv.Atoi(n); err == nil && k > snap.CustomPlans {
				return fmt.Errorf("plans[%d]: custom plan %q is numbered beyond customPlans %d", i, p.ID, snap.CustomPlans)
			}
		}
	}
	// One map from ICCID to position, and the subscription found on each
	// eSIM by position: a second map keyed by ICCID would double the cost.
	esimPos := make(map[string]int, len(snap.Esims))
	for i, e := range snap.Esims {
		esimPos[e.ICCID] = i
	}
	subOnEsim := make([]string, len(snap.Esims))
	subByID := make(map[string]bool, len(snap.Subscriptions))
	for i, sub := range snap.Subscriptions {
		if err := checkSubscription(sub, i); err != nil {
			return err
		}
		where := subRef{i, sub} // formatted only on failure: 100,000 Sprintf calls would slow every restart
		pos, known := esimPos[sub.EsimICCID]
		switch {
		case subByID[sub.ID]:
			return fmt.Errorf("%s: duplicate subscription id %q", where, sub.ID)
		case !known:
			return fmt.Errorf("%s: eSIM %s is not in the inventory", where, sub.EsimICCID)
		case subOnEsim[pos] != "":
			return fmt.Errorf("%s: eSIM %s already has subscription %s", where, sub.EsimICCID, subOnEsim[pos])
		case snap.Esims[pos].SubscriptionID != nil && *snap.Esims[pos].SubscriptionID != sub.ID:
			return fmt.Errorf("%s: eSIM %s names subscription %s", where, sub.EsimICCID, *snap.Esims[pos].SubscriptionID)
		case !plans[sub.PlanID]:
			return fmt.Errorf("%s: plan %q does not exist", where, sub.PlanID)
		}
		subByID[sub.ID] = true
		subOnEsim[pos] = sub.ID
	}
	for i, e := range snap.Esims {
		if e.SubscriptionID != nil && subOnEsim[i] != *e.SubscriptionID {
			return fmt.Errorf("esims[%d] (%s): names subscription %s, which is not on this eSIM", i, e.ICCID, *e.SubscriptionID)
		}
	}
	return nil
}

// checkSubscription validates one subscription on its own; i is its
// position.
func checkSubscription(sub *Subscription, i int) error {
	if sub == nil {
		return fmt.Errorf("subscriptions[%d] is null", i)
	}
	where := subRef{i, sub}
	pur, rem := sub.Purchased.DataBytes, sub.Remaining.DataBytes
	switch {
	case sub.Seq != int64(i+1):
		return fmt.Errorf("%s: seq %d out of order, want %d", where, sub.Seq, i+1)
	case sub.ID == "":
		return fmt.Errorf("subscriptions[%d]: id is empty", i)
	case sub.EsimICCID == "" || sub.PlanID == "":
		return fmt.Errorf("%s: esimIccid or planId is empty", where)
	case pur == nil || *pur <= 0:
		return fmt.Errorf("%s: purchased.dataBytes is missing or not positive", where)
	case rem == nil || *rem < 0 || *rem > *pur:
		return fmt.Errorf("%s: remaining.dataBytes is missing or outside 0 to purchased", where)
	case sub.Plan.PeriodDays <= 0 || sub.Plan.PeriodDays > MaxPeriodDays || sub.Plan.PeriodIterations < 0 || sub.Plan.PeriodIterations > MaxPeriodDays ||
		sub.Plan.PeriodDays*max(sub.Plan.PeriodIterations, 1) > MaxPeriodDays:
		return fmt.Errorf("%s: plan.periodDays x periodIterations must be from 1 to %d days", where, MaxPeriodDays)
	case sub.ExpireAt != nil && sub.ActivatedAt == nil:
		return fmt.Errorf("%s: expireAt without activatedAt", where)
	}
	return nil
}
