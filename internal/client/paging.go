package client

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// MaxPageSize is the largest page the service serves; every list asks for
// it, so reading N records takes ceil(N/25) requests, the fewest possible.
const MaxPageSize = 25

// PageError is a list that failed part way: the list's call, which page,
// and how many items had been read before it.
type PageError struct {
	Call
	Page      int // 1-based
	ItemsRead int
	Err       error
}

func (e *PageError) Error() string {
	return fmt.Sprintf("%s: page %d failed after %d items were read: %v", e.Operation, e.Page, e.ItemsRead, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// EndlessListError is a list given up before the service ended it, because
// reading on would never end. One field says why; when none is set, a page
// brought only items already read, with a new cursor.
type EndlessListError struct {
	RepeatedCursor string // a cursor that came a second time
	MaxPages       int    // the page bound, when the list did not end within it
}

func (e *EndlessListError) Error() string {
	switch {
	case e.RepeatedCursor != "":
		return fmt.Sprintf("the service returned the cursor %q a second time", e.RepeatedCursor)
	case e.MaxPages > 0:
		return fmt.Sprintf("the list did not end after %d pages", e.MaxPages)
	}
	return "the page brought only items already read, with a new cursor"
}

// Pages reads a list one page at a time, for a caller that decides after
// each page whether to read the next. It is not safe for concurrent use:
// its caller serializes the calls to Next. list reads through it, so both
// follow the same rules.
//
// The cursor is passed back as the opaque string it is, URL-encoded ('+',
// '/' and '=' survive). A service that never ends a list would keep its
// caller reading forever, so the list ends with an error when a cursor comes
// a second time, when a page brings only records already read (fresh
// cursors over the same records), or after the client's page bound
// (DefaultMaxPages). A record already read on an earlier page, as happens
// when the list shifts while it is read, is not returned again.
type Pages[T any] struct {
	c           *Client
	op, path    string
	key         func(T) string
	seenCursors map[string]bool
	seenKeys    map[string]bool
	cursor      string
	pageNum     int // pages read so far
	read        int // records returned so far
	done        bool
}

func newPages[T any](c *Client, op, path string, key func(T) string) *Pages[T] {
	return &Pages[T]{c: c, op: op, path: path, key: key, seenCursors: map[string]bool{}, seenKeys: map[string]bool{}}
}

// Next reads the next page and returns its records not returned before, and
// whether a further page may follow. After the last page, or after an error
// (a *PageError), it reads nothing and returns more = false. The records of
// the page that ends a list with an EndlessListError are returned along with
// the error.
func (p *Pages[T]) Next(ctx context.Context) (items []T, more bool, err error) {
	if p.done {
		return nil, false, nil
	}
	p.pageNum++
	fail := func(err error) error {
		p.done = true
		return &PageError{Call: Call{Operation: p.op, Method: http.MethodGet, Path: p.path}, Page: p.pageNum, ItemsRead: p.read, Err: err}
	}
	q := url.Values{"pageSize": {strconv.Itoa(MaxPageSize)}}
	if p.cursor != "" {
		q.Set("page", p.cursor)
	}
	var pg page[T]
	if err := p.c.call(ctx, p.op, http.MethodGet, p.path, q, nil, &pg); err != nil {
		return nil, false, fail(err)
	}
	for _, item := range pg.Items {
		if k := p.key(item); k != "" {
			if p.seenKeys[k] {
				continue
			}
			p.seenKeys[k] = true
		}
		items = append(items, item)
	}
	p.read += len(items)
	if pg.NextPage == nil || *pg.NextPage == "" {
		p.done = true
		return items, false, nil
	}
	switch {
	case len(pg.Items) > 0 && len(items) == 0:
		return items, false, fail(&EndlessListError{})
	case p.seenCursors[*pg.NextPage]:
		return items, false, fail(&EndlessListError{RepeatedCursor: *pg.NextPage})
	case p.pageNum >= p.c.maxPages:
		return items, false, fail(&EndlessListError{MaxPages: p.c.maxPages})
	}
	p.seenCursors[*pg.NextPage] = true
	p.cursor = *pg.NextPage
	return items, true, nil
}

// again makes the page whose call just failed the next one to read: a
// reader of a SharedPages list whose own context ended the call leaves
// the page to the next reader.
func (p *Pages[T]) again() {
	p.done = false
	p.pageNum--
}

// list returns every record of a list operation, following the nextPage
// cursor until the service answers null, under the rules of Pages. Pages
// are fetched lazily: a caller that stops ranging fetches no further page.
// An error ends the sequence, after the records of the page that ended
// it; the PageError says how many records were read.
func list[T any](ctx context.Context, c *Client, op, path string, key func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) { each(ctx, newPages(c, op, path, key), yield) }
}

// pager reads a list a page at a time: Pages, or a SharedReader.
type pager[T any] interface {
	Next(ctx context.Context) (items []T, more bool, err error)
}

// each yields the records of pages, then the error that ended them, if
// any; it reads no further page once yield returns false.
func each[T any](ctx context.Context, pages pager[T], yield func(T, error) bool) {
	var zero T
	for {
		items, more, err := pages.Next(ctx)
		for _, item := range items {
			if !yield(item, nil) {
				return
			}
		}
		if err != nil {
			yield(zero, err)
			return
		}
		if !more {
			return
		}
	}
}

// SubscriptionPages reads the subscription list, newest first, a page at a
// time.
func (c *Client) SubscriptionPages() *Pages[Subscription] {
	return newPages(c, "list subscriptions", "/v1/subscriptions", subscriptionKey)
}

func subscriptionKey(s Subscription) string { return s.ID }

// Subscriptions lists every subscription, newest first.
func (c *Client) Subscriptions(ctx context.Context) iter.Seq2[Subscription, error] {
	return list(ctx, c, "list subscriptions", "/v1/subscriptions", subscriptionKey)
}

// Plans lists every plan.
func (c *Client) Plans(ctx context.Context) iter.Seq2[Plan, error] {
	return list(ctx, c, "list plans", "/v1/plans", func(p Plan) string { return p.ID })
}

// Esims lists every eSIM of the account's inventory.
func (c *Client) Esims(ctx context.Context) iter.Seq2[Esim, error] {
	return list(ctx, c, "list eSIMs", "/v1/esims", esimKey)
}

// EsimPages reads the eSIM list a page at a time, for a caller that reads
// only as far as it needs.
func (c *Client) EsimPages() *Pages[Esim] {
	return newPages(c, "list eSIMs", "/v1/esims", esimKey)
}

func esimKey(e Esim) string { return e.ICCID }

// Collect gathers the items of seq that keep accepts, stopping (and fetching
// no further page) once limit of them are found; limit <= 0 means no limit.
func Collect[T any](seq iter.Seq2[T, error], keep func(T) bool, limit int) ([]T, error) {
	var out []T
	for item, err := range seq {
		if err != nil {
			return out, err
		}
		if keep != nil && !keep(item) {
			continue
		}
		out = append(out, item)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}
