package state

import (
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
