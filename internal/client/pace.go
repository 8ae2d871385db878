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
const (
	probeInterval   = time.Millisecond
	backoffFactor   = 0.9
	growthPerSecond = 0.02
	// minRate keeps a rate learned from a service that accepted nothing in
	// a second from stalling the pace: one request every 20 seconds.
	minRate = rate.Limit(0.05)
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
}

func (p *pace) slowdown() RateLimitSlowdown {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := RateLimitSlowdown{Held: p.held, HeldForRetryAfter: p.heldClosed, Refused: p.refused, GaveUp: p.gaveUp}
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
	if since := now.Sub(p.cutAt).Seconds(); since > 0 {
		grown = p.cutRate * rate.Limit(1+growthPerSecond*since)
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
		delay := reservation.DelayFrom(now)
		if delay <= 0 {
			epoch := p.epoch
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

// observe takes the service's answer to a request sent under cut epoch.
func (p *pace) observe(ctx context.Context, epoch int, status int, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if status != http.StatusTooManyRequests {
		if !p.learned {
			p.accepted = append(dropBefore(p.accepted, now.Add(-time.Second)), now)
		}
		return
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

// wake tells the head of the queue that what it waits for changed. The
// caller holds p.mu.
func (p *pace) wake() {
	close(p.changed)
	p.changed = make(chan struct{})
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
		t.pace.observe(ctx, epoch, resp.StatusCode, retryAfter)
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
