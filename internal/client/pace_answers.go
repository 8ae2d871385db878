package client

import (
	"math"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

// How the policy takes the service's answers: an accepted one, and its
// quota fields (pace_count_rules.go); a 429 (rules 2, 3, 5, 6, 10 to 12);
// and fields it stops believing (rule 12).

// answer is what the service said to a request sent under cut epoch.
type answer struct {
	epoch      int
	sentAt     time.Time
	status     int
	retryAfter time.Duration
	quota      quotaReading
	fields     bool // the answer carried quota fields that could be read
}

// observe takes the service's answer, received at now, and reports
// whether what the head of the queue waits for changed.
func (p *policy) observe(now time.Time, a answer) (changed bool) {
	epoch, mode := p.epoch, p.mode
	// A window's reckoning held nothing: the head waits for its end.
	heldByWindow := p.mode == modeByWindow && p.windowLeft(now) < 1
	p.inFlight = max(0, p.inFlight-1)
	if a.status != http.StatusTooManyRequests {
		p.observeAccepted(now, a)
	} else {
		p.observeRefused(now, a)
	}
	switch {
	case a.status == http.StatusTooManyRequests, p.mode != mode && (p.mode == modeProbing || mode == modeByWindow):
		// Refused, the fields no longer believed, or a window (whose end
		// the head may be waiting for) found to be something else.
		return true
	case p.epoch != epoch && p.mode == mode:
		// A cut. (The fields' first reading sets a rate the head's place
		// already fits.)
		return true
	case heldByWindow && p.mode == modeByWindow && p.windowLeft(now) >= 1:
		// The answer of a request in flight showed it had been counted:
		// a unit the reckoning held back is there after all.
		return true
	}
	return false
}

func (p *policy) observeAccepted(now time.Time, a answer) {
	if p.acceptedCount++; p.acceptedCount == 1 {
		p.firstAccepted = now
	}
	p.lastAccepted = now
	if p.mode == modeProbing || p.mode == modeRefusedOnce {
		p.accepted = append(dropBefore(p.accepted, now.Add(-time.Second)), now)
	}
	switch {
	case p.distrusted || a.status >= http.StatusInternalServerError:
	case a.fields && p.withoutFields > 0, !a.fields && p.withFields > 0:
		// A service that leaves the fields out of some answers (only
		// near exhaustion, or now and then) gives a count the pace
		// cannot follow: it goes on by refusals, as without them.
		p.distrust(now, fieldsComeAndGo)
	case a.fields:
		p.withFields++
		p.share(now, a.sentAt, a.epoch, a.quota)
	default:
		p.withoutFields++
	}
}

func (p *policy) observeRefused(now time.Time, a answer) {
	// Refused where a window's reckoning held a unit for this request (not
	// past an end it expected, and not before the fields were read):
	// others spent it. The request is off the requests in flight already,
	// so the reckoning held it one more.
	othersSpent := p.mode == modeByWindow && !p.windowEnded(now) && p.windowLeft(now) >= 1
	if a.fields && !p.distrusted && p.withoutFields > 0 {
		p.distrust(now, fieldsComeAndGo)
	}
	adopted := p.byCount() || p.quotaCap > 0
	if a.fields && !adopted && !p.distrusted && a.quota.remaining == 0 {
		p.share(now, a.sentAt, a.epoch, a.quota)
	}
	if p.quotaCap > 0 && p.mode == modeByRefusals && a.epoch == p.epoch {
		// A bucket too small to share by its count, refused (rule 10):
		// from here the pace finds its rate by refusals, under the
		// quota's rate, as it would have without the fields.
		p.mode, p.accepted = modeProbing, nil
		p.limiter = rate.NewLimiter(p.quotaCap, 1)
	}
	if a.fields && p.byCount() && a.quota.remaining*4 >= a.quota.limit && a.quota.remaining > 0 {
		p.fallBack(now, "the service answered 429 while its quota fields said much was left")
	}
	// Without Retry-After the pace stays open: the cut rate's empty bucket
	// spaces what follows.
	if until := now.Add(a.retryAfter); until.After(p.closedUntil) {
		p.closedUntil, p.retryAfter = until, a.retryAfter
	}
	if p.mode == modeByWindow {
		p.windowRefused(now, a, othersSpent)
		return
	}
	if a.epoch != p.epoch {
		return
	}
	if p.ceiling != nil {
		// The refused request used no quota: the ceiling's spacing starts
		// again when the pace reopens, whose first request goes at once.
		p.ceiling = rate.NewLimiter(p.ceiling.Limit(), 1)
	}
	switch p.mode {
	case modeProbing:
		p.mode, p.accepted, p.epoch, p.cutAt = modeRefusedOnce, nil, p.epoch+1, now
		p.note("the service answered 429; pausing, then measuring its rate", map[string]any{
			"retry_after_ms": a.retryAfter.Milliseconds(), "closed_until": p.closedUntil.Format(time.RFC3339Nano),
		})
		return
	case modeByBucket:
		p.mirror, p.mirrorAt = 0, now
		p.cut(now, "the service answered 429")
		return
	}
	var base rate.Limit
	if p.mode == modeByRefusals {
		base = p.inUse(now)
	} else {
		// A first 429 with nothing accepted before it (another client
		// spent the quota) says nothing of the rate: start from one a
		// second and grow from there.
		base = max(rate.Limit(len(dropBefore(p.accepted, now.Add(-time.Second)))), 1)
		p.accepted = nil
	}
	r := max(base*rate.Limit(p.tune.backoffFactor), p.tune.minRate)
	burst := int(math.Ceil(float64(r)))
	p.limiter = rate.NewLimiter(r, burst)
	// Empty now and filling while closed; but the first request when it
	// opens goes at once, as Retry-After is when one may succeed.
	drain := burst
	if float64(r)*p.closedUntil.Sub(now).Seconds() < 1 {
		drain--
	}
	p.limiter.ReserveN(now, drain)
	p.mode, p.epoch, p.cutAt, p.cutRate = modeByRefusals, p.epoch+1, now, r
	p.note("the service answered 429; slowing down", map[string]any{
		"requests_per_second": float64(r), "retry_after_ms": a.retryAfter.Milliseconds(), "closed_until": p.closedUntil.Format(time.RFC3339Nano),
	})
}

// fieldsComeAndGo is why the pace stops believing fields that some
// answers carry and others do not.
const fieldsComeAndGo = "the service sends its quota fields on some answers and not others"

// distrust stops believing the quota fields, as fallBack does, or, when
// they have not yet set the rate, only marks them: the pace is then as it
// would have been without them (rule 12).
func (p *policy) distrust(now time.Time, why string) {
	if p.byCount() || p.quotaCap > 0 {
		p.fallBack(now, why)
		return
	}
	p.distrusted = true
	p.note(why+"; ignoring the quota fields from now on", map[string]any{"limit": p.quota.limit, "form": p.quota.form})
}

// fallBack stops believing the quota fields: from here the pace finds the
// rate by refusals alone, as it would have without them.
func (p *policy) fallBack(_ time.Time, why string) {
	p.distrusted, p.quotaCap, p.crowded, p.alone = true, 0, false, false
	p.mode, p.accepted = modeProbing, nil
	p.limiter = rate.NewLimiter(rate.Every(p.tune.probeInterval), 1)
	p.note(why+"; ignoring the quota fields from now on", map[string]any{"limit": p.quota.limit, "form": p.quota.form})
}

func dropBefore(times []time.Time, cutoff time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(cutoff) {
		i++
	}
	return times[i:]
}
