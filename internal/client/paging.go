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

// list returns every record of a list operation, following the nextPage
// cursor until the service answers null. Pages are fetched lazily: a caller
// that stops ranging fetches no further page. The cursor is passed back as
// the opaque string it is, URL-encoded ('+', '/' and '=' survive). A cursor
// the service hands out twice would loop forever, so it ends the list with
// an error instead.
func list[T any](ctx context.Context, c *Client, op, path string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		seen := map[string]bool{}
		cursor := ""
		read := 0
		for pageNum := 1; ; pageNum++ {
			q := url.Values{"pageSize": {strconv.Itoa(MaxPageSize)}}
			if cursor != "" {
				q.Set("page", cursor)
			}
			var pg page[T]
			if err := c.call(ctx, op, http.MethodGet, path, q, nil, &pg); err != nil {
				yield(zero, &PageError{Operation: op, Page: pageNum, ItemsRead: read, Err: err})
				return
			}
			for _, item := range pg.Items {
				read++
				if !yield(item, nil) {
					return
				}
			}
			if pg.NextPage == nil || *pg.NextPage == "" {
				return
			}
			if seen[*pg.NextPage] {
				yield(zero, &PageError{Operation: op, Page: pageNum, ItemsRead: read,
					Err: fmt.Errorf("the service returned the cursor %q a second time; stopping instead of reading the same pages forever", *pg.NextPage)})
				return
			}
			seen[*pg.NextPage] = true
			cursor = *pg.NextPage
		}
	}
}

// Subscriptions lists every subscription, newest first.
func (c *Client) Subscriptions(ctx context.Context) iter.Seq2[Subscription, error] {
	return list[Subscription](ctx, c, "list subscriptions", "/v1/subscriptions")
}

// Plans lists every plan.
func (c *Client) Plans(ctx context.Context) iter.Seq2[Plan, error] {
	return list[Plan](ctx, c, "list plans", "/v1/plans")
}

// Esims lists every eSIM of the account's inventory.
func (c *Client) Esims(ctx context.Context) iter.Seq2[Esim, error] {
	return list[Esim](ctx, c, "list eSIMs", "/v1/esims")
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
