package client

// The policy's rules as rows of instants: a state, answers at given
// times, and what the policy then says at a given time: its mode, its
// rate, how long the next request waits. Here the harness and rules 1 to
// 6 (pace_policy.go); the count rules' rows are pace_count_rules_test.go's.
// The policy takes the time as an argument, so nothing here sleeps, and
// each tuning constant decides at least one row: doubled or halved, a row
// fails (TestPaceTuningIsPinned checks that this stays so).

import (
	"fmt"
	"math"
	"net/http"
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// event is what happens to the policy at an instant: requests sent, then
// an answer.
type event struct {
	at     time.Duration
	sends  int
	answer *answer // its epoch is filled in: the policy's at the instant
	stale  bool    // the answer is to a request sent before the last cut
	// of, when above 0, makes the answer one to this client's of-th
	// request, sent at an earlier event and in flight since; otherwise it
	// answers the event's last send, or one sent before the row began.
	of int
	// lost, after the sends, takes the last of them off the requests in
	// flight as never answered (a transport error or a timeout).
	lost bool
}

func ok200() *answer { return &answer{status: http.StatusOK} }

func refused(retryAfter time.Duration) *answer {
	return &answer{status: http.StatusTooManyRequests, retryAfter: retryAfter}
}

func withFields(a *answer, limit int, window time.Duration, remaining int, reset time.Duration) *answer {
	a.quota = quotaReading{limit: limit, window: window, remaining: remaining, reset: reset, form: "RateLimit"}
	a.fields = true
	return a
}

// expect is what the policy says at an instant; a zero field is not checked
// unless its check flag is set.
type expect struct {
	at        time.Duration
	mode      paceMode
	rate      float64 // the rate in use, requests a second; 0: not checked
	delay     time.Duration
	someDelay bool // check delay, even when it is 0
	closed    time.Duration
	shape     *quotaShape
	others    *bool // whether the run would report others spending the quota
	woken     *bool // whether the last answer woke the head of the queue
}

type policyRow struct {
	name    string
	pins    string // the constants whose value this row decides
	ceiling float64
	given   func(p *policy)
	events  []event
	want    expect
}

// check runs the row under tune and returns what the policy said that
// the row does not.
func (r policyRow) check(tune tuning) []string {
	var wrong []string
	errorf := func(format string, args ...any) { wrong = append(wrong, fmt.Sprintf(format, args...)) }
	p := newTunedPolicy(r.ceiling, t0, tune)
	if r.given != nil {
		r.given(p)
	}
	type sentAs struct {
		at time.Time
		t  ticket
	}
	var sends []sentAs
	woken := false
	for _, e := range r.events {
		now := at(e.at)
		epoch := p.epoch
		for range e.sends {
			p.reserve(now) // as the queue does: its place, then it goes
			t := p.sent(now)
			sends = append(sends, sentAs{now, t})
			epoch = t.epoch
		}
		if e.lost {
			p.unanswered()
		}
		if e.answer != nil {
			a := *e.answer
			a.epoch = epoch
			switch {
			case e.of > 0:
				a.sentAt, a.epoch = sends[e.of-1].at, sends[e.of-1].t.epoch
			case e.sends > 0:
				a.sentAt = now
			default:
				p.inFlight++ // an answer to a request sent before
			}
			if e.stale {
				a.epoch = p.epoch - 1
			}
			woken = p.observe(now, a)
		}
	}
	now := at(r.want.at)
	if p.mode != r.want.mode {
		errorf("mode %d, want %d", p.mode, r.want.mode)
	}
	if r.want.rate != 0 {
		if got := float64(p.inUse(now)); math.Abs(got-r.want.rate) > 1e-9*r.want.rate {
			errorf("rate in use %.9g, want %.9g", got, r.want.rate)
		}
	}
	if r.want.someDelay || r.want.delay != 0 {
		closed := p.closedFor(now)
		a := p.reserve(now)
		if got := max(closed, a.delay); got != r.want.delay {
			errorf("the next request waits %v, want %v", got, r.want.delay)
		}
	}
	if r.want.closed != 0 && p.closedFor(now) != r.want.closed {
		errorf("closed for %v, want %v", p.closedFor(now), r.want.closed)
	}
	if r.want.others != nil && p.othersSeen != *r.want.others {
		errorf("others seen: %v, want %v", p.othersSeen, *r.want.others)
	}
	if r.want.woken != nil && woken != *r.want.woken {
		errorf("the last answer woke the head: %v, want %v", woken, *r.want.woken)
	}
	if r.want.shape != nil && p.quota.shape() != *r.want.shape {
		errorf("shape %v, want %v", p.quota.shape(), *r.want.shape)
	}
	return wrong
}

func runRows(t *testing.T, rows []policyRow) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			for _, w := range r.check(defaultTuning) {
				t.Error(w)
			}
		})
	}
}

// every is the interval of a rate, as x/time/rate computes it.
func every(perSecond float64) time.Duration { return time.Duration(float64(time.Second) / perSecond) }

func accepted(from, every time.Duration, n int) []event {
	var es []event
	for i := range n {
		es = append(es, event{at: from + time.Duration(i)*every, sends: 1, answer: ok200()})
	}
	return es
}

func seq(parts ...[]event) []event {
	var all []event
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func one(e event) []event { return []event{e} }

var (
	window = shapeWindow
	bucket = shapeBucket
	yes    = true
	no     = false
)

// Rules 1 to 6: without the quota fields.
func TestPacePolicyByRefusals(t *testing.T) {
	t.Parallel()
	runRows(t, refusalRows())
}

func refusalRows() []policyRow {
	return []policyRow{
		{
			name: "rule 1: before any 429, requests are spaced probeInterval apart", pins: "probeInterval",
			events: one(event{at: 0, sends: 1}),
			want:   expect{mode: modeProbing, rate: 1000, delay: time.Millisecond},
		},
		{
			name:   "rule 2: a 429 closes the pace for its Retry-After",
			events: seq(accepted(0, 100*time.Millisecond, 5), one(event{at: 500 * time.Millisecond, sends: 1, answer: refused(3 * time.Second)})),
			want:   expect{at: time.Second, mode: modeRefusedOnce, closed: 2500 * time.Millisecond, delay: 2500 * time.Millisecond},
		},
		{
			name: "rule 3: the second 429 sets the rate: what was accepted in the second before it, times backoffFactor", pins: "backoffFactor",
			events: seq(
				one(event{at: 0, sends: 1, answer: refused(time.Second)}),
				accepted(time.Second, 100*time.Millisecond, 8), // 1.0 s to 1.7 s
				one(event{at: 1800 * time.Millisecond, sends: 1, answer: refused(time.Second)}),
			),
			want: expect{at: 1800 * time.Millisecond, mode: modeByRefusals, rate: 8 * 0.9},
		},
		{
			name: "rule 3: a second 429 with nothing accepted before it starts from one a second", pins: "backoffFactor",
			events: seq(one(event{at: 0, sends: 1, answer: refused(time.Second)}), one(event{at: 3 * time.Second, sends: 1, answer: refused(time.Second)})),
			want:   expect{at: 3 * time.Second, mode: modeByRefusals, rate: 0.9},
		},
		{
			name: "rule 3: every later 429 cuts the rate in use once", pins: "backoffFactor",
			events: seq(
				one(event{at: 0, sends: 1, answer: refused(0)}),
				one(event{at: 0, sends: 1, answer: refused(0)}), // 0.9
				one(event{at: 0, sends: 1, answer: refused(0)}), // 0.81
				one(event{at: 0, answer: refused(0), stale: true}),
			),
			want: expect{at: 0, mode: modeByRefusals, rate: 0.81},
		},
		{
			name: "rule 3: no rate under minRate", pins: "minRate",
			events: func() []event {
				es := seq(one(event{at: 0, sends: 1, answer: refused(0)}))
				for range 30 { // 0.9^30 = 0.042
					es = append(es, event{at: 0, sends: 1, answer: refused(0)})
				}
				return es
			}(),
			want: expect{at: 0, mode: modeByRefusals, rate: 0.05},
		},
		{
			name: "rule 4: the rate grows by growthPerSecond of itself each second", pins: "growthPerSecond",
			events: seq(one(event{at: 0, sends: 1, answer: refused(0)}), one(event{at: 0, sends: 1, answer: refused(0)})),
			want:   expect{at: 10 * time.Second, mode: modeByRefusals, rate: 0.9 * (1 + 0.02*10)},
		},
		{
			name:   "rule 5: a cut rate's tokens start empty, but the first request when the pace reopens goes at once",
			events: seq(accepted(0, 100*time.Millisecond, 5), one(event{at: 500 * time.Millisecond, sends: 1, answer: refused(time.Second)}), accepted(1500*time.Millisecond, 100*time.Millisecond, 5), one(event{at: 2 * time.Second, sends: 1, answer: refused(2 * time.Second)})),
			want:   expect{at: 4 * time.Second, mode: modeByRefusals, someDelay: true, delay: 0},
		},
		{
			name: "rule 6: a ceiling spaces requests from the start, the first one interval in", ceiling: 0.5,
			want: expect{mode: modeProbing, rate: 0.5, delay: 2 * time.Second},
		},
		{
			name: "rule 6: after a 429 the ceiling spaces from the reopening, its first at once", ceiling: 0.5,
			events: seq(one(event{at: 2 * time.Second, sends: 1, answer: refused(time.Second)})),
			want:   expect{at: 3 * time.Second, mode: modeRefusedOnce, rate: 0.5, someDelay: true, delay: 0},
		},
		{
			name: "rule 6: a rate learned above the ceiling is the ceiling in use", ceiling: 0.5,
			events: seq(one(event{at: 0, sends: 1, answer: refused(0)}), one(event{at: 0, sends: 1, answer: refused(0)})),
			want:   expect{at: 0, mode: modeByRefusals, rate: 0.5},
		},
	}
}

// Every tuning constant decides at least one row: doubled or halved, some
// row fails. A constant no row notices is one a change could move by a
// factor of two unseen.
func TestPaceTuningIsPinned(t *testing.T) {
	t.Parallel()
	rows := append(append(refusalRows(), bucketRows()...), windowRows()...)
	fields := reflect.TypeOf(defaultTuning)
	for i := range fields.NumField() {
		name := fields.Field(i).Name
		for _, factor := range []float64{2, 0.5} {
			tune := defaultTuning
			v := reflect.ValueOf(&tune).Elem().Field(i)
			v = reflect.NewAt(v.Type(), v.Addr().UnsafePointer()).Elem()
			switch v.Kind() {
			case reflect.Float64:
				v.SetFloat(v.Float() * factor)
			case reflect.Int, reflect.Int64:
				v.SetInt(int64(float64(v.Int()) * factor))
			default:
				t.Fatalf("%s: a %v, which this test cannot scale", name, v.Kind())
			}
			failed := 0
			for _, r := range rows {
				if len(r.check(tune)) > 0 {
					failed++
				}
			}
			t.Logf("%s × %v: %d rows fail", name, factor, failed)
			if failed == 0 {
				t.Errorf("%s × %v: every row still passes", name, factor)
			}
		}
	}
}
