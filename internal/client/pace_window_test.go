package client

// The pace against quotas of every shape the service may have: a fixed
// window (50 per 10 s, as many APIs count), an hour, and a bucket under
// one a second, with each form of the quota fields and none. Fake time,
// as pace_test.go.

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

var fieldForms = []emulator.QuotaFields{emulator.QuotaFieldsNone, emulator.QuotaFieldsIETF, emulator.QuotaFieldsX}

func formName(f emulator.QuotaFields) string {
	if f == emulator.QuotaFieldsNone {
		return "no fields"
	}
	return string(f)
}

// One apply of 100 creates in a window of 50 per 10 s needs two windows:
// the least time is one window's length. It never fails, takes at most two
// windows and 10%, and the fields never make it slower than none.
func TestPaceFixedWindowOneApply(t *testing.T) {
	t.Parallel()
	elapsed := map[emulator.QuotaFields]time.Duration{}
	for _, fields := range fieldForms {
		o := runCreates(t, workload{creates: 100, workers: 10, perSecond: 5, window: 10 * time.Second, fields: fields})
		t.Logf("%s: %v", formName(fields), o)
		elapsed[fields] = o.elapsed
		if o.failed != 0 || o.requests-o.limited != 100 {
			t.Errorf("%s: %v; want all 100 created, none failed", formName(fields), o)
		}
		if limit := 22 * time.Second; o.elapsed > limit {
			t.Errorf("%s: took %v, want at most %v: two windows and 10%%", formName(fields), o.elapsed, limit)
		}
		if fields != emulator.QuotaFieldsNone && o.limited != 0 {
			t.Errorf("%s: %d answered 429; the fields say when the window ends", formName(fields), o.limited)
		}
	}
	for _, fields := range fieldForms[1:] {
		if elapsed[fields] > elapsed[emulator.QuotaFieldsNone] {
			t.Errorf("%s took %v, slower than without fields (%v)", formName(fields), elapsed[fields], elapsed[emulator.QuotaFieldsNone])
		}
	}
}

// Three pipelines of 40 creates in a window of 50 per 10 s, worst of the
// staggers: none fails, at most 5% are answered 429, the slowest ends
// within two windows and 20%, and the fields never cost a window: the
// slowest with them ends within a second of the slowest without (they end
// within a few milliseconds, but a 429's whole-second Retry-After at a
// window's end can outlast it). Measured: without fields 2.4% to 4.8%
// refused, the slowest 20.03 s to 21.01 s; with either form 0.8% to 3.2%,
// 20.04 s to 20.92 s. With the real CLI (make bench-rate's row, and five
// runs by hand): 21.4 s to 21.5 s with either form, 21.4 s to 21.8 s
// without. (Main at 2c235c7, reading the fields as a bucket's: 41.2 s;
// spreading a crowded window's last half over its time left: 25.4 s.)
func TestPaceFixedWindowPipelines(t *testing.T) {
	t.Parallel()
	worst := map[emulator.QuotaFields]fleetFigures{}
	slowest := map[emulator.QuotaFields]time.Duration{}
	for _, fields := range fieldForms {
		for _, offsets := range staggers {
			ps := runPipelines(t, startsOf(3, offsets), workload{creates: 40, workers: 10, perSecond: 5, window: 10 * time.Second, fields: fields})
			f := figuresOf(ps, 5)
			var last time.Duration
			for _, p := range ps {
				last = max(last, p.elapsed)
			}
			t.Logf("%s, starts %v: %v, slowest %v", formName(fields), offsets, f, last)
			w := worst[fields]
			w.failed, w.limitedShare = max(w.failed, f.failed), max(w.limitedShare, f.limitedShare)
			worst[fields], slowest[fields] = w, max(slowest[fields], last)
		}
		f := worst[fields]
		if f.failed != 0 || f.limitedShare > 0.05 && fields != emulator.QuotaFieldsNone {
			t.Errorf("%s: worst %v; want none failed and at most 5%% answered 429", formName(fields), f)
		}
		if limit := 24 * time.Second; slowest[fields] > limit {
			t.Errorf("%s: the slowest pipeline took %v, want at most %v", formName(fields), slowest[fields], limit)
		}
	}
	for _, fields := range fieldForms[1:] {
		if slowest[fields] > slowest[emulator.QuotaFieldsNone]+time.Second {
			t.Errorf("%s: slowest %v, more than a second after the slowest without fields (%v)", formName(fields), slowest[fields], slowest[emulator.QuotaFieldsNone])
		}
	}
}

// An hourly window that holds the whole run (3,600 an hour, 3 × 400) is
// spent as fast as the service takes it: no 429, and no slower than with
// no quota at all.
func TestPaceHourlyWindowThatHoldsTheRun(t *testing.T) {
	t.Parallel()
	none := runPipelines(t, []time.Duration{0, 0, 0}, workload{creates: 400, workers: 10})
	var unlimited time.Duration
	for _, p := range none {
		unlimited = max(unlimited, p.elapsed)
	}
	for _, fields := range fieldForms {
		ps := runPipelines(t, []time.Duration{0, 0, 0}, workload{creates: 400, workers: 10, perSecond: 1, window: time.Hour, fields: fields})
		var last time.Duration
		limited := 0
		for _, p := range ps {
			last, limited = max(last, p.elapsed), limited+p.limited
		}
		t.Logf("%s: slowest %v, %d answered 429; with no quota %v", formName(fields), last, limited, unlimited)
		if limited != 0 || last > unlimited {
			t.Errorf("%s: %d answered 429, slowest %v; want none, and no slower than with no quota (%v)", formName(fields), limited, last, unlimited)
		}
	}
}

// An hourly window that runs out (100 an hour, 120 creates): 100 are
// created, and the rest fail at their deadline saying when the window
// ends, each refused at most once.
func TestPaceHourlyWindowThatRunsOut(t *testing.T) {
	t.Parallel()
	for _, fields := range fieldForms {
		t.Run(formName(fields), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, 130), RateLimit: 100.0 / 3600, RateLimitWindow: time.Hour, QuotaFields: fields},
					func(cfg *Config) { cfg.MaxRateLimitWait = 5 * time.Minute })
				var created, waitErrs, refusedAnswers int
				var message string
				for range 120 {
					_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{Plan: &InlinePlan{CoverageID: "cov-eu", DataMBs: 1024, PeriodDays: 30}})
					var waitErr *RateLimitWaitError
					var apiErr *APIError
					switch {
					case err == nil:
						created++
					case errors.As(err, &waitErr):
						waitErrs++
						message = err.Error()
					case errors.As(err, &apiErr) && apiErr.StatusCode == 429:
						refusedAnswers++
						message = err.Error()
					default:
						t.Fatal(err)
					}
				}
				st := emu.Stats()
				t.Logf("%d created, %d not sent, %d answered 429 (%d 429s at the service); %s", created, waitErrs, refusedAnswers, st.RateLimited, message)
				if created != 100 || waitErrs+refusedAnswers != 20 {
					t.Errorf("%d created, %d failed; want 100 and 20", created, waitErrs+refusedAnswers)
				}
				if st.RateLimited > 20 || st.RateLimited > refusedAnswers+waitErrs {
					t.Errorf("%d answered 429 for %d failed creates: a request refused more than once", st.RateLimited, 20)
				}
				if fields != emulator.QuotaFieldsNone && (st.RateLimited != 0 || !strings.Contains(message, "quota of 100 requests per 1h0m0s is spent until its window ends in")) {
					t.Errorf("%d answered 429, the last error %q; want none sent past the count, and the window's end named", st.RateLimited, message)
				}
			})
		})
	}
}

// A bucket of 0.3 a second (3 per 10 s, as both field forms say it) with
// 12 creates alone: at most one 429. X-RateLimit-Limit: 3 was once read as
// 3 a second, and 11 of 12 requests were refused.
func TestPaceSlowBucketWithFields(t *testing.T) {
	t.Parallel()
	for _, fields := range fieldForms[1:] {
		o := runCreates(t, workload{creates: 12, workers: 10, perSecond: 0.3, fields: fields})
		t.Logf("%s: %v; floor %v", formName(fields), o, o.floor(0.3))
		if o.failed != 0 || o.limited > 1 {
			t.Errorf("%s: %v; want none failed, at most 1 answered 429", formName(fields), o)
		}
		if limit := time.Duration(1.1 * float64(o.floor(0.3))); o.elapsed > limit {
			t.Errorf("%s: took %v, want at most %v (1.1x the floor)", formName(fields), o.elapsed, limit)
		}
	}
}
