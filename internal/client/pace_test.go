package client

// Tests of the pace (pace_policy.go, pace_queue.go, pacing.go) against the emulator's rate limit,
// a token bucket whose burst is its rate, as the service's. Each runs in a
// testing/synctest bubble with the emulator in process: the pace's waits,
// the emulator's bucket and the elapsed time all run on the bubble's fake
// clock, and a fake instant passes only when every worker waits, so the
// counts below are exact on every run, however loaded the machine.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	"golang.org/x/time/rate"

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
		if s := c.RateLimitSlowdown(); s != (RateLimitSlowdown{Ceiling: 5}) {
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

// A rate that grows reaches the requests already waiting (rule 8): each
// goes one interval of the rate in use when its turn came after the one
// before it, not at the rate of the moment it joined the queue. Before,
// requests that joined at 0.7 a second kept that spacing while the pace
// grew, and a grown pace went on sending one request a second.
func TestPaceGrowthReachesWaitingRequests(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newPace(0)
		start := time.Now()
		p.policy.mode, p.policy.cutAt, p.policy.cutRate, p.policy.epoch = modeByRefusals, start, 0.7, 1
		p.policy.limiter = rate.NewLimiter(0.7, 1)
		const n = 40
		var mu sync.Mutex
		var sent []time.Time
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, err := p.admit(bg, start, start.Add(time.Hour)); err != nil {
					t.Error(err)
				}
				mu.Lock()
				sent = append(sent, time.Now())
				mu.Unlock()
			})
		}
		wg.Wait()
		slices.SortFunc(sent, time.Time.Compare)
		for i := 1; i < n; i++ {
			gap := sent[i].Sub(sent[i-1])
			want := time.Duration(float64(time.Second) / float64(p.policy.inUse(sent[i-1])))
			if gap > want+time.Millisecond || gap < want-time.Millisecond {
				t.Fatalf("request %d went %v after the one before, want %v: one interval at %.3g a second, the rate when its turn came",
					i, gap, want, float64(p.policy.inUse(sent[i-1])))
			}
		}
		t.Logf("%d requests in %v, the last gap %v", n, sent[n-1].Sub(start), sent[n-1].Sub(sent[n-2]))
	})
}

// Once stopped, the pace sends nothing more (rule 9): requests waiting in
// it end at once with ErrStopped, and so does every later one, while the
// service receives nothing.
func TestPaceStopEndsEveryWaitingRequest(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, func(cfg *Config) { cfg.MaxRequestsPerSecond = 1 })
		var wg sync.WaitGroup
		errs := make(chan error, 5)
		for range 5 {
			wg.Go(func() {
				_, err := c.GetPlan(bg, "plan_001")
				errs <- err
			})
		}
		time.Sleep(2500 * time.Millisecond) // two sent, at 1 s and 2 s
		stopped := time.Now()
		c.Stop()
		wg.Wait()
		close(errs)
		if waited := time.Since(stopped); waited != 0 {
			t.Errorf("the waiting requests ended %v after Stop, want at once", waited)
		}
		var ok, refused int
		for err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrStopped):
				refused++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if _, err := c.GetPlan(bg, "plan_001"); !errors.Is(err, ErrStopped) {
			t.Errorf("a request made after Stop: %v, want ErrStopped", err)
		}
		if n := emu.RequestCounts()["GET /v1/plans/{id}"]; ok != 2 || refused != 3 || n != 2 {
			t.Errorf("%d answered, %d stopped, %d received by the service; want 2, 3 and 2", ok, refused, n)
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

// A request that waits long for the service's quota says so in the log at
// info level while it waits, with the wait's cause and figures, so that a
// run that seems to hang says why without TF_LOG=debug; and says so again
// every longWait, not at every wait.
func TestPaceLongWaitsAreLoggedAtInfoLevel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 3, Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 429}}})
		var buf bytes.Buffer
		ctx, cancel := context.WithTimeout(tflogtest.RootLogger(context.Background(), &buf), 35*time.Second)
		defer cancel()
		if _, err := c.GetPlan(ctx, "plan_001"); err == nil {
			t.Fatal("GetPlan succeeded against a service that refuses everything")
		}
		entries, err := tflogtest.MultilineJSONDecode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		var infos []map[string]any
		for _, e := range entries {
			if e["@level"] == "info" {
				infos = append(infos, e)
			}
		}
		// Held from 0 s on, 3 s at a time: past 10 s at the wait that
		// starts at 12 s, and again at 24 s.
		if len(infos) != 2 {
			t.Fatalf("%d info entries, want 2 (after 10 s of waiting, and 10 s later): %v", len(infos), infos)
		}
		for _, e := range infos {
			if !strings.Contains(e["@message"].(string), "the service's Retry-After") || e["retry_after_ms"] != float64(3000) {
				t.Errorf("info entry %v does not name the service's Retry-After of 3 s as the cause", e)
			}
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

// A request that never got an answer (a transport error) is no longer
// counted in flight: the quota's reckoning subtracts the requests in
// flight, and one counted for ever held a window's last units back.
func TestPaceTransportErrorsAreNotInFlight(t *testing.T) {
	t.Parallel()
	p := newPace(0)
	rt := pacing{pace: p, maxWait: time.Minute, next: failingTransport{}}
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:8089/v1/plans", nil)
		if _, err := rt.RoundTrip(req); err == nil {
			t.Fatal("RoundTrip succeeded over a failing transport")
		}
	}
	if n := p.policy.inFlight; n != 0 {
		t.Errorf("%d requests in flight after 3 transport errors, want 0", n)
	}
}

type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("connection reset")
}

// A ceiling holds even after a wait for the quota's count: a request that
// waited 5 s for a window's end takes its ceiling's token when it goes,
// so the next one waits a full interval after it.
func TestPaceCeilingHoldsAfterAWaitForTheCount(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := newPace(0.5)
		start := time.Now()
		p.observe(bg, answer{epoch: p.policy.epoch, sentAt: start, status: http.StatusOK, fields: true,
			quota: quotaReading{limit: 50, window: 10 * time.Second, remaining: 45, reset: 9 * time.Second, form: "RateLimit"}})
		p.observe(bg, answer{epoch: p.policy.epoch, sentAt: start, status: http.StatusOK, fields: true,
			quota: quotaReading{limit: 50, window: 10 * time.Second, remaining: 0, reset: 5 * time.Second, form: "RateLimit"}})
		var sent []time.Duration
		for range 2 {
			if _, err := p.admit(bg, time.Now(), time.Now().Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			sent = append(sent, time.Since(start))
		}
		if sent[0] != 5*time.Second || sent[1] != 7*time.Second {
			t.Errorf("sent at %v, want 5s (the window's end) and 7s (one interval of the ceiling after)", sent)
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
