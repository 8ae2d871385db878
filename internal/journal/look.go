package journal

import (
	"time"
)

// A process killed with its CLI (a machine lost) leaves creates sent with
// no answer on record: the service acted on those it received. A look at
// the service finds what they made, by what the journal recorded of each
// (its request and when it was sent) against the service's list, read by
// the service's clock; and a lost run's window is read the same way. What
// a look finds is named until it is taken or dealt with, and taken only
// when it is no more than the creates could have made (decide.go).

// OpenCreate is a create sent with no answer on record, by a process that
// will not record one.
type OpenCreate struct {
	Process string
	Create  int
	Request string
	// Sent is when its request was about to be written (this machine's
	// clock); Within, its time limit, 0 when its record names none.
	Sent   time.Time
	Within time.Duration
	// Run, Service, Account and Home are those of its process.
	Run     time.Time
	Service string
	Account string
	Home    Home
	// Answers is what the answers its process recorded show of the
	// service's clock, which dates createdAt: the Date header of a look's
	// answers may run on another.
	Answers ClockSpan
}

// ClockSpan bounds the service's clock less this machine's, as a
// process's answered creates show it: each was made after its request
// was sent and before its answer came, so the clock that dated it
// (createdAt) was at least its createdAt less when its answer came, and
// at most its createdAt, plus the second that createdAt rounds away, less
// when it was sent. Known is false while no answer carried a createdAt.
type ClockSpan struct {
	From, To time.Duration
	Known    bool
}

// add narrows s by one answered create: created by the service's clock,
// sent and answered by this machine's.
func (s ClockSpan) add(created, sent, answered time.Time) ClockSpan {
	from, to := created.Sub(answered), created.Add(time.Second).Sub(sent)
	if !s.Known {
		return ClockSpan{From: from, To: to, Known: true}
	}
	return ClockSpan{From: max(s.From, from), To: min(s.To, to), Known: true}
}

// Listed is a subscription as the service lists it.
type Listed struct {
	ID string
	// Requests are the requests it would serve, as the journal names
	// them: its plan by id, and its plan as an inline plan where it is
	// one.
	Requests []string
	// Created is its createdAt, by the service's clock.
	Created time.Time
	// Unused: ready, and never activated.
	Unused bool
}

// Found is a subscription a look found.
type Found struct {
	ID            string
	Request, Also string
	Created       time.Time
}

// window is a span of the service's clock.
type window struct{ from, to time.Time }

func (w window) holds(t time.Time) bool { return !t.Before(w.from) && !t.After(w.to) }

// sentWindow is when, by the clock that dates createdAt, create c may have
// made its subscription: from its sending to the end of its time limit,
// widened by the slack. Its process's answers place that clock; without
// any, offset does (the service's Date header less this machine's clock).
func (t Tuning) sentWindow(c OpenCreate, offset time.Duration) window {
	within := c.Within
	if within <= 0 {
		within = t.AnswerWithin
	}
	from, to := offset, offset
	if c.Answers.Known {
		from, to = c.Answers.From, c.Answers.To
	}
	return window{from: c.Sent.Add(from - t.ClockSlack), to: c.Sent.Add(within + to + t.ClockSlack)}
}

// LostRunWindow is when, by the service's clock, a lost run that started
// at start and ended at end (zero: not known, so until now) may have made
// subscriptions, both given by this machine's clock.
func (t Tuning) LostRunWindow(start, end, now time.Time, offset time.Duration) (from, to time.Time) {
	if end.IsZero() {
		end = now
	}
	return start.Add(offset - t.ClockSlack), end.Add(offset + t.ClockSlack)
}

// Earliest is the earliest createdAt, by the service's clock, that a look
// for creates may find: a list newest first can stop at an older one.
func (t Tuning) Earliest(creates []OpenCreate, offset time.Duration) time.Time {
	var earliest time.Time
	for _, c := range creates {
		if from := t.sentWindow(c, offset).from; earliest.IsZero() || from.Before(earliest) {
			earliest = from
		}
	}
	return earliest
}

// Unfound is an open create a look accounts for with nothing: fewer
// subscriptions of its request were found than creates of it were sent.
// The service may have made nothing for it (its request never arrived),
// or made it outside every window the clocks allow: it is named, with
// its window and both clocks, until it is dismissed.
type Unfound struct {
	Create OpenCreate
	// From and To are its window, by the service's clock as the look
	// read it; DateOffset is the service's Date header less this
	// machine's clock.
	From, To   time.Time
	DateOffset time.Duration
}

// Looked is what a look makes of the service's list: what the creates may
// have made, and the creates it found nothing for.
type Looked struct {
	Found   []Found
	Unfound []Unfound
}

// Look returns what creates may have made, of listed (the service's
// subscriptions): those that serve the request of one of them, were made
// within its window and never used, and that the journal does not know
// (known); and, of each request, the creates beyond what was found for
// it, the latest sent. offset is the service's Date header less this
// machine's clock.
func (t Tuning) Look(creates []OpenCreate, listed []Listed, offset time.Duration, known func(id string) bool) Looked {
	var looked Looked
	looked.Found = t.find(creates, listed, offset, known)
	foundFor := map[string]int{}
	for _, f := range looked.Found {
		foundFor[f.Request]++
	}
	// Creates oldest first: the last sent are the ones left unfound.
	for _, c := range creates {
		if foundFor[c.Request] > 0 {
			foundFor[c.Request]--
			continue
		}
		w := t.sentWindow(c, offset)
		looked.Unfound = append(looked.Unfound, Unfound{Create: c, From: w.from, To: w.to, DateOffset: offset})
	}
	return looked
}

func (t Tuning) find(creates []OpenCreate, listed []Listed, offset time.Duration, known func(id string) bool) []Found {
	var found []Found
	for _, s := range listed {
		if !s.Unused || known(s.ID) {
			continue
		}
		for _, c := range creates {
			if !serves(s, c.Request) || !t.sentWindow(c, offset).holds(s.Created) {
				continue
			}
			found = append(found, foundOf(s, c.Request))
			break
		}
	}
	return found
}

// InWindow returns, of listed, the unused subscriptions made from to (by
// the service's clock) that the journal does not know.
func InWindow(listed []Listed, from, to time.Time, known func(id string) bool) []Found {
	var found []Found
	w := window{from, to}
	for _, s := range listed {
		if s.Unused && !known(s.ID) && w.holds(s.Created) && len(s.Requests) > 0 {
			found = append(found, foundOf(s, s.Requests[0]))
		}
	}
	return found
}

func serves(s Listed, request string) bool {
	for _, r := range s.Requests {
		if r == request {
			return true
		}
	}
	return false
}

// foundOf is s found for request: its other request, if any, as Also.
func foundOf(s Listed, request string) Found {
	f := Found{ID: s.ID, Request: request, Created: s.Created}
	for _, r := range s.Requests {
		if r != request {
			f.Also = r
			break
		}
	}
	return f
}
