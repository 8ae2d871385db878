package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// The bucket holds one second's worth of requests and refills at the rate:
// 20 per second lets a burst of 20 through, then one every 50 ms.
func TestRateLimiterTokenBucket(t *testing.T) {
	t.Parallel()
	l := newRateLimiter(20, QuotaFieldsNone, QuirkNone)
	now := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return now }
	var key [32]byte
	for i := range 20 {
		if ok, _, _ := l.allow(key); !ok {
			t.Fatalf("request %d of the first burst refused", i+1)
		}
	}
	ok, wait, _ := l.allow(key)
	if ok || wait <= 0 || wait > 50*time.Millisecond {
		t.Fatalf("request 21 = %v, wait %v; want refused, wait up to 50ms", ok, wait)
	}
	if ok, _, _ := l.allow(key); ok {
		t.Fatal("a refused request refilled the bucket")
	}
	now = now.Add(50 * time.Millisecond)
	if ok, _, _ := l.allow(key); !ok {
		t.Fatal("no request passes 50ms later")
	}
	if ok, _, _ := l.allow(key); ok {
		t.Fatal("two requests passed on one 50ms refill")
	}
	if n := l.limitedCount(); n != 3 {
		t.Errorf("limited = %d, want 3", n)
	}
	other := [32]byte{1}
	if ok, _, _ := l.allow(other); !ok {
		t.Error("another token shares the first one's bucket")
	}
	if newRateLimiter(0, QuotaFieldsNone, QuirkNone) != nil || (*rateLimiter)(nil).limitedCount() != 0 {
		t.Error("a rate of 0 limits")
	}
}

// The fields state the bucket: q units per w seconds with q/w its rate in
// whole numbers, r the whole units left after the answer, and t the whole
// seconds until it is full again; a 429 carries them too.
func TestQuotaFieldsStateTheBucket(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		perSecond float64
		q, w      int
	}{{5, 5, 1}, {20, 20, 1}, {1, 1, 1}, {0.3, 3, 10}, {2.5, 5, 2}, {0.05, 1, 20}} {
		if q, w := newRateLimiter(tc.perSecond, QuotaFieldsIETF, QuirkNone).policy(); q != tc.q || w != tc.w {
			t.Errorf("policy of %v a second: q=%d;w=%d, want q=%d;w=%d", tc.perSecond, q, w, tc.q, tc.w)
		}
	}
	l := newRateLimiter(5, QuotaFieldsIETF, QuirkNone)
	now := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return now }
	var key [32]byte
	var got []string
	for range 6 {
		h := http.Header{}
		ok, _, left := l.allow(key)
		l.writeQuotaFields(h, l.stateOf(left))
		got = append(got, fmt.Sprintf("%v %s %s", ok, h.Get("RateLimit-Policy"), h.Get("RateLimit")))
	}
	want := []string{
		`true "default";q=5;w=1 "default";r=4;t=1`,
		`true "default";q=5;w=1 "default";r=3;t=1`,
		`true "default";q=5;w=1 "default";r=2;t=1`,
		`true "default";q=5;w=1 "default";r=1;t=1`,
		`true "default";q=5;w=1 "default";r=0;t=1`,
		`false "default";q=5;w=1 "default";r=0;t=1`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	x := newRateLimiter(0.5, QuotaFieldsX, QuirkNone)
	x.now = l.now
	h := http.Header{}
	_, _, left := x.allow(key)
	x.writeQuotaFields(h, x.stateOf(left))
	if h.Get("X-RateLimit-Limit") != "1" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Reset") != "2" || h.Get("RateLimit") != "" {
		t.Errorf("X-RateLimit fields of a bucket of 0.5 a second after its one request: %v", h)
	}
}
