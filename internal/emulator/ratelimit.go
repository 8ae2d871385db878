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

// rateLimiter holds each token to a quota, as a real service's does, so
// that users rehearse a fleet's plans against one. Its quota has one of
// the two shapes services use:
//
//   - a token bucket (the default): q units that refill continuously at
//     the rate, q being the smallest whole number of requests in a whole
//     number of seconds (5 a second: 5; 0.3 a second: 3 per 10 s), so a
//     burst of q passes at once;
//   - a fixed window (Options.RateLimitWindow): q requests per window of w,
//     the count starting afresh when a window ends; a window starts with
//     the first request after the last one ended.
//
// A request the quota does not allow is answered 429 rateLimited, with
// Retry-After in whole seconds until a request would pass, at least 1,
// and takes nothing from the quota.
type rateLimiter struct {
	perSecond float64
	window    time.Duration // 0: a token bucket
	now       func() time.Time
	fields    QuotaFields
	quirk     QuotaFieldsQuirk

	mu      sync.Mutex
	buckets map[[32]byte]*rate.Limiter
	windows map[[32]byte]*fixedWindow
	limited int
	rand    *rand.Rand // for QuirkDropped, under mu
}

// fixedWindow is one token's count in its current window.
type fixedWindow struct {
	ends time.Time
	left int
}

// newRateLimiter returns a limiter of perSecond requests per second per
// token, as a fixed window of that length when window is above 0,
// describing its quota on each answer as fields says; nil, which limits
// nothing, when perSecond is 0.
func newRateLimiter(perSecond float64, window time.Duration, fields QuotaFields, quirk QuotaFieldsQuirk) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{
		perSecond: perSecond, window: window, now: time.Now, fields: fields, quirk: quirk,
		buckets: map[[32]byte]*rate.Limiter{}, windows: map[[32]byte]*fixedWindow{}, rand: newQuirkRand(),
	}
}

// size is the quota's q: the bucket's size, or the window's count.
func (l *rateLimiter) size() int {
	q, _ := l.policy()
	return q
}

// allow takes one request from the quota of the token whose hash is key,
// or returns how long until one would pass; with what the quota fields
// say after it either way.
func (l *rateLimiter) allow(key [32]byte) (ok bool, wait time.Duration, s quotaState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if l.window > 0 {
		ok, wait, s = l.allowWindow(key, now)
	} else {
		ok, wait, s = l.allowBucket(key, now)
	}
	if !ok {
		l.limited++
	}
	return ok, wait, s
}

func (l *rateLimiter) allowBucket(key [32]byte, now time.Time) (bool, time.Duration, quotaState) {
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(l.perSecond), l.size())
		l.buckets[key] = b
	}
	r := b.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return false, wait, l.bucketState(b.TokensAt(now))
	}
	return true, 0, l.bucketState(b.TokensAt(now))
}

// bucketState is what the fields say of a bucket holding tokens: r whole
// units left, and t whole seconds until it is full again.
func (l *rateLimiter) bucketState(tokens float64) quotaState {
	tokens = max(0, tokens)
	return quotaState{
		remaining: int(math.Floor(tokens)),
		fullIn:    int(math.Ceil((float64(l.size()) - tokens) / l.perSecond)),
	}
}

func (l *rateLimiter) allowWindow(key [32]byte, now time.Time) (bool, time.Duration, quotaState) {
	w := l.windows[key]
	if w == nil || !now.Before(w.ends) {
		w = &fixedWindow{ends: now.Add(l.window), left: l.size()}
		l.windows[key] = w
	}
	ok := w.left > 0
	if ok {
		w.left--
	}
	toEnd := w.ends.Sub(now)
	s := quotaState{remaining: w.left, fullIn: int(math.Ceil(toEnd.Seconds()))}
	if ok {
		return true, 0, s
	}
	return false, toEnd, s
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

// describe is the quota as a person reads it: "5 per second", "50 per
// 10s".
func (l *rateLimiter) describe() string {
	q, w := l.policy()
	if l.window == 0 && w == 1 {
		return strconv.Itoa(q) + " requests per second"
	}
	kind := ""
	if l.window > 0 {
		kind = " (a fixed window)"
	}
	return strconv.Itoa(q) + " requests per " + (time.Duration(w) * time.Second).String() + kind
}

// admit reports whether the request of the token whose hash is key may be
// served, and answers it 429 when not.
func (l *rateLimiter) admit(w http.ResponseWriter, key [32]byte) bool {
	if l == nil {
		return true
	}
	ok, wait, s := l.allow(key)
	l.mu.Lock()
	l.writeQuotaFields(w.Header(), s)
	l.mu.Unlock()
	if ok {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	writeError(w, http.StatusTooManyRequests, newError(codeRateLimited,
		"too many requests: this token may send "+l.describe()+"; retry after the time in Retry-After"))
	return false
}
