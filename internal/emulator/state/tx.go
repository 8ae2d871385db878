package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// BytesPerMegabyte converts a plan's dataMegaBytes into the allowance's
// dataBytes. The interface does not say; decimal megabytes are assumed.
const BytesPerMegabyte = 1_000_000

// CustomPlanPrefix starts the id of every inline plan.
const CustomPlanPrefix = "plan_custom_"

// content is everything the store holds, apart from its lock, so that a
// reset can be undone by putting the old content back.
type content struct {
	cursorKey   []byte
	clockOffset int64 // seconds added to the wall clock

	plans    []*Plan
	planByID map[string]*Plan
	custom   int // inline plans created so far

	esims       []*Esim
	esimByICCID map[string]*Esim
	esimPos     map[string]int // index in esims: the eSIM's record key
	// Free-eSIM queues, scanned lazily: entries that got assigned since they
	// were queued are skipped, so finding a free eSIM is amortized O(1).
	// A plan without a label looks in freeUnlabelled first and in freeAny
	// only when that is empty, so it leaves labelled eSIMs to labelled plans.
	freeByLabel    map[string]*esimQueue
	freeUnlabelled *esimQueue
	freeAny        *esimQueue

	subs    []*Subscription // creation order; Seq == index+1
	subByID map[string]*Subscription
}

type esimQueue struct {
	idx  []int
	head int
}

func (q *esimQueue) next(esims []*Esim) *Esim {
	for q.head < len(q.idx) {
		e := esims[q.idx[q.head]]
		if e.SubscriptionID == nil {
			return e
		}
		q.head++
	}
	return nil
}

// load replaces the whole content. subs may be nil.
func (s *Store) load(ds Dataset, subs []*Subscription, custom int, clockOffset int64) {
	s.cursorKey = randomBytes(32)
	s.clockOffset = clockOffset
	s.custom = custom
	s.plans = make([]*Plan, len(ds.Plans))
	s.planByID = make(map[string]*Plan, len(ds.Plans))
	for i := range ds.Plans {
		p := ds.Plans[i]
		s.plans[i] = &p
		s.planByID[p.ID] = &p
	}
	s.esims = make([]*Esim, len(ds.Esims))
	s.esimByICCID = make(map[string]*Esim, len(ds.Esims))
	s.esimPos = make(map[string]int, len(ds.Esims))
	s.freeByLabel = map[string]*esimQueue{}
	s.freeAny = &esimQueue{idx: make([]int, 0, len(ds.Esims))}
	s.freeUnlabelled = &esimQueue{}
	for i := range ds.Esims {
		e := ds.Esims[i]
		s.esims[i] = &e
		s.esimByICCID[e.ICCID] = &e
		s.esimPos[e.ICCID] = i
		s.freeAny.idx = append(s.freeAny.idx, i)
		if e.Label == nil {
			s.freeUnlabelled.idx = append(s.freeUnlabelled.idx, i)
		} else {
			q := s.freeByLabel[*e.Label]
			if q == nil {
				q = &esimQueue{}
				s.freeByLabel[*e.Label] = q
			}
			q.idx = append(q.idx, i)
		}
	}
	s.subs = subs
	s.subByID = make(map[string]*Subscription, len(subs))
	for _, sub := range subs {
		s.subByID[sub.ID] = sub
		if e := s.esimByICCID[sub.EsimICCID]; e != nil {
			e.SubscriptionID = ptr(sub.ID)
		}
	}
}

func (s *Store) clock() int64 { return s.now().Unix() + s.clockOffset }

// freeQueues lists the queues a plan with this label takes its eSIM from,
// in order of preference. The contract lets a plan without a label take
// any free eSIM; preferring one without a label is the emulator's choice.
func (s *Store) freeQueues(label *string) []*esimQueue {
	if label == nil {
		return []*esimQueue{s.freeUnlabelled, s.freeAny}
	}
	if q := s.freeByLabel[*label]; q != nil {
		return []*esimQueue{q}
	}
	return nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}

// ReadTx is read access to the state, valid only inside the View or Update
// that handed it out. Records come back as copies: their pointer fields
// are shared with the state and are replaced, never written through.
type ReadTx struct{ s *Store }

// Now is the emulator's clock, in Unix seconds: the wall clock plus the
// offset AdvanceClock added.
func (r *ReadTx) Now() int64 { return r.s.clock() }

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
func found[T any](p *T) (T, bool) {
	if p == nil {
		var zero T
		return zero, false
	}
	return *p, true
}

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

func copies[T any](all []*T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, p := range all {
			if !yield(*p) {
				return
			}
		}
	}
}

// ErrBadCursor is the answer to a page cursor this state did not issue for
// this list.
var ErrBadCursor = errors.New("the page cursor is not one this service issued for this list")

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
		items = append(items, *s.subs[i])
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
func listForward[T any](s *Store, kind listKind, all []*T, cursor string, size int) ([]T, *string, error) {
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
		items = append(items, *it)
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
	reset   bool     // clear every bucket before writing puts
	puts    []record // written in order
	undo    []func() // run in reverse order on failure
	fn      func(*Tx) error
	err     error      // fn's refusal, or a storage failure
	done    chan error // the committer's answer
}

type record struct {
	bucket []byte
	key    []byte
	value  []byte
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
	stored := p
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
	return *sub, true
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
	tx.replaceSub(live, next)
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
	tx.replaceEsim(live, next)
	return nil
}

func sameString(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// AddEsims grows the inventory by count free eSIMs with this label, as
// buying more would.
func (tx *Tx) AddEsims(count int, label *string) {
	s := tx.s
	now := s.clock()
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

// MaxClockOffsetSeconds bounds how far the emulator's clock may run ahead of
// the wall clock: 200 years, twice the longest plan period, far from where
// Unix seconds overflow.
const MaxClockOffsetSeconds = 200 * 366 * 86400

// AdvanceClock moves the emulator's clock forward by seconds, which must be
// positive and keep the clock within MaxClockOffsetSeconds of the wall
// clock.
func (tx *Tx) AdvanceClock(seconds int64) error {
	if seconds <= 0 || seconds > MaxClockOffsetSeconds-tx.s.clockOffset {
		return fmt.Errorf("state: cannot advance the clock by %d seconds from an offset of %d", seconds, tx.s.clockOffset)
	}
	tx.setClockOffset(tx.s.clockOffset + seconds)
	return nil
}

// Reset replaces everything with ds, which must have passed Validate: no
// subscriptions, every eSIM free, the clock back to the wall clock, and a
// new cursor key, so cursors issued before are no longer valid.
func (tx *Tx) Reset(ds Dataset) {
	s := tx.s
	saved := s.content // load replaces every slice and map, so this stays intact
	tx.onUndo(func() { s.content = saved })
	s.load(ds.normalized(), nil, 0, 0)
	tx.putAll()
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
	tx.undo, tx.puts = nil, nil
	tx.reset = false
}

// put records v for the commit, encoded now, under the store's lock.
func (tx *Tx) put(bucket, key []byte, v any) {
	if tx.persist {
		tx.puts = append(tx.puts, record{bucket, key, encodeRecord(v)})
	}
}

func (tx *Tx) putMeta(key []byte, v int64) {
	if tx.persist {
		tx.puts = append(tx.puts, record{bucketMeta, key, formatMeta(v)})
	}
}

// putAll replaces the whole stored state with the store's content.
func (tx *Tx) putAll() {
	if !tx.persist {
		return
	}
	s := tx.s
	tx.reset = true
	tx.puts = append(tx.puts, record{bucketMeta, metaFormat, []byte(stateFormat)}, record{bucketMeta, metaCursorKey, s.cursorKey})
	tx.putMeta(metaClockOffset, s.clockOffset)
	tx.putMeta(metaCustomPlans, int64(s.custom))
	for i, p := range s.plans {
		tx.put(bucketPlans, indexKey(int64(i)), p)
	}
	for i, e := range s.esims {
		tx.put(bucketEsims, indexKey(int64(i)), e)
	}
	for _, sub := range s.subs {
		tx.put(bucketSubs, indexKey(sub.Seq), sub)
	}
}

// writeTo writes the change into a bbolt transaction.
func (tx *Tx) writeTo(btx *bolt.Tx) error {
	if tx.reset {
		for _, name := range allBuckets {
			if err := btx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			if _, err := btx.CreateBucket(name); err != nil {
				return err
			}
		}
	}
	for _, r := range tx.puts {
		b := btx.Bucket(r.bucket)
		if b == nil {
			return fmt.Errorf("bucket %s is missing", r.bucket)
		}
		if err := b.Put(r.key, r.value); err != nil {
			return err
		}
	}
	return nil
}
