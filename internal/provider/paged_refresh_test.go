package provider

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// The paged refresh without Terraform: Reads as Terraform sends them, up to
// ten at once, in an order unrelated to the list's.

// getRoute counts the GETs of one subscription; listRoute, the list's pages.
const getRoute = "GET /v1/subscriptions/{id}"

// accountWith starts an emulator holding older subscriptions, then newer
// ones on top, created in that order; it returns both, oldest first.
func accountWith(t *testing.T, older, newer int) (srv *emulatortest.Server, olderIDs, newerIDs []string) {
	t.Helper()
	ds := emulator.DefaultDataset(emulator.DefaultPlans, older+newer)
	srv = emulatortest.Start(t, emulator.Options{Dataset: &ds})
	c := serviceClient(t, srv)
	create := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			sub, err := c.CreateSubscription(t.Context(), client.CreateSubscriptionRequest{PlanID: "plan_004"})
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = sub.ID
		}
		return ids
	}
	olderIDs = create(older)
	newerIDs = create(newer)
	return srv, olderIDs, newerIDs
}

// refreshAll reads ids through one paged refresh, ten at a time, and
// returns what each read brought.
func refreshAll(t *testing.T, srv *emulatortest.Server, ids []string, maxRetries int) map[string]*client.Subscription {
	t.Helper()
	return refreshAllPausing(t, srv, ids, maxRetries, 0)
}

// requireReadEach refreshes ids, requires each read to bring its
// subscription, and returns the requests sent.
func requireReadEach(t *testing.T, srv *emulatortest.Server, ids []string, maxRetries int) refreshRequests {
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

// refreshAllPausing is refreshAll with each worker pausing after each read,
// as Terraform does to store and plan what a Read answered.
func refreshAllPausing(t *testing.T, srv *emulatortest.Server, ids []string, maxRetries int, pause time.Duration) map[string]*client.Subscription {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token, MaxRetries: &maxRetries})
	if err != nil {
		t.Fatal(err)
	}
	p := newPagedRefresh(c, true)
	var mu sync.Mutex
	out := map[string]*client.Subscription{}
	work := make(chan string)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for id := range work {
				sub, err := p.subscription(t.Context(), c, id)
				if err != nil && !client.IsNotFound(err) {
					t.Errorf("read %s: %v", id, err)
				}
				mu.Lock()
				out[id] = sub
				mu.Unlock()
				time.Sleep(pause)
			}
		})
	}
	// Terraform's order has nothing to do with the list's: shuffled, the
	// same way in every run.
	order := slices.Clone(ids)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, id := range order {
		work <- id
	}
	close(work)
	wg.Wait()
	return out
}

func TestPagedRefresh_readsTheFleetByPages(t *testing.T) {
	t.Parallel()
	srv, state, newer := accountWith(t, 120, 30)
	var got map[string]*client.Subscription
	n := during(srv, func() { got = refreshAll(t, srv, state, client.DefaultMaxRetries) })
	lists, gets := n.lists, n.gets
	if lists != ceilDiv(len(state)+len(newer), 25) {
		t.Errorf("%d list requests, want %d: every page of the list once", lists, ceilDiv(len(state)+len(newer), 25))
	}
	if lists+gets > ceilDiv(len(state)+len(newer), 25)+pagedRefreshAllowance {
		t.Errorf("%d list requests and %d GETs for %d subscriptions", lists, gets, len(state))
	}
	c := serviceClient(t, srv)
	for _, id := range state {
		want, err := c.GetSubscription(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[id], want) {
			t.Errorf("read of %s = %+v, want what its GET answers, %+v", id, got[id], want)
		}
	}
}

// Ten subscriptions under a thousand newer ones: the scan gives up after
// its allowance, and each is read by GET.
func TestPagedRefresh_smallStateInLargeAccount(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 10, 1000)
	got := requireReadEach(t, srv, state, client.DefaultMaxRetries)
	if got.lists < 1 || got.lists > pagedRefreshAllowance || got.gets != len(state) {
		t.Errorf("%s; want 1 to %d list requests and one GET each (%d)", got, pagedRefreshAllowance, len(state))
	}
}

// A subscription the pages do not bring is read by GET, and a 404 is the
// caller's to see.
func TestPagedRefresh_goneSubscriptionIsReadByGET(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 30, 0)
	gone := "sub_00000000deadbeef"
	got := refreshAll(t, srv, append(state, gone), client.DefaultMaxRetries)
	if got[gone] != nil {
		t.Errorf("read of a subscription the service does not have brought %+v", got[gone])
	}
	if gets := srv.RequestCounts()[getRoute]; gets < 1 {
		t.Errorf("%d GETs: the gone subscription was not read on its own", gets)
	}
}

// A page that fails ends the scan; the subscriptions it would have brought
// are read by GET, without an error.
func TestPagedRefresh_failedPageFallsBackToGET(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 60, 0)
	srv.SetFaults(emulator.Faults{Rules: []emulator.FaultRule{{Method: "GET", Path: "/v1/subscriptions", Action: "status", Status: 503, After: 1, Times: 1}}})
	got := requireReadEach(t, srv, state, 0)
	if got.lists != 2 || got.gets < len(state)-25 || got.gets > len(state) {
		t.Errorf("%s; want 2 list requests (the second failed) and a GET for each subscription the first page did not bring (%d to %d)", got, len(state)-25, len(state))
	}
}

// Off, each read is its own GET.
func TestPagedRefresh_offReadsOneGETEach(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 5, 0)
	c := serviceClient(t, srv)
	p := newPagedRefresh(c, false)
	for _, id := range state {
		if _, err := p.subscription(t.Context(), c, id); err != nil {
			t.Fatal(err)
		}
	}
	if counts := srv.RequestCounts(); counts[listRoute] != 0 || counts[getRoute] != len(state) {
		t.Errorf("requests %v, want one GET each and no list", counts)
	}
}

// A Read whose context ends while it waits for a page gives up at once.
func TestPagedRefresh_cancelledWaitEnds(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 2, 0)
	srv.SetFaults(emulator.Faults{LatencyMs: 2000})
	c := serviceClient(t, srv)
	p := newPagedRefresh(c, true)
	go func() { _, _ = p.subscription(context.Background(), c, state[0]) }() // reads the slow first page
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := p.subscription(ctx, c, state[1])
		done <- err
	}()
	cancel()
	if err := <-done; err == nil {
		t.Error("a cancelled read succeeded")
	}
}

// A refresh of one subscription deep in the list, as after an import,
// costs one page and its GET, not the whole allowance.
func TestPagedRefresh_oneReadCostsAPageAndAGET(t *testing.T) {
	t.Parallel()
	srv, state, _ := accountWith(t, 1, 60)
	got := refreshAll(t, srv, state, client.DefaultMaxRetries)
	if got[state[0]] == nil {
		t.Fatal("the subscription was not read")
	}
	if counts := srv.RequestCounts(); counts[listRoute] != 1 || counts[getRoute] != 1 {
		t.Errorf("requests %v, want one page and one GET", counts)
	}
}

// Terraform takes longer to send its next Read than a nearby service takes
// to answer a page, so the scan runs ahead of the Reads it answers. The
// Reads it holds back wait for Terraform's next ones, answered from the
// pages already read, instead of taking GETs.
func TestPagedRefresh_waitsForTerraformToCatchUp(t *testing.T) {
	t.Parallel()
	srv, state, newer := accountWith(t, 500, 100)
	got := refreshAllPausing(t, srv, state, client.DefaultMaxRetries, 20*time.Millisecond)
	counts := srv.RequestCounts()
	if want := ceilDiv(len(state)+len(newer), 25); counts[listRoute] != want || counts[getRoute] != 0 {
		t.Errorf("%d list requests and %d GETs, want the %d pages and no GET", counts[listRoute], counts[getRoute], want)
	}
	if len(got) != len(state) {
		t.Errorf("%d subscriptions read, want %d", len(got), len(state))
	}
}
