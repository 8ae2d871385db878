package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"golang.org/x/time/rate"
)

// The service limits requests per second per token, shares that quota
// between every client of the account, and answers 429 with Retry-After to
// what goes over it; a 429 acts on nothing and costs no quota. Terraform
// runs up to -parallelism operations at once, each unaware of the others.
// So every request of a Client goes through one pace, which follows these
// rules (pace_test.go proves each):
//
//  1. Before the service has said 429, requests are spaced probeInterval
//     apart and nothing else: a wall of parallel operations reaches the
//     service as a stream, so the first 429 finds few requests in flight.
//  2. A 429 closes the pace for every caller until its Retry-After has
//     passed, not only for the request that got it.
//  3. The first 429 only closes the pace: it may have come when another
//     client (the plan's own provider process, a second pipeline) had just
//     spent the quota, so what was accepted before it says little. The
//     probing goes on when the pace opens, on a quota refilled meanwhile,
//     and the second 429 sets a rate: what the service accepted in the
//     second before it, times backoffFactor. Every later 429 cuts the rate in use
//     by backoffFactor, once per cut: a 429 of a request sent before the
//     last cut is the same news and cuts nothing.
//  4. While requests succeed the rate grows back by growthPerSecond of
//     itself each second, so the pace finds a quota that grew, and a
//     steady stream of 429s cannot happen.
//  5. The tokens of a cut rate start empty and fill while the pace is
//     closed, so that the burst sent when it opens is what the service
//     refilled meanwhile, and at least one request.
//  6. A ceiling (Config.MaxRequestsPerSecond) is a rate from the start,
//     spaced evenly, the first request included, and the rate never grows
//     above it. A request refused used no quota, so after a 429 the
//     ceiling spaces requests from the moment the pace reopens, its first
//     at once: pipelines whose ceilings met in one instant part there,
//     rather than meeting again one interval later.
//  7. A request answered 429 is sent again once the pace lets it, for any
//     method (the service did not act on it), until its deadline: the
//     context's, or MaxRateLimitWait after it started. A wait that would
//     end past the deadline is not begun: the request ends at once with
//     the service's 429 (or a *RateLimitWaitError), saying how long the
//     service asked to wait and how long this client's own queue would
//     have held it.
//  8. Waiting requests form one queue, first come first served, and only
//     the one at its head holds a place in time: it is spaced from what
//     the pace knows now (its rate, its tokens, when it reopens), and a
//     429, a cut or a reopening wakes it to look again. So nothing a
//     request was told when it joined outlives a change: a request
//     refused and sent again does not wait behind places the others took
//     before the refusal, and a rate that grew reaches the next request.
//  9. Once stopped (Client.Stop), the pace admits nothing more: every
//     request waiting in it, and every later one, ends with ErrStopped.
//
// A service may also say how much of the quota is left, on every answer
// (quota_fields.go). Every process on the account then sees the same count
// fall before anyone is refused, the early, shared signal that lets
// independent processes converge to equal shares (additive growth, a
// multiplicative cut), which a refusal, given to one process at a time,
// is not. With the fields:
//
//  10. The first sane reading sets the rate to the quota's (q/w), at most
//     the ceiling: a process alone on the account never has to find the
//     limit by being refused.
//  11. The rate grows by shareGrowth of the quota's rate each second, the
//     same for every process, up to sharedMaxFactor times it; an answer
//     whose remaining count is under a quarter of the largest seen cuts
//     it by shareCut, once per cut as in rule 3. Once the count shows
//     others spending it (watchOthers), every process moves its rate
//     instead toward the same function of the count, priceMax times the
//     quota's rate times the cube of the share of the bucket left: every
//     process sees the same count, so their rates meet.
//  12. The pace also keeps a reckoning of what is left at the service: the
//     latest remaining count, less its own requests in flight, refilled
//     at the quota's rate; no request is sent while it holds less than
//     one, so that the bucket's burst is spent, and never overdrawn.
//  13. A 429 and its Retry-After win over any field, and cut as in rule 11.
//     Fields that say much is left on a 429 are not believed again; the
//     pace goes on as without them. Nor are fields that some answers carry
//     and others do not (5xx answers aside, which a gateway may write):
//     sent only near exhaustion, or now and then, they say most when the
//     pace has already overshot. A field it cannot read is ignored (logged
//     once at debug level), never an error.
const (
	probeInterval   = time.Millisecond
	backoffFactor   = 0.9
	growthPerSecond = 0.02
	// minRate keeps a rate learned from a service that accepted nothing in
	// a second from stalling the pace: one request every 20 seconds.
	minRate = rate.Limit(0.05)
	// shareGrowth, shareCut, sharedMaxFactor and shareFloor are rule 11's:
	// growth per second in units of the quota's rate, the cut, the most
	// one process may send in units of it, and the least.
	sharedMaxFactor = 1.5
	underQuota      = 0.99
	shareGrowth     = 0.1
	shareCut        = 0.8
	cutSpan         = 4.0
	markFrac        = 0.25
	growFrac        = 0.5
	slackFrac       = 0.5
	priceMax        = 0.7
	priceGain       = 0.3
	shareFloor      = 1.0 / 64
	// longWait is how long requests may wait for the service's quota
	// before the log says so at info level, and then how often it says so
	// again: a plan or apply that seems to hang says why without TF_LOG=debug.
	longWait = 10 * time.Second
)

// DefaultMaxRateLimitWait is how long one request may wait out the service's
// rate limit when its context has no deadline.
const DefaultMaxRateLimitWait = 10 * time.Minute

// ErrStopped is the error of a request the client was stopped before
// sending (Client.Stop): the service received nothing of it.
var ErrStopped = errors.New("the client was stopped before sending it")

// RateLimitWaitError is a request that was not sent because its wait in
// the pace would end after the request's deadline. The wait has up to two
// causes, each with its own figures: the service's Retry-After, which
// keeps the pace closed, and this client's own queue, the requests ahead
// of it spaced at the pace's rate.
type RateLimitWaitError struct {
	// RetryAfter is what the service's last 429 asked for, when the pace
	// is still closed for it; 0 when it is not.
	RetryAfter time.Duration
	// Closed is how much longer the pace stays closed for it.
	Closed time.Duration
	// Queued is how much longer this client's own spacing would have held
	// the request: the requests ahead of it (Ahead), or its turn at Rate.
	Queued time.Duration
	// Ahead counts the requests still ahead of this one in the queue.
	Ahead int
	// Rate is the rate requests were spaced at, in requests per second,
	// and Ceiling whether it is Config.MaxRequestsPerSecond rather than a
	// rate learned from the service's 429s.
	Rate    float64
	Ceiling bool
	// Waited is how long the request had waited already.
	Waited time.Duration
	// Left is the time that was left until the request's deadline.
	Left time.Duration
}

func (e *RateLimitWaitError) Error() string {
	var b strings.Builder
	if e.Closed > 0 {
		fmt.Fprintf(&b, "the service answered 429 and asked to wait %s (Retry-After), which keeps every request back for %s more; ",
			FormatWait(e.RetryAfter), FormatWait(e.Closed))
	}
	spacing := "the rate learned from the service's 429s"
	if e.Ceiling {
		spacing = "the configured ceiling"
	}
	switch {
	case e.Ahead > 0:
		fmt.Fprintf(&b, "%d of this client's own requests were still ahead of it in its queue, spaced at %s per second (%s); ",
			e.Ahead, formatRate(e.Rate), spacing)
	case e.Queued > 0:
		fmt.Fprintf(&b, "this client's own spacing at %s per second (%s) would hold it %s more; ", formatRate(e.Rate), spacing, FormatWait(e.Queued))
	}
	if e.Left > 0 {
		fmt.Fprintf(&b, "its deadline was %s away, too soon (it had waited %s)", FormatWait(e.Left), FormatWait(e.Waited))
	} else {
		fmt.Fprintf(&b, "its deadline came after it had waited %s", FormatWait(e.Waited))
	}
	return b.String()
}

// FormatWait writes a wait as a person reads it, never rounded to
// nothing: 350ms, 1.5s, 12s, 2m30s.
func FormatWait(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return max(d.Round(time.Millisecond), time.Millisecond).String()
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func formatRate(r float64) string { return strconv.FormatFloat(r, 'g', 3, 64) }

// pace is the one admission control every request of a Client passes.
type pace struct {
	ceiling rate.Limit // 0: none
	turn    chan struct{}
	stopped chan struct{}
	stop    sync.Once

	mu          sync.Mutex
	changed     chan struct{} // closed when a 429 changes what the head waits for
	limiter     *rate.Limiter
	learned     bool       // a 429 has set the rate
	reprobed    bool       // a first 429 has come; the next sets the rate
	epoch       int        // counts cuts
	cutAt       time.Time  // when the rate in use was set
	cutRate     rate.Limit // the rate set then
	closedUntil time.Time
	retryAfter  time.Duration // the Retry-After that set closedUntil
	accepted    []time.Time   // answers other than 429 in the last second, until the first cut
	queued      int           // requests waiting for their turn, the head excluded
	inFlight    int           // requests admitted and not yet answered

	// The answers other than 429, for the quota's share (RateLimitSlowdown).
	acceptedCount               int
	firstAccepted, lastAccepted time.Time

	// With the service's quota fields (quota_fields.go, rules 10 to 13).
	adopted       bool      // a sane reading has set the rate (rule 10)
	fellBack      bool      // too small a bucket, refused: the pace goes by refusals
	crowded       bool      // the count showed others spending the quota
	othersSeen    bool      // and did so at least once in the run
	withFields    int       // answers (not 5xx) that carried the fields,
	withoutFields int       // and that did not
	alone         bool      // a second of the count showed no one else
	windowAt      time.Time // watchOthers' second: its start, the count then,
	windowLeft    int       // this client's requests since, and whether the
	windowOwn     int       // bucket was found full in it
	windowFull    bool
	shared        bool         // the pace shares the quota by the fields
	quota         quotaReading // the latest sane reading
	capacity      int          // the most units the fields said were left, plus one
	mirror        float64      // units this client reckons are left at the service, at mirrorAt
	mirrorAt      time.Time
	growth        float64 // how fast the rate grows, 0 to 1, by the room the latest reading left (rule 11)
	distrusted    bool    // the fields said the quota was far from spent on a 429
	fieldsLogged  bool    // a field that could not be used was logged

	// What the service's limit has cost so far: the time during which a
	// request was held back by it (not by the ceiling alone), the part of
	// it the pace was closed for a Retry-After, how many requests it
	// refused, and how many gave up waiting at their deadline.
	holding    bool
	holdSince  time.Time
	holdClosed bool
	held       time.Duration
	heldClosed time.Duration
	refused    int
	gaveUp     int
	lastInfo   time.Time
}

// RateLimitSlowdown is what the service's rate limit has cost a client so
// far.
type RateLimitSlowdown struct {
	// Held is the time during which a request waited for the service's
	// quota: for its Retry-After, or for the rate learned from its 429s.
	Held time.Duration
	// HeldForRetryAfter is the part of Held the pace was closed for a
	// Retry-After; the rest is this client's own spacing at the rate it
	// learned.
	HeldForRetryAfter time.Duration
	// Refused counts the requests answered 429, each sent again.
	Refused int
	// GaveUp counts the requests that were not sent, or whose last answer
	// was a 429, because their deadline came while they waited in the pace.
	GaveUp int
	// Quota is what the service's quota fields said, when it sent any.
	Quota *QuotaShare
}

// QuotaShare is the account's quota as the service describes it, and this
// client's part of it.
type QuotaShare struct {
	// PerSecond is the quota's rate; Form names the fields that said so.
	PerSecond float64
	Form      string
	// Used is the rate this client's requests were accepted at, from its
	// first answer to its last.
	Used float64
	// Others is set when the remaining count fell faster than this
	// client's own requests spent it: other clients shared the quota.
	Others bool
}

func (p *pace) slowdown() RateLimitSlowdown {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := RateLimitSlowdown{Held: p.held, HeldForRetryAfter: p.heldClosed, Refused: p.refused, GaveUp: p.gaveUp}
	if p.quota.limit > 0 {
		share := &QuotaShare{PerSecond: p.quota.perSecond, Form: p.quota.form, Others: p.othersSeen}
		if span := p.lastAccepted.Sub(p.firstAccepted).Seconds(); span > 0 {
			share.Used = float64(p.acceptedCount-1) / span
		}
		s.Quota = share
	}
	if p.holding {
		d := time.Since(p.holdSince)
		s.Held += d
		if p.holdClosed {
			s.HeldForRetryAfter += d
		}
	}
	return s
}

func newPace(ceiling float64) *pace {
	p := &pace{
		limiter: rate.NewLimiter(rate.Every(probeInterval), 1),
		turn:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		changed: make(chan struct{}),
	}
	if ceiling > 0 {
		p.ceiling = rate.Limit(ceiling)
		p.limiter = rate.NewLimiter(p.ceiling, 1)
		// Empty at the start: a pipeline runs one provider process after
		// another (the plan's, then the apply's), and this one cannot know
		// how recently the one before it sent. Starting as if it just had
		// keeps the pipeline under its ceiling across them, at the cost of
		// one interval before the first request.
		p.limiter.ReserveN(time.Now(), 1)
	}
	return p
}

// halt stops the pace for good (rule 9).
func (p *pace) halt() { p.stop.Do(func() { close(p.stopped) }) }

// rateAt is the rate in use at now: the cut rate grown since the cut, at
// most the ceiling.
func (p *pace) rateAt(now time.Time) rate.Limit {
	if !p.learned {
		return p.limiter.Limit()
	}
	grown := p.cutRate
	since := now.Sub(p.cutAt).Seconds()
	switch {
	case p.shared:
		quota := rate.Limit(p.quota.perSecond)
		grown = max(p.cutRate, min(p.cutRate+quota*rate.Limit(shareGrowth*p.growth*max(0, since)), quota*sharedMaxFactor))
	case since > 0:
		grown = p.cutRate * rate.Limit(1+growthPerSecond*since)
		if p.adopted {
			// Sending at exactly the quota's rate meets its refill at
			// the same instant, where rounding refuses one request.
			grown = min(grown, rate.Limit(p.quota.perSecond*underQuota))
		}
	}
	if p.ceiling > 0 && grown > p.ceiling {
		grown = p.ceiling
	}
	return grown
}

// admit returns when a request may be sent, with the cut it is sent
// under; or an error when ctx ends, the pace stops, or the wait would pass
// deadline.
func (p *pace) admit(ctx context.Context, deadline time.Time) (int, error) {
	start := time.Now()
	if err := p.awaitTurn(ctx, start, deadline); err != nil {
		return 0, err
	}
	defer func() { <-p.turn }()
	for {
		select {
		case <-p.stopped:
			return 0, ErrStopped
		default:
		}
		p.mu.Lock()
		now := time.Now()
		if wait := p.closedUntil.Sub(now); wait > 0 {
			if now.Add(wait).After(deadline) {
				err := &RateLimitWaitError{RetryAfter: p.retryAfter, Closed: wait, Waited: now.Sub(start), Left: deadline.Sub(now)}
				p.gaveUp++
				p.mu.Unlock()
				return 0, err
			}
			changed := p.changed
			p.mu.Unlock()
			tflog.Debug(ctx, "mobileplan API rate limit: waiting for the service's Retry-After", map[string]any{"wait_ms": wait.Milliseconds()})
			if err := p.hold(ctx, wait, changed, true); err != nil && !errors.Is(err, errChanged) {
				return 0, p.ended(err, start, deadline)
			}
			continue
		}
		if p.learned {
			p.limiter.SetLimitAt(now, p.rateAt(now))
		}
		reservation := p.limiter.ReserveN(now, 1)
		delay := max(reservation.DelayFrom(now), p.mirrorDelay(now))
		if p.slack(now) {
			delay = 0
		}
		if delay <= 0 {
			epoch := p.epoch
			p.sent(now)
			p.mu.Unlock()
			return epoch, nil
		}
		limit, learned := p.limiter.Limit(), p.learned
		if now.Add(delay).After(deadline) {
			reservation.CancelAt(now)
			err := &RateLimitWaitError{Queued: delay, Rate: float64(limit), Ceiling: !learned, Waited: now.Sub(start), Left: deadline.Sub(now)}
			p.gaveUp++
			p.mu.Unlock()
			return 0, err
		}
		changed := p.changed
		p.mu.Unlock()
		if learned || p.ceiling > 0 {
			tflog.Trace(ctx, "mobileplan API rate limit: pacing", map[string]any{"wait_ms": delay.Milliseconds(), "requests_per_second": float64(limit)})
		}
		var err error
		if learned {
			err = p.hold(ctx, delay, changed, false)
		} else {
			err = sleep(ctx, delay, changed, p.stopped)
		}
		if err == nil {
			// Its place came: it goes, on the reservation it slept for.
			p.mu.Lock()
			epoch := p.epoch
			p.sent(time.Now())
			p.mu.Unlock()
			return epoch, nil
		}
		reservation.Cancel()
		if !errors.Is(err, errChanged) {
			return 0, p.ended(err, start, deadline)
		}
	}
}

// awaitTurn waits until the request is at the head of the queue (rule 8).
func (p *pace) awaitTurn(ctx context.Context, start, deadline time.Time) error {
	select {
	case p.turn <- struct{}{}:
		return nil
	default:
	}
	p.mu.Lock()
	p.queued++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.queued--
		p.mu.Unlock()
	}()
	timer := time.NewTimer(deadline.Sub(start))
	defer timer.Stop()
	select {
	case p.turn <- struct{}{}:
		return nil
	case <-p.stopped:
		return ErrStopped
	case <-ctx.Done():
		return p.ended(ctx.Err(), start, deadline)
	case <-timer.C:
		return p.ended(context.DeadlineExceeded, start, deadline)
	}
}

// ended is the error of a request whose wait in the pace ended without
// its being sent: a deadline reached while it waited is the pace's
// RateLimitWaitError, with the queue it was still behind.
func (p *pace) ended(err error, start, deadline time.Time) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		if errors.Is(err, errStopped) {
			return ErrStopped
		}
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.gaveUp++
	e := &RateLimitWaitError{Ahead: p.queued, Rate: float64(p.rateAt(now)), Ceiling: !p.learned, Waited: now.Sub(start), Left: max(0, deadline.Sub(now))}
	if closed := p.closedUntil.Sub(now); closed > 0 {
		e.RetryAfter, e.Closed = p.retryAfter, closed
	}
	return e
}

var (
	errChanged = errors.New("the pace changed")
	errStopped = errors.New("the pace stopped")
)

// hold sleeps d for a request held back by the service's limit, counting
// the time toward the slowdown, and saying so at info level once the
// requests have waited long.
func (p *pace) hold(ctx context.Context, d time.Duration, changed chan struct{}, closed bool) error {
	p.mu.Lock()
	now := time.Now()
	p.holding, p.holdSince, p.holdClosed = true, now, closed
	if p.held >= longWait && now.Sub(p.lastInfo) >= longWait {
		p.lastInfo = now
		fields := map[string]any{
			"waited_total_ms": p.held.Milliseconds(), "refused_total": p.refused, "requests_queued": p.queued + 1, "wait_ms": d.Milliseconds(),
		}
		cause := "this client's own queue, spaced at the rate learned from the service's 429s"
		if closed {
			cause, fields["retry_after_ms"] = "the service's Retry-After", p.retryAfter.Milliseconds()
		}
		tflog.Info(ctx, "mobileplan API rate limit: requests are waiting for the account's quota ("+cause+")", fields)
	}
	p.mu.Unlock()
	err := sleep(ctx, d, changed, p.stopped)
	p.mu.Lock()
	spent := time.Since(p.holdSince)
	p.held += spent
	if p.holdClosed {
		p.heldClosed += spent
	}
	p.holding = false
	p.mu.Unlock()
	return err
}

// sent counts a request admitted now. The caller holds p.mu.
func (p *pace) sent(now time.Time) {
	p.inFlight++
	p.windowOwn++
	if p.shared {
		p.mirror = p.mirrorAtTime(now) - 1
		p.mirrorAt = now
	}
}

// mirrorAtTime is rule 12's reckoning of the units left at now: what the
// service said was left, refilled at this client's share of the quota's
// rate. The caller holds p.mu.
func (p *pace) mirrorAtTime(now time.Time) float64 {
	refill := min(float64(p.rateAt(now)), p.quota.perSecond)
	return min(p.mirror+refill*now.Sub(p.mirrorAt).Seconds(), float64(p.capacity))
}

// slack reports whether the reckoning holds more than half the bucket: a
// request may then go at once, whatever the rate, spending the burst.
// The caller holds p.mu.
func (p *pace) slack(now time.Time) bool {
	return p.shared && p.alone && !p.crowded && p.mirrorAtTime(now) >= 1+float64(p.capacity)*slackFrac
}

// mirrorDelay is how long until the reckoning holds one unit; 0 without
// the fields. The caller holds p.mu.
func (p *pace) mirrorDelay(now time.Time) time.Duration {
	if !p.shared {
		return 0
	}
	left := p.mirrorAtTime(now)
	if left >= 1 {
		return 0
	}
	refill := min(float64(p.rateAt(now)), p.quota.perSecond)
	return time.Duration(math.Ceil((1 - left) / refill * float64(time.Second)))
}

// observe takes the service's answer to a request sent under cut epoch,
// with the quota fields it carried (ok false: none).
func (p *pace) observe(ctx context.Context, epoch int, status int, retryAfter time.Duration, quota quotaReading, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.inFlight = max(0, p.inFlight-1)

	if status != http.StatusTooManyRequests {
		if p.acceptedCount++; p.acceptedCount == 1 {
			p.firstAccepted = now
		}
		p.lastAccepted = now
		if !p.learned {
			p.accepted = append(dropBefore(p.accepted, now.Add(-time.Second)), now)
		}
		switch {
		case p.distrusted || status >= http.StatusInternalServerError:
		case ok && p.withoutFields > 0, !ok && p.withFields > 0:
			// A service that leaves the fields out of some answers (only
			// near exhaustion, or now and then) gives a count the pace
			// cannot follow: it goes on by refusals, as without them.
			p.distrust(ctx, fieldsComeAndGo)
		case ok:
			p.withFields++
			p.share(ctx, epoch, quota, now)
		default:
			p.withoutFields++
		}
		return
	}
	if ok && !p.distrusted && p.withoutFields > 0 {
		p.distrust(ctx, fieldsComeAndGo)
	}
	if ok && !p.adopted && !p.distrusted && quota.remaining == 0 {
		p.share(ctx, epoch, quota, now)
	}
	if p.adopted && !p.shared && !p.fellBack && epoch == p.epoch {
		// A bucket too small to share by its count, and a refusal: from
		// here the pace finds its rate by refusals (rules 3 to 5), under
		// the quota's rate, as it would have without the fields.
		p.fellBack, p.learned, p.reprobed = true, false, false
		p.limiter, p.accepted = rate.NewLimiter(rate.Limit(p.quota.perSecond*underQuota), 1), nil
	}
	if ok && p.shared && quota.remaining*4 >= p.capacity && quota.remaining > 0 {
		p.fallBack(ctx, "the service answered 429 while its quota fields said much was left")
	}
	p.refused++
	// Without Retry-After the pace stays open: the cut rate's empty bucket
	// spaces what follows.
	if until := now.Add(retryAfter); until.After(p.closedUntil) {
		p.closedUntil, p.retryAfter = until, retryAfter
	}
	defer p.wake()
	if epoch != p.epoch {
		return
	}
	if !p.learned && !p.reprobed {
		p.reprobed, p.accepted, p.epoch, p.cutAt = true, nil, p.epoch+1, now
		if p.ceiling > 0 {
			// The refused request used no quota: the ceiling's spacing
			// starts again when the pace reopens, whose first request goes
			// at once.
			p.limiter = rate.NewLimiter(p.ceiling, 1)
		}
		tflog.Debug(ctx, "mobileplan API rate limit: the service answered 429; pausing, then measuring its rate", map[string]any{
			"retry_after_ms": retryAfter.Milliseconds(), "closed_until": p.closedUntil.Format(time.RFC3339Nano),
		})
		return
	}
	if p.shared {
		p.mirror, p.mirrorAt = 0, now
		p.cut(ctx, now, "the service answered 429")
		return
	}
	var base rate.Limit
	if p.learned {
		base = p.rateAt(now)
	} else {
		// A first 429 with nothing accepted before it (another client
		// spent the quota) says nothing of the rate: start from one a
		// second and grow from there.
		base = max(rate.Limit(len(dropBefore(p.accepted, now.Add(-time.Second)))), 1)
		p.accepted = nil
	}
	r := max(base*backoffFactor, minRate)
	if p.ceiling > 0 && r > p.ceiling {
		r = p.ceiling
	}
	burst := int(math.Ceil(float64(r)))
	p.limiter = rate.NewLimiter(r, burst)
	// Empty now and filling while closed; but the first request when it
	// opens goes at once, as Retry-After is when one may succeed.
	drain := burst
	if float64(r)*p.closedUntil.Sub(now).Seconds() < 1 {
		drain--
	}
	p.limiter.ReserveN(now, drain)
	p.learned, p.epoch, p.cutAt, p.cutRate = true, p.epoch+1, now, r
	tflog.Debug(ctx, "mobileplan API rate limit: the service answered 429; slowing down", map[string]any{
		"requests_per_second": float64(r), "retry_after_ms": retryAfter.Milliseconds(), "closed_until": p.closedUntil.Format(time.RFC3339Nano),
	})
}

// share takes the quota fields of an answer that was not a 429 (rules 10
// to 12). The caller holds p.mu.
func (p *pace) share(ctx context.Context, epoch int, quota quotaReading, now time.Time) {
	if !p.adopted {
		p.adopted, p.learned, p.reprobed = true, true, true
		p.quota = quota
		// The bucket holds a second's worth, at least one unit, as far
		// as the policy tells; what is left now says how busy it is: a
		// process that finds it nearly spent starts at a small share.
		p.capacity = max(1, int(math.Ceil(quota.perSecond)), quota.remaining+1)
		r := rate.Limit(quota.perSecond * underQuota * max(shareFloor, float64(quota.remaining+1)/float64(p.capacity)))
		if p.ceiling > 0 {
			r = min(r, p.ceiling)
		}
		p.limiter = rate.NewLimiter(r, 1)
		p.epoch, p.cutAt, p.cutRate, p.growth = p.epoch+1, now, r, 1
		// A bucket of fewer than four units says nothing before it is
		// spent: the pace starts at the quota's rate, and goes on by the
		// service's refusals, as without the fields.
		p.shared = p.capacity >= 4
		if !p.shared {
			p.limiter.ReserveN(now, 1) // the request answered spent the bucket
		}
		tflog.Debug(ctx, "mobileplan API rate limit: the service describes its quota", map[string]any{
			"requests_per_second": quota.perSecond, "limit": quota.limit, "remaining": quota.remaining, "form": quota.form, "shared_by_count": p.shared,
		})
	}
	if !p.shared {
		return
	}
	p.watchOthers(quota, now)
	p.quota = quota
	p.capacity = max(p.capacity, quota.remaining+1)
	p.mirror, p.mirrorAt = float64(quota.remaining-p.inFlight), now
	// The rate grows only while the count shows room (half the bucket
	// left): when it sits lower, every process on the account holds its
	// rate, however many there are.
	p.cutRate, p.cutAt = p.rateAt(now), now
	if p.crowded {
		// Every process sees the same count: a rate that is the same
		// function of it is the same in every process.
		u := float64(quota.remaining+1) / float64(p.capacity)
		target := p.quota.perSecond * underQuota * priceMax * u * u * u
		target = max(target, p.quota.perSecond*shareFloor)
		x := float64(p.cutRate)
		x += priceGain * (target - x)
		if p.ceiling > 0 {
			x = min(x, float64(p.ceiling))
		}
		p.cutRate, p.growth = rate.Limit(x), 0
		p.limiter.SetLimitAt(now, p.cutRate)
		return
	}
	room := float64(quota.remaining)/float64(p.capacity) - markFrac
	p.growth = min(1, max(0, room/(growFrac-markFrac)))
	if float64(quota.remaining) < markFrac*float64(p.capacity) && epoch == p.epoch {
		p.cut(ctx, now, "the account's quota is nearly spent")
	}
}

// fieldsComeAndGo is why the pace stops believing fields that some
// answers carry and others do not.
const fieldsComeAndGo = "the service sends its quota fields on some answers and not others"

// distrust stops believing the quota fields, as fallBack does, or, when
// they have not yet set the rate, only marks them: the pace is then as it
// would have been without them. The caller holds p.mu.
func (p *pace) distrust(ctx context.Context, why string) {
	if p.adopted || p.shared {
		p.fallBack(ctx, why)
		return
	}
	p.distrusted = true
	tflog.Debug(ctx, "mobileplan API rate limit: "+why+"; ignoring the quota fields from now on", map[string]any{"limit": p.quota.limit, "form": p.quota.form})
}

// fallBack stops believing the quota fields: from here the pace finds the
// rate by refusals alone (rules 3 to 5), as it would have without them.
// The caller holds p.mu.
func (p *pace) fallBack(ctx context.Context, why string) {
	p.distrusted, p.shared, p.adopted = true, false, false
	p.learned, p.reprobed, p.accepted = false, false, nil
	p.limiter = rate.NewLimiter(rate.Every(probeInterval), 1)
	p.wake()
	tflog.Debug(ctx, "mobileplan API rate limit: "+why+"; ignoring the quota fields from now on", map[string]any{"limit": p.quota.limit, "form": p.quota.form})
}

// watchOthers finds, from how the count moves over about a second, whether
// other clients spend the quota too: it fell by more than this client's
// own requests took, the refill counted. A second smooths out the answers
// that arrive in another order than their requests were counted in; a
// bucket found full lost refill, so such a second tells nothing. The
// caller holds p.mu.
func (p *pace) watchOthers(quota quotaReading, now time.Time) {
	full := quota.remaining+1 >= p.capacity
	if p.windowAt.IsZero() {
		p.windowAt, p.windowLeft, p.windowOwn, p.windowFull = now, quota.remaining, 0, full
		return
	}
	p.windowFull = p.windowFull || full
	span := now.Sub(p.windowAt).Seconds()
	if span < 1 {
		return
	}
	others := float64(p.windowLeft-quota.remaining) - float64(p.windowOwn) + quota.perSecond*span
	if !p.windowFull && others >= 1.5 {
		p.crowded, p.othersSeen = true, true
	}
	if !p.windowFull && others < 0.5 {
		p.alone = true
		p.crowded = false
	}
	if p.crowded {
		p.alone = false
	}
	p.windowAt, p.windowLeft, p.windowOwn, p.windowFull = now, quota.remaining, 0, full
}

// cut multiplies the rate in use by shareCut (rules 11 and 13). The caller
// holds p.mu.
func (p *pace) cut(ctx context.Context, now time.Time, why string) {
	quota := rate.Limit(p.quota.perSecond)
	// A cut for each second since the last: a process sending slowly sees
	// the count less often than a fast one, and must slow down as much.
	seconds := min(cutSpan, max(1, now.Sub(p.cutAt).Seconds()))
	r := max(p.rateAt(now)*rate.Limit(math.Pow(shareCut, seconds)), quota*shareFloor, minRate)
	p.limiter.SetLimitAt(now, r)
	p.epoch, p.cutAt, p.cutRate = p.epoch+1, now, r
	tflog.Debug(ctx, "mobileplan API rate limit: "+why+"; slowing down", map[string]any{
		"requests_per_second": float64(r), "remaining": p.quota.remaining, "limit": p.quota.limit,
	})
	p.wake()
}

// wake tells the head of the queue that what it waits for changed. The
// caller holds p.mu.
func (p *pace) wake() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// fieldProblem logs, once, quota fields that could not be used.
func (p *pace) fieldProblem(ctx context.Context, problem string) {
	p.mu.Lock()
	logged := p.fieldsLogged
	p.fieldsLogged = true
	p.mu.Unlock()
	if !logged {
		tflog.Debug(ctx, "mobileplan API rate limit: ignoring quota fields that cannot be used", map[string]any{"problem": problem})
	}
}

// gaveUpAnswered counts a request whose last answer was a 429 it could
// not wait out before its deadline.
func (p *pace) gaveUpAnswered() {
	p.mu.Lock()
	p.gaveUp++
	p.mu.Unlock()
}

func dropBefore(times []time.Time, cutoff time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(cutoff) {
		i++
	}
	return times[i:]
}

// sleep waits d, or until changed is closed (errChanged), stopped is
// closed (errStopped) or ctx ends.
func sleep(ctx context.Context, d time.Duration, changed, stopped <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-changed:
		return errChanged
	case <-stopped:
		return errStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pacing is the RoundTripper that puts each request through the pace and
// sends a request answered 429 again (rule 7). It sits under net/http's
// redirect handling, so every hop is paced, and above the per-attempt
// timeout, so waiting is not timed as an attempt.
type pacing struct {
	pace    *pace
	maxWait time.Duration
	next    http.RoundTripper
}

func (t pacing) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(t.maxWait)
	}
	for sent := 0; ; sent++ {
		epoch, err := t.pace.admit(ctx, deadline)
		if err != nil {
			if a := attemptOf(ctx); a != nil {
				a.written.Store(false) // nothing of this try was sent
			}
			return nil, err
		}
		if sent > 0 {
			if req, err = rewound(req); err != nil {
				return nil, err
			}
			if a := attemptOf(ctx); a != nil {
				a.written.Store(false)
			}
		}
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		quota, ok, problem := readQuotaFields(resp.Header)
		if problem != "" {
			t.pace.fieldProblem(ctx, problem)
		}
		t.pace.observe(ctx, epoch, resp.StatusCode, retryAfter, quota, ok)
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		if time.Now().Add(retryAfter).After(deadline) {
			t.pace.gaveUpAnswered()
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
		resp.Body.Close()
	}
}

// rewound is req ready to be sent again, with its body from the start.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("the request body cannot be sent again")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = body
	return req, nil
}

// attemptTimeout bounds one attempt, reading its answer included, as
// http.Client.Timeout would; it sits under the pace so that waiting for
// the pace does not count against it.
type attemptTimeout struct {
	timeout time.Duration
	next    http.RoundTripper
}

func (t attemptTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	return roundTripThenRelease(t.next, req.WithContext(ctx), cancel)
}

// roundTripThenRelease sends req through next and calls release once the
// request is over: at once when it failed, else when its answer's body is
// closed, since reading the body is part of the request.
func roundTripThenRelease(next http.RoundTripper, req *http.Request, release func()) (*http.Response, error) {
	resp, err := next.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = releaseOnClose{ReadCloser: resp.Body, release: release}
	return resp, nil
}

type releaseOnClose struct {
	io.ReadCloser
	release func()
}

func (b releaseOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
