package provider

import (
	"context"
	"iter"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// pagedRefreshGrace is how long a Read held back only by the number of
// Reads seen so far waits for another to arrive before it reads by GET.
const pagedRefreshGrace = 100 * time.Millisecond

// pagedRefreshCatchUp is how long after the last Read answered from a page
// a Read held back by the allowance waits for Terraform's next Reads. A
// refreshing plan of 500 subscriptions keeps Terraform busy for a few
// seconds of CPU time, on a busy machine in stretches of 100 ms without a
// new Read, while a nearby service answers a page in a millisecond.
const pagedRefreshCatchUp = 250 * time.Millisecond

// importPagesPerRead is how many pages an import Read pays in advance.
const importPagesPerRead = 2

// pagedReader answers the refresh of mobileplan_subscription from the
// service's list of subscriptions, 25 a page, instead of one GET each: a
// refreshing plan of 500 subscriptions takes about 20 requests instead of
// 500, which matters once the service limits requests per second.
//
// Terraform sends one ReadResource per subscription, up to 10 at once, in
// no particular order, and never says how many will come. So the scan is
// lazy: a Read looks in the pages read so far; when its subscription is not
// there, it waits for the next page, which one Read at a time fetches for
// all; and it falls back to its own GET when the list has ended, a page
// failed, the scan has passed the subscription's place, or the scan is no
// longer worth it. A subscription that no page brought is therefore always
// read by its GET, whose 404 says it is gone.
//
// The list is newest first, and each Read carries the subscription's
// created_at from the state: once a page holds an older subscription, the
// scan has passed its place, and a Read whose subscription no page brought
// takes its GET at once (it is gone, or was never listed) instead of
// waiting for pages that cannot bring it.
//
// The scan's bound: a page is read only while pages read - Reads answered
// from pages < min(pagedRefreshAllowance, Reads seen) + credit, where
// credit is the larger of expected/25 and importPagesPerRead for each Read
// seen that knows no creation time (an import's). expected is the number
// of subscriptions the state held at the end of the last run here
// (journal.StateSize: of this provider configuration's part of the state,
// as the Reads so far show it), 0 when not known. An import's Read cannot
// tell that the scan passed its place, and a bulk import's first ten, in
// Terraform's order, want subscriptions anywhere in the list: with two
// pages paid by each, 2,000 imports read the list's 80 pages and at most
// 10 GETs besides, where the Reads-seen term alone left 162 GETs; one
// import costs three pages and its GET. A run costs pages +
// (Reads - Reads answered from pages) requests against Reads for one GET
// each, so the rule holds the extra cost to min(10, Reads) + expected/25.
// Subscriptions under many newer ones found only deep in the list (10 of
// them under 1,000 newer) stop the scan after 10 pages that found nothing,
// and are read by GET. The allowance lets the scan cross pages of newer
// subscriptions Terraform does not manage (four pages for 100 of them)
// before the first ones it does. The bound is checked before each page, so
// a scan that stopped resumes when later Reads, answered from pages already
// read, pay for more.
//
// The expected term is what makes a large refresh cost the same in every
// run. Terraform's Reads come in an order unrelated to the list's, and only
// as fast as the ten it holds are answered: with ten Reads waiting for
// pages deep in the list, no other Read comes to pay for the pages on the
// way, and the scan runs up to about 40% of the list's pages ahead of the
// Reads it has answered before they catch up. A state known to hold that
// many subscriptions pays for that in advance. Without it (the first
// refresh in a new working directory, or after an import), Reads held back
// by the bound wait a moment for another Read, which may pay for the next
// page, before taking their GETs: up to pagedRefreshGrace when only the
// Reads-seen term holds them back (Terraform's first Reads arrive one by
// one), and up to pagedRefreshCatchUp after the last Read answered from a
// page when the allowance does (Terraform is still working through the
// subscriptions the pages answered). Those waits depend on how fast
// Terraform sends Reads, so such a refresh may send a different number of
// GETs each time; they change when requests are sent, never how many the
// bound allows.
//
// Terraform configures a fresh provider instance for each plan or apply,
// and with it a fresh pagedReader: pages are used only within the run that
// read them. Pages are read in the order the service lists them; a record
// is used once and then dropped, so memory holds only what the scan read
// ahead of the Reads, and the subscriptions on its pages no Read asked for:
// at most 25 for every page the bound allows.
type pagedReader struct {
	client *client.Client
	mu     sync.Mutex
	pages  *client.Pages[client.Subscription] // read by one Read at a time
	found  map[string]client.Subscription     // brought by pages, not yet read
	reads  int                                // Reads seen
	hits   int                                // Reads answered from pages
	read   int                                // pages read, failed ones included
	ended  bool                               // the list ended, or a page failed
	// oldest is the earliest created_at on the pages read (Unix seconds),
	// 0 before any: the list is newest first, so the scan has passed every
	// subscription created before it.
	oldest int64
	// credit is the pages the state's remembered size, as the Reads so
	// far show it, pays for in advance.
	credit int
	// unplaced are the Reads seen that know no creation time: an
	// import's.
	unplaced int
	size     stateSizes // nil: not remembered
	// next is closed when the page being read arrives; nil when none is.
	next chan struct{}
	// arrived is closed, and replaced, when a Read arrives.
	arrived chan struct{}
	lastHit time.Time // when a Read was last answered from a page
}

// stateSizes tells how many subscriptions this provider configuration's
// state held at the last run here, as far as the Reads so far show it
// (id's included); 0 when it is not remembered.
type stateSizes interface {
	StateSize(id string) int
}

// newPagedReader returns the refresh reader of one configured provider
// instance. size remembers the state's subscriptions across runs (the
// journal of creates); nil when it does not.
func newPagedReader(c *client.Client, size stateSizes) subscriptionReader {
	return &pagedReader{client: c, pages: c.SubscriptionPages(), found: map[string]client.Subscription{}, size: size}
}

// Subscription reads subscription id, from the pages when they bring it,
// otherwise with its own GET. Errors are the GET's: a page that fails is
// not one.
func (p *pagedReader) Subscription(ctx context.Context, id string, createdAt int64) (*client.Subscription, error) {
	if sub, ok := p.fromPages(ctx, id, createdAt); ok {
		return sub, nil
	}
	tflog.Debug(ctx, "Reading a subscription the list's pages did not bring with its own request", p.progress(id))
	return p.client.GetSubscription(ctx, id)
}

// progress is where the scan stands when id is read on its own, for the
// log.
func (p *pagedReader) progress(id string) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	fields := p.progressLocked()
	fields["id"] = id
	return fields
}

// progressLocked is where the scan stands, with p.mu held.
func (p *pagedReader) progressLocked() map[string]any {
	return map[string]any{"pages": p.read, "list_ended": p.ended, "reads": p.reads, "answered_from_pages": p.hits, "pages_paid_in_advance": p.credit}
}

// fromPages waits for the pages until one brings id, the scan passes
// createdAt (when known, > 0), or the scan stops.
func (p *pagedReader) fromPages(ctx context.Context, id string, createdAt int64) (*client.Subscription, bool) {
	expected := 0
	if p.size != nil {
		expected = p.size.StateSize(id)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if createdAt == 0 {
		p.unplaced++
	}
	p.credit = max(p.credit, expected/client.MaxPageSize, p.unplaced*importPagesPerRead)
	p.reads++
	if p.arrived != nil {
		close(p.arrived) // Reads held back by the Reads-seen term look again
	}
	p.arrived = make(chan struct{})
	var graceEnds time.Time
	for {
		if sub, ok := p.found[id]; ok {
			delete(p.found, id)
			p.hits++
			p.lastHit = time.Now()
			return &sub, true
		}
		switch {
		case createdAt > 0 && p.oldest > 0 && p.oldest < createdAt:
			// Every later page is older still: none can bring id.
			return nil, false
		case p.next != nil:
			// A page is on its way, already paid for: it may bring id.
			if !p.wait(ctx, p.next) {
				return nil, false
			}
		case p.ended:
			return nil, false
		case p.worthAnotherPage():
			p.readPage(ctx)
		case p.read-p.hits < pagedRefreshAllowance+p.credit:
			// Only the Reads seen so far hold the scan back. Terraform
			// starts its Reads together but they arrive one by one, more
			// slowly than a nearby service answers a page: wait a moment
			// for the next one before giving up on the pages.
			if graceEnds.IsZero() {
				graceEnds = time.Now().Add(pagedRefreshGrace)
			}
			if !p.waitForRead(ctx, graceEnds) {
				return nil, false
			}
		case time.Since(p.lastHit) < pagedRefreshCatchUp:
			// The scan is ahead of the Reads answered from it, and Reads
			// were answered from pages a moment ago: Terraform, slower than
			// a nearby service, is still sending the Reads that follow
			// them, likely for subscriptions on the pages already read,
			// which pay for the next page. Wait for one.
			if !p.waitForRead(ctx, p.lastHit.Add(pagedRefreshCatchUp)) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
}

// waitForRead waits, with p.mu released, for another Read to arrive until
// deadline; false when the deadline passed or ctx ended.
func (p *pagedReader) waitForRead(ctx context.Context, deadline time.Time) bool {
	left := time.Until(deadline)
	if left <= 0 {
		return false
	}
	timer := time.NewTimer(left)
	defer timer.Stop()
	arrived := p.arrived
	p.mu.Unlock()
	defer p.mu.Lock()
	select {
	case <-arrived:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// wait waits, with p.mu released, until ch is closed (true) or ctx ends
// (false).
func (p *pagedReader) wait(ctx context.Context, ch <-chan struct{}) bool {
	p.mu.Unlock()
	defer p.mu.Lock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// worthAnotherPage is the scan's bound, explained on pagedReader.
func (p *pagedReader) worthAnotherPage() bool {
	return p.read-p.hits < min(pagedRefreshAllowance, p.reads)+p.credit
}

// readPage reads the next page for every waiting Read, with p.mu held on
// entry and exit but not while the request runs.
func (p *pagedReader) readPage(ctx context.Context) {
	next := make(chan struct{})
	p.next = next
	p.read++ // counted from the start: the bound includes the page on its way
	p.mu.Unlock()
	items, more, err := p.pages.Next(ctx)
	p.mu.Lock()
	for _, sub := range items {
		p.found[sub.ID] = sub
		if sub.CreatedAt > 0 && (p.oldest == 0 || sub.CreatedAt < p.oldest) {
			p.oldest = sub.CreatedAt
		}
	}
	if err != nil || !more {
		p.ended = true
	}
	fields := p.progressLocked()
	fields["subscriptions"] = len(items)
	if err != nil {
		// Never the plan's error: every Read not answered yet gets its GET.
		fields["error"] = err.Error()
		tflog.Warn(ctx, "A page of the subscription list failed; the subscriptions it did not bring are read one by one", fields)
	} else {
		tflog.Debug(ctx, "Read a page of the subscription list for the refresh", fields)
	}
	p.next = nil
	close(next)
}

// pagedRefreshAllowance is how many requests, at most, the paged refresh
// (paged_refresh.go) may cost beyond one GET per subscription:
// `paged_refresh` documents it.
const pagedRefreshAllowance = 10

// listedForRefresh is seq, the service's list as the mobileplan_subscriptions
// data source reads it, with every subscription it brings handed to the
// refresh of the same run (r, when it reads by the page): a bulk import's
// data source reads the whole list, and its imports' and the refresh's
// Reads are then answered from those pages, not from a second pass over
// the list and a GET each for the first imports. A list read to its end
// also ends the refresh's scan: a subscription it did not bring takes its
// own GET at once.
func listedForRefresh(r subscriptionReader, seq iter.Seq2[client.Subscription, error]) iter.Seq2[client.Subscription, error] {
	p, ok := r.(*pagedReader)
	if !ok {
		return seq
	}
	return func(yield func(client.Subscription, error) bool) {
		for sub, err := range seq {
			if err == nil {
				p.listed(sub)
			}
			if !yield(sub, err) || err != nil {
				return
			}
		}
		p.listEnded()
	}
}

// listed keeps sub, read from the list elsewhere in this run, for a Read.
func (p *pagedReader) listed(sub client.Subscription) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.found[sub.ID] = sub
	if sub.CreatedAt > 0 && (p.oldest == 0 || sub.CreatedAt < p.oldest) {
		p.oldest = sub.CreatedAt
	}
}

// listEnded records that the whole list was read elsewhere in this run:
// the scan has nothing left to read, and Reads waiting for it look again.
func (p *pagedReader) listEnded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.arrived != nil {
		close(p.arrived)
		p.arrived = make(chan struct{})
	}
}
