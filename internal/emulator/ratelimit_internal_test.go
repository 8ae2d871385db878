package emulator

import (
	"testing"
	"time"
)

// The bucket holds one second's worth of requests and refills at the rate:
// 20 per second lets a burst of 20 through, then one every 50 ms.
func TestRateLimiterTokenBucket(t *testing.T) {
	t.Parallel()
	l := newRateLimiter(20)
	now := time.Unix(1_000_000, 0)
	l.now = func() time.Time { return now }
	var key [32]byte
	for i := range 20 {
		if ok, _ := l.allow(key); !ok {
			t.Fatalf("request %d of the first burst refused", i+1)
		}
	}
	ok, wait := l.allow(key)
	if ok || wait <= 0 || wait > 50*time.Millisecond {
		t.Fatalf("request 21 = %v, wait %v; want refused, wait up to 50ms", ok, wait)
	}
	if ok, _ := l.allow(key); ok {
		t.Fatal("a refused request refilled the bucket")
	}
	now = now.Add(50 * time.Millisecond)
	if ok, _ := l.allow(key); !ok {
		t.Fatal("no request passes 50ms later")
	}
	if ok, _ := l.allow(key); ok {
		t.Fatal("two requests passed on one 50ms refill")
	}
	if n := l.limitedCount(); n != 3 {
		t.Errorf("limited = %d, want 3", n)
	}
	other := [32]byte{1}
	if ok, _ := l.allow(other); !ok {
		t.Error("another token shares the first one's bucket")
	}
	if newRateLimiter(0) != nil || (*rateLimiter)(nil).limitedCount() != 0 {
		t.Error("a rate of 0 limits")
	}
}
