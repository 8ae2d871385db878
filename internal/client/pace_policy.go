package client

import (
	"time"

	"golang.org/x/time/rate"
)

// The service limits requests per token, shares that quota between every
// client of the account, and answers 429 with Retry-After to what goes
// over it; a 429 acts on nothing and costs no quota. Terraform runs up to
// -parallelism operations at once, each unaware of the others. So every
// request of a Client goes through one pace: a policy (this file and
// pace_count_rules.go), a queue that waits on it (pace_queue.go), and the
// round-tripper that feeds both (pacing.go). The policy follows these
// rules, each pinned by a row of pace_policy_test.go or
// pace_count_rules_test.go:
//
//  1. Before the service has said 429, requests are spaced probeInterval
//     apart and nothing else: a wall of parallel operations reaches the
//     service as a stream, so the first 429 finds few requests in flight.
//  2. A 429 closes the pace for every caller until its Retry-After has
//     passed, not only for the request that got it.
//  3. The first 429 only closes the pace: it may have come when another
//     client had just spent the quota, so what was accepted before it says
//     little. The probing goes on when the pace opens, and the second 429
//     sets a rate: what the service accepted in the second before it, at
//     least one, times backoffFactor. Every later 429 cuts the rate in use
//     by backoffFactor, once per cut: a 429 of a request sent before the
//     last cut is the same news and cuts nothing. No rate goes under
//     minRate.
//  4. While requests succeed the rate grows back by growthPerSecond of
//     itself each second, so the pace finds a quota that grew.
//  5. The tokens of a cut rate start empty and fill while the pace is
//     closed, so that the burst sent when it opens is what the service
//     refilled meanwhile, and at least one request.
//  6. A ceiling (Config.MaxRequestsPerSecond) spaces requests evenly, the
//     first one interval in, whatever else the policy says: it is applied
//     once, last, and every rule's "rate in use" is at most it. A request
//     refused used no quota, so after a 429 the ceiling spaces requests
//     from the moment the pace reopens, its first at once.
//
// A service may also say how much of its quota is left, on every answer
// (quota_fields.go, pace_quota.go): q units per w, r left, t until it is
// whole again. Every process on the account then sees the same count fall
// before anyone is refused. With the fields (pace_count_rules.go):
//
//  7. The first sane reading sets the mode by the shape the count shows:
//     a bucket that refills as it goes (rules 8 to 10), or a window whose
//     count comes back whole at its end (rule 11).
//  8. A bucket: the rate starts at the quota's (q/w, times underQuota, and
//     times the share of the bucket found left, at least shareFloor), and
//     grows by shareGrowth of the quota's rate each second while at least
//     half the bucket is left (growFrac; none at markFrac), up to
//     sharedMaxFactor times it. An answer that leaves under markFrac of
//     the bucket cuts it by shareCut; a 429 cuts it by shareCut for each
//     second since the rate was last set (by a reading or a cut), at most
//     cutSpan of them: a process sending slowly sees the count less
//     often, and must slow as much. Once the count shows others spending it
//     (over a second, it fell by more than this client's requests took),
//     every process moves its rate by priceGain of the way toward the same
//     function of the count: priceMax times the quota's rate times the
//     cube of the share of the bucket left: their rates meet.
//  9. A bucket's reckoning: the latest count, less this client's requests
//     in flight, refilled at the rate in use up to the quota's; no request
//     goes while it holds less than one. A process alone with more than
//     slackFrac of the bucket reckoned left sends at once: the burst is
//     its to spend.
//  10. A bucket of fewer than minSharedBucket units says nothing before
//     it is spent: the pace starts at the quota's rate, goes by refusals
//     from its first 429 on, and never above underQuota of the quota's
//     rate.
//  11. A window: what is left until its end is spent at once, and with
//     nothing reckoned left, nothing goes until the window's end, when the
//     count is whole. Processes sharing it do the same: spent, the count
//     holds everyone back until the end whatever they do, so a request
//     refused for a unit another spent costs no time, and spreading what
//     is left over the time left only made the runs slower (3 pipelines
//     of 40 in a window of 50 per 10 s, real CLI: 25.4 s spreading,
//     22.4 s spending, 21.5 s without the fields).
//  12. A 429 and its Retry-After win over any field. Fields that say at
//     least a quarter of the quota is left on a 429 are not believed
//     again; nor are fields that some answers carry and others do not (5xx
//     answers aside, which a gateway may write). The pace then goes on as
//     without them. A field it cannot read is ignored, never an error.
type tuning struct {
	probeInterval   time.Duration
	backoffFactor   float64
	growthPerSecond float64
	// minRate keeps a rate learned from a service that accepted nothing in
	// a second from stalling the pace.
	minRate rate.Limit
	// underQuota keeps a rate set from the quota's just under it: sending
	// at exactly the quota's rate meets its refill at the same instant,
	// where rounding refuses one request.
	underQuota      float64
	sharedMaxFactor float64
	shareGrowth     float64
	shareCut        float64
	cutSpan         float64
	markFrac        float64
	growFrac        float64
	slackFrac       float64
	priceMax        float64
	priceGain       float64
	shareFloor      float64
	minSharedBucket int
	// wholeSecond is the rounding of the fields' times: a whole-second t
	// can be up to a second longer than the time it stands for.
	wholeSecond time.Duration
}

// defaultTuning holds the constants the rules above name. Each decides a
// row of the policy's tests, and TestPaceTuningIsPinned proves that
// doubling or halving any of them fails one.
var defaultTuning = tuning{
	probeInterval:   time.Millisecond,
	backoffFactor:   0.9,
	growthPerSecond: 0.02,
	minRate:         0.05, // one request every 20 seconds
	underQuota:      0.99,
	sharedMaxFactor: 1.5,
	shareGrowth:     0.1,
	shareCut:        0.8,
	cutSpan:         4,
	markFrac:        0.25,
	growFrac:        0.5,
	slackFrac:       0.5,
	priceMax:        0.7,
	priceGain:       0.3,
	shareFloor:      1.0 / 64,
	minSharedBucket: 4,
	wholeSecond:     time.Second,
}

// paceMode is what sets the pace's rate.
type paceMode int

const (
	modeProbing     paceMode = iota // rule 1: nothing known
	modeRefusedOnce                 // rule 3: a first 429; the next sets a rate
	modeByRefusals                  // rules 3 to 5, and 10
	modeByBucket                    // rules 8 and 9
	modeByWindow                    // rule 11
)

// waitCause is why a request waits in the pace.
type waitCause int

const (
	causeNone       waitCause = iota
	causeProbe                // rule 1's spacing: not the service's limit
	causeCeiling              // the user's ceiling
	causeRetryAfter           // the service's Retry-After
	causeRefusals             // a rate learned from 429s
	causeCount                // the quota's count
)

// note is something the policy did that the log says, at debug level.
type note struct {
	msg    string
	fields map[string]any
}

// policy is the pace's rules as a value: observations in (each answer,
// its status, Retry-After and quota fields, and the time), a rate and a
// wait out. It neither sleeps nor sends; the caller holds a lock.
type policy struct {
	tune     tuning
	mode     paceMode
	ceiling  *rate.Limiter // nil: no ceiling
	limiter  *rate.Limiter // the mode's spacing, at rate(now)
	quotaCap rate.Limit    // rule 10: a small bucket's rate; 0: none

	epoch       int        // counts cuts
	cutAt       time.Time  // when the rate in use was set,
	cutRate     rate.Limit // to this
	closedUntil time.Time
	retryAfter  time.Duration // the Retry-After that set closedUntil
	accepted    []time.Time   // answers other than 429 in the last second, until a rate is set
	inFlight    int           // requests sent and not yet answered

	// The quota fields (pace_count_rules.go).
	withFields, withoutFields int
	distrusted                bool // rule 12
	quota                     quotaModel
	capacity                  int     // a bucket: the most units the fields said were left, plus one
	mirror                    float64 // a bucket: units reckoned left at the service at mirrorAt (rule 9)
	mirrorAt                  time.Time
	windowLow                 int     // a window: the least count its answers gave (windowLeft)
	sentAfterEnd              int     // a window: requests sent after the end the latest reading gave,
	sentNearEnd               int     // and in the second before it, which the next window may count
	growth                    float64 // a bucket: how fast the rate may grow, 0 to 1
	crowded, alone            bool    // the count showed others spending it, or no one else
	othersSeen                bool    // at least once in the run
	watch                     othersWatch
	windowWatch               windowWatch

	acceptedCount               int
	firstAccepted, lastAccepted time.Time
	notes                       []note
}

func newPolicy(ceiling float64, now time.Time) *policy {
	return newTunedPolicy(ceiling, now, defaultTuning)
}

func newTunedPolicy(ceiling float64, now time.Time, tune tuning) *policy {
	p := &policy{tune: tune}
	p.limiter = rate.NewLimiter(rate.Every(p.tune.probeInterval), 1)
	if ceiling > 0 {
		p.ceiling = rate.NewLimiter(rate.Limit(ceiling), 1)
		// Empty at the start: a pipeline runs one provider process after
		// another (the plan's, then the apply's), and this one cannot know
		// how recently the one before it sent. Starting as if it just had
		// keeps the pipeline under its ceiling across them, at the cost of
		// one interval before the first request.
		p.ceiling.ReserveN(now, 1)
	}
	return p
}

func (p *policy) note(msg string, fields map[string]any) {
	p.notes = append(p.notes, note{msg: "mobileplan API rate limit: " + msg, fields: fields})
}

// byCount reports whether the quota's count sets the pace.
func (p *policy) byCount() bool { return p.mode == modeByBucket || p.mode == modeByWindow }

// rate is the mode's rate at now, before the ceiling.
func (p *policy) rate(now time.Time) rate.Limit {
	since := now.Sub(p.cutAt).Seconds()
	switch p.mode {
	case modeByRefusals:
		grown := p.cutRate
		if since > 0 {
			grown *= rate.Limit(1 + p.tune.growthPerSecond*since)
		}
		if p.quotaCap > 0 {
			grown = min(grown, p.quotaCap)
		}
		return grown
	case modeByBucket:
		q := rate.Limit(p.quota.perSecond())
		return max(p.cutRate, min(p.cutRate+q*rate.Limit(p.tune.shareGrowth*p.growth*max(0, since)), q*rate.Limit(p.tune.sharedMaxFactor)))
	}
	r := rate.Every(p.tune.probeInterval)
	if p.quotaCap > 0 {
		r = min(r, p.quotaCap)
	}
	return r
}

// inUse is the rate in use at now: the mode's, at most the ceiling.
func (p *policy) inUse(now time.Time) rate.Limit {
	r := p.rate(now)
	if p.ceiling != nil {
		r = min(r, p.ceiling.Limit())
	}
	return r
}

// closedFor is how much longer a Retry-After keeps the pace closed.
func (p *policy) closedFor(now time.Time) time.Duration { return max(0, p.closedUntil.Sub(now)) }

// admission is the place in time a request was given: it waits delay, for
// cause, and then goes, or gives its place back (cancel). While a
// Retry-After closes the pace it holds no place: it waits for the pace to
// reopen (reopening), and then asks again.
type admission struct {
	delay        time.Duration
	cause        waitCause
	reservations []*rate.Reservation
	retryAfter   time.Duration // what the service asked, when reopening
}

// reopening reports whether the wait is for a Retry-After to pass, with
// no place held.
func (a admission) reopening() bool { return a.cause == causeRetryAfter }

func (a admission) cancel(now time.Time) {
	for _, r := range a.reservations {
		r.CancelAt(now)
	}
}

// reserve gives the request at the head of the queue its place at now:
// the mode's spacing, the quota's count, then the ceiling (rule 6).
func (p *policy) reserve(now time.Time) admission {
	p.limiter.SetLimitAt(now, p.rate(now))
	r := p.limiter.ReserveN(now, 1)
	a := admission{delay: r.DelayFrom(now), cause: causeProbe, reservations: []*rate.Reservation{r}}
	switch p.mode {
	case modeByRefusals:
		a.cause = causeRefusals
	case modeByBucket:
		a.cause = causeCount
	}
	if d := p.countDelay(now); d > a.delay {
		a.delay, a.cause = d, causeCount
	}
	if p.slack(now) {
		a.delay = 0
	}
	if p.ceiling != nil {
		// Reserved for when the request would go: a token taken now,
		// while it then waited for the count, would refill meanwhile and
		// let the next request follow at once.
		c := p.ceiling.ReserveN(now.Add(a.delay), 1)
		a.reservations = append(a.reservations, c)
		if d := c.DelayFrom(now); d > a.delay || d == a.delay && d > 0 && a.cause == causeProbe {
			a.delay, a.cause = d, causeCeiling
		}
	}
	if a.delay <= 0 {
		a.cause = causeNone
	}
	return a
}

// ticket is a request's place: the cut it went under.
type ticket struct{ epoch int }

// sent counts a request sent at now, and returns its ticket.
func (p *policy) sent(now time.Time) ticket {
	p.inFlight++
	p.watch.own++
	switch p.mode {
	case modeByBucket:
		p.mirror = p.bucketLeft(now) - 1
		p.mirrorAt = now
	case modeByWindow:
		switch {
		case p.windowEnded(now):
			p.sentAfterEnd++
		default:
			// The end is known to the second: one sent in the second
			// before it may reach the service after it.
			if !p.quota.resetAt.IsZero() && !now.Before(p.quota.resetAt.Add(-p.tune.wholeSecond)) {
				p.sentNearEnd++
			}
		}
	}
	return ticket{epoch: p.epoch}
}

// The queue's questions (pace_queue.go). The queue reads nothing of the
// policy but through these, and sent above.

// decide is what the head of the queue is to do at now: go, when the
// delay is 0; wait for the Retry-After that closes the pace, holding no
// place; or wait for the place reserve gives it.
func (p *policy) decide(now time.Time) admission {
	if wait := p.closedFor(now); wait > 0 {
		return admission{delay: wait, cause: causeRetryAfter, retryAfter: p.retryAfter}
	}
	return p.reserve(now)
}

// unanswered takes a request sent and never answered (a transport error,
// a timeout) off the requests in flight. The service may have counted it:
// a window's reckoning keeps it spent.
func (p *policy) unanswered() {
	p.inFlight = max(0, p.inFlight-1)
	if p.mode == modeByWindow {
		p.windowLow--
	}
}

// takeNotes returns what the policy did since it was last asked, for the
// log, and forgets it.
func (p *policy) takeNotes() []note {
	notes := p.notes
	p.notes = nil
	return notes
}

// heldBy is what holds requests back while no Retry-After closes the
// pace: the cause of a wait that ran into its deadline.
func (p *policy) heldBy() waitCause {
	cause := causeRefusals
	if p.mode == modeProbing || p.mode == modeRefusedOnce {
		cause = causeProbe
		if p.ceiling != nil {
			cause = causeCeiling
		}
	}
	if p.byCount() {
		cause = causeCount
	}
	return cause
}

// explain is the policy's figures of a wait a request cannot make at now:
// delay more for cause, beside every other cause that holds it. The queue
// adds its own (how long it waited, the requests ahead of it).
func (p *policy) explain(now time.Time, cause waitCause, delay time.Duration) RateLimitWaitError {
	var e RateLimitWaitError
	if closed := p.closedFor(now); closed > 0 {
		e.RetryAfter, e.Closed = p.retryAfter, closed
	}
	switch cause {
	case causeCount:
		e.Quota = p.describeQuota()
		if p.mode == modeByWindow && p.windowLeft(now) < 1 {
			e.QuotaSpent = p.quota.untilWhole(now)
		} else {
			e.Queued, e.Rate = delay, float64(p.inUse(now))
		}
	case causeRefusals, causeCeiling, causeProbe:
		e.Queued, e.Rate = delay, float64(p.inUse(now))
		e.Ceiling = p.ceiling != nil && (cause == causeCeiling || p.inUse(now) >= p.ceiling.Limit())
	}
	return e
}

func (p *policy) describeQuota() string {
	if p.quota.limit == 0 {
		return ""
	}
	return QuotaShare{Limit: p.quota.limit, Window: p.quota.window}.Describe()
}

// quotaShare is the quota as the fields described it and this client's
// part of it, for the run's report; nil when no field was read.
func (p *policy) quotaShare() *QuotaShare {
	if p.quota.limit == 0 {
		return nil
	}
	share := &QuotaShare{
		Limit: p.quota.limit, Window: p.quota.window, PerSecond: p.quota.perSecond(), Form: p.quota.form,
		FixedWindow: p.quota.shape() == shapeWindow, Others: p.othersSeen,
	}
	share.Accepted, share.Over = p.acceptedCount, p.lastAccepted.Sub(p.firstAccepted)
	if span := share.Over.Seconds(); span > 0 {
		share.Used = float64(p.acceptedCount-1) / span
	}
	return share
}
