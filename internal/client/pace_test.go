package client

// Tests of the pace's rules (pace.go) against the emulator's rate limit,
// a token bucket whose burst is its rate, as the service's. Each runs in a
// testing/synctest bubble with the emulator in process: the pace's waits,
// the emulator's bucket and the elapsed time all run on the bubble's fake
// clock, and a fake instant passes only when every worker waits, so the
// counts below are exact on every run, however loaded the machine.

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// workload is creates sent by workers at once, as Terraform's -parallelism
// does, at an emulator limited to perSecond.
type workload struct {
	creates, workers int
	perSecond        float64
	ceiling          float64 // Config.MaxRequestsPerSecond; 0: none
}

type outcome struct {
	failed, requests, limited int
	elapsed                   time.Duration
}

// floor is the least time the service's limit allows for the requests that
// succeeded: all but the first burst must wait for the bucket to refill.
func (o outcome) floor(perSecond float64) time.Duration {
	burst := math.Ceil(perSecond)
	return time.Duration((float64(o.requests-o.limited) - burst) / perSecond * float64(time.Second))
}

func (o outcome) String() string {
	return fmt.Sprintf("%d failed, %d requests, %d answered 429, %v", o.failed, o.requests, o.limited, o.elapsed)
}

// sendCreates sends w's creates through c with w's workers, and returns
// how many failed.
func sendCreates(t *testing.T, c *Client, w workload) (failed int) {
	jobs := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range w.workers {
		wg.Go(func() {
			for range jobs {
				inline := &InlinePlan{CoverageID: "cov-eu", DataMBs: 1024, PeriodDays: 30} // takes any free eSIM
				if _, err := c.CreateSubscription(bg, CreateSubscriptionRequest{Plan: inline}); err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
					t.Log(err)
				}
			}
		})
	}
	for i := range w.creates {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return failed
}

func runCreates(t *testing.T, w workload) outcome {
	t.Helper()
	var o outcome
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, w.creates+10), RateLimit: w.perSecond},
			func(cfg *Config) { cfg.MaxRequestsPerSecond = w.ceiling })
		start := time.Now()
		o.failed = sendCreates(t, c, w)
		o.elapsed = time.Since(start)
		st := emu.Stats()
		o.requests, o.limited = st.Requests["POST /v1/subscriptions"], st.RateLimited
	})
	return o
}

// The goals of an adaptive pace, each workload under a limit it does not
// know: no create fails, few requests are refused, and the run takes little
// longer than the limit allows. The counts are the ones measured; a change
// to the pace that moves them must say why here.
func TestPaceAdaptsToAnUnknownLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w          workload
		maxLimited int
		maxOfFloor float64
	}{
		{workload{creates: 100, workers: 30, perSecond: 5}, 15, 1.2},
		{workload{creates: 200, workers: 10, perSecond: 20}, 10, 1.15},
		{workload{creates: 40, workers: 10, perSecond: 1}, 15, 1.3},
	} {
		t.Run(fmt.Sprintf("%d creates by %d workers at %v per second", tc.w.creates, tc.w.workers, tc.w.perSecond), func(t *testing.T) {
			t.Parallel()
			o := runCreates(t, tc.w)
			t.Logf("%v; floor %v", o, o.floor(tc.w.perSecond))
			if o.failed != 0 {
				t.Errorf("%d creates failed; a 429 must be waited out", o.failed)
			}
			if o.requests-o.limited != tc.w.creates {
				t.Errorf("%d requests succeeded, want %d", o.requests-o.limited, tc.w.creates)
			}
			if o.limited > tc.maxLimited {
				t.Errorf("%d requests answered 429, want at most %d", o.limited, tc.maxLimited)
			}
			if limit := time.Duration(tc.maxOfFloor * float64(o.floor(tc.w.perSecond))); o.elapsed > limit {
				t.Errorf("took %v, want at most %v (%.2fx the floor)", o.elapsed, limit, tc.maxOfFloor)
			}
		})
	}
}

// A ceiling at or under the service's limit is never refused.
func TestPaceCeilingUnderTheLimitIsNeverRefused(t *testing.T) {
	t.Parallel()
	for _, ceiling := range []float64{4, 5} {
		t.Run(fmt.Sprint(ceiling), func(t *testing.T) {
			t.Parallel()
			o := runCreates(t, workload{creates: 60, workers: 30, perSecond: 5, ceiling: ceiling})
			if o.failed != 0 || o.limited != 0 {
				t.Errorf("%v; want no 429 under a ceiling of %v at a limit of 5", o, ceiling)
			}
			// 60 requests spaced evenly at the ceiling, the first after one
			// interval too (the process before may just have sent).
			if want := time.Duration(60 / ceiling * float64(time.Second)); o.elapsed != want {
				t.Errorf("took %v, want %v: the ceiling's pace, no slower", o.elapsed, want)
			}
		})
	}
}

// Without any 429 the pace only spaces requests probeInterval apart.
func TestPaceWithoutLimitCostsOnlyTheProbeSpacing(t *testing.T) {
	t.Parallel()
	o := runCreates(t, workload{creates: 100, workers: 10})
	if o.failed != 0 || o.limited != 0 || o.requests != 100 {
		t.Fatalf("%v", o)
	}
	if want := 99 * probeInterval; o.elapsed != want {
		t.Errorf("took %v, want %v", o.elapsed, want)
	}
}

// A list read page after page under a limit: the pace learns the rate
// from the first 429 and the rest of the list is read without refusals.
func TestPacePagingUnderALimit(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, 2000), RateLimit: 10}, nil)
		esims := mustCollect(t, c.Esims(bg), nil, 0)
		if len(esims) != 2000 {
			t.Fatalf("read %d eSIMs, want 2000", len(esims))
		}
		st := emu.Stats()
		if st.RateLimited > 10 {
			t.Errorf("%d pages answered 429, want at most 10", st.RateLimited)
		}
		t.Logf("%d requests, %d answered 429", st.Requests["GET /v1/esims"], st.RateLimited)
	})
}

// A 429 closes the pace for every caller: a request made while it is
// closed is not sent before the Retry-After, whichever caller got the 429.
func TestPaceClosedForEveryCallerUntilRetryAfter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 30, Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 429, Times: 1}}})
		start := time.Now()
		var first sync.WaitGroup
		defer first.Wait()
		first.Go(func() {
			if _, err := c.GetPlan(bg, "plan_001"); err != nil {
				t.Error(err)
			}
		})
		synctest.Wait() // the 429 has come and its caller waits
		if _, err := c.GetSubscription(bg, "sub_0000000000000000"); !IsNotFound(err) {
			t.Fatalf("GetSubscription: %v, want not found", err)
		}
		// Both callers are due at 30 s and the learned rate lets one go
		// then; the other follows one interval later.
		if waited := time.Since(start); waited < 30*time.Second || waited > 32*time.Second {
			t.Errorf("another caller was answered after %v, want 30 to 32 s", waited)
		}
		if n := emu.RequestCounts()["GET /v1/subscriptions/{id}"]; n != 1 {
			t.Errorf("requests = %d, want 1: nothing sent while closed", n)
		}
	})
}

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
		if s := c.RateLimitSlowdown(); s != (RateLimitSlowdown{}) {
			t.Errorf("slowdown %+v with no limit at the service; the ceiling is the user's own choice", s)
		}
	})
}

// Pipelines that share a token and set ceilings summing under its limit
// are never refused, though each runs two provider processes one after
// the other (the plan's, then the apply's), each with a pace of its own
// that cannot know when the one before it last sent.
func TestPaceCeilingsSummingUnderTheLimitAcrossProcesses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu := emulatortest.StartInProcess(t, emulator.Options{Token: emulatortest.Token, Dataset: dataset(3, 200), RateLimit: 5})
		process := func() *Client {
			return newTestClient(t, emulatortest.URL, func(cfg *Config) {
				cfg.Transport, cfg.MaxRequestsPerSecond = emu.Transport(), 1.6
			})
		}
		var pipelines sync.WaitGroup
		for range 3 {
			pipelines.Go(func() {
				plan := process()
				for range 4 { // the plan's reads: the plan, pages of eSIMs
					if _, err := plan.GetPlan(bg, "plan_001"); err != nil {
						t.Error(err)
					}
				}
				if failed := sendCreates(t, process(), workload{creates: 40, workers: 10}); failed != 0 {
					t.Errorf("%d creates failed", failed)
				}
			})
		}
		pipelines.Wait()
		if st := emu.Stats(); st.RateLimited != 0 {
			t.Errorf("%d of %d requests answered 429 under ceilings of 3 × 1.6 at a limit of 5", st.RateLimited, st.Requests["POST /v1/subscriptions"]+st.Requests["GET /v1/plans/{id}"])
		}
	})
}
