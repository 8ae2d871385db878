package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// pacing is the RoundTripper that puts each request through the pace and
// sends a request answered 429 again, for any method (the service did not
// act on it), until its deadline: the context's, or MaxRateLimitWait after
// it started. A 429 whose Retry-After would end past the deadline is the
// request's answer. It sits under net/http's
// redirect handling, so every hop is paced, and above the per-attempt
// timeout, so waiting is not timed as an attempt.
type pacing struct {
	pace    *pace
	maxWait time.Duration
	next    http.RoundTripper
}

func (t pacing) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	start := time.Now()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = start.Add(t.maxWait)
	}
	if d, set := ctx.Value(rateLimitWaitKey{}).(time.Duration); set && start.Add(d).Before(deadline) {
		deadline = start.Add(d)
	}
	for try := 0; ; try++ {
		sent, err := t.pace.admit(ctx, start, deadline)
		sentAt := time.Now()
		if err != nil {
			if a := attemptOf(ctx); a != nil {
				a.written.Store(false) // nothing of this try was sent
			}
			return nil, err
		}
		if try > 0 {
			if req, err = rewound(req); err != nil {
				t.pace.unanswered()
				return nil, err
			}
			if a := attemptOf(ctx); a != nil {
				a.written.Store(false)
			}
		}
		recorder := sendRecorderOf(ctx)
		if recorder != nil {
			if err := recorder.Sending(); err != nil {
				t.pace.unanswered()
				if a := attemptOf(ctx); a != nil {
					a.written.Store(false)
				}
				return nil, &SendRecordError{Err: err}
			}
		}
		resp, err := t.next.RoundTrip(req)
		if err != nil {
			t.pace.unanswered()
			return nil, err
		}
		now := time.Now()
		retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"), now)
		quota, ok, problem := readQuotaFields(resp.Header, now)
		if problem != "" {
			t.pace.fieldProblem(ctx, problem)
		}
		t.pace.observe(ctx, answer{epoch: sent.epoch, sentAt: sentAt, status: resp.StatusCode, retryAfter: retryAfter, quota: quota, fields: ok})
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		if recorder != nil {
			recorder.Refused()
		}
		if time.Now().Add(retryAfter).After(deadline) {
			t.pace.gaveUpAnswered()
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBodyBytes))
		resp.Body.Close()
	}
}

// rewound is req ready to be sent again, with its body from the start.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, fmt.Errorf("the request body cannot be sent again")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = body
	return req, nil
}

type rateLimitWaitKey struct{}

// WithRateLimitWait bounds how long each request made with ctx waits for
// the service's rate limit, its retries after a 429 included, when that is
// sooner than ctx's deadline: for reads that are advice, which are better
// skipped than waited for.
func WithRateLimitWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, rateLimitWaitKey{}, d)
}
