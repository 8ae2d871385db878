package client

// Tests of what the pace reports (rate_limit_report.go): the run's
// slowdown, and the error of a request that could not wait, with its
// causes, its figures and the queue ahead of it.

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/time/rate"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// What the service's limit cost is counted, for a warning a person reads:
// every 429, and the time during which requests were held back by it.
func TestPaceCountsTheSlowdown(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, 50), RateLimit: 5}, nil)
		start := time.Now()
		if failed := sendCreates(t, c, workload{creates: 40, workers: 10}); failed != 0 {
			t.Fatalf("%d creates failed", failed)
		}
		elapsed, s := time.Since(start), c.RateLimitSlowdown()
		if s.Refused != emu.Stats().RateLimited || s.Refused == 0 {
			t.Errorf("refused = %d, want the emulator's %d 429s", s.Refused, emu.Stats().RateLimited)
		}
		// 40 creates at 5/s take 7 s at least, nearly all of it held.
		if s.Held < 5*time.Second || s.Held > elapsed {
			t.Errorf("held %v of %v, want most of it", s.Held, elapsed)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		_, c := startInProcess(t, emulator.Options{}, func(cfg *Config) { cfg.MaxRequestsPerSecond = 5 })
		sendCreates(t, c, workload{creates: 20, workers: 10})
		if s := c.RateLimitSlowdown(); s != (RateLimitSlowdown{Ceiling: 5}) {
			t.Errorf("slowdown %+v with no limit at the service; the ceiling is the user's own choice", s)
		}
	})
}

// A request that cannot wait long enough says what held it, with the
// real figures of each cause: the service's Retry-After apart from this
// client's own queue and rate, and no wait rounded to nothing.
func TestPaceWaitErrorNamesItsCause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		ceiling    float64
		retryAfter time.Duration // of a 429 observed at the start; 0: none
		deadline   time.Duration
		want       RateLimitWaitError // the fields compared: RetryAfter, Closed, Ceiling, Rate, Ahead, Queued
		says       []string
		never      []string
	}{
		{
			name: "closed for the service's Retry-After", retryAfter: 30 * time.Second, deadline: 5 * time.Second,
			want: RateLimitWaitError{RetryAfter: 30 * time.Second, Closed: 30 * time.Second},
			says: []string{"asked to wait 30s (Retry-After)", "for 30s more", "its deadline was 5s away, too soon (it had waited 0s)"}, never: []string{"own"},
		},
		{
			name: "behind its own ceiling", ceiling: 0.5, deadline: 1500 * time.Millisecond,
			want: RateLimitWaitError{Queued: 2 * time.Second, Rate: 0.5, Ceiling: true},
			says: []string{"spacing at 0.5 per second (the configured ceiling) would hold it 2s more"}, never: []string{"Retry-After", "429"},
		},
		{
			name: "a Retry-After shorter than a second", retryAfter: 300 * time.Millisecond, deadline: 100 * time.Millisecond,
			want: RateLimitWaitError{RetryAfter: 300 * time.Millisecond, Closed: 300 * time.Millisecond},
			says: []string{"asked to wait 300ms (Retry-After)", "its deadline was 100ms away"}, never: []string{" 0s more"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				p := newPace(tc.ceiling)
				if tc.ceiling > 0 {
					p.policy.ceiling = rate.NewLimiter(rate.Limit(tc.ceiling), 1)
					p.policy.ceiling.ReserveN(time.Now(), 1) // just sent one
				}
				if tc.retryAfter > 0 {
					p.observe(bg, answer{epoch: p.policy.epoch, status: http.StatusTooManyRequests, retryAfter: tc.retryAfter})
				}
				_, err := p.admit(bg, time.Now(), time.Now().Add(tc.deadline))
				var waitErr *RateLimitWaitError
				if !errors.As(err, &waitErr) {
					t.Fatalf("admit: %v, want a *RateLimitWaitError", err)
				}
				got := RateLimitWaitError{RetryAfter: waitErr.RetryAfter, Closed: waitErr.Closed, Queued: waitErr.Queued, Ahead: waitErr.Ahead, Rate: waitErr.Rate, Ceiling: waitErr.Ceiling}
				if got != tc.want {
					t.Errorf("got %+v, want %+v", got, tc.want)
				}
				msg := err.Error()
				for _, s := range tc.says {
					if !strings.Contains(msg, s) {
						t.Errorf("%q does not say %q", msg, s)
					}
				}
				for _, s := range tc.never {
					if strings.Contains(msg, s) {
						t.Errorf("%q says %q", msg, s)
					}
				}
				if s := p.slowdown(); s.GaveUp != 1 {
					t.Errorf("slowdown counts %d requests given up, want 1", s.GaveUp)
				}
			})
		})
	}
}

// Requests queued behind their own client's ceiling until their deadline
// say how many were ahead of them.
func TestPaceWaitErrorCountsTheQueueAhead(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newPace(0.2) // one request every 5 s, the first after 5 s
		deadline := time.Now().Add(12 * time.Second)
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := p.admit(bg, time.Now(), deadline)
				errs <- err
			}()
			synctest.Wait() // in this order
		}
		var sent, ahead []int
		for range 4 {
			err := <-errs
			var waitErr *RateLimitWaitError
			switch {
			case err == nil:
				sent = append(sent, 0)
			case errors.As(err, &waitErr):
				ahead = append(ahead, waitErr.Ahead)
				if !strings.Contains(err.Error(), "the configured ceiling") || strings.Contains(err.Error(), "Retry-After") {
					t.Errorf("%v: want the ceiling named as the cause, and no Retry-After", err)
				}
			default:
				t.Fatal(err)
			}
		}
		slices.Sort(ahead)
		// Two go at 5 s and 10 s; the third would go at 15 s, past 12 s
		// (its own turn); the fourth is still behind it.
		if len(sent) != 2 || !slices.Equal(ahead, []int{0, 0}) && !slices.Equal(ahead, []int{0, 1}) {
			t.Errorf("%d sent, the others with %v ahead; want 2 sent", len(sent), ahead)
		}
	})
}

// A request's wait is counted from its first try, not from the try that
// gave up: a create that had waited out a Retry-After of 10 s and then
// met a queue it could not wait for once said "(it had waited 1s)".
func TestPaceWaitErrorCountsTheWholeWait(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newPace(0.2) // one request every 5 s, the first after 5 s
		firstTry := time.Now().Add(-11 * time.Second)
		_, err := p.admit(bg, firstTry, time.Now().Add(time.Second))
		var waitErr *RateLimitWaitError
		if !errors.As(err, &waitErr) || waitErr.Waited != 11*time.Second || !strings.Contains(err.Error(), "(it had waited 11s)") {
			t.Errorf("admit: %v; want a wait error counting the 11 s since the first try", err)
		}
	})
}

// A request that runs out of time in the queue behind another, with no
// ceiling set, does not blame one.
func TestPaceWaitErrorWithoutACeilingNamesNone(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newPace(0)
		p.observe(bg, answer{epoch: p.policy.epoch, status: http.StatusTooManyRequests, retryAfter: 3 * time.Second})
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = p.admit(bg, time.Now(), time.Now().Add(10*time.Second))
		}()
		synctest.Wait()
		ctx, cancel := context.WithTimeout(bg, time.Second)
		defer cancel()
		_, err := p.admit(ctx, time.Now(), time.Now().Add(time.Second))
		<-done
		if err == nil || strings.Contains(err.Error(), "ceiling") {
			t.Errorf("admit: %v; want a wait error that names no ceiling", err)
		}
	})
}
