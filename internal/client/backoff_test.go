package client

// Tests of how long a retry waits (retry.go's backoff): exponential with
// jitter within its bounds, or the server's Retry-After, capped, read as
// seconds or an HTTP date (parseRetryAfter).

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoffGrowsWithinBounds(t *testing.T) {
	t.Parallel()
	for _, cfg := range []struct{ min, max time.Duration }{
		{DefaultMinRetryWait, DefaultMaxRetryWait},
		{time.Second, 30 * time.Second},
		{100 * time.Millisecond, 2 * time.Minute},
		{10 * time.Second, 5 * time.Minute},
		{2 * time.Second, time.Second}, // min above max: max wins
	} {
		prevCap := time.Duration(0)
		for n := 0; n <= 64; n++ {
			// The cap for retry n: min·2ⁿ, at most max, computed without overflow.
			capN := cfg.max
			if n < 62 && cfg.min <= cfg.max>>n {
				capN = cfg.min << n
			}
			if capN < prevCap {
				t.Fatalf("%v..%v: cap shrank at retry %d", cfg.min, cfg.max, n)
			}
			prevCap = capN
			lo, hi := capN, time.Duration(0)
			for range 200 {
				d := backoff(cfg.min, cfg.max, time.Minute, n, nil)
				if d < capN/2 || d > capN {
					t.Fatalf("%v..%v retry %d: backoff = %v, want within [%v, %v]", cfg.min, cfg.max, n, d, capN/2, capN)
				}
				lo, hi = min(lo, d), max(hi, d)
			}
			if lo == hi {
				t.Errorf("%v..%v retry %d: 200 backoffs all %v; want jitter", cfg.min, cfg.max, n, lo)
			}
		}
	}
	// An answer without Retry-After backs off exponentially as well.
	resp := &http.Response{StatusCode: 503, Header: http.Header{}}
	if d := backoff(time.Second, time.Minute, time.Minute, 3, resp); d < 4*time.Second || d > 8*time.Second {
		t.Errorf("backoff(retry 3, no Retry-After) = %v, want within [4s, 8s]", d)
	}
}

func TestBackoffRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   time.Duration // 0: exponential fallback
	}{
		{"7", 7 * time.Second},
		{" 7 ", 7 * time.Second},
		{"59", 59 * time.Second},
		{"120", time.Minute},            // capped at maxRetryAfter
		{"99999999999999", time.Minute}, // huge: capped, no overflow
		{"0", 0},
		{"-3", 0},
		{"soon", 0},
		{"7.5", 0},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0}, // in the past
	} {
		resp := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {tc.header}}}
		d := backoff(time.Second, 10*time.Second, time.Minute, 2, resp)
		switch {
		case tc.want != 0 && d != tc.want:
			t.Errorf("Retry-After %q: backoff = %v, want %v", tc.header, d, tc.want)
		case tc.want == 0 && (d < 2*time.Second || d > 4*time.Second):
			t.Errorf("Retry-After %q: backoff = %v, want the exponential fallback in [2s, 4s]", tc.header, d)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{"0", 0},
		{"-1", 0},
		{"86400", 24 * time.Hour},
		{"9999999999999999", 24 * time.Hour},
		{"Thu, 01 Jan 2026 00:00:30 GMT", 30 * time.Second},
		{"Wed, 31 Dec 2025 23:59:00 GMT", 0},
		{"not a date", 0},
	} {
		if got := parseRetryAfter(tc.in, now); got != tc.want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
