package emulator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// quota holds each token to a quota, as a real service's does, so that
// users rehearse a fleet's plans against one (Options.RateLimit), and
// describes it on every answer with the fields Options.QuotaFields names.
// It has one of the two shapes services use:
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
type quota struct {
	perSecond float64
	window    time.Duration // 0: a token bucket
	now       func() time.Time
	fields    QuotaFields
	quirk     QuotaFieldsQuirk

	mu      sync.Mutex
	buckets map[[32]byte]*rate.Limiter
	windows map[[32]byte]*windowCount
	limited int
	rand    *rand.Rand // for QuirkDropped, under mu
}

// windowCount is one token's count in its current fixed window.
type windowCount struct {
	ends time.Time
	left int
}

// newQuota returns a quota of perSecond requests per second per token, as
// a fixed window of that length when window is above 0, describing itself
// on each answer as fields says; nil, which limits nothing, when
// perSecond is 0.
func newQuota(perSecond float64, window time.Duration, fields QuotaFields, quirk QuotaFieldsQuirk) *quota {
	if perSecond <= 0 {
		return nil
	}
	return &quota{
		perSecond: perSecond, window: window, now: time.Now, fields: fields, quirk: quirk,
		buckets: map[[32]byte]*rate.Limiter{}, windows: map[[32]byte]*windowCount{}, rand: newQuirkRand(),
	}
}

// size is the quota's q: the bucket's size, or the window's count.
func (l *quota) size() int {
	q, _ := l.terms()
	return q
}

// allow takes one request from the quota of the token whose hash is key,
// or returns how long until one would pass; with what the quota fields
// say after it either way.
func (l *quota) allow(key [32]byte) (ok bool, wait time.Duration, s quotaState) {
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

func (l *quota) allowBucket(key [32]byte, now time.Time) (bool, time.Duration, quotaState) {
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
func (l *quota) bucketState(tokens float64) quotaState {
	tokens = max(0, tokens)
	return quotaState{
		remaining: int(math.Floor(tokens)),
		fullIn:    int(math.Ceil((float64(l.size()) - tokens) / l.perSecond)),
	}
}

func (l *quota) allowWindow(key [32]byte, now time.Time) (bool, time.Duration, quotaState) {
	w := l.windows[key]
	if w == nil || !now.Before(w.ends) {
		w = &windowCount{ends: now.Add(l.window), left: l.size()}
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
// quota.
func (l *quota) limitedCount() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limited
}

// describe is the quota as a person reads it: "5 per second", "50 per
// 10s".
func (l *quota) describe() string {
	q, w := l.terms()
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
func (l *quota) admit(w http.ResponseWriter, key [32]byte) bool {
	if l == nil {
		return true
	}
	ok, wait, s := l.allow(key)
	l.mu.Lock()
	l.writeFields(w.Header(), s)
	l.mu.Unlock()
	if ok {
		return true
	}
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	writeError(w, http.StatusTooManyRequests, newError(codeRateLimited,
		"too many requests: this token may send "+l.describe()+"; retry after the time in Retry-After"))
	return false
}

// terms are the quota as the fields state it: q units per w seconds, in
// whole numbers (the IETF draft's RateLimit-Policy). A fixed window's are its count and length; a token
// bucket's q/w is its refill rate, in the smallest window in which the
// rate is a whole number of requests (0.3 a second is q=3;w=10), and q its
// size.
func (l *quota) terms() (q, w int) {
	if l.window > 0 {
		w := max(1, int(math.Round(l.window.Seconds())))
		return max(1, int(math.Round(l.perSecond*l.window.Seconds()))), w
	}
	for w := 1; w <= 60; w++ {
		units := l.perSecond * float64(w)
		if rounded := math.Round(units); rounded >= 1 && math.Abs(units-rounded) < 1e-9*units {
			return int(rounded), w
		}
	}
	return max(1, int(math.Round(l.perSecond*60))), 60
}

// quotaState is what the fields say of the quota after an answer: r
// whole units left, and t whole seconds until it is whole again (the
// bucket full, or the window ended).
type quotaState struct {
	remaining, fullIn int
}

// writeFields sets the fields of s on h, as l.fields and l.quirk say; a
// 429's are the bucket's, as on any answer. The caller holds l.mu.
func (l *quota) writeFields(h http.Header, s quotaState) {
	if l.fields == QuotaFieldsNone {
		return
	}
	q, w := l.terms()
	switch l.quirk {
	case QuirkNearExhaustion:
		if s.remaining*4 > l.size() {
			return
		}
	case QuirkDropped:
		if l.rand.IntN(2) == 0 {
			return
		}
	case QuirkLying:
		s = quotaState{remaining: q}
	case QuirkMalformed:
		if l.fields == QuotaFieldsIETF {
			h.Set("RateLimit-Policy", `"default";q=five;w=`)
			h.Set("RateLimit", `default;r=-3;t=soon`)
		} else {
			h.Set("X-RateLimit-Limit", "lots")
			h.Set("X-RateLimit-Remaining", "-3")
			h.Set("X-RateLimit-Reset", "soon")
		}
		return
	}
	if l.fields == QuotaFieldsIETF {
		h.Set("RateLimit-Policy", fmt.Sprintf(`"default";q=%d;w=%d`, q, w))
		h.Set("RateLimit", fmt.Sprintf(`"default";r=%d;t=%d`, s.remaining, s.fullIn))
		return
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(q))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(s.remaining))
	h.Set("X-RateLimit-Reset", strconv.Itoa(s.fullIn))
}

func newQuirkRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// QuotaFields chooses whether, and how, the emulator describes a
// rate-limited token's quota on every answer, 429s included, as services
// increasingly do. The service's interface does not say whether it sends
// any of them, so the default sends none: a 429 with Retry-After is then
// the only signal, as the contract fixes.
type QuotaFields string

const (
	// QuotaFieldsNone sends no quota field.
	QuotaFieldsNone QuotaFields = ""
	// QuotaFieldsIETF sends the fields of the IETF draft "RateLimit header
	// fields for HTTP": RateLimit-Policy: "default";q=5;w=1 and
	// RateLimit: "default";r=2;t=1.
	QuotaFieldsIETF QuotaFields = "ietf"
	// QuotaFieldsX sends the older X-RateLimit-Limit, -Remaining and
	// -Reset (seconds), as many services do.
	QuotaFieldsX QuotaFields = "x-ratelimit"
)

// QuotaFieldsQuirk makes the quota fields misbehave as some services'
// do, for tests of a client that must work however they come. It is not
// a flag of the emulator's command: users rehearse the faithful fields.
type QuotaFieldsQuirk string

const (
	// QuirkNone sends the fields faithfully.
	QuirkNone QuotaFieldsQuirk = ""
	// QuirkNearExhaustion sends them only when at most a quarter of the
	// bucket is left.
	QuirkNearExhaustion QuotaFieldsQuirk = "near-exhaustion"
	// QuirkDropped leaves them out of every other answer, at random.
	QuirkDropped QuotaFieldsQuirk = "dropped"
	// QuirkMalformed sends values no parser can read.
	QuirkMalformed QuotaFieldsQuirk = "malformed"
	// QuirkLying says the bucket is full on every answer, 429s included.
	QuirkLying QuotaFieldsQuirk = "lying"
)

// ParseQuotaFields reads the emulator's -quota-fields flag.
func ParseQuotaFields(s string) (QuotaFields, error) {
	switch f := QuotaFields(s); f {
	case QuotaFieldsNone, QuotaFieldsIETF, QuotaFieldsX:
		return f, nil
	}
	return "", fmt.Errorf("quota fields %q: want %q, %q or nothing", s, QuotaFieldsIETF, QuotaFieldsX)
}
