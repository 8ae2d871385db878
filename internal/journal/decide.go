package journal

import (
	"slices"
	"time"
)

// Origin is how the journal came to name a subscription.
type Origin int

const (
	// OriginCreate: the service's answer to a create of this working
	// directory, or a leftover a create took.
	OriginCreate Origin = iota
	// OriginFound: a look at the service found it for creates sent with
	// no answer on record (look.go).
	OriginFound
	// OriginLostRun: the service made it in the window of a lost run that
	// the provider block names.
	OriginLostRun
	// OriginDamaged: a damaged line of the journal shows its id.
	OriginDamaged
	// OriginUnfound: not a subscription but an open create a look found
	// nothing for (UnfoundID): the service may have made one anyway.
	OriginUnfound
)

// Leftover is a subscription the journal names that no state is known to
// hold: the facts the decision reads.
type Leftover struct {
	ID string
	// Request names what the create asked for; Also, when set, another
	// request it serves as well (a found subscription's plan in its other
	// form).
	Request, Also string
	Origin        Origin
	// Given is when it was given to its process (this machine's clock);
	// Created, when a look found it, the service's createdAt by the
	// service's clock.
	Given, Created time.Time
	// Run is when the run whose create made it started (of a lost run's,
	// the lost run's start); Service the base URL that run used, Account
	// its token's fingerprint; Home what it belonged to.
	Run     time.Time
	Service string
	Account string
	Home    Home
	// Vouched: a plan that saw the whole state, applied nothing and ended
	// as Terraform ends its providers started after it was given; had its
	// state held it, the journal would say so.
	Vouched bool
	// Presumed: its process ended as Terraform ends its providers, so its
	// state was handed over and may have been saved; until a plan vouches
	// for it, it is presumed held.
	Presumed bool
	// Process is the process it was given to. Kept, of a presumed one: a
	// state since held another subscription given to that process, so
	// that process's state was saved, and this one was taken out of it
	// since (state rm, a removed block, a deleted resource block).
	Process string
	Kept    bool
	// Sends and Found, of OriginFound: the creates the look was for, and
	// the subscriptions it found for them that no state holds and no one
	// dismissed.
	Sends, Found int
	// LostRun, of OriginLostRun: the lost run's start. Line, of
	// OriginDamaged: the damaged line.
	LostRun time.Time
	Line    int
	// Window, DateOffset and Answers, of OriginUnfound: the window the
	// look read by the service's clock, the Date header's offset then,
	// and what its process's answers showed of the clock of createdAt.
	Window     [2]time.Time
	DateOffset time.Duration
	Answers    ClockSpan

	index int
}

// Serves reports whether l may stand for a create asking for request.
func (l Leftover) Serves(request string) bool {
	return request != "" && (l.Request == request || l.Also == request)
}

// AtService reports whether l names a subscription the service may list:
// every leftover but a create a look found nothing for.
func (l Leftover) AtService() bool { return l.Origin != OriginUnfound }

// Status is what the service shows of a leftover.
type Status int

const (
	Unchecked Status = iota // not asked
	Fit                     // unused, and of the plan it was made for
	Used                    // activated: a device uses it
	OtherPlan               // of another plan than the journal says
	Gone                    // the service has no such subscription
)

// Run is what the decision reads of the run that decides: its clock,
// service and home, whether it sees its whole state, how many creates of
// the leftover's request it still has to serve, whether it is a plan
// (which vouches for itself: it sees the state it plans), and what the
// service showed of the leftover.
type Run struct {
	Now       time.Time
	Service   string
	Account   string
	Home      Home
	Limited   string // why this run cannot see its whole state; "" when it can
	Creates   int
	Plan      bool
	AtService Status
	// Seen: this run's state holds the leftover (a Read, a plan or an
	// import of it, or a create given it), by service and id.
	Seen bool
	// Beside are the services and accounts of the other provider
	// configurations of this run (Journal.Beside).
	Beside []Served
}

// Served is a service's base URL and an account (a token's fingerprint)
// that a provider configuration serves.
type Served struct {
	Service, Account string
}

// Reason is why a leftover is not taken.
type Reason int

const (
	Taken            Reason = iota // not a reason: the leftover is taken
	GoneAtService                  // not billed any more: nothing to name
	SeenInState                    // this run's state holds it: nothing to name
	PresumedHeld                   // presumed in state: nothing to name yet
	RemovedFromState               // taken out of a saved state on purpose: nothing to name
	ServedBeside                   // another configuration of this run names it
	DamagedLine
	NothingFound
	AnotherHome
	AnotherService
	AnotherAccount
	Stale
	MoreThanSent
	UsedAtService
	OtherPlanAtService
	LimitedRun
	NotVouched
	NoCreate
)

// Decision is what becomes of a leftover: taken for a create, or the
// reason not; named tells whether it is still to be named.
type Decision struct {
	Take   bool
	Reason Reason
}

// Named reports whether a leftover decided so is still billed and in no
// state: to be named until it is dealt with.
func (d Decision) Named() bool {
	return !d.Take && d.Reason != GoneAtService && d.Reason != SeenInState && d.Reason != PresumedHeld && d.Reason != RemovedFromState && d.Reason != ServedBeside
}

// Tuning holds every timing constant of the recovery: the rules' (decide.go,
// look.go), the journal's and the session's. TestRecoveryTuningIsPinned
// proves that doubling or halving each fails a row of the tests, or names
// it with the reason no test can pin it.
type Tuning struct {
	// StaleAfter is the age of a run past which what it left is never
	// taken, only named: by then it was likely dealt with by hand, and a
	// subscription taken by mistake is billed to the wrong configuration.
	StaleAfter time.Duration
	// ClockSlack widens a window by the service's clock (a look's, a lost
	// run's) on either side: createdAt and the Date header the clocks'
	// offset is read from each have whole seconds.
	ClockSlack time.Duration
	// AnswerWithin is how long after it was sent a create may still have
	// made its subscription when its record names no time limit.
	AnswerWithin time.Duration
	// SyncWithin bounds how long a record written stays off the disk
	// (writer.go): a sync per record cost 14% of a clean apply's CPU, one
	// for every SyncWithin of records nothing measurable.
	SyncWithin time.Duration
	// FinishingWithin is how recently an orphan (a provider whose
	// Terraform was killed, seeing the creates it had sent through) must
	// have written for Orphans to count it: each create's answer is
	// bounded by its request's time limit.
	FinishingWithin time.Duration
	// OrphanWait bounds how long a session waits for orphans to record
	// the answers of the creates they had sent; OrphanPoll is how often
	// it looks again.
	OrphanWait, OrphanPoll time.Duration
}

// DefaultTuning is the recovery's tuning.
var DefaultTuning = Tuning{
	StaleAfter:      7 * 24 * time.Hour,
	ClockSlack:      2 * time.Second,
	AnswerWithin:    30 * time.Second,
	SyncWithin:      200 * time.Millisecond,
	FinishingWithin: 10 * time.Minute,
	OrphanWait:      2 * time.Minute,
	OrphanPoll:      200 * time.Millisecond,
}

// rule is one rule of the decision: when it holds of a leftover and a
// run, the leftover is not taken, for its reason.
type rule struct {
	reason Reason
	holds  func(l Leftover, r Run, t Tuning) bool
}

// rules are the decision, in order: the first that holds gives the
// reason; when none does, the leftover is taken. Each is a row of
// decide_test.go.
var rules = []rule{
	// What the service no longer has is billed no more.
	{GoneAtService, func(_ Leftover, r Run, _ Tuning) bool { return r.AtService == Gone }},
	// This run's state holds it: neither a leftover to take nor one to
	// name.
	{SeenInState, func(_ Leftover, r Run, _ Tuning) bool { return r.Seen }},
	// What a process handed Terraform as it ended is in its state unless
	// a plan of the whole state, since or now, did not find it.
	{PresumedHeld, func(l Leftover, r Run, _ Tuning) bool {
		return l.Presumed && !l.Vouched && (!r.Plan || r.Limited != "")
	}},
	// What a process handed Terraform as it ended, when a state since
	// held another of its subscriptions: that state was saved, and a
	// person took this one out of it (it may be in another state now).
	// A state never saved holds none of them. Never taken back: an
	// import block takes it, where that is what the person wants.
	{RemovedFromState, func(l Leftover, _ Run, _ Tuning) bool { return l.Presumed && l.Kept }},
	// A damaged line's id may be anything: named, for a person to check.
	{DamagedLine, func(l Leftover, _ Run, _ Tuning) bool { return l.Origin == OriginDamaged }},
	// A create a look found nothing for: there is nothing to take, and
	// what it may have made is for a person to find.
	{NothingFound, func(l Leftover, _ Run, _ Tuning) bool { return l.Origin == OriginUnfound }},
	// Another workspace's, or another working directory's with another
	// (or an unknown) state: this state cannot vouch for it.
	{AnotherHome, func(l Leftover, r Run, _ Tuning) bool {
		return l.Home.Workspace != r.Home.Workspace || l.Home.Dir != r.Home.Dir && (l.Home.Backend == "" || l.Home.Backend != r.Home.Backend)
	}},
	// Of another service or account that another configuration of this
	// run serves: that configuration, which sees its own state, names it
	// or takes it.
	{ServedBeside, func(l Leftover, r Run, _ Tuning) bool {
		return (l.Service != r.Service || l.Account != r.Account) && slices.Contains(r.Beside, Served{l.Service, l.Account})
	}},
	{AnotherService, func(l Leftover, r Run, _ Tuning) bool { return l.Service != r.Service }},
	{AnotherAccount, func(l Leftover, r Run, _ Tuning) bool { return l.Account != r.Account }},
	{Stale, func(l Leftover, r Run, t Tuning) bool { return r.Now.Sub(l.Run) >= t.StaleAfter }},
	// More found than the creates it was looked for could have made: some
	// are another configuration's, and which cannot be told.
	{MoreThanSent, func(l Leftover, _ Run, _ Tuning) bool { return l.Origin == OriginFound && l.Found > l.Sends }},
	{UsedAtService, func(_ Leftover, r Run, _ Tuning) bool { return r.AtService == Used }},
	{OtherPlanAtService, func(_ Leftover, r Run, _ Tuning) bool { return r.AtService == OtherPlan }},
	// A run under -target sees part of its state: what it does not see
	// may be in the rest.
	{LimitedRun, func(_ Leftover, r Run, _ Tuning) bool { return r.Limited != "" }},
	{NotVouched, func(l Leftover, r Run, _ Tuning) bool { return !r.Plan && !l.Vouched }},
	{NoCreate, func(_ Leftover, r Run, _ Tuning) bool { return r.Creates <= 0 }},
}

// Decide is what becomes of leftover l in run r: taken for one of its
// creates, or the reason not.
func Decide(l Leftover, r Run, t Tuning) Decision {
	for _, rule := range rules {
		if rule.holds(l, r, t) {
			return Decision{Reason: rule.reason}
		}
	}
	return Decision{Take: true}
}
