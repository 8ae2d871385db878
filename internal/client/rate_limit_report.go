package client

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What the pace tells the rest of the provider: the run's report
// (RateLimitSlowdown, with the quota's share in it), and the error of a
// request that could not wait for its place (RateLimitWaitError), with the
// formats both write a wait and a rate in.

// RateLimitSlowdown is what the service's rate limit has cost a client so
// far.
type RateLimitSlowdown struct {
	// Held is the time during which a request waited for the service's
	// quota, whatever the cause; the fields below split it.
	Held time.Duration
	// HeldForRetryAfter is the part of Held the pace was closed for a
	// Retry-After.
	HeldForRetryAfter time.Duration
	// HeldForCount is the part the quota's remaining count spaced
	// requests (the service's quota fields); the rest is the rate learned
	// from the service's refusals.
	HeldForCount time.Duration
	// Refused counts the requests answered 429, each sent again.
	Refused int
	// GaveUp counts the requests that were not sent, or whose last answer
	// was a 429, because their deadline came while they waited in the pace.
	GaveUp int
	// Ceiling is Config.MaxRequestsPerSecond; 0: none.
	Ceiling float64
	// Quota is what the service's quota fields said, when it sent any.
	Quota *QuotaShare
}

// QuotaShare is the account's quota as the service describes it, and this
// client's part of it.
type QuotaShare struct {
	// Limit requests per Window; PerSecond is their rate, Form names the
	// fields that said so, and FixedWindow is set when the count came
	// back whole at the window's end rather than refilling as it went.
	Limit       int
	Window      time.Duration
	PerSecond   float64
	Form        string
	FixedWindow bool
	// Used is the rate this client's requests were accepted at, from its
	// first answer to its last: Accepted answers Over that time.
	Used     float64
	Accepted int
	Over     time.Duration
	// Others is set when the remaining count fell faster than this
	// client's own requests spent it: other clients shared the quota.
	Others bool
}

// Describe writes the quota as a person reads it: "5 requests a second",
// "50 requests per 10s", "5000 requests per 1h0m0s".
func (q QuotaShare) Describe() string {
	if q.Window == time.Second {
		return strconv.Itoa(q.Limit) + " requests a second"
	}
	return strconv.Itoa(q.Limit) + " requests per " + q.Window.String()
}

func (p *pace) slowdown() RateLimitSlowdown {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := map[waitCause]time.Duration{}
	for c, d := range p.held {
		held[c] = d
	}
	if p.holding {
		held[p.holdCause] += time.Since(p.holdSince)
	}
	return RateLimitSlowdown{
		Held: held[causeRetryAfter] + held[causeRefusals] + held[causeCount], HeldForRetryAfter: held[causeRetryAfter], HeldForCount: held[causeCount],
		Refused: p.refused, GaveUp: p.gaveUp, Ceiling: p.ceiling, Quota: p.policy.quotaShare(),
	}
}

// RateLimitWaitError is a request that was not sent because its wait in
// the pace would end after the request's deadline. The wait has up to
// three causes, each with its own figures: the service's Retry-After,
// which keeps the pace closed; a quota whose count is spent until its
// window's end; and this client's own queue, the requests ahead of it
// spaced at the pace's rate.
type RateLimitWaitError struct {
	// RetryAfter is what the service's last 429 asked for, when the pace
	// is still closed for it; 0 when it is not.
	RetryAfter time.Duration
	// Closed is how much longer the pace stays closed for it.
	Closed time.Duration
	// Quota describes the service's quota, when its fields set the pace
	// ("50 requests per 10s"); QuotaSpent is how long until its count is
	// whole again, when nothing is left of it.
	Quota      string
	QuotaSpent time.Duration
	// Queued is how much longer this client's own spacing would have held
	// the request: the requests ahead of it (Ahead), or its turn at Rate.
	Queued time.Duration
	// Ahead counts the requests still ahead of this one in the queue.
	Ahead int
	// Rate is the rate requests were spaced at, in requests per second,
	// and Ceiling whether it is Config.MaxRequestsPerSecond rather than a
	// rate the pace set.
	Rate    float64
	Ceiling bool
	// Waited is how long the request had waited already, its earlier
	// tries included.
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
	if e.QuotaSpent > 0 {
		fmt.Fprintf(&b, "the account's quota of %s is spent until its window ends in %s; ", e.Quota, FormatWait(e.QuotaSpent))
	}
	spacing := "the rate learned from the service's 429s"
	switch {
	case e.Ceiling:
		spacing = "the configured ceiling"
	case e.Quota != "":
		spacing = "the rate the quota's remaining count allows (" + e.Quota + ")"
	}
	switch {
	case e.Ahead > 0:
		fmt.Fprintf(&b, "%d of this client's own requests were still ahead of it in its queue, spaced at %s per second (%s); ",
			e.Ahead, FormatRate(e.Rate), spacing)
	case e.Queued > 0:
		fmt.Fprintf(&b, "this client's own spacing at %s per second (%s) would hold it %s more; ", FormatRate(e.Rate), spacing, FormatWait(e.Queued))
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

// FormatRate writes a rate, in requests a second, to three significant
// figures: 0.3, 1.6, 5, 12.5.
func FormatRate(r float64) string { return strconv.FormatFloat(r, 'g', 3, 64) }
