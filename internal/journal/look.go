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

// sentWindow is when, by the service's clock (offset: the service's less
// this machine's), create c may have made its subscription: from its
// sending to the end of its time limit, widened by the slack.
func (t Tuning) sentWindow(c OpenCreate, offset time.Duration) window {
	within := c.Within
	if within <= 0 {
		within = t.AnswerWithin
	}
	return window{from: c.Sent.Add(offset - t.ClockSlack), to: c.Sent.Add(within + offset + t.ClockSlack)}
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

// Look returns what creates may have made, of listed (the service's
// subscriptions): those that serve the request of one of them, were made
// within its window and never used, and that the journal does not know
// (known). offset is the service's clock less this machine's.
func (t Tuning) Look(creates []OpenCreate, listed []Listed, offset time.Duration, known func(id string) bool) []Found {
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
