package emulator

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

const (
	benchToken = "bench-token"
	benchSubs  = 100_000
	benchPlan  = "plan_004" // no label: any free eSIM
)

// benchEmulator builds an emulator holding n subscriptions, made through the
// store directly, with as many free eSIMs again.
func benchEmulator(b *testing.B, n int) *Emulator {
	b.Helper()
	ds := DefaultDataset(40, 2*n)
	e, err := New(Options{Token: benchToken, Dataset: &ds})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.Close)
	if err := e.state.Update(func(tx *state.Tx) error { return createMany(tx, n) }); err != nil {
		b.Fatal(err)
	}
	return e
}

// createMany makes n subscriptions to benchPlan in one transaction.
func createMany(tx *state.Tx, n int) error {
	for range n {
		if _, apiErr := createSubscription(tx, createInput{PlanID: benchPlan}); apiErr != nil {
			return errors.New(apiErr.Message)
		}
	}
	return nil
}

func serveBench(b *testing.B, e *Emulator, method, target, body string) *httptest.ResponseRecorder {
	return Serve(e, method, target, "127.0.0.1:40000", "Bearer "+benchToken, body)
}

// BenchmarkListSubscriptionsPage lists a page of 25 at 100k subscriptions:
// the first page, one in the middle and the last full page. The cost must
// not depend on the depth (the cursor holds a position, not an offset to
// scan to).
func BenchmarkListSubscriptionsPage(b *testing.B) {
	e := benchEmulator(b, benchSubs)
	// The subscriptions cursor holds the Seq of the last item returned;
	// newest first, so Seq 27 is near the end of the list. A page as long
	// as the list up to there hands out that cursor.
	var middle, deep, esimsDeep *string
	e.state.View(func(r *state.ReadTx) {
		_, middle, _ = r.ListSubscriptions("", benchSubs-benchSubs/2+1)
		_, deep, _ = r.ListSubscriptions("", benchSubs-27+1)
		_, esimsDeep, _ = r.ListEsims("", 2*benchSubs-25)
	})
	for _, c := range []struct {
		name   string
		cursor string
	}{
		{"first", ""},
		{"middle", *middle},
		{"deep", *deep},
	} {
		target := "/v1/subscriptions?pageSize=25"
		if c.cursor != "" {
			target += "&page=" + url.QueryEscape(c.cursor)
		}
		if rec := serveBench(b, e, "GET", target, ""); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"id"`) {
			b.Fatalf("%s: %d %s", c.name, rec.Code, rec.Body)
		}
		b.Run("http/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if rec := serveBench(b, e, "GET", target, ""); rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
		b.Run("store/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var items []state.Subscription
				var err error
				e.state.View(func(r *state.ReadTx) { items, _, err = r.ListSubscriptions(c.cursor, 25) })
				if err != nil || len(items) != 25 {
					b.Fatal(err, len(items))
				}
			}
		})
	}
	// The eSIM list (200k records) pages forward: first and last page.
	for _, c := range []struct {
		name   string
		cursor string
	}{
		{"first", ""},
		{"deep", *esimsDeep},
	} {
		b.Run("esims/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var items []state.Esim
				var err error
				e.state.View(func(r *state.ReadTx) { items, _, err = r.ListEsims(c.cursor, 25) })
				if err != nil || len(items) != 25 {
					b.Fatal(err, len(items))
				}
			}
		})
	}
}

// BenchmarkCreateSubscription creates subscriptions through the handler at
// 100k existing ones.
func BenchmarkCreateSubscription(b *testing.B) {
	e := benchEmulator(b, benchSubs)
	body := `{"planId":"` + benchPlan + `"}`
	b.ReportAllocs()
	for b.Loop() {
		createForBench(b, e, body)
	}
	b.ReportMetric(float64(e.Stats().Subscriptions), "subs-at-end")
}

// BenchmarkCreateSubscriptionInline is the same with an inline plan, which
// also adds a plan per call.
func BenchmarkCreateSubscriptionInline(b *testing.B) {
	e := benchEmulator(b, benchSubs)
	body := `{"plan":{"coverageId":"cov-bench","dataMBs":1024,"periodDays":30}}`
	b.ReportAllocs()
	for b.Loop() {
		createForBench(b, e, body)
	}
}

// createForBench creates one subscription through the handler.
func createForBench(b *testing.B, e *Emulator, body string) {
	b.Helper()
	rec := serveBench(b, e, "POST", "/v1/subscriptions", body)
	if rec.Code == http.StatusPreconditionFailed {
		// Out of eSIMs after a long run: buy more, off the clock.
		b.StopTimer()
		if err := e.state.Update(func(tx *state.Tx) error { tx.AddEsims(benchSubs, nil); return nil }); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rec = serveBench(b, e, "POST", "/v1/subscriptions", body)
	}
	if rec.Code != http.StatusOK {
		b.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
