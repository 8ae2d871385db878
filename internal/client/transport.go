package client

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// The HTTP layer is a chain of small RoundTrippers, innermost last:
// retryablehttp (retry policy, retry.go) → pacing (pacing.go: the shared
// rate, 429s waited out) → seeThrough (see_through.go: a create once sent
// is answered even when the caller stops) → per-attempt timeout → logging →
// user agent → bearer auth → net/http. All but the first three are here.
// Each layer does one thing, and the token is added below the logging layer
// so no log line can ever see it.

// bearerAuth adds the Authorization header, and only to requests for the
// configured origin. The redirect policy already refuses other origins; this
// is the second lock, so that no future code path can carry the token away.
type bearerAuth struct {
	origin string
	token  string
	next   http.RoundTripper
}

func newBearerAuth(base *url.URL, token string, next http.RoundTripper) bearerAuth {
	return bearerAuth{origin: originOf(base), token: token, next: next}
}

func (t bearerAuth) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not modify the caller's request
	if originOf(req.URL) == t.origin {
		req.Header.Set("Authorization", "Bearer "+t.token)
	} else {
		req.Header.Del("Authorization")
	}
	return t.next.RoundTrip(req)
}

// originOf is scheme://host:port, lower case, with the scheme's default
// port written out, so that https://API.example.com and
// https://api.example.com:443 are one origin.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// sameOriginRedirects is the http.Client's CheckRedirect policy: a redirect
// is followed only within the configured origin (so https never becomes
// http), and at most 10 times, as net/http does by default.
func sameOriginRedirects(origin string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if originOf(req.URL) != origin {
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &RedirectError{Status: status, Target: originOf(req.URL), Origin: origin}
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// userAgent sets the User-Agent header.
type userAgent struct {
	value string
	next  http.RoundTripper
}

func (t userAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.value)
	return t.next.RoundTrip(req)
}

// logging writes one tflog line per attempt: method, path, status, duration
// and attempt number. It sees neither the token nor any header; the token is
// masked from the context as well, in case a future line logs more.
type logging struct {
	token string
	next  http.RoundTripper
}

func (t logging) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if t.token != "" {
		ctx = tflog.MaskMessageStrings(ctx, t.token)
		ctx = tflog.MaskAllFieldValuesStrings(ctx, t.token)
	}
	fields := map[string]any{
		"method":  req.Method,
		"path":    req.URL.Path,
		"attempt": attemptOf(ctx).number(),
	}
	if req.URL.RawQuery != "" {
		fields["query"] = req.URL.RawQuery
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	fields["duration_ms"] = time.Since(start).Milliseconds()
	if err != nil {
		fields["error"] = err.Error()
		tflog.Debug(ctx, "mobileplan API request failed", fields)
		return nil, err
	}
	fields["status"] = resp.StatusCode
	tflog.Debug(ctx, "mobileplan API request", fields)
	return resp, nil
}

// attemptTimeout bounds one attempt, reading its answer included, as
// http.Client.Timeout would; it sits under the pace so that waiting for
// the pace does not count against it.
type attemptTimeout struct {
	timeout time.Duration
	next    http.RoundTripper
}

func (t attemptTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	return roundTripThenRelease(t.next, req.WithContext(ctx), cancel)
}

// roundTripThenRelease sends req through next and calls release once the
// request is over: at once when it failed, else when its answer's body is
// closed, since reading the body is part of the request.
func roundTripThenRelease(next http.RoundTripper, req *http.Request, release func()) (*http.Response, error) {
	resp, err := next.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = releaseOnClose{ReadCloser: resp.Body, release: release}
	return resp, nil
}

type releaseOnClose struct {
	io.ReadCloser
	release func()
}

func (b releaseOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// attempt tracks one logical request across its retries: which attempt is
// under way and whether its request reached the server in full. The retry
// policy needs the latter to know whether a create is safe to send again.
type attempt struct {
	idempotent bool // a read, which may be sent again whatever happened
	current    atomic.Int64
	written    atomic.Bool
}

type attemptKey struct{}

func withAttempt(ctx context.Context, method string) (context.Context, *attempt) {
	a := &attempt{idempotent: method == http.MethodGet || method == http.MethodHead}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) { a.written.Store(info.Err == nil) },
	})
	return context.WithValue(ctx, attemptKey{}, a), a
}

func attemptOf(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

func (a *attempt) number() int64 {
	if a == nil {
		return 1
	}
	return a.current.Load()
}

// begin is called before each try (0-based i).
func (a *attempt) begin(i int) {
	a.current.Store(int64(i) + 1)
	a.written.Store(false)
}
