package provider

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// The paged reader without Terraform: Reads as Terraform sends them, up to
// ten at once, in an order unrelated to the list's. Each test runs in a
// synctest bubble with the emulator in process, so the reader's waits,
// the client's and the emulator's run on the bubble's clock: the counts
// are exact, the same on every run of a loaded machine.

// getRoute counts the GETs of one subscription; listRoute, the list's pages.
const getRoute = "GET /v1/subscriptions/{id}"

// bubble runs test in a synctest bubble, in parallel with other tests.
func bubble(t *testing.T, test func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, test)
}

// accountWith starts an emulator holding older subscriptions, then newer
// ones on top, created in that order; it returns both, oldest first.
func accountWith(t *testing.T, older, newer int, opts emulator.Options) (srv *account, olderIDs, newerIDs []string) {
	t.Helper()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, older+newer)
	opts.Dataset = &ds
	srv = &account{InProcess: emulatortest.StartInProcess(t, opts), createdAt: map[string]int64{}}
	c := inProcessClient(t, srv, client.DefaultMaxRetries)
	create := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			sub, err := c.CreateSubscription(t.Context(), client.CreateSubscriptionRequest{PlanID: "plan_004"})
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = sub.ID
			srv.createdAt[sub.ID] = sub.CreatedAt
			if i%7 == 6 {
				// Seven a second on the bubble's clock: created_at, in whole
				// seconds, both orders the list and ties within it.
				time.Sleep(time.Second)
			}
		}
		return ids
	}
	olderIDs = create(older)
	newerIDs = create(newer)
	srv.before = srv.InProcess.RequestCounts()
	return srv, olderIDs, newerIDs
}

// account is an emulator whose request counts start after its
// subscriptions were made.
type account struct {
	*emulatortest.InProcess
	before    map[string]int
	createdAt map[string]int64 // of each subscription made, as its state holds it
}

// RequestCounts are the requests by route since the account was made.
func (a *account) RequestCounts() map[string]int {
	counts := a.InProcess.RequestCounts()
	for route, n := range a.before {
		if counts[route] -= n; counts[route] == 0 {
			delete(counts, route)
		}
	}
	return counts
}

func inProcessClient(t *testing.T, srv *account, maxRetries int) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: emulatortest.URL, Token: srv.Token, Transport: srv.Transport(), MaxRetries: &maxRetries})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// refreshAll reads ids through one paged reader, ten at a time, and
// returns what each read brought.
func refreshAll(t *testing.T, srv *account, ids []string, maxRetries int) map[string]*client.Subscription {
	t.Helper()
	return refreshAllPausing(t, srv, ids, refreshOptions{maxRetries: maxRetries})
}

// requireReadEach refreshes ids, requires each read to bring its
// subscription, and returns the requests sent.
func requireReadEach(t *testing.T, srv *account, ids []string, maxRetries int) refreshRequests {
	t.Helper()
	var got map[string]*client.Subscription
	n := during(srv, func() { got = refreshAll(t, srv, ids, maxRetries) })
	for _, id := range ids {
		if got[id] == nil || got[id].ID != id {
			t.Errorf("read of %s brought %+v", id, got[id])
		}
	}
	return n
}

// refreshOptions are what a refresh of refreshAllPausing is like.
type refreshOptions struct {
	maxRetries int
	// pause is Terraform's work after each Read, storing and planning
	// what it answered.
	pause time.Duration
	// remembered are the ids the reader is told the state held at the
	// last run (journal.StateSize); none: nothing is remembered.
	remembered []string
	// seed shuffles the Reads' order, unrelated to the list's.
	seed uint64
	// imports: the Reads are an import's, which know no creation time.
	imports bool
}

// refreshAllPausing is refreshAll with each worker pausing after each read,
// as Terraform does to store and plan what a Read answered.
func refreshAllPausing(t *testing.T, srv *account, ids []string, o refreshOptions) map[string]*client.Subscription {
	t.Helper()
	// The reader's waits and the pauses below must run on the bubble's
	// fake clock: synctest.Wait panics outside a bubble.
	synctest.Wait()
	p := newPagedReader(inProcessClient(t, srv, o.maxRetries), sizeHolding(t, o.remembered))
	var mu sync.Mutex
	out := map[string]*client.Subscription{}
	work := make(chan string)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for id := range work {
				createdAt := srv.createdAt[id]
				if o.imports {
					createdAt = 0
				}
				sub, err := p.Subscription(t.Context(), id, createdAt)
				if err != nil && !client.IsNotFound(err) {
					t.Errorf("read %s: %v", id, err)
				}
				mu.Lock()
				out[id] = sub
				mu.Unlock()
				// Terraform's work between Reads. In the bubble this
				// sleep is fake time, passing only when every goroutine
				// waits: no wall-clock time, however loaded the machine.
				time.Sleep(o.pause)
			}
		})
	}
	// Terraform's order has nothing to do with the list's: shuffled, the
	// same way in every run.
	order := slices.Clone(ids)
	rand.New(rand.NewPCG(1, 2+o.seed)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, id := range order {
		work <- id
	}
	close(work)
	wg.Wait()
	return out
}

func TestPagedReader_readsTheFleetByPages(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, newer := accountWith(t, 120, 30, emulator.Options{})
		var got map[string]*client.Subscription
		n := during(srv, func() { got = refreshAll(t, srv, state, client.DefaultMaxRetries) })
		lists, gets := n.lists, n.gets
		if lists != ceilDiv(len(state)+len(newer), 25) {
			t.Errorf("%d list requests, want %d: every page of the list once", lists, ceilDiv(len(state)+len(newer), 25))
		}
		if lists+gets > ceilDiv(len(state)+len(newer), 25)+pagedRefreshAllowance {
			t.Errorf("%d list requests and %d GETs for %d subscriptions", lists, gets, len(state))
		}
		c := inProcessClient(t, srv, client.DefaultMaxRetries)
		for _, id := range state {
			want, err := c.GetSubscription(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[id], want) {
				t.Errorf("read of %s = %+v, want what its GET answers, %+v", id, got[id], want)
			}
		}
	})
}

// Ten subscriptions under a thousand newer ones: the scan gives up after
// its allowance, and each is read by GET.
func TestPagedReader_smallStateInLargeAccount(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 10, 1000, emulator.Options{})
		got := requireReadEach(t, srv, state, client.DefaultMaxRetries)
		if got.lists < 1 || got.lists > pagedRefreshAllowance || got.gets != len(state) {
			t.Errorf("%s; want 1 to %d list requests and one GET each (%d)", got, pagedRefreshAllowance, len(state))
		}
	})
}

// A subscription the pages do not bring is read by GET, and a 404 is the
// caller's to see.
func TestPagedReader_goneSubscriptionIsReadByGET(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 30, 0, emulator.Options{})
		gone := "sub_00000000deadbeef"
		got := refreshAll(t, srv, append(state, gone), client.DefaultMaxRetries)
		if got[gone] != nil {
			t.Errorf("read of a subscription the service does not have brought %+v", got[gone])
		}
		if gets := srv.RequestCounts()[getRoute]; gets < 1 {
			t.Errorf("%d GETs: the gone subscription was not read on its own", gets)
		}
	})
}

// A page that fails ends the scan; the subscriptions it would have brought
// are read by GET, without an error.
func TestPagedReader_failedPageFallsBackToGET(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 60, 0, emulator.Options{})
		srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", Path: "/v1/subscriptions", Action: "status", Status: 503, After: 1, Times: 1}}})
		got := requireReadEach(t, srv, state, 0)
		if got.lists != 2 || got.gets < len(state)-25 || got.gets > len(state) {
			t.Errorf("%s; want 2 list requests (the second failed) and a GET for each subscription the first page did not bring (%d to %d)", got, len(state)-25, len(state))
		}
	})
}

// A Read whose context ends while it waits for a page gives up at once.
func TestPagedReader_cancelledWaitEnds(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 2, 0, emulator.Options{})
		srv.SetFaults(emulator.Faults{LatencyMs: 2000})
		p := newPagedReader(inProcessClient(t, srv, client.DefaultMaxRetries), nil)
		start := time.Now()
		var first sync.WaitGroup
		first.Go(func() { _, _ = p.Subscription(context.Background(), state[0], 0) }) // reads the slow first page
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := p.Subscription(ctx, state[1], 0)
			done <- err
		}()
		synctest.Wait() // the second read waits for the page
		cancel()
		if err := <-done; err == nil {
			t.Error("a cancelled read succeeded")
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the cancelled read returned after %s, want at once", waited)
		}
		first.Wait()
	})
}

// A refresh of one subscription deep in the list, as after an import,
// costs one page and its GET, not the whole allowance.
func TestPagedReader_oneReadCostsAPageAndAGET(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 1, 60, emulator.Options{})
		got := refreshAll(t, srv, state, client.DefaultMaxRetries)
		if got[state[0]] == nil {
			t.Fatal("the subscription was not read")
		}
		if counts := srv.RequestCounts(); counts[listRoute] != 1 || counts[getRoute] != 1 {
			t.Errorf("requests %v, want one page and one GET", counts)
		}
	})
}

// Terraform takes longer to send its next Read than a nearby service takes
// to answer a page, so the scan runs ahead of the Reads it answers. The
// Reads it holds back wait for Terraform's next ones, answered from the
// pages already read, instead of taking GETs.
func TestPagedReader_waitsForTerraformToCatchUp(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, newer := accountWith(t, 500, 100, emulator.Options{})
		got := refreshAllPausing(t, srv, state, refreshOptions{maxRetries: client.DefaultMaxRetries, pause: 20 * time.Millisecond})
		counts := srv.RequestCounts()
		if want := ceilDiv(len(state)+len(newer), 25); counts[listRoute] != want || counts[getRoute] != 0 {
			t.Errorf("%d list requests and %d GETs, want the %d pages and no GET", counts[listRoute], counts[getRoute], want)
		}
		if len(got) != len(state) {
			t.Errorf("%d subscriptions read, want %d", len(got), len(state))
		}
	})
}

// A bulk import with no data source before it (the configuration terraform
// query writes: an import block each): Reads that know no creation time,
// in Terraform's order, each taking Terraform 50 ms of work. The list's
// pages answer them, at most pagedRefreshAllowance requests besides.
func TestPagedReader_bulkImportReadsByPages(t *testing.T) {
	for _, tc := range []struct {
		name            string
		imported, newer int
	}{
		{"the whole account", 2000, 0},
		{"under newer subscriptions", 1600, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				srv, state, newer := accountWith(t, tc.imported, tc.newer, emulator.Options{})
				var got map[string]*client.Subscription
				n := during(srv, func() {
					got = refreshAllPausing(t, srv, state, refreshOptions{maxRetries: client.DefaultMaxRetries, pause: 50 * time.Millisecond, imports: true})
				})
				if pages := ceilDiv(len(state)+len(newer), 25); n.lists+n.gets > pages+pagedRefreshAllowance {
					t.Errorf("%s for %d imports, want at most the %d pages and %d more", n, len(state), pages, pagedRefreshAllowance)
				}
				if len(got) != len(state) {
					t.Errorf("%d subscriptions read, want %d", len(got), len(state))
				}
			})
		})
	}
}

// One import deep in a large account costs the pages it paid for in
// advance and its GET: imports pay for pages only as they come.
func TestPagedReader_oneImportCostsThreePagesAndAGET(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 1, 600, emulator.Options{})
		refreshAllPausing(t, srv, state, refreshOptions{maxRetries: client.DefaultMaxRetries, imports: true})
		if counts := srv.RequestCounts(); counts[listRoute] != 3 || counts[getRoute] != 1 {
			t.Errorf("requests %v, want three pages (one, and the two it paid in advance) and one GET", counts)
		}
	})
}

// A refreshing plan of 200 subscriptions, one of them gone at the service,
// against a service that allows 20 requests a second: the 8 pages of the
// list and the gone one's GET, at most 32 requests counting those the
// service refused, where one GET each would be 200.
func TestPagedReader_refreshOf200WithOneGoneUnderARateLimit(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 199, 0, emulator.Options{RateLimit: 20})
		const gone = "sub_00000000deadbeef"
		start := time.Now()
		got := refreshAll(t, srv, append(state, gone), client.DefaultMaxRetries)
		if got[gone] != nil {
			t.Errorf("the gone subscription was read: %+v", got[gone])
		}
		for _, id := range state {
			if got[id] == nil {
				t.Fatalf("%s was not read", id)
			}
		}
		counts := srv.RequestCounts()
		total := 0
		for _, n := range counts {
			total += n
		}
		if total > 32 || counts[listRoute] < 8 || counts[getRoute] < 1 {
			t.Errorf("the refresh sent %d requests %v; want the 8 pages, the gone one's GET, and at most 32 in all", total, counts)
		}
		t.Logf("refresh of 200 with one gone at 20 requests/s: %d requests %v (%d answered 429 since the account was made) in %s",
			total, counts, srv.Stats().RateLimited, time.Since(start))
	})
}

// A refresh of 2,000 subscriptions, Terraform slower between Reads than
// the reader's waits (300 ms, a loaded machine), in five orders. With the
// state's size remembered, every run reads the 80 pages and nothing else:
// the scan pays in advance for running ahead of the Reads. Without it, the
// same refresh takes about a hundred GETs, as Terraform's refreshing plans
// of 2,000 did before the size was remembered (46 to 124).
func TestPagedReader_largeRefreshSameRequestsInEveryOrder(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, state, _ := accountWith(t, 2000, 0, emulator.Options{})
		slow := refreshOptions{maxRetries: client.DefaultMaxRetries, pause: 300 * time.Millisecond}
		pages := ceilDiv(len(state), 25)
		for seed := range uint64(5) {
			o := slow
			o.remembered, o.seed = state, seed
			var got map[string]*client.Subscription
			n := during(srv, func() { got = refreshAllPausing(t, srv, state, o) })
			if n.lists != pages || n.gets != 0 || len(got) != len(state) {
				t.Errorf("order %d, size remembered: %s for %d read; want the %d pages and no GET", seed, n, len(got), pages)
			}
		}
		unknown := during(srv, func() { refreshAllPausing(t, srv, state, slow) })
		if unknown.gets == 0 {
			t.Errorf("size not known: %s; want GETs, as the slow Reads give up waiting (else this test shows nothing)", unknown)
		}
		t.Logf("2,000 subscriptions, 300 ms between Reads: size remembered, %d pages in each of 5 orders; size not known, %s", pages, unknown)
	})
}

// A subscription gone from the service, created among the newest: its Read
// takes its GET as soon as a page passes its created_at, instead of
// holding the scan through the thousand older subscriptions below.
func TestPagedReader_goneSubscriptionReadOnceThePagesPassIt(t *testing.T) {
	bubble(t, func(t *testing.T) {
		srv, _, state := accountWith(t, 1000, 10, emulator.Options{})
		const gone = "sub_00000000deadbeef"
		srv.createdAt[gone] = srv.createdAt[state[5]]
		got := refreshAllPausing(t, srv, append(slices.Clone(state), gone), refreshOptions{maxRetries: client.DefaultMaxRetries, remembered: append(slices.Clone(state), gone)})
		if got[gone] != nil || len(got) != len(state)+1 {
			t.Errorf("read %d, the gone one as %+v; want every Read answered, the gone one by its 404", len(got), got[gone])
		}
		if counts := srv.RequestCounts(); counts[listRoute] != 1 || counts[getRoute] != 1 {
			t.Errorf("requests %v, want the one page that holds the ten and passes the gone one, and its GET", counts)
		}
	})
}

// sizeHolding is the state's size as the journal of creates remembers it
// after a run whose state held ids; nil when there are none.
func sizeHolding(t *testing.T, ids []string) stateSizes {
	t.Helper()
	if len(ids) == 0 {
		return nil
	}
	path := filepath.Join(t.TempDir(), "default.journal")
	home := journal.Home{Dir: "/work/config", Workspace: "default"}
	run, err := journal.Open(path, home, "http://127.0.0.1", journal.Options{Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := run.End(true, false, ids, nil); err != nil {
		t.Fatal(err)
	}
	next, err := journal.Open(path, home, "http://127.0.0.1", journal.Options{Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = next.Close() })
	return next
}
