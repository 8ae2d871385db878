package client

// Tests of the queue's rules (pace_queue.go): a Retry-After closes it for
// every caller, a rate that grows reaches the requests already waiting, a
// stop ends every wait, a request never answered leaves the count in
// flight, a ceiling holds after a wait for the quota's count, and long
// waits are logged at info level. Each runs in a testing/synctest bubble,
// as pace_test.go's do.

import (
	"bytes"
	"context"
	"errors"
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
)

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

// A rate that grows reaches the requests already waiting (the policy's
// rule 4, the queue's first): each goes one interval of the rate in use
// when its turn came after the one before it, not at the rate of the
// moment it joined the queue. Before, requests that joined at 0.7 a
// second kept that spacing while the pace grew, and a grown pace went on
// sending one request a second.
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

// Once stopped, the pace sends nothing more (the queue's third rule):
// requests waiting in it end at once with ErrStopped, and so does every
// later one, while the service receives nothing.
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
