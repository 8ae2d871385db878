package state

import (
	"encoding/hex"
	"fmt"
)

// Tx is one change of the state, inside Store.Update. Its methods are the
// only mutations of the state there are.
type Tx struct {
	ReadTx
	persist       bool     // false without a file: nothing to encode
	sequentialIDs bool     // Options.SequentialIDs
	writes        batch    // what the change writes to the file
	undo          []func() // run in reverse order on failure
	fn            func(*Tx) error
	err           error      // fn's refusal, or a storage failure
	done          chan error // the committer's answer
}

// Each mutation below changes memory through one of the record helpers at
// the end of this file, and each helper records the write and registers
// the undo right where it changes memory: a mutation cannot do one of the
// three without the others.

// AddCustomPlan adds an inline plan under the next custom plan id and
// returns it as stored.
func (tx *Tx) AddCustomPlan(p Plan) Plan {
	s := tx.s
	p.ID = fmt.Sprintf("%s%06d", CustomPlanPrefix, s.custom+1)
	stored := p.clone()
	tx.appendPlan(&stored)
	tx.setCustomPlans(s.custom + 1)
	return p
}

// Subscribe assigns a free eSIM that plan's label allows and records a
// subscription to plan on it, created at now; false when no such eSIM is
// left.
func (tx *Tx) Subscribe(plan Plan, now int64) (Subscription, bool) {
	s := tx.s
	queues := s.freeQueues(plan.Label)
	heads := make([]int, len(queues))
	for i, q := range queues {
		heads[i] = q.head
	}
	var esim *Esim
	for _, q := range queues {
		if esim = q.next(s.esims); esim != nil {
			break
		}
	}
	// Restoring the queue heads gives an undone create's eSIM back to the
	// next create, even when later creates skipped past it. Nothing is
	// stored: the heads are rebuilt from the eSIMs at a restart.
	tx.onUndo(func() {
		for i, q := range queues {
			q.head = heads[i]
		}
	})
	if esim == nil {
		return Subscription{}, false
	}
	purchased := Allowance{DataBytes: ptr(plan.DataMegaBytes * BytesPerMegabyte)}
	seq := int64(len(s.subs) + 1)
	id := "sub_" + hex.EncodeToString(randomBytes(8))
	if tx.sequentialIDs {
		id = fmt.Sprintf("sub_%016x", seq)
	}
	sub := &Subscription{
		Seq:          seq,
		ID:           id,
		AttachmentID: "att_" + hex.EncodeToString(randomBytes(8)),
		EsimICCID:    esim.ICCID,
		PlanID:       plan.ID,
		Plan: PlanForAttachment{
			Name:               plan.Name,
			DataMegaBytes:      plan.DataMegaBytes,
			PeriodDays:         plan.PeriodDays,
			PeriodIterations:   plan.PeriodIterations,
			ThrottledSpeedKbps: plan.ThrottledSpeedKbps,
			Label:              plan.Label,
			CoverageProfileID:  plan.CoverageProfileID,
		},
		CreatedAt: now,
		Purchased: purchased,
		Remaining: Allowance{DataBytes: ptr(*purchased.DataBytes)},
		Metadata:  map[string]string{},
	}
	tx.appendSub(sub, esim)
	return sub.clone(), true
}

// UpdateSubscription replaces the subscription with next.ID by next. What
// ties it to the rest of the state (seq, eSIM, plan, attachment) cannot
// change.
func (tx *Tx) UpdateSubscription(next Subscription) error {
	live := tx.s.subByID[next.ID]
	switch {
	case live == nil:
		return fmt.Errorf("state: no subscription %q to update", next.ID)
	case next.Seq != live.Seq || next.EsimICCID != live.EsimICCID || next.PlanID != live.PlanID || next.AttachmentID != live.AttachmentID:
		return fmt.Errorf("state: subscription %q: seq, eSIM, plan and attachment cannot change", next.ID)
	}
	tx.replaceSub(live, next.clone())
	return nil
}

// UpdateEsim replaces the eSIM with next.ICCID by next. Its label and
// subscription cannot change: they decide which eSIMs are free.
func (tx *Tx) UpdateEsim(next Esim) error {
	live := tx.s.esimByICCID[next.ICCID]
	switch {
	case live == nil:
		return fmt.Errorf("state: no eSIM %q to update", next.ICCID)
	case !sameString(next.Label, live.Label) || !sameString(next.SubscriptionID, live.SubscriptionID):
		return fmt.Errorf("state: eSIM %s: label and subscription cannot change", next.ICCID)
	}
	tx.replaceEsim(live, next.clone())
	return nil
}

func sameString(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// AddEsims grows the inventory by count free eSIMs with this label, as
// buying more would.
func (tx *Tx) AddEsims(count int, label *string) {
	s := tx.s
	now := tx.Now()
	before := len(s.esims)
	anyLen := len(s.freeAny.idx)
	q := s.freeUnlabelled
	if label != nil {
		if q = s.freeByLabel[*label]; q == nil {
			q = &esimQueue{}
			s.freeByLabel[*label] = q
		}
	}
	labelLen := len(q.idx)
	// One undo for the whole run: up to 100,000 eSIMs come at once.
	tx.onUndo(func() {
		for _, e := range s.esims[before:] {
			delete(s.esimByICCID, e.ICCID)
			delete(s.esimPos, e.ICCID)
		}
		s.esims = s.esims[:before]
		s.freeAny.idx = s.freeAny.idx[:anyLen]
		q.idx = q.idx[:labelLen]
	})
	for range count {
		i := len(s.esims)
		e := &Esim{ICCID: ICCID(uint64(1_000_000 + i)), Label: label, SmdpState: "AVAILABLE", CreatedAt: now}
		for s.esimByICCID[e.ICCID] != nil { // a -data file may already use this serial
			i += 1_000_003
			e.ICCID = ICCID(uint64(1_000_000 + i))
		}
		s.esims = append(s.esims, e)
		s.esimByICCID[e.ICCID] = e
		idx := len(s.esims) - 1
		s.esimPos[e.ICCID] = idx
		s.freeAny.idx = append(s.freeAny.idx, idx)
		q.idx = append(q.idx, idx)
		tx.put(bucketEsims, indexKey(int64(idx)), e)
	}
}

// AdvanceClock moves the emulator's clock forward by seconds, which must be
// positive and keep the clock within MaxClockOffsetSeconds of the wall
// clock.
func (tx *Tx) AdvanceClock(seconds int64) error {
	if offset := tx.s.clockOffset; seconds <= 0 || seconds > MaxClockOffsetSeconds-offset {
		return fmt.Errorf("%w; it is %d seconds ahead now", ErrClockBound, offset)
	}
	tx.setClockOffset(tx.s.clockOffset + seconds)
	return nil
}

// Reset replaces everything with ds, which must have passed Validate: no
// subscriptions, every eSIM free, the clock back to the wall clock, and a
// new cursor key, so cursors issued before are no longer valid.
func (tx *Tx) Reset(ds Dataset) {
	s := tx.s
	saved := *s // load replaces every slice and map, so this stays intact
	tx.onUndo(func() { *s = saved })
	s.load(ds.normalized(), nil, 0, 0)
	if tx.persist {
		tx.writes.putAll(s)
	}
}

// The record helpers: memory, write and undo of one kind of record each.

func (tx *Tx) replaceSub(live *Subscription, next Subscription) {
	old := *live
	*live = next
	tx.onUndo(func() { *live = old })
	tx.put(bucketSubs, indexKey(live.Seq), live)
}

func (tx *Tx) replaceEsim(live *Esim, next Esim) {
	old := *live
	*live = next
	tx.onUndo(func() { *live = old })
	tx.put(bucketEsims, indexKey(int64(tx.s.esimPos[live.ICCID])), live)
}

func (tx *Tx) appendPlan(p *Plan) {
	s := tx.s
	s.plans = append(s.plans, p)
	s.planByID[p.ID] = p
	tx.onUndo(func() {
		s.plans = s.plans[:len(s.plans)-1]
		delete(s.planByID, p.ID)
	})
	tx.put(bucketPlans, indexKey(int64(len(s.plans)-1)), p)
}

// appendSub records sub and assigns it its eSIM e.
func (tx *Tx) appendSub(sub *Subscription, e *Esim) {
	s := tx.s
	e.SubscriptionID = ptr(sub.ID)
	s.subs = append(s.subs, sub)
	s.subByID[sub.ID] = sub
	tx.onUndo(func() {
		e.SubscriptionID = nil
		s.subs = s.subs[:len(s.subs)-1]
		delete(s.subByID, sub.ID)
	})
	tx.put(bucketSubs, indexKey(sub.Seq), sub)
	tx.put(bucketEsims, indexKey(int64(s.esimPos[e.ICCID])), e)
}

func (tx *Tx) setCustomPlans(n int) {
	s := tx.s
	old := s.custom
	s.custom = n
	tx.onUndo(func() { s.custom = old })
	tx.putMeta(metaCustomPlans, int64(n))
}

func (tx *Tx) setClockOffset(v int64) {
	s := tx.s
	old := s.clockOffset
	s.clockOffset = v
	tx.onUndo(func() { s.clockOffset = old })
	tx.putMeta(metaClockOffset, v)
}

func (tx *Tx) onUndo(f func()) { tx.undo = append(tx.undo, f) }

func (tx *Tx) rollback() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
	tx.undo, tx.writes = nil, batch{}
}

// put records v for the commit; without a file there is nothing to
// encode.
func (tx *Tx) put(bucket, key []byte, v any) {
	if tx.persist {
		tx.writes.put(bucket, key, v)
	}
}

func (tx *Tx) putMeta(key []byte, v int64) {
	if tx.persist {
		tx.writes.putMeta(key, v)
	}
}
