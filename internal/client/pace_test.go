package client

// Tests of the whole pace (pace_policy.go, pace_queue.go, pacing.go)
// against the emulator's rate limit, a token bucket whose burst is its
// rate, as the service's: workloads of creates, alone and as pipelines
// sharing a token, with and without a ceiling. Each runs in a
// testing/synctest bubble with the emulator in process: the pace's waits,
// the emulator's bucket and the elapsed time all run on the bubble's fake
// clock, and a fake instant passes only when every worker waits, so the
// counts below are exact on every run, however loaded the machine.

import (
	"fmt"
	"math"
	"net/http"
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
	window           time.Duration // a fixed window of perSecond × window; 0: a token bucket
	ceiling          float64       // Config.MaxRequestsPerSecond; 0: none
	fields           emulator.QuotaFields
	quirk            emulator.QuotaFieldsQuirk
}

type outcome struct {
	failed, requests, limited int
	elapsed                   time.Duration
	longestGap                time.Duration // between two requests sent one after the other
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
		emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, w.creates+10), RateLimit: w.perSecond, RateLimitWindow: w.window, QuotaFields: w.fields, QuotaFieldsQuirk: w.quirk},
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
	if want := 99 * defaultTuning.probeInterval; o.elapsed != want {
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

// statusCounter counts what one client sent, and the answers 429 among it,
// and keeps when each request was sent.
type statusCounter struct {
	next http.RoundTripper

	mu            sync.Mutex
	sent, limited int
	times         []time.Time
}

func (s *statusCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	sentAt := time.Now()
	resp, err := s.next.RoundTrip(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent++
	s.times = append(s.times, sentAt)
	if err == nil && resp.StatusCode == http.StatusTooManyRequests {
		s.limited++
	}
	return resp, err
}

// runPipelines starts len(starts) pipelines, independent processes each
// with a client, and so a pace, of its own, each at its offset from the
// first and sending w's creates with w's workers, against one emulator
// whose limit is w.perSecond for their one token. It returns what each
// saw, its time counted from the first start.
func runPipelines(t *testing.T, starts []time.Duration, w workload) []outcome {
	t.Helper()
	out := make([]outcome, len(starts))
	synctest.Test(t, func(t *testing.T) {
		emu := emulatortest.StartInProcess(t, emulator.Options{Token: emulatortest.Token, Dataset: dataset(3, len(starts)*w.creates+10), RateLimit: w.perSecond, RateLimitWindow: w.window, QuotaFields: w.fields, QuotaFieldsQuirk: w.quirk})
		start := time.Now()
		var all sync.WaitGroup
		for i, offset := range starts {
			counter := &statusCounter{next: emu.Transport()}
			c := inProcessClient(t, counter, func(cfg *Config) { cfg.MaxRequestsPerSecond = w.ceiling })
			all.Go(func() {
				time.Sleep(offset)
				failed := sendCreates(t, c, w)
				out[i] = outcome{failed: failed, requests: counter.sent, limited: counter.limited, elapsed: time.Since(start), longestGap: longestGap(counter.times)}
			})
		}
		all.Wait()
	})
	return out
}

func longestGap(times []time.Time) time.Duration {
	var longest time.Duration
	for i := 1; i < len(times); i++ {
		longest = max(longest, times[i].Sub(times[i-1]))
	}
	return longest
}

// Pipelines that share a token and each set the share the rate-limits
// guide gives them (3 × 0.3 under 1 a second) still meet a 429 now and
// then: their first requests come at the same instant. The one refused
// waits its Retry-After, and then the pipeline goes on at its ceiling:
// requests waiting behind it are spaced from the moment the pace reopens,
// not from places in time they were given before the refusal, which once
// stalled a pipeline for as long as its whole queue (33 s for 10 creates).
func TestPaceCeilingAfterA429SpacesFromTheReopening(t *testing.T) {
	t.Parallel()
	ceiling := 0.3
	interval := time.Duration(float64(time.Second) / ceiling)
	for _, starts := range [][]time.Duration{{0, 0, 0}, {0, 17 * time.Millisecond, 400 * time.Millisecond}} {
		t.Run(fmt.Sprint(starts), func(t *testing.T) {
			t.Parallel()
			ps := runPipelines(t, starts, workload{creates: 10, workers: 10, perSecond: 1, ceiling: ceiling})
			limited := 0
			for i, p := range ps {
				t.Logf("pipeline %d: %d requests, %d answered 429, longest gap %v, finished after %v", i, p.requests, p.limited, p.longestGap, p.elapsed)
				limited += p.limited
				if p.failed != 0 {
					t.Errorf("pipeline %d: %d creates failed", i, p.failed)
				}
				// The emulator's Retry-After is at most a second here.
				if limit := time.Second + interval; p.longestGap > limit {
					t.Errorf("pipeline %d sent nothing for %v, want at most %v: one Retry-After and one interval at its ceiling", i, p.longestGap, limit)
				}
				// Its ceiling's pace (the first request one interval in),
				// and a Retry-After for each refusal.
				if want := starts[i] + 10*interval + time.Duration(p.limited)*time.Second; p.elapsed > want+time.Millisecond {
					t.Errorf("pipeline %d finished after %v, want at most %v: its ceiling's pace and a Retry-After for each of its %d refusals", i, p.elapsed, want, p.limited)
				}
			}
			if limited == 0 {
				t.Errorf("no request answered 429: the case this test is about did not happen")
			}
		})
	}
}

// Independent processes sharing one token, with no ceiling set, all
// finish: a 429 is waited out, never a failure, whichever process the
// quota went to. They do not share it evenly. Each pace learns a rate from
// the 429s it is given, the first second decides who is given what, and
// the rates then grow in proportion to themselves, which keeps the shares
// unequal: with three pipelines at 5 requests a second, the last finishes
// 70% to 168% after the first. Requests that wake at the same fake instant
// run in any order, so a run has one of a few outcomes; the bounds are
// just above the worst of 10 runs. Since a rate that grew reaches the
// requests already waiting (rule 8), three rows improved and one moved:
// the staggered 3 × 40 at 5 a second has its slowest at 1.83x the floor
// (1.74x before), its spread 168% (173%). A change to the pace that moves
// them must say why here, and one that shares fairly would tighten them to
// what users need: every pipeline within 1.2x the floor and 15% of the
// others, at most 10% of requests refused at 5 a second and 25% at 1.
func TestPaceSharedTokenEveryPipelineFinishes(t *testing.T) {
	t.Parallel()
	staggered := []time.Duration{0, 17 * time.Millisecond, 400 * time.Millisecond}
	for _, tc := range []struct {
		w          workload
		starts     []time.Duration
		maxLimited float64 // of all requests
		maxOfFloor float64 // the slowest pipeline's time over the floor of all their requests
	}{
		{workload{creates: 40, workers: 10, perSecond: 5}, []time.Duration{0, 0, 0}, 0.08, 1.45},
		{workload{creates: 40, workers: 10, perSecond: 5}, staggered, 0.10, 1.85},
		{workload{creates: 10, workers: 10, perSecond: 1}, []time.Duration{0, 0, 0}, 0.65, 1.25},
		{workload{creates: 10, workers: 10, perSecond: 1}, staggered, 0.60, 1.3},
	} {
		t.Run(fmt.Sprintf("%d×%d creates at %v per second, starts %v", len(tc.starts), tc.w.creates, tc.w.perSecond, tc.starts), func(t *testing.T) {
			t.Parallel()
			ps := runPipelines(t, tc.starts, tc.w)
			var all outcome
			fastest, slowest := ps[0].elapsed, ps[0].elapsed
			for i, p := range ps {
				t.Logf("pipeline %d: %d requests, %d answered 429, finished after %v", i, p.requests, p.limited, p.elapsed)
				if p.failed != 0 {
					t.Errorf("pipeline %d: %d creates failed; a 429 must be waited out", i, p.failed)
				}
				all.requests, all.limited = all.requests+p.requests, all.limited+p.limited
				fastest, slowest = min(fastest, p.elapsed), max(slowest, p.elapsed)
			}
			floor := all.floor(tc.w.perSecond)
			t.Logf("%d requests, %d answered 429 (%.0f%%); the slowest took %.2fx the floor of %v, %.0f%% longer than the fastest",
				all.requests, all.limited, 100*float64(all.limited)/float64(all.requests), float64(slowest)/float64(floor), floor, 100*(float64(slowest)/float64(fastest)-1))
			if all.requests-all.limited != len(ps)*tc.w.creates {
				t.Errorf("%d requests succeeded, want %d", all.requests-all.limited, len(ps)*tc.w.creates)
			}
			if share := float64(all.limited) / float64(all.requests); share > tc.maxLimited {
				t.Errorf("%.1f%% of requests answered 429, want at most %.0f%%", 100*share, 100*tc.maxLimited)
			}
			if of := float64(slowest) / float64(floor); of > tc.maxOfFloor {
				t.Errorf("the slowest pipeline took %.2fx the floor, want at most %.2fx", of, tc.maxOfFloor)
			}
		})
	}
}
