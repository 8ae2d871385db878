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

// PageError is a list that failed part way: which page, and how many items
// had been read before it.
type PageError struct {
	Operation string
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

// list returns every record of a list operation, following the nextPage
// cursor until the service answers null. Pages are fetched lazily: a caller
// that stops ranging fetches no further page. The cursor is passed back as
// the opaque string it is, URL-encoded ('+', '/' and '=' survive).
//
// A service that never ends a list would keep its caller reading forever, so
// the list ends with an error when a cursor comes a second time, when a
// page brings only records already read (fresh cursors over the same
// records), or after the client's page bound (DefaultMaxPages). A record
// already read on an earlier page, as happens when the list shifts while it
// is read, is not yielded again.
func list[T any](ctx context.Context, c *Client, op, path string, key func(T) string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seenCursors := map[string]bool{}
		seenKeys := map[string]bool{}
		cursor := ""
		read := 0
		stop := func(pageNum int, err error) {
			yield(zero, &PageError{Operation: op, Page: pageNum, ItemsRead: read, Err: err})
		}
		for pageNum := 1; ; pageNum++ {
			q := url.Values{"pageSize": {strconv.Itoa(MaxPageSize)}}
			if cursor != "" {
				q.Set("page", cursor)
			}
			var pg page[T]
			if err := c.call(ctx, op, http.MethodGet, path, q, nil, &pg); err != nil {
				stop(pageNum, err)
				return
			}
			fresh := 0
			for _, item := range pg.Items {
				if k := key(item); k != "" {
					if seenKeys[k] {
						continue
					}
					seenKeys[k] = true
				}
				fresh++
				read++
				if !yield(item, nil) {
					return
				}
			}
			if pg.NextPage == nil || *pg.NextPage == "" {
				return
			}
			switch {
			case len(pg.Items) > 0 && fresh == 0:
				stop(pageNum, &EndlessListError{})
				return
			case seenCursors[*pg.NextPage]:
				stop(pageNum, &EndlessListError{RepeatedCursor: *pg.NextPage})
				return
			case pageNum >= c.maxPages:
				stop(pageNum, &EndlessListError{MaxPages: c.maxPages})
				return
			}
			seenCursors[*pg.NextPage] = true
			cursor = *pg.NextPage
		}
	}
}

// Subscriptions lists every subscription, newest first.
func (c *Client) Subscriptions(ctx context.Context) iter.Seq2[Subscription, error] {
	return list(ctx, c, "list subscriptions", "/v1/subscriptions", func(s Subscription) string { return s.ID })
}

// Plans lists every plan.
func (c *Client) Plans(ctx context.Context) iter.Seq2[Plan, error] {
	return list(ctx, c, "list plans", "/v1/plans", func(p Plan) string { return p.ID })
}

// Esims lists every eSIM of the account's inventory.
func (c *Client) Esims(ctx context.Context) iter.Seq2[Esim, error] {
	return list(ctx, c, "list eSIMs", "/v1/esims", func(e Esim) string { return e.ICCID })
}

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
