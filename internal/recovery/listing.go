package recovery

import (
	"context"
	"sync"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// listing is the service's list as this process has read it: one pass,
// newest first, read only as far as what asks needs, and read on from
// there by the next that needs more. The looks of Open (for what creates
// with no answer made, for a lost run's window) and the check of the
// leftovers a create may take share it: a process reads each page at
// most once.
type listing struct {
	mu     sync.Mutex
	pages  Pager
	subs   map[string]client.Subscription // every subscription read, by id
	listed []journal.Listed               // the same in list order, as the looks read them
	oldest time.Time                      // createdAt of the last read, by the service's clock
	offset time.Duration                  // the service's clock less this machine's, at the last page
	read   int                            // pages read
	ended  bool
}

func newListing(pages Pager) *listing {
	return &listing{pages: pages, subs: map[string]client.Subscription{}}
}

// readOn reads pages until enough, asked before each, says so, or the
// list ends; enough reads the listing's fields, under its lock.
func (l *listing) readOn(ctx context.Context, enough func() bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.ended && !enough() {
		subs, more, offset, err := l.pages.Next(ctx)
		if err != nil {
			return err
		}
		l.read++
		l.offset = offset
		for _, s := range subs {
			l.subs[s.ID] = s
			listed := listedOf(s)
			l.listed = append(l.listed, listed)
			l.oldest = listed.Created
		}
		l.ended = !more
	}
	return nil
}

// before reports whether the list was read past at, by the service's
// clock: it holds nothing made later that it has not shown.
func (l *listing) before(at time.Time) bool {
	return l.ended || !l.oldest.IsZero() && l.oldest.Before(at)
}

// snapshot is what was read: the subscriptions in list order, and the
// service's clock less this machine's.
func (l *listing) snapshot() ([]journal.Listed, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.listed, l.offset
}

// sub is subscription id as the list showed it, if it did.
func (l *listing) sub(id string) (client.Subscription, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.subs[id]
	return s, ok
}
