package state

import (
	"encoding/hex"
	"fmt"
	"iter"
	"time"
)

// ReadTx is read access to the state, valid only inside the View or Update
// that handed it out. Records come back as copies that share nothing with
// the state (see clone).
type ReadTx struct {
	s   *content
	now func() time.Time
}

// Now is the emulator's clock, in Unix seconds: the wall clock plus the
// offset AdvanceClock added.
func (r *ReadTx) Now() int64 { return r.s.clock(r.now()) }

// ClockOffset is how many seconds the emulator's clock runs ahead of the
// wall clock.
func (r *ReadTx) ClockOffset() int64 { return r.s.clockOffset }

// Subscription is the subscription with this id.
func (r *ReadTx) Subscription(id string) (Subscription, bool) { return found(r.s.subByID[id]) }

// Plan is the plan with this id.
func (r *ReadTx) Plan(id string) (Plan, bool) { return found(r.s.planByID[id]) }

// Esim is the eSIM with this ICCID.
func (r *ReadTx) Esim(iccid string) (Esim, bool) { return found(r.s.esimByICCID[iccid]) }

// found is a copy of the record p points to, and whether there is one.
func found[T cloner[T]](p *T) (T, bool) {
	if p == nil {
		var zero T
		return zero, false
	}
	return (*p).clone(), true
}

// cloner is a record that copies itself (Plan, Esim, Subscription).
type cloner[T any] interface{ clone() T }

// Counts are how many subscriptions there are and how many eSIMs are free.
func (r *ReadTx) Counts() (subscriptions, freeEsims int) {
	for _, e := range r.s.esims {
		if e.SubscriptionID == nil {
			freeEsims++
		}
	}
	return len(r.s.subs), freeEsims
}

// Subscriptions are all subscriptions, oldest first.
func (r *ReadTx) Subscriptions() iter.Seq[Subscription] { return copies(r.s.subs) }

// Plans are all plans, in the order of the list.
func (r *ReadTx) Plans() iter.Seq[Plan] { return copies(r.s.plans) }

// Esims are all eSIMs, in the order of the list.
func (r *ReadTx) Esims() iter.Seq[Esim] { return copies(r.s.esims) }

func copies[T cloner[T]](all []*T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, p := range all {
			if !yield((*p).clone()) {
				return
			}
		}
	}
}

// ListSubscriptions pages newest first; next is the cursor of the
// following page, nil on the last. The cursor holds the Seq of the last
// item returned, so subscriptions created between two page requests land
// before the cursor and never shift what comes after it.
func (r *ReadTx) ListSubscriptions(cursor string, size int) (items []Subscription, next *string, err error) {
	s := r.s
	end := int64(len(s.subs)) // exclusive upper Seq bound + 1
	if cursor != "" {
		pos, err := decodeCursor(s.cursorKey, listSubscriptions, cursor)
		if err != nil || pos < 1 || pos > int64(len(s.subs)) {
			return nil, nil, ErrBadCursor
		}
		end = pos - 1
	}
	items = make([]Subscription, 0, size)
	i := end - 1
	for ; i >= 0 && len(items) < size; i-- {
		items = append(items, s.subs[i].clone())
	}
	if i >= 0 {
		next = ptr(encodeCursor(s.cursorKey, listSubscriptions, s.subs[i+1].Seq))
	}
	return items, next, nil
}

// ListPlans pages the plans in their order.
func (r *ReadTx) ListPlans(cursor string, size int) ([]Plan, *string, error) {
	return listForward(r.s, listPlans, r.s.plans, cursor, size)
}

// ListEsims pages the eSIMs in their order.
func (r *ReadTx) ListEsims(cursor string, size int) ([]Esim, *string, error) {
	return listForward(r.s, listEsims, r.s.esims, cursor, size)
}

// listForward pages a list that only grows at its end (plans, eSIMs): the
// cursor is the index of the next item.
func listForward[T cloner[T]](s *content, kind listKind, all []*T, cursor string, size int) ([]T, *string, error) {
	start := int64(0)
	if cursor != "" {
		pos, err := decodeCursor(s.cursorKey, kind, cursor)
		if err != nil || pos < 1 || pos > int64(len(all)) {
			return nil, nil, ErrBadCursor
		}
		start = pos
	}
	stop := min(start+int64(size), int64(len(all)))
	items := make([]T, 0, stop-start)
	for _, it := range all[start:stop] {
		items = append(items, (*it).clone())
	}
	var next *string
	if stop < int64(len(all)) {
		next = ptr(encodeCursor(s.cursorKey, kind, stop))
	}
	return items, next, nil
}

// Tx is one change of the state, inside Store.Update. Its methods are the
// only mutations of the state there are.
type Tx struct {
	ReadTx
	persist bool     // false without a file: nothing to encode
	writes  batch    // what the change writes to the file
	undo    []func() // run in reverse order on failure
	fn      func(*Tx) error
	err     error      // fn's refusal, or a storage failure
	done    chan error // the committer's answer
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
	sub := &Subscription{
		Seq:          int64(len(s.subs) + 1),
		ID:           "sub_" + hex.EncodeToString(randomBytes(8)),
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
