package client

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync"
)

// seeThrough lets a create that may have reached the service finish when
// its caller gives up, as Terraform's graceful stop does: the service acts
// on what it received, so an answer abandoned in flight is a subscription
// that no state records and that the next apply creates a second time.
// Until the request holds a connection, the caller's cancellation stops it
// and nothing was sent; from then on only the per-attempt timeout below it
// bounds the wait for the answer. Reads are not held: abandoning one loses
// nothing.
type seeThrough struct {
	next http.RoundTripper
}

func (t seeThrough) RoundTrip(req *http.Request) (*http.Response, error) {
	parent := req.Context()
	if err := parent.Err(); err != nil {
		return nil, err // asked to stop before this attempt was sent
	}
	if req.Method == http.MethodGet || req.Method == http.MethodHead {
		return t.next.RoundTrip(req)
	}
	var (
		mu        sync.Mutex
		committed bool
	)
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			mu.Lock()
			defer mu.Unlock()
			committed = ctx.Err() == nil
		},
	})
	stopWatching := context.AfterFunc(parent, func() {
		mu.Lock()
		defer mu.Unlock()
		if !committed {
			cancel(context.Cause(parent))
		}
	})
	release := func() {
		stopWatching()
		cancel(nil)
	}
	return roundTripThenRelease(t.next, req.WithContext(ctx), release)
}
