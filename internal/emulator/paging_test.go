package emulator_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

type pageOf[T any] struct {
	Items    []T     `json:"items"`
	NextPage *string `json:"nextPage"`
}

// getPage fetches one page; cursor "" means the first page, size 0 means no
// pageSize parameter. It checks the page's shape: items an array, nextPage
// present (string or null).
func getPage[T any](t testing.TB, srv *emulatortest.Server, list, cursor string, size int) pageOf[T] {
	t.Helper()
	q := url.Values{}
	if cursor != "" {
		q.Set("page", cursor)
	}
	if size != 0 {
		q.Set("pageSize", fmt.Sprint(size))
	}
	path := list
	if len(q) > 0 {
		path += "?" + q.Encode() // QueryEscape: '+', '/' and '=' are encoded
	}
	r := api(t, srv, "GET", path, "")
	mustStatus(t, r, 200)
	var shape map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &shape); err != nil {
		t.Fatal(err)
	}
	if len(shape) != 2 || shape["items"] == nil || shape["nextPage"] == nil || shape["items"][0] != '[' {
		t.Fatalf("page shape: %s", r.Body)
	}
	return decode[pageOf[T]](t, r)
}

// listAll pages through list with size and returns every item. It checks
// that every page but the last is full, that the last one is not empty
// (unless the whole list is) and that it alone has nextPage null.
func listAll[T any](t testing.TB, srv *emulatortest.Server, list string, size int) []T {
	t.Helper()
	items, _ := listAllCursors[T](t, srv, list, size)
	return items
}

func listAllCursors[T any](t testing.TB, srv *emulatortest.Server, list string, size int) (items []T, cursors []string) {
	t.Helper()
	want := size
	if want == 0 {
		want = 10
	}
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 100_000 {
			t.Fatalf("%s: paging does not end", list)
		}
		pg := getPage[T](t, srv, list, cursor, size)
		items = append(items, pg.Items...)
		if pg.NextPage == nil {
			if len(pg.Items) == 0 && pages > 0 {
				t.Errorf("%s pageSize %d: last page (page %d) is empty; the page before should have had nextPage null", list, size, pages+1)
			}
			if len(pg.Items) > want {
				t.Errorf("%s pageSize %d: last page has %d items", list, size, len(pg.Items))
			}
			return items, cursors
		}
		if len(pg.Items) != want {
			t.Errorf("%s pageSize %d: page %d has %d items but a next page", list, size, pages+1, len(pg.Items))
		}
		if *pg.NextPage == "" {
			t.Fatalf("%s: nextPage is an empty string", list)
		}
		cursor = *pg.NextPage
		cursors = append(cursors, cursor)
	}
}

func subID(s emulator.Subscription) string { return s.ID }
func planID(p state.Plan) string           { return p.ID }
func iccid(e state.Esim) string            { return e.ICCID }

func TestPaginationEveryPageSize(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, emulator.DefaultEsims)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	const nSubs = 60
	var created []string
	for i := range nSubs {
		plan := "plan_004" // no label: any eSIM
		if i%3 == 1 {
			plan = "plan_001" // label global
		}
		created = append(created, create(t, srv, plan).ID)
	}
	newestFirst := slices.Clone(created)
	slices.Reverse(newestFirst)
	wantPlans := ids(ds.Plans, planID)
	wantEsims := ids(ds.Esims, iccid)

	var mu sync.Mutex
	var allCursors []string
	// The group returns when all its parallel subtests are done.
	t.Run("sizes", func(t *testing.T) {
		for size := 1; size <= 25; size++ {
			t.Run(fmt.Sprint("pageSize=", size), func(t *testing.T) {
				t.Parallel()
				subs, c1 := listAllCursors[emulator.Subscription](t, srv, "/v1/subscriptions", size)
				plans, c2 := listAllCursors[state.Plan](t, srv, "/v1/plans", size)
				esims, c3 := listAllCursors[state.Esim](t, srv, "/v1/esims", size)
				if got := ids(subs, subID); !slices.Equal(got, newestFirst) {
					t.Errorf("subscriptions: got %d ids, want %d newest first\ngot  %v\nwant %v", len(got), len(newestFirst), got, newestFirst)
				}
				for i := 1; i < len(subs); i++ {
					if subs[i].CreatedAt > subs[i-1].CreatedAt {
						t.Errorf("subscription %d created at %d after the one before it (%d)", i, subs[i].CreatedAt, subs[i-1].CreatedAt)
					}
				}
				if got := ids(plans, planID); !slices.Equal(got, wantPlans) {
					t.Errorf("plans not in data-set order:\ngot  %v\nwant %v", got, wantPlans)
				}
				if got := ids(esims, iccid); !slices.Equal(got, wantEsims) {
					t.Errorf("eSIMs not in data-set order:\ngot  %v\nwant %v", got, wantEsims)
				}
				mu.Lock()
				allCursors = append(allCursors, c1...)
				allCursors = append(allCursors, c2...)
				allCursors = append(allCursors, c3...)
				mu.Unlock()
			})
		}
	})
	t.Run("cursor-alphabet", func(t *testing.T) {
		// Every cursor above was sent URL-encoded (url.Values.Encode uses
		// QueryEscape) and worked; at least some of them need the encoding.
		mu.Lock()
		defer mu.Unlock()
		all := allCursors
		if len(all) < 100 {
			t.Fatalf("only %d cursors collected", len(all))
		}
		special := 0
		for _, cur := range all {
			if strings.ContainsAny(cur, "+/=") {
				special++
			}
		}
		if special == 0 {
			t.Errorf("none of %d cursors contains '+', '/' or '='; clients would never be tested on URL-encoding them", len(all))
		}
		t.Logf("%d of %d cursors contain '+', '/' or '='", special, len(all))
	})

	t.Run("default-pageSize", func(t *testing.T) {
		for _, list := range []string{"/v1/subscriptions", "/v1/plans", "/v1/esims"} {
			pg := getPage[json.RawMessage](t, srv, list, "", 0)
			if len(pg.Items) != 10 || pg.NextPage == nil {
				t.Errorf("%s without pageSize: %d items, nextPage %v; want 10 and a next page", list, len(pg.Items), pg.NextPage)
			}
		}
		if got := listAll[state.Esim](t, srv, "/v1/esims", 0); len(got) != len(wantEsims) {
			t.Errorf("default page size: %d eSIMs, want %d", len(got), len(wantEsims))
		}
	})
}

// Each subscription takes its eSIM, so the eSIM list shows the assignments
// while paging.
func TestPaginationShowsAssignments(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(7, 0)})
	var subs []emulator.Subscription
	for range 4 {
		subs = append(subs, create(t, srv, planBasic))
	}
	esims := listAll[state.Esim](t, srv, "/v1/esims", 3)
	for i, es := range esims {
		switch {
		case i < 4 && (es.SubscriptionID == nil || *es.SubscriptionID != subs[i].ID || es.ICCID != subs[i].EsimICCID):
			t.Errorf("eSIM %d: %+v, want assigned to %s", i, es, subs[i].ID)
		case i >= 4 && es.SubscriptionID != nil:
			t.Errorf("eSIM %d assigned to %s, want free", i, *es.SubscriptionID)
		}
	}
}

func TestPaginationEmptyList(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: &state.Dataset{}})
	for _, list := range []string{"/v1/subscriptions", "/v1/plans", "/v1/esims"} {
		r := api(t, srv, "GET", list, "")
		mustStatus(t, r, 200)
		if string(r.Body) != `{"items":[],"nextPage":null}` {
			t.Errorf("%s: %s", list, r.Body)
		}
	}
}

func TestPaginationBadParameters(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	other := emulatortest.Start(t, emulator.Options{})
	for range 30 {
		create(t, srv, "plan_004")
		create(t, other, "plan_004")
	}
	lists := []string{"/v1/subscriptions", "/v1/plans", "/v1/esims"}
	cursorOf := func(s *emulatortest.Server, list string) string {
		pg := getPage[json.RawMessage](t, s, list, "", 5)
		if pg.NextPage == nil {
			t.Fatalf("%s: no next page", list)
		}
		return *pg.NextPage
	}
	bad := func(t *testing.T, list, query string) {
		t.Helper()
		requireError(t, api(t, srv, "GET", list+"?"+query, ""), 400, "invalidRequest")
	}
	for _, list := range lists {
		t.Run(strings.TrimPrefix(list, "/v1/"), func(t *testing.T) {
			for _, size := range []string{"0", "26", "abc", "1.5", "-1", "", " 5", "0x5", "１"} {
				bad(t, list, "pageSize="+url.QueryEscape(size))
			}
			// pageSize is checked even on a valid cursor.
			bad(t, list, "page="+url.QueryEscape(cursorOf(srv, list))+"&pageSize=26")

			good := cursorOf(srv, list)
			raw, err := base64.StdEncoding.DecodeString(good)
			if err != nil {
				t.Fatalf("cursor %q is not standard base64: %v", good, err)
			}
			// Tampering: every byte, every bit.
			for i := range raw {
				for bit := range 8 {
					tampered := slices.Clone(raw)
					tampered[i] ^= 1 << bit
					bad(t, list, "page="+url.QueryEscape(base64.StdEncoding.EncodeToString(tampered)))
				}
			}
			for _, g := range []string{
				"garbage", "AAAA", "====", "null", "0", "-1",
				good[:len(good)-4], // truncated
				good + "AAAA",      // extended
				base64.URLEncoding.EncodeToString(raw) + "x", // wrong alphabet, wrong length
				base64.StdEncoding.EncodeToString(raw[:len(raw)-1]),
				base64.StdEncoding.EncodeToString(append(slices.Clone(raw), 0)),
				strings.Repeat("A", 4096),
			} {
				bad(t, list, "page="+url.QueryEscape(g))
			}
			// A cursor of another list.
			for _, from := range lists {
				if from != list {
					bad(t, list, "page="+url.QueryEscape(cursorOf(srv, from)))
				}
			}
			// A cursor of another emulator instance, for the same list and
			// position.
			bad(t, list, "page="+url.QueryEscape(cursorOf(other, list)))
			// The good cursor still works after all that.
			if pg := getPage[json.RawMessage](t, srv, list, good, 5); len(pg.Items) != 5 {
				t.Errorf("good cursor: %d items", len(pg.Items))
			}
		})
	}
	t.Run("reset-invalidates", func(t *testing.T) {
		c := cursorOf(srv, "/v1/plans")
		mustStatus(t, ctl(t, srv, "POST", "/_emulator/reset", ""), 204)
		bad(t, "/v1/plans", "page="+url.QueryEscape(c))
	})
}

func TestPaginationInsertBetweenPages(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	var before []string
	for range 23 {
		before = append(before, create(t, srv, "plan_004").ID)
	}
	slices.Reverse(before) // newest first
	first := getPage[emulator.Subscription](t, srv, "/v1/subscriptions", "", 10)
	var newer []string
	for range 5 {
		newer = append(newer, create(t, srv, "plan_004").ID)
	}
	seen := ids(first.Items, subID)
	cursor := first.NextPage
	for cursor != nil {
		pg := getPage[emulator.Subscription](t, srv, "/v1/subscriptions", *cursor, 10)
		seen = append(seen, ids(pg.Items, subID)...)
		cursor = pg.NextPage
	}
	if !slices.Equal(seen, before) {
		t.Errorf("paging across inserts:\ngot  %v\nwant %v", seen, before)
	}
	for _, id := range newer {
		if slices.Contains(seen, id) {
			t.Errorf("subscription %s created after page 1 appeared after the cursor", id)
		}
	}
	// A fresh listing starts with the new ones.
	fresh := getPage[emulator.Subscription](t, srv, "/v1/subscriptions", "", 5)
	slices.Reverse(newer)
	if got := ids(fresh.Items, subID); !slices.Equal(got, newer) {
		t.Errorf("fresh page 1 %v, want %v", got, newer)
	}
}

// The same holds for the plan list, which grows when inline plans are made.
func TestPaginationPlansGrowBetweenPages(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(12, 20)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	first := getPage[state.Plan](t, srv, "/v1/plans", "", 5)
	sub := decode[emulator.Subscription](t, api(t, srv, "POST", "/v1/subscriptions", `{"plan":{"coverageId":"c","dataMBs":5,"periodDays":5}}`))
	seen := ids(first.Items, planID)
	for cursor := first.NextPage; cursor != nil; {
		pg := getPage[state.Plan](t, srv, "/v1/plans", *cursor, 5)
		seen = append(seen, ids(pg.Items, planID)...)
		cursor = pg.NextPage
	}
	want := append(ids(ds.Plans, planID), sub.PlanID)
	if !slices.Equal(seen, want) {
		t.Errorf("plans %v, want %v", seen, want)
	}
}
