package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Retry rules, each proven by a test in retry_test.go:
//
//  1. Reads follow retryablehttp.DefaultRetryPolicy: retried on 5xx other
//     than 501 and on transport errors, never on other 4xx, TLS
//     certificate errors, too many redirects, an invalid header or scheme,
//     or a cancelled context. The wait is exponential with jitter, or the
//     server's Retry-After when it sends one (capped).
//  2. More answers are never retried here: a redirect to another origin
//     (RedirectError), an https request answered in plain http, a request
//     the stopped client did not send (ErrStopped), and a 429 or a
//     RateLimitWaitError: the pace (pacing.go) waits out 429s without a
//     count, until a deadline, and what reaches this policy is past it;
//     nor a request its SendRecorder kept from being sent
//     (SendRecordError), which would fail the same way again.
//  3. A create (POST) is retried only when the service cannot have acted:
//     when the request was never written in full. Never after a 5xx, a
//     timeout or a dropped connection once it was sent.
//  4. A request without an attempt record may be a create, and is treated
//     as one (fail closed).
//  5. At most MaxRetries retries; the last answer or error is returned.

// shouldRetry is the retryablehttp CheckRetry policy.
func shouldRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if err == nil && resp != nil && ctx.Err() != nil {
		// An answer that came after the caller stopped (a create seen
		// through) is the outcome, not a cancelled request.
		return false, nil
	}
	retry, policyErr := retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	var redirect *RedirectError
	var waitErr *RateLimitWaitError
	if !retry || errors.As(err, &redirect) || errors.As(err, &waitErr) || errors.Is(err, ErrStopped) || IsSendRecordError(err) || errors.Is(err, http.ErrSchemeMismatch) ||
		(resp != nil && resp.StatusCode == http.StatusTooManyRequests) {
		return false, policyErr
	}
	a := attemptOf(ctx)
	switch {
	case a != nil && a.idempotent:
		return true, nil
	case err != nil:
		return a != nil && !a.written.Load(), nil
	}
	return false, nil
}

// backoff computes the wait before retry number attemptNum (0-based):
// Retry-After when the server sent it, capped at maxRetryAfter; otherwise
// exponential from minWait, capped at maxWait, with full jitter in its upper
// half so that many clients do not retry in lockstep.
func backoff(minWait, maxWait, maxRetryAfter time.Duration, attemptNum int, resp *http.Response) time.Duration {
	if resp != nil {
		if ra := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ra > 0 {
			return min(ra, maxRetryAfter)
		}
	}
	wait := minWait << min(attemptNum, 30)
	if wait <= 0 || wait > maxWait {
		wait = maxWait
	}
	half := wait / 2
	return half + rand.N(half+1)
}
