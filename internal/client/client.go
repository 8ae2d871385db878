// Package client speaks to the mobile-plan subscription service. It is the
// only code that makes HTTP requests to the service: typed records, one
// paging iterator for every list, a retry policy that never repeats a
// create that may have taken effect, and errors that carry everything the
// service said.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Defaults for the settings a Config leaves unset.
const (
	DefaultMaxRetries     = 4
	DefaultRequestTimeout = 30 * time.Second
	DefaultMinRetryWait   = 500 * time.Millisecond
	DefaultMaxRetryWait   = 10 * time.Second
	DefaultMaxRetryAfter  = 60 * time.Second
	// maxBodyBytes bounds every response body read into memory. A page of 25
	// subscriptions is a few kilobytes.
	maxBodyBytes = 4 << 20
	// DefaultMaxPages bounds every list at 10,000 pages of 25, 250,000
	// records: far beyond any account, and a list that has not ended by then
	// is a service handing out cursors forever.
	DefaultMaxPages = 10000
)

// Config configures a Client.
type Config struct {
	// BaseURL is the service's base address, e.g. https://api.example.com.
	BaseURL string
	// Token is the API access token sent as a bearer token.
	Token string
	// UserAgent is sent with every request.
	UserAgent string
	// TraceParent, when set, puts every request in that trace
	// (trace_context.go), and TraceState is sent with it.
	TraceParent *TraceParent
	TraceState  string
	// MaxRetries is how many times a request may be retried; nil picks
	// DefaultMaxRetries, and 0 turns retries off.
	MaxRetries *int
	// RequestTimeout bounds each attempt; 0 picks DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MinRetryWait and MaxRetryWait bound the exponential backoff.
	MinRetryWait, MaxRetryWait time.Duration
	// MaxRetryAfter caps how long a server's Retry-After may make us wait.
	MaxRetryAfter time.Duration
	// Transport is the innermost RoundTripper; nil means a pooled transport
	// with TLS verification on, through the proxy the environment names.
	Transport http.RoundTripper
	// CACertPEM, when not empty, holds PEM certificates of authorities
	// trusted in addition to the system's (tls.go); only with a nil
	// Transport.
	CACertPEM string
	// MaxPages bounds how many pages one list reads; 0 picks
	// DefaultMaxPages.
	MaxPages int
	// MaxRequestsPerSecond, when above 0, is a ceiling on the rate the
	// client sends at; 0 leaves the rate to what the service accepts.
	MaxRequestsPerSecond float64
	// MaxRateLimitWait bounds how long one request waits out the service's
	// rate limit when its context has no deadline; 0 picks
	// DefaultMaxRateLimitWait.
	MaxRateLimitWait time.Duration
}

// Client calls the service. It is safe for concurrent use.
type Client struct {
	base     *url.URL
	retry    *retryablehttp.Client
	pace     *pace
	timeout  time.Duration
	maxPages int
	token    string // only to keep it out of errors; the auth transport sends it
	clock    *serviceClock
	// reached is set by the first success answer: base_url leads to the
	// service, so a 404 from then on is about an object, not a path.
	reached atomic.Bool
}

// New checks cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	base, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL %w", err)
	}
	if err := CheckToken(cfg.Token); err != nil {
		return nil, err
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	maxRetries := DefaultMaxRetries
	if cfg.MaxRetries != nil {
		maxRetries = *cfg.MaxRetries
	}
	if maxRetries < 0 {
		return nil, fmt.Errorf("max retries is %d; it must be 0 or more", maxRetries)
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MinRetryWait <= 0 {
		cfg.MinRetryWait = DefaultMinRetryWait
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if cfg.MaxRequestsPerSecond != 0 {
		if err := CheckMaxRequestsPerSecond(cfg.MaxRequestsPerSecond); err != nil {
			return nil, err
		}
	}
	if cfg.MaxRateLimitWait <= 0 {
		cfg.MaxRateLimitWait = DefaultMaxRateLimitWait
	}
	inner := cfg.Transport
	if inner == nil {
		if inner, err = transportTrusting(cfg.CACertPEM); err != nil {
			return nil, err
		}
	}
	var rt http.RoundTripper = newBearerAuth(base, cfg.Token, inner)
	rt = userAgent{value: cfg.UserAgent, next: rt}
	if cfg.TraceParent != nil {
		rt = traceContext{parent: *cfg.TraceParent, state: cfg.TraceState, next: rt}
	}
	rt = logging{token: cfg.Token, next: rt}
	clock := &serviceClock{now: time.Now}
	rt = dated{clock: clock, next: rt}
	rt = attemptTimeout{timeout: cfg.RequestTimeout, next: rt}
	rt = seeThrough{next: rt}
	pace := newPace(cfg.MaxRequestsPerSecond)
	rt = pacing{pace: pace, maxWait: cfg.MaxRateLimitWait, next: rt}

	rc := retryablehttp.NewClient()
	rc.HTTPClient = &http.Client{Transport: rt, CheckRedirect: sameOriginRedirects(originOf(base))}
	rc.Logger = nil // logging is ours, through tflog
	rc.RetryMax = maxRetries
	rc.RetryWaitMin, rc.RetryWaitMax = cfg.MinRetryWait, cfg.MaxRetryWait
	rc.CheckRetry = shouldRetry
	maxRetryAfter := cfg.MaxRetryAfter
	rc.Backoff = func(minWait, maxWait time.Duration, n int, resp *http.Response) time.Duration {
		return backoff(minWait, maxWait, maxRetryAfter, n, resp)
	}
	rc.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, i int) {
		if a := attemptOf(req.Context()); a != nil {
			a.begin(i)
		}
	}
	// Hand back the last answer so its Error body can be read, instead of
	// retryablehttp's generic "giving up" error.
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return &Client{base: base, retry: rc, pace: pace, timeout: cfg.RequestTimeout, maxPages: cfg.MaxPages, token: cfg.Token, clock: clock}, nil
}

// RequestTimeout is the time limit of each attempt of a request.
func (c *Client) RequestTimeout() time.Duration { return c.timeout }

// RateLimitSlowdown is what the service's rate limit has cost this client's
// requests so far.
func (c *Client) RateLimitSlowdown() RateLimitSlowdown { return c.pace.slowdown() }

// Stop makes the client send nothing more, for good, as when its user is
// interrupted: every request waiting in its pace, retries included, and
// every later one ends with ErrStopped. A request already sent is not
// affected; a create among them is seen through (see_through.go).
func (c *Client) Stop() { c.pace.halt() }

// gaveUpBeforeSending reports whether err is this side's reason not to
// send: a stop, a cancelled or expired caller, or a wait for the rate limit
// that would pass the deadline.
func gaveUpBeforeSending(err error) bool {
	var waitErr *RateLimitWaitError
	return errors.Is(err, ErrStopped) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &waitErr) || IsSendRecordError(err)
}

func defaultTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16 // Terraform runs up to 10 operations at once
	return t
}

// call performs one logical request and decodes a success answer into out.
func (c *Client) call(ctx context.Context, op, method, path string, query url.Values, in, out any) error {
	// path arrives escaped (ids go through url.PathEscape); keep it as
	// RawPath so it is not escaped a second time.
	u := *c.base
	rawPath := c.base.EscapedPath() + path
	decoded, err := url.PathUnescape(rawPath)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	u.Path, u.RawPath = decoded, rawPath
	u.RawQuery = query.Encode()

	var body []byte
	if in != nil {
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("%s: encoding the request: %w", op, err)
		}
	}
	ctx, att := withAttempt(ctx, method)
	req, err := retryablehttp.NewRequestWithContext(ctx, method, u.String(), bytesOrNil(body))
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.retry.Do(req)
	attempts := int(att.number())
	if err != nil && resp != nil {
		// A refused redirect comes with the redirect's own answer, whose
		// body net/http has already closed.
		resp.Body.Close()
	}
	call := Call{Operation: op, Method: method, Path: path}
	var redirect *RedirectError
	if errors.As(err, &redirect) {
		// An answer, not an ambiguous failure: the service did not act on
		// a request it redirected.
		r := *redirect
		r.Call = call
		return &r
	}
	if err != nil {
		reqErr := &RequestError{Call: call, Attempts: attempts, Err: err, NotSent: !att.written.Load() && gaveUpBeforeSending(err)}
		if isTimeout(err) && ctx.Err() == nil {
			reqErr.Timeout = c.timeout
		}
		if method == http.MethodPost && att.written.Load() {
			return &UncertainCreateError{Err: reqErr}
		}
		return reqErr
	}
	defer resp.Body.Close()
	raw, readErr := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))

	if resp.StatusCode == http.StatusNotFound {
		if err := c.noSuchPath(ctx, call, u.String(), raw); err != nil {
			return err
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := decodeAPIError(resp.StatusCode, resp.Header, hideSecret(raw, c.token))
		apiErr.hideSecret(c.token)
		apiErr.Call, apiErr.Attempts = call, attempts
		if method == http.MethodPost && resp.StatusCode >= 500 {
			return &UncertainCreateError{Err: apiErr}
		}
		return apiErr
	}
	c.reached.Store(true)
	var decodeErr error
	switch {
	case readErr != nil:
		decodeErr = readErr
	case len(raw) > maxBodyBytes:
		decodeErr = fmt.Errorf("the answer is larger than %d bytes", maxBodyBytes)
	case out != nil:
		decodeErr = json.Unmarshal(raw, out)
	}
	if decodeErr != nil {
		err := &DecodeError{Call: call, StatusCode: resp.StatusCode, Err: decodeErr, BodyExcerpt: excerpt(hideSecret(raw, c.token))}
		if method == http.MethodPost {
			return &UncertainCreateError{Err: err}
		}
		return err
	}
	return nil
}

// noSuchPath tells a 404 about a path from one about an object. Only an
// object's own path (/v1/plans/{id}) may answer 404; a collection that
// does, or an object's 404 while the collection above it does too, means
// that base_url does not lead to the service. Until a first success
// answer, an object's 404 is checked once against its collection.
func (c *Client) noSuchPath(ctx context.Context, call Call, requested string, body []byte) error {
	if strings.Count(call.Path, "/") > 2 {
		if c.reached.Load() {
			return nil
		}
		collection := call.Path[:strings.LastIndex(call.Path, "/")]
		probe := c.call(ctx, "check the base URL", http.MethodGet, collection, url.Values{"pageSize": {"1"}}, nil, nil)
		var noPath *NoSuchPathError
		if !errors.As(probe, &noPath) {
			return nil
		}
	}
	return &NoSuchPathError{Call: call, URL: requested, BodyExcerpt: excerpt(hideSecret(body, c.token))}
}

func isTimeout(err error) bool {
	var netErr interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout())
}

func bytesOrNil(b []byte) any {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// CreateSubscription creates a subscription from a plan id or an inline plan.
func (c *Client) CreateSubscription(ctx context.Context, req CreateSubscriptionRequest) (*Subscription, error) {
	if (req.PlanID == "") == (req.Plan == nil) {
		return nil, errors.New("create subscription: give exactly one of a plan id and an inline plan")
	}
	const op, path = "create subscription", "/v1/subscriptions"
	var sub Subscription
	if err := c.call(ctx, op, http.MethodPost, path, nil, req, &sub); err != nil {
		return nil, err
	}
	if sub.ID == "" {
		// Success without an id: something was probably created, and
		// Terraform could not track it.
		return nil, &UncertainCreateError{Err: &DecodeError{Call: Call{Operation: op, Method: http.MethodPost, Path: path},
			StatusCode: http.StatusOK, Err: errors.New("the answer has no subscription id")}}
	}
	return &sub, nil
}

// GetSubscription reads one subscription; IsNotFound(err) when it is gone.
func (c *Client) GetSubscription(ctx context.Context, id string) (*Subscription, error) {
	return get(ctx, c, "read subscription "+id, "/v1/subscriptions/"+url.PathEscape(id), func(s *Subscription) string { return s.ID })
}

// GetPlan reads one plan.
func (c *Client) GetPlan(ctx context.Context, id string) (*Plan, error) {
	return get(ctx, c, "read plan "+id, "/v1/plans/"+url.PathEscape(id), func(p *Plan) string { return p.ID })
}

// GetEsim reads one eSIM by ICCID.
func (c *Client) GetEsim(ctx context.Context, iccid string) (*Esim, error) {
	return get(ctx, c, "read eSIM "+iccid, "/v1/esims/"+url.PathEscape(iccid), func(e *Esim) string { return e.ICCID })
}

// get reads one record. A success answer that lacks the record's key is
// refused: it would otherwise be stored as an empty id.
func get[T any](ctx context.Context, c *Client, op, path string, key func(*T) string) (*T, error) {
	var out T
	if err := c.call(ctx, op, http.MethodGet, path, nil, nil, &out); err != nil {
		return nil, err
	}
	if key(&out) == "" {
		return nil, &DecodeError{Call: Call{Operation: op, Method: http.MethodGet, Path: path}, StatusCode: http.StatusOK, Err: errors.New("the answer has no id")}
	}
	return &out, nil
}
