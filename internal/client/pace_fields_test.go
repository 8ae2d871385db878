package client

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// staggers are the pipelines' start offsets every shared-quota figure is
// the worst of.
var staggers = [][]time.Duration{
	{0, 0, 0},
	{0, 3 * time.Millisecond, 17 * time.Millisecond},
	{0, 17 * time.Millisecond, 400 * time.Millisecond},
	{0, 100 * time.Millisecond, 400 * time.Millisecond},
	{0, 250 * time.Millisecond, 900 * time.Millisecond},
}

// fleetFigures is what pipelines sharing one token saw, over all of them.
type fleetFigures struct {
	failed         int
	limitedShare   float64 // of all requests
	slowestOfFloor float64
	spread         float64 // the last to finish after the first, as a fraction of the first
}

func (f fleetFigures) String() string {
	return fmt.Sprintf("%d failed, %.1f%% answered 429, slowest %.3fx the floor, last %.0f%% after first", f.failed, 100*f.limitedShare, f.slowestOfFloor, 100*f.spread)
}

func figuresOf(ps []outcome, perSecond float64) fleetFigures {
	var all outcome
	fastest, slowest := ps[0].elapsed, ps[0].elapsed
	var f fleetFigures
	for _, p := range ps {
		f.failed += p.failed
		all.requests, all.limited = all.requests+p.requests, all.limited+p.limited
		fastest, slowest = min(fastest, p.elapsed), max(slowest, p.elapsed)
	}
	f.limitedShare = float64(all.limited) / float64(all.requests)
	f.slowestOfFloor = float64(slowest) / float64(all.floor(perSecond))
	f.spread = float64(slowest)/float64(fastest) - 1
	return f
}

// starts of n pipelines, the first three at offsets, the rest spread
// evenly over the last offset.
func startsOf(n int, offsets []time.Duration) []time.Duration {
	starts := make([]time.Duration, n)
	for i := range n {
		switch {
		case i < len(offsets):
			starts[i] = offsets[i]
		default:
			starts[i] = offsets[len(offsets)-1] * time.Duration(i) / time.Duration(n)
		}
	}
	return starts
}

func worstOverStaggers(t *testing.T, pipelines int, w workload) fleetFigures {
	var worst fleetFigures
	for _, offsets := range staggers {
		f := figuresOf(runPipelines(t, startsOf(pipelines, offsets), w), w.perSecond)
		t.Logf("%d×%d at %v/s %s %s, starts %v: %v", pipelines, w.creates, w.perSecond, w.fields, w.quirk, offsets, f)
		worst.failed = max(worst.failed, f.failed)
		worst.limitedShare = max(worst.limitedShare, f.limitedShare)
		worst.slowestOfFloor = max(worst.slowestOfFloor, f.slowestOfFloor)
		worst.spread = max(worst.spread, f.spread)
	}
	return worst
}

func TestPaceQuotaFieldsExplore(t *testing.T) {
	if os.Getenv("PACE_EXPLORE") == "" {
		t.Skip("exploration")
	}
	if os.Getenv("PACE_EXPLORE") == "fleet" {
		w := workload{creates: 100, workers: 10, perSecond: 25, fields: emulator.QuotaFieldsIETF}
		t.Logf("WORST 50×100 at 25: %v", worstOverStaggers(t, 50, w))
		return
	}
	if q := os.Getenv("PACE_QUIRK"); q != "" {
		for _, quirk := range []emulator.QuotaFieldsQuirk{emulator.QuirkNearExhaustion, emulator.QuirkDropped, emulator.QuirkMalformed, emulator.QuirkLying} {
			for _, single := range []workload{{creates: 100, workers: 30, perSecond: 5}, {creates: 200, workers: 10, perSecond: 20}, {creates: 40, workers: 10, perSecond: 1}} {
				single.fields, single.quirk = emulator.QuotaFieldsIETF, quirk
				o := runCreates(t, single)
				t.Logf("%s single %d at %v: %v; %.3fx floor", quirk, single.creates, single.perSecond, o, float64(o.elapsed)/float64(o.floor(single.perSecond)))
			}
			for _, tc := range []struct {
				n int
				w workload
			}{{3, workload{creates: 40, workers: 10, perSecond: 5}}, {3, workload{creates: 10, workers: 10, perSecond: 1}}} {
				tc.w.fields, tc.w.quirk = emulator.QuotaFieldsIETF, quirk
				t.Logf("%s WORST %d×%d at %v: %v", quirk, tc.n, tc.w.creates, tc.w.perSecond, worstOverStaggers(t, tc.n, tc.w))
			}
		}
		w := workload{creates: 40, workers: 10, perSecond: 5, fields: emulator.QuotaFieldsX}
		t.Logf("x-ratelimit WORST 3×40 at 5: %v", worstOverStaggers(t, 3, w))
		return
	}
	for _, fields := range []emulator.QuotaFields{emulator.QuotaFieldsIETF} {
		for _, single := range []workload{{creates: 100, workers: 30, perSecond: 5}, {creates: 200, workers: 10, perSecond: 20}, {creates: 40, workers: 10, perSecond: 1}} {
			single.fields = fields
			o := runCreates(t, single)
			t.Logf("single %d at %v: %v; %.3fx floor", single.creates, single.perSecond, o, float64(o.elapsed)/float64(o.floor(single.perSecond)))
		}
		for _, tc := range []struct {
			n int
			w workload
		}{
			{3, workload{creates: 40, workers: 10, perSecond: 5}},
			{10, workload{creates: 40, workers: 10, perSecond: 5}},
			{3, workload{creates: 10, workers: 10, perSecond: 1}},
			{3, workload{creates: 400, workers: 10, perSecond: 5}},
		} {
			tc.w.fields = fields
			t.Logf("WORST %d×%d at %v: %v", tc.n, tc.w.creates, tc.w.perSecond, worstOverStaggers(t, tc.n, tc.w))
		}
	}
}

func TestPaceQuotaFieldsTrace(t *testing.T) {
	if os.Getenv("PACE_TRACE") == "" {
		t.Skip("trace")
	}
	n, _ := strconv.Atoi(os.Getenv("PACE_TRACE"))
	st, _ := strconv.Atoi(os.Getenv("PACE_STAGGER"))
	ps := runPipelines(t, startsOf(n, staggers[st]), workload{creates: 40, workers: 10, perSecond: 5, fields: emulator.QuotaFieldsIETF})
	for i, p := range ps {
		t.Logf("pipeline %d: %v", i, p)
	}
	t.Log(figuresOf(ps, 5))
}

func TestPaceQuotaFieldsTraceSingle(t *testing.T) {
	if os.Getenv("PACE_TRACE") == "" {
		t.Skip("trace")
	}
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{Dataset: dataset(3, 50), RateLimit: 1, QuotaFields: emulator.QuotaFieldsIETF}, nil)
		start := time.Now()
		for i := range 5 {
			_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{Plan: &InlinePlan{CoverageID: "cov-eu", DataMBs: 1024, PeriodDays: 30}})
			t.Logf("%d at %v: %v", i, time.Since(start), err)
		}
		t.Log(emu.Stats().RateLimited)
	})
}

func TestPaceQuotaFieldsTraceOne(t *testing.T) {
	if os.Getenv("PACE_TRACE") == "" {
		t.Skip("trace")
	}
	o := runCreates(t, workload{creates: 200, workers: 10, perSecond: 20, fields: emulator.QuotaFieldsIETF})
	t.Logf("%v %.3f", o, float64(o.elapsed)/float64(o.floor(20)))
}
