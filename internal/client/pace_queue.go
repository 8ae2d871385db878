package client

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The queue waits on the policy (pace_policy.go), and reads nothing of it
// but through a few methods: observe an answer (takeNotes: what the log
// says of it), decide what the head does at an instant, count a request
// sent or unanswered, name what holds requests (heldBy) and explain a wait
// that cannot be made, and give the quota's share for the run's report.
// Its rules, proven in pace_queue_test.go:
//
//   - Waiting requests form one queue, first come first served, and only
//     the one at its head holds a place in time: it is given its place from
//     what the policy knows now, and an answer that changes the policy
//     (a 429, a cut, a reopening) wakes it to ask again. So nothing a
//     request was told when it joined outlives a change.
//   - A wait that would end past the request's deadline is not begun: the
//     request ends at once with a *RateLimitWaitError saying what held it.
//   - Once stopped (Client.Stop), the queue admits nothing more: every
//     request waiting in it, and every later one, ends with ErrStopped.
//   - Requests held longWait by the service's limit say so at info level,
//     and again every longWait.
const (
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

// pace is the one admission control every request of a Client passes: the
// policy, and the queue that waits on it.
type pace struct {
	turn    chan struct{}
	stopped chan struct{}
	stop    sync.Once

	mu       sync.Mutex
	policy   *policy
	ceiling  float64
	changed  chan struct{} // closed when an answer changes what the head waits for
	queued   int           // requests waiting for their turn, the head excluded
	fieldLog bool          // a field that could not be used was logged

	// What the service's limit has cost so far: the time during which a
	// request was held back by it (not by the ceiling alone), by cause,
	// how many requests it refused, and how many gave up waiting at their
	// deadline.
	holding   bool
	holdSince time.Time
	holdCause waitCause
	held      map[waitCause]time.Duration
	refused   int
	gaveUp    int
	lastInfo  time.Time
}

func newPace(ceiling float64) *pace {
	return &pace{
		policy:  newPolicy(ceiling, time.Now()),
		ceiling: ceiling,
		turn:    make(chan struct{}, 1),
		stopped: make(chan struct{}),
		changed: make(chan struct{}),
		held:    map[waitCause]time.Duration{},
	}
}

// halt stops the pace for good.
func (p *pace) halt() { p.stop.Do(func() { close(p.stopped) }) }

func (p *pace) isStopped() bool {
	select {
	case <-p.stopped:
		return true
	default:
		return false
	}
}

// observe takes the service's answer to a request sent under cut epoch,
// wakes the head when what it waits for changed, and logs what the policy
// did.
func (p *pace) observe(ctx context.Context, a answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.policy.observe(time.Now(), a) {
		p.wake()
	}
	if a.status == 429 {
		p.refused++
	}
	for _, n := range p.policy.takeNotes() {
		tflog.Debug(ctx, n.msg, n.fields)
	}
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
	logged := p.fieldLog
	p.fieldLog = true
	p.mu.Unlock()
	if !logged {
		tflog.Debug(ctx, "mobileplan API rate limit: ignoring quota fields that cannot be used", map[string]any{"problem": problem})
	}
}

// unanswered takes a request admitted but never answered (a transport
// error, a timeout) off the requests in flight.
func (p *pace) unanswered() {
	p.mu.Lock()
	p.policy.unanswered()
	p.mu.Unlock()
}

// gaveUpAnswered counts a request whose last answer was a 429 it could
// not wait out before its deadline.
func (p *pace) gaveUpAnswered() {
	p.mu.Lock()
	p.gaveUp++
	p.mu.Unlock()
}

// admit returns when a request that began waiting at start may be sent,
// with its ticket (the cut it is sent under, its place among the sends); or an error when ctx ends, the pace
// stops, or the wait would pass deadline.
func (p *pace) admit(ctx context.Context, start, deadline time.Time) (ticket, error) {
	if err := p.awaitTurn(ctx, start, deadline); err != nil {
		return ticket{}, err
	}
	defer func() { <-p.turn }()
	for {
		select {
		case <-p.stopped:
			return ticket{}, ErrStopped
		default:
		}
		p.mu.Lock()
		now := time.Now()
		a := p.policy.decide(now)
		if a.delay <= 0 {
			if p.isStopped() {
				a.cancel(now)
				p.mu.Unlock()
				return ticket{}, ErrStopped
			}
			t := p.policy.sent(now)
			p.mu.Unlock()
			return t, nil
		}
		if now.Add(a.delay).After(deadline) {
			a.cancel(now)
			err := p.waitError(now, start, deadline, a.cause, a.delay)
			p.mu.Unlock()
			return ticket{}, err
		}
		changed := p.changed
		p.mu.Unlock()
		switch {
		case a.reopening():
			tflog.Debug(ctx, "mobileplan API rate limit: waiting for the service's Retry-After", map[string]any{"wait_ms": a.delay.Milliseconds()})
		case a.cause != causeProbe:
			tflog.Trace(ctx, "mobileplan API rate limit: pacing", map[string]any{"wait_ms": a.delay.Milliseconds(), "cause": a.cause.String()})
		}
		err := p.hold(ctx, a, changed)
		if err == nil && !a.reopening() {
			// Its place came: it goes, on the place it slept for, unless
			// the pace stopped at the same instant.
			p.mu.Lock()
			if p.isStopped() {
				a.cancel(time.Now())
				p.mu.Unlock()
				return ticket{}, ErrStopped
			}
			t := p.policy.sent(time.Now())
			p.mu.Unlock()
			return t, nil
		}
		// The pace reopened, what the head waits for changed, or the wait
		// ended for good: it gives its place back, if it held one, and
		// asks again unless the wait ended.
		p.mu.Lock()
		a.cancel(time.Now())
		p.mu.Unlock()
		if err != nil && !errors.Is(err, errChanged) {
			return ticket{}, p.ended(err, start, deadline)
		}
	}
}

// awaitTurn waits until the request is at the head of the queue.
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
	timer := time.NewTimer(time.Until(deadline))
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
	e := p.waitError(time.Now(), start, deadline, p.policy.heldBy(), 0)
	e.Ahead = p.queued
	return e
}

// waitError is the error of a request that cannot wait delay more for
// cause, with the figures of every cause that holds it. The caller holds
// p.mu.
func (p *pace) waitError(now, start, deadline time.Time, cause waitCause, delay time.Duration) *RateLimitWaitError {
	p.gaveUp++
	e := p.policy.explain(now, cause, delay)
	e.Waited, e.Left = now.Sub(start), max(0, deadline.Sub(now))
	return &e
}

var (
	errChanged = errors.New("the pace changed")
	errStopped = errors.New("the pace stopped")
)

// hold sleeps a.delay for a request held back for a.cause, counting the
// time the service's limit held it toward the slowdown, and saying so at
// info level once the requests have waited long.
func (p *pace) hold(ctx context.Context, a admission, changed chan struct{}) error {
	d, cause := a.delay, a.cause
	counted := cause == causeRetryAfter || cause == causeRefusals || cause == causeCount
	if !counted {
		return sleep(ctx, d, changed, p.stopped)
	}
	p.mu.Lock()
	now := time.Now()
	p.holding, p.holdSince, p.holdCause = true, now, cause
	if total := p.heldTotal(); total >= longWait && now.Sub(p.lastInfo) >= longWait {
		p.lastInfo = now
		fields := map[string]any{
			"waited_total_ms": total.Milliseconds(), "refused_total": p.refused, "requests_queued": p.queued + 1, "wait_ms": d.Milliseconds(),
		}
		if cause == causeRetryAfter {
			fields["retry_after_ms"] = a.retryAfter.Milliseconds()
		}
		tflog.Info(ctx, "mobileplan API rate limit: requests are waiting for the account's quota ("+cause.String()+")", fields)
	}
	p.mu.Unlock()
	err := sleep(ctx, d, changed, p.stopped)
	p.mu.Lock()
	p.held[cause] += time.Since(p.holdSince)
	p.holding = false
	p.mu.Unlock()
	return err
}

func (p *pace) heldTotal() time.Duration {
	var total time.Duration
	for _, d := range p.held {
		total += d
	}
	return total
}

func (c waitCause) String() string {
	switch c {
	case causeRetryAfter:
		return "the service's Retry-After"
	case causeRefusals:
		return "this client's own queue, spaced at the rate learned from the service's 429s"
	case causeCount:
		return "this client's own queue, spaced by the quota's remaining count"
	case causeCeiling:
		return "the configured ceiling"
	case causeProbe:
		return "the probe's spacing"
	}
	return "nothing"
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
