package emulator

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
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
	for range n {
		if _, apiErr := e.store.create(&change{}, createInput{PlanID: benchPlan}); apiErr != nil {
			b.Fatal(apiErr.Message)
		}
	}
	return e
}

func serveBench(b *testing.B, e *Emulator, method, target, body string) *httptest.ResponseRecorder {
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	req.Header.Set("Authorization", "Bearer "+benchToken)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

// BenchmarkListSubscriptionsPage lists a page of 25 at 100k subscriptions:
// the first page, one in the middle and the last full page. The cost must
// not depend on the depth (the cursor holds a position, not an offset to
// scan to).
func BenchmarkListSubscriptionsPage(b *testing.B) {
	e := benchEmulator(b, benchSubs)
	key := e.store.cursorKey
	// The subscriptions cursor holds the Seq of the last item returned;
	// newest first, so Seq 27 is near the end of the list.
	for _, c := range []struct {
		name   string
		cursor string
	}{
		{"first", ""},
		{"middle", encodeCursor(key, listSubscriptions, benchSubs/2)},
		{"deep", encodeCursor(key, listSubscriptions, 27)},
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
				if pg, err := e.store.listSubscriptions(c.cursor, 25); err != nil || len(pg.Items) != 25 {
					b.Fatal(err, len(pg.Items))
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
		{"deep", encodeCursor(key, listEsims, 2*benchSubs-25)},
	} {
		b.Run("esims/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if pg, err := e.store.listEsims(c.cursor, 25); err != nil || len(pg.Items) != 25 {
					b.Fatal(err, len(pg.Items))
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
	b.ReportMetric(float64(len(e.store.subs)), "subs-at-end")
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
		e.store.addEsims(&change{}, benchSubs, nil)
		b.StartTimer()
		rec = serveBench(b, e, "POST", "/v1/subscriptions", body)
	}
	if rec.Code != http.StatusOK {
		b.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
