package client

// The policy's rules (pace_policy.go, pace_count_rules.go) as rows of instants:
// a state, answers at given times, and what the policy then says at a
// given time: its mode, its rate, how long the next request waits. The
// policy takes the time as an argument, so nothing here sleeps, and each
// tuning constant decides at least one row: doubled or halved, a row
// fails (TestPacePolicyConstantsArePinned checks that this stays so).

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
	for _, e := range r.events {
		now := at(e.at)
		epoch := p.epoch
		seq := 0
		for range e.sends {
			p.reserve(now) // as the queue does: its place, then it goes
			t := p.sent(now)
			epoch, seq = t.epoch, t.seq
		}
		if e.answer != nil {
			a := *e.answer
			a.epoch = epoch
			if e.sends > 0 {
				a.sentAt, a.seq = now, seq
			}
			if e.stale {
				a.epoch = p.epoch - 1
			}
			if e.sends == 0 {
				p.inFlight++ // an answer to a request sent before
			}
			p.observe(now, a)
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

// adoptBucket is a process that read a bucket of q a second with r left.
func adoptBucket(q, r int) []event {
	return one(event{at: 0, sends: 1, answer: withFields(ok200(), q, time.Second, r, time.Second)})
}

// Rules 7 to 10: a bucket's count.
func TestPacePolicyByABucket(t *testing.T) {
	t.Parallel()
	runRows(t, bucketRows())
}

func bucketRows() []policyRow {
	return []policyRow{
		{
			name: "rule 8: the first reading sets the rate to the quota's, times underQuota and the share left", pins: "underQuota",
			events: adoptBucket(5, 4),
			want:   expect{mode: modeByBucket, rate: 5 * 0.99, shape: &bucket},
		},
		{
			name: "rule 8: a bucket found nearly spent starts at shareFloor of the quota's rate", pins: "shareFloor underQuota",
			events: adoptBucket(100, 0),
			want:   expect{mode: modeByBucket, rate: 100 * 0.99 / 64},
		},
		{
			name: "rule 8: the rate grows by shareGrowth of the quota's rate a second", pins: "shareGrowth",
			events: adoptBucket(5, 4),
			want:   expect{at: time.Second, mode: modeByBucket, rate: 5*0.99 + 5*0.1},
		},
		{
			name: "rule 8: up to sharedMaxFactor times the quota's rate", pins: "sharedMaxFactor",
			events: adoptBucket(5, 4),
			want:   expect{at: 100 * time.Second, mode: modeByBucket, rate: 5 * 1.5},
		},
		{
			name: "rule 8: growth by the room left between markFrac and growFrac of the bucket", pins: "markFrac growFrac",
			events: seq(adoptBucket(20, 19), one(event{at: 0, sends: 1, answer: withFields(ok200(), 20, time.Second, 8, time.Second)})),
			// room (8/20 - 0.25) / (0.5 - 0.25) = 0.6 of full growth
			want: expect{at: time.Second, mode: modeByBucket, rate: 20*0.99 + 20*0.1*0.6},
		},
		{
			name: "rule 8: an answer that leaves under markFrac of the bucket cuts the rate by shareCut", pins: "shareCut markFrac",
			events: seq(adoptBucket(20, 19), one(event{at: 2 * time.Second, sends: 1, answer: withFields(ok200(), 20, time.Second, 4, time.Second)})),
			// grown for 2 s at full room, then cut
			want: expect{at: 2 * time.Second, mode: modeByBucket, rate: (20*0.99 + 20*0.1*2) * 0.8},
		},
		{
			name: "rule 8: a 429 cuts by shareCut for each second since the last cut, at most cutSpan", pins: "cutSpan shareCut",
			events: seq(adoptBucket(20, 19), one(event{at: 10 * time.Second, sends: 1, answer: refused(0)})),
			want:   expect{at: 10 * time.Second, mode: modeByBucket, rate: 20 * 1.5 * 0.8 * 0.8 * 0.8 * 0.8},
		},
		{
			name: "rule 8: crowded, the rate moves priceGain of the way to priceMax times the quota's rate times the cube of the share left", pins: "priceMax priceGain",
			given:  func(p *policy) { p.crowded = true },
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: withFields(ok200(), 10, time.Second, 4, time.Second)})),
			// the first reading moves it toward the full bucket's price, the
			// second toward half a bucket's
			want: expect{at: 0, mode: modeByBucket, rate: func() float64 {
				x := 9.9 + 0.3*(10*0.99*0.7-9.9)
				return x + 0.3*(10*0.99*0.7*0.5*0.5*0.5-x)
			}()},
		},
		{
			name: "rule 9: alone with more than slackFrac of the bucket reckoned left, a request goes at once", pins: "slackFrac",
			given:  func(p *policy) { p.alone = true },
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: withFields(ok200(), 10, time.Second, 6, time.Second)})),
			want:   expect{at: 0, mode: modeByBucket, someDelay: true, delay: 0},
		},
		{
			name: "rule 9: alone with less than slackFrac left, the rate spaces it", pins: "slackFrac",
			given:  func(p *policy) { p.alone = true },
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: withFields(ok200(), 10, time.Second, 5, time.Second)})),
			// reckoned 5 of 10 left: not more than half plus one
			want: expect{at: 0, mode: modeByBucket, delay: every(10 * 0.99)},
		},
		{
			name:   "rule 9: with nothing reckoned left, a request waits for one unit's refill",
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: withFields(ok200(), 10, time.Second, 0, time.Second)})),
			// cut by shareCut, as under markFrac left (rule 8)
			want: expect{at: 0, mode: modeByBucket, delay: time.Duration(math.Ceil(float64(time.Second) / (9.9 * 0.8)))},
		},
		{
			name: "rule 10: a bucket of minSharedBucket units is shared by its count", pins: "minSharedBucket",
			events: adoptBucket(4, 3),
			want:   expect{mode: modeByBucket},
		},
		{
			name: "rule 10: a smaller one goes by refusals, under the quota's rate", pins: "minSharedBucket underQuota",
			events: seq(adoptBucket(3, 2), one(event{at: 0, sends: 1, answer: refused(time.Second)})),
			want:   expect{at: 10 * time.Second, mode: modeRefusedOnce, rate: 3 * 0.99},
		},
		{
			name:   "rule 12: a 429 while the fields say a quarter is left: they are not believed again",
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: withFields(refused(time.Second), 10, time.Second, 3, time.Second)})),
			// and the 429 is a first one, as without the fields (rule 3)
			want: expect{at: 2 * time.Second, mode: modeRefusedOnce, rate: 1000},
		},
		{
			name:   "rule 12: fields that some answers carry and others do not are not believed again",
			events: seq(adoptBucket(10, 9), one(event{at: 0, sends: 1, answer: ok200()})),
			want:   expect{at: 0, mode: modeProbing, rate: 1000},
		},
	}
}

// adoptWindow is a process that read a window of q per w with r left and
// reset until its end.
func adoptWindow(q int, w time.Duration, r int, reset time.Duration) []event {
	return one(event{at: 0, sends: 1, answer: withFields(ok200(), q, w, r, reset)})
}

// Rules 7 and 11: a window's count, and how the shape is told.
func TestPacePolicyByAWindow(t *testing.T) {
	t.Parallel()
	runRows(t, windowRows())
}

func windowRows() []policyRow {
	return []policyRow{
		{
			name: "rule 7: a t longer than a bucket needs to refill what was spent, and a second, is a window", pins: "wholeSecond",
			events: adoptWindow(50, 10*time.Second, 49, 1500*time.Millisecond), // a bucket: 0.2 s
			want:   expect{mode: modeByWindow, shape: &window},
		},
		{
			name: "rule 7: within a second of it, a bucket", pins: "wholeSecond",
			events: adoptWindow(50, 10*time.Second, 49, time.Second),
			want:   expect{mode: modeByBucket, shape: &bucket},
		},
		{
			name:   "rule 7: a count that rises before its end is a bucket after all",
			events: seq(adoptWindow(50, 10*time.Second, 40, 9*time.Second), one(event{at: 2 * time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 45, 9*time.Second)})),
			want:   expect{at: 2 * time.Second, mode: modeByBucket, shape: &bucket},
		},
		{
			name:   "rule 7: X-RateLimit's window is the longest t seen, never a second",
			events: one(event{at: 0, sends: 1, answer: &answer{status: 200, fields: true, quota: quotaReading{limit: 5000, remaining: 4999, reset: 3600 * time.Second, form: "X-RateLimit"}}}),
			want:   expect{mode: modeByWindow, shape: &window},
		},
		{
			name:   "rule 11: alone, what is left goes at once",
			events: seq(adoptWindow(50, 10*time.Second, 49, 10*time.Second), one(event{at: 0, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 48, 10*time.Second)})),
			want:   expect{at: 0, mode: modeByWindow, rate: 1000, delay: time.Millisecond},
		},
		{
			name:   "rule 11: with nothing left, nothing goes until the window's end",
			events: seq(adoptWindow(50, 10*time.Second, 45, 9*time.Second), one(event{at: 2 * time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 0, 7*time.Second)})),
			want:   expect{at: 3 * time.Second, mode: modeByWindow, delay: 6 * time.Second},
		},
		{
			name:   "rule 11: at its end, the whole count",
			events: seq(adoptWindow(50, 10*time.Second, 45, 9*time.Second), one(event{at: 2 * time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 0, 7*time.Second)})),
			want:   expect{at: 9 * time.Second, mode: modeByWindow, someDelay: true, delay: 0},
		},
		{
			name:   "rule 11: the count falling by more than this client's answers shows others, and what is left still goes at once",
			events: seq(adoptWindow(50, 10*time.Second, 45, 8*time.Second), one(event{at: time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 20, 7*time.Second)})),
			want:   expect{at: 2 * time.Second, mode: modeByWindow, rate: 1000, others: &yes},
		},
		{
			name:   "rule 11: a count that fell by this client's answers alone shows no others",
			events: seq(adoptWindow(50, 10*time.Second, 45, 8*time.Second), one(event{at: time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 44, 7*time.Second)})),
			want:   expect{at: 2 * time.Second, mode: modeByWindow, others: &no},
		},
		{
			name: "rule 11: refused past the window's end with no Retry-After or t: the next end a window from now",
			events: seq(adoptWindow(50, 10*time.Second, 45, 9*time.Second), one(event{at: 8 * time.Second, sends: 1, answer: withFields(ok200(), 50, 10*time.Second, 0, time.Second)}),
				one(event{at: 10 * time.Second, sends: 1, answer: refused(0)})),
			want: expect{at: 10 * time.Second, mode: modeByWindow, delay: 10 * time.Second},
		},
		{
			name:   "rule 12: a 429 wins: closed for its Retry-After, nothing reckoned left",
			events: seq(adoptWindow(50, 10*time.Second, 45, 8*time.Second), one(event{at: time.Second, sends: 1, answer: withFields(refused(7*time.Second), 50, 10*time.Second, 0, 7*time.Second)})),
			want:   expect{at: 2 * time.Second, mode: modeByWindow, closed: 6 * time.Second, delay: 6 * time.Second},
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
