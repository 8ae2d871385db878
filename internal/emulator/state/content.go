package state

import (
	"time"
)

// content is everything the store holds, apart from its lock and file, so
// that a reset can be undone by putting the old content back.
type content struct {
	cursorKey   []byte
	clockOffset int64 // seconds added to the wall clock

	plans    []*Plan
	planByID map[string]*Plan
	custom   int // inline plans created so far

	esims       []*Esim
	esimByICCID map[string]*Esim
	esimPos     map[string]int // index in esims: the eSIM's record key
	// Free-eSIM queues (esimQueue). A plan without a label looks in freeUnlabelled first and in freeAny
	// only when that is empty, so it leaves labelled eSIMs to labelled plans.
	freeByLabel    map[string]*esimQueue
	freeUnlabelled *esimQueue
	freeAny        *esimQueue

	subs    []*Subscription // creation order; Seq == index+1
	subByID map[string]*Subscription
}

// load replaces the whole content. subs may be nil.
func (s *content) load(ds Dataset, subs []*Subscription, custom int, clockOffset int64) {
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

// clock is the emulator's clock at now, in Unix seconds: the wall clock
// plus the offset AdvanceClock added.
func (s *content) clock(now time.Time) int64 { return now.Unix() + s.clockOffset }

// freeQueues lists the queues a plan with this label takes its eSIM from,
// in order of preference. The contract lets a plan without a label take
// any free eSIM; preferring one without a label is the emulator's choice.
func (s *content) freeQueues(label *string) []*esimQueue {
	if label == nil {
		return []*esimQueue{s.freeUnlabelled, s.freeAny}
	}
	if q := s.freeByLabel[*label]; q != nil {
		return []*esimQueue{q}
	}
	return nil
}

// esimQueue lists eSIMs by their index in the content's esims, scanned
// lazily: entries that got assigned since they were queued are skipped, so
// finding a free eSIM is amortized O(1).
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
