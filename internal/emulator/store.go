package emulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// bytesPerMegabyte converts a plan's dataMegaBytes into the allowance's
// dataBytes. The interface does not say; decimal megabytes are assumed.
const bytesPerMegabyte = 1_000_000

// subscription is the stored form; state is derived from the clock on every
// read so that expiry needs no background job.
type subscription struct {
	Seq                int64             `json:"seq"`
	ID                 string            `json:"id"`
	AttachmentID       string            `json:"attachmentId"`
	EsimICCID          string            `json:"esimIccid"`
	PlanID             string            `json:"planId"`
	Plan               PlanForAttachment `json:"plan"`
	CreatedAt          int64             `json:"createdAt"`
	ActivatedAt        *int64            `json:"activatedAt"`
	ExpireAt           *int64            `json:"expireAt"`
	Purchased          Allowance         `json:"purchased"`
	Remaining          Allowance         `json:"remaining"`
	Metadata           map[string]string `json:"metadata"`
	ThresholdsNotified []int             `json:"thresholdsNotified,omitempty"`
}

func (s *subscription) state(now int64) string {
	switch {
	case s.ActivatedAt == nil:
		return StateReady
	case s.ExpireAt != nil && now >= *s.ExpireAt:
		return StateExpired
	default:
		return StateActive
	}
}

func (s *subscription) wire(now int64) Subscription {
	md := make(map[string]string, len(s.Metadata))
	for k, v := range s.Metadata {
		md[k] = v
	}
	return Subscription{
		ID:                 s.ID,
		EsimICCID:          s.EsimICCID,
		PlanID:             s.PlanID,
		Plan:               s.Plan,
		CreatedAt:          s.CreatedAt,
		ActivatedAt:        s.ActivatedAt,
		ExpireAt:           s.ExpireAt,
		PurchasedAllowance: s.Purchased,
		RemainingAllownace: s.Remaining,
		State:              s.state(now),
		Metadata:           md,
	}
}

// store holds everything the service knows. One mutex guards it: the
// emulator is for tests and demos, and a single lock makes "no eSIM is ever
// assigned twice" easy to see.
type store struct {
	mu  sync.Mutex
	now func() time.Time
	content
}

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

	subs    []*subscription // creation order; Seq == index+1
	subByID map[string]*subscription
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

func newStore(ds Dataset, now func() time.Time) *store {
	s := &store{now: now}
	s.load(ds.normalized(), nil, 0, 0)
	return s
}

// load replaces the whole content. subs may be nil.
func (s *store) load(ds Dataset, subs []*subscription, custom int, clockOffset int64) {
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
	s.subByID = make(map[string]*subscription, len(subs))
	for _, sub := range subs {
		s.subByID[sub.ID] = sub
		if e := s.esimByICCID[sub.EsimICCID]; e != nil {
			e.SubscriptionID = ptr(sub.ID)
		}
	}
}

func (s *store) clock() int64 { return s.now().Unix() + s.clockOffset }

// currentTime is clock for callers that do not hold s.mu.
func (s *store) currentTime() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock()
}

// counts returns how many subscriptions there are and how many eSIMs are
// free.
func (s *store) counts() (subscriptions, freeEsims int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.esims {
		if e.SubscriptionID == nil {
			freeEsims++
		}
	}
	return len(s.subs), freeEsims
}

// createInput is a create request after validation: exactly one of PlanID
// and Inline is set.
type createInput struct {
	PlanID string
	Inline *inlinePlan
}

type inlinePlan struct {
	CoverageID string
	DataMBs    int64
	PeriodDays int64
}

// create assigns an eSIM and records the subscription; the caller holds
// s.mu. The *ErrorBody is the 412 the service answers when the plan or the
// inventory does not allow it.
func (s *store) create(ch *change, in createInput) (*subscription, *ErrorBody) {
	now := s.clock()

	var plan *Plan
	if in.Inline != nil {
		plan = &Plan{
			ID:                fmt.Sprintf("%s%06d", customPlanPrefix, s.custom+1),
			Name:              fmt.Sprintf("custom %d MB / %d days", in.Inline.DataMBs, in.Inline.PeriodDays),
			DataMegaBytes:     in.Inline.DataMBs,
			PeriodDays:        in.Inline.PeriodDays,
			PeriodIterations:  1,
			CoverageProfileID: ptr(in.Inline.CoverageID),
			CreatedAt:         now,
		}
	} else {
		plan = s.planByID[in.PlanID]
		switch {
		case plan == nil:
			return nil, newError(codeInvalidPlan, fmt.Sprintf("plan %q does not exist", in.PlanID), ErrorDetail{Property: "planId", Message: "no plan has this id", Suggestion: "list the account's plans (GET /v1/plans) and use the id of one that is neither archived nor an addon"})
		case plan.Archived:
			return nil, newError(codeInvalidPlan, fmt.Sprintf("plan %q is archived and cannot be subscribed to", in.PlanID), ErrorDetail{Property: "planId", Message: "the plan is archived", Suggestion: "choose a plan that is not archived"})
		case plan.Addon:
			return nil, newError(codeInvalidPlan, fmt.Sprintf("plan %q is an addon plan and cannot be subscribed to", in.PlanID), ErrorDetail{Property: "planId", Message: "the plan is an addon", Suggestion: "choose a base plan; addons attach to an existing subscription"})
		}
	}

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
	// next create, even when later creates skipped past it.
	ch.onUndo(func() {
		for i, q := range queues {
			q.head = heads[i]
		}
	})
	if esim == nil {
		want := "any label"
		if plan.Label != nil {
			want = fmt.Sprintf("label %q", *plan.Label)
		}
		return nil, newError(codeOutOfInventory, fmt.Sprintf("no unassigned eSIM with %s is left in the account", want), ErrorDetail{Message: "the account's eSIM inventory is exhausted for this plan", Suggestion: "add eSIMs to the account's inventory, or choose a plan with another label"})
	}
	if in.Inline != nil {
		s.custom++
		s.plans = append(s.plans, plan)
		s.planByID[plan.ID] = plan
		ch.putPlan(len(s.plans)-1, plan)
		ch.putMeta(metaCustomPlans, int64(s.custom))
		ch.onUndo(func() {
			s.custom--
			s.plans = s.plans[:len(s.plans)-1]
			delete(s.planByID, plan.ID)
		})
	}

	purchased := Allowance{DataBytes: ptr(plan.DataMegaBytes * bytesPerMegabyte)}
	sub := &subscription{
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
	esim.SubscriptionID = ptr(sub.ID)
	s.subs = append(s.subs, sub)
	s.subByID[sub.ID] = sub
	ch.putSub(sub)
	ch.putEsim(s, esim)
	ch.onUndo(func() {
		esim.SubscriptionID = nil
		s.subs = s.subs[:len(s.subs)-1]
		delete(s.subByID, sub.ID)
	})
	return sub, nil
}

// freeQueues lists the queues a plan with this label takes its eSIM from,
// in order of preference. The contract lets a plan without a label take
// any free eSIM; preferring one without a label is the emulator's choice.
func (s *store) freeQueues(label *string) []*esimQueue {
	if label == nil {
		return []*esimQueue{s.freeUnlabelled, s.freeAny}
	}
	if q := s.freeByLabel[*label]; q != nil {
		return []*esimQueue{q}
	}
	return nil
}

func (s *store) getSubscription(id string) (Subscription, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subByID[id]
	if sub == nil {
		return Subscription{}, false
	}
	return sub.wire(s.clock()), true
}

func (s *store) getPlan(id string) (Plan, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return found(s.planByID[id])
}

func (s *store) getEsim(iccid string) (Esim, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return found(s.esimByICCID[iccid])
}

// found is a copy of the record p points to, and whether there is one.
func found[T any](p *T) (T, bool) {
	if p == nil {
		var zero T
		return zero, false
	}
	return *p, true
}

// listSubscriptions pages newest first. The cursor holds the Seq of the last
// item returned, so subscriptions created between two page requests land
// before the cursor and never shift what comes after it.
func (s *store) listSubscriptions(cursor string, size int) (page[Subscription], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := int64(len(s.subs)) // exclusive upper Seq bound + 1
	if cursor != "" {
		pos, err := decodeCursor(s.cursorKey, listSubscriptions, cursor)
		if err != nil || pos < 1 || pos > int64(len(s.subs)) {
			return page[Subscription]{}, errBadCursor
		}
		end = pos - 1
	}
	now := s.clock()
	out := page[Subscription]{Items: make([]Subscription, 0, size)}
	i := end - 1
	for ; i >= 0 && len(out.Items) < size; i-- {
		out.Items = append(out.Items, s.subs[i].wire(now))
	}
	if i >= 0 {
		out.NextPage = ptr(encodeCursor(s.cursorKey, listSubscriptions, s.subs[i+1].Seq))
	}
	return out, nil
}

// listForward pages a list that only grows at its end (plans, eSIMs): the
// cursor is the index of the next item.
func listForward[T any](s *store, kind listKind, all []*T, cursor string, size int) (page[T], error) {
	start := int64(0)
	if cursor != "" {
		pos, err := decodeCursor(s.cursorKey, kind, cursor)
		if err != nil || pos < 1 || pos > int64(len(all)) {
			return page[T]{}, errBadCursor
		}
		start = pos
	}
	stop := min(start+int64(size), int64(len(all)))
	out := page[T]{Items: make([]T, 0, stop-start)}
	for _, it := range all[start:stop] {
		out.Items = append(out.Items, *it)
	}
	if stop < int64(len(all)) {
		out.NextPage = ptr(encodeCursor(s.cursorKey, kind, stop))
	}
	return out, nil
}

func (s *store) listPlans(cursor string, size int) (page[Plan], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return listForward(s, listPlans, s.plans, cursor, size)
}

func (s *store) listEsims(cursor string, size int) (page[Esim], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return listForward(s, listEsims, s.esims, cursor, size)
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}

// addEsims grows the inventory, as buying more eSIMs would; the caller
// holds s.mu.
func (s *store) addEsims(ch *change, count int, label *string) {
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
		ch.putEsim(s, e)
	}
	ch.onUndo(func() {
		for _, e := range s.esims[before:] {
			delete(s.esimByICCID, e.ICCID)
			delete(s.esimPos, e.ICCID)
		}
		s.esims = s.esims[:before]
		s.freeAny.idx = s.freeAny.idx[:anyLen]
		q.idx = q.idx[:labelLen]
	})
}
