package client

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
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
//     above it.
//  7. A request answered 429 is sent again once the pace lets it, for any
//     method (the service did not act on it), until its deadline: the
//     context's, or MaxRateLimitWait after it started. A wait that would
//     end past the deadline is not begun: the request ends at once with
//     the service's 429 (or a *RateLimitWaitError), saying how long the
//     service asked to wait.
const (
	probeInterval   = time.Millisecond
	backoffFactor   = 0.9
	growthPerSecond = 0.02
	// minRate keeps a rate learned from a service that accepted nothing in
	// a second from stalling the pace: one request every 20 seconds.
	minRate = rate.Limit(0.05)
)

// DefaultMaxRateLimitWait is how long one request may wait out the
// service's rate limit when its context has no deadline.
const DefaultMaxRateLimitWait = 10 * time.Minute

// RateLimitWaitError is a request that was not sent because the wait the
// service asked for would end after the request's deadline.
type RateLimitWaitError struct {
	Wait     time.Duration // how much longer the pace is closed
	Deadline time.Time
}

func (e *RateLimitWaitError) Error() string {
	return fmt.Sprintf("the service's rate limit asks to wait %s more, past this request's deadline (%s from now); nothing was sent",
		e.Wait.Round(time.Second), max(0, time.Until(e.Deadline)).Round(time.Second))
}

// pace is the one admission control every request of a Client passes.
type pace struct {
	ceiling rate.Limit // 0: none

	mu          sync.Mutex
	limiter     *rate.Limiter
	learned     bool       // a 429 has set the rate
	reprobed    bool       // a first 429 has come; the next sets the rate
	epoch       int        // counts cuts
	cutAt       time.Time  // when the rate in use was set
	cutRate     rate.Limit // the rate set then
	closedUntil time.Time
	accepted    []time.Time // answers other than 429 in the last second, until the first cut

	// What the service's limit has cost so far: the time during which at
	// least one request was held back by it (not by the ceiling alone),
	// and how many requests it refused.
	holding   int
	holdSince time.Time
	held      time.Duration
	refused   int
}

// RateLimitSlowdown is what the service's rate limit has cost a client so
// far.
type RateLimitSlowdown struct {
	// Held is the time during which at least one request waited for the
	// service's quota: for its Retry-After, or for the rate learned from
	// its 429s.
	Held time.Duration
	// Refused counts the requests answered 429, each sent again.
	Refused int
}

func (p *pace) slowdown() RateLimitSlowdown {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := p.held
	if p.holding > 0 {
		held += time.Since(p.holdSince)
	}
	return RateLimitSlowdown{Held: held, Refused: p.refused}
}

// heldSleep sleeps d for a request held back by the service's limit,
// counting the time toward Held.
func (p *pace) heldSleep(ctx context.Context, d time.Duration) error {
	p.mu.Lock()
	if p.holding == 0 {
		p.holdSince = time.Now()
	}
	p.holding++
	p.mu.Unlock()
	err := sleep(ctx, d)
	p.mu.Lock()
	if p.holding--; p.holding == 0 {
		p.held += time.Since(p.holdSince)
	}
	p.mu.Unlock()
	return err
}

func newPace(ceiling float64) *pace {
	p := &pace{limiter: rate.NewLimiter(rate.Every(probeInterval), 1)}
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

// rateAt is the rate in use at now: the cut rate grown since the pace
// opened after the cut, at most the ceiling.
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
// under; or an error when ctx ends or the wait would pass deadline.
func (p *pace) admit(ctx context.Context, deadline time.Time) (int, error) {
	for {
		p.mu.Lock()
		now := time.Now()
		if wait := p.closedUntil.Sub(now); wait > 0 {
			p.mu.Unlock()
			if now.Add(wait).After(deadline) {
				return 0, &RateLimitWaitError{Wait: wait, Deadline: deadline}
			}
			tflog.Debug(ctx, "mobileplan API rate limit: waiting for the service's Retry-After", map[string]any{"wait_ms": wait.Milliseconds()})
			if err := p.heldSleep(ctx, wait); err != nil {
				return 0, err
			}
			continue
		}
		if p.learned {
			p.limiter.SetLimitAt(now, p.rateAt(now))
		}
		reservation := p.limiter.ReserveN(now, 1)
		delay := reservation.DelayFrom(now)
		epoch, limit, learned := p.epoch, p.limiter.Limit(), p.learned
		p.mu.Unlock()
		if delay <= 0 {
			return epoch, nil
		}
		if now.Add(delay).After(deadline) {
			reservation.CancelAt(now)
			return 0, &RateLimitWaitError{Wait: delay, Deadline: deadline}
		}
		if learned || p.ceiling > 0 {
			tflog.Trace(ctx, "mobileplan API rate limit: pacing", map[string]any{"wait_ms": delay.Milliseconds(), "requests_per_second": float64(limit)})
		}
		wait := sleep
		if learned {
			wait = p.heldSleep
		}
		if err := wait(ctx, delay); err != nil {
			reservation.Cancel()
			return 0, err
		}
		p.mu.Lock()
		// A cut made while this request slept re-queues it behind the
		// new rate, unless the cut came at its very moment: every request
		// given that moment is sent, whichever woke first.
		requeue := p.epoch != epoch && p.cutAt.Before(now.Add(delay))
		p.mu.Unlock()
		if !requeue {
			return epoch, nil
		}
	}
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
		p.closedUntil = until
	}
	if epoch != p.epoch {
		return
	}
	if !p.learned && !p.reprobed {
		p.reprobed, p.accepted, p.epoch, p.cutAt = true, nil, p.epoch+1, now
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

func dropBefore(times []time.Time, cutoff time.Time) []time.Time {
	i := 0
	for i < len(times) && !times[i].After(cutoff) {
		i++
	}
	return times[i:]
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
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
		if resp.StatusCode != http.StatusTooManyRequests || time.Now().Add(retryAfter).After(deadline) {
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
