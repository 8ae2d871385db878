package client

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

func TestPagingReadsMoreThan100EsimsInOrder(t *testing.T) {
	t.Parallel()
	ds := dataset(30, 130)
	emu, c := startWithClient(t, ds)

	esims := mustCollect(t, c.Esims(bg), nil, 0)
	if len(esims) != 130 {
		t.Fatalf("read %d eSIMs, want 130", len(esims))
	}
	for i, e := range esims {
		if e.ICCID != ds.Esims[i].ICCID {
			t.Fatalf("eSIM %d = %s, want %s (order of the service)", i, e.ICCID, ds.Esims[i].ICCID)
		}
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 6 { // ceil(130/25)
		t.Errorf("GET /v1/esims requests = %d, want ceil(130/25) = 6", n)
	}
}

func TestPagingReads110SubscriptionsNewestFirst(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, dataset(30, 130))
	c := newTestClient(t, emu.URL, nil)

	var created []string
	for range 110 {
		s, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_004"}) // no label: any eSIM
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, s.ID)
	}
	var got []string
	for s, err := range c.Subscriptions(bg) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s.ID)
	}
	slices.Reverse(created)
	if !slices.Equal(got, created) {
		t.Fatalf("listed %d subscriptions, want the %d created, newest first", len(got), len(created))
	}
	if n := emu.RequestCounts()["GET /v1/subscriptions"]; n != 5 { // ceil(110/25)
		t.Errorf("GET /v1/subscriptions requests = %d, want ceil(110/25) = 5", n)
	}
}

func TestPagingRequestCountIsCeilNOver25(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 24, 25, 26, 50, 51, 101} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			emu := startEmulator(t, dataset(1, n))
			c := newTestClient(t, emu.URL, nil)
			esims, err := Collect(c.Esims(bg), nil, 0)
			if err != nil || len(esims) != n {
				t.Fatalf("read %d eSIMs, %v; want %d", len(esims), err, n)
			}
			want := max(1, (n+24)/25)
			if got := emu.RequestCounts()["GET /v1/esims"]; got != want {
				t.Errorf("requests = %d, want %d", got, want)
			}
		})
	}
}

func TestCollectLimitStopsEarly(t *testing.T) {
	t.Parallel()
	ds := dataset(30, 130)
	emu, c := startWithClient(t, ds)

	esims := mustCollect(t, c.Esims(bg), nil, 30)
	if len(esims) != 30 || esims[29].ICCID != ds.Esims[29].ICCID {
		t.Fatalf("Collect(limit 30) = %d items", len(esims))
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 2 {
		t.Errorf("limit 30 made %d requests, want 2", n)
	}

	// With a filter: the first 3 unlabelled eSIMs are the 10th, 20th and
	// 30th, all on the first two pages.
	unlabelled := mustCollect(t, c.Esims(bg), func(e Esim) bool { return e.Label == nil }, 3)
	if len(unlabelled) != 3 || unlabelled[2].ICCID != state.ICCID(30) {
		t.Errorf("filtered Collect = %s", dump(unlabelled))
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 4 {
		t.Errorf("requests after the filtered Collect = %d, want 2 + 2", n)
	}

	// Stopping a range loop fetches no further page.
	for _, err := range c.Esims(bg) {
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 5 {
		t.Errorf("requests after breaking on the first item = %d, want 4 + 1", n)
	}
}

func TestCollectReturnsItemsReadBeforeAnError(t *testing.T) {
	t.Parallel()
	seq := func(yield func(int, error) bool) {
		for i := range 3 {
			if !yield(i, nil) {
				return
			}
		}
		yield(0, errors.New("boom"))
	}
	got, err := Collect(seq, nil, 0)
	if err == nil || !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("Collect = %v, %v", got, err)
	}
	got, err = Collect(seq, nil, 2)
	if err != nil || !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Collect(limit 2) = %v, %v; the limit is reached before the error", got, err)
	}
}

// TestPagingCursorsSurviveURLEncoding serves a plan list of three pages whose cursors hold
// characters that need URL encoding, and checks that each is passed back
// byte for byte.
func TestPagingCursorsSurviveURLEncoding(t *testing.T) {
	t.Parallel()
	cursors := []string{"a+b/c==", "x y&z=1?#%2B;"}
	var rawQueries, problems strList
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		rawQueries.add(r.URL.RawQuery)
		q := r.URL.Query()
		if q.Get("pageSize") != "25" {
			problems.add("pageSize=" + q.Get("pageSize"))
		}
		var items []map[string]any
		var next any
		switch page := q.Get("page"); {
		case !q.Has("page"):
			items, next = []map[string]any{{"id": "p1"}, {"id": "p2"}}, cursors[0]
		case page == cursors[0]:
			items, next = []map[string]any{{"id": "p3"}}, cursors[1]
		case page == cursors[1]:
			items, next = []map[string]any{{"id": "p4"}}, nil
		default:
			problems.add(fmt.Sprintf("unknown cursor %q", page))
			writeServiceError(w, 400, "invalidRequest", "unknown cursor")
			return
		}
		writeJSONResponse(w, 200, map[string]any{"items": items, "nextPage": next})
	})
	c := newTestClient(t, srv.URL, nil)
	plans, err := Collect(c.Plans(bg), nil, 0)
	if err != nil {
		t.Fatalf("%v (server saw %q)", err, problems.all())
	}
	var ids []string
	for _, p := range plans {
		ids = append(ids, p.ID)
	}
	if !slices.Equal(ids, []string{"p1", "p2", "p3", "p4"}) || len(problems.all()) > 0 {
		t.Errorf("ids = %v, problems %q", ids, problems.all())
	}
	raw := rawQueries.all()
	if len(raw) != 3 || !strings.Contains(raw[1], "page=a%2Bb%2Fc%3D%3D") {
		t.Errorf("raw queries = %q; '+', '/' and '=' must be percent-encoded", raw)
	}
}

func TestPagingEmptyNextPageEndsTheList(t *testing.T) {
	t.Parallel()
	var calls counter
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.add(r)
		_, _ = w.Write([]byte(`{"items":[{"iccid":"1"}],"nextPage":""}`))
	})
	c := newTestClient(t, srv.URL, nil)
	esims, err := Collect(c.Esims(bg), nil, 0)
	if err != nil || len(esims) != 1 || calls.total() != 1 {
		t.Errorf("Collect = %d items, %v after %d requests", len(esims), err, calls.total())
	}
}

func TestPagingRepeatedCursorStops(t *testing.T) {
	t.Parallel()
	var calls counter
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.add(r)
		n := calls.total()
		if n > 10 {
			writeServiceError(w, 500, "internal", "the client is looping")
			return
		}
		// Pages 1 and 2 hand out new cursors; page 3 hands out page 2's again.
		next := map[int]string{1: "c1", 2: "c2", 3: "c2"}[n]
		writeJSONResponse(w, 200, map[string]any{"items": []map[string]any{{"id": fmt.Sprintf("sub_%d", n)}}, "nextPage": next})
	})
	c := newTestClient(t, srv.URL, nil)
	subs, err := Collect(c.Subscriptions(bg), nil, 0)
	var pageErr *PageError
	if !errors.As(err, &pageErr) {
		t.Fatalf("error = %v, want a PageError", err)
	}
	if pageErr.Page != 3 || pageErr.ItemsRead != 3 || len(subs) != 3 || pageErr.Operation != "list subscriptions" {
		t.Errorf("PageError = %+v, items %d", pageErr, len(subs))
	}
	if msg := err.Error(); !strings.Contains(msg, "page 3") || !strings.Contains(msg, `"c2"`) {
		t.Errorf("error text %q should name the page and the cursor", msg)
	}
	if calls.total() != 3 {
		t.Errorf("requests = %d, want 3", calls.total())
	}
}

func TestPagingFailureMidwayGivesPageError(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, dataset(30, 130))
	c := newTestClient(t, emu.URL, func(cfg *Config) { cfg.MaxRetries = ptr(2) })

	read := 0
	var gotErr error
	for e, err := range c.Esims(bg) {
		if err != nil {
			gotErr = err
			break
		}
		if e.ICCID == "" {
			t.Fatal("empty item")
		}
		read++
		if read == 50 { // the last item of page 2: page 3 will fail
			emu.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/esims", Action: "status", Status: 500}}})
		}
	}
	var pageErr *PageError
	if !errors.As(gotErr, &pageErr) {
		t.Fatalf("error = %v, want a PageError", gotErr)
	}
	if pageErr.Page != 3 || pageErr.ItemsRead != 50 || read != 50 || pageErr.Operation != "list eSIMs" {
		t.Errorf("PageError = %+v after %d items", pageErr, read)
	}
	var apiErr *APIError
	if !errors.As(gotErr, &apiErr) || apiErr.StatusCode != 500 || apiErr.Attempts != 3 {
		t.Errorf("wrapped error = %s, want the APIError of the last of 3 attempts", dump(apiErr))
	}
	for _, part := range []string{"list eSIMs", "page 3", "50 items", "500"} {
		if !strings.Contains(gotErr.Error(), part) {
			t.Errorf("error text %q lacks %q", gotErr, part)
		}
	}
	if n := emu.RequestCounts()["GET /v1/esims"]; n != 2+3 {
		t.Errorf("requests = %d; want 2 pages + 3 attempts at page 3", n)
	}
}

// A list never answers 404 at the service: one that does is not there,
// and base_url is wrong; nothing is missing.
func TestPagingNotFoundIsNoSuchPath(t *testing.T) {
	t.Parallel()
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeServiceError(w, 404, "notFound", "no such list")
	})
	c := newTestClient(t, srv.URL, nil)
	_, err := Collect(c.Plans(bg), nil, 0)
	var pageErr *PageError
	var noPath *NoSuchPathError
	if !errors.As(err, &pageErr) || pageErr.Page != 1 || !errors.As(err, &noPath) || IsNotFound(err) {
		t.Errorf("error = %v, want a PageError for page 1 that is a NoSuchPathError", err)
	}
}

// Pages reads one page per Next, only when asked: a caller that stops
// after the first page sends one request.
func TestSubscriptionPagesReadOnePagePerNext(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, dataset(30, 60))
	c := newTestClient(t, emu.URL, nil)
	var created []string
	for range 30 {
		s, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_004"})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, s.ID)
	}
	slices.Reverse(created)
	pages := c.SubscriptionPages()
	first, more, err := pages.Next(bg)
	if err != nil || !more || len(first) != MaxPageSize {
		t.Fatalf("first page: %d items, more %v, %v; want %d, true, nil", len(first), more, err, MaxPageSize)
	}
	if n := emu.RequestCounts()["GET /v1/subscriptions"]; n != 1 {
		t.Fatalf("requests after one Next = %d, want 1", n)
	}
	second, more, err := pages.Next(bg)
	if err != nil || more || len(second) != 5 {
		t.Fatalf("second page: %d items, more %v, %v; want 5, false, nil", len(second), more, err)
	}
	var got []string
	for _, s := range append(first, second...) {
		got = append(got, s.ID)
	}
	if !slices.Equal(got, created) {
		t.Errorf("pages brought %v, want %v (newest first)", got, created)
	}
	if items, more, err := pages.Next(bg); items != nil || more || err != nil {
		t.Errorf("Next after the last page = %v, %v, %v; want nothing", items, more, err)
	}
	if n := emu.RequestCounts()["GET /v1/subscriptions"]; n != 2 {
		t.Errorf("requests = %d, want 2: nothing is read after the last page", n)
	}
}
