package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"
)

// Retry rules, each proven by a test in retry_test.go:
//
//  1. GET: retried on 429, on 5xx other than 501, and on transport errors
//     (connection refused, reset, timeout), with exponential backoff and
//     jitter, or the server's Retry-After when it sends one (capped).
//  2. POST: retried on 429 (the service refused to act) and on transport
//     errors that happened before the whole request was written (the service
//     cannot have acted). Never after an ambiguous failure: a timeout or
//     dropped connection once the request was sent, or any 5xx.
//  3. Never retried: other 4xx, TLS certificate errors, a redirect to
//     another origin, a cancelled context.
//  4. A request whose method is unknown (no attempt record) is treated as a
//     POST.
//  5. At most MaxRetries retries; the last answer or error is returned.

// shouldRetry is the retryablehttp CheckRetry policy.
func shouldRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	// Without its attempt record a request may be a create that has been
	// sent: it is treated as one (fail closed).
	a := attemptOf(ctx)
	idempotent := a != nil && (a.method == http.MethodGet || a.method == http.MethodHead)
	if err != nil {
		if permanent(err) {
			return false, nil
		}
		if idempotent {
			return true, nil
		}
		return a != nil && !a.written.Load(), nil
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true, nil
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return idempotent, nil
	}
	return false, nil
}

// permanent reports transport errors that another try cannot fix.
func permanent(err error) bool {
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var urlErr *url.Error
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		return true
	}
	if errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr) || errors.As(err, &invalid) {
		return true
	}
	if errors.As(err, &urlErr) && errors.Is(urlErr.Err, http.ErrSchemeMismatch) {
		return true
	}
	return false
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
