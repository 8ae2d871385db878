package client

import (
	"context"
	"errors"
	"iter"
	"sync"
)

// SharedPages is a list whose pages the readers that share it fetch once:
// each reader (Reader) is given every page from the top, and a page is
// fetched from the service only by the first reader to reach it; a
// reader that reaches it meanwhile waits for it. The provider's instance
// of a graph walk shares the eSIM list this way between the preflight,
// which reads it as far as the planned creates need, and the
// mobileplan_esims data source, which reads it whole: one scan a walk.
//
// An error of the service (a *PageError) ends the list for every reader,
// at the page it came on. An error of a reader's own context (its
// deadline, its cancellation) ends only that reader: the next reader to
// reach the page fetches it.
type SharedPages[T any] struct {
	mu    sync.Mutex
	pages *Pages[T]
	read  []sharedPage[T]
}

// sharedPage is one page as Pages.Next answered it.
type sharedPage[T any] struct {
	items []T
	more  bool
	err   error
}

// SharedEsimPages is the eSIM list, to be shared by its readers.
func (c *Client) SharedEsimPages() *SharedPages[Esim] {
	return &SharedPages[Esim]{pages: c.EsimPages()}
}

// Reader returns a reader of the list from its top, for one caller that
// serializes its calls to Next, as Pages' callers do.
func (s *SharedPages[T]) Reader() *SharedReader[T] { return &SharedReader[T]{shared: s} }

// All lists every record, as Client.Esims does, through a reader of its
// own: a caller that stops ranging fetches no further page.
func (s *SharedPages[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) { each(ctx, s.Reader(), yield) }
}

// SharedReader reads a SharedPages list a page at a time.
type SharedReader[T any] struct {
	shared *SharedPages[T]
	next   int // the index of the next page to give
	done   bool
}

// Next is Pages.Next for this reader: the next page's records, and
// whether a further page may follow.
func (r *SharedReader[T]) Next(ctx context.Context) ([]T, bool, error) {
	if r.done {
		return nil, false, nil
	}
	s := r.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.next == len(s.read) {
		items, more, err := s.pages.Next(ctx)
		var endless *EndlessListError
		if err != nil && ctx.Err() != nil && !errors.As(err, &endless) {
			s.pages.again()
			r.done = true
			return nil, false, err
		}
		s.read = append(s.read, sharedPage[T]{items: items, more: more, err: err})
	}
	p := s.read[r.next]
	r.next++
	r.done = !p.more
	return p.items, p.more, p.err
}
