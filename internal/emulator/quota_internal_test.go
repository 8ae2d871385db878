package emulator

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// The bucket holds q requests and refills at the rate: 20 per second lets
// a burst of 20 through, then one every 50 ms.
func TestQuotaTokenBucket(t *testing.T) {
	t.Parallel()
	l := newQuota(20, 0, QuotaFieldsNone, QuirkNone)
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
	if newQuota(0, 0, QuotaFieldsNone, QuirkNone) != nil || (*quota)(nil).limitedCount() != 0 {
		t.Error("a rate of 0 limits")
	}
}

// A bucket under one a second holds what its fields say: at 0.3 a second,
// 3 per 10 s, a burst of 3, then one every 3.33 s.
func TestQuotaBucketUnderOneASecondHoldsWhatItsFieldsSay(t *testing.T) {
	t.Parallel()
	l := newQuota(0.3, 0, QuotaFieldsNone, QuirkNone)
	now := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return now }
	var key [32]byte
	var got []bool
	for _, at := range []time.Duration{0, 0, 0, 0, 3333 * time.Millisecond, 3334 * time.Millisecond, 3334 * time.Millisecond} {
		now = time.Unix(1_000_000, 0).Add(at)
		ok, _, _ := l.allow(key)
		got = append(got, ok)
	}
	if want := []bool{true, true, true, false, false, true, false}; !slices.Equal(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
}

// A fixed window lets its count through at any pace, refuses the rest with
// Retry-After to its end, and starts afresh with the first request after
// it ended: 50 per 10 s.
func TestQuotaFixedWindow(t *testing.T) {
	t.Parallel()
	l := newQuota(5, 10*time.Second, QuotaFieldsIETF, QuirkNone)
	start := time.Unix(1_000_000, 0)
	now := start
	l.now = func() time.Time { return now }
	var key [32]byte
	for i := range 50 {
		now = start.Add(time.Duration(i) * 10 * time.Millisecond)
		if ok, _, s := l.allow(key); !ok || s.remaining != 49-i || s.fullIn != 10 {
			t.Fatalf("request %d: %v, %+v; want passed, r=%d, t=10", i+1, ok, s, 49-i)
		}
	}
	now = start.Add(2500 * time.Millisecond)
	ok, wait, s := l.allow(key)
	if ok || wait != 7500*time.Millisecond || s != (quotaState{remaining: 0, fullIn: 8}) {
		t.Fatalf("request 51: %v, wait %v, %+v; want refused until the window's end, 7.5s, r=0, t=8", ok, wait, s)
	}
	now = start.Add(9999 * time.Millisecond)
	if ok, _, _ := l.allow(key); ok {
		t.Fatal("a request passed before the window ended")
	}
	now = start.Add(12 * time.Second) // a new window, from here
	if ok, _, s := l.allow(key); !ok || s != (quotaState{remaining: 49, fullIn: 10}) {
		t.Fatalf("the first request after the window: %v, %+v; want passed, r=49, t=10", ok, s)
	}
	if n := l.limitedCount(); n != 2 {
		t.Errorf("limited = %d, want 2", n)
	}
	if q, w := l.terms(); q != 50 || w != 10 {
		t.Errorf("policy q=%d;w=%d, want q=50;w=10", q, w)
	}
	hourly := newQuota(100.0/3600, time.Hour, QuotaFieldsX, QuirkNone)
	if q, w := hourly.terms(); q != 100 || w != 3600 || hourly.describe() != "100 requests per 1h0m0s (a fixed window)" {
		t.Errorf("an hourly window of 100: q=%d;w=%d, %q", q, w, hourly.describe())
	}
}

// The fields state the quota: q units per w seconds with q/w its rate in
// whole numbers, r the whole units left after the answer, and t the whole
// seconds until it is whole again; a 429 carries them too.
func TestQuotaFieldsStateTheQuota(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		perSecond float64
		q, w      int
	}{{5, 5, 1}, {20, 20, 1}, {1, 1, 1}, {0.3, 3, 10}, {2.5, 5, 2}, {0.05, 1, 20}} {
		if q, w := newQuota(tc.perSecond, 0, QuotaFieldsIETF, QuirkNone).terms(); q != tc.q || w != tc.w {
			t.Errorf("policy of %v a second: q=%d;w=%d, want q=%d;w=%d", tc.perSecond, q, w, tc.q, tc.w)
		}
	}
	l := newQuota(5, 0, QuotaFieldsIETF, QuirkNone)
	now := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return now }
	var key [32]byte
	var got []string
	for range 6 {
		h := http.Header{}
		ok, _, s := l.allow(key)
		l.writeFields(h, s)
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
	for _, tc := range []struct {
		perSecond           float64
		window              time.Duration
		limit, left, resets string
	}{
		{0.5, 0, "1", "0", "2"},                 // a bucket of one, empty, full in 2 s
		{0.3, 0, "3", "2", "4"},                 // 3 per 10 s: one spent, back in 3.33 s
		{5, 10 * time.Second, "50", "49", "10"}, // a window of 50 per 10 s
	} {
		x := newQuota(tc.perSecond, tc.window, QuotaFieldsX, QuirkNone)
		x.now = l.now
		h := http.Header{}
		_, _, s := x.allow(key)
		x.writeFields(h, s)
		if h.Get("X-RateLimit-Limit") != tc.limit || h.Get("X-RateLimit-Remaining") != tc.left || h.Get("X-RateLimit-Reset") != tc.resets || h.Get("RateLimit") != "" {
			t.Errorf("X-RateLimit fields of %v a second (window %v) after its first request: %v; want %s, %s, %s", tc.perSecond, tc.window, h, tc.limit, tc.left, tc.resets)
		}
	}
}
