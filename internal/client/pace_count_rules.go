package client

// The policy's count rules, 7 to 11 of pace_policy.go: how the quota
// fields' count sets the pace once the service sends them. The first sane
// reading chooses a bucket or a window (adopt); a bucket's count then sets
// and cuts the rate, and tells whether others spend it (shareBucket,
// watchOthers, cut, bucketLeft, slack); a window's is spent until its end
// (shareWindow, windowLeft, windowRefused); countDelay is what either
// makes the head of the queue wait. The model of the quota the readings
// build is pace_quota.go's; reading the fields, quota_fields.go's.

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// share takes the quota fields of an answer that was not a 429, or of a
// 429 that found nothing left (rules 7 to 11).
func (p *policy) share(now, sentAt time.Time, epoch int, q quotaReading) {
	adopted := p.byCount() || p.quotaCap > 0
	ended := p.windowEnded(now)
	shape := p.quota.shape()
	readBefore, leftBefore := p.quota.readAt, p.quota.remaining
	if !p.quota.take(q, now, sentAt, p.tune.wholeSecond) {
		return
	}
	if !adopted || p.quota.shape() != shape && p.byCount() {
		// The first reading, or one that shows the count's shape was not
		// what the readings before it suggested.
		p.adopt(now, q)
		adopted = false
	}
	switch p.mode {
	case modeByBucket:
		p.shareBucket(now, epoch, q)
	case modeByWindow:
		// A count that rose, for a request sent after the reading before,
		// is a window begun whose end the readings had not reached.
		p.shareWindow(q, ended || !adopted || sentAt.After(readBefore) && q.remaining > leftBefore+1)
	}
}

// adopt sets the mode from the first sane reading (rule 7).
func (p *policy) adopt(now time.Time, q quotaReading) {
	p.epoch, p.cutAt, p.growth = p.epoch+1, now, 1
	if p.quota.shape() == shapeWindow {
		p.mode = modeByWindow
		p.limiter = rate.NewLimiter(rate.Every(p.tune.probeInterval), 1)
		p.note("the service describes its quota, a window", map[string]any{
			"limit": q.limit, "window_s": p.quota.window.Seconds(), "remaining": q.remaining, "resets_in_ms": q.reset.Milliseconds(), "form": q.form,
		})
		return
	}
	perSecond := p.quota.perSecond()
	// The bucket holds a second's worth, at least one unit, as far as the
	// policy tells; what is left now says how busy it is: a process that
	// finds it nearly spent starts at a small share.
	p.capacity = max(1, int(math.Ceil(perSecond)), q.remaining+1)
	r := rate.Limit(perSecond * p.tune.underQuota * max(p.tune.shareFloor, float64(q.remaining+1)/float64(p.capacity)))
	p.limiter = rate.NewLimiter(r, 1)
	p.cutRate = r
	if p.capacity >= p.tune.minSharedBucket {
		p.mode = modeByBucket
	} else {
		// Rule 10.
		p.mode, p.quotaCap = modeByRefusals, rate.Limit(perSecond*p.tune.underQuota)
		p.limiter.ReserveN(now, 1) // the request answered spent the bucket
	}
	p.note("the service describes its quota, a bucket", map[string]any{
		"requests_per_second": perSecond, "limit": q.limit, "remaining": q.remaining, "form": q.form, "shared_by_count": p.mode == modeByBucket,
	})
}

// shareBucket follows a bucket's count (rules 8 and 9).
func (p *policy) shareBucket(now time.Time, epoch int, q quotaReading) {
	p.watchOthers(q, now)
	p.capacity = max(p.capacity, q.remaining+1)
	p.mirror, p.mirrorAt = float64(q.remaining-p.inFlight), now
	// The rate grows only while the count shows room (half the bucket
	// left): when it sits lower, every process on the account holds its
	// rate, however many there are.
	p.cutRate, p.cutAt = p.inUse(now), now
	perSecond := p.quota.perSecond()
	if p.crowded {
		// Every process sees the same count: a rate that is the same
		// function of it is the same in every process.
		u := float64(q.remaining+1) / float64(p.capacity)
		target := max(perSecond*p.tune.underQuota*p.tune.priceMax*u*u*u, perSecond*p.tune.shareFloor)
		x := float64(p.cutRate)
		x += p.tune.priceGain * (target - x)
		p.cutRate, p.growth = rate.Limit(x), 0
		return
	}
	room := float64(q.remaining)/float64(p.capacity) - p.tune.markFrac
	p.growth = min(1, max(0, room/(p.tune.growFrac-p.tune.markFrac)))
	if float64(q.remaining) < p.tune.markFrac*float64(p.capacity) && epoch == p.epoch {
		p.cut(now, "the account's quota is nearly spent")
	}
}

// othersWatch is a bucket's count over about a second, to tell whether
// others spend it too.
type othersWatch struct {
	at   time.Time
	left int
	own  int // this client's requests since at
	full bool
}

// watchOthers finds, from how a bucket's count moves over about a second,
// whether other clients spend the quota too: it fell by more than this
// client's own requests took, the refill counted. A second smooths out
// the answers that arrive in another order than their requests were
// counted in; a bucket found full lost refill, so such a second tells
// nothing.
func (p *policy) watchOthers(q quotaReading, now time.Time) {
	full := q.remaining+1 >= p.capacity
	w := &p.watch
	if w.at.IsZero() {
		*w = othersWatch{at: now, left: q.remaining, full: full}
		return
	}
	w.full = w.full || full
	span := now.Sub(w.at).Seconds()
	if span < 1 {
		return
	}
	others := float64(w.left-q.remaining) - float64(w.own) + p.quota.perSecond()*span
	if !w.full && others >= 1.5 {
		p.crowded, p.othersSeen = true, true
	}
	if !w.full && others < 0.5 {
		p.alone, p.crowded = true, false
	}
	if p.crowded {
		p.alone = false
	}
	*w = othersWatch{at: now, left: q.remaining, full: full}
}

// cut multiplies a bucket's rate in use by shareCut for each second since
// it was last set (a reading or a cut), at most cutSpan of them: a
// process sending slowly sees the count less often than a fast one, and
// must slow down as much.
func (p *policy) cut(now time.Time, why string) {
	quota := rate.Limit(p.quota.perSecond())
	seconds := min(p.tune.cutSpan, max(1, now.Sub(p.cutAt).Seconds()))
	r := max(p.inUse(now)*rate.Limit(math.Pow(p.tune.shareCut, seconds)), quota*rate.Limit(p.tune.shareFloor), p.tune.minRate)
	p.epoch, p.cutAt, p.cutRate = p.epoch+1, now, r
	p.note(why+"; slowing down", map[string]any{"requests_per_second": float64(r), "remaining": p.quota.remaining, "limit": p.quota.limit})
}

// bucketLeft is rule 9's reckoning at now: what the service said was
// left, refilled at the rate in use up to the quota's, at most the bucket.
func (p *policy) bucketLeft(now time.Time) float64 {
	refill := min(float64(p.inUse(now)), p.quota.perSecond())
	return min(p.mirror+refill*now.Sub(p.mirrorAt).Seconds(), float64(p.capacity))
}

// slack reports whether a process alone may send at once, whatever its
// rate: rule 9's bucket with more than slackFrac reckoned left. A
// window's slack is in its rate (windowRate).
func (p *policy) slack(now time.Time) bool {
	return p.mode == modeByBucket && p.alone && !p.crowded && p.bucketLeft(now) >= 1+float64(p.capacity)*p.tune.slackFrac
}

// countDelay is how long until the reckoning holds one unit: a bucket's
// refill, or a window's end; 0 when the count does not set the pace.
func (p *policy) countDelay(now time.Time) time.Duration {
	switch p.mode {
	case modeByBucket:
		left := p.bucketLeft(now)
		if left >= 1 {
			return 0
		}
		refill := min(float64(p.inUse(now)), p.quota.perSecond())
		return time.Duration(math.Ceil((1 - left) / refill * float64(time.Second)))
	case modeByWindow:
		if p.windowLeft(now) >= 1 {
			return 0
		}
		if d := p.quota.untilWhole(now); d > 0 {
			return d
		}
		// The end came and what was sent after it used the count; the
		// answers on their way will say what the new window holds.
		if p.inFlight > 0 {
			return p.tune.wholeSecond
		}
		return 0
	}
	return 0
}

// windowEnded reports whether the end the latest reading gave has come.
func (p *policy) windowEnded(now time.Time) bool {
	return p.mode == modeByWindow && !p.quota.resetAt.IsZero() && !now.Before(p.quota.resetAt)
}

// windowLeft is rule 11's reckoning at now: the least count the window's
// answers gave less this client's requests in flight, or, once the window
// has ended, its whole count less what was sent after the end.
//
// Requests sent together reach the service in any order, so an answer's
// count says nothing of which of this client's requests it had counted.
// The least count is the latest the service gave, and every request
// answered was counted by then (one counted later would have given a
// lower count); of the rest, those in flight, any may have been. So the
// least count less those in flight never holds more than the service
// does, and it rises to what the service holds as their answers come.
func (p *policy) windowLeft(now time.Time) float64 {
	if p.windowEnded(now) {
		return float64(p.quota.limit - p.sentAfterEnd - p.sentNearEnd)
	}
	return float64(p.windowLow - p.inFlight)
}

// windowWatch is a window's count since its first reading, to tell
// whether others spend it too.
type windowWatch struct {
	left   int  // the count at the window's first reading
	own    int  // this client's answers since
	others bool // the count fell by more than they took
}

// shareWindow follows a window's count (rule 11). Within a window, the
// count lost more than this client's own answers since its first reading
// when others spend it too, which the run's report says. begun says this
// reading is the window's first.
func (p *policy) shareWindow(q quotaReading, begun bool) {
	w := &p.windowWatch
	switch {
	case begun:
		*w = windowWatch{left: q.remaining}
	default:
		w.own++
		// This client's requests still in flight may have been counted
		// already, their answers on the way: they are not others'. A
		// tolerance of one more for one counted before the first reading.
		if (w.left-q.remaining)-w.own-p.inFlight >= 2 {
			w.others, p.othersSeen = true, true
		}
	}
	// The least count over the window is the reckoning's (windowLeft): an
	// answer that arrives late tells less, and so never raises it.
	if begun || q.remaining < p.windowLow {
		p.windowLow = q.remaining
	}
	p.sentAfterEnd, p.sentNearEnd = 0, 0
}

// windowRefused takes a 429 in a window: nothing is left until its end, as
// far as this client can tell; othersSpent says its reckoning held some.
func (p *policy) windowRefused(now time.Time, a answer, othersSpent bool) {
	if a.fields && !p.distrusted && !p.quota.take(a.quota, now, a.sentAt, p.tune.wholeSecond) {
		return // a late answer of a window already over
	}
	if p.quota.resetAt.Before(p.closedUntil) {
		p.quota.resetAt = p.closedUntil
	}
	if !p.quota.resetAt.After(now) {
		// Refused past the end it had, with no Retry-After or t to say
		// another: the window's length from now, not a new count at once.
		p.quota.resetAt = now.Add(p.quota.window)
	}
	p.windowLow, p.sentAfterEnd, p.sentNearEnd = 0, 0, 0
	if othersSpent {
		p.windowWatch.others, p.othersSeen = true, true
	}
}
