package emulator

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateLimiter holds each token to a number of requests per second, as a
// real service's quota does, so that users rehearse a fleet's plans against
// one: a token bucket per token that holds one second's worth of requests
// and refills at that rate. A request that finds the bucket empty is
// answered 429 rateLimited, with Retry-After in whole seconds until a
// request would pass, at least 1, and takes nothing from the bucket.
type rateLimiter struct {
	perSecond float64
	now       func() time.Time
	fields    QuotaFields
	quirk     QuotaFieldsQuirk

	mu      sync.Mutex
	buckets map[[32]byte]*rate.Limiter
	limited int
	rand    *rand.Rand // for QuirkDropped, under mu
}

// newRateLimiter returns a limiter of perSecond requests per second per
// token, describing its quota on each answer as fields says; nil, which
// limits nothing, when perSecond is 0.
func newRateLimiter(perSecond float64, fields QuotaFields, quirk QuotaFieldsQuirk) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{perSecond: perSecond, now: time.Now, fields: fields, quirk: quirk, buckets: map[[32]byte]*rate.Limiter{}, rand: newQuirkRand()}
}

// burst is the bucket's size: one second's worth of requests, at least one.
func (l *rateLimiter) burst() int { return max(1, int(math.Ceil(l.perSecond))) }

// allow takes one request from the bucket of the token whose hash is key,
// or returns how long until one would pass; with the bucket's tokens left
// either way.
func (l *rateLimiter) allow(key [32]byte) (ok bool, wait time.Duration, left float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(l.perSecond), l.burst())
		l.buckets[key] = b
	}
	now := l.now()
	r := b.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		l.limited++
		return false, wait, b.TokensAt(now)
	}
	return true, 0, b.TokensAt(now)
}

// limitedCount is how many requests were answered 429 so far; 0 for a nil
// limiter.
func (l *rateLimiter) limitedCount() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limited
}

// admit reports whether the request of the token whose hash is key may be
// served, and answers it 429 when not.
func (l *rateLimiter) admit(w http.ResponseWriter, key [32]byte) bool {
	if l == nil {
		return true
	}
	ok, wait, left := l.allow(key)
	l.mu.Lock()
	l.writeQuotaFields(w.Header(), l.stateOf(left))
	l.mu.Unlock()
	if ok {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	writeError(w, http.StatusTooManyRequests, newError(codeRateLimited,
		"too many requests: this token may send "+strconv.FormatFloat(l.perSecond, 'f', -1, 64)+" per second; retry after the time in Retry-After"))
	return false
}
