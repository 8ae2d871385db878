package client

// The count rules (pace_count_rules.go, rules 7 to 11) as rows of
// instants, run by pace_policy_test.go's harness: a bucket's count, a
// window's, and how a reading tells one from the other.

import (
	"math"
	"testing"
	"time"
)

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
			// Requests sent at once reach the service in any order: the
			// third counted before the second. The least count its answers
			// gave, less what is in flight, is what is left.
			name: "rule 11: answers counted in another order than sent: the least count, less the requests in flight",
			events: seq(adoptWindow(4, 10*time.Second, 3, 10*time.Second),
				one(event{at: 0, sends: 2, answer: withFields(ok200(), 4, 10*time.Second, 2, 10*time.Second)}),
				one(event{at: 0, of: 2, answer: withFields(ok200(), 4, 10*time.Second, 1, 10*time.Second)})),
			// One unit left: only the spacing of the two sent at 0 holds it.
			want: expect{at: 0, mode: modeByWindow, delay: 2 * time.Millisecond},
		},
		{
			// The second counted first, its answer first: the first, in
			// flight, may have taken the last unit.
			name: "rule 11: a request in flight may have been counted before the answers that came",
			events: seq(one(event{at: 0, sends: 2, answer: withFields(ok200(), 3, 10*time.Second, 2, 10*time.Second)}),
				one(event{at: 0, sends: 1})),
			want: expect{at: 0, mode: modeByWindow, delay: 10 * time.Second},
		},
		{
			// The fourth counted last, answered first: the second and
			// third, in flight, may have taken the last unit, until their
			// answers show they were counted before it.
			name: "rule 11: the answer that shows a unit held back wakes the head",
			events: seq(adoptWindow(5, 10*time.Second, 4, 10*time.Second),
				one(event{at: 0, sends: 3, answer: withFields(ok200(), 5, 10*time.Second, 1, 10*time.Second)}),
				one(event{at: 0, of: 2, answer: withFields(ok200(), 5, 10*time.Second, 3, 10*time.Second)}),
				one(event{at: 0, of: 3, answer: withFields(ok200(), 5, 10*time.Second, 2, 10*time.Second)})),
			want: expect{at: 0, mode: modeByWindow, delay: 3 * time.Millisecond, woken: &yes},
		},
		{
			name: "rule 11: an answer that leaves nothing reckoned wakes no one",
			events: seq(adoptWindow(5, 10*time.Second, 4, 10*time.Second),
				one(event{at: 0, sends: 3, answer: withFields(ok200(), 5, 10*time.Second, 1, 10*time.Second)}),
				one(event{at: 0, of: 2, answer: withFields(ok200(), 5, 10*time.Second, 3, 10*time.Second)})),
			want: expect{at: 0, mode: modeByWindow, delay: 10 * time.Second, woken: &no},
		},
		{
			name: "rule 11: a request never answered may have been counted",
			events: seq(adoptWindow(3, 10*time.Second, 1, 10*time.Second),
				one(event{at: 0, sends: 1, lost: true})),
			want: expect{at: 0, mode: modeByWindow, delay: 10 * time.Second},
		},
		{
			// Two in flight where two were left: the second refused, so
			// others took a unit.
			name: "rule 11: a 429 where the reckoning held a unit for the request shows others",
			events: seq(adoptWindow(3, 10*time.Second, 2, 10*time.Second),
				one(event{at: time.Second, sends: 1}),
				one(event{at: time.Second, sends: 1, answer: withFields(refused(9*time.Second), 3, 10*time.Second, 0, 9*time.Second)})),
			want: expect{at: time.Second, mode: modeByWindow, others: &yes},
		},
		{
			// Two in flight where one was left: the first may have taken it.
			name: "rule 11: a 429 where the reckoning held none for the request shows no others",
			events: seq(adoptWindow(3, 10*time.Second, 1, 10*time.Second),
				one(event{at: time.Second, sends: 1}),
				one(event{at: time.Second, sends: 1, answer: withFields(refused(9*time.Second), 3, 10*time.Second, 0, 9*time.Second)})),
			want: expect{at: time.Second, mode: modeByWindow, others: &no},
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
