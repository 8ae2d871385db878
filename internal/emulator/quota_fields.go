package emulator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
)

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

// policy is the quota as the fields state it: q units per w seconds, in
// whole numbers. A fixed window's are its count and length; a token
// bucket's q/w is its refill rate, in the smallest window in which the
// rate is a whole number of requests (0.3 a second is q=3;w=10), and q its
// size.
func (l *rateLimiter) policy() (q, w int) {
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

// writeQuotaFields sets the fields of s on h, as l.fields and l.quirk
// say; a 429's are the bucket's, as on any answer. The caller holds l.mu.
func (l *rateLimiter) writeQuotaFields(h http.Header, s quotaState) {
	if l.fields == QuotaFieldsNone {
		return
	}
	q, w := l.policy()
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
